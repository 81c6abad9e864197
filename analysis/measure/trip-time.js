'use strict';
// CHIRON's trip time (reference 001; issue #22 item 4): from the start of an emit cycle on the server to the
// moment the message reached the load engine, moved onto the server's clock with that engine's clock offset
// (server - engine, measure/clock-offset.js):
//   trip = arrival + offset(engine) - response.event.timings.created
// arrival is the push sampler's µs stamp of the record (comet records, poll and pull answers), or for runs
// saved one file per sample the end of the JMeter sample that held a long poll's answer (timeStamp +
// elapsed). A trip time is as good as its engine's offset: its error bound stands beside every figure.
//
// A poll's answer saved one file per sample is matched to its JMeter sample by engine and sample number
// (run-layout.md): the sample's responseFile is <...>/<engine>/responses/request_<n>.<ext>, the archive
// entry is request_<n>.<ext> in <engine>.tar.gz, and n is JMeter's sample number on that engine (1, 2, 3, ...),
// so one growing array per engine holds every sample's end.
//
// Percentiles come from HdrHistogram (hdr-histogram-js) at 3 significant digits, so memory stays flat
// whatever the number of messages; the mean, minimum and maximum are exact. docs/trip-time.md gives the
// precision and why values are recorded as they are.
const hdr = require('hdr-histogram-js');
const { Timeline } = require('./timeline');
const { responseFilePlace } = require('../read/jmeter-csv');
const { collectGarbage } = require('./garbage');

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

  // The sample ends get() reads for <engine>'s entries (a Float64Array), or null.
  endsOf(engine) {
    return this.byEngine.get(engine) ?? (this.byEngine.size === 1 ? this.byEngine.get('') : null) ?? null;
  }

  // Sample ends that hold only one engine's (endsOf's): what a worker reading that engine's archive needs.
  static ofEngine(engine, ends) {
    const s = new SampleEnds();
    if (ends) s.byEngine.set(engine, ends);
    return s;
  }

  // The end of the sample that saved archive entry <entryName> on <engine>, or null. Paths of another shape than
  // run.sh's (engine unknown) match only while there is one engine.
  get(engine, entryName) {
    const n = sampleNumber(String(entryName).split('/').pop());
    if (n === null) return null;
    const ends = this.endsOf(engine);
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

// HdrHistogram's settings, one place. Values in µs. A run's histograms (one per engine): 3 significant
// digits, a value kept within 0.1% of itself (exact below 2,048 µs), ~50 KB each. An emit cycle's (one per
// engine and cycle, thousands in a long run): 2 significant digits from 0.1 ms (the server's cycle start is
// a whole ms), a value kept within 0.1 ms below 25.6 ms and within 1% above, 2-5 KB each.
const RUN_HISTOGRAM = { bitBucketSize: 32, numberOfSignificantValueDigits: 3, lowestDiscernibleValue: 1, autoResize: true };
const CYCLE_HISTOGRAM = { bitBucketSize: 32, numberOfSignificantValueDigits: 2, lowestDiscernibleValue: 100, highestTrackableValue: 100_000,
  autoResize: true };   // grows past 100 ms as values come

// HdrHistogram keeps values >= 0; a trip time falls below zero through the offset's error, and a value
// below its engine's reference (below) is negative too: those are kept, negated, in a second histogram.
class SignedHistogram {
  constructor(settings = RUN_HISTOGRAM) {
    this.settings = settings;
    this.pos = null;
    this.neg = null;
    this.count = 0;
  }

  record(us, count = 1) {
    const v = Math.round(us);
    if (v >= 0) (this.pos ??= hdr.build(this.settings)).recordValueWithCount(v, count);
    else (this.neg ??= hdr.build(this.settings)).recordValueWithCount(-v, count);
    this.count += count;
  }

  // Every recorded value (the middle of its histogram bucket) with its count, in a plain loop over the
  // buckets (HdrHistogram's own iterator makes an object per step).
  forEach(fn) {
    for (const [h, sign] of [[this.pos, 1], [this.neg, -1]]) {
      if (!h) continue;
      for (let i = 0; i < h.countsArrayLength; i++) {
        const n = h.getCountAtIndex(i);
        if (n > 0) fn(sign * h.medianEquivalentValue(h.valueFromIndex(i)), n);
      }
    }
  }

  // Nearest rank, as percentile() and HdrHistogram's getValueAtPercentile: the smallest value with at
  // least p% of all at or below it, given as the highest value its histogram bucket stands for.
  valueAt(p) {
    if (this.count === 0) return null;
    const below = this.neg ? this.neg.totalCount : 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    if (rank > below) return this.pos.getValueAtPercentile((100 * (rank - below)) / this.pos.totalCount);
    // below zero the highest equivalent value is the one nearest zero
    return -this.neg.lowestEquivalentValue(this.neg.getValueAtPercentile((100 * (below - rank + 1)) / below));
  }

  // Plain data of what this holds (a worker's partial result): each histogram in HdrHistogram's own
  // compressed encoding.
  partial() {
    const encode = (h) => (h ? hdr.encodeIntoCompressedBase64(h) : null);
    return { count: this.count, pos: encode(this.pos), neg: encode(this.neg) };
  }

  // The histogram a partial (partial()) was made of: the same counts in the same buckets, and growing as
  // its settings say (the encoding does not keep autoResize: a later value past its range would throw).
  static fromPartial(p, settings) {
    const h = new SignedHistogram(settings);
    const decode = (text) => {
      if (text === null) return null;
      const decoded = hdr.decodeFromCompressedBase64(text, settings.bitBucketSize, false);
      decoded.autoResize = Boolean(settings.autoResize);
      return decoded;
    };
    h.pos = decode(p.pos);
    h.neg = decode(p.neg);
    h.count = p.count;
    return h;
  }

  // How many values lie below `us`, to the histogram's precision.
  countBelow(us) {
    let n = 0;
    this.forEach((v, c) => { if (v < us) n += c; });
    return n;
  }
}

// The per-emit-cycle histograms of one engine (cycle key -> SignedHistogram of CYCLE_HISTOGRAM). A run
// holds a cycle per emit interval (900 in 15 minutes at 1 s), and a cycle's records come within its emit
// loop, so only the OPEN_CYCLES cycles opened last are kept as histograms (a few KB each); an older one is
// kept in its compressed encoding (partial(): ~100-300 bytes), which is what a worker sends anyway, and
// opened again should a late record come for it. Memory then stays flat however long the run.
const OPEN_CYCLES = 16;
const CYCLES_PER_COLLECTION = 100;   // cycleFigures

class CycleHistograms {
  constructor() {
    this.open = new Map();     // key -> SignedHistogram, oldest opened first
    this.closed = new Map();   // key -> its partial()
  }

  record(key, us) {
    let h = this.open.get(key);
    if (h === undefined) {
      const p = this.closed.get(key);
      if (p === undefined) h = new SignedHistogram(CYCLE_HISTOGRAM);
      else { h = SignedHistogram.fromPartial(p, CYCLE_HISTOGRAM); this.closed.delete(key); }
      this.open.set(key, h);
      if (this.open.size > OPEN_CYCLES) {
        const [oldest, oh] = this.open.entries().next().value;
        this.open.delete(oldest);
        this.closed.set(oldest, oh.partial());
      }
    }
    h.record(us);
  }

  keys() {
    return [...this.closed.keys(), ...this.open.keys()];
  }

  // The histogram of a cycle (a fresh one decoded from its encoding when closed), or undefined.
  get(key) {
    const h = this.open.get(key);
    if (h !== undefined) return h;
    const p = this.closed.get(key);
    return p === undefined ? undefined : SignedHistogram.fromPartial(p, CYCLE_HISTOGRAM);
  }

  // Plain data: [key, SignedHistogram partial] of every cycle.
  partial() {
    return [...this.closed, ...[...this.open].map(([key, h]) => [key, h.partial()])];
  }

  // The histograms a partial (partial()) was made of, all kept encoded until asked for (get).
  static fromPartial(list) {
    const c = new CycleHistograms();
    for (const [key, p] of list) c.closed.set(key, p);
    return c;
  }
}

// Where the slow records arrived (docs/validity.md "The tail"): per second of arrival (engine clock, from the
// time lines' base), how many records fell in each of TAIL_BUCKETS log-spaced buckets of their value (ms
// from the engine's reference: below), 1/8 octave (9%) wide from 1 ms, bucket 0 holding what is below 1 ms.
// Once the run's p99 is known, TripTimes.result counts per second the records beyond it: the buckets above
// the one holding p99, and of the records beyond p99 in that bucket (their number from the run's histogram,
// the rest of the records beyond p99) a share in proportion to the bucket's count that second. The
// seconds' counts then add up to the records beyond p99, to the histogram's precision. One Uint32Array of ~650 bytes per second
// of arrival: memory grows with the run's seconds, never with its records.
const TAIL_STEPS_PER_OCTAVE = 8;
const TAIL_BUCKETS = 1 + TAIL_STEPS_PER_OCTAVE * 20;   // up to 2^20 ms (17 min) from the reference
const tailBucket = (ms) => (ms < 1 ? 0 : Math.min(TAIL_BUCKETS - 1, 1 + Math.floor(TAIL_STEPS_PER_OCTAVE * Math.log2(ms))));
const tailEdges = (b) => (b === 0 ? [0, 1] : [2 ** ((b - 1) / TAIL_STEPS_PER_OCTAVE), 2 ** (b / TAIL_STEPS_PER_OCTAVE)]);

class TailCounts {
  constructor(baseMs) {
    this.base = baseMs;
    this.slots = new Map();   // second from base -> Uint32Array(TAIL_BUCKETS)
  }

  // endMs: arrival (engine clock); ms: the value from the engine's reference.
  add(endMs, ms) {
    if (this.base === null) this.base = endMs - 60_000;   // as Timeline: anchored on the first value
    const slot = Math.floor((endMs - this.base) / 1000);
    if (!(slot >= 0 && slot < 48 * 3600)) return;   // out of the run (Timeline counts these)
    let counts = this.slots.get(slot);
    if (counts === undefined) { counts = new Uint32Array(TAIL_BUCKETS); this.slots.set(slot, counts); }
    counts[tailBucket(ms)]++;
  }

  partial() {
    return { base: this.base, slots: [...this.slots] };
  }

  merge(p) {
    if (p.slots.length === 0) return;
    if (this.base === null) this.base = p.base;
    if (p.base !== this.base) throw new Error(`merging tail counts from ${p.base} into ones from ${this.base}`);
    for (const [slot, counts] of p.slots) {
      const mine = this.slots.get(slot);
      if (mine === undefined) this.slots.set(slot, Uint32Array.from(counts));
      else for (let b = 0; b < TAIL_BUCKETS; b++) mine[b] += counts[b];
    }
  }

  // Per elapsed second from startMs: the records in buckets wholly beyond `aboveMs` (a value from the
  // reference), and those in the bucket that holds it. Returns { above: [], at: [] }.
  perSecond(startMs, seconds, aboveMs) {
    const above = new Array(seconds).fill(0);
    const at = new Array(seconds).fill(0);
    const holding = tailBucket(aboveMs);
    for (const [slot, counts] of this.slots) {
      const sec = Math.floor((this.base + slot * 1000 + 500 - startMs) / 1000);
      if (sec < 0 || sec >= seconds) continue;
      for (let b = holding + 1; b < TAIL_BUCKETS; b++) above[sec] += counts[b];
      at[sec] += counts[holding];
    }
    return { above, at };
  }
}

// Values of one engine are recorded relative to a reference of its own, the smallest of its first
// REFERENCE_VALUES raw trip times (arrival - created, engine and server clocks mixed: the offset is known
// only once every archive is read). Recorded values are then about the trip time itself, whatever the
// clocks' difference, so 3 significant digits of them are 3 of the trip time; the engine's offset and
// reference are added at the end.
const REFERENCE_VALUES = 1000;

// One engine's trip times: a histogram of all and one per emit cycle (values in µs from the reference), exact count,
// sum, minimum and maximum (raw ms), and per 100 ms of arrival the sum, count and maximum (raw ms).
class EngineTrips {
  constructor(baseMs) {
    this.reference = null;
    this.waiting = [];   // [raw, cycle key] until the reference is fixed
    this.run = new SignedHistogram(RUN_HISTOGRAM);
    this.byCycle = new CycleHistograms();
    this.count = 0;
    this.total = 0;
    this.min = Infinity;
    this.max = -Infinity;
    this.sum = new Timeline(baseMs, 'sum');
    this.n = new Timeline(baseMs, 'sum');
    this.peak = new Timeline(baseMs, 'max');
    this.tail = new TailCounts(baseMs);
  }

  add(endMs, raw, key) {
    this.count++;
    this.total += raw;
    if (raw < this.min) this.min = raw;
    if (raw > this.max) this.max = raw;
    this.sum.add(endMs, raw);
    this.n.add(endMs);
    this.peak.add(endMs, raw);
    if (this.reference !== null) { this.record(raw, key, endMs); return; }
    this.waiting.push([raw, key, endMs]);
    if (this.waiting.length >= REFERENCE_VALUES) this.settle();
  }

  // Fixes the reference (whole ms) and records the values that waited for it.
  settle() {
    if (this.reference !== null || this.waiting.length === 0) return;
    this.reference = Math.floor(Math.min(...this.waiting.map(([raw]) => raw)));
    for (const [raw, key, endMs] of this.waiting) this.record(raw, key, endMs);
    this.waiting = [];
  }

  // Plain data of what this holds (a worker's partial result); fixes the reference first.
  partial() {
    this.settle();
    return { reference: this.reference, count: this.count, total: this.total, min: this.min, max: this.max,
      run: this.run.partial(), byCycle: this.byCycle.partial(),
      sum: this.sum.partial(), n: this.n.partial(), peak: this.peak.partial(), tail: this.tail.partial() };
  }

  // The engine's trip times a partial (partial()) was made of.
  static fromPartial(p, baseMs) {
    const e = new EngineTrips(baseMs);
    Object.assign(e, { reference: p.reference, count: p.count, total: p.total, min: p.min, max: p.max });
    e.run = SignedHistogram.fromPartial(p.run, RUN_HISTOGRAM);
    e.byCycle = CycleHistograms.fromPartial(p.byCycle);
    e.sum.merge(p.sum);
    e.n.merge(p.n);
    e.peak.merge(p.peak);
    e.tail.merge(p.tail);
    return e;
  }

  record(raw, key, endMs) {
    const us = (raw - this.reference) * 1000;
    this.run.record(us);
    if (key !== '') this.byCycle.record(key, us);
    this.tail.add(endMs, raw - this.reference);
  }
}

const PERCENTILES = [50, 90, 99, 99.9];
const percentileKey = (p) => `p${String(p).replace('.', '')}Ms`;
const round2 = (v) => (v === null || !Number.isFinite(v) ? null : Math.round(v * 100) / 100);

// The figures of one distribution: its percentiles and maximum in ms, its values in µs moved by shiftUs
// onto the server's clock; maxMs: the exact maximum where known.
function figures(h, shiftUs = 0, maxMs = null) {
  const ms = (p) => round2((h.valueAt(p) + shiftUs) / 1000);
  return { ...Object.fromEntries(PERCENTILES.map((p) => [percentileKey(p), ms(p)])), maxMs: maxMs ?? ms(100) };
}

// The latency distribution as HdrHistogram plots it: percentiles that halve the rest each step (0, 50,
// 75, 87.5, ... %) while the run holds a value beyond them, then the maximum (100%). Evenly spaced, these
// steps are a log axis of 1 / (1 - percentile). at(p): the value at percentile p; count: how many values.
function percentileSpectrum(at, count) {
  if (count === 0) return [];
  const out = [];
  for (let k = 0; 2 ** k <= count; k++) {
    const p = 100 * (1 - 2 ** -k);
    out.push({ percentile: Math.round(p * 10000) / 10000, ms: at(k === 0 ? 0 : p) });
  }
  out.push({ percentile: 100, ms: at(100) });
  return out;
}

// Collects the trip times of one run before the clock offsets are known, per engine. Per second of
// receipt (engine clock): the mean and the largest.
class TripTimes {
  constructor(baseMs) {
    this.baseMs = baseMs;
    this.engines = new Map();   // engine name -> EngineTrips
    this.cycles = new Map();    // cycle key -> { event, cycle, createdMs }
    this.keys = new Map();      // name -> cycle -> its cycle key (cycleKey)
    this.unmatched = 0;   // poll answers with an event whose JMeter sample was not found
  }

  // endMs: the arrival, or the sample's end (engine clock), or null; createdMs: the emit cycle's start
  // (server clock); engine: whose clock endMs is on; name, cycle: the record's event and emit cycle, for the
  // figures per emit cycle (none when either is undefined).
  add(endMs, createdMs, engine = '', name = undefined, cycle = undefined) {
    if (endMs === null || endMs === undefined || !Number.isFinite(createdMs)) { this.unmatched++; return; }
    let e = this.engines.get(engine);
    if (!e) { e = new EngineTrips(this.baseMs); this.engines.set(engine, e); }
    const key = name === undefined || cycle === undefined ? '' : this.cycleKey(name, cycle, createdMs);
    e.add(endMs, Math.round((endMs - createdMs) * 1000) / 1000, key);
  }

  // The key "name#cycle" of an emit cycle, noted in `cycles` at its first sight; one string for every
  // record of the cycle, found by name and cycle (keys) without making it again.
  cycleKey(name, cycle, createdMs) {
    let byCycle = this.keys.get(name);
    if (byCycle === undefined) { byCycle = new Map(); this.keys.set(name, byCycle); }
    let key = byCycle.get(cycle);
    if (key === undefined) {
      key = `${name}#${cycle}`;
      if (!this.cycles.has(key)) this.cycles.set(key, { event: name, cycle, createdMs });
      byCycle.set(cycle, key);
    }
    return key;
  }

  // Plain data of what this holds (a worker's partial result, stage/archives.js).
  partial() {
    return { unmatched: this.unmatched, cycles: [...this.cycles], engines: [...this.engines].map(([name, e]) => [name, e.partial()]) };
  }

  // Adds the partial of the trip times of other engines (partial()): afterwards this holds what one
  // TripTimes would hold had it been given this one's values and then the partial's. An engine's trip
  // times come from its one archive: an engine on both sides is a mistake of the caller.
  merge(p) {
    this.unmatched += p.unmatched;
    for (const [key, c] of p.cycles) if (!this.cycles.has(key)) this.cycles.set(key, c);
    for (const [name, e] of p.engines) {
      if (this.engines.has(name)) throw new Error(`trip times of engine '${name}' from two partials`);
      this.engines.set(name, EngineTrips.fromPartial(e, this.baseMs));
    }
  }

  // The run's figures, every engine's values moved onto the server's clock by its own offset.
  // offsetMs: the run's offset (server - client), for engines without their own; engineOffsets: Map
  // engine -> { offset, errorBoundMs } (measure/clock-offset.js offsetsByEngine), or null; startMs: elapsed
  // 0; window: the run's steady window ({ fromSecond, toSecond, seconds }, measure/workload.js), or null.
  // Returns { summary, series: { mean, max }, cycles: [per emit cycle], tail: { beyondMs (the run's p99),
  // perSecond: records beyond it per second of arrival (TailCounts) } or null }.
  result(offsetMs, startMs, seconds, errorBoundMs = null, window = null, engineOffsets = null) {
    const offsetOf = (name) => engineOffsets?.get(name) ?? { offset: offsetMs, errorBoundMs };
    const engines = [...this.engines].map(([name, e]) => {
      e.settle();
      return { name, e, ...offsetOf(name) };
    });
    const { mean, max, counts } = perSecondSeries(engines, startMs, seconds);
    const count = engines.reduce((n, { e }) => n + e.count, 0);
    if (count === 0) {
      return { summary: this.unmatched ? { polls: 0, unmatched: this.unmatched } : null, series: { mean, max }, cycles: [], tail: null };
    }
    // The run's distribution: one engine's histogram moved onto the server's clock (its reference and
    // offset added), or those of several engines moved and merged.
    const parts = engines.map(({ e, offset, errorBoundMs: bound }) => ({ h: e.run, shiftUs: (e.reference + offset) * 1000, errorBoundMs: bound }));
    const run = merged(parts, RUN_HISTOGRAM);
    const summary = runSummary(engines, run, count, this.unmatched, ratePerSecond(counts, window));
    const cycles = cycleFigures(engines, parts, this.cycles, offsetMs, startMs);
    if (cycles.length) summary.cycles = cycleDigest(cycles);
    return { summary, series: { mean, max }, cycles, tail: tailOf(run, engines, summary.p99Ms, startMs, seconds) };
  }
}

// Per second from startMs, the engines' trip times together: the mean and the largest (each engine's
// moved by its own offset), and how many (counts).
function perSecondSeries(engines, startMs, seconds) {
  const mean = new Array(seconds).fill(null);
  const max = new Array(seconds).fill(null);
  const counts = new Array(seconds).fill(0);
  const sums = new Array(seconds).fill(0);
  for (const { e, offset } of engines) {
    const n = e.n.toSeconds(startMs, seconds);
    const s = e.sum.toSeconds(startMs, seconds);
    const m = e.peak.toSeconds(startMs, seconds);
    for (let i = 0; i < seconds; i++) {
      counts[i] += n[i];
      sums[i] += s[i] + n[i] * offset;
      if (m[i] !== null) max[i] = Math.max(max[i] ?? -Infinity, round2(m[i] + offset));
    }
  }
  for (let i = 0; i < seconds; i++) if (counts[i]) mean[i] = round2(sums[i] / counts[i]);
  return { mean, max, counts };
}

// Throughput (CometD's message rate, reference 002): answers timed per second of the steady window.
// Without a window, from the first second with an answer to the last (which, with one emit cycle in the
// run, is the rate of its burst); null when there is none.
function ratePerSecond(counts, window) {
  if (window?.seconds > 0) {
    const inWindow = counts.slice(window.fromSecond, window.toSecond).reduce((a, c) => a + c, 0);
    return round2(inWindow / window.seconds);
  }
  const first = counts.findIndex((c) => c > 0);
  const last = counts.length - 1 - [...counts].reverse().findIndex((c) => c > 0);
  const inWindow = counts.reduce((a, c) => a + c, 0);
  return first === -1 ? null : round2(inWindow / (last - first + 1));
}

// The run's summary from its engines (each { name, e, offset, errorBoundMs }) and its distribution `run`
// ({ h, shiftUs }, merged): count, mean, minimum, percentiles, maximum, rate, values below zero, the error
// bound, the percentile spectrum and, with named engines, each engine's count, offset and bound.
function runSummary(engines, run, count, unmatched, rate) {
  const minMs = round2(Math.min(...engines.map(({ e, offset }) => e.min + offset)));
  const maxMs = round2(Math.max(...engines.map(({ e, offset }) => e.max + offset)));
  const total = engines.reduce((n, { e, offset }) => n + e.total + e.count * offset, 0);
  const at = (p) => (p === 0 ? minMs : p === 100 ? maxMs : round2((run.h.valueAt(p) + run.shiftUs) / 1000));
  const summary = {
    polls: count,
    unmatched,
    meanMs: round2(total / count),
    minMs,
    ...figures(run.h, run.shiftUs, maxMs),
    ratePerSecond: rate,
    // below zero only through the clock offset's error: how many, and the bound they should stay within
    belowZero: run.h.countBelow(-run.shiftUs),
    errorBoundMs: largestBound(engines.map((x) => x.errorBoundMs)),
    spectrum: percentileSpectrum(at, count),
  };
  if (engines.length > 1 || engines[0].name !== '') {
    summary.byEngine = engines.map(({ name, e, offset, errorBoundMs: b }) => ({ engine: name, count: e.count,
      offsetMs: round2(offset), errorBoundMs: b }));
  }
  return summary;
}

// Each emit cycle's figures, in the order the cycles were created: its histograms of the engines that
// have it (parts[i]'s shift and bound) merged as the run's are. cycleInfo: cycle key -> { event, cycle,
// createdMs }; a cycle's createdSecond is from startMs moved by offsetMs. The histograms are taken one cycle at a time
// (decoded, merged, read, let go) and collected every CYCLES_PER_COLLECTION cycles: ~1 MB of typed
// arrays (measure/garbage.js).
function cycleFigures(engines, parts, cycleInfo, offsetMs, startMs) {
  const perCycle = new Map();   // key -> the indexes of the engines that have the cycle
  engines.forEach(({ e }, i) => {
    for (const key of e.byCycle.keys()) {
      if (!perCycle.has(key)) perCycle.set(key, []);
      perCycle.get(key).push(i);
    }
  });
  let sinceCollection = 0;
  return [...perCycle].map(([key, held]) => {
    if (++sinceCollection % CYCLES_PER_COLLECTION === 0) collectGarbage('minor');
    const cycleParts = held.map((i) => ({ ...parts[i], h: engines[i].e.byCycle.get(key) }));
    const c = cycleInfo.get(key);
    const { h, shiftUs } = merged(cycleParts, CYCLE_HISTOGRAM);
    return { event: c.event, cycle: c.cycle, createdSecond: round2((c.createdMs - offsetMs - startMs) / 1000), count: h.count,
      ...figures(h, shiftUs), errorBoundMs: largestBound(cycleParts.map((part) => part.errorBoundMs)) };
  }).sort((a, b) => a.createdSecond - b.createdSecond || String(a.event).localeCompare(String(b.event)) || a.cycle - b.cycle);
}

// The tail of a run (TailCounts): { beyondMs (the p99), records (beyond it, from the run's histogram
// `run`: { h, shiftUs }), perSecond: [records beyond it per second of arrival] }.
function tailOf(run, engines, beyondMs, startMs, seconds) {
  const p99 = run.h.valueAt(99);
  const records = run.h.count - run.h.countBelow(p99 + 0.5);   // above p99's histogram bucket
  const above = new Array(seconds).fill(0);
  const at = new Array(seconds).fill(0);
  for (const { e, offset } of engines) {
    const part = e.tail.perSecond(startMs, seconds, beyondMs - offset - e.reference);
    for (let i = 0; i < seconds; i++) { above[i] += part.above[i]; at[i] += part.at[i]; }
  }
  const rest = Math.max(0, records - above.reduce((a, b) => a + b, 0));
  const atTotal = at.reduce((a, b) => a + b, 0);
  const perSecond = above.map((n, i) => round2(n + (atTotal ? (rest * at[i]) / atTotal : 0)));
  return { beyondMs, records, perSecond };
}

// One distribution from the parts of several engines ({ h, shiftUs }): the one part as it is, or every
// part's values moved by its shift into one histogram of `settings`. Returns { h, shiftUs }.
function merged(parts, settings) {
  if (parts.length === 1) return parts[0];
  const h = new SignedHistogram(settings);
  for (const part of parts) part.h.forEach((v, n) => h.record(v + part.shiftUs, n));
  return { h, shiftUs: 0 };
}

// The error bound of figures drawn from several engines: the largest of theirs (null if one is unknown).
const largestBound = (bounds) => (bounds.includes(null) ? null : Math.max(...bounds));

// The summary's word on the per-cycle figures (the figures themselves: data/trip-cycles.json): how many
// cycles, and the cycle with the largest p99 and its figures.
function cycleDigest(cycles) {
  const worst = cycles.reduce((a, c) => ((c.p99Ms ?? -Infinity) > (a.p99Ms ?? -Infinity) ? c : a));
  return { count: cycles.length, worstP99: worst };
}

module.exports = { SampleEnds, TripTimes, TailCounts, TAIL_BUCKETS, SignedHistogram, CycleHistograms, OPEN_CYCLES, CYCLE_HISTOGRAM, sampleNumber, percentile, percentileSpectrum, REFERENCE_VALUES };
