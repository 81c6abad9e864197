#!/usr/bin/env node
'use strict';
// The capacity search (issue #49 item 4; references 003's "95% under 6 s" and 004's connections held until
// failure): how many connections a push server holds before delivery degrades, by real runs of run.sh at
// rising levels (capacity/steps.js: doubling, then bisecting), each judged by its verdict and thresholds.
//
//   ./run.sh --capacity [--max N] [--resolution PCT] [--threshold EXPR]... --target FILE <rampup> <hold> <start>
//   ./run.sh --capacity [...] <server-type> <rampup> <hold> <start> <test-type> [...] [--tls]   (the built-in servers)
//
// <start> stands where a run's connections do; every other argument goes to each run as given; --tls
// (anywhere; the built-in servers only, as run.sh) goes to each run and its --plan after the arguments. Before each
// step `./run.sh --plan` judges the level against the engines' open-file limits: a level that does not fit
// ends the search, named. Every step is an ordinary run directory; the search's own directory
// <results>/<stamp>-capacity-<name>/ holds capacity.json (every step: level, run, verdict, figures,
// outcome; written after each step, so an interrupted search keeps what it did) and index.html (trip time
// p99 and delivery against connections, each step linked to its report). Exit 0 when a level held, 1 when
// none did or a step could not run, 2 bad arguments (nothing run), 130 interrupted.
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { judgeStep, nextLevel } = require('./steps');
const { METRICS } = require('../lib/thresholds');
const { writeFileAtomic } = require('../lib/atomic-write');
const { capacityPage } = require('./page');

const ROOT = path.resolve(__dirname, '..');
const RUN_SH = path.join(ROOT, 'run.sh');

function usage(message) {
  process.stderr.write(`run.sh --capacity: ${message}\nusage: ./run.sh --capacity [--max N] [--resolution PCT] [--threshold EXPR]... --target FILE <rampup> <hold> <start>\n`
    + '       ./run.sh --capacity [--max N] [--resolution PCT] [--threshold EXPR]... <server-type> <rampup> <hold> <start> <test-type> [...] [--tls]\n');
  return 2;
}

// argv (run.sh's, --capacity taken out) -> { max, resolution, tls, args (a run's, the level at levelAt, --tls
// last when given), start } or { error }.
function parseArgs(argv) {
  const out = { max: Infinity, resolution: 0.1, tls: false, args: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--max' || a === '--resolution') {
      const v = argv[++i];
      if (!/^[0-9]+(\.[0-9]+)?$/.test(v ?? '')) return { error: `${a} needs a number, got '${v ?? ''}'` };
      if (a === '--max') out.max = Number(v); else out.resolution = Number(v) / 100;
      if (a === '--resolution' && !(out.resolution > 0 && out.resolution <= 1)) return { error: `--resolution is a percentage from 0 to 100, got ${v}` };
    } else if (a === '--threshold') {
      out.args.push(a, argv[++i]);
    } else if (a === '--tls') {
      out.tls = true;
    } else {
      out.args.push(a);
    }
  }
  // the positional arguments, past the --threshold pairs: a target's level is its last, a built-in's the 4th
  const positions = out.args.map((a, i) => i).filter((i) => out.args[i] !== '--threshold' && out.args[i - 1] !== '--threshold');
  const target = out.args[positions[0]] === '--target';
  if (target && out.tls) return { error: '--tls is for the built-in servers: a target search speaks TLS through its file (https:// and wss:// URLs, its tls key; docs/targets.md "TLS")' };
  if (target && positions.length !== 5) return { error: 'a target search takes --target FILE <rampup> <hold> <start>' };
  if (!target && positions.length < 5) return { error: 'a built-in search takes <server-type> <rampup> <hold> <start> <test-type> [...]' };
  out.levelAt = positions[target ? 4 : 3];
  const start = out.args[out.levelAt];
  if (!/^[1-9][0-9]{0,6}$/.test(start)) return { error: `<start> must be a whole number of connections, got '${start}'` };
  out.start = Number(start);
  if (out.tls) out.args.push('--tls');
  return out;
}

const withLevel = (o, level) => o.args.map((a, i) => (i === o.levelAt ? String(level) : a));

// ./run.sh --plan at a level: { plan } or { error (its stderr), code }.
function plan(o, level) {
  const r = spawnSync(RUN_SH, ['--plan', ...withLevel(o, level)], { cwd: ROOT, encoding: 'utf8', env: process.env });
  if (r.status !== 0) return { error: (r.stderr || r.stdout).trim(), code: r.status };
  return { plan: JSON.parse(r.stdout) };
}

const readJson = (file) => { try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch { return null; } };

