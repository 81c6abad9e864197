'use strict';
// Streams JMeter's results.csv (Request Data Writer, header row) and hands each sample to a callback with
// the columns the analyzer uses, read by header name. Unknown columns are ignored; columns a run's JMeter
// did not write (SampleCount, ErrorCount in older runs) read as null.
//
// Damage never costs more than the damaged row (docs/faults.md): a row is one line unless a quoted field
// runs on (JMeter quotes fields holding a comma, quote or line end), and a quoted field that does not close
// before a line that reads as a whole row of its own (a stray '"') ends there: that row is counted damaged
// and reading goes on at the next line. A row with another number of fields than the header, without a
// number in timeStamp or elapsed, or a last line without its line end (the file cut mid-row) is counted
// too. Every kind is counted in damage, with the first few line numbers, and damageProblem() words it for
// the summary's flags.
const fs = require('node:fs');

// JMeter writes the saved-response file name as "Filename"; run-layout.md calls it responseFile.
const FILE_COLUMNS = ['responseFile', 'Filename'];
// Lines a quoted field may run on over before its row is given up (JMeter's messages are a few lines).
const MAX_ROW_LINES = 50;
const EXAMPLES = 5;

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
    latency: num(row.Latency),   // ms to the first bytes of the answer
    responseFile: file ?? null,
    // JMeter's batch-sample fields (newer runs' results.csv; null in older ones): 1 and 0 or 1 in an ordinary
    // sample; in a summary sample (SUMMARY_LABEL) the answers that ended in its interval and the failed ones
    sampleCount: num(row.SampleCount),
    errorCount: num(row.ErrorCount),
  };
}

// The label of the mux engine's summary samples (docs/run-layout.md "Stream logs"): one per engine
// thread per second, counting the answers that ended in it; no answer of its own (measure/sample-fold.js).
const SUMMARY_LABEL = 'request-summary';

// Where a saved response lives: run.sh's layout (run-layout.md) puts it at <...>/<engine>/responses/<file>,
// so the path names the engine that saved it. Either slash; engine '' when the path has another shape.
function responseFilePlace(responseFile) {
  const parts = String(responseFile).replace(/\\/g, '/').split('/');
  const engine = parts.length >= 3 && parts[parts.length - 2] === 'responses' ? parts[parts.length - 3] : '';
  return { engine, file: parts[parts.length - 1] };
}

// The fields of one row's text; open: a quoted field is still open at its end. A quote is special only
// at the start of a field ("" inside a quoted field is one quote); anywhere else it is kept as it is.
function splitRow(text) {
  const fields = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) return { fields: [...fields, field + text.slice(i)], open: true };
        field += text.slice(i, q);
        if (text[q + 1] === '"') { field += '"'; i = q + 2; continue; }
        i = q + 1;
        break;
      }
      const c = text.indexOf(',', i);   // anything between the closing quote and the comma is kept
      field += text.slice(i, c < 0 ? text.length : c);
      i = c < 0 ? text.length : c;
    } else {
      const c = text.indexOf(',', i);
      field = text.slice(i, c < 0 ? text.length : c);
      i = c < 0 ? text.length : c;
    }
    fields.push(field);
    if (i >= text.length) return { fields, open: false };
    i++;   // the comma
  }
}

// Lines of a file, streamed; ended: false for a last line without its line end.
async function* fileLines(file) {
  let rest = '';
  for await (const chunk of fs.createReadStream(file, { encoding: 'utf8' })) {
    rest += chunk;
    let nl;
    let from = 0;
    while ((nl = rest.indexOf('\n', from)) >= 0) {
      yield { text: rest.slice(from, nl).replace(/\r$/, ''), ended: true };
      from = nl + 1;
    }
    rest = rest.slice(from);
  }
  if (rest !== '') yield { text: rest, ended: false };
}

// Rows of results.csv, one line at a time: line(text, no) for every line, then end(). A row's quoted field
// may run on over the next lines (pending) until it closes, a line that stands alone as a row ends it, or
// MAX_ROW_LINES are reached.
class CsvRows {
  constructor(onSample) {
    this.onSample = onSample;
    this.damage = { rows: 0, unterminatedQuote: 0, wrongFieldCount: 0, notNumeric: 0, cutMidRow: false, lines: [] };
    this.header = null;
    this.rows = 0;
    this.pending = [];   // the lines of a row whose quoted field is still open: { text, no }
  }

