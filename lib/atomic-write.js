'use strict';
// Replacing a file so that a crash or a full disk leaves the old version or the new one, never a part
// (docs/faults.md): the text goes to a temporary file beside it, every byte written (a short write is
// continued, an error is not ignored), flushed to disk, then renamed over the old file. On failure the
// temporary file is removed, the old file is untouched, and the error says so, keeping the cause's code
// (ENOSPC, EACCES, ...) as its own, so that a caller can tell a full disk from a permission problem.
// Used for every file the sweep and the analysis write (docs/faults.md).
const fs = require('node:fs');

function writeFileAtomic(file, text) {
  const data = Buffer.from(text);
  const tmp = `${file}.tmp-${process.pid}`;
  let fd = null;
  try {
    fd = fs.openSync(tmp, 'w');
    for (let off = 0; off < data.length;) {
      const n = fs.writeSync(fd, data, off, data.length - off);
      if (n <= 0) throw new Error(`short write (${off} of ${data.length} bytes)`);
      off += n;
    }
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = null;
    fs.renameSync(tmp, file);
  } catch (e) {
    if (fd !== null) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    const err = new Error(`cannot write ${file} (${e.code ?? e.message}); the previous version is kept`, { cause: e });
    if (e.code) err.code = e.code;
    throw err;
  }
}

module.exports = { writeFileAtomic };
