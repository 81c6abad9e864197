'use strict';
// Network cost per delivered message (CHIRON, reference 001, compares push with pull by what each costs on
// the wire): the SUT host's TCP and IP counters (sut/netstat.log, host/netstat-log.sh) over the run's steady
// window, against the messages delivered and the HTTP requests received in that window.
//
//   segments in/out, bytes in/out   counter at the window's end - counter at its start (the samples nearest
//                                   each edge, on the run's clock: SUT ms - clock offset)
//   new connections                 ActiveOpens + PassiveOpens (opened by the host + accepted by it)
//   per message                     each of those / messages delivered in the window (event records and
//                                   pulled events, at the second they were sent)
//   requests per message            requests received in the window (a comet stream is one) / messages
//
// The counters are the host's (or its network namespace's): with the SUT and an engine on one host every
// segment between them is counted once out and once in, and other traffic of that host counts too;
// `sharedWithEngine` says so.
const fs = require('node:fs');

const FIELDS = ['activeOpens', 'passiveOpens', 'inSegs', 'outSegs', 'retransSegs', 'inBytes', 'outBytes'];

// sut/netstat.log -> { samples: [{ ms, activeOpens, ... }], skipped }
function parseNetstatLog(text) {
  const samples = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const f = line.trim().split(/\s+/);
    const nums = f.map(Number);
    if (f.length !== FIELDS.length + 1 || !nums.every(Number.isSafeInteger)) { skipped++; continue; }
    samples.push(Object.fromEntries([['ms', nums[0]], ...FIELDS.map((k, i) => [k, nums[i + 1]])]));
  }
  return { samples, skipped };
}

// The sample nearest to timeMs (samples ascending by ms).
function nearest(samples, timeMs) {
  let best = null;
  for (const s of samples) if (best === null || Math.abs(s.ms - timeMs) < Math.abs(best.ms - timeMs)) best = s;
  return best;
}

const per = (v, n) => (n > 0 ? Math.round((v / n) * 1000) / 1000 : null);
const inWindow = (series, window) => (series ?? []).slice(window.fromSecond, window.toSecond).reduce((a, b) => a + (b || 0), 0);

function sharedWithEngine(hosts) {
  const sut = hosts?.sut;
  if (!sut) return null;
  return (hosts.engines ?? []).some((e) => e.name === sut.name || e.address === sut.address);
}

// samples: parsed netstat samples (SUT clock); t0: run start (client ms); offsetMs: server - client;
// window: { fromSecond, toSecond, seconds }; events, requests: per elapsed second; hosts: run.json's.
function networkCost({ samples, t0, offsetMs, window, events, requests, hosts }) {
  if (!samples?.length) return { available: false, reason: 'no sut/netstat.log samples' };
  if (!window?.seconds || !Number.isFinite(t0)) return { available: false, reason: 'no steady window' };
  const from = nearest(samples, t0 + window.fromSecond * 1000 + offsetMs);
  const to = nearest(samples, t0 + window.toSecond * 1000 + offsetMs);
  if (!from || !to || to.ms <= from.ms) return { available: false, reason: 'the samples do not span the steady window' };
  const delta = Object.fromEntries(FIELDS.map((k) => [k, to[k] - from[k]]));
  const messages = inWindow(events, window);
  const requestCount = inWindow(requests, window);
  const newConnections = delta.activeOpens + delta.passiveOpens;
  const segments = delta.inSegs + delta.outSegs;
  const bytes = delta.inBytes + delta.outBytes;
  return {
    available: true,
    seconds: Math.round(to.ms - from.ms) / 1000,
    ...delta,
    newConnections,
    messages,
    requests: requestCount,
    perMessage: {
      segments: per(segments, messages), bytes: per(bytes, messages), inBytes: per(delta.inBytes, messages),
      outBytes: per(delta.outBytes, messages), newConnections: per(newConnections, messages), requests: per(requestCount, messages),
    },
    sharedWithEngine: sharedWithEngine(hosts),
  };
}

// The run's `network` field from its sut/netstat.log (a missing or unreadable file: available false).
function networkOfRun(file, args) {
  let text;
  try { text = fs.readFileSync(file, 'utf8'); } catch { return { available: false, reason: 'no sut/netstat.log' }; }
  const { samples, skipped } = parseNetstatLog(text);
  return { ...networkCost({ ...args, samples }), linesSkipped: skipped };
}

module.exports = { networkCost, networkOfRun, parseNetstatLog, FIELDS };
