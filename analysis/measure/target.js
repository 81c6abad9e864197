'use strict';
// What a target run measured (docs/targets.md "What is measured"): the engines subscribed to a push server
// pushbench did not start and published the messages themselves; every subscription, message and publish
// is in their stream logs (read/target-log.js). One TargetEngine per engine (each engine publishes on
// channels of its own and its subscribers listen on those: one clock per channel), fed as its archive is
// read; targetFigures() sums the engines into the summary's `target` section and the per-second series.
//
// Per subscriber (a connection, across its reconnections; channel (n - 1) mod channels of connection n):
//   subscribed intervals  each acknowledged subscription (its head read, 2xx or 101) from the E line's headers
//                         µs ("subscribed from") to the sample's end; for poll and pull one interval from the
//                         first acknowledged head to the last sample's end (the cursor carries the
//                         subscription across answers and retries)
//   expected              publishes answered 2xx on its channel whose sent µs falls in one of its intervals
//   received              distinct expected seqs that arrived;  missed = expected - received
//   duplicated            arrivals of a seq it already had;  out of order: the first arrival of a seq below
//                         the highest it had before (a duplicate counts as duplicated only)
//   early                 distinct seqs that arrived although published outside its intervals (a replayed
//                         buffer);  unpublished: distinct seqs with no 2xx publish in the log
//   unmatched             messages the seq rule did not match (greetings, acknowledgements, keep-alives)
//   trip time             arrival µs (the read that completed the message) - sentUs (extracted by the sentUs
//                         rule where the target has one, else the publish's sent µs), for each (subscriber,
//                         seq) once, of messages published after the subscription's request began (for poll
//                         and pull: the subscriber's first request): a replayed message's delay is its
//                         subscriber's absence, no delivery's. Each distinct arrival (received + early +
//                         unpublished) is timed, untimed (no sent µs) or publishedBeforeRequest (a replay, or
//                         a publish whose sentUs preceded a request it reached the server after)
// Memory: per subscriber a bit per seq of its channel (seqs are dense from 1) and a few counters; per
// channel its publishes' sent µs and outcome (9 bytes each); trip times in HdrHistograms (one for the run,
// one per second); the arrivals whose publish has not ended yet (no sentUs rule) wait, keyed by channel and
// seq, until its E line, which follows within the publish's round trip.
const { SignedHistogram } = require('./trip-time');
const { r2, r3 } = require('./per-second');

// Trip times and publish latencies in µs: the run's at 3 significant digits, each second's at 2 (its p99).
const RUN_HISTOGRAM = { bitBucketSize: 32, numberOfSignificantValueDigits: 3, lowestDiscernibleValue: 1, autoResize: true };
const SECOND_HISTOGRAM = { bitBucketSize: 32, numberOfSignificantValueDigits: 2, lowestDiscernibleValue: 10, highestTrackableValue: 100_000,
  autoResize: true };
const POLLED = ['poll', 'pull'];   // transports whose subscription spans its requests (docs/targets.md "Transports")

const PUBLISH_OK = 1;
const PUBLISH_FAILED = 2;
const isAcknowledged = (e) => e.headersUs !== null && /^(2\d\d|101)$/.test(e.code);

class BitSet {
  constructor() { this.bytes = new Uint8Array(16); }
  has(i) { return (i >> 3) < this.bytes.length && (this.bytes[i >> 3] & (1 << (i & 7))) !== 0; }
  add(i) {
    if ((i >> 3) >= this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, (i >> 3) + 1));
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.bytes[i >> 3] |= 1 << (i & 7);
  }
  get size() { return this.bytes.length * 8; }
}

// One channel's publishes: sent µs and outcome by seq (index = seq).
class Channel {
  constructor() {
    this.sent = new Float64Array(8);
    this.status = new Uint8Array(8);
    this.maxSeq = 0;
  }
  put(seq, sentUs, ok) {
    if (seq >= this.sent.length) {
      const n = Math.max(this.sent.length * 2, seq + 1);
      const sent = new Float64Array(n);
      sent.set(this.sent);
      const status = new Uint8Array(n);
      status.set(this.status);
      Object.assign(this, { sent, status });
    }
    this.sent[seq] = sentUs;
    this.status[seq] = ok ? PUBLISH_OK : PUBLISH_FAILED;
    if (seq > this.maxSeq) this.maxSeq = seq;
  }
  known(seq) { return seq < this.status.length && this.status[seq] !== 0; }
}

