'use strict';
// Parser for a JVM's pause log: a JMeter engine's (load/engine.sh) or a Tomcat's (servers/tomcat-common.sh,
// sut/gc.log), both written with -Xlog:gc,safepoint:file=<f>:timemillis,uptimemillis (older runs: -Xlog:gc
// only). While a JVM is stopped an engine sends and reads nothing, and a server answers nothing. Each line
// is logged when what it describes ended (epoch ms, that JVM's clock):
//   [1795442935309ms][3599ms] GC(0) Pause Young (Allocation Failure) 119M->14M(588M) 21.839ms
//   [1795634609971ms][1414ms] Safepoint "G1CollectForAllocation", Time since last: 3738507 ns, Reaching
//       safepoint: 2844 ns, Cleanup: 2764 ns, At safepoint: 66763375 ns, Total: 66768983 ns   (one line)
// A GC pause line gives the collection's own time; the safepoint line around it (JDK 17) gives how long
// every Java thread was stopped, reaching the safepoint and cleaning up included: measured longer (the
// collection above logged 18.957 ms). JDK 9-12's form of the safepoint line ("Total time for which
// application threads were stopped: 0.0667 seconds, ...") is read too. Other lines (the collector's name,
// heap sizes) are passed over; a line that names a pause or a safepoint but does not read as one is
// skipped and counted. A GC pause line also says whether the collection was a full one ("Pause Full") and,
// where it logs "<before>M-><after>M(<heap>M)", the heap's occupancy after it and the heap's size (MB): after
// a full collection, what is live.
const { lineParsers } = require('./lines');

const STAMP = String.raw`^\[(\d{12,})ms\](?:\[\d+ms\])?\s`;
const PAUSE = new RegExp(`${STAMP}.*\\bPause\\b.*\\s(\\d+(?:\\.\\d+)?)ms\\s*$`);
const SAFEPOINT = new RegExp(`${STAMP}\\s*Safepoint "([^"]*)".*\\bTotal: (\\d+) ns\\s*$`);
const STOPPED_OLD = new RegExp(`${STAMP}\\s*Total time for which application threads were stopped: (\\d+(?:\\.\\d+)?) seconds`);
const HEAP = /\s(\d+)M->(\d+)M\((\d+)M\)\s/;

const round3 = (v) => Math.round(v * 1000) / 1000;

function createGcLogParser() {
  const state = { pauses: [], safepoints: [], skipped: 0 };
  function line(raw) {
    const text = raw.trim();
    if (/\]\s*Safepoint "/.test(text)) {
      const m = SAFEPOINT.exec(text);
      if (!m) { state.skipped++; return; }
      state.safepoints.push({ epochMs: Number(m[1]), pauseMs: round3(Number(m[3]) / 1e6), reason: m[2] });
      return;
    }
    if (/\bTotal time for which application threads were stopped\b/.test(text)) {
      const m = STOPPED_OLD.exec(text);
      if (!m) { state.skipped++; return; }
      state.safepoints.push({ epochMs: Number(m[1]), pauseMs: round3(Number(m[2]) * 1000), reason: null });
      return;
    }
    if (!/\bPause\b/.test(text)) return;
    const m = PAUSE.exec(text);
    if (!m) { state.skipped++; return; }
    const heap = HEAP.exec(text);
    state.pauses.push({ epochMs: Number(m[1]), pauseMs: Number(m[2]), full: /\bPause Full\b/.test(text),
      afterMB: heap ? Number(heap[2]) : null, heapMB: heap ? Number(heap[3]) : null });
  }
  return { line, state };
}

// Returns { pauses: [{ epochMs, pauseMs, full, afterMB, heapMB }] (GC pause lines), safepoints: [{ epochMs, pauseMs, reason }], skipped }.
const { fromFile: parseGcLogFile, fromText: parseGcLogText } = lineParsers(createGcLogParser);

// How far apart (ms) a collection and its safepoint's ends and starts may lie and still be the same stop:
// the whole-ms stamps (timemillis) of two lines.
const SAME_STOP_MS = 1;

// The JVM's stops from a parsed log: every safepoint, and every GC pause that no safepoint holds (a log
// without safepoint lines: every GC pause). A GC pause lies within its safepoint (the safepoint starts
// before the collection and ends after it); when both describe the same stop the safepoint's length is
// kept. Returns [{ startMs, epochMs (the end), pauseMs, source: 'safepoint' | 'gc' }] in time order (epoch
// ms of that JVM's clock).
function stopsOf({ pauses, safepoints }) {
  const sp = safepoints.map((s) => ({ startMs: round3(s.epochMs - s.pauseMs), epochMs: s.epochMs, pauseMs: s.pauseMs, source: 'safepoint' }))
    .sort((a, b) => a.epochMs - b.epochMs);
  const out = [...sp];
  let i = 0;
  for (const p of [...pauses].sort((a, b) => a.epochMs - b.epochMs)) {
    const start = p.epochMs - p.pauseMs;
    while (i < sp.length && sp[i].epochMs < p.epochMs - SAME_STOP_MS) i++;
    let held = false;
    // safepoints do not overlap: those ending at or after this pause's end start in order too
    for (let j = i; j < sp.length && sp[j].startMs <= start + SAME_STOP_MS; j++) {
      if (sp[j].startMs - SAME_STOP_MS <= start && p.epochMs <= sp[j].epochMs + SAME_STOP_MS) { held = true; break; }
    }
    if (!held) out.push({ startMs: round3(start), epochMs: p.epochMs, pauseMs: p.pauseMs, source: 'gc' });
  }
  return out.sort((a, b) => a.epochMs - b.epochMs);
}

// Pause time per elapsed second (ms): a pause is booked in the second it ended in, counted from startMs
// on the same clock; pauses outside [0, seconds) are left out. pauses: [{ epochMs, pauseMs }] (stopsOf's,
// or the GC pause lines).
function pausePerSecond(pauses, startMs, seconds) {
  const out = new Array(seconds).fill(0);
  for (const p of pauses) {
    const i = Math.floor((p.epochMs - startMs) / 1000);
    if (i >= 0 && i < seconds) out[i] += p.pauseMs;
  }
  return out.map((v) => Math.round(v * 1000) / 1000);
}

// The longest stop (ms) in each elapsed second it overlapped (a stop across a second's edge counts, whole,
// in both), counted from startMs on the stops' clock; null in a second without one.
function longestPerSecond(stops, startMs, seconds) {
  const out = new Array(seconds).fill(null);
  for (const s of stops) {
    const from = Math.max(0, Math.floor((s.startMs - startMs) / 1000));
    const to = Math.min(seconds - 1, Math.floor((s.epochMs - startMs) / 1000));
    for (let i = from; i <= to; i++) if (out[i] === null || s.pauseMs > out[i]) out[i] = s.pauseMs;
  }
  return out;
}

module.exports = { parseGcLogFile, parseGcLogText, pausePerSecond, stopsOf, longestPerSecond, SAME_STOP_MS };
