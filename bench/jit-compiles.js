#!/usr/bin/env node
'use strict';
// The JIT's work in a JVM's windows (issue #48 item 2; docs/engine.md "The JIT in the steady window"):
// reads a HotSpot compilation log (-XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation -XX:LogFile=<file>),
// pairs each compile's <task ... stamp> with its <task_done ... stamp> (seconds since the JVM started) and
// sums, per window, the compiles that started in it and their wall time (the compiler thread's time from
// start to done: its CPU when it has a CPU to itself, more when it shares one), with the longest.
//
//   node bench/jit-compiles.js <compilation log> <from s>-<to s> ... [--longest 5]
//
// One JSON line per window: {"from","to","compiles","seconds","longest":[{"method","startS","seconds","nmsize"}]}
const fs = require('node:fs');

// Every finished compile of the log: { method, startS, seconds, nmsize }, in the order they finished.
function compiles(text) {
  const out = [];
  let task = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('<task ')) {
      const method = /method='([^']*)'/.exec(line);
      const stamp = /stamp='([\d.]+)'/.exec(line);
      task = method && stamp ? { method: method[1], startS: Number(stamp[1]) } : null;
    } else if (line.startsWith('<task_done') && task) {
      const stamp = /stamp='([\d.]+)'/.exec(line);
      const nmsize = /nmsize='(\d+)'/.exec(line);
      if (stamp) out.push({ ...task, seconds: Math.round((Number(stamp[1]) - task.startS) * 1000) / 1000, nmsize: nmsize ? Number(nmsize[1]) : null });
      task = null;
    }
  }
  return out;
}

// The compiles that started in [from, to): their count, summed seconds and the `longest` longest.
function windowOf(all, from, to, longest = 5) {
  const inside = all.filter((c) => c.startS >= from && c.startS < to);
  const seconds = Math.round(inside.reduce((a, c) => a + c.seconds, 0) * 1000) / 1000;
  return { from, to, compiles: inside.length, seconds, longest: [...inside].sort((a, b) => b.seconds - a.seconds).slice(0, longest) };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--longest');
  const longest = i < 0 ? 5 : Number(args.splice(i, 2)[1]);
  const [file, ...windows] = args;
  if (!file || windows.length === 0 || !windows.every((w) => /^\d+(\.\d+)?-\d+(\.\d+)?$/.test(w)) || !(longest >= 0)) {
    console.error('usage: node bench/jit-compiles.js <compilation log> <from s>-<to s> ... [--longest 5]');
    process.exit(2);
  }
  const all = compiles(fs.readFileSync(file, 'utf8'));
  for (const w of windows) {
    const [from, to] = w.split('-').map(Number);
    console.log(JSON.stringify(windowOf(all, from, to, longest)));
  }
}

module.exports = { compiles, windowOf };
