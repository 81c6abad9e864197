'use strict';
// One run directory -> data sets (data/*.json) and charts (charts/*.json). Every input is optional: what
// is missing or unreadable is listed in data/summary.json and the rest is still analysed.
const fs = require('node:fs');
const path = require('node:path');
const { findInputs, readRun } = require('./read/run-inputs');
const { readResultsCsv, responseFilePlace, damageProblem } = require('./read/jmeter-csv');
const { readArchive } = require('./read/responses');
const { createCollector } = require('./measure/collect');
const { bestOffset, offsetDrift } = require('./measure/clock-offset');
const { parseVmstatFile, memoryPercent, memoryFrozen } = require('./read/vmstat');
const { parsePidstatFile } = require('./read/pidstat');
const { parseMemoryLogFile, memorySeries } = require('./read/memory-log');
const { readMemTotalMB } = require('./read/meminfo');
const { Timeline } = require('./measure/timeline');
const { messageCounts } = require('./measure/messages');
const { buildRunCharts } = require('./chart/run-charts');
const { runTitle } = require('./chart/titles');
const { SampleEnds, TripTimes } = require('./measure/trip-time');
const { pullEvents } = require('./measure/pull-messages');
const { networkOfRun } = require('./measure/network');
const { ClientThreads } = require('./measure/client-threads');
const { readEngineMonitors, readControllerCpu } = require('./read/engines');
const { steadyWindow, measureWorkload } = require('./measure/workload');
const { assessValidity, thresholds: validityThresholds } = require('./measure/validity');
const { answerCriterionOfCsv } = require('./measure/answer-criterion');

const MAX_SECONDS = 48 * 3600;
const MARGIN_MS = 3600 * 1000;   // keep server times up to an hour before the run start (unsynchronised clocks)

// Failed samples whose only fault is the plan's "does not contain timeout" assertion are timeouts, not errors.
const isTimeoutAssertion = (msg) => /timeout/.test(msg) && !/Exception/.test(msg);

async function readCsv(file, t0) {
  const csv = { rows: 0, badRows: 0, byLabel: {}, failed: 0, errors: 0, timeoutFailures: 0, first: null, last: null, firstRequest: null,
    timestampRows: [], errorTimeline: new Timeline(t0 === null ? null : t0 - MARGIN_MS, 'sum'), sampleEnds: new SampleEnds(),
    clientThreads: new ClientThreads() };
  const counts = await readResultsCsv(file, (s) => {
    const end = s.timeStamp + s.elapsed;
    if (csv.first === null || s.timeStamp < csv.first) csv.first = s.timeStamp;
    if (s.label === 'request' && (csv.firstRequest === null || s.timeStamp < csv.firstRequest)) csv.firstRequest = s.timeStamp;
    if (csv.last === null || end > csv.last) csv.last = end;
    const l = (csv.byLabel[s.label] ??= { samples: 0, failed: 0 });
    l.samples++;
    if (!s.success) {
      csv.failed++;
      l.failed++;
      if (isTimeoutAssertion(s.failureMessage)) csv.timeoutFailures++;
      else { csv.errors++; csv.errorTimeline.add(end); }
    }
    if (s.label === 'request' && s.responseFile) csv.sampleEnds.add(s.responseFile, end);
    if (s.label === 'request') csv.clientThreads.add(s.threadName, s.timeStamp, s.elapsed);
    if (s.label === 'timestamp' && s.responseFile) {
      const { engine, file } = responseFilePlace(s.responseFile);
      csv.timestampRows.push({ file, engine, threadName: s.threadName, timeStamp: s.timeStamp, elapsed: s.elapsed });
    }
  });
  csv.rows = counts.rows;
  csv.badRows = counts.badRows;
  csv.damage = counts.damage;
  return csv;
}

