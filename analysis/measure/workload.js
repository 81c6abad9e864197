'use strict';
// The workload model of one run: what its parameters ask of the server, and what the run achieved over
// its steady window — the figures analysis/measure/validity.js judges (docs/validity.md defines each).
//
// Steady window: from the end of the ramp-up (load start + rampup) to the end of the load (load start +
// duration), in elapsed seconds of the run; when that leaves fewer than MIN_WINDOW_SECONDS, the whole
// load. Every rate in the summary is counted over it.
//
// Asked of the server (connections: the run's connections parameter, one client each):
//   connections held   connections (not for pull: a pull is answered at once, nothing is held)
//   answers            comet or long poll with events: connections x emit cycles in the window
//                      (connections x the cycles one per interval gives, or the cycles seen when more: a
//                      stall of the server's emit loop or records lost show as answers short)
//                      long poll without events: the polls due to end in the window, each client asking
//                      again at once after every answer (its first request + k x max-duration; without
//                      results.csv: connections x window seconds / max-duration seconds)
//                      comet without events: none (only connections are held)
//                      pull: the pulls due in the window, each client asking every pull-interval from its
//                      first request (achieved: the requests that followed an answer in the window)
// Achieved: connections the server held (its own count, per second: time-weighted mean and minimum),
// answers (event records of the window's cycles; timeouts sent in the window when there are no events).

const { percentile } = require('./trip-time');   // nearest rank
const { r3 } = require('./per-second');

const MIN_WINDOW_SECONDS = 5;

// end: what the window's end is, for its basis (a target run's is its publishers' end).
function steadyWindow(run, loadStartSecond, seconds, { end: endName = 'the end of the load' } = {}) {
  const rampup = Number.isFinite(run.rampupS) ? run.rampupS : 0;
  const end = Number.isFinite(run.durationS) ? Math.min(seconds, loadStartSecond + run.durationS) : seconds;
  let from = Math.min(loadStartSecond + rampup, end);
  let basis = `after the ramp-up, to ${endName}`;
  if (end - from < MIN_WINDOW_SECONDS) {
    from = loadStartSecond;
    basis = `the whole load (fewer than ${MIN_WINDOW_SECONDS} s after the ramp-up)`;
  }
  return { fromSecond: from, toSecond: end, seconds: Math.max(0, end - from), basis };
}

const startedIn = (cycle, w) => cycle.createdSecond >= w.fromSecond && cycle.createdSecond < w.toSecond;
const slice = (values, w) => (values ?? []).slice(w.fromSecond, w.toSecond).filter((v) => v !== null && v !== undefined);
const mean = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : null);
const r1 = (v) => (v === null || !Number.isFinite(v) ? null : Math.round(v * 10) / 10);

// What one process can use, in pidstat's %CPU (100 = one core): Node.js answers on one event loop, the
// Tomcats and node-cluster on every core.
function serverCapacityPercent(server, cores) {
  if (server === 'node') return 100;
  return Number.isFinite(cores) && cores > 0 ? cores * 100 : null;
}

// The emit cycles the run's parameters ask in the window (null without events): those one per interval from
// the emitter's first cycle start in it. The first cycle: where the records place it (cycle n started n - 1
// intervals after it; the earliest such start over the cycles seen, so that a stall later does not move
// it), else one interval after the load's start (the plan sets the event as the load starts).
function cyclesAsked(run, w, cycles, loadStartSecond) {
  if (!run.event || !(run.emitIntervalMs > 0)) return null;
  const step = run.emitIntervalMs / 1000;
  const implied = cycles.filter((c) => Number.isFinite(c.cycle) && Number.isFinite(c.createdSecond))
    .map((c) => c.createdSecond - (c.cycle - 1) * step);
  const first = implied.length ? Math.min(...implied) : (loadStartSecond ?? w.fromSecond) + step;
  const before = (t) => Math.max(0, Math.ceil((t - first) / step - 1e-9));   // cycles started before second t
  return before(w.toSecond) - before(w.fromSecond);
}

