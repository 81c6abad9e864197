'use strict';
// The messages between the archive-reading worker (archive-reader.js) and the main thread (responses.js):
// a batch is a list of operations on saved responses (open one, a piece of its body, close it) plus one
// buffer holding the body bytes, moved (not copied) to the main thread. An entry may span batches.
const OPEN = 0;    // [OPEN, index into names/kinds, 0]: a saved response begins
const DATA = 1;    // [DATA, offset in the data buffer, length]: the next piece of its body
const CLOSE = 2;   // [CLOSE, cut (1 when the archive broke off inside it), 0]

class BatchWriter {
  // send(batch, transferList) posts one batch; capacity: body bytes per batch
  constructor(send, capacity = 1 << 19) {
    this.send = send;
    this.capacity = capacity;
    this.start();
  }

  start() {
    this.data = null;   // allocated on the first body byte: a batch of empty entries needs none
    this.used = 0;
    this.ops = [];
    this.names = [];
    this.kinds = [];
  }

  open(name, kind) {
    this.ops.push(OPEN, this.names.length, 0);
    this.names.push(name);
    this.kinds.push(kind);
  }

  write(chunk) {
    let from = 0;
    while (from < chunk.length) {
      // (allocUnsafeSlow: a buffer of its own, not a slice of the shared pool, so it can be moved)
      if (this.data === null) this.data = Buffer.allocUnsafeSlow(this.capacity);
      const n = Math.min(this.capacity - this.used, chunk.length - from);
      chunk.copy(this.data, this.used, from, from + n);
      this.ops.push(DATA, this.used, n);
      this.used += n;
      from += n;
      if (this.used === this.capacity) this.flush();
    }
  }

  close(cut) {
    this.ops.push(CLOSE, cut ? 1 : 0, 0);
    if (this.ops.length >= 3 * 8192) this.flush();   // many small or empty entries: keep batches bounded
  }

  flush() {
    if (this.ops.length === 0) return;
    const ops = Int32Array.from(this.ops);
    const transfer = [ops.buffer];
    if (this.data !== null) transfer.push(this.data.buffer);
    this.send({ ops, names: this.names, kinds: this.kinds, data: this.data && this.data.buffer, used: this.used }, transfer);
    this.start();
  }
}

// Replays one batch on the receiving side: on.open(name, kind), on.data(buffer), on.close(cut). The
// pieces given to on.data are views of the batch's buffer, which the sender never touches again.
function replay(batch, on) {
  const { ops, names, kinds } = batch;
  const data = batch.data ? Buffer.from(batch.data, 0, batch.used) : null;
  for (let i = 0; i < ops.length; i += 3) {
    const op = ops[i];
    if (op === OPEN) on.open(names[ops[i + 1]], kinds[ops[i + 1]]);
    else if (op === DATA) on.data(data.subarray(ops[i + 1], ops[i + 1] + ops[i + 2]));
    else on.close(ops[i + 1] === 1);
  }
}

module.exports = { BatchWriter, replay };
