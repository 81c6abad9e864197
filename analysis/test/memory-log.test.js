'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseMemoryLogText, memorySeries, usedPercent } = require('../read/memory-log');

const T = 1_795_000_000_000;

test('memory.log lines: kB columns by position, "-" where the kernel has none, bad lines skipped and counted', () => {
  const text = [
    `${T} 24684084 20571664 23370860 685852 513880`,
    `${T + 1000} 24684084 20571000 - 700000 513000`,
    '',
    `${T + 2000} 24684084 20571000 23370860 685852`,             // cut off
    `${T + 3000} 24684084 20571000 23370860 abc 513000`,         // not a number
    `${T + 4000} 24684084 20571000 23370860 99999999 513000`,    // more active than MemTotal
    `${T + 4500} 24684084 - 23370860 685852 513000`,             // no MemFree
    '12 24684084 20571000 23370860 685852 513000',               // not a clock reading
    `${T + 5000} 0 20571000 23370860 0 513000`,                  // no MemTotal
  ].join('\n');
  const { samples, skipped } = parseMemoryLogText(text);
  assert.equal(skipped, 6);
  assert.deepEqual(samples, [
    { epochMs: T, totalKB: 24684084, freeKB: 20571664, availableKB: 23370860, activeKB: 685852, inactiveKB: 513880 },
    { epochMs: T + 1000, totalKB: 24684084, freeKB: 20571000, availableKB: null, activeKB: 700000, inactiveKB: 513000 },
  ]);
});

test('memory in use is MemTotal - MemAvailable (MemFree where the kernel has no MemAvailable)', () => {
  assert.equal(usedPercent({ totalKB: 1000, freeKB: 100, availableKB: 750, activeKB: 50 }), 25);
  assert.equal(usedPercent({ totalKB: 1000, freeKB: 100, availableKB: null, activeKB: 50 }), 90);
});

test('memory % per elapsed second, on the run clock through the offset; single gaps filled, longer ones kept', () => {
  const at = (ms, usedKB) => ({ epochMs: ms, totalKB: 1000, freeKB: 0, availableKB: 1000 - usedKB });
  const offset = 250;   // the SUT clock is 250 ms ahead
  const samples = [
    at(T + offset + 100, 100),    // second 0
    at(T + offset + 1100, 200),   // second 1
    at(T + offset + 1900, 250),   // second 1 again: the later one counts
    // second 2: no sample (filled from second 1)
    at(T + offset + 3050, 300),   // second 3
    // seconds 4 and 5: none (a gap)
    at(T + offset + 6000, 400),   // second 6
    at(T + offset - 2000, 900),   // before the run
    at(T + offset + 9000, 900),   // after it
  ];
  assert.deepEqual(memorySeries(samples, T, offset, 8), [10, 25, 25, 30, null, null, 40, null]);
});
