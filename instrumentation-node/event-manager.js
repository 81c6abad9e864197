'use strict';
// The event manager of the protocol: set / remove / clear emitters by name, and list them for /status.
// At most maxEmitters exist at once (docs/protocol.md): a set of a new name beyond that is refused.
// A publish runs one emit cycle of a name now and creates no emitter (so the cap does not apply): its id
// continues the name's emitter's ids, else the name's own count of publishes, kept for at most
// PUBLISHED_NAMES names (the least recently published forgotten first: its ids start again from 1).

const { Emitter, DEFAULT_BATCH, localRunner } = require('./emitter');

const PUBLISHED_NAMES = 65536;

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
    this.published = new Map();   // name -> last cycle id published, for names without an emitter
    this.generation = 0;          // moves at clear: publishes in progress stop, as emitters' cycles do
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
    // Ids continue the name's publishes (a stream's cursor stays in order).
    emitter.cycle = this.published.get(name) || 0;
    this.published.delete(name);
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

  // Stops and removes every emitter (and forgets the publishes' counts); returns how many emitters.
  clear() {
    const count = this.emitters.size;
    for (const emitter of this.emitters.values()) emitter.stop();
    this.emitters.clear();
    this.published.clear();
    this.generation++;
    return count;
  }

  // Runs one emit cycle of `name` now (data: the value its event records carry, or undefined for none);
  // returns its cycle id. It runs beside a cycle of the name's emitter in progress, if any.
  publish(name, data) {
    const emitter = this.emitters.get(name);
    let id;
    if (emitter) {
      id = ++emitter.cycle;
    } else {
      id = (this.published.get(name) || 0) + 1;
      this.published.delete(name);   // re-inserted last: the Map's order is least recently published first
      this.published.set(name, id);
      if (this.published.size > PUBLISHED_NAMES) this.published.delete(this.published.keys().next().value);
    }
    const cycle = { name, id, created: Date.now() };
    if (data !== undefined) cycle.data = data;
    const generation = this.generation;
    const runner = this.runner || localRunner({ pool: this.pool, log: this.log, batchSize: this.batchSize });
    runner(cycle, () => this.generation !== generation, (result) => {
      if (result) this.log.debug(`publish ${name}#${id} total=${result.total} written=${result.written}`);
    });
    return id;
  }

  get(name) { return this.emitters.get(name); }

  status() { return Array.from(this.emitters.values(), (emitter) => emitter.status()); }
}

module.exports = { EventManager, DEFAULT_MAX_EMITTERS, PUBLISHED_NAMES, maxEmittersFrom };
