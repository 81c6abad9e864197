'use strict';
// Parser for a JMeter engine's GC log (load/engine.sh: -Xlog:gc:file=<f>:timemillis,uptimemillis), the
// load generator's side of CHIRON's threat to validity: while its JVM is paused, an engine sends and reads
// nothing. Every pause line gives the time it was logged (epoch ms, the engine's clock: the pause's end)
// and its length in ms:
//   [1795442935309ms][3599ms] GC(0) Pause Young (Allocation Failure) 119M->14M(588M) 21.839ms
// Other lines (the collector's name, heap sizes) are not pauses and are passed over; a line that names a
// pause but does not read as one is skipped and counted.
const { lineParsers } = require('./lines');

const PAUSE = /^\[(\d{12,})ms\](?:\[\d+ms\])?\s.*\bPause\b.*\s(\d+(?:\.\d+)?)ms\s*$/;

function createGcLogParser() {
  const state = { pauses: [], skipped: 0 };
  function line(raw) {
    const text = raw.trim();
    if (!/\bPause\b/.test(text)) return;
    const m = PAUSE.exec(text);
    if (!m) { state.skipped++; return; }
    state.pauses.push({ epochMs: Number(m[1]), pauseMs: Number(m[2]) });
  }
  return { line, state };
}

// Returns { pauses: [{ epochMs, pauseMs }], skipped }.
const { fromFile: parseGcLogFile, fromText: parseGcLogText } = lineParsers(createGcLogParser);

// GC pause time per elapsed second (ms): a pause is booked in the second it ended in, counted from
// startMs on the same clock; pauses outside [0, seconds) are left out.
function pausePerSecond(pauses, startMs, seconds) {
  const out = new Array(seconds).fill(0);
  for (const p of pauses) {
    const i = Math.floor((p.epochMs - startMs) / 1000);
    if (i >= 0 && i < seconds) out[i] += p.pauseMs;
  }
  return out.map((v) => Math.round(v * 1000) / 1000);
}

module.exports = { parseGcLogFile, parseGcLogText, pausePerSecond };
