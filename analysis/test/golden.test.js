'use strict';
// Fixture runs -> data sets and chart JSON, compared with the committed goldens in test/golden/<fixture>/.
// PB_UPDATE_GOLDEN=1 rewrites the goldens (then review the diff); the test itself always compares.
process.env.TZ = 'UTC';   // pidstat times are local clock times; the fixtures were captured in UTC
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { analyzeAndWrite } = require('../run-analysis');
const { copyRun, readJson, RUN, REAL_RUN } = require('./helpers');

for (const fixture of [RUN, REAL_RUN]) {
  const name = path.basename(fixture);
  const golden = path.join(__dirname, 'golden', name);

  test(`data sets and charts of ${name} match the goldens`, async () => {
    const run = copyRun(undefined, fixture);
    await analyzeAndWrite(run);
    const produced = ['data', 'charts'].flatMap((dir) => fs.readdirSync(path.join(run, dir)).map((f) => `${dir}/${f}`));
    if (process.env.PB_UPDATE_GOLDEN === '1') {
      fs.rmSync(golden, { recursive: true, force: true });
      for (const f of produced) {
        fs.mkdirSync(path.dirname(path.join(golden, f)), { recursive: true });
        fs.writeFileSync(path.join(golden, f), JSON.stringify(readJson(path.join(run, f)), null, 1) + '\n');
      }
    }
    const expected = ['data', 'charts'].flatMap((dir) => fs.readdirSync(path.join(golden, dir)).map((f) => `${dir}/${f}`));
    assert.deepEqual(produced.sort(), expected.sort());
    for (const f of expected) assert.deepEqual(readJson(path.join(run, f)), readJson(path.join(golden, f)), f);
  });
}
