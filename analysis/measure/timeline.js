'use strict';
// Accumulates values over time at a fine resolution (100 ms) so that server-clock times can be collected
// before the clock offset is known (the time-stamp response may come last in an archive) and then be
// re-bucketed into whole elapsed seconds of the run once it is.

const RESOLUTION_MS = 100;
const MAX_SPAN_MS = 48 * 3600 * 1000;   // anything further from the run start is a broken timestamp

class Timeline {
  // mode: 'sum' (counts per second) or 'max' (peaks per second); baseMs: earliest time kept (or null)
  constructor(baseMs, mode) {
    this.base = baseMs;
    this.mode = mode;
    this.values = new Float64Array(1024).fill(mode === 'max' ? -Infinity : 0);
    this.used = 0;
    this.outOfRange = 0;
  }

  add(timeMs, value = 1) {
    if (this.base === null) this.base = timeMs - 60_000;   // no run start known: anchor on the first value
    const i = Math.floor((timeMs - this.base) / RESOLUTION_MS);
    if (!(i >= 0 && i * RESOLUTION_MS < MAX_SPAN_MS)) { this.outOfRange++; return; }
    if (i >= this.values.length) this.grow(i + 1);
    if (this.mode === 'max') { if (value > this.values[i]) this.values[i] = value; } else this.values[i] += value;
    if (i >= this.used) this.used = i + 1;
  }

  grow(min) {
    let size = this.values.length;
    while (size < min) size *= 2;
    const next = new Float64Array(size).fill(this.mode === 'max' ? -Infinity : 0);
    next.set(this.values);
    this.values = next;
  }

  // Plain data of what this time line holds (for a worker's partial result, stage/archives.js): values
  // cloned or moved to another thread, and merged there into a time line of the same base (merge).
  partial() {
    return { base: this.base, mode: this.mode, values: this.values.slice(0, this.used), outOfRange: this.outOfRange };
  }

  // Adds a partial (partial()) of a time line of the same mode: its sums are added, its peaks taken where
  // higher. Both must count from the same base (a time line not yet anchored takes the partial's).
  merge(p) {
    if (p.mode !== this.mode) throw new Error(`merging a ${p.mode} time line into a ${this.mode} one`);
    this.outOfRange += p.outOfRange;
    if (p.values.length === 0) return;
    if (this.base === null) this.base = p.base;
    if (p.base !== this.base) throw new Error(`merging a time line from ${p.base} into one from ${this.base}`);
    if (p.values.length > this.values.length) this.grow(p.values.length);
    const v = this.values;
    if (this.mode === 'max') { for (let i = 0; i < p.values.length; i++) if (p.values[i] > v[i]) v[i] = p.values[i]; }
    else for (let i = 0; i < p.values.length; i++) v[i] += p.values[i];
    if (p.values.length > this.used) this.used = p.values.length;
  }

  // Per-second array over [0, seconds): slot times are shifted by -shiftMs (server -> client clock) and
  // measured from startMs. 'max' seconds with no value are null; 'sum' seconds are 0.
  toSeconds(startMs, seconds, shiftMs = 0) {
    const out = new Array(seconds).fill(this.mode === 'max' ? null : 0);
    for (let i = 0; i < this.used; i++) {
      const v = this.values[i];
      if (this.mode === 'max' ? v === -Infinity : v === 0) continue;
      const mid = this.base + i * RESOLUTION_MS + RESOLUTION_MS / 2 - shiftMs;
      const s = Math.floor((mid - startMs) / 1000);
      if (s < 0 || s >= seconds) continue;
      if (this.mode === 'max') out[s] = out[s] === null ? v : Math.max(out[s], v);
      else out[s] += v;
    }
    return out;
  }

  // Last second (relative to startMs, after the shift) that holds a value, or -1.
  lastSecond(startMs, shiftMs = 0) {
    for (let i = this.used - 1; i >= 0; i--) {
      const v = this.values[i];
      if (this.mode === 'max' ? v !== -Infinity : v !== 0) {
        return Math.floor((this.base + i * RESOLUTION_MS + RESOLUTION_MS / 2 - shiftMs - startMs) / 1000);
      }
    }
    return -1;
  }
}

// Elapsed second of a time on the run's (client) clock.
const elapsedSecond = (timeMs, startMs) => Math.floor((timeMs - startMs) / 1000);

module.exports = { Timeline, elapsedSecond, RESOLUTION_MS };
