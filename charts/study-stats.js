'use strict';
// Statistics of repeated runs for docs/study (issue #25; the study's future work, section 6.3: every
// permutation run several times, results averaged). One place for: the mean, the sample standard deviation,
// the 95% confidence interval of a mean (Student's t), the coefficient of variation, and the 95% interval
// of the difference of two means (Welch), which decides whether a difference is beyond noise, and a
// random-effects mean of several estimates (DerSimonian-Laird) with its 95% interval.

// Two-sided 95% quantiles of Student's t (t_0.975) for 1-30 degrees of freedom; above 30 the next
// smaller tabulated df is used (40, 60, 120), then the normal 1.96.
const T975 = [null, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145,
  2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];
const T975_LARGE = [[120, 1.98], [60, 2.0], [40, 2.021]];

// t_0.975 for `df` degrees of freedom (a fractional df, as Welch's, is rounded down: the wider interval).
function t975(df) {
  const d = Math.floor(df);
  if (!(d >= 1)) return null;
  if (d < T975.length) return T975[d];
  for (const [at, t] of T975_LARGE) if (d >= at) return t;
  return T975[T975.length - 1];
}

const finite = (values) => values.filter((v) => typeof v === 'number' && Number.isFinite(v));
const mean = (values) => { const v = finite(values); return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null; };

// Sample standard deviation (n - 1), null below two values.
function sd(values) {
  const v = finite(values);
  if (v.length < 2) return null;
  const m = mean(v);
  return Math.sqrt(v.reduce((s, x) => s + (x - m) ** 2, 0) / (v.length - 1));
}

// { n, mean, sd, low, high, cv }: the 95% confidence interval of the mean (null bounds below two values)
// and the coefficient of variation sd / |mean| (null when the mean is 0 or there is no sd).
function describe(values) {
  const v = finite(values);
  const m = mean(v);
  const s = sd(v);
  const half = s === null ? null : t975(v.length - 1) * s / Math.sqrt(v.length);
  return { n: v.length, mean: m, sd: s, low: half === null ? null : m - half, high: half === null ? null : m + half,
    cv: s === null || !m ? null : s / Math.abs(m) };
}

// The 95% interval of mean(a) - mean(b) by Welch (unequal variances); null with fewer than two values on
// either side. Two sides without any spread give an interval of zero width at the difference.
function welch(a, b) {
  const x = describe(a);
  const y = describe(b);
  if (x.n < 2 || y.n < 2) return null;
  const va = x.sd ** 2 / x.n;
  const vb = y.sd ** 2 / y.n;
  const diff = x.mean - y.mean;
  const se = Math.sqrt(va + vb);
  if (se === 0) return { diff, low: diff, high: diff, df: x.n + y.n - 2 };
  const df = (va + vb) ** 2 / ((va ** 2) / (x.n - 1) + (vb ** 2) / (y.n - 1));
  const half = t975(df) * se;
  return { diff, low: diff - half, high: diff + half, df };
}

// Per second over runs' series of equal start: the mean and its 95% band (null where fewer than two runs
// have a value: no band there).
function band(arrays) {
  const length = Math.max(0, ...arrays.map((a) => a.length));
  const low = new Array(length).fill(null);
  const high = new Array(length).fill(null);
  for (let i = 0; i < length; i++) {
    const d = describe(arrays.map((a) => a[i]));
    if (d.low !== null) { low[i] = d.low; high[i] = d.high; }
  }
  return { low, high };
}

// The two-sided 95% quantile of the normal distribution.
const Z975 = 1.96;

// A random-effects mean (DerSimonian-Laird) of estimates [{ d, se }] (each an estimate and its standard
// error): each weighted by 1 / (se^2 + tau^2), where tau^2 is the spread between the estimates beyond their
// own errors (moment estimate from Cochran's Q, 0 when Q is within its k - 1 degrees of freedom). Returns
// { k, mean, se, low, high, tau2, q } with the 95% interval mean +- 1.96 se, or null without estimates. An
// estimate without spread (se 0) is given the smallest positive error of the others (or 1e-12 of its own
// size), so it weighs most without making the weights infinite.
function randomEffects(estimates) {
  const list = estimates.filter((e) => Number.isFinite(e?.d) && Number.isFinite(e?.se) && e.se >= 0);
  const k = list.length;
  if (!k) return null;
  const positive = list.map((e) => e.se).filter((s) => s > 0);
  const floor = positive.length ? Math.min(...positive) : 1e-12 * Math.max(1e-12, ...list.map((e) => Math.abs(e.d)));
  const v = list.map((e) => Math.max(e.se, floor) ** 2);
  const w = v.map((x) => 1 / x);
  const sw = w.reduce((a, b) => a + b, 0);
  const fixed = list.reduce((s, e, i) => s + w[i] * e.d, 0) / sw;
  const q = list.reduce((s, e, i) => s + w[i] * (e.d - fixed) ** 2, 0);
  const c = sw - w.reduce((s, x) => s + x * x, 0) / sw;
  const tau2 = k > 1 && c > 0 ? Math.max(0, (q - (k - 1)) / c) : 0;
  const ws = v.map((x) => 1 / (x + tau2));
  const sws = ws.reduce((a, b) => a + b, 0);
  const m = list.reduce((s, e, i) => s + ws[i] * e.d, 0) / sws;
  const se = Math.sqrt(1 / sws);
  return { k, mean: m, se, low: m - Z975 * se, high: m + Z975 * se, tau2, q };
}

module.exports = { t975, mean, sd, describe, welch, band, randomEffects, Z975 };
