'use strict';
// The TLS handshakes of a run's subscribers (docs/engine.md "TLS"), from the mux engine's summary samples in
// JMeter's results.csv: each interval's message carries `tls handshakes N (resumed R, mean M us, max X us)`
// when its thread completed a handshake (MuxSampler.tlsText). Summed over the run: { count (handshakes
// completed), resumed (of them, an earlier session resumed), meanUs (the intervals' means weighted by their
// handshakes: TCP connected to handshake done, µs), maxUs (the longest, µs) }; null when the file is missing
// or no summary counted a handshake. The publisher's own connections are not in the summary samples.
// Lines are read as text: the message is one quoted field, and only this pattern is looked for.
const fs = require('node:fs');
const readline = require('node:readline');

const HANDSHAKES = /tls handshakes ([0-9]+)(?: \(resumed ([0-9]+), mean ([0-9]+) us, max ([0-9]+) us\))?/;

// The figures of a summary message's text, or null when it names no handshake.
function handshakesOf(text) {
  const m = HANDSHAKES.exec(text);
  if (!m || Number(m[1]) === 0) return null;
  return { count: Number(m[1]), resumed: Number(m[2] ?? 0), meanUs: Number(m[3] ?? 0), maxUs: Number(m[4] ?? 0) };
}

// Sums the handshakes in results.csv (its path). Resolves the sums or null.
async function readTlsHandshakes(file) {
  if (!fs.existsSync(file)) return null;
  let count = 0;
  let resumed = 0;
  let totalUs = 0;
  let maxUs = 0;
  const lines = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    const h = handshakesOf(line);
    if (!h) continue;
    count += h.count;
    resumed += h.resumed;
    totalUs += h.meanUs * h.count;
    maxUs = Math.max(maxUs, h.maxUs);
  }
  return count === 0 ? null : { count, resumed, meanUs: Math.round(totalUs / count), maxUs };
}

module.exports = { readTlsHandshakes, handshakesOf };
