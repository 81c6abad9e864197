'use strict';
// The analysis of a target run (run.json `"server": "target"`, docs/targets.md): a push server pushbench did
// not start and does not monitor. In place of the built-in stages (samples, clocks, server monitors, emit
// cycles, messages, trip times against the server's emit cycles), one pass over the engines' stream logs
// (read/target-log.js) measures what the engines published and what their subscribers got
// (measure/target.js, with the target file's extract rules: measure/extract.js); the engines' own monitors
// (stage/monitors.js readLoadGenerator) say whether the load generator kept up; measure/validity.js
// assessTargetValidity judges the run. Returns what analyzeRun returns: { summary, datasets, charts }.
// Every rate is per second of the engines' clocks (one per channel: publisher and subscribers of a channel
// are on one engine, so no clock offset enters a trip time).
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { PARAMETERS } = require('../../lib/run-schema');
const { checkTarget, TargetError, DRAIN_MS } = require('../../lib/target');
const { readTargetArchive } = require('../read/target-log');
const { readTlsHandshakes } = require('../read/tls-handshakes');
const { engineOf } = require('../read/responses');
const { extractor } = require('../measure/extract');
const { TargetEngine, PerSecond, targetFigures, RUN_HISTOGRAM } = require('../measure/target');
const { SignedHistogram } = require('../measure/trip-time');
const { steadyWindow, measureWorkload } = require('../measure/workload');
const { assessTargetValidity, thresholds: validityThresholds } = require('../measure/validity');
const { readLoadGenerator, readSutMonitors } = require('./monitors');
const { processSeries } = require('./series');
const { recordsLost } = require('./validity');
const { buildTargetCharts } = require('../chart/run-charts');
const { targetTitle } = require('../chart/vocabulary');

const MAX_SECONDS = 48 * 3600;
// What a target run has not, by design: no server is monitored and JMeter's results.csv holds no sample of
// it (the engines' stream logs are the record).
const NOT_MONITORED = ['sut/vmstat.log', 'sut/pidstat.log', 'sut/memory.log', 'sut/meminfo.txt', 'jmeter/results.csv'];

// The target as the run used it: run.json's record (name, transport, channels, rate, drainMs) over the
// copied file's keys (checked and normalized by lib/target.js), and the file's extract rules, compiled here
// (measure/extract.js). Returns { target, rules, timedBy, problems }.
function readTarget(runDir, run) {
  const record = run.target && typeof run.target === 'object' ? run.target : {};
  const file = path.join(runDir, typeof record.file === 'string' && !record.file.includes('/') ? record.file : 'target.json');
  const problems = [];
  let json = {};
  let text = null;
  try {
    text = fs.readFileSync(file, 'utf8');
    json = JSON.parse(text);
  } catch (err) {
    problems.push(`${path.basename(file)}: ${err.code === 'ENOENT' ? 'missing' : `unreadable (${err.message})`}: no message can be matched to its publish`);
  }
  if (text !== null && typeof record.sha256 === 'string' && crypto.createHash('sha256').update(text).digest('hex') !== record.sha256) {
    problems.push(`${path.basename(file)} is not the file the run used (its sha256 differs from run.json's)`);
  }
  // the file as lib/target.js reads it (its checks, its defaults); a file it refuses is named and read as it is
  if (text !== null) {
    try {
      json = checkTarget(json, path.basename(file));
    } catch (err) {
      if (!(err instanceof TargetError)) throw err;
      problems.push(`${err.message} (read as it is)`);
    }
  }
  const pick = (k, fallback) => (record[k] !== undefined && record[k] !== null ? record[k] : json?.[k] !== undefined ? json[k] : fallback);
  const target = { name: pick('name', null), transport: pick('transport', run.type ?? null), channels: Number(pick('channels', 1)),
    rate: Number(pick('rate', 1)), drainMs: Number(pick('drainMs', DRAIN_MS)), tls: tlsOf(json) };
  let rules = null;
  try {
    rules = extractor({ seq: json?.extract?.seq, sentUs: json?.extract?.sentUs ?? null });
  } catch (err) {
    if (text !== null) problems.push(`${path.basename(file)} extract: ${err.message}: no message can be matched`);
  }
  return { target, rules, timedBy: json?.extract?.sentUs ? 'sentUs rule' : 'publish', problems };
}

// How the run spoke TLS (docs/targets.md "TLS"): { subscribe, publish (each over TLS or not), insecure, serverName,
// ca (the file's name as given) }, or null when no URL of the file is https:// or wss://. (analyzeTargetRun adds
// the subscribers' handshakes.)
function tlsOf(json) {
  const secure = (u) => /^(https|wss):\/\//i.test(String(u ?? ''));
  const subscribe = secure(json?.subscribe?.url);
  const publish = secure(json?.publish?.url);
  if (!subscribe && !publish) return null;
  const t = json?.tls && typeof json.tls === 'object' ? json.tls : {};
  return { subscribe, publish, insecure: t.insecure === true, serverName: typeof t.serverName === 'string' ? t.serverName : null,
    ca: typeof t.ca === 'string' ? t.ca : null };
}