// Per second of the run (from t0Ms), counts and histograms, grown as seconds come.
class PerSecond {
  constructor(t0Ms) {
    this.t0Ms = t0Ms;
    this.received = [];
    this.trips = new Map();   // second -> SignedHistogram
    this.outside = 0;         // values before t0 or over 48 h after it
    this.maxTripUs = null;    // the longest trip time, exact
  }
  second(us) {
    const s = Math.floor((us / 1000 - this.t0Ms) / 1000);
    if (!(s >= 0 && s < 48 * 3600)) { this.outside++; return null; }
    return s;
  }
  addReceived(us) {
    const s = this.second(us);
    if (s !== null) this.received[s] = (this.received[s] ?? 0) + 1;
  }
  addTrip(us, tripUs) {
    if (this.maxTripUs === null || tripUs > this.maxTripUs) this.maxTripUs = tripUs;
    const s = this.second(us);
    if (s === null) return;
    let h = this.trips.get(s);
    if (!h) { h = new SignedHistogram(SECOND_HISTOGRAM); this.trips.set(s, h); }
    h.record(tripUs);
  }
}

const countKey = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);

class TargetEngine {
  // name: the engine's; channels, transport: the target's; extract: measure/extract.js extractor() of its
  // rules; timedBy: 'sentUs rule' (the extracted stamp) or 'publish' (the publish's sent µs); perSecond: the
  // run's PerSecond (shared by every engine); publishWindowUs: how long each engine was asked to publish
  // (duration - drain), or null (then the span of its publishes).
  constructor({ name, channels, transport, extract, timedBy, perSecond, trips, publishWindowUs = null }) {
    Object.assign(this, { name, channels: Math.max(1, channels), transport, extract, timedBy, perSecond, trips, publishWindowUs });
    this.polled = POLLED.includes(transport);
    this.connections = new Map();    // connection number (B thread's n) -> subscriber
    this.open = new Map();           // sample key -> { sub, fromUs }
    this.pending = new Map();        // channel * 2^32 + seq -> [arrival µs, from µs, ...] waiting for the publish's E line
    this.channelsByNumber = new Map();
    this.publishes = { count: 0, ok: 0, failures: new Map(), latency: new SignedHistogram(RUN_HISTOGRAM) };
    // failed subscriptions by kind: the E line's failure (a TLS one is named by the engine: 'TLS: wrong host name')
    this.subscriptionFailures = new Map();
    this.untimed = 0;
    this.publishedBeforeRequest = 0;
  }

  channel(c) {
    let ch = this.channelsByNumber.get(c);
    if (!ch) { ch = new Channel(); this.channelsByNumber.set(c, ch); }
    return ch;
  }

  subscriber(n) {
    let s = this.connections.get(n);
    if (!s) {
      s = { n, channel: (((n - 1) % this.channels) + this.channels) % this.channels, intervals: [], subscriptions: 0, failed: 0,
        acknowledged: 0, firstBeganUs: null, seen: new BitSet(), highest: 0, arrivals: 0, duplicated: 0, outOfOrder: 0, unmatched: 0,
        polledFrom: null, polledTo: null };
      this.connections.set(n, s);
    }
    return s;
  }

  subscriptionBegan(key, n, beganUs) {
    const sub = this.subscriber(n);
    if (sub.firstBeganUs === null) sub.firstBeganUs = beganUs;
    this.open.set(key, { sub, fromUs: this.polled ? sub.firstBeganUs : beganUs });
  }

