'use strict';
// One event emitter: fires every `frequency` ms (first fire one interval after it is set) and runs an
// emit cycle per fire. A cycle takes a snapshot of the requests subscribed to its name, then writes to
// them in batches, yielding to the event loop between batches (setImmediate) so that requests arriving
// during a long cycle are accepted at once; they are not in the snapshot and get the next cycle.
//
// Timing is fixed-rate: the next fire is scheduled when a cycle starts. If a cycle outlasts the interval,
// the next one starts as soon as it ends (cycles of one emitter never overlap).

const { cycleHead } = require('./records');

const DEFAULT_BATCH = 1000;

class Emitter {
  constructor({ name, frequency, pool, log, batchSize = DEFAULT_BATCH, onCycleEnd = null, runner = null }) {
    this.name = name;
    this.frequency = frequency;
    this.pool = pool;
    this.log = log;
    this.batchSize = Math.max(1, batchSize);
    this.onCycleEnd = onCycleEnd;
    // How a cycle reaches its requests: this process's pool by default; node-cluster's primary passes one
    // that runs the cycle on every worker (cluster-primary.js).
    this.runner = runner || localRunner({ pool, log, batchSize: this.batchSize });
    this.cycle = 0; // id of the latest cycle started
    this.lastCycle = null; // { total, durationMicros } of the latest cycle completed
    this.timer = null;
    this.running = false;
    this.due = false; // a fire came while a cycle was running
    this.stopped = false;
  }

  start() { this.schedule(); }

  // New interval, rescheduled from now; cycle ids continue.
  change(frequency) {
    this.frequency = frequency;
    this.due = false;
    this.schedule();
  }

  // Stops firing. A cycle in progress stops at its next batch boundary.
  stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  schedule() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), this.frequency);
  }

  fire() {
    this.timer = null;
    if (this.stopped) return;
    if (this.running) {
      this.due = true;
      return;
    }
    this.schedule();
    this.runCycle();
  }

  runCycle() {
    const cycle = { name: this.name, id: ++this.cycle, created: Date.now() };
    const began = process.hrtime.bigint();
    this.running = true;
    this.runner(cycle, () => this.stopped, (result) => this.finishCycle(cycle, began, result));
  }

  // result: { total, written } of the cycle, or null when it was stopped before its end.
  finishCycle(cycle, began, result) {
    this.running = false;
    if (result === null || this.stopped) return;
    const durationMicros = Number((process.hrtime.bigint() - began) / 1000n);
    this.lastCycle = { total: result.total, durationMicros };
    this.log.debug(`emit cycle ${this.name}#${cycle.id} total=${result.total} written=${result.written} micros=${durationMicros}`);
    if (this.onCycleEnd) this.onCycleEnd(this, cycle);
    if (this.due && !this.stopped) {
      this.due = false;
      this.schedule();
      this.runCycle();
    }
  }

  status() {
    return { name: this.name, frequency: this.frequency, cycle: this.cycle, lastCycle: this.lastCycle };
  }
}

// Writes one cycle to a snapshot of requests in batches of batchSize, yielding to the event loop between
// batches. Places run offset+1 .. offset+snapshot.length of the cycle's `total` (offset 0 and total =
// snapshot.length in one process; node-cluster gives each worker its block of the cluster-wide snapshot).
// Calls done({ total, written }), or done(null) if isStopped() turned true between batches.
function writeCycle({ cycle, snapshot, offset = 0, total = snapshot.length, batchSize = DEFAULT_BATCH, log, isStopped, done }) {
  cycle.head = cycleHead(cycle); // the part of every record that is the same for the whole cycle
  const size = Math.max(1, batchSize);
  let next = 0;
  let written = 0;
  const step = () => {
    if (isStopped()) {
      done(null);
      return;
    }
    const end = Math.min(next + size, snapshot.length);
    for (; next < end; next++) {
      try {
        if (snapshot[next].deliver(cycle, offset + next + 1, total)) written++;
      } catch (err) {
        // One broken response must not end the cycle for everybody after it.
        log.problem(`emit ${cycle.name}#${cycle.id} to place ${offset + next + 1} failed`, err);
      }
    }
    // A comet record is written to its socket at once (push-request.js writeChunk); when it falls back to
    // res.write(), Node's http corks it and sends it on process.nextTick, after this batch returns. Either
    // way the next turn (setImmediate) comes after the sends, so the cycle's duration includes them.
    setImmediate(next < snapshot.length ? step : () => done({ total, written }));
  };
  step();
}

// The single-process runner: the snapshot is this pool's subscribers of the cycle's name.
function localRunner({ pool, log, batchSize }) {
  return (cycle, isStopped, done) => writeCycle({
    cycle, snapshot: pool.subscribersOf(cycle.name), batchSize, log, isStopped, done,
  });
}

module.exports = { Emitter, DEFAULT_BATCH, writeCycle, localRunner };
