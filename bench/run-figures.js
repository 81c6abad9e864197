'use strict';
// Figures of one finished run, for bench/run-overhead.sh and bench/poll-headline.sh.
//
//   node bench/run-figures.js overhead <run-dir>
//     run.sh's own time (set-up, teardown, collection, analysis) from run.json's "steps", against the
//     test's duration; and the time JMeter itself took beyond the test duration inside the wait.
//   node bench/run-figures.js poll <run-dir>
//     long-poll throughput with every connection open, from the run's request samples (see pollRate):
//     jmeter/results.csv's request rows (the per-thread http sampler), else the engines' stream logs
//     (responses/<engine>.tar.gz: the mux and push samplers write their samples there, not to results.csv),
//     against the workload's limit: connections / max-duration; whether JMeter kept up (see generator);
//     and the CPU the hypervisor took meanwhile (steal).
// Prints one JSON object.
const fs = require('node:fs');
const path = require('node:path');
const { parse } = require('csv-parse/sync');
const { parseVmstatText } = require('../analysis/read/vmstat');
const { percentile } = require('../analysis/measure/trip-time');   // nearest rank
const { runRecord } = require('../lib/run-schema');
const { ArchiveReader } = require('../analysis/read/archive-reader');
const { beginOf, endOf } = require('../analysis/read/stream-log');

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
// samples: the run's request samples, { thread, start, end (ms), success } (pollSamples); results.csv's
// request rows when not given.
function pollRate(runJson, runDir, samples = null) {
  const run = runRecord(runJson);
  if (run.type !== 'poll' || !run.maxDurationMs) throw new Error(`${run.id} is not a poll run`);
  const rows = resultRows(runDir);
  samples ??= requestRows(rows);
  // Polls still open at the Clean Up's clear end early with a clear record: not a full cycle.
  const clears = rows.filter((r) => r.label === 'clear').map((r) => Number(r.timeStamp));
  const clearAt = clears.length ? Math.min(...clears) : Infinity;
  const threads = new Map();
  let failed = 0;
  for (const r of samples) {
    if (r.end >= clearAt) continue;
    if (!r.success) { failed++; continue; }
    if (!threads.has(r.thread)) threads.set(r.thread, { samples: [] });
    threads.get(r.thread).samples.push([r.start, r.end]);
  }
  if (threads.size === 0) throw new Error('no successful request samples (results.csv, stream logs)');
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

const resultRows = (runDir) =>
  parse(fs.readFileSync(path.join(runDir, 'jmeter', 'results.csv')), { columns: true, skip_empty_lines: true });

// results.csv's request rows as samples (the per-thread http sampler writes one per poll).
function requestRows(rows) {
  return rows.filter((r) => r.label === 'request').map((r) => ({ thread: r.threadName, start: Number(r.timeStamp),
    end: Number(r.timeStamp) + Number(r.elapsed), success: r.success === 'true' }));
}

// The request samples of the engines' stream logs (each archive's push-<n>.tsv.gz): a B line's start and
// thread (a mux connection's own name) with its E line's end, in ms; successful when the sampler's ok is 1
// and no assertion failed (the E line's failure field, empty when it passed).
async function streamLogSamples(runDir) {
  const dir = path.join(runDir, 'responses');
  const archives = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.tar.gz')).sort() : [];
  const samples = [];
  for (const archive of archives) {
    const begun = new Map();
    let rest = '';
    let stream = false;
    const onLine = (line) => {
      const [kind, us, id] = line.split('\t', 3);
      if (kind === 'B') {
        const b = beginOf(line);
        if (b && b.label === 'request') begun.set(id, { thread: b.thread, start: Number(us) / 1000 });
      } else if (kind === 'E' && begun.has(id)) {
        const e = endOf(line);
        const b = begun.get(id);
        begun.delete(id);
        if (e) samples.push({ thread: `${archive}:${b.thread}`, start: b.start, end: Number(us) / 1000, success: e.ok && !e.failure });
      }
    };
    await new ArchiveReader(path.join(dir, archive), {
      open(name, kind) { stream = kind === 'stream'; rest = ''; },
      data(chunk) {
        if (!stream) return;
        const lines = (rest + chunk.toString('utf8')).split('\n');
        rest = lines.pop();
        for (const l of lines) onLine(l);
      },
      close() { if (stream && rest) onLine(rest); stream = false; },
    }).read();
  }
  return samples;
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

// The run's request samples: results.csv's request rows, else (the mux and push samplers) the stream logs'.
async function pollSamples(runDir) {
  const rows = requestRows(resultRows(runDir));
  return rows.length ? rows : streamLogSamples(runDir);
}

async function main() {
  const [what, runDir] = process.argv.slice(2);
  if (!['overhead', 'poll'].includes(what) || !runDir) {
    console.error('usage: node bench/run-figures.js {overhead|poll} <run-dir>');
    process.exit(2);
  }
  const run = JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8'));
  const out = what === 'overhead' ? overhead(run) : pollRate(run, runDir, await pollSamples(runDir));
  console.log(JSON.stringify(out));
}

if (require.main === module) {
  main().catch((e) => {
    console.error(`run-figures: ${e.message}`);
    process.exit(1);
  });
}
module.exports = { overhead, pollRate, pollSamples, steal, generator };
