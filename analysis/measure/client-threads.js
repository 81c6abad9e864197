'use strict';
// The load generator's side of a run, from its request samples: each client connection's requests (one
// JMeter thread per connection, study 3.2; with the mux engine one stream-log thread per connection). From
// them: when each connection first asked (did the ramp-up start every one in time?), and every gap from
// an answer to the same connection's next request — a long-poll client must be back before the next
// event, and an emit cycle that starts inside a gap is one that connection missed (CHIRON's missed
// messages for long polls). With the mux engine's stream logs also when each connection's first TCP
// connect completed (the C line): connections opened per second count from there, not from the B line,
// which is written before the connect.
//
// results.csv lists samples in the order the controller received them, not the order each thread made them
// (engines send their results in batches), and the stream logs interleave every connection. A thread's
// samples never overlap, so its i-th start in time pairs with its i-th end: each sample is kept as its
// thread's index and its start and end (ms after the first sample, 20 bytes a sample), and at result() the
// samples are grouped by thread and each thread's starts and ends are sorted apart. Times keep their
// fraction: the stream logs' µs stay µs.
const { percentile } = require('./trip-time');

// results.csv gives a sample's start and its elapsed time each in whole ms, so an end (start + elapsed) can
// read up to this much after the instant it stands for, and a thread's next start that much before it.
const STAMP_RESOLUTION_MS = 1;
// The stream logs stamp in µs (docs/run-layout.md "Stream logs").
const MICROS_RESOLUTION_MS = 0.001;
const MAX_THREADS = 2 ** 24;         // bounds the thread table (a broken results.csv can name threads without end)

class ClientThreads {
  // resolutionMs: how finely the source of the samples stamps them (STAMP_RESOLUTION_MS for results.csv,
  // MICROS_RESOLUTION_MS for the stream logs): a start and an end that close are the same instant.
  constructor(resolutionMs = STAMP_RESOLUTION_MS) {
    this.resolutionMs = resolutionMs;
    this.threadIndex = new Map();  // threadName -> index
    this.base = null;              // the first sample's start, whole ms
    this.threads = new Uint32Array(4096);
    this.starts = new Float64Array(4096);
    this.ends = new Float64Array(4096);
    this.count = 0;
    this.skipped = 0;              // samples of threads beyond MAX_THREADS
    this.connects = { count: 0, lastMs: null };   // connections' first connects completed (C lines), the last one's ms
  }

  // A connection's first TCP connect completed at ms (engine clock, the µs kept): one per connection.
  connected(ms) {
    this.connects.count++;
    if (this.connects.lastMs === null || ms > this.connects.lastMs) this.connects.lastMs = ms;
  }

  // One request sample: its thread, start (ms, engine clock) and elapsed ms.
  add(threadName, timeStamp, elapsed) {
    if (this.base === null) this.base = Math.floor(timeStamp);
    this.put(threadName, timeStamp - this.base, timeStamp - this.base + elapsed);
  }

  // A sample of threadName from start to end, ms after the base.
  put(threadName, start, end) {
    let t = this.threadIndex.get(threadName);
    if (t === undefined) {
      if (this.threadIndex.size >= MAX_THREADS) { this.skipped++; return; }
      t = this.threadIndex.size;
      this.threadIndex.set(threadName, t);
    }
    if (this.count === this.starts.length) {
      const grow = (a) => { const b = new a.constructor(a.length * 2); b.set(a); return b; };
      this.threads = grow(this.threads);
      this.starts = grow(this.starts);
      this.ends = grow(this.ends);
    }
    this.threads[this.count] = t;
    this.starts[this.count] = start;
    this.ends[this.count] = end;
    this.count++;
  }

  // Plain data of the samples so far (structured-clone-able: a worker's partial result).
  partial() {
    const n = this.count;
    return { resolutionMs: this.resolutionMs, names: [...this.threadIndex.keys()], base: this.base,
      threads: this.threads.slice(0, n), starts: this.starts.slice(0, n), ends: this.ends.slice(0, n), skipped: this.skipped,
      connects: { ...this.connects } };
  }

  // Adds the samples of a partial (partial()): afterwards this holds what it would had it been given them
  // itself. Stamps as coarse as the coarser of the two sources then apply to all.
  merge(p) {
    this.skipped += p.skipped;
    this.connects.count += p.connects?.count ?? 0;
    const last = p.connects?.lastMs ?? null;
    if (last !== null && (this.connects.lastMs === null || last > this.connects.lastMs)) this.connects.lastMs = last;
    if (p.threads.length === 0) return;
    this.resolutionMs = this.count ? Math.max(this.resolutionMs, p.resolutionMs) : p.resolutionMs;
    if (this.base === null) this.base = p.base;
    const shift = p.base - this.base;   // whole ms
    for (let i = 0; i < p.threads.length; i++) this.put(p.names[p.threads[i]], p.starts[i] + shift, p.ends[i] + shift);
  }

