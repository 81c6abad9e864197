'use strict';
// The load generator's side of a run, from JMeter's request samples: each JMeter thread is one client
// connection (study 3.2), and its samples follow each other in results.csv. From them: when each thread
// first asked (did the ramp-up start every thread in time?), and every gap from an answer to the same
// thread's next request — a long-poll client must be back before the next event, and an emit cycle that
// starts inside a gap is one that connection missed (CHIRON's missed messages for long polls).
//
// Gaps are kept as two Int32 offsets (ms from the first sample) per poll, 8 bytes a poll; per thread only
// its first start and its last end are kept.
const { percentile } = require('./trip-time');

class ClientThreads {
  constructor() {
    this.threads = new Map();      // threadName -> { first, lastEnd }
    this.base = null;
    this.starts = new Int32Array(4096);
    this.ends = new Int32Array(4096);
    this.count = 0;
    this.unordered = 0;            // a sample that started before its thread's previous answer ended
  }

  // One request sample: its thread, start (ms, engine clock) and elapsed ms.
  add(threadName, timeStamp, elapsed) {
    if (this.base === null) this.base = timeStamp;
    const end = timeStamp + elapsed;
    const t = this.threads.get(threadName);
    if (!t) { this.threads.set(threadName, { first: timeStamp, lastEnd: end }); return; }
    if (timeStamp < t.first) t.first = timeStamp;
    if (timeStamp < t.lastEnd) { this.unordered++; t.lastEnd = Math.max(t.lastEnd, end); return; }
    this.push(t.lastEnd - this.base, timeStamp - this.base);
    t.lastEnd = end;
  }

  push(start, end) {
    if (this.count === this.starts.length) {
      const grow = (a) => { const b = new Int32Array(a.length * 2); b.set(a); return b; };
      this.starts = grow(this.starts);
      this.ends = grow(this.ends);
    }
    this.starts[this.count] = start;
    this.ends[this.count] = end;
    this.count++;
  }

  // loadStartMs: when the load began (client ms); window: { fromMs, toMs } (client ms, the steady window);
  // cycleStartsMs: the emit cycles' starts on the client's clock, sorted. Gaps count when the answer that
  // opens them came inside the window; cycles when they started inside it. periodMs (long polls without
  // events: the max-duration): pollsDue counts, per thread, the polls that would end inside the window
  // if it asked again at once after each answer (its first request + k x periodMs), free of where the
  // window cuts the threads' cycles.
  // Returns { threads, lastStartSecond (after loadStartMs), gaps: { count, p50Ms, p90Ms, p99Ms, maxMs },
  // missedCycles, pollsDue (null without periodMs), unordered }.
  result(loadStartMs, window, cycleStartsMs = [], periodMs = null) {
    let lastStart = null;
    let pollsDue = periodMs > 0 ? 0 : null;
    for (const t of this.threads.values()) {
      if (lastStart === null || t.first > lastStart) lastStart = t.first;
      if (pollsDue !== null) {
        const ends = (ms) => Math.max(0, Math.floor((ms - t.first) / periodMs));   // polls ended by ms (exclusive of k = 0)
        pollsDue += Math.max(0, ends(window.toMs - 1) - ends(window.fromMs - 1));
      }
    }
    const gaps = [];
    let missed = 0;
    const inWindow = cycleStartsMs.filter((c) => c >= window.fromMs && c < window.toMs);
    for (let i = 0; i < this.count; i++) {
      const s = this.starts[i] + this.base;
      if (s < window.fromMs || s >= window.toMs) continue;
      const e = this.ends[i] + this.base;
      gaps.push(e - s);
      if (inWindow.length) missed += countBetween(inWindow, s, e);
    }
    gaps.sort((a, b) => a - b);
    const round = (v) => (v === null ? null : Math.round(v * 10) / 10);
    return {
      threads: this.threads.size,
      lastStartSecond: lastStart === null || !Number.isFinite(loadStartMs) ? null : round((lastStart - loadStartMs) / 1000),
      gaps: { count: gaps.length, p50Ms: percentile(gaps, 50), p90Ms: percentile(gaps, 90), p99Ms: percentile(gaps, 99),
        maxMs: gaps.length ? gaps[gaps.length - 1] : null },
      missedCycles: missed,
      pollsDue,
      unordered: this.unordered,
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

module.exports = { ClientThreads, countBetween };
