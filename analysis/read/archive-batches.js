'use strict';
// The messages between the archive-reading worker (archive-worker.js) and the main thread (responses.js):
// a batch is a list of operations on saved responses (open one, a piece of its body, close it) in an
// Int32Array, plus one buffer holding the entry names and body bytes. Both are moved (not copied) to the
// main thread, so a batch costs no serialising: no strings cross between the threads (each string would be
// cloned on its way). The receiver hands both buffers back once it has replayed
// a batch (recycle), so the same few buffers go round and round: no allocation per batch, and no dead
// buffers waiting for the receiver's garbage collector (which runs seldom when it allocates little).
// An entry may span batches.
// Each operation is three integers:
//   [OPEN + kind index, name offset, name length]   a saved response begins (its name's UTF-8 bytes in the buffer)
//   [DATA, offset, length]                          the next piece of its body
//   [CLOSE, cut, 0]                                 it ends; cut is 1 when the archive broke off inside it
const { KINDS } = require('./response-kinds');

const DATA = 0;
const CLOSE = 1;
const OPEN = 2;
const OPS_PER_BATCH = 3 * 8192;   // many small or empty entries: keep batches bounded

class BatchWriter {
  // send(batch, transferList) posts one batch; capacity: bytes (names and bodies) per batch; kinds: the list
  // a kind is an index into (the same on both sides)
  constructor(send, { capacity = 1 << 19, kinds = KINDS } = {}) {
    this.send = send;
    this.capacity = capacity;
    this.kindIndex = new Map(kinds.map((k, i) => [k, i]));
    this.spareOps = [];    // buffers handed back by the receiver
    this.spareData = [];
    this.start();
  }

  start() {
    this.data = null;   // taken on the first byte
    this.used = 0;
    this.ops = this.spareOps.pop() ?? new Int32Array(OPS_PER_BATCH);
    this.nOps = 0;
  }

  // Takes back the buffers of a replayed batch ({ ops, data } as recycled() gave them).
  recycle({ ops, data }) {
    if (ops) this.spareOps.push(new Int32Array(ops));
    if (data && data.byteLength === this.capacity) this.spareData.push(Buffer.from(data));
  }

  // Room for one more operation and n more bytes, in that order (a flush for either starts a new batch,
  // and an operation must land in the batch that holds its bytes). A name longer than a whole batch gets a
  // buffer of its own size.
  room(n) {
    if (this.nOps === OPS_PER_BATCH || (this.data !== null && this.used + n > this.data.length)) this.flush();
    // (allocUnsafeSlow: a buffer of its own, not a slice of the shared pool, so it can be moved)
    if (this.data === null && n > 0) {
      this.data = n <= this.capacity && this.spareData.length ? this.spareData.pop() : Buffer.allocUnsafeSlow(Math.max(this.capacity, n));
    }
  }

  op(a, b, c) {
    const o = this.ops;
    const n = this.nOps;
    o[n] = a;
    o[n + 1] = b;
    o[n + 2] = c;
    this.nOps = n + 3;
  }

  open(name, kind) {
    const index = this.kindIndex.get(kind);
    if (index === undefined) throw new Error(`unknown kind ${kind}`);
    const bytes = Buffer.byteLength(name);
    this.room(bytes);
    if (bytes > 0) this.data.write(name, this.used);
    this.op(OPEN + index, this.used, bytes);
    this.used += bytes;
  }

  write(chunk) {
    let from = 0;
    while (from < chunk.length) {
      this.room(1);
      const n = Math.min(this.data.length - this.used, chunk.length - from);
      chunk.copy(this.data, this.used, from, from + n);
      this.op(DATA, this.used, n);
      this.used += n;
      from += n;
    }
  }

  close(cut) {
    this.room(0);
    this.op(CLOSE, cut ? 1 : 0, 0);
  }

  flush() {
    if (this.nOps === 0) return;
    const batch = { ops: this.ops.buffer, nOps: this.nOps, data: this.data && this.data.buffer, used: this.used };
    this.send(batch, movable(batch));
    this.start();
  }
}

// The buffers a batch (or what comes back of it) moves between the threads.
const movable = ({ ops, data }) => (data ? [ops, data] : [ops]);

// Replays one batch on the receiving side: on.open(name, kind), on.data(buffer), on.close(cut). The
// pieces given to on.data are views of the batch's buffer: valid until it goes back to the sender (recycled).
function replay(batch, on, kinds = KINDS) {
  const ops = new Int32Array(batch.ops);
  const { nOps } = batch;
  const data = batch.data ? Buffer.from(batch.data, 0, batch.used) : null;
  for (let i = 0; i < nOps; i += 3) {
    const op = ops[i];
    if (op === DATA) on.data(data.subarray(ops[i + 1], ops[i + 1] + ops[i + 2]));
    else if (op === CLOSE) on.close(ops[i + 1] === 1);
    else on.open(ops[i + 2] === 0 ? '' : data.toString('utf8', ops[i + 1], ops[i + 1] + ops[i + 2]), kinds[op - OPEN]);
  }
}

// What the receiver sends back after replay, and the list to transfer with it: it must keep no view of
// the batch's buffer past this point.
function recycled(batch) {
  const back = { ops: batch.ops, data: batch.data };
  return [back, movable(back)];
}

module.exports = { BatchWriter, replay, recycled };
