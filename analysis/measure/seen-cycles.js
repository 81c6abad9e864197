'use strict';
// The emit cycles one comet stream has received, per event, so that each counts once (CHIRON's unique
// messages, measure/messages.js; study 3.4.1). The server numbers an event's cycles 1, 2, 3, ... and a
// stream gets them mostly in order, so one bit per cycle number keeps a 15-minute stream at a 1 s interval
// (900 cycles) in ~120 bytes; a Set of "name#cycle" keys took ~50 bytes a cycle, which for 2,000 streams of
// 1,000 cycles was the analyzer's largest live memory (bench/analyzer.js: peak heap 67 MB, peak RSS 278 MB
// at 2M messages, against 17 MB and 160 MB without it). Cycle numbers that are no whole number in
// [0, MAX_BIT_CYCLE) go to a Set.
const MAX_BIT_CYCLE = 1 << 24;   // 2 MB of bits for a stream at the most

class SeenCycles {
  constructor() {
    this.bits = new Map();    // event name -> Uint8Array, bit c set when cycle c was seen
    this.others = null;       // "name#cycle" of cycle numbers outside the bits' range
  }

  // Records cycle `cycle` of event `name`; true when the stream had not seen it before.
  add(name, cycle) {
    if (!(Number.isInteger(cycle) && cycle >= 0 && cycle < MAX_BIT_CYCLE)) {
      const key = `${name}#${cycle}`;
      this.others ??= new Set();
      if (this.others.has(key)) return false;
      this.others.add(key);
      return true;
    }
    let bits = this.bits.get(name);
    const byte = cycle >> 3;
    if (!bits || bits.length <= byte) {
      let size = bits ? bits.length : 64;
      while (size <= byte) size *= 2;
      const grown = new Uint8Array(size);
      if (bits) grown.set(bits);
      bits = grown;
      this.bits.set(name, bits);
    }
    const mask = 1 << (cycle & 7);
    if (bits[byte] & mask) return false;
    bits[byte] |= mask;
    return true;
  }
}

module.exports = { SeenCycles, MAX_BIT_CYCLE };