// Pairs each time-stamp answer from an archive with its JMeter sample to learn the round trip: same file
// name, saved by the same engine (the engine in the sample's responseFile path, as for the trip time:
// two engines on one address both save timestamp_1). Samples whose path has another shape fall back on
// the engine's address in the thread name, then on the first of that name.
function offsetMeasurements(timestamps, rows, engines) {
  return timestamps.map((ts) => {
    if (ts.sentUs !== undefined) {   // the push sampler's exchange, stamped in µs on its own (analysis/read/responses.js)
      return { server: ts.server, client: ts.sentUs / 1000, elapsed: (ts.arrivalUs - ts.sentUs) / 1000, engine: ts.engine,
        atMs: ts.arrivalUs / 1000 };
    }
    const base = path.posix.basename(ts.name);
    const candidates = rows.filter((r) => r.file === base);
    const address = engines.find((e) => e.name === ts.engine)?.address;
    const unplaced = candidates.filter((r) => r.engine === '');
    const row = candidates.find((r) => r.engine !== '' && r.engine === ts.engine)
      ?? unplaced.find((r) => address && r.threadName.includes(address)) ?? unplaced[0];
    const client = Number.isFinite(ts.client) ? ts.client : row?.timeStamp;
    return { server: ts.server, client, elapsed: row ? row.elapsed : null, engine: ts.engine };
  });
}

function forwardFill(values) {
  const out = values.slice();
  let last = null;
  let lastIndex = -1;
  for (let i = 0; i < out.length; i++) if (out[i] !== null) lastIndex = i;
  for (let i = 0; i <= lastIndex; i++) {
    if (out[i] === null) out[i] = last; else last = out[i];
  }
  return out;
}

// summary.tripTime: the poll fields as before, plus comet (its records stamped on arrival) when there are any.
const withCometTrip = (poll, comet) => (comet?.polls ? { ...(poll ?? {}), comet: cometSummary(comet) } : poll);
const withDrift = (drift) => (drift ? { drift } : {});   // only runs with repeated exchanges (push sampler) have one
const cometSummary = ({ polls, unmatched, ...rest }) => ({ records: polls, unmatched, ...rest });