  message(key, us, text) {
    const o = this.open.get(key);
    if (!o) return;
    const { sub } = o;
    const x = this.extract(text);
    const seq = x.seq;
    if (seq === null || !Number.isInteger(seq) || seq < 1 || seq > 2 ** 31) { sub.unmatched++; return; }
    sub.arrivals++;
    if (sub.seen.has(seq)) { sub.duplicated++; return; }
    sub.seen.add(seq);
    if (seq < sub.highest) sub.outOfOrder++;
    else sub.highest = seq;
    this.perSecond.addReceived(us);
    if (this.timedBy === 'sentUs rule') {
      if (x.sentUs === null) this.untimed++;
      else this.trip(us, x.sentUs, o.fromUs);
      return;
    }
    const ch = this.channel(sub.channel);
    if (ch.known(seq)) { this.trip(us, ch.sent[seq], o.fromUs); return; }
    const k = sub.channel * 2 ** 32 + seq;
    const waiting = this.pending.get(k);
    if (waiting) waiting.push(us, o.fromUs); else this.pending.set(k, [us, o.fromUs]);
  }

  // A message's trip time, unless it has no sent µs (untimed) or was published before its subscription's
  // request began (publishedBeforeRequest: a replay, or a publish that crossed the subscribe on its way).
  trip(arrivalUs, sentUs, fromUs) {
    if (!Number.isFinite(sentUs)) { this.untimed++; return; }
    if (sentUs < fromUs) { this.publishedBeforeRequest++; return; }
    this.trips.record(arrivalUs - sentUs);
    this.perSecond.addTrip(arrivalUs, arrivalUs - sentUs);
  }

  subscriptionEnded(key, e) {
    const o = this.open.get(key);
    if (!o) return;
    this.open.delete(key);
    const { sub } = o;
    sub.subscriptions++;
    if (!e.ok) {
      sub.failed++;
      countKey(this.subscriptionFailures, e.failure || `${e.code} ${e.message}`.trim());
    }
    if (!isAcknowledged(e) || !Number.isFinite(e.endUs)) return;
    sub.acknowledged++;
    if (this.polled) {
      if (sub.polledFrom === null) sub.polledFrom = e.headersUs;
      sub.polledTo = Math.max(sub.polledTo ?? e.endUs, e.endUs);
    } else if (e.endUs >= e.headersUs) sub.intervals.push(e.headersUs, e.endUs);
  }

  publishEnded(p) {
    const pub = this.publishes;
    pub.count++;
    const ok = p.ok && /^2\d\d$/.test(p.code);
    if (ok) pub.ok++;
    else countKey(pub.failures, p.failure || `${p.code} ${p.message}`.trim());
    if (Number.isFinite(p.sentUs) && p.sentUs > 0) {
      this.channel(p.channel).put(p.seq, p.sentUs, ok);
      if (p.headersUs !== null) pub.latency.record(p.headersUs - p.sentUs);
    }
    const k = p.channel * 2 ** 32 + p.seq;
    const waiting = this.pending.get(k);
    if (waiting) {
      this.pending.delete(k);
      for (let i = 0; i < waiting.length; i += 2) this.trip(waiting[i], p.sentUs, waiting[i + 1]);
    }
  }

  // Each subscriber's intervals (sorted, [from, to, ...]).
  intervalsOf(sub) {
    if (this.polled) return sub.polledFrom === null ? [] : [sub.polledFrom, sub.polledTo];
    return sub.intervals;
  }

