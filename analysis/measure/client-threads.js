'use strict';
// The load generator's side of a run, from JMeter's request samples: each JMeter thread is one client
// connection (study 3.2). From them: when each thread first asked (did the ramp-up start every thread in
// time?), and every gap from an answer to the same thread's next request — a long-poll client must be back
// before the next event, and an emit cycle that starts inside a gap is one that connection missed (CHIRON's
// missed messages for long polls).
//
// results.csv lists samples in the order the controller received them, not the order each thread made them
// (engines send their results in batches). A thread's samples never overlap, so its i-th start in time
// pairs with its i-th end: each thread's starts and ends are kept apart and sorted at result(). A sample is
// kept as two Float64 keys, thread index x THREAD_SPAN + ms after the first sample + MS_SHIFT (16 bytes a
// sample); sorting the keys orders the samples by thread, then by time.
const { percentile } = require('./trip-time');

// results.csv gives a sample's start and its elapsed time each in whole ms, so an end (start + elapsed) can
// read up to this much after the instant it stands for, and a thread's next start that much before it.
const STAMP_RESOLUTION_MS = 1;
const MS_SHIFT = 2 ** 32;            // a sample may start up to this many ms before the first one read
const THREAD_SPAN = 2 ** 33;         // ms range of one thread's keys
const MAX_THREADS = 2 ** 20;         // keys stay exact integers below 2^53

class ClientThreads {
  constructor() {
    this.threadIndex = new Map();  // threadName -> index
    this.base = null;
    this.starts = new Float64Array(4096);
    this.ends = new Float64Array(4096);
    this.count = 0;
    this.skipped = 0;              // samples of threads beyond MAX_THREADS
  }

  // One request sample: its thread, start (ms, engine clock) and elapsed ms.
  add(threadName, timeStamp, elapsed) {
    if (this.base === null) this.base = timeStamp;
    let t = this.threadIndex.get(threadName);
    if (t === undefined) {
      if (this.threadIndex.size >= MAX_THREADS) { this.skipped++; return; }
      t = this.threadIndex.size;
      this.threadIndex.set(threadName, t);
    }
    if (this.count === this.starts.length) {
      const grow = (a) => { const b = new Float64Array(a.length * 2); b.set(a); return b; };
      this.starts = grow(this.starts);
      this.ends = grow(this.ends);
    }
    const key = (ms) => t * THREAD_SPAN + (ms - this.base + MS_SHIFT);
    this.starts[this.count] = key(timeStamp);
    this.ends[this.count] = key(timeStamp + elapsed);
    this.count++;
  }

  // loadStartMs: when the load began (client ms); window: { fromMs, toMs } (client ms, the steady window);
  // cycleStartsMs: the emit cycles' starts on the client's clock, sorted; marginMs: how far apart a
  // sample's stamp and a cycle's start can be and still be the same instant (stage/validity.js), so that
  // a cycle counts as missed only when it started inside a gap by more than that. Gaps count when the
  // answer that opens them came inside the window; cycles when they started inside it. periodMs (long
  // polls without events: the max-duration): pollsDue counts, per thread, the polls that would end inside
  // the window if it asked again at once after each answer (its first request + k x periodMs), free of
  // where the window cuts the threads' cycles.
  // Returns { threads, lastStartSecond (after loadStartMs), gaps: { count, p50Ms, p90Ms, p99Ms, maxMs,
  // overlapping (samples that started before their thread's previous one ended, by more than the stamps'
  // resolution: no gap), skipped (samples of threads beyond MAX_THREADS) }, missedCycles, pollsDue (null
  // without periodMs) }.
  result(loadStartMs, window, cycleStartsMs = [], periodMs = null, marginMs = 0) {
    const n = this.count;
    const starts = this.starts.slice(0, n).sort();
    const ends = this.ends.slice(0, n).sort();
    const threadOf = (key) => Math.floor(key / THREAD_SPAN);
    const msOf = (key) => key - threadOf(key) * THREAD_SPAN - MS_SHIFT + this.base;
    const inWindow = cycleStartsMs.filter((c) => c >= window.fromMs && c < window.toMs);
    const gaps = [];
    let missed = 0;
    let overlapping = 0;
    let lastStart = null;
    let pollsDue = periodMs > 0 ? 0 : null;
    for (let i = 0; i < n; i++) {
      const first = i === 0 || threadOf(starts[i - 1]) !== threadOf(starts[i]);
      if (first) {
        const f = msOf(starts[i]);
        if (lastStart === null || f > lastStart) lastStart = f;
        if (pollsDue !== null) {
          const ended = (ms) => Math.max(0, Math.floor((ms - f) / periodMs));   // polls ended by ms (exclusive of k = 0)
          pollsDue += Math.max(0, ended(window.toMs - 1) - ended(window.fromMs - 1));
        }
      }
      if (i + 1 === n || threadOf(starts[i + 1]) !== threadOf(starts[i])) continue;
      const answer = msOf(ends[i]);
      const next = msOf(starts[i + 1]);
      if (next < answer - STAMP_RESOLUTION_MS) { overlapping++; continue; }
      if (answer < window.fromMs || answer >= window.toMs) continue;
      gaps.push(Math.max(0, next - answer));
      if (inWindow.length) missed += countBetween(inWindow, answer + marginMs, next - marginMs);
    }
    gaps.sort((a, b) => a - b);
    const round = (v) => (v === null ? null : Math.round(v * 10) / 10);
    return {
      threads: this.threadIndex.size,
      lastStartSecond: lastStart === null || !Number.isFinite(loadStartMs) ? null : round((lastStart - loadStartMs) / 1000),
      gaps: { count: gaps.length, p50Ms: percentile(gaps, 50), p90Ms: percentile(gaps, 90), p99Ms: percentile(gaps, 99),
        maxMs: gaps.length ? gaps[gaps.length - 1] : null, overlapping, skipped: this.skipped },
      missedCycles: missed,
      pollsDue,
    };
  }
}

// How many of the sorted values lie strictly between lo and hi.
function countBetween(sorted, lo, hi) {
  const upper = (x) => {
    let a = 0;
    let b = sorted.length;
    while (a < b) { const m = (a + b) >> 1; if (sorted[m] <= x) a = m + 1; else b = m; }
    return a;
  };
  const below = (x) => {
    let a = 0;
    let b = sorted.length;
    while (a < b) { const m = (a + b) >> 1; if (sorted[m] < x) a = m + 1; else b = m; }
    return a;
  };
  return Math.max(0, below(hi) - upper(lo));
}

module.exports = { ClientThreads, countBetween, STAMP_RESOLUTION_MS };
