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

module.exports = { forEachLine };
