'use strict';
// Spawning ./run.sh from tests: a private results and state directory per test, the ports of the
// environment (test.sh sets PB_PORT_*), and what the run left behind.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const RUN_SH = path.join(ROOT, 'run.sh');

// A fresh scratch directory with results/ and state/ (state/ under PB_STATE when set, so the ports and
// PID files of the test stay where test.sh put them).
function scratch(label) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pb-${label}-`));
  const results = path.join(dir, 'results');
  const base = process.env.PB_STATE || path.join(ROOT, 'build', 'state-test');
  const state = path.join(base, `${label}-${path.basename(dir)}`);
  fs.mkdirSync(state, { recursive: true });
  return { dir, results, state, cleanup: () => { fs.rmSync(dir, { recursive: true, force: true }); fs.rmSync(state, { recursive: true, force: true }); } };
}

// A hosts file with the given lines.
function hostsFile(dir, lines) {
  const file = path.join(dir, 'hosts.conf');
  fs.writeFileSync(file, `# test hosts\n${lines.join('\n')}\n`);
  return file;
}

const LOCAL_HOSTS = ['sut     local  127.0.0.1  local', 'engine  local  127.0.0.1  local'];

// Runs run.sh; resolves { code, signal, stdout, stderr, runDir }. options.env adds variables;
// options.onLine(line, child) sees each stdout line as it comes (to interrupt a run mid-way);
// options.timeoutMs ends it if it overruns, which fails the test that awaited it: TERM first, so run.sh
// stops what it started (its undo list), then KILL after TERM_GRACE_MS.
const TERM_GRACE_MS = 30000;

function runSh(args, { env = {}, onLine, timeoutMs = 300000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(RUN_SH, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let pending = '';
    let killer = null;
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      killer = setTimeout(() => child.kill('SIGKILL'), TERM_GRACE_MS);
    }, timeoutMs);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      pending += chunk;
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (onLine) onLine(line, child);
      }
    });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killer);
      const m = /^run directory: (.+)$/m.exec(stdout);
      resolve({ code, signal, stdout, stderr, runDir: m ? m[1] : null });
    });
  });
}

// A finished run's validity (its data/summary.json), or null when it has none.
function validityOf(runDir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(runDir, 'data', 'summary.json'), 'utf8')).validity;
  } catch {
    return null;
  }
}

// runSh for a test that asserts a verdict (valid, generator-bound): a run judged disturbed (steal, or
// other processes took the machine: docs/validity.md) says nothing of the code under test, so it is taken
// again once, as the study retakes one; the retake's verdict stands. options: runSh's, or a function that
// makes them afresh for each attempt (a test whose onLine keeps state). Resolves the last attempt's runSh
// result.
async function runShUndisturbed(args, options = {}) {
  const optionsOf = typeof options === 'function' ? options : () => options;
  const first = await runSh(args, optionsOf());
  const v = first.code === 0 ? validityOf(first.runDir) : null;
  if (v?.verdict !== 'disturbed') return first;
  const why = v.reasons.filter((r) => r.verdict === 'disturbed').map((r) => r.text).join('; ');
  process.stdout.write(`# ${args.join(' ')}: disturbed (${why}); taken again\n`);
  return runSh(args, optionsOf());
}

// Every file under dir (relative paths), for "nothing was created" checks.
function listFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full).map((f) => path.join(entry.name, f)));
    else out.push(entry.name);
  }
  return out;
}

// Is a process with this PID alive (a zombie counts as gone)?
function alive(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

// Is something listening on this TCP port (any address)?
function listening(port) {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try { text = fs.readFileSync(file, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 3 && f[3] === '0A' && f[1].endsWith(`:${hex}`)) return true;
    }
  }
  return false;
}

module.exports = { ROOT, RUN_SH, scratch, hostsFile, LOCAL_HOSTS, runSh, runShUndisturbed, listFiles, alive, listening };