  // The samples grouped by thread, each thread's starts and ends sorted apart: { starts, ends (ms after the
  // base), from (Int32Array: thread t's samples are [from[t], from[t + 1])) }.
  byThread() {
    const n = this.count;
    const threads = this.threadIndex.size;
    const from = new Int32Array(threads + 1);
    for (let i = 0; i < n; i++) from[this.threads[i] + 1]++;
    for (let t = 0; t < threads; t++) from[t + 1] += from[t];
    const next = from.slice(0, threads);
    const starts = new Float64Array(n);
    const ends = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const k = next[this.threads[i]]++;
      starts[k] = this.starts[i];
      ends[k] = this.ends[i];
    }
    for (let t = 0; t < threads; t++) {
      starts.subarray(from[t], from[t + 1]).sort();
      ends.subarray(from[t], from[t + 1]).sort();
    }
    return { starts, ends, from };
  }

  // loadStartMs: when the load began (client ms); window: { fromMs, toMs } (client ms, the steady window);
  // cycleStartsMs: the emit cycles' starts on the client's clock, sorted; marginMs: how far apart a
  // sample's stamp and a cycle's start can be and still be the same instant (stage/validity.js
  // stampMarginMs, from this source's resolutionMs), so that a cycle counts as missed only when it started
  // inside a gap by more than that. Gaps count when the answer that opens them came inside the window;
  // cycles when they started inside it. periodMs (long polls without events: the max-duration): pollsDue
  // counts, per thread, the polls that would end inside the window if it asked again at once after each
  // answer (its first request + k x periodMs), free of where the window cuts the threads' cycles.
  // Returns { threads, lastStartSecond (after loadStartMs), connects: { count (connections whose first connect
  // completed: C lines; 0 from results.csv, which has none), lastSecond (the last of them, after loadStartMs; null
  // without any) }, gaps: { count, p50Ms, p90Ms, p99Ms, maxMs,
  // overlapping (samples that started before their thread's previous one ended, by more than the stamps'
  // resolution: no gap), skipped (samples of threads beyond MAX_THREADS) }, missedCycles, pollsDue (null
  // without periodMs) }.
  result(loadStartMs, window, cycleStartsMs = [], periodMs = null, marginMs = 0) {
    const { starts, ends, from } = this.byThread();
    const ms = (v) => v + this.base;
    const inWindow = cycleStartsMs.filter((c) => c >= window.fromMs && c < window.toMs);
    const gaps = [];
    let missed = 0;
    let overlapping = 0;
    let lastStart = null;
    let pollsDue = periodMs > 0 ? 0 : null;
    for (let t = 0; t + 1 < from.length; t++) {
      if (from[t] === from[t + 1]) continue;
      const first = ms(starts[from[t]]);
      if (lastStart === null || first > lastStart) lastStart = first;
      if (pollsDue !== null) {
        const ended = (at) => Math.max(0, Math.floor((at - first) / periodMs));   // polls ended by `at` (exclusive of k = 0)
        pollsDue += Math.max(0, ended(window.toMs - 1) - ended(window.fromMs - 1));
      }
      for (let i = from[t]; i + 1 < from[t + 1]; i++) {
        const answer = ms(ends[i]);
        const next = ms(starts[i + 1]);
        if (next < answer - this.resolutionMs) { overlapping++; continue; }
        if (answer < window.fromMs || answer >= window.toMs) continue;
        gaps.push(Math.max(0, roundMicros(next - answer)));
        if (inWindow.length) missed += countBetween(inWindow, answer + marginMs, next - marginMs);
      }
    }
    gaps.sort((a, b) => a - b);
    const round = (v) => (v === null ? null : Math.round(v * 10) / 10);
    return {
      threads: this.threadIndex.size,
      lastStartSecond: lastStart === null || !Number.isFinite(loadStartMs) ? null : round((lastStart - loadStartMs) / 1000),
      connects: { count: this.connects.count,
        lastSecond: this.connects.lastMs === null || !Number.isFinite(loadStartMs) ? null : roundMs((this.connects.lastMs - loadStartMs) / 1000) },
      gaps: { count: gaps.length, p50Ms: percentile(gaps, 50), p90Ms: percentile(gaps, 90), p99Ms: percentile(gaps, 99),
        maxMs: gaps.length ? gaps[gaps.length - 1] : null, overlapping, skipped: this.skipped },
      missedCycles: missed,
      pollsDue,
    };
  }
}

// Seconds to the ms.
const roundMs = (v) => Math.round(v * 1000) / 1000;

// A time in ms to the µs (the finest stamp; whole ms stay as they are).
const roundMicros = (v) => Math.round(v * 1000) / 1000;

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

module.exports = { ClientThreads, countBetween, STAMP_RESOLUTION_MS, MICROS_RESOLUTION_MS };
