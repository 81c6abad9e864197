'use strict';
// CHIRON's trip time, for long polls: from the start of an emit cycle on the server to the moment JMeter
// held the whole answer that carried it.
//   trip = (sample timeStamp + elapsed) + offset - response.event.timings.created
// The sample's end is on the engine's clock; offset (server - client, summary.clockOffset) puts it on the
// server's, so a trip time is as good as the offset's error bound.
//
// A poll's answer is matched to its JMeter sample by engine and sample number (run-layout.md): the
// sample's responseFile is <...>/<engine>/responses/request_<n>.<ext>, the archive entry is request_<n>.<ext>
// in <engine>.tar.gz, and n is JMeter's sample number on that engine (1, 2, 3, ...), so one growing array
// per engine holds every sample's end. A comet stream's records all arrive inside one sample that lasts
// the whole stream, and JMeter keeps no arrival time per line: no trip time is known for them (their
// server-side delay, sent - created, is the emit duration).
const { Timeline } = require('./timeline');
const { responseFilePlace } = require('../read/jmeter-csv');

const MAX_SAMPLE_NUMBER = 200_000_000;   // 1.6 GB of sample ends: beyond that a file name is taken as broken

// request_<n>.<ext> -> n, or null
function sampleNumber(fileName) {
  const m = /^request_(\d{1,12})\./.exec(fileName);
  if (!m) return null;
  const n = Number(m[1]);
  return n >= 1 && n <= MAX_SAMPLE_NUMBER ? n : null;
}

// The end (client ms) of every request sample, by engine and sample number.
class SampleEnds {
  constructor() {
    this.byEngine = new Map();   // engine -> Float64Array, NaN where no sample
  }

  // responseFile as JMeter wrote it (either slash); returns false when its name does not fit.
  add(responseFile, endMs) {
    const { engine, file } = responseFilePlace(responseFile);
    const n = sampleNumber(file);
    if (n === null || !Number.isFinite(endMs)) return false;
    let ends = this.byEngine.get(engine);
    if (!ends || ends.length <= n) {
      let size = ends ? ends.length : 1024;
      while (size <= n) size *= 2;
      const next = new Float64Array(size).fill(NaN);
      if (ends) next.set(ends);
      ends = next;
      this.byEngine.set(engine, ends);
    }
    ends[n] = endMs;
    return true;
  }

  // The end of the sample that saved archive entry <entryName> on <engine>, or null. Paths of another shape than
  // run.sh's (engine unknown) match only while there is one engine.
  get(engine, entryName) {
    const n = sampleNumber(String(entryName).split('/').pop());
    if (n === null) return null;
    let ends = this.byEngine.get(engine);
    if (!ends && this.byEngine.size === 1) ends = this.byEngine.get('');
    const end = ends && n < ends.length ? ends[n] : NaN;
    return Number.isNaN(end) ? null : end;
  }
}

// Nearest-rank percentile of sorted values: the smallest value with at least p% of them at or below it.
function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1];
}

const PERCENTILES = [50, 90, 99, 99.9];

// The latency distribution as HdrHistogram plots it: percentiles that halve the rest each step (0, 50,
// 75, 87.5, ... %) while the run holds a value beyond them, then the maximum (100%). Evenly spaced, these
// steps are a log axis of 1 / (1 - percentile). sorted: the values in order; shift: to add to each.
function percentileSpectrum(sorted, shift = (v) => v) {
  if (sorted.length === 0) return [];
  const out = [];
  for (let k = 0; 2 ** k <= sorted.length; k++) {
    const p = 100 * (1 - 2 ** -k);
    out.push({ percentile: Math.round(p * 10000) / 10000, ms: shift(k === 0 ? sorted[0] : percentile(sorted, p)) });
  }
  out.push({ percentile: 100, ms: shift(sorted[sorted.length - 1]) });
  return out;
}

// Collects the trip times of one run before the clock offset is known: each as end - created (whole ms),
// the offset added at the end. Per second of receipt (engine clock), the mean and the largest.
class TripTimes {
  constructor(baseMs) {
    this.raw = new Int32Array(4096);
    this.count = 0;
    this.unmatched = 0;   // poll answers with an event whose JMeter sample was not found
    this.sum = new Timeline(baseMs, 'sum');
    this.n = new Timeline(baseMs, 'sum');
    this.max = new Timeline(baseMs, 'max');
  }

  // endMs: the sample's end (client clock) or null; createdMs: the emit cycle's start (server clock)
  add(endMs, createdMs) {
    if (endMs === null || !Number.isFinite(createdMs)) { this.unmatched++; return; }
    const raw = Math.round(endMs - createdMs);
    if (this.count === this.raw.length) {
      const next = new Int32Array(this.raw.length * 2);
      next.set(this.raw);
      this.raw = next;
    }
    this.raw[this.count++] = raw;
    this.sum.add(endMs, raw);
    this.n.add(endMs);
    this.max.add(endMs, raw);
  }

  // offsetMs: server - client; window: the run's steady window ({ fromSecond, toSecond, seconds }, elapsed
  // seconds from startMs; analysis/measure/workload.js), or null.
  // Returns { summary, series: { mean, max } } (per second from startMs).
  result(offsetMs, startMs, seconds, errorBoundMs = null, window = null) {
    const shift = (v) => (v === null ? null : Math.round((v + offsetMs) * 100) / 100);
    const sums = this.sum.toSeconds(startMs, seconds);
    const counts = this.n.toSeconds(startMs, seconds);
    const mean = sums.map((s, i) => (counts[i] ? shift(s / counts[i]) : null));
    const max = this.max.toSeconds(startMs, seconds).map(shift);
    if (this.count === 0) {
      return { summary: this.unmatched ? { polls: 0, unmatched: this.unmatched } : null, series: { mean, max } };
    }
    // Throughput (CometD's message rate, reference 002): answers timed per second of the steady window.
    // Without a window, from the first second with an answer to the last (which, with one emit cycle in
    // the run, is the rate of its burst).
    let ratePerSecond = null;
    if (window?.seconds > 0) {
      const inWindow = counts.slice(window.fromSecond, window.toSecond).reduce((a, c) => a + c, 0);
      ratePerSecond = Math.round((inWindow / window.seconds) * 100) / 100;
    } else {
      const first = counts.findIndex((c) => c > 0);
      const last = counts.length - 1 - [...counts].reverse().findIndex((c) => c > 0);
      const inWindow = counts.reduce((a, c) => a + c, 0);
      if (first !== -1) ratePerSecond = Math.round((inWindow / (last - first + 1)) * 100) / 100;
    }
    const sorted = this.raw.slice(0, this.count).sort();
    let total = 0;
    for (const v of sorted) total += v;
    const belowZero = sorted.findIndex((v) => v + offsetMs >= 0);
    const summary = {
      polls: this.count,
      unmatched: this.unmatched,
      meanMs: shift(total / this.count),
      minMs: shift(sorted[0]),
      ...Object.fromEntries(PERCENTILES.map((p) => [`p${String(p).replace('.', '')}Ms`, shift(percentile(sorted, p))])),
      maxMs: shift(sorted[this.count - 1]),
      ratePerSecond,
      // below zero only through the clock offset's error: how many, and the bound they should stay within
      belowZero: belowZero === -1 ? this.count : belowZero,
      errorBoundMs,
      spectrum: percentileSpectrum(sorted, shift),
    };
    return { summary, series: { mean, max } };
  }
}

module.exports = { SampleEnds, TripTimes, sampleNumber, percentile, percentileSpectrum };