// The emit cycles the server numbered in the window: per event, from the first cycle number seen in it to
// the last (a cycle between them that no record shows was emitted, its records lost).
function cyclesNumbered(inWindow) {
  const byEvent = new Map();
  for (const c of inWindow) {
    if (!Number.isFinite(c.cycle)) continue;
    const r = byEvent.get(c.event) ?? { lo: c.cycle, hi: c.cycle };
    byEvent.set(c.event, { lo: Math.min(r.lo, c.cycle), hi: Math.max(r.hi, c.cycle) });
  }
  return byEvent.size ? [...byEvent.values()].reduce((n, r) => n + r.hi - r.lo + 1, 0) : null;
}

// Answers asked and achieved (see the header). cycles: the run's emit cycles ({ createdSecond, requests }).
// inWindow: the cycles started in the window; asked: cyclesAsked's.
function answers(run, w, inWindow, asked, series, client) {
  const { connections } = run;
  if (!Number.isFinite(connections) || w.seconds <= 0) return null;
  if (run.type === 'pull') {
    if (!(run.pullIntervalMs > 0) || !client) return null;
    const expected = client.pollsDue;
    return { basis: `pulls due in the window, one per pull-interval (${run.pullIntervalMs / 1000} s) a thread`, cycles: null,
      expected, achieved: client.gaps.count, share: expected ? r3(client.gaps.count / expected) : null };
  }
  if (run.event) {
    const counted = Math.max(inWindow.length, asked ?? 0);
    const expected = connections * counted;
    const achieved = inWindow.reduce((n, c) => n + c.requests, 0);
    return { basis: `connections x emit cycles the interval asks in the window (${counted}${inWindow.length < counted ? `; ${inWindow.length} seen` : ''})`,
      cycles: counted, expected, achieved, share: expected ? r3(achieved / expected) : null };
  }
  if (run.type === 'poll' && run.maxDurationMs > 0) {
    const due = client?.pollsDue ?? null;
    const expected = due ?? connections * w.seconds / (run.maxDurationMs / 1000);
    const achieved = slice(series.timeouts, w).reduce((a, b) => a + b, 0);
    return { basis: due !== null ? `polls due to end in the window, one per max-duration (${run.maxDurationMs / 1000} s) a thread`
      : `connections x window seconds / max-duration (${run.maxDurationMs / 1000} s)`, cycles: null,
    expected: r1(expected), achieved, share: expected ? r3(achieved / expected) : null,
    judged: due !== null || w.seconds >= 2 * run.maxDurationMs / 1000 };
  }
  return null;
}