// One step: run.sh at a level, its output passed through; resolves { code, runDir }.
function runStep(o, level, dir, state) {
  const runDirFile = path.join(dir, `.run-dir-${level}-${Date.now()}`);
  return new Promise((resolve) => {
    const child = spawn(RUN_SH, withLevel(o, level), { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, PB_RUN_DIR_FILE: runDirFile } });
    state.child = child;
    child.on('close', (code, signal) => {
      state.child = null;
      let runDir = null;
      try { runDir = fs.readFileSync(runDirFile, 'utf8').trim(); fs.rmSync(runDirFile); } catch { /* never made one */ }
      resolve({ code: code ?? (signal ? 130 : 1), runDir });
    });
  });
}

// A finished step's figures: what the search judges and draws.
function stepFigures(level, { code, runDir }) {
  const run = runDir ? readJson(path.join(runDir, 'run.json')) : null;
  const summary = runDir ? readJson(path.join(runDir, 'data', 'summary.json')) : null;
  const verdict = summary?.validity?.verdict ?? null;
  const thresholdsFailed = summary?.thresholds?.failed ?? 0;
  const figure = (m) => (summary ? METRICS[m].read(summary) : null);
  const step = { level, exit: code, runDir, status: run?.status ?? null, verdict, thresholdsFailed,
    reasons: (summary?.validity?.reasons ?? []).slice(0, 3).map((r) => r.text),
    tripP99Ms: figure('trip.p99'), receivedPercent: figure('received'), missed: figure('missed') };
  step.outcome = judgeStep({ verdict, thresholdsFailed, complete: run?.status === 'complete' });
  return step;
}

function describe(s) {
  const figures = [s.verdict ?? 'no verdict', s.tripP99Ms === null ? null : `trip p99 ${s.tripP99Ms} ms`,
    s.receivedPercent === null ? null : `received ${s.receivedPercent} %`, s.thresholdsFailed ? `${s.thresholdsFailed} threshold(s) failed` : null];
  return `${s.level} connections: ${s.outcome} (${figures.filter(Boolean).join(', ')})`;
}

function writeResult(dir, result) {
  writeFileAtomic(path.join(dir, 'capacity.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileAtomic(path.join(dir, 'index.html'), capacityPage(result, dir));
}

async function main(argv) {
  const o = parseArgs(argv.filter((a) => a !== '--capacity'));
  if (o.error) return usage(o.error);
  const first = plan(o, o.start);
  if (first.error) { process.stderr.write(`${first.error}\n`); return first.code ?? 2; }
  const name = first.plan.target?.name ?? first.plan.parameters.server;
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const dir = path.join(process.env.PB_RESULTS || path.join(ROOT, 'results'), `${stamp}-capacity-${name}`);
  fs.mkdirSync(dir, { recursive: true });
  const result = { name, args: argv.filter((a) => a !== '--capacity'), start: o.start, max: Number.isFinite(o.max) ? o.max : null,
    resolutionPercent: o.resolution * 100, steps: [], held: null, stoppedBy: null, reason: null, interrupted: false };
  const state = { child: null, interrupted: false };
  const stop = (sig) => { state.interrupted = true; if (state.child) state.child.kill(sig === 'SIGINT' ? 'SIGINT' : 'SIGTERM'); };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  console.log(`capacity search: ${name}, from ${o.start} connections (resolution ${result.resolutionPercent}%); ${dir}`);
  for (;;) {
    const next = nextLevel(result.steps, { start: o.start, max: o.max, resolution: o.resolution });
    if (next.stop) { result.stoppedBy = next.stop; result.reason = next.reason; break; }
    const fit = next.level === o.start ? first : plan(o, next.level);
    const unfit = fit.plan?.openFiles?.hosts?.find((h) => !h.fits);
    if (fit.error || unfit) {
      result.stoppedBy = 'fit';
      result.reason = `${next.level} connections do not fit this machine: ${unfit ? `${unfit.role} ${unfit.name}: ${unfit.problem}` : fit.error}`;
      break;
    }
    console.log(`capacity: step ${result.steps.length + 1}: ${next.level} connections`);
    const step = stepFigures(next.level, await runStep(o, next.level, dir, state));
    result.steps.push(step);
    result.held = Math.max(0, ...result.steps.filter((s) => s.outcome === 'held').map((s) => s.level)) || null;
    writeResult(dir, result);
    console.log(`capacity: ${describe(step)}`);
    if (state.interrupted || step.exit === 130) { result.interrupted = true; result.stoppedBy = 'interrupted'; result.reason = 'interrupted'; break; }
  }
  writeResult(dir, result);
  console.log(result.held ? `capacity: ${result.held} connections held; stopped by ${result.stoppedBy}: ${result.reason}`
    : `capacity: no level held; stopped by ${result.stoppedBy}: ${result.reason}`);
  console.log(`capacity report: ${path.join(dir, 'index.html')}`);
  if (result.interrupted) return 130;
  return result.held ? 0 : 1;
}

if (require.main === module) main(process.argv.slice(2)).then((code) => { process.exitCode = code; });

module.exports = { parseArgs, withLevel, stepFigures };