// The engine figures validity judges (measure/workload.js measureWorkload's engines and hosts), over the
// window, without a server: the engines' hosts, CPU, GC pauses and the controller's CPU.
function loadGeneratorWorkload(run, window, loadGenerator, t) {
  const m = measureWorkload({ run: { ...run, event: null, hosts: { ...(run.hosts ?? {}), sut: null } }, window, series: {}, cycles: [],
    client: null, engines: loadGenerator.engines, sutCores: null, errors: null, thresholds: t, controllerCpu: loadGenerator.controllerCpu });
  return { window: m.window, engines: m.engines, hosts: m.hosts.filter((h) => !h.roles.includes('sut')), controller: m.controller };
}

// The summary's flags, as the built-in path's (stage/summary.js) for what a target run has.
function flagsOf(run, missing, stats, problems) {
  const names = (pick) => stats.filter(pick).map((a) => path.basename(a.file));
  const sum = (k) => stats.reduce((n, a) => n + (a[k] ?? 0), 0);
  const all = [...problems];
  for (const a of stats) if (a.problem) all.push(`${path.basename(a.file)}: ${a.problem}`);
  for (const a of stats) for (const p of a.streamLogProblems ?? []) all.push(`${path.basename(a.file)}: stream log ${p}`);
  const linesSkipped = { responseLines: sum('badLines'), halfWrittenLines: sum('halfLines') };
  return { serverCrashed: false, status: run.status, incomplete: run.status !== 'complete',
    missingInputs: missing.filter((m) => !NOT_MONITORED.includes(m)), archivesUnreadable: names((a) => a.unreadable),
    archivesTruncated: names((a) => a.truncated), truncatedEntries: sum('truncatedEntries'), damagedStreamLogs: sum('damagedStreamLogs'),
    unendedSamples: sum('unendedSamples'), filesSkipped: 0, linesSkipped: linesSkipped.responseLines + linesSkipped.halfWrittenLines,
    linesSkippedBy: linesSkipped, problems: all };
}

// The target's server when hosts.conf named its process (docs/targets.md "Monitoring the target"; sut/
// pidstat.log of it and its children, on its host's clock, taken as the engines'): over the steady window its
// %CPU (of one core) and the seconds it was saturated (at least PROCESS_SATURATED_SHARE of the cores it may
// use), its largest RSS, and its CPU per message received (µs). null when it was not monitored.
async function targetServer({ run, inputs, present, t0, seconds, window, received, t }) {
  if (!run.target?.monitored || !inputs) return null;
  const sut = await readSutMonitors(inputs, present);
  const monitor = run.target.monitor ?? null;
  if (!sut.pidstat.samples.length) return { monitor, problem: 'sut/pidstat.log holds no sample of the target\'s server' };
  const { cpu, rssMB, notes } = processSeries(sut.pidstat, { t0, offset: 0 }, seconds);
  const inWindow = (values) => values.slice(window.fromSecond, window.toSecond).filter((v) => v !== null && v !== undefined);
  const cpus = inWindow(cpu);
  const rss = inWindow(rssMB);
  const messages = inWindow(received);
  const mean = (v) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : null);
  const cpuMean = mean(cpus);
  const perSecond = mean(messages);
  const cores = sut.serverCores ?? null;
  const limit = cores ? t.PROCESS_SATURATED_SHARE * cores * 100 : null;
  const r1 = (v) => (v === null ? null : Math.round(v * 10) / 10);
  return { monitor, cpuMeanPercent: r1(cpuMean), cores, seconds: cpus.length,
    saturatedSeconds: limit === null ? null : cpus.filter((v) => v >= limit).length,
    rssPeakMB: rss.length ? r1(Math.max(...rss)) : null,
    microsPerMessage: cpuMean !== null && perSecond ? r1((cpuMean / 100) * 1e6 / perSecond) : null, cpu, rssMB, notes };
}