// Per host (SUT and engines; engines on the SUT's address share its monitors): CPU used and steal over
// the window, and the CPU of processes that are neither the server nor the load generator (its engines,
// and its controller on the host run.sh ran on: access 'local'). Returns [{ name, roles, cores, cpu:
// {mean, saturatedSeconds}, steal: {mean, highSeconds}, otherCpuMean }].
function hostLoads(run, w, series, sutCores, engines, t, controllerCpu) {
  const sutAddress = run.hosts?.sut?.address ?? null;
  const hosts = [{ name: run.hosts?.sut?.name ?? 'sut', address: sutAddress, roles: ['sut'], cores: sutCores,
    cpu: series.cpu, steal: series.steal ?? [], processes: [series.processCpu] }];
  for (const e of engines) {
    const shared = e.address !== null && e.address === sutAddress;
    if (shared) {
      hosts[0].roles.push(`engine ${e.name}`);
      hosts[0].processes.push(e.jvmCpu);
      continue;
    }
    hosts.push({ name: e.name, address: e.address, roles: [`engine ${e.name}`], cores: e.cores, cpu: e.hostCpu, steal: e.steal,
      processes: [e.jvmCpu] });
  }
  const local = hosts.find((h) => h.name === run.hosts?.sut?.name && run.hosts?.sut?.access === 'local')
    ?? hosts.find((h) => (run.hosts?.engines ?? []).some((e) => `engine ${e.name}` === h.roles[0] && e.access === 'local'));
  if (local && controllerCpu) {
    local.roles.push('controller');
    local.processes.push(controllerCpu);
  }
  return hosts.map((h) => {
    const cpu = slice(h.cpu, w);
    const steal = slice(h.steal, w);
    const other = [];
    for (let s = w.fromSecond; s < w.toSecond; s++) {
      const busy = h.cpu?.[s];
      const own = h.processes.map((p) => p?.[s]);
      if (busy === null || busy === undefined || !h.cores || own.some((v) => v === null || v === undefined)) continue;
      other.push(Math.max(0, busy - own.reduce((a, b) => a + b, 0) / h.cores));
    }
    return { name: h.name, roles: h.roles, cores: h.cores,
      cpu: { mean: r1(mean(cpu)), seconds: cpu.length, saturatedSeconds: cpu.filter((v) => v >= t.SATURATED_CPU_PERCENT).length },
      steal: { mean: r1(mean(steal)), seconds: steal.length, highSeconds: steal.filter((v) => v >= t.STEAL_SECOND_PERCENT).length },
      otherCpuMean: r1(mean(other)) };
  });
}

// The share of their streams the clients drop each second by design (PB_CHURN_PERCENT, docs/engine.md
// "Churn": SSE and WebSocket only), from the settings run.json's provenance records; 0 without.
const churnPercentOf = (run) => Number(run.provenance?.settings?.PB_CHURN_PERCENT ?? 0) || 0;

// Connections opened, from the engines' connect completions (the mux engine's C lines, one per connection at its
// first connect; client-threads.js connects): connectionsOpened, lastConnectedSecond (the last one's completion,
// seconds after the load began: the first request's B line) and openedPerSecond = connectionsOpened /
// lastConnectedSecond; none of the three when the logs have no C line (results.csv, the push sampler, older runs).
function opened(connects) {
  if (!connects || !(connects.count > 0) || connects.lastSecond === null) return {};
  const perSecond = connects.lastSecond > 0 ? Math.round(connects.count / connects.lastSecond) : null;
  return { connectionsOpened: connects.count, lastConnectedSecond: connects.lastSecond, openedPerSecond: perSecond };
}