  damaged(no, kind) {
    const d = this.damage;
    d.rows++;
    if (kind === 'cutMidRow') d.cutMidRow = true;
    else d[kind]++;
    if (d.lines.length < EXAMPLES) d.lines.push(no);
  }

  record(fields) { return Object.fromEntries(this.header.map((h, k) => [h, fields[k]])); }

  isRow(fields) { return fields.length === this.header.length; }

  // a line that is a whole row on its own: a quoted field open before it ends there
  standsAlone(text) {
    const r = splitRow(text);
    return !r.open && this.isRow(r.fields) && isNumeric(toSample(this.record(r.fields)));
  }

  emit(fields, no) {
    if (!this.isRow(fields)) { this.damaged(no, 'wrongFieldCount'); return; }
    const s = toSample(this.record(fields));
    if (!isNumeric(s)) { this.damaged(no, 'notNumeric'); return; }
    this.rows++;
    this.onSample(s);
  }

  line(text, no) {
    if (this.header === null) {
      if (text.trim() !== '') this.header = splitRow(text).fields.map((h) => h.trim());
      return;
    }
    if (this.pending.length > 0) { this.continueRow(text, no); return; }
    if (text === '') return;
    const r = splitRow(text);
    if (r.open) this.pending = [{ text, no }];
    else this.emit(r.fields, no);
  }

  // The next line while a quoted field is open.
  continueRow(text, no) {
    if (this.standsAlone(text)) {
      this.damaged(this.pending[0].no, 'unterminatedQuote');
      this.pending = [];
      this.line(text, no);
      return;
    }
    this.pending.push({ text, no });
    const r = splitRow(this.pending.map((p) => p.text).join('\n'));
    if (!r.open) {
      const first = this.pending[0].no;
      this.pending = [];
      this.emit(r.fields, first);
    } else if (this.pending.length > MAX_ROW_LINES) {
      // given up: the first line is the damaged row; the others are read again on their own
      const again = this.pending.slice(1);
      this.damaged(this.pending[0].no, 'unterminatedQuote');
      this.pending = [];
      for (const p of again) this.line(p.text, p.no);
    }
  }

  // cutLine: the number of a last line without its line end (not given to line()): the row it ends,
  // or began, is cut short
  end(cutLine = null) {
    if (cutLine !== null) this.damaged(this.pending.length ? this.pending[0].no : cutLine, 'cutMidRow');
    else if (this.pending.length) this.damaged(this.pending[0].no, 'unterminatedQuote');
    this.pending = [];
    return { rows: this.rows, badRows: this.damage.rows, damage: this.damage };
  }
}

const isNumeric = (s) => Number.isFinite(s.timeStamp) && Number.isFinite(s.elapsed);

// Resolves to { rows, badRows, damage }. A last line without its line end may be a row cut short: it is
// counted as damage (cutMidRow), not read.
async function readResultsCsv(file, onSample) {
  const reader = new CsvRows(onSample);
  let no = 0;
  let last = null;
  for await (const l of fileLines(file)) {
    no++;
    if (last) reader.line(last.text, last.no);
    last = { ...l, no };
  }
  if (last && !last.ended && last.text.trim() !== '') return reader.end(last.no);
  if (last) reader.line(last.text, last.no);
  return reader.end();
}

// A failed sample whose only fault is the plan's "does not contain timeout" assertion (testplan.jmx) is a
// timeout, not an error: a poll that ran to its max-duration.
const isTimeoutAssertion = (msg) => /timeout/.test(msg) && !/Exception/.test(msg);

// The summary's wording of the damage, or null when there is none.
function damageProblem(damage) {
  if (!damage || damage.rows === 0) return null;
  const kinds = [
    [damage.unterminatedQuote, 'with a quote that never closed (read on at the next line)'],
    [damage.wrongFieldCount, 'with another number of fields than the header'],
    [damage.notNumeric, 'without a number in timeStamp or elapsed'],
  ].filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  if (damage.cutMidRow) kinds.push('the file ends mid-row (cut short)');
  return `results.csv: ${damage.rows} damaged row(s) skipped: ${kinds.join('; ')} (first at line(s) ${damage.lines.join(', ')})`;
}

module.exports = { readResultsCsv, toSample, responseFilePlace, splitRow, damageProblem, isTimeoutAssertion, SUMMARY_LABEL };
