'use strict';
// Tests only: a server clock set off from its host's (docs/faults.md, "a clock skewed between hosts").
// Hosts made with network namespaces share one kernel clock, so a skewed server host is simulated by
// env PB_TEST_CLOCK_OFFSET_MS: a whole number of ms (may be negative) added to every Date.now() of this
// process, i.e. to every time the server reports (timestamps, records, emit cycles). Unset: no change.

function applyTestClockOffset(env = process.env) {
  const raw = env.PB_TEST_CLOCK_OFFSET_MS;
  if (raw === undefined || raw === '') return 0;
  if (!/^-?\d{1,9}$/.test(raw)) throw new Error(`PB_TEST_CLOCK_OFFSET_MS must be a whole number of ms, got '${raw}'`);
  const offset = Number(raw);
  const realNow = Date.now;
  Date.now = () => realNow() + offset;
  return offset;
}

module.exports = { applyTestClockOffset };
