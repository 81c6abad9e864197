'use strict';
// Reads one engine's response archive of a target run (docs/targets.md "Inside"): its stream logs
// (push-<n>.tsv.gz; docs/run-layout.md "Stream logs"), through archive-reader.js (gunzip, tar-stream, each
// log's own gunzip, damage counted), and hands each sample of a target run to a visitor as it ends:
//   a subscription: B thread `Request 1-<n>` (n = the connection's number + 1), label `request` (the mux
//     sampler's name, whatever it is); its R lines
//     are the messages it got, each with the µs of the read that completed it; its E line's 12th field is
//     the µs its answer's head was read ("subscribed from")
//   a publish: B thread `Publish <c>` (c = the channel's number), label `publish <seq>`; no R lines; its E
//     line's sent µs is the {{sentUs}} it sent, its 12th field the µs its answer's head was read
// visitor: { subscriptionBegan(key, connection, beganUs), message(key, us, text), subscriptionEnded(key, end),
// publishEnded(publish) } (below). A sample without an E line (an engine stopped, a log cut) is ended at the
// log's end as cut (`unended`). Lines of no sample, and samples of another thread or label, are counted.
const { ArchiveReader } = require('./archive-reader');
const { engineOf } = require('./responses');
const { lineHead, beginOf, endOf } = require('./stream-log');

const SUBSCRIBER = /^Request \d+-(\d+)$/;
const PUBLISHER = /^Publish (\d+)$/;
const PUBLISH_LABEL = /^publish (\d+)$/;

// An E line's fields (from the 4th: code, ok, records, body bytes, cut bytes, sent µs, message, failure,
// headers µs) as one object: { endUs, code, ok, sentUs, message, failure, headersUs (null when never read),
// cut }.
// An E line's fields (read/stream-log.js) as a visitor gets them.
function ending(us, e) {
  return { endUs: us, code: e.code, ok: e.ok, sentUs: e.sentUs, message: e.message, failure: e.failure ?? '',
    headersUs: e.headersUs, cut: e.cutBytes > 0 };
}

class TargetLogVisit {
  constructor(file, engine, visitor) {
    this.engine = engine;
    this.visitor = visitor;
    this.stats = { file, engine, entries: 0, streamLogs: 0, subscriptions: 0, publishes: 0, otherSamples: 0, badLines: 0,
      halfLines: 0, unendedSamples: 0, lastUs: null };
    this.samples = new Map();   // sample id -> { kind: 'subscription' | 'publish', ... } from its B line to its E line
    this.pending = null;        // the start of a line split across chunks
    this.inLog = false;
  }

  open(name, kind) {
    this.inLog = kind === 'stream';
    if (this.inLog) this.stats.streamLogs++;
    this.pending = null;
  }

  data(chunk) {
    if (!this.inLog) return;
    let start = 0;
    if (this.pending !== null) {
      const nl = chunk.indexOf(10);
      if (nl === -1) { this.pending = Buffer.concat([this.pending, chunk]); return; }
      this.line(Buffer.concat([this.pending, chunk.subarray(0, nl)]).toString('utf8'));
      this.pending = null;
      start = nl + 1;
    }
    let nl;
    while ((nl = chunk.indexOf(10, start)) !== -1) {
      if (nl > start) this.line(chunk.toString('utf8', start, nl));
      start = nl + 1;
    }
    if (start < chunk.length) this.pending = Buffer.from(chunk.subarray(start));
  }

  close() {
    if (this.inLog && this.pending !== null && this.pending.length) this.stats.halfLines++;   // a log cut inside a line
    this.pending = null;
    this.inLog = false;
  }

  // One line of a stream log (B / R / E: read/stream-log.js).
  line(text) {
    const h = lineHead(text);
    if (h === null) {
      if (text.trim() !== '') this.stats.badLines++;
      return;
    }
    const { us, id } = h;
    if (this.stats.lastUs === null || us > this.stats.lastUs) this.stats.lastUs = us;
    if (h.tag === 'R') {
      const st = this.samples.get(id);
      if (!st) { this.stats.badLines++; return; }
      if (st.kind === 'subscription') this.visitor.message?.(st.key, us, text.slice(h.restAt));
    } else if (h.tag === 'B') this.began(id, us, beginOf(text));
    else if (h.tag !== 'C') this.ended(id, us, endOf(text));   // C: a connection's first connect, not read here
  }

  began(id, us, b) {
    if (b === null) { this.stats.badLines++; return; }
    const sub = SUBSCRIBER.exec(b.thread);   // its label is the sampler's name ('request' by default)
    const pub = sub ? null : PUBLISHER.exec(b.thread);
    const seq = pub ? PUBLISH_LABEL.exec(b.label) : null;
    if (sub) {
      const key = `${this.engine}\t${id}`;
      this.samples.set(id, { kind: 'subscription', key });
      this.stats.subscriptions++;
      this.visitor.subscriptionBegan?.(key, Number(sub[1]), us);
    } else if (seq) {
      this.samples.set(id, { kind: 'publish', channel: Number(pub[1]), seq: Number(seq[1]), beganUs: us });
      this.stats.publishes++;
    } else {
      this.samples.set(id, { kind: 'other' });
      this.stats.otherSamples++;
    }
  }

  ended(id, us, e) {
    const st = e !== null ? this.samples.get(id) : null;
    if (!st) { this.stats.badLines++; return; }
    this.samples.delete(id);
    if (st.kind === 'subscription') this.visitor.subscriptionEnded?.(st.key, ending(us, e));
    else if (st.kind === 'publish') this.visitor.publishEnded?.({ channel: st.channel, seq: st.seq, beganUs: st.beganUs, ...ending(us, e) });
  }

  // The end of the archive: samples still open were cut (their end: the log's last µs).
  finish(readerStats) {
    for (const st of this.samples.values()) {
      this.stats.unendedSamples++;
      const end = { endUs: this.stats.lastUs, code: '', ok: false, sentUs: NaN, message: 'no E line (log cut or engine stopped)',
        failure: 'unended', headersUs: null, cut: true };
      if (st.kind === 'subscription') this.visitor.subscriptionEnded?.(st.key, end);
    }
    this.samples.clear();
    return Object.assign(this.stats, readerStats);
  }
}

// Reads one target run's archive; resolves to its stats (never rejects: a damaged archive is read up to the
// damage, as archive-reader.js does, and its problem named).
async function readTargetArchive(file, visitor, { engine = engineOf(file) } = {}) {
  const visit = new TargetLogVisit(file, engine, visitor);
  return visit.finish(await new ArchiveReader(file, visit).read());
}

module.exports = { readTargetArchive, TargetLogVisit };