// runDir, run (read/run-inputs.js readRun's), archives (the engines' archive files), missing, inputs and
// present (findInputs'), runProblem (run.json's, or null).
async function analyzeTargetRun({ runDir, run, archives, missing, runProblem, inputs = null, present = () => false }) {
  const { target, rules, timedBy, problems } = readTarget(runDir, run);
  const notes = [];
  let t0 = Number.isFinite(run.startedAt) ? run.startedAt : null;
  if (t0 === null) notes.push('run.json has no startedAt: the run start is the first second a stream log shows');
  const perSecond = new PerSecond(t0);
  const trips = new SignedHistogram(RUN_HISTOGRAM);
  const windowUs = Number.isFinite(run.durationS) ? run.durationS * 1e6 - target.drainMs * 1e3 : null;
  const none = { seq: null, sentUs: null };
  const engines = [];
  const stats = [];
  const seen = new Set();
  let firstUs = null;
  for (const file of archives) {
    const name = engineOf(file);
    if (seen.has(name)) { problems.push(`${path.basename(file)}: engine '${name}' has another archive: this one is not read`); continue; }
    seen.add(name);
    const engine = new TargetEngine({ name, channels: target.channels, transport: target.transport, extract: rules ?? (() => none),
      timedBy, perSecond, trips, publishWindowUs: windowUs });
    const visitor = {
      subscriptionBegan(key, n, us) {
        if (firstUs === null || us < firstUs) firstUs = us;
        if (perSecond.t0Ms === null) perSecond.t0Ms = Math.floor(us / 1000);
        engine.subscriptionBegan(key, n, us);
      },
      message: (key, us, text) => engine.message(key, us, text),
      subscriptionEnded: (key, e) => engine.subscriptionEnded(key, e),
      publishEnded: (p) => engine.publishEnded(p),
    };
    stats.push(await readTargetArchive(file, visitor, { engine: name }));
    engines.push(engine);
  }
  t0 = perSecond.t0Ms;
  const lastUs = Math.max(...stats.map((s) => s.lastUs ?? -Infinity));
  const fromRun = Number.isFinite(run.finishedAt) && t0 !== null ? Math.ceil((run.finishedAt - t0) / 1000) : 0;
  const fromLogs = Number.isFinite(lastUs) && t0 !== null ? Math.ceil((lastUs / 1000 - t0) / 1000) : 0;
  const seconds = Math.min(MAX_SECONDS, Math.max(1, fromRun, fromLogs));
  const results = engines.map((e) => e.result());
  const engineCount = Math.max(engines.length, (run.hosts?.engines ?? []).length);
  const { target: figures, series } = targetFigures({ target, results, engineCount, trips, perSecond, seconds, timedBy });
  // the subscribers' handshakes, from the engines' summary samples (read/tls-handshakes.js)
  if (figures.tls) figures.tls = { ...figures.tls, handshakes: figures.tls.subscribe ? await readTlsHandshakes(path.join(runDir, 'jmeter', 'results.csv')) : null };
  const loadStartSecond = firstUs === null || t0 === null ? 0 : Math.max(0, Math.floor((firstUs / 1000 - t0) / 1000));
  // the publishers stop drainMs before the load's end (docs/targets.md): the steady window ends with them
  const publishing = Number.isFinite(run.durationS) && Number.isFinite(target.drainMs) ? run.durationS - Math.ceil(target.drainMs / 1000) : run.durationS;
  const window = steadyWindow({ ...run, durationS: publishing }, loadStartSecond, seconds, { end: 'the publishers\' end' });
  const loadGenerator = await readLoadGenerator(runDir, run, t0 ?? 0, seconds);
  const { thresholds, problems: thresholdProblems } = validityThresholds();
  const workload = loadGeneratorWorkload(run, window, loadGenerator, thresholds);
  const lost = recordsLost(run, stats, null);
  const monitored = await targetServer({ run, inputs, present, t0: t0 ?? 0, seconds, window, received: series.received, t: thresholds });
  const { cpu: serverCpu = null, rssMB: serverRssMB = null, notes: serverNotes = [], ...server } = monitored ?? {};
  if (monitored) figures.server = server;
  const validity = assessTargetValidity(figures, workload, { thresholds, lost,
    known: [...(rules ? [] : ['the target file\'s extract rules: no message could be matched to its publish']),
      ...(perSecond.outside ? [`${perSecond.outside} stamps lay outside the run's seconds`] : [])] });
  const summary = {
    id: run.id ?? path.basename(path.resolve(runDir)),
    title: targetTitle(run, target),
    parameters: Object.fromEntries(PARAMETERS.map((p) => [p.name, run[p.name] ?? null])),
    status: run.status,
    serverCrashed: false,
    serverMonitored: monitored !== null && !monitored.problem,
    startedAt: t0,
    durationSeconds: seconds,
    loadStartSecond,
    steadyWindow: { fromSecond: window.fromSecond, toSecond: window.toSecond, seconds: window.seconds, basis: window.basis },
    target: figures,
    validity,
    workload,
    flags: flagsOf(run, missing, stats, [runProblem, ...problems].filter(Boolean)),
    archives: stats.map((a) => ({ name: path.basename(a.file), entries: a.entries, streamLogs: a.streamLogs, subscriptions: a.subscriptions,
      publishes: a.publishes, otherSamples: a.otherSamples, truncated: a.truncated, unreadable: a.unreadable, problem: a.problem })),
    runNotes: run.notes ?? [],
    notes: [...notes, ...thresholdProblems, ...serverNotes],
  };
  const datasets = { target: true, series: monitored && serverCpu ? { ...series, serverCpu, serverRssMB } : series,
    engines: loadGenerator.engines.map((e) => ({ name: e.name, cores: e.cores, hostCpu: e.hostCpu, steal: e.steal, jvmCpu: e.jvmCpu,
      jvmRssMB: e.jvmRssMB, gcPauseMs: e.gcPauseMs })) };
  const { charts, skipped } = buildTargetCharts(datasets, summary.title);
  summary.charts = { written: Object.keys(charts), skipped };
  return { summary, datasets, charts };
}

// Whether run.json describes a target run.
const isTargetRun = (run) => run.server === 'target' || (run.target !== null && typeof run.target === 'object');

module.exports = { analyzeTargetRun, isTargetRun, readTarget };
