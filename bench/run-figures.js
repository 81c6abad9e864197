'use strict';
// Figures of one finished run, for bench/run-overhead.sh and bench/poll-headline.sh.
//
//   node bench/run-figures.js overhead <run-dir>
//     run.sh's own time (set-up, teardown, collection, analysis) from run.json's "steps", against the
//     test's duration; and the time JMeter itself took beyond the test duration inside the wait.
//   node bench/run-figures.js poll <run-dir>
//     long-poll throughput with every connection open, from jmeter/results.csv (see pollRate), against
//     the workload's limit: threads / max-duration; whether JMeter kept up (see generator); and the CPU
//     the hypervisor took meanwhile (steal).
// Prints one JSON object.
const fs = require('node:fs');
const path = require('node:path');
const { parse } = require('csv-parse/sync');
const { parseVmstatText } = require('../analysis/read/vmstat');
const { percentile } = require('../analysis/measure/trip-time');   // nearest rank
const { runRecord } = require('../lib/run-schema');

const PHASES = {
  setup: ['validate_arguments', 'read_hosts', 'preflight', 'create_log_directories', 'launch_engines', 'stop_all_servers',
    'start_server_under_test', 'start_monitoring', 'start_engines', 'start_engine_monitoring', 'run_controller'],
  teardown: ['stop_jmeter', 'stop_server', 'stop_monitoring'],
  collection: ['archive_responses', 'copy_responses'],
  analysis: ['analyze', 'print_report_path'],
};

function overhead(runJson) {
  const run = runRecord(runJson);   // old run.json names too (lib/run-schema.js)
  const ms = {};
  for (const [phase, steps] of Object.entries(PHASES)) {
    ms[phase] = steps.reduce((n, s) => {
      if (!Number.isInteger(run.steps?.[s])) throw new Error(`run.json has no duration for step ${s}`);
      return n + run.steps[s];
    }, 0);
  }
  const total = ms.setup + ms.teardown + ms.collection + ms.analysis;
  const testMs = run.durationS * 1000;
  const jmeterExtraMs = run.steps.wait_for_completion - run.durationS * 1000;   // the plan's duration includes the ramp-up
  return { id: run.id, status: run.status, durationMs: testMs, ...ms, totalMs: total,
    fraction: total / testMs, waitMs: run.steps.wait_for_completion, jmeterExtraMs };
}

// Each connection (JMeter thread) can complete at most one poll per max-duration when no event comes.
// Its rate is the polls it completed over the time from its first request to its last answer; the sum
// over every connection is the steady-state rate with all of them open, free of the ramp-up and of
// where a fixed window would cut the 10 s cycles.
function pollRate(runJson, runDir) {
  const run = runRecord(runJson);
  if (run.type !== 'poll' || !run.maxDurationMs) throw new Error(`${run.id} is not a poll run`);
  const rows = parse(fs.readFileSync(path.join(runDir, 'jmeter', 'results.csv')), { columns: true, skip_empty_lines: true });
  // Polls still open at the Clean Up's clear end early with a clear record: not a full cycle.
  const clears = rows.filter((r) => r.label === 'clear').map((r) => Number(r.timeStamp));
  const clearAt = clears.length ? Math.min(...clears) : Infinity;
  const threads = new Map();
  let failed = 0;
  for (const r of rows) {
    if (r.label !== 'request') continue;
    if (Number(r.timeStamp) + Number(r.elapsed) >= clearAt) continue;
    if (r.success !== 'true') { failed++; continue; }
    const start = Number(r.timeStamp);
    const end = start + Number(r.elapsed);
    if (!threads.has(r.threadName)) threads.set(r.threadName, { samples: [] });
    threads.get(r.threadName).samples.push([start, end]);
  }
  if (threads.size === 0) throw new Error('no successful request samples in results.csv');
  let rate = 0;
  let responses = 0;
  for (const t of threads.values()) {
    t.first = Math.min(...t.samples.map((x) => x[0]));
    const last = Math.max(...t.samples.map((x) => x[1]));
    responses += t.samples.length;
    rate += t.samples.length / ((last - t.first) / 1000);
  }
  const limit = run.connections / (run.maxDurationMs / 1000);
  return { id: run.id, server: run.server, connections: run.connections, connectionsSeen: threads.size, status: run.status,
    serverCrashed: run.serverCrashed, responses, failed, responsesPerSecond: rate, limitPerSecond: limit,
    fraction: rate / limit, ...generator(threads), ...steal(runDir) };
}

// Did the load generator keep up? A poll's connection gives no rate while its thread has not started or
// sits between an answer and its next poll, and on a machine shared with the server both stretch when
// JMeter is short of CPU (docs/limits.md). From each connection's successful polls: when the last thread
// started (seconds after the first), the 90th percentile of the gap from an answer to the thread's next
// poll (the median stays at ~1 ms: most threads are not kept waiting), and the 10 s window (by the
// answer's time, from the first poll) whose 90th percentile was the largest. threads: name -> { first,
// samples: [[start, end]] in any order }.
function generator(threads) {
  let t0 = Infinity;
  for (const t of threads.values()) t0 = Math.min(t0, t.first);
  let lastStart = -Infinity;
  const all = [];
  const windows = new Map();
  for (const t of threads.values()) {
    lastStart = Math.max(lastStart, t.first);
    t.samples.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < t.samples.length; i++) {
      const gap = t.samples[i][0] - t.samples[i - 1][1];
      all.push(gap);
      const w = Math.floor((t.samples[i - 1][1] - t0) / 10000);
      if (!windows.has(w)) windows.set(w, []);
      windows.get(w).push(gap);
    }
  }
  let worst = { second: null, gapMs: null };
  for (const [w, gaps] of [...windows].sort((a, b) => a[0] - b[0])) {   // on a tie the earliest window
    if (gaps.length < 100) continue;   // a window's percentile from a handful of polls says little
    const m = percentile(gaps.sort((a, b) => a - b), 90);
    if (worst.gapMs === null || m > worst.gapMs) worst = { second: w * 10, gapMs: m };
  }
  return { lastStartSecond: Number.isFinite(lastStart) ? (lastStart - t0) / 1000 : null,
    gapP90Ms: percentile(all.sort((a, b) => a - b), 90), worstGapSecond: worst.second, worstGapP90Ms: worst.gapMs };
}

// CPU the hypervisor gave to other guests during the run (vmstat's st on the SUT host): a figure measured
// while much of the machine was elsewhere says little about the server. Mean % over the run and the
// seconds above 10%; nulls when there is no vmstat log or no st column.
function steal(runDir) {
  const file = path.join(runDir, 'sut', 'vmstat.log');
  if (!fs.existsSync(file)) return { stealPercent: null, stealSeconds: null };
  const values = parseVmstatText(fs.readFileSync(file, 'utf8')).samples.map((s) => s.steal).filter((v) => v !== null);
  if (values.length === 0) return { stealPercent: null, stealSeconds: null };
  return { stealPercent: values.reduce((a, b) => a + b, 0) / values.length, stealSeconds: values.filter((v) => v > 10).length };
}

function main() {
  const [what, runDir] = process.argv.slice(2);
  if (!['overhead', 'poll'].includes(what) || !runDir) {
    console.error('usage: node bench/run-figures.js {overhead|poll} <run-dir>');
    process.exit(2);
  }
  const run = JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8'));
  const out = what === 'overhead' ? overhead(run) : pollRate(run, runDir);
  console.log(JSON.stringify(out));
}

if (require.main === module) main();
module.exports = { overhead, pollRate, steal, generator };
