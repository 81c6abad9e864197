'use strict';
// Parser for sut/memory.log (host/meminfo-log.sh): the SUT host's /proc/meminfo once a second,
//   <epoch ms> <MemTotal> <MemFree> <MemAvailable> <Active> <Inactive>      (kB; "-" where the kernel has none)
// A line that does not fit (cut off, not numbers, a value above MemTotal) is skipped and counted.
const { lineParsers } = require('./lines');

const MIN_EPOCH_MS = 946_684_800_000;   // 2000-01-01: anything earlier is not a clock reading

function createMemoryLogParser() {
  const state = { samples: [], skipped: 0 };
  function line(raw) {
    const text = raw.trim();
    if (text === '') return;
    const f = text.split(/\s+/);
    if (f.length !== 6) { state.skipped++; return; }
    const [epochMs, totalKB, freeKB, availableKB, activeKB, inactiveKB] = f.map((v) => (v === '-' ? null : Number(v)));
    const ok = Number.isInteger(epochMs) && epochMs >= MIN_EPOCH_MS && totalKB > 0
      && Number.isFinite(freeKB) && (availableKB ?? freeKB) <= totalKB
      && [freeKB, availableKB, activeKB, inactiveKB].every((v) => v === null || (Number.isFinite(v) && v >= 0 && v <= totalKB));
    if (!ok) { state.skipped++; return; }
    state.samples.push({ epochMs, totalKB, freeKB, availableKB, activeKB, inactiveKB });
  }
  return { line, state };
}

// Returns { samples: [{ epochMs, totalKB, freeKB, availableKB, activeKB, inactiveKB }], skipped }.
const { fromFile: parseMemoryLogFile, fromText: parseMemoryLogText } = lineParsers(createMemoryLogParser);

// Memory in use: MemTotal - MemAvailable (MemFree on kernels before 3.14, which have no MemAvailable), the
// "used" of free(1). Not Active: since Linux 5.9 new anonymous pages start on the inactive list, so a JVM
// filling its heap hardly moves Active (docs/limits.md).
const usedPercent = (s) => ((s.totalKB - (s.availableKB ?? s.freeKB)) / s.totalKB) * 100;

// Memory in use as % of MemTotal per elapsed second: a sample at SUT time t lands in second
// floor((t - offset - startMs) / 1000); two in one second keep the later; a single second without a
// sample between two that have one (the sampler was late) takes the one before; longer gaps stay gaps.
// Seconds outside [0, seconds) are left out.
function memorySeries(samples, startMs, offsetMs, seconds) {
  const out = new Array(seconds).fill(null);
  let first = seconds;
  let last = -1;
  for (const s of samples) {
    const i = Math.floor((s.epochMs - offsetMs - startMs) / 1000);
    if (i < 0 || i >= seconds) continue;
    out[i] = usedPercent(s);
    first = Math.min(first, i);
    last = Math.max(last, i);
  }
  for (let i = first + 1; i < last; i++) if (out[i] === null && out[i - 1] !== null && out[i + 1] !== null) out[i] = out[i - 1];
  return out;
}

module.exports = { parseMemoryLogFile, parseMemoryLogText, memorySeries, usedPercent };