const pad = (values, n) => Array.from({ length: n }, (_, i) => (i < values.length ? values[i] : null));
const maxOf = (values) => values.reduce((m, v) => (v !== null && v > m ? v : m), null);
const meanOf = (values) => {
  const v = values.filter((x) => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
};
const r2 = (v) => (v === null || !Number.isFinite(v) ? null : Math.round(v * 100) / 100);

async function analyzeRun(runDir) {
  const { inputs, archives, missing, present } = findInputs(runDir);
  const { run, problem: runProblem } = readRun(inputs.runJson);
  const notes = [];
  const problems = [];
  if (runProblem) problems.push(runProblem);
  let t0 = Number.isFinite(run.startedAt) ? run.startedAt : null;

  // 1. JMeter's samples: errors per second, the time-stamp sample's round trip.
  let csv = null;
  if (present('resultsCsv')) {
    try { csv = await readCsv(inputs.resultsCsv, t0); } catch (err) { problems.push(`results.csv unreadable: ${err.message}`); }
  }
  if (t0 === null && csv?.first !== null && csv?.first !== undefined) {
    t0 = csv.first;
    notes.push('run.json has no startedAt: the run start is the first JMeter sample');
  }

  // 2. The response archives, one engine after the other through one collector; each poll answered by
  // an event also gives a trip time, with the end of its JMeter sample.
  const collector = createCollector(t0 === null ? null : t0 - MARGIN_MS);
  const trips = new TripTimes(t0 === null ? null : t0 - MARGIN_MS);
  const cometTrips = new TripTimes(t0 === null ? null : t0 - MARGIN_MS);
  const visitor = { ...collector.visitor, record(obj, type, st) {
    collector.visitor.record(obj, type, st);
    // A pulled message's trip: the answer's arrival (else its sample's end), as for a long poll.
    if (type === 'pull') for (const e of pullEvents(obj)) trips.add(st.arrivalMs ?? (csv ? csv.sampleEnds.get(st.engine, st.name) : null), e.timings?.created);
    if (type !== 'event') return;
    // The push sampler stamps each record's arrival (comet too); per-sample files only give a poll's sample end.
    if (st.arrivalMs !== undefined) (st.type === 'comet' ? cometTrips : trips).add(st.arrivalMs, obj.response.event.timings?.created);
    else if (st.type === 'poll' && csv) trips.add(csv.sampleEnds.get(st.engine, st.name), obj.response.event.timings?.created);
  } };
  const archiveStats = [];
  for (const file of archives) archiveStats.push(await readArchive(file, visitor));
  const col = collector.result();

  // 3. Clock offset (server - client), then the run start if nothing else gave one.
  const engines = run.hosts?.engines ?? [];
  const best = bestOffset(offsetMeasurements(col.timestamps, csv?.timestampRows ?? [], engines));
  const offset = best ? best.offset : 0;
  if (!best) notes.push('no time-stamp answer: server and client clocks are taken as equal');
  else if (best.elapsed === null) notes.push('time-stamp answer without its JMeter sample: round trip unknown');
  if (t0 === null && col.firstServer !== null) {
    t0 = col.firstServer - offset;
    notes.push('no run start known: elapsed time counts from the first server record');
  }
  if (t0 === null) t0 = 0;

  // 4. The SUT host's monitors.
  const vmstat = present('vmstat') ? await parseVmstatFile(inputs.vmstat) : { samples: [], skipped: 0 };
  const pidstat = present('pidstat') ? await parsePidstatFile(inputs.pidstat) : { samples: [], skipped: 0 };
  const memoryLog = present('memoryLog') ? await parseMemoryLogFile(inputs.memoryLog) : { samples: [], skipped: 0 };
  let memTotalMB = memoryLog.samples.length ? memoryLog.samples[0].totalKB / 1024 : null;
  if (memTotalMB === null && present('meminfo')) memTotalMB = readMemTotalMB(inputs.meminfo);
  // Memory: sut/memory.log; runs made before it existed fall back on vmstat's columns, unless those never
  // changed (procps-ng 4.0.2 prints its first sample's memory on every line: docs/limits.md).
  let memorySource = memoryLog.samples.length ? 'memory.log' : vmstat.samples.length ? 'vmstat' : null;
  if (memorySource === 'vmstat' && memoryFrozen(vmstat.samples)) {
    memorySource = null;
    notes.push(`memory % not computed: vmstat's memory columns never changed over ${vmstat.samples.length} samples (procps-ng 4.0.2 repeats its first sample) and there is no sut/memory.log`);
  }
  if (memorySource !== null && memTotalMB === null) {
    memorySource = null;
    notes.push('memory % not computed: no MemTotal (sut/meminfo.txt)');
  }

  // 5. How many seconds the run covers.
  const candidates = [vmstat.samples.length,
    col.timelines.records.lastSecond(t0, offset) + 1,
    col.timelines.connections.lastSecond(t0, offset) + 1];
  if (Number.isFinite(run.finishedAt) && Number.isFinite(run.startedAt)) candidates.push(Math.ceil((run.finishedAt - run.startedAt) / 1000));
  if (csv?.last) candidates.push(Math.ceil((csv.last - t0) / 1000));
  const seconds = Math.min(MAX_SECONDS, Math.max(1, ...candidates.filter(Number.isFinite)));
  // When the load began (first request sample, else the first request the server saw): the comparison
  // lines runs up on it, since run.sh's own start-up steps take different times per server. Its steady
  // window (analysis/measure/workload.js) is what every rate of the summary counts over.
  const loadStartSecond = csv?.firstRequest ? Math.max(0, Math.floor((csv.firstRequest - t0) / 1000))
    : col.firstServer !== null ? Math.max(0, Math.floor((col.firstServer - offset - t0) / 1000)) : 0;
  const window = steadyWindow(run, loadStartSecond, seconds);

  // 6. Per-second series.
  const cpu = pad(vmstat.samples.map((s) => s.cpu), seconds);
  const steal = pad(vmstat.samples.map((s) => s.steal), seconds);
  const memory = memorySource === 'memory.log' ? memorySeries(memoryLog.samples, t0, offset, seconds).map(r2)
    : memorySource === 'vmstat' ? pad(vmstat.samples.map((s) => r2(memoryPercent(s.active, memTotalMB))), seconds)
      : new Array(seconds).fill(null);
  const processCpu = new Array(seconds).fill(null);
  const processRssMB = new Array(seconds).fill(null);
  const pidSecond = (s) => Math.round((s.epochMs - offset - t0) / 1000) - 1;   // a sample closes its second
  const aligned = pidstat.samples.length > 0 && pidstat.samples[0].epochMs !== null
    && pidSecond(pidstat.samples[0]) > -120 && pidSecond(pidstat.samples[0]) < seconds;
  if (pidstat.samples.length > 0 && !aligned) notes.push('pidstat times do not match the run: samples placed one per second from the start');
  pidstat.samples.forEach((s, i) => {
    const sec = aligned ? pidSecond(s) : i;
    if (sec >= 0 && sec < seconds) { processCpu[sec] = s.cpu; processRssMB[sec] = s.rssMB; }
  });
  const tl = col.timelines;
  const responses = tl.records.toSeconds(t0, seconds, offset);
  let total = 0;
  const responsesCumulative = responses.map((v) => (total += v));
  const connections = forwardFill(tl.connections.toSeconds(t0, seconds, offset));
  const errors = csv ? csv.errorTimeline.toSeconds(t0, seconds, 0) : new Array(seconds).fill(0);
  const tripTime = trips.result(offset, t0, seconds, best?.errorBoundMs ?? null, window);
  const cometTrip = cometTrips.result(offset, t0, seconds, best?.errorBoundMs ?? null, window).summary;

  // 7. Emit cycles and queue places.
  const cycles = [...col.cycles.values()].filter((c) => Number.isFinite(c.created))
    .sort((a, b) => a.created - b.created || a.cycle - b.cycle)
    .map((c) => ({ event: c.name, cycle: c.cycle, createdSecond: r2((c.created - offset - t0) / 1000),
      duration: Number.isFinite(c.duration) ? c.duration : null, requests: c.requests, total: c.total }));
  const emitDuration = new Array(seconds).fill(null);
  const requestsPerCycle = new Array(seconds).fill(null);
  for (const c of cycles) {
    const s = Math.floor(c.createdSecond);
    if (s < 0 || s >= seconds) continue;
    if (c.duration !== null) emitDuration[s] = Math.max(emitDuration[s] ?? 0, c.duration);
    requestsPerCycle[s] = Math.max(requestsPerCycle[s] ?? 0, c.requests);   // two cycles in one second: the larger
  }
  const places = {
    meanDuration: col.places.count.map((n, i) => (n ? r2(col.places.sum[i] / n) : null)),
    maxDuration: col.places.count.map((n, i) => (n ? col.places.max[i] : null)),
    count: col.places.count,
  };

  // 8. Received / unique / missed messages.
  const cyclesByEvent = new Map();
  for (const c of col.cycles.values()) {
    if (!Number.isFinite(c.created)) continue;
    if (!cyclesByEvent.has(c.name)) cyclesByEvent.set(c.name, []);
    cyclesByEvent.get(c.name).push(c.created);
  }
  for (const list of cyclesByEvent.values()) list.sort((a, b) => a - b);
  const messages = messageCounts(col.cometStreams, cyclesByEvent, col.poll, col.pull);
  const network = networkOfRun(path.join(runDir, 'sut', 'netstat.log'), { t0, offsetMs: offset, window,
    events: tl.events.toSeconds(t0, seconds, offset), requests: tl.requests.toSeconds(t0, seconds, offset), hosts: run.hosts });

  const series = { cpu, steal, memory, processCpu, processRssMB: processRssMB.map(r2), connections, responses,
    responsesCumulative, events: tl.events.toSeconds(t0, seconds, offset), timeouts: tl.timeouts.toSeconds(t0, seconds, offset),
    clears: tl.clears.toSeconds(t0, seconds, offset), errors, emitDuration, requestsPerCycle,
    tripMean: tripTime.series.mean, tripMax: tripTime.series.max };

  // 9. Validity: what the run asked of the server against what it achieved over the steady window, with
  // the engines' monitors beside the SUT's (analysis/measure/workload.js, analysis/measure/validity.js).
  const engineMonitors = await readEngineMonitors(runDir, run, t0, seconds);
  const cycleStartsClient = cycles.map((c) => t0 + c.createdSecond * 1000).sort((a, b) => a - b);
  const client = csv ? csv.clientThreads.result(csv.firstRequest,
    { fromMs: t0 + window.fromSecond * 1000, toMs: t0 + window.toSecond * 1000 }, cycleStartsClient,
    run.type === 'poll' && !run.event ? run.maxDuration : run.type === 'pull' ? run.pullInterval : null) : null;
  const { thresholds, problems: thresholdProblems } = validityThresholds();
  notes.push(...thresholdProblems);
  const pidstatCores = pidstat.cores ?? null;
  const controllerCpu = await readControllerCpu(runDir, t0, seconds);
  const workload = measureWorkload({ run, window, series, cycles, client, engines: engineMonitors, sutCores: pidstatCores, controllerCpu,
    errors: csv ? { failed: csv.errors, samples: csv.rows } : null, thresholds });
  const validity = assessValidity(workload, { crashed: run.serverCrashed === true, thresholds,
    known: csv ? [] : ['no results.csv: ramp-up and re-poll gaps unknown'] });

  const datasets = { series, cycles, places, messages, memorySource, hasSamples: Boolean(csv?.rows),
    tripSpectrum: { poll: tripTime.summary?.spectrum ?? [], comet: cometTrip?.spectrum ?? [] },
    engines: engineMonitors.map((e) => ({ name: e.name, cores: e.cores, hostCpu: e.hostCpu, steal: e.steal, jvmCpu: e.jvmCpu,
      jvmRssMB: e.jvmRssMB, gcPauseMs: e.gcPauseMs })) };

  // 10. Summary with every flag a reader must see.
  const unreadable = archiveStats.filter((a) => a.unreadable).map((a) => path.basename(a.file));
  const truncated = archiveStats.filter((a) => a.truncated).map((a) => path.basename(a.file));
  const sum = (k) => archiveStats.reduce((n, a) => n + a[k], 0);
  const linesSkipped = { vmstat: vmstat.skipped, pidstat: pidstat.skipped, memoryLog: memoryLog.skipped, resultsCsv: csv?.badRows ?? 0,
    responseLines: sum('badLines'), halfWrittenLines: sum('halfLines') };
  for (const a of archiveStats) if (a.problem) problems.push(`${path.basename(a.file)}: ${a.problem}`);
  for (const a of archiveStats) for (const p of a.streamLogProblems ?? []) problems.push(`${path.basename(a.file)}: stream log ${p}`);
  const csvDamage = damageProblem(csv?.damage);
  if (csvDamage) problems.push(csvDamage);
  const outOfRange = Object.values(tl).reduce((n, t) => n + t.outOfRange, 0);
  if (outOfRange) notes.push(`${outOfRange} record times lay outside the run and were left out of the time series`);
  const requestResponses = archiveStats.reduce((n, a) => n + a.byKind.request, 0);
  const summary = {
    id: run.id ?? path.basename(path.resolve(runDir)),
    title: runTitle(run),
    parameters: { server: run.server, type: run.type, threads: run.threads, rampup: run.rampup, duration: run.duration,
      event: run.event, interval: run.interval, maxDuration: run.maxDuration, pullInterval: run.pullInterval ?? null, hosts: run.hosts ?? null },
    status: run.status,
    serverCrashed: run.serverCrashed,
    startedAt: t0,
    durationSeconds: seconds,
    loadStartSecond,
    steadyWindow: { fromSecond: window.fromSecond, toSecond: window.toSecond, seconds: window.seconds, basis: window.basis },
    clockOffset: { ms: r2(offset), errorBoundMs: best?.errorBoundMs ?? null, engine: best?.engine ?? null,
      measurements: best?.measurements ?? 0, ...withDrift(offsetDrift(offsetMeasurements(col.timestamps, csv?.timestampRows ?? [], engines))) },
    memTotalMB: memTotalMB === null ? null : r2(memTotalMB),
    memorySource,
    totals: {
      requestResponses, responsesSent: col.counts.records, events: col.counts.events, timeouts: col.counts.timeouts,
      clears: col.counts.clears, cometStreams: col.counts.comet, pollResponses: col.counts.poll, errorBodies: sum('errorBodies'),
      samples: csv?.rows ?? null, failedSamples: csv?.failed ?? null, errors: csv?.errors ?? null,
      timeoutFailures: csv?.timeoutFailures ?? null, samplesByLabel: csv?.byLabel ?? null, emitCycles: cycles.length,
    },
    // records sent per second of the steady window (steadyWindow)
    responsesPerSecond: window.seconds ? r2(responses.slice(window.fromSecond, window.toSecond).reduce((a, b) => a + b, 0) / window.seconds) : null,
    peakConnections: maxOf(connections),
    peakCpu: maxOf(cpu), meanCpu: r2(meanOf(cpu)), peakMemory: r2(maxOf(memory)),
    peakProcessRssMB: r2(maxOf(processRssMB)), peakEmitDuration: maxOf(emitDuration),
    messages,
    network,
    tripTime: withCometTrip(tripTime.summary, cometTrip),
    // reference 003's capacity criterion: 95% of answers within T s (analysis/measure/answer-criterion.js)
    capacityCriterion: await answerCriterionOfCsv(present('resultsCsv') ? inputs.resultsCsv : null, run),
    validity,
    workload,
    flags: {
      serverCrashed: run.serverCrashed === true,
      status: run.status,
      incomplete: run.status !== 'complete',
      missingInputs: missing,
      archivesUnreadable: unreadable,
      archivesTruncated: truncated,
      truncatedEntries: sum('truncatedEntries'),
      ...(sum('streamLogs') ? { damagedStreamLogs: sum('damagedStreamLogs'), unendedSamples: sum('unendedSamples') } : {}),
      filesSkipped: sum('skippedEntries'),
      linesSkipped: Object.values(linesSkipped).reduce((a, b) => a + b, 0),
      linesSkippedBy: linesSkipped,
      ...(csv?.damage?.rows ? { resultsCsvDamage: csv.damage } : {}),   // only when results.csv was damaged
      problems,
    },
    archives: archiveStats.map((a) => ({ name: path.basename(a.file), entries: a.entries, byKind: a.byKind,
      errorBodies: a.errorBodies, truncated: a.truncated, unreadable: a.unreadable, problem: a.problem })),
    runNotes: run.notes ?? [],
    notes,
  };
  const { charts, skipped } = buildRunCharts(datasets, run);
  summary.charts = { written: Object.keys(charts), skipped };
  return { summary, datasets, charts };
}

function writeJson(file, value) {
  fs.writeFileSync(file, JSON.stringify(value) + '\n');
}

// Writes data/ and charts/ of the run; returns what analyzeRun returned.
async function analyzeAndWrite(runDir) {
  const result = await analyzeRun(runDir);
  const dataDir = path.join(runDir, 'data');
  const chartDir = path.join(runDir, 'charts');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.mkdirSync(chartDir, { recursive: true });
  for (const f of fs.readdirSync(chartDir)) if (f.endsWith('.json')) fs.rmSync(path.join(chartDir, f));
  const { summary, datasets, charts } = result;
  writeJson(path.join(dataDir, 'series.json'), { id: summary.id, startedAt: summary.startedAt, seconds: summary.durationSeconds,
    clockOffsetMs: summary.clockOffset.ms, series: datasets.series });
  writeJson(path.join(dataDir, 'emit-cycles.json'), { id: summary.id, cycles: datasets.cycles });
  writeJson(path.join(dataDir, 'emit-places.json'), { id: summary.id, ...datasets.places });
  writeJson(path.join(dataDir, 'messages.json'), { id: summary.id, ...datasets.messages });
  writeJson(path.join(dataDir, 'engines.json'), { id: summary.id, startedAt: summary.startedAt, engines: datasets.engines });
  writeJson(path.join(dataDir, 'summary.json'), summary);
  for (const [id, chart] of Object.entries(charts)) writeJson(path.join(chartDir, `${id}.json`), chart);
  return result;
}

module.exports = { analyzeRun, analyzeAndWrite, isTimeoutAssertion, offsetMeasurements };
