'use strict';
// Read a text file line by line without loading it whole (monitor logs of long runs get large).
const fs = require('node:fs');
const readline = require('node:readline');

async function forEachLine(file, onLine) {
  const input = fs.createReadStream(file, { encoding: 'utf8' });
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) onLine(line, n++);
  return n;
}

// For a parser made by create() = { line(text), state }: reading a whole file (streamed) or a string,
// each resolving to / returning the parser's state.
function lineParsers(create) {
  return {
    async fromFile(file) {
      const p = create();
      await forEachLine(file, p.line);
      return p.state;
    },
    fromText(text) {
      const p = create();
      for (const l of text.split('\n')) p.line(l);
      return p.state;
    },
  };
}

module.exports = { forEachLine, lineParsers };