// Everything validity.js judges, as numbers. inputs: { run, window, series, cycles, client, engines,
// sutCores, serverCores (the cores the server may use; default sutCores), errors: { failed (errors), failures
// (every failed sample: errors and timeout failures), samples, kinds: [{ kind, count }] },
// thresholds, controllerCpu (per second, or null), loadStartSecond (the load's start on the run's axis, or null),
// messages (the held streams' messages: heldMessages, or null) }.
function measureWorkload({ run, window: w, series, cycles, client, engines, sutCores, serverCores = sutCores, errors, thresholds: t, controllerCpu = null,
  loadStartSecond = null, messages = null }) {
  const connections = run.type === 'pull' ? [] : slice(series.connections, w);
  const capacity = serverCapacityPercent(run.server, serverCores);
  const serverCpu = slice(series.processCpu, w);
  const inWindow = cycles.filter((c) => startedIn(c, w));   // cycles are in time order
  const byTime = inWindow.filter((c) => c.duration !== null);
  const durations = byTime.map((c) => c.duration).sort((a, b) => a - b);
  const third = Math.floor(byTime.length / 3);
  const asked = cyclesAsked(run, w, cycles, loadStartSecond);
  const a = answers(run, w, inWindow, asked, series, client);
  return {
    window: { fromSecond: w.fromSecond, toSecond: w.toSecond, seconds: w.seconds, basis: w.basis },
    churnPercent: churnPercentOf(run),
    connections: { asked: run.connections, expected: run.type === 'pull' ? 0 : run.connections, mean: r1(mean(connections)), min: connections.length ? Math.min(...connections) : null,
      max: connections.length ? Math.max(...connections) : null,
      share: run.connections && connections.length ? r3(mean(connections) / run.connections) : null },
    answers: a && { ...a, expectedPerSecond: r1(a.expected / w.seconds), achievedPerSecond: r1(a.achieved / w.seconds) },
    rampup: { askedSeconds: run.rampupS ?? null, lastThreadStartSecond: client?.lastStartSecond ?? null, threadsSeen: client?.threads ?? null,
      ...opened(client?.connects) },
    gaps: run.type === 'poll' && client ? { ...client.gaps, againstMs: run.event ? run.emitIntervalMs : run.maxDurationMs,
      against: run.event ? 'emit interval' : 'max-duration' } : null,
    missedCycles: run.type === 'poll' && run.event && client && a
      ? { count: client.missedCycles, share: a.expected ? r3(client.missedCycles / a.expected) : null } : null,
    emit: run.event ? { emitIntervalMs: run.emitIntervalMs, cycles: byTime.length, cyclesExpected: asked,
      cyclesSeen: inWindow.length, cyclesNumbered: cyclesNumbered(inWindow),
      durationP90Ms: percentile(durations, 90),
      firstThirdMeanMs: third ? r1(mean(byTime.slice(0, third).map((c) => c.duration))) : null,
      lastThirdMeanMs: third ? r1(mean(byTime.slice(-third).map((c) => c.duration))) : null } : null,
    server: { capacityPercent: capacity, cpuMean: r1(mean(serverCpu)), seconds: serverCpu.length,
      saturatedSeconds: capacity ? serverCpu.filter((v) => v >= capacity * t.PROCESS_SATURATED_SHARE).length : null },
    engines: engines.map((e) => {
      const cpu = slice(e.jvmCpu, w);
      const cpus = e.cpusAllowed ?? e.cores;   // a pinned JVM can use only its CPUs
      const cap = cpus ? cpus * 100 : null;
      const gc = e.gcPauseMs ? slice(e.gcPauseMs, w) : null;
      return { name: e.name, cores: e.cores, cpus, jvmCpuMean: r1(mean(cpu)), seconds: cpu.length,
        jvmSaturatedSeconds: cap ? cpu.filter((v) => v >= cap * t.PROCESS_SATURATED_SHARE).length : null,
        gcPauseShare: gc && gc.length ? r3(gc.reduce((x, y) => x + y, 0) / (gc.length * 1000)) : null,
        unknown: e.unknown };
    }),
    hosts: hostLoads(run, w, series, sutCores, engines, t, controllerCpu),
    controller: controllerCpu ? { cpuMean: r1(mean(slice(controllerCpu, w))) } : null,
    errors: errors && errors.samples ? { ...errors, share: r3(errors.failed / errors.samples) } : null,   // failed: errors only
    ...(messages ? { messages } : {}),   // only runs of held streams with messages expected
  };
}

// The messages a run of held streams (comet, SSE, WebSocket: lib/test-types.js) expected and missed, from the
// summary's `messages` (measure/messages.js; SSE and WebSocket per client across its reconnections):
// { kind (whose, in words), expected, missed, share (missed / expected, unrounded) }, or null when the run
// has none expected.
const HELD_KINDS = { comet: ['comet', 'the Comet streams'], sse: ['sse', 'the SSE clients'], ws: ['ws', 'the WebSocket clients'] };
function heldMessages(type, messages) {
  const [key, kind] = HELD_KINDS[type] ?? [];
  const m = key ? messages?.[key] : null;
  if (!m || !(m.expected > 0)) return null;
  return { kind, expected: m.expected, missed: m.missed, share: m.missed / m.expected };
}

module.exports = { steadyWindow, measureWorkload, heldMessages, serverCapacityPercent, MIN_WINDOW_SECONDS };
