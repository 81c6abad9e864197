'use strict';
// The analysis' outputs of one run (docs/run-layout.md): data/*.json and charts/<id>.json, how they are
// written and how a reader knows they are whole.
//
// Writing (writeOutputs): every file whole or not at all (lib/atomic-write.js: a temporary file in the same
// directory, flushed, renamed). data/summary.json is removed first and written last, so a run whose
// data/summary.json exists has every other output whole, and a run whose writing stopped (a full disk, a
// kill) has no summary.json and reads as not analysed.
//
// Reading (outputsProblem, analyzeUnlessWhole): the outputs are whole when data/summary.json holds a JSON
// object, every JSON file in data/ and charts/ parses, every chart summary.json lists as written is there,
// and so is every data set the reader names. A reader re-analyses a run whose outputs are not whole, except
// when that would lose what is whole: a run with a whole summary.json and no raw measurements to analyse
// again (its archives deleted by sweep.sh --cleanup-raw, or a run directory holding only run.json and data/)
// keeps its outputs, and the reader is told why they are not whole.
const fs = require('node:fs');
const path = require('node:path');
const { writeFileAtomic } = require('../lib/atomic-write');
const { findInputs, isUsableRunDir } = require('./read/run-inputs');

const SUMMARY = path.join('data', 'summary.json');
// what sweep.sh --cleanup-raw leaves in place of the raw archives it deleted (sweep/cleanup-raw.js)
const RAW_REMOVED = path.join('responses', 'REMOVED.txt');
// a temporary file of lib/atomic-write.js left by a writer that was killed
const STALE_TMP = /\.tmp-\d+$/;

// The data sets of data/, [file name, value], in the order they are written (summary.json after them all).
// A target run's (stage/target.js): its per-second series and the engines' monitors.
function dataSets(summary, datasets) {
  if (datasets.target) {
    return [
      ['series.json', { id: summary.id, startedAt: summary.startedAt, seconds: summary.durationSeconds, series: datasets.series }],
      ['engines.json', { id: summary.id, startedAt: summary.startedAt, engines: datasets.engines }],
    ];
  }
  return [
    ['series.json', { id: summary.id, startedAt: summary.startedAt, seconds: summary.durationSeconds,
      clockOffsetMs: summary.clockOffset.ms, series: datasets.series }],
    ['emit-cycles.json', { id: summary.id, cycles: datasets.cycles }],
    ['trip-cycles.json', { id: summary.id, ...datasets.tripCycles }],
    ['emit-places.json', { id: summary.id, ...datasets.places }],
    ['messages.json', { id: summary.id, ...datasets.messages }],
    ['engines.json', { id: summary.id, startedAt: summary.startedAt, engines: datasets.engines }],
  ];
}

const writeJson = (file, value) => writeFileAtomic(file, `${JSON.stringify(value)}\n`);

// Writes data/ and charts/ of the run from analyzeRun's result: the old summary.json and charts go first,
// then the data sets, the charts, and data/summary.json last. A write that fails throws (the run is then
// left without a summary.json).
function writeOutputs(runDir, { summary, datasets, charts }) {
  const dataDir = path.join(runDir, 'data');
  const chartDir = path.join(runDir, 'charts');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.mkdirSync(chartDir, { recursive: true });
  fs.rmSync(path.join(runDir, SUMMARY), { force: true });
  for (const f of fs.readdirSync(chartDir)) if (f.endsWith('.json') || STALE_TMP.test(f)) fs.rmSync(path.join(chartDir, f));
  for (const f of fs.readdirSync(dataDir)) if (STALE_TMP.test(f)) fs.rmSync(path.join(dataDir, f));
  try {
    for (const [name, value] of dataSets(summary, datasets)) writeJson(path.join(dataDir, name), value);
    for (const [id, chart] of Object.entries(charts)) writeJson(path.join(chartDir, `${id}.json`), chart);
    writeJson(path.join(runDir, SUMMARY), summary);
  } catch (e) {
    const why = `${e.message.split(';')[0]}; no ${SUMMARY} written: the run reads as not analysed until it is analysed again`;
    const err = new Error(why, { cause: e });
    if (e.code) err.code = e.code;
    throw err;
  }
}

// One output file: { value } when it holds whole JSON, else { problem } in a few words (never its bytes).
function readWhole(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return { problem: e.code === 'ENOENT' ? 'is missing' : `cannot be read (${e.code ?? e.message})` };
  }
  if (text.length === 0) return { problem: 'is empty (0 bytes)' };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { problem: `is not whole JSON (${Buffer.byteLength(text)} bytes, cut or damaged)` };
  }
}

const jsonFiles = (runDir, dir) => {
  try {
    return fs.readdirSync(path.join(runDir, dir)).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(dir, f));
  } catch {
    return [];
  }
};

// Why the run's outputs are not whole, as "<file> <problem>" (the first one found), or null when they are.
// data: the data sets (file names in data/) the reader needs beyond summary.json.
function outputsProblem(runDir, { data = [] } = {}) {
  const summary = readWhole(path.join(runDir, SUMMARY));
  if (summary.problem) return `${SUMMARY} ${summary.problem}`;
  if (!summary.value || typeof summary.value !== 'object' || Array.isArray(summary.value)) return `${SUMMARY} holds no JSON object`;
  const listed = (Array.isArray(summary.value.charts?.written) ? summary.value.charts.written : []).map((id) => path.join('charts', `${id}.json`));
  const files = new Set([...data.map((f) => path.join('data', f)), ...listed, ...jsonFiles(runDir, 'data'), ...jsonFiles(runDir, 'charts')]);
  files.delete(SUMMARY);
  for (const rel of files) {
    const { problem } = readWhole(path.join(runDir, rel));
    if (problem) return `${rel} ${problem}${problem === 'is missing' && listed.includes(rel) ? ' (summary.json lists it)' : ''}`;
  }
  return null;
}

// Why the run cannot be analysed again without losing what is whole, or null when it can.
function reanalysisBlocked(runDir) {
  if (!isUsableRunDir(runDir)) return 'nothing to analyse (no run.json, sut/, jmeter/ or responses/ files)';
  if (readWhole(path.join(runDir, SUMMARY)).problem) return null;   // nothing whole to lose
  if (fs.existsSync(path.join(runDir, RAW_REMOVED))) return `its raw response archives were deleted (${RAW_REMOVED})`;
  const { inputs, archives } = findInputs(runDir);
  const raw = archives.length > 0 || Object.entries(inputs).some(([k, f]) => k !== 'runJson' && fs.existsSync(f));
  return raw ? null : 'no raw measurements in the run directory (only run.json and the outputs)';
}

// A reader's way to a run's outputs: analyses the run again with analyse(runDir) (analyzeAndWrite, or a
// process running analysis/analyze.js) when its outputs are not whole and reanalysisBlocked allows it.
// Resolves to { reanalysed, was (the problem before, or null), problem (null when whole now) }.
async function analyzeUnlessWhole(runDir, { data = [], analyse }) {
  const was = outputsProblem(runDir, { data });
  if (!was) return { reanalysed: false, was: null, problem: null };
  const blocked = reanalysisBlocked(runDir);
  if (blocked) return { reanalysed: false, was, problem: `${was}; not analysed again: ${blocked}` };
  await analyse(runDir);
  return { reanalysed: true, was, problem: outputsProblem(runDir, { data }) };
}

module.exports = { SUMMARY, RAW_REMOVED, dataSets, writeOutputs, readWhole, outputsProblem, reanalysisBlocked, analyzeUnlessWhole };
