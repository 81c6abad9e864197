'use strict';
// What the sweep's parts share (sweep/main.js's CLI, sweep.js's Sweep, lane-loop.js, order.js): run.sh's place
// and exit codes, the sweep's line on the terminal, time stamps, the selected items, the sweep directory's
// lock, a question to the user, and the stop of a run left behind.

const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { spawn } = require('node:child_process');
const { permutations, matchesFilters } = require('./permutations');
const { UsageError } = require('./options');

const ROOT = path.resolve(__dirname, '..');
const RUN_SH = path.join(ROOT, 'run.sh');
const MAX_FAILURES_IN_A_ROW = 3;

const EXIT_MEANING = {
  0: 'complete', 1: 'run failed or incomplete', 2: 'usage or hosts.conf error', 3: 'preflight failed',
  4: 'complete, but the server under test crashed', 5: 'another run holds the state directory, nothing started',
  6: 'a run killed beyond any trap waits for ./run.sh --stop-stale, nothing started', 7: 'complete, but a threshold failed',
  130: 'interrupted',
};
// The sweep's own exit code when every selected run is done but some run's threshold failed (run.sh's 7).
const EXIT_THRESHOLD_FAILED = 7;

function say(line) {
  process.stdout.write(`sweep: ${line}\n`);
}

function stamp(d = new Date()) {
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

function clock(d) {
  return d.toISOString().slice(11, 16) + ' UTC';
}

// The selected permutations, each repeat a separate item with its own state line.
function itemsFor(sel) {
  const items = [];
  const perms = permutations(sel).filter((p) => matchesFilters(p.command, sel.filters));
  for (const perm of perms) {
    for (let r = 1; r <= sel.repeat; r++) items.push({ perm, repeat: r, key: `${perm.command} #${r}` });
  }
  return { perms, items };
}

// One process per sweep directory: a lock file holding our PID (a stale one, whose PID is gone, is taken over).
function lockDir(dir) {
  const lock = path.join(dir, '.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
      process.on('exit', () => fs.rmSync(lock, { force: true }));
      return;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const pid = Number(fs.readFileSync(lock, 'utf8').trim());
      let alive = false;
      try {
        process.kill(pid, 0);
        alive = true;
      } catch { /* gone */ }
      if (alive) throw new Error(`${dir} is in use by another sweep (PID ${pid})`);
      fs.rmSync(lock, { force: true });
    }
  }
  throw new Error(`cannot lock ${dir}`);
}

async function confirm(question) {
  if (!process.stdin.isTTY) {
    throw new UsageError('stdin is not a terminal, so nobody can answer; pass --yes to start without asking');
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  const answer = await new Promise((resolve) => rl.question(question, resolve));
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

// ./run.sh --stop <run id> (--stop-stale without one) in a lane's environment: a run.sh killed beyond any
// trap (SIGKILL, the OOM killer) or cut off with its sweep leaves processes and a run.json saying "running";
// this stops them, collects what they wrote and marks the run incomplete (lib/state-dir.sh). Resolves to
// what it did, in a line.
function stopLeftRun(runDir, env) {
  const args = runDir ? ['--stop', path.basename(runDir)] : ['--stop-stale'];
  return new Promise((resolve) => {
    const child = spawn(RUN_SH, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code) => resolve(`./run.sh ${args.join(' ')}: ${out.trim().split('\n').pop() || `exit ${code}`}`));
  });
}

function lastErrorLine(text) {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const err = lines.filter((l) => /^run\.sh:/.test(l) || /error|fail/i.test(l));
  return (err.at(-1) ?? lines.at(-1) ?? '').slice(0, 300);
}

const fixed = (n, d = 1) => n.toLocaleString('en-GB', { maximumFractionDigits: d });

module.exports = { EXIT_MEANING, EXIT_THRESHOLD_FAILED, MAX_FAILURES_IN_A_ROW, ROOT, RUN_SH, clock, confirm, fixed, itemsFor, lastErrorLine, lockDir, say, stamp, stopLeftRun };
