'use strict';
// A node:test reporter for ./test.sh: the seconds each test file took (the sum of its top-level tests'
// durations, so a file's own start-up is not in it), slowest first, one "<s>\t<file>" line each. The
// suite must stay under 45 min on CI; this says where its time goes.
const path = require('node:path');

module.exports = async function* fileTimes(source) {
  const seconds = new Map();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0) continue;
    const file = event.data.file ? path.relative(process.cwd(), event.data.file) : '(no file)';
    seconds.set(file, (seconds.get(file) ?? 0) + (event.data.details.duration_ms ?? 0) / 1000);
  }
  const rows = [...seconds].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, s]) => sum + s, 0);
  for (const [file, s] of rows) yield `${s.toFixed(1)}\t${file}\n`;
  yield `${total.toFixed(1)}\ttotal (${rows.length} files)\n`;
};