  // The engine's counts once its archive is read: { subscribers, subscriptions, failed, acknowledged, expected,
  // received, duplicated, outOfOrder, early, unpublished, unmatched, untimed, publishedBeforeRequest, publishes,
  // intervals (for the open-subscriptions series: [from µs, to µs, ...]) }.
  result() {
    const c = { subscribers: 0, subscriptions: 0, failed: 0, acknowledged: 0, subscribersAcknowledged: 0, expected: 0, received: 0,
      duplicated: 0, outOfOrder: 0, early: 0, unpublished: 0, unmatched: 0, arrivals: 0 };
    const intervals = [];
    for (const sub of this.connections.values()) {
      c.subscribers++;
      for (const k of ['subscriptions', 'failed', 'acknowledged', 'duplicated', 'outOfOrder', 'unmatched', 'arrivals']) c[k] += sub[k];
      if (sub.acknowledged) c.subscribersAcknowledged++;
      const iv = this.intervalsOf(sub);
      intervals.push(...iv);
      const ch = this.channel(sub.channel);
      const inside = (us) => { for (let i = 0; i < iv.length; i += 2) if (us >= iv[i] && us <= iv[i + 1]) return true; return false; };
      const top = Math.max(ch.maxSeq, sub.highest);
      for (let seq = 1; seq <= top; seq++) {
        const got = sub.seen.has(seq);
        const ok = seq < ch.status.length && ch.status[seq] === PUBLISH_OK;
        if (ok && inside(ch.sent[seq])) {
          c.expected++;
          if (got) c.received++;
        } else if (got) {
          if (ok) c.early++; else c.unpublished++;
        }
      }
    }
    for (const waiting of this.pending.values()) this.untimed += waiting.length / 2;   // their publish never ended in the log
    this.pending.clear();
    return { ...c, untimed: this.untimed, publishedBeforeRequest: this.publishedBeforeRequest, intervals, publishes: this.publishes, subscriptionFailures: this.subscriptionFailures,
      window: this.publishWindow() };
  }

  // The publishing window, µs: from the engine's first 2xx publish's sent µs, as long as it was asked to
  // publish (publishWindowUs), else to its last. Returns { fromUs, toUs, ok (the 2xx publishes sent in it) },
  // or null without a 2xx publish.
  publishWindow() {
    let from = Infinity;
    let last = -Infinity;
    const each = (fn) => {
      for (const ch of this.channelsByNumber.values()) for (let q = 1; q <= ch.maxSeq; q++) if (ch.status[q] === PUBLISH_OK) fn(ch.sent[q]);
    };
    each((us) => { if (us < from) from = us; if (us > last) last = us; });
    if (from === Infinity) return null;
    const w = this.publishWindowUs;
    if (!(w > 0)) return { fromUs: from, toUs: last, ok: this.publishes.ok };
    let ok = 0;
    each((us) => { if (us < from + w) ok++; });
    return { fromUs: from, toUs: from + w, ok };
  }
}

const fmtPct = (part, whole) => (whole > 0 ? r3((100 * part) / whole) : null);
const msOf = (h, p) => (h.count ? r2(h.valueAt(p) / 1000) : null);

// The run's figures from its engines' results (TargetEngine result()). target: the normalized spec's
// numbers ({ name, transport, channels, rate, drainMs }); engines: how many engines were asked to publish;
// trips: the run's trip-time histogram; perSecond: the shared PerSecond; seconds: the run's length in
// seconds (series length); timedBy. Returns { target (data/summary.json's section), series }.
// A failures map as [{ kind, count }], the most frequent first.
const byCount = (m) => [...m].map(([kind, count]) => ({ kind, count })).sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind));

// p50, p90, p99 (ms) of a histogram and the exact maximum: a percentile, read at its bucket's top (3
// significant digits), is never shown above the maximum measured.
function percentilesUpTo(trips, maxMs) {
  const at = (q) => { const v = msOf(trips, q); return v === null || maxMs === null ? v : Math.min(v, maxMs); };
  return { p50Ms: at(50), p90Ms: at(90), p99Ms: at(99), maxMs };
}

