'use strict';
// Streams JMeter's results.csv (Request Data Writer, header row) and hands each sample to a callback with
// the columns the analyzer uses, read by header name. Unknown columns are ignored; rows that cannot be
// read are counted, not fatal.
const fs = require('node:fs');
const { parse } = require('csv-parse');

// JMeter writes the saved-response file name as "Filename"; run-layout.md calls it responseFile.
const FILE_COLUMNS = ['responseFile', 'Filename'];

function toSample(row) {
  const num = (v) => (v === undefined || v === '' ? null : Number(v));
  const file = FILE_COLUMNS.map((c) => row[c]).find((v) => v !== undefined && v !== '');
  return {
    timeStamp: num(row.timeStamp),
    elapsed: num(row.elapsed),
    label: row.label ?? '',
    responseCode: row.responseCode ?? '',
    success: String(row.success).toLowerCase() === 'true',
    failureMessage: row.failureMessage ?? '',
    threadName: row.threadName ?? '',
    allThreads: num(row.allThreads),
    bytes: num(row.bytes),
    responseFile: file ?? null,
  };
}

// Where a saved response lives: run.sh's layout (run-layout.md) puts it at <...>/<engine>/responses/<file>,
// so the path names the engine that saved it. Either slash; engine '' when the path has another shape.
function responseFilePlace(responseFile) {
  const parts = String(responseFile).replace(/\\/g, '/').split('/');
  const engine = parts.length >= 3 && parts[parts.length - 2] === 'responses' ? parts[parts.length - 3] : '';
  return { engine, file: parts[parts.length - 1] };
}

// Resolves to { rows, badRows }.
function readResultsCsv(file, onSample) {
  return new Promise((resolve, reject) => {
    let rows = 0;
    let badRows = 0;
    const parser = parse({ columns: true, relax_column_count: true, skip_empty_lines: true, relax_quotes: true,
      skip_records_with_error: true });
    parser.on('skip', () => { badRows++; });
    parser.on('readable', () => {
      let row;
      while ((row = parser.read()) !== null) {
        const s = toSample(row);
        if (!Number.isFinite(s.timeStamp) || !Number.isFinite(s.elapsed)) { badRows++; continue; }
        rows++;
        onSample(s);
      }
    });
    parser.on('error', reject);
    parser.on('end', () => resolve({ rows, badRows }));
    const input = fs.createReadStream(file);
    input.on('error', reject);
    input.pipe(parser);
  });
}

module.exports = { readResultsCsv, toSample, responseFilePlace };
