'use strict';
// The stream log's line format, the one place JavaScript knows it (issue #51 item 1): what the engines'
// Java StreamLog writes (load/push-sampler; docs/run-layout.md "Stream logs"), read by the analysis
// (read/responses.js, read/target-log.js) and written by the tools and tests that make runs. One line per
// fact, tab-separated, UTF-8; µs: the engine clock's microseconds since the epoch; a sample id is unique
// per engine and test.
//
//   B <µs> <sample id> <thread> <label>                          a sample began (before any connect)
//   C <µs> <sample id> <connect µs>                              the mux engine: its connection's first TCP connect
//                                                                completed (µs), taking connect µs from the connect
//                                                                call; once per connection, at its first sample
//                                                                whose connect succeeded
//   R <µs> <sample id> <record>                                  one record (message) of its answer arrived
//   E <µs> <sample id> <code> <ok> <records> <body bytes> <cut bytes> <sent µs> <message> [<failure> [<headers µs>]]
//                                                                the sample ended: ok 1/0; sent µs just before
//                                                                its request's first byte (0: never sent);
//                                                                failure (the mux engine; the push sampler once
//                                                                JMeter judged its sample): '' when it passed
//                                                                its assertions, else why it failed; headers µs:
//                                                                its head read (0: never). A 10-field line (no
//                                                                verdict) is an older push run's, whose verdict
//                                                                is in its results.csv
// A text field (thread, label, record, message, failure) never holds a tab or a line end: the writers put
// a space in their place (formatText), so a record is the rest of its line after the sample id.
//
//   lineHead(line)       { tag, us, id, restAt } of a line (restAt: where the field after the id starts), or
//                        null when it is not one (a reader counts it bad)
//   beginOf(line)        { thread, label } of a B line, or null
//   connectOf(line)      { tookUs } of a C line, or null
//   endOf(line)          the fields of an E line { code, ok, records, bodyBytes, cutBytes, sentUs, message,
//                        failure (undefined on a 10-field line), headersUs (null: none or 0) }, or null
//   recordHeadBytes(buf, from, to)   an R line's head read straight from its bytes (the analysis's hot path:
//                        no string per line): { us, id, restAt } when its µs and sample id are whole numbers
//                        (no leading zero; µs of at most 16 digits, the id of 15), else null (read it as text)
//   formatBegin, formatConnect, formatRecord, formatEnd   one line with its "\n", for tools and tests that write logs

const TAG = { B: 'B', C: 'C', R: 'R', E: 'E' };

function lineHead(line) {
  const tag = line[0];
  if (line[1] !== '\t' || !TAG[tag]) return null;
  const a = line.indexOf('\t', 2);
  const b = a === -1 ? -1 : line.indexOf('\t', a + 1);
  const us = a > 2 ? Number(line.slice(2, a)) : NaN;   // (Number('') is 0)
  if (b === -1 || !Number.isFinite(us)) return null;
  return { tag, us, id: line.slice(a + 1, b), restAt: b + 1 };
}

function recordHeadBytes(buf, from, to) {
  const us = buf[from] === 82 && buf[from + 1] === 9 ? wholeNumber(buf, from + 2, to, 16) : null;   // 'R', tab
  const id = us === null ? null : wholeNumber(buf, us.end + 1, to, 15);
  if (id === null || us.value > Number.MAX_SAFE_INTEGER) return null;
  return { us: us.value, id: id.value, restAt: id.end + 1 };
}

// The whole number of at most maxDigits digits (no sign, no leading zero) at buf[from, ...) ended by a tab
// before `to`: { value, end (the tab) }, or null.
function wholeNumber(buf, from, to, maxDigits) {
  let value = 0;
  let i = from;
  for (let c = buf[i]; i < to && c >= 48 && c <= 57; c = buf[++i]) value = value * 10 + (c - 48);
  const digits = i - from;
  if (digits === 0 || digits > maxDigits || (digits > 1 && buf[from] === 48) || i >= to || buf[i] !== 9) return null;
  return { value, end: i };
}

function beginOf(line) {
  const f = line.split('\t');
  return f.length >= 5 ? { thread: f[3], label: f[4] } : null;
}

function connectOf(line) {
  const f = line.split('\t');
  const took = f.length === 4 && /^(0|[1-9][0-9]{0,15})$/.test(f[3]) ? Number(f[3]) : NaN;
  return Number.isFinite(took) ? { tookUs: took } : null;
}

function endOf(line) {
  const f = line.split('\t');
  if (f.length < 10) return null;
  const headers = f.length >= 12 ? Number(f[11]) : 0;
  return { code: f[3], ok: f[4] === '1', records: Number(f[5]), bodyBytes: Number(f[6]), cutBytes: Number(f[7]), sentUs: Number(f[8]),
    message: f[9], failure: f.length >= 11 ? f[10] : undefined, headersUs: headers > 0 ? headers : null };
}

// A text field as the writers put it: tabs and line ends as spaces.
const formatText = (v) => String(v).replace(/[\t\r\n]/g, ' ');
const line = (fields) => `${fields.join('\t')}\n`;

const formatBegin = (us, id, thread, label) => line(['B', us, id, formatText(thread), formatText(label)]);
const formatConnect = (us, id, tookUs) => line(['C', us, id, tookUs]);
const formatRecord = (us, id, record) => line(['R', us, id, formatText(record)]);

// e: { code, ok, records, bodyBytes, cutBytes, sentUs, message, failure?, headersUs? }: the 12 fields of a
// line with its verdict when failure is given (headersUs 0 when absent), the 10 of an older push run without.
function formatEnd(us, id, e) {
  const ten = ['E', us, id, e.code, e.ok ? 1 : 0, e.records, e.bodyBytes ?? 0, e.cutBytes ?? 0, e.sentUs ?? 0, formatText(e.message ?? '')];
  return line(e.failure === undefined ? ten : [...ten, formatText(e.failure), e.headersUs ?? 0]);
}

module.exports = { lineHead, recordHeadBytes, beginOf, connectOf, endOf, formatText, formatBegin, formatConnect, formatRecord, formatEnd };