function targetFigures({ target, results, engineCount, trips, perSecond, seconds, timedBy }) {
  const sum = (k) => results.reduce((n, r) => n + r[k], 0);
  const expected = sum('expected');
  const received = sum('received');
  const missed = expected - received;
  const latency = new SignedHistogram(RUN_HISTOGRAM);
  const failures = new Map();
  const subscriptionFailures = new Map();
  let published = 0;
  let publishedOk = 0;
  let inWindow = 0;
  let windowSeconds = 0;
  for (const r of results) {
    const p = r.publishes;
    published += p.count;
    publishedOk += p.ok;
    for (const [k, n] of p.failures) failures.set(k, (failures.get(k) ?? 0) + n);
    for (const [k, n] of r.subscriptionFailures ?? []) subscriptionFailures.set(k, (subscriptionFailures.get(k) ?? 0) + n);
    p.latency.forEach((v, n) => latency.record(v, n));
    const w = r.window;
    if (w) { inWindow += w.ok; windowSeconds = Math.max(windowSeconds, (w.toUs - w.fromUs) / 1e6); }
  }
  const askedPerSecond = Number.isFinite(target.rate) && Number.isFinite(target.channels) ? target.rate * target.channels * engineCount : null;
  // each engine publishes over its own window of the same length: the run's rate is their 2xx publishes over it
  const achievedPerSecond = windowSeconds > 0 ? r2(inWindow / windowSeconds) : null;
  const subscribers = sum('subscribers');
  const summary = {
    name: target.name ?? null,
    transport: target.transport ?? null,
    channels: target.channels ?? null,
    ratePerChannelPerSecond: target.rate ?? null,
    tls: target.tls ?? null,
    subscribers,
    subscribersPerChannel: target.channels ? r2(subscribers / (target.channels * Math.max(1, engineCount))) : null,
    subscriptions: { count: sum('subscriptions'), acknowledged: sum('acknowledged'), failed: sum('failed'),
      reconnections: sum('subscriptions') - subscribers, subscribersAcknowledged: sum('subscribersAcknowledged'),
      failures: byCount(subscriptionFailures) },
    messages: { expected, received, missed, missedPercent: fmtPct(missed, expected), deliveredPercent: fmtPct(received, expected),
      duplicated: sum('duplicated'), outOfOrder: sum('outOfOrder'), early: sum('early'), unpublished: sum('unpublished'),
      unmatched: sum('unmatched'), arrivals: sum('arrivals') },
    tripTime: { timedBy, messages: trips.count, untimed: sum('untimed'), publishedBeforeRequest: sum('publishedBeforeRequest'),
      ...percentilesUpTo(trips, perSecond.maxTripUs === null ? null : r2(perSecond.maxTripUs / 1000)) },
    publish: { count: published, ok: publishedOk, failed: published - publishedOk,
      failures: byCount(failures),
      askedPerSecond, achievedPerSecond, share: askedPerSecond && achievedPerSecond !== null ? r3(achievedPerSecond / askedPerSecond) : null,
      windowSeconds: r2(windowSeconds), latencyP50Ms: msOf(latency, 50), latencyP99Ms: msOf(latency, 99) },
  };
  return { target: summary, series: targetSeries(results, perSecond, seconds) };
}

// Per second of the run: messages received (first arrivals of a (subscriber, seq)), subscriptions open (an
// interval counts in every second it overlaps), trip time p99 (ms; null in a second without one).
function targetSeries(results, perSecond, seconds) {
  const n = Math.max(seconds, perSecond.received.length, ...[...perSecond.trips.keys()].map((s) => s + 1));
  const received = Array.from({ length: n }, (_, s) => perSecond.received[s] ?? 0);
  const diff = new Array(n + 1).fill(0);
  for (const r of results) {
    for (let i = 0; i < r.intervals.length; i += 2) {
      const a = perSecond.second(r.intervals[i]);
      const b = perSecond.second(r.intervals[i + 1]);
      if (a === null || b === null || a >= n) continue;
      diff[a]++;
      diff[Math.min(n, b + 1)]--;
    }
  }
  const subscriptions = [];
  for (let s = 0, open = 0; s < n; s++) { open += diff[s]; subscriptions.push(open); }
  const tripP99 = Array.from({ length: n }, (_, s) => { const h = perSecond.trips.get(s); return h ? msOf(h, 99) : null; });
  const tripP50 = Array.from({ length: n }, (_, s) => { const h = perSecond.trips.get(s); return h ? msOf(h, 50) : null; });
  const tripMax = Array.from({ length: n }, (_, s) => { const h = perSecond.trips.get(s); return h ? msOf(h, 100) : null; });
  return { received, subscriptions, tripP50, tripP99, tripMax };
}

module.exports = { TargetEngine, PerSecond, targetFigures, RUN_HISTOGRAM, POLLED };
