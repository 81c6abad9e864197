'use strict';
// The event manager of the protocol: set / remove / clear emitters by name, and list them for /status.

const { Emitter, DEFAULT_BATCH } = require('./emitter');

class EventManager {
  // runner: how an emit cycle reaches its requests (emitter.js; default: this process's pool).
  constructor({ pool, log, batchSize = DEFAULT_BATCH, onCycleEnd = null, runner = null }) {
    this.pool = pool;
    this.runner = runner;
    this.log = log;
    this.batchSize = batchSize;
    this.onCycleEnd = onCycleEnd;
    this.emitters = new Map();
  }

  // Returns "created" or "changed".
  set(name, frequency) {
    const existing = this.emitters.get(name);
    if (existing) {
      existing.change(frequency);
      return 'changed';
    }
    const emitter = new Emitter({
      name, frequency, pool: this.pool, log: this.log, batchSize: this.batchSize, onCycleEnd: this.onCycleEnd,
      runner: this.runner,
    });
    this.emitters.set(name, emitter);
    emitter.start();
    return 'created';
  }

  // False if no emitter has that name.
  remove(name) {
    const emitter = this.emitters.get(name);
    if (!emitter) return false;
    emitter.stop();
    this.emitters.delete(name);
    return true;
  }

  // Stops and removes every emitter; returns how many.
  clear() {
    const count = this.emitters.size;
    for (const emitter of this.emitters.values()) emitter.stop();
    this.emitters.clear();
    return count;
  }

  get(name) { return this.emitters.get(name); }

  status() { return Array.from(this.emitters.values(), (emitter) => emitter.status()); }
}

module.exports = { EventManager };
