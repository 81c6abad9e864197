#!/usr/bin/env node
'use strict';
// Record-reader benchmark (issue #22 item 5; study 3.4.1.2, the records a run's analysis reads): CPU per
// event record, the line that makes up nearly every byte of a run, read three ways from the same bytes, side
// by side in one process:
//   JSON.parse      decode the line (utf8) and JSON.parse it, then take its fields (eventFields): what any
//                   line the fast reader leaves costs;
//   byte reader     analysis/read/record-bytes.js EventRecordReader straight from the bytes into EventFields;
//   byte loop       a loop that only adds up the line's bytes: the floor of looking at each byte in JavaScript.
// The records are the Node.js server's (analysis/tools/stream-run.js), one per line in one buffer, as a
// stream log's gunzip hands them over. Each way is timed PB_BENCH_ROUNDS times (default 5), interleaved;
// printed as ns per record, median (min-max), and the byte reader's speed-up over JSON.parse.
//   node bench/record-reader.js [records]          default 500000
const { record } = require('../analysis/tools/stream-run');
const { EventFields, EventRecordReader, eventFields } = require('../analysis/read/record-bytes');

const ROUNDS = Number(process.env.PB_BENCH_ROUNDS || 5);
const n = Number(process.argv[2] || 500_000);
if (!(Number.isInteger(n) && n > 0)) {
  console.error('usage: node bench/record-reader.js [records]   (records: a whole number > 0)');
  process.exit(2);
}

// n records of 2,000 streams over n / 2,000 emit cycles, one line each; [from, to) of every line.
const T0 = Date.UTC(2026, 10, 22, 1, 0, 0);
const lines = [];
for (let i = 0; i < n; i++) {
  const cycle = Math.floor(i / 2000) + 1;
  const place = (i % 2000) + 1;
  lines.push(record(cycle, place, T0 + cycle * 1000, T0, 2000));
}
const buf = Buffer.from(lines.join('\n') + '\n');
const from = new Int32Array(n);
const to = new Int32Array(n);
for (let i = 0, at = 0; i < n; i++) { from[i] = at; to[i] = buf.indexOf(10, at); at = to[i] + 1; }

// Each way returns a checksum of what it read, so that nothing is optimised away and all agree.
const ways = {
  'JSON.parse': () => {
    const out = new EventFields();
    let sum = 0;
    for (let i = 0; i < n; i++) sum += eventFields(JSON.parse(buf.toString('utf8', from[i], to[i])), out).cycle;
    return sum;
  },
  'byte reader': () => {
    const reader = new EventRecordReader();
    const out = new EventFields();
    let sum = 0;
    for (let i = 0; i < n; i++) {
      if (!reader.read(buf, from[i], to[i], out)) throw new Error(`the byte reader left line ${i}`);
      sum += out.cycle;
    }
    return sum;
  },
  'byte loop': () => {
    let sum = 0;
    for (let i = 0; i < n; i++) for (let j = from[i]; j < to[i]; j++) sum += buf[j];
    return sum;
  },
};

const times = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
const sums = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(ways)) {
    const t = process.hrtime.bigint();
    const sum = run();
    times[name].push(Number(process.hrtime.bigint() - t) / n);
    if (name !== 'byte loop') {
      if (sums.cycles !== undefined && sums.cycles !== sum) throw new Error(`${name} read other cycles`);
      sums.cycles = sum;
    }
  }
}
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const spread = (v) => `${median(v).toFixed(0)} (${Math.min(...v).toFixed(0)}-${Math.max(...v).toFixed(0)})`;
console.log(`${n} records of ${(buf.length / n).toFixed(0)} bytes, ${ROUNDS} rounds, ns per record, median (min-max):`);
for (const name of Object.keys(ways)) console.log(`  ${name.padEnd(12)} ${spread(times[name])}`);
console.log(`byte reader speed-up over JSON.parse: ${(median(times['JSON.parse']) / median(times['byte reader'])).toFixed(1)}x`);
