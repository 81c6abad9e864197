'use strict';
// The event manager of the protocol: set / remove / clear emitters by name, and list them for /status.
// At most maxEmitters exist at once (docs/protocol.md): a set of a new name beyond that is refused.

const { Emitter, DEFAULT_BATCH } = require('./emitter');

// The cap on emitters: env PB_MAX_EMITTERS (lib/config.sh), a whole number >= 1; anything else is the default.
const DEFAULT_MAX_EMITTERS = 16;
function maxEmittersFrom(raw) {
  const text = String(raw ?? '').trim();
  return /^[1-9]\d{0,5}$/.test(text) ? Number(text) : DEFAULT_MAX_EMITTERS;
}

class EventManager {
  // runner: how an emit cycle reaches its requests (emitter.js; default: this process's pool).
  constructor({ pool, log, batchSize = DEFAULT_BATCH, onCycleEnd = null, runner = null,
    maxEmitters = maxEmittersFrom(process.env.PB_MAX_EMITTERS) }) {
    this.pool = pool;
    this.maxEmitters = maxEmitters;
    this.runner = runner;
    this.log = log;
    this.batchSize = batchSize;
    this.onCycleEnd = onCycleEnd;
    this.emitters = new Map();
  }

  // Returns "created", "changed", or "full" (a new name while maxEmitters exist: nothing changed).
  set(name, frequency) {
    const existing = this.emitters.get(name);
    if (existing) {
      existing.change(frequency);
      return 'changed';
    }
    if (this.emitters.size >= this.maxEmitters) return 'full';
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

module.exports = { EventManager, DEFAULT_MAX_EMITTERS, maxEmittersFrom };
