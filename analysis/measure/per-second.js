'use strict';
// Small operations on per-second arrays (index = elapsed second, null = no value) shared by the stages of
// the run analysis (study 3.4.1: every data set is a value per second of the run).

// The first n values, null-padded.
const pad = (values, n) => Array.from({ length: n }, (_, i) => (i < values.length ? values[i] : null));

// Each gap up to the last value takes the value before it; after the last value the gaps stay.
function forwardFill(values) {
  const out = values.slice();
  let last = null;
  let lastIndex = -1;
  for (let i = 0; i < out.length; i++) if (out[i] !== null) lastIndex = i;
  for (let i = 0; i <= lastIndex; i++) {
    if (out[i] === null) out[i] = last; else last = out[i];
  }
  return out;
}

const maxOf = (values) => values.reduce((m, v) => (v !== null && v > m ? v : m), null);
const meanOf = (values) => {
  const v = values.filter((x) => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
};
// Two decimals, the precision of every figure in the data sets.
const r2 = (v) => (v === null || !Number.isFinite(v) ? null : Math.round(v * 100) / 100);
// Three decimals: times in ms to the µs, and shares.
const r3 = (v) => (v === null || !Number.isFinite(v) ? null : Math.round(v * 1000) / 1000);

module.exports = { pad, forwardFill, maxOf, meanOf, r2, r3 };
