#!/usr/bin/env node
'use strict';
// node charts/report.js <run-dir>: writes <run-dir>/report/index.html (+ chart.umd.js, ofc-render.js) from
// the run's data/summary.json and charts/*.json, and prints its path (study 3.4.2). It reads what the
// analyzer wrote and analyses a run again only when those outputs are missing or not whole
// (analysis/outputs.js analyzeUnlessWhole: a raw run, or one whose analysis was cut short), so that `node
// charts/report.js <run-dir>` works on a raw run, as charts/README.md promises. A chart that stays
// unreadable (the run cannot be analysed again) is left out and named on the page; an unreadable
// summary.json that cannot be analysed again is a one-line error, exit 1. Each file is written whole
// (lib/atomic-write.js), index.html last.
const fs = require('node:fs');
const path = require('node:path');
const { page, chartCard, table, copyAssets, escapeHtml, fmt } = require('./page');
const { RUN_CHART_IDS, typeName } = require('../analysis/chart/vocabulary');
const { TARGET_CHART_IDS } = require('../analysis/chart/run-charts');
const { analyzeAndWrite } = require('../analysis/run-analysis');
const { isUsableRunDir } = require('../analysis/read/run-inputs');
const { SUMMARY, readWhole, analyzeUnlessWhole } = require('../analysis/outputs');
const { writeFileAtomic } = require('../lib/atomic-write');
const { isHeldStream } = require('../lib/test-types');
const { summaryParameters } = require('../lib/run-schema');

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const td = (v, cls) => `<td${cls ? ` class="${cls}"` : ''}>${v}</td>`;
const row = (label, value) => [td(escapeHtml(label)), td(escapeHtml(fmt(value)), 'num')];

// What a reader must notice first, in words.
function flagList(s) {
  const f = s.flags;
  const items = [];
  if (f.serverCrashed) items.push('The server under test crashed during the run.');
  if (f.incomplete) items.push(`The run is ${f.status ?? 'of unknown status (no run.json)'}${(s.runNotes || []).length ? `: ${s.runNotes.join('; ')}` : '.'}`);
  if (f.missingInputs.length) items.push(`Missing inputs: ${f.missingInputs.join(', ')}.`);
  if (f.archivesUnreadable.length) items.push(`Unreadable response archives (skipped): ${f.archivesUnreadable.join(', ')}.`);
  if (f.archivesTruncated.length) items.push(`Truncated response archives (read up to the break): ${f.archivesTruncated.join(', ')}.`);
  if (f.filesSkipped) items.push(`${f.filesSkipped} archive files with an unknown name were skipped.`);
  if (f.linesSkipped) {
    const by = Object.entries(f.linesSkippedBy).filter(([, n]) => n).map(([k, n]) => `${k} ${n}`).join(', ');
    items.push(`${f.linesSkipped} unreadable lines skipped (${by}).`);
  }
  for (const p of f.problems) items.push(p);
  return items;
}

// The run's validity verdict (analysis/measure/validity.js), first on the page: whether the figures below
// measured the server or the load generator.
const VERDICT_TEXT = {
  valid: 'Valid: the load asked was the load offered, on an undisturbed machine',
  'generator-bound': 'Generator-bound: the load generator, not the server, set these figures',
  'server-limited': 'Server-limited: the server could not keep up (a real result about the server)',
  disturbed: 'Disturbed: steal or other processes took the machine during the run',
  failed: 'Failed: the run measured nothing of the server (most samples failed, no connection, or its records lost); these figures are no result',
};

function verdictBanner(s) {
  const v = s.validity;
  if (!v) return '<div class="verdict verdict-unknown" id="verdict" data-verdict="unknown"><strong>Validity unknown</strong>: analysed before runs were judged; run <code>node analysis/analyze.js</code> on it again.</div>';
  const w = s.steadyWindow;
  const items = [...v.reasons.map((r) => `<li class="why">${escapeHtml(r.text)} <small>(${escapeHtml(r.rule)})</small></li>`),
    ...v.unknowns.map((u) => `<li class="why">Not known: ${escapeHtml(u)}</li>`)];
  const window = w ? ` Steady window: ${fmt(w.fromSecond)}–${fmt(w.toSecond)} s (${fmt(w.seconds)} s, ${escapeHtml(w.basis)}).` : '';
  return `<div class="verdict verdict-${escapeHtml(v.verdict)}" id="verdict" data-verdict="${escapeHtml(v.verdict)}"><strong>${escapeHtml(VERDICT_TEXT[v.verdict] ?? v.verdict)}</strong>`
    + `${v.confidence === 'reduced' ? ' (confidence reduced: some monitors missing)' : ''}.${window}`
    + `${items.length ? `<ul>${items.join('')}</ul>` : ''}</div>`;
}

// The run's thresholds (docs/thresholds.md; data/summary.json thresholds): passed or failed, each with its
// value and limit, styled as the verdict's banner (a failed one as a failed verdict); none without them.
function thresholdsBanner(s) {
  const t = s.thresholds;
  if (!t?.results?.length) return '';
  const state = t.failed ? 'failed' : 'valid';
  const rows = t.results.map((r) => `<li class="why"><strong>${r.pass ? 'pass' : 'FAIL'}</strong> <code>${escapeHtml(r.text)}</code>: ${escapeHtml(r.why)}</li>`);
  return `<div class="verdict verdict-${state}" id="thresholds" data-failed="${t.failed}"><strong>Thresholds: `
    + `${t.failed ? `${t.failed} of ${t.results.length} failed` : `all ${t.results.length} passed`}</strong> (junit.xml beside the run)<ul>${rows.join('')}</ul></div>`;
}

// What the run asked of the server against what it achieved over the steady window (analysis/measure/workload.js).
function workloadCard(s) {
  const m = s.workload;
  if (!m) return '';
  const a = m.answers;
  const rows = [
    row('Steady window (s)', `${fmt(m.window.fromSecond)}–${fmt(m.window.toSecond)} (${fmt(m.window.seconds)} s)`),
    row('Connections held: mean / min / expected', `${fmt(m.connections.mean)} / ${fmt(m.connections.min)} / ${fmt(m.connections.expected)}`),
    row('Answers asked per second', a ? a.expectedPerSecond : null), row('Answers achieved per second', a ? a.achievedPerSecond : null),
    row('Answers achieved / asked (%)', a && a.share !== null ? Math.round(a.share * 1000) / 10 : null),
    row('Last thread started (s after load start) / ramp-up (s)', `${fmt(m.rampup.lastThreadStartSecond)} / ${fmt(m.rampup.askedSeconds)}`),
    row('Re-poll gap p50 / p90 / p99 (ms)', m.gaps ? `${fmt(m.gaps.p50Ms)} / ${fmt(m.gaps.p90Ms)} / ${fmt(m.gaps.p99Ms)}` : null),
    row('Emit cycles missed between polls', m.missedCycles ? m.missedCycles.count : null),
    row('Server process CPU mean (%, 100 = one core)', m.server.cpuMean),
    ...m.engines.map((e) => row(`Engine ${e.name}: JVM CPU mean (%) / GC pause (% of time)`,
      `${fmt(e.jvmCpuMean)} / ${e.gcPauseShare === null ? '?' : fmt(Math.round(e.gcPauseShare * 1000) / 10)}`)),
    ...m.hosts.map((h) => row(`Host ${h.name} (${h.roles.join(', ')}): CPU / steal / other (%)`,
      `${fmt(h.cpu.mean)} / ${fmt(h.steal.mean)} / ${fmt(h.otherCpuMean)}`)),
  ];
  return `<div class="card"><h3>Workload: asked and achieved</h3>${table(rows)}</div>`;
}

// Reference 003's capacity criterion (analysis/measure/answer-criterion.js) and, for a capacity run
// (bench/capacity.js, docs/capacity.md), where the server failed and why (<run>/capacity.json).
function capacityCard(s, runDir) {
  const c = s.capacityCriterion;
  let cap = null;
  try { cap = readJson(path.join(runDir, 'capacity.json')); } catch { /* not a capacity run */ }
  if (!c && !cap) return '';
  const pct = (share) => (share === null || share === undefined ? null : Math.round(share * 1000) / 10);
  const rows = c ? [
    row(`Answers within ${fmt(c.withinSeconds)} s (%) – ${c.basis}`, pct(c.share)),
    row('Answers / errors (%)', `${fmt(c.answers)} / ${fmt(pct(c.errorShare))}`),
    row('Reference 003\'s criterion met (95% within T, errors <= 5%)', c.met === null ? null : c.met ? 'yes' : 'no'),
  ] : [];
  if (cap) {
    rows.push(row('Capacity run: cause of failure', cap.cause),
      row('Connections held at failure: server /status / analyzer', `${fmt(cap.held?.status)} / ${fmt(cap.held?.analyzer)}`),
      row('Connection rate achieved / asked (per s)', `${fmt(cap.rateAchievedPerSecond)} / ${fmt(cap.rateAsked)}`),
      row('Seconds into the load at failure', cap.secondsToFailure), row('What showed it', cap.detail));
  }
  return `<div class="card" id="capacity"><h3>Capacity (references 003, 004)</h3>${table(rows)}</div>`;
}

function parametersCard(s) {
  const p = summaryParameters(s.parameters);   // old summaries too (lib/run-schema.js)
  const engines = (p.hosts?.engines ?? []).map((e) => `${e.name} (${e.address}${e.connections !== undefined ? `, ${e.connections} connections` : ''})`).join(', ');
  const rows = [
    row('Server', p.server), row('Type', p.type), row('Connections (JMeter threads)', p.connections), row('Ramp-up (s)', p.rampupS),
    row('Duration (s)', p.durationS), row('Event', p.event ?? 'none'), row('Emit interval (ms)', p.emitIntervalMs),
    row('Poll duration (ms)', p.maxDurationMs), ...(p.type === 'pull' ? [row('Pull interval (ms)', p.pullIntervalMs)] : []), row('SUT host', p.hosts?.sut ? `${p.hosts.sut.name} (${p.hosts.sut.address}${p.hosts.sut.bind && p.hosts.sut.bind !== p.hosts.sut.address ? `; its server listens on ${p.hosts.sut.bind}` : ''})` : null),
    row('Engines', engines || null), row('Started', s.startedAt ? new Date(s.startedAt).toISOString() : null),
    [td('Status'), td(escapeHtml(fmt(s.status)), s.flags.incomplete || s.flags.serverCrashed ? 'num bad' : 'num ok')],
    row('Server crashed', s.serverCrashed === null || s.serverCrashed === undefined ? null : s.serverCrashed ? 'yes' : 'no'),
    ...(s.tls ? [builtInTlsRow(s.tls)] : []),
  ];
  return `<div class="card"><h3>Parameters</h3>${table(rows)}</div>`;
}

// A built-in run over TLS (run.sh --tls, summary.json tls): the front, what the server's figures exclude,
// and the engines' handshakes.
function builtInTlsRow(tls) {
  const h = tls.handshakes;
  const shakes = h ? `; ${fmt(h.count)} handshakes (${fmt(h.resumed)} resumed), mean ${fmt(h.meanUs / 1000)} ms, max ${fmt(h.maxUs / 1000)} ms` : '';
  return row('TLS', `the server sat behind a TLS front (${tls.front} on port ${tls.port}, a CA made for the run, names checked): `
    + `its CPU excludes ${tls.front}'s, the trip time includes the front's hop${shakes}`);
}

// What produced the run (run.json's provenance, lib/provenance.js): commit, versions, hosts, settings.
function provenanceCard(runDir) {
  let p = null;
  try { p = readJson(path.join(runDir, 'run.json')).provenance ?? null; } catch { /* no run.json */ }
  if (!p) return '<div class="card"><h3>Provenance</h3><p class="none">Not recorded (run.json has no provenance).</p></div>';
  const v = p.versions ?? {};
  const settings = Object.entries(p.settings ?? {});
  const rows = [
    row('pushbench commit', p.pushbench?.commit ? `${p.pushbench.commit.slice(0, 12)}${p.pushbench.dirty ? ' (dirty tree)' : ''}` : null),
    row('JMeter / Node.js / JDK', `${v.jmeter ?? '?'} / ${v.node ?? '?'} / ${v.jdk ?? '?'}`),
    row('Tomcat 6 / Tomcat 7', `${v.tomcat6 ?? '?'} / ${v.tomcat7 ?? '?'}`), row('Kernel', v.kernel),
    ...(p.hosts ?? []).map((h) => row(`Host ${h.name} (${h.role})`, `${h.cores ?? '?'} cores, ${fmt(h.memoryMB)} MB, ${h.cpuModel ?? '?'}`)),
    row('Settings changed', settings.length ? settings.map(([k, val]) => `${k}=${val}`).join(', ') : 'none (all defaults)'),
  ];
  return `<div class="card provenance"><h3>Provenance</h3>${table(rows)}</div>`;
}

// Every rate counts over the steady window; its label says which.
const windowLabel = (s) => (s.steadyWindow ? ` (steady window, ${fmt(s.steadyWindow.seconds)} s)` : '');

function totalsCard(s) {
  const t = s.totals;
  const rows = [
    row('Responses sent (records)', t.responsesSent), row(`Responses per second${windowLabel(s)}`, s.responsesPerSecond),
    row('Event records', t.events), row('Timeout records', t.timeouts), row('Clear records', t.clears),
    row('Error bodies', t.errorBodies),
    row(t.answersFrom ? 'Samples (answers from the stream logs)' : 'JMeter samples', t.samples), row('Failed samples', t.failedSamples),
    row('Errors (failed, not timeout)', t.errors), row('Peak connections', s.peakConnections),
    row('Emit cycles', t.emitCycles), row('Peak emit duration (ms)', s.peakEmitDuration),
    row('Duration analysed (s)', s.durationSeconds),
  ];
  return `<div class="card"><h3>Totals</h3>${table(rows)}</div>`;
}

function resourcesCard(s) {
  const m = s.messages;
  const rows = [
    row('Peak CPU (%)', s.peakCpu), row('Mean CPU (%)', s.meanCpu), row('Peak memory (%)', s.peakMemory),
    row('SUT MemTotal (MB)', s.memTotalMB), row('Peak server RSS (MB)', s.peakProcessRssMB),
    row('Clock offset server \u2212 client (ms)', s.clockOffset.ms), row('Offset error bound (\u00b1 ms)', s.clockOffset.errorBoundMs),
    row('Comet: received / unique', m.comet.streams ? `${fmt(m.comet.received)} / ${fmt(m.comet.unique)}` : null),
    row('Comet: expected / missed', m.comet.streams ? `${fmt(m.comet.expected)} / ${fmt(m.comet.missed)}` : null),
    row('Comet: received message %', m.comet.receivedPercent),
    row('Poll: received / unique', m.poll.responses ? `${fmt(m.poll.received)} / ${fmt(m.poll.unique)}` : null),
    ...resumedRows('SSE', m.sse),
    ...resumedRows('WebSocket', m.ws),
    ...tripRows(s.tripTime, s),
    ...tailRows(s.tail, heldName(s)),
  ];
  return `<div class="card"><h3>Resources and messages</h3>${table(rows)}</div>`;
}

// CHIRON's messages of an SSE or WebSocket run (name: the transport's), per client across its
// reconnections (analysis/measure/messages.js).
function resumedRows(name, m) {
  if (!m?.clients) return [];
  return [row(`${name}: received / unique`, `${fmt(m.received)} / ${fmt(m.unique)}`),
    row(`${name}: expected / missed`, `${fmt(m.expected)} / ${fmt(m.missed)}`), row(`${name}: received message %`, m.receivedPercent),
    row(`${name}: clients / streams / replayed / skipped by gaps`, [m.clients, m.streams, m.replays, m.gapSkipped].map(fmt).join(' / '))];
}

// The name of a run's held streams, whose records the trip time `comet` holds: Comet, SSE or WebSocket.
const heldName = (s) => typeName(isHeldStream(s.parameters?.type) ? s.parameters.type : 'comet');

// Network cost per delivered message over the steady window (analysis/measure/network.js), and for a pull run
// CHIRON's messages and the trip time of pulled messages (what the pull interval costs in latency).
function networkCard(s) {
  const n = s.network;
  const p = s.messages?.pull;
  const rows = [];
  if (p) {
    const t = s.tripTime;
    rows.push(row('Pull: answers / empty', `${fmt(p.responses)} / ${fmt(p.empty)}`),
      row('Pull: received / unique / duplicates', `${fmt(p.received)} / ${fmt(p.unique)} / ${fmt(p.duplicates)}`),
      row('Pull: expected / missed', `${fmt(p.expected)} / ${fmt(p.missed)}`), row('Pull: received message %', p.receivedPercent),
      row('Pull trip time p50 / p90 / p99 / max (ms)', t?.polls ? [t.p50Ms, t.p90Ms, t.p99Ms, t.maxMs].map(fmt).join(' / ') : null));
  }
  if (n?.available) {
    const m = n.perMessage;
    rows.push(row(`Messages delivered${windowLabel(s)}`, n.messages), row('HTTP requests received', n.requests),
      row('TCP segments in / out', `${fmt(n.inSegs)} / ${fmt(n.outSegs)}`), row('Bytes in / out', `${fmt(n.inBytes)} / ${fmt(n.outBytes)}`),
      row('New connections (opened + accepted)', n.newConnections), row('Retransmitted segments', n.retransSegs),
      row('Per message: segments', m.segments), row('Per message: bytes', m.bytes),
      row('Per message: HTTP requests', m.requests), row('Per message: new connections', m.newConnections));
    if (n.sharedWithEngine) rows.push(row('Note', 'SUT and an engine share a host: both ends of each segment are counted'));
  } else rows.push(row('Network cost', n ? `unknown (${n.reason})` : 'not measured'));
  return `<div class="card" id="network"><h3>Network cost per message</h3>${table(rows)}</div>`;
}

// The trip times beyond p99 and what fell in their seconds (data/summary.json `tail`, analysis/measure/tail.js):
// per kind, the records and each cause's share (%), then the longest stops.
const TAIL_KINDS = [['tripTime', 'Trip time'], ['comet', 'trip time']];   // comet: the held streams' (heldName)
const TAIL_CAUSES = [['enginePause', 'engine stop'], ['serverPause', 'server stop'], ['serverCpu', 'server CPU'], ['unexplained', 'none']];
function tailRows(t, held) {
  if (!t) return [];
  const share = (c) => (c ? `${fmt(Math.round(c.share * 1000) / 10)}%` : '?');
  const rows = [];
  for (const [key, words] of TAIL_KINDS) {
    const label = key === 'comet' ? `${held} ${words}` : words;
    const k = t[key];
    if (!k) continue;
    rows.push(row(`${label} beyond p99 (${fmt(k.beyondMs)} ms): records`, k.records),
      row(`${label} tail in seconds with: ${TAIL_CAUSES.map(([, w]) => w).join(' / ')} (stops >= ${fmt(t.pauseAtLeastMs)} ms)`,
        TAIL_CAUSES.map(([c]) => share(k.causes[c])).join(' / ')));
  }
  rows.push(row('Longest stop (ms): engine / server', `${fmt(t.longestEnginePauseMs)} (${t.enginePauses}) / ${fmt(t.longestServerPauseMs)} (${t.serverPauses})`));
  return rows;
}

// The per-cycle trip times (data/trip-cycles.json, chart trip-time-cycles): how many cycles, and the worst.
function cycleRows(kind, cycles) {
  const w = cycles?.worstP99;
  if (!w) return [];
  return [row(`${kind} trip time per emit cycle: cycles / worst cycle's p50 / p99 / max (ms, cycle)`,
    `${fmt(cycles.count)} / ${[w.p50Ms, w.p99Ms, w.maxMs].map(fmt).join(' / ')} (${w.event} #${w.cycle} at ${fmt(w.createdSecond)} s)`)];
}

// CHIRON's trip time of long polls answered by an event (analysis/measure/trip-time.js).
function tripRows(t, s) {
  if (!t) return [];
  const kind = s.parameters?.type === 'pull' ? 'Pull' : 'Poll';   // the answers timed: to long polls or to pulls
  const rows = [row(`${kind} trip time: answers timed`, t.polls)];
  if (t.polls) {
    rows.push(row(`${kind} trip time p50 / p90 / p99 (ms)`, `${fmt(t.p50Ms)} / ${fmt(t.p90Ms)} / ${fmt(t.p99Ms)}`),
      row(`${kind} trip time mean / max (ms)`, `${fmt(t.meanMs)} / ${fmt(t.maxMs)}`),
      row(`Event answers timed per second${windowLabel(s)}`, t.ratePerSecond ?? null));
  }
  if (t.polls) rows.push(row(`${kind} trip time: clock offset error bound (\u00b1 ms)`, t.errorBoundMs), ...cycleRows(kind, t.cycles));
  if (t.unmatched) rows.push(row(`${kind} answers without their JMeter sample`, t.unmatched));
  const c = t.comet;   // held streams' (comet, SSE, WebSocket) records stamped on arrival by the push sampler
  const held = heldName(s);
  if (c?.records) {
    rows.push(row(`${held} trip time: records timed`, c.records),
      row(`${held} trip time p50 / p90 / p99 / p99.9 / max (ms)`, [c.p50Ms, c.p90Ms, c.p99Ms, c.p999Ms, c.maxMs].map(fmt).join(' / ')),
      row(`${held} trip time: clock offset error bound (\u00b1 ms)`, c.errorBoundMs), ...cycleRows(held, c.cycles));
  }
  // each engine's own clock offset, which its trip times use (analysis/measure/clock-offset.js)
  for (const e of s.clockOffset?.byEngine ?? []) {
    const drift = (s.clockOffset.drift ?? []).find((d) => d.engine === e.engine);
    rows.push(row(`Engine ${e.engine}: clock offset (ms) \u00b1 bound, drift start\u2192end (ms) \u00b1 bound`,
      `${fmt(e.ms)} \u00b1 ${fmt(e.errorBoundMs)}${drift ? `, ${fmt(drift.driftMs)} \u00b1 ${fmt(drift.errorBoundMs)} over ${fmt(drift.overSeconds)} s` : ''}`));
  }
  return rows;
}

function orderedChartIds(chartDir) {
  let files = [];
  try { files = fs.readdirSync(chartDir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)); } catch { /* none */ }
  // the JVMs' pauses (analysis/chart/run-charts.js pauseCharts) beside the trip time
  // a target run's own charts (analysis/chart/run-charts.js buildTargetCharts) first
  const order = [...TARGET_CHART_IDS, ...RUN_CHART_IDS.flatMap((id) => (id === 'trip-time' ? [id, 'pauses-trip-time'] : [id]))];
  const known = order.filter((id) => files.includes(id));
  return [...known, ...files.filter((id) => !known.includes(id)).sort()];
}

// A target run (analysis/stage/target.js; docs/targets.md): the push server pushbench neither started nor
// monitored. Its page has the verdict, the target's figures with their units, the load generator's, and
// says "Server not monitored" where a built-in run shows the server's panels.
function targetParametersCard(s) {
  const p = summaryParameters(s.parameters);
  const t = s.target;
  const engines = (p.hosts?.engines ?? []).map((e) => `${e.name} (${e.address}${e.connections !== undefined ? `, ${e.connections} connections` : ''})`).join(', ');
  const rows = [
    row('Target', t.name), row('Transport', typeName(t.transport)), row('Channels (per engine)', t.channels),
    row('Rate asked (messages/s per channel)', t.ratePerChannelPerSecond), row('Subscribers (connections)', p.connections),
    ...(t.tls ? [tlsRow(t.tls)] : []),
    row('Ramp-up (s)', p.rampupS), row('Duration (s)', p.durationS), row('Engines', engines || null),
    row('Started', s.startedAt ? new Date(s.startedAt).toISOString() : null),
    [td('Status'), td(escapeHtml(fmt(s.status)), s.flags.incomplete ? 'num bad' : 'num ok')],
  ];
  return `<div class="card"><h3>Parameters</h3>${table(rows)}</div>`;
}

// How the engines spoke TLS and the subscribers' handshakes (count, resumed, mean and longest ms); insecure
// (no certificate or name checked) is said, marked as a warning.
function tlsRow(tls) {
  const over = [tls.subscribe ? 'subscribe' : null, tls.publish ? 'publish' : null].filter(Boolean).join(' and ');
  const h = tls.handshakes;
  const shakes = h ? `; ${fmt(h.count)} subscriber handshakes (${fmt(h.resumed)} resumed), mean ${fmt(h.meanUs / 1000)} ms, max ${fmt(h.maxUs / 1000)} ms` : '';
  if (tls.insecure) return [td('TLS'), td(escapeHtml(`${over}; insecure: certificates and names not checked${shakes}`), 'num bad')];
  const trust = tls.ca ? `certificates checked against ${tls.ca}` : 'certificates checked against the JDK\'s trust store';
  return row('TLS', `${over}; ${trust}; name checked: ${tls.serverName ?? 'the URL\'s host'}${shakes}`);
}

const slash = (...values) => values.map((v) => fmt(v)).join(' / ');

function targetCard(s) {
  const t = s.target;
  const m = t.messages;
  const sub = t.subscriptions;
  const trip = t.tripTime;
  const pub = t.publish;
  const rows = [
    row('Subscribers / per channel', slash(t.subscribers, t.subscribersPerChannel)),
    row('Subscriptions: made / acknowledged / failed / reconnections', slash(sub.count, sub.acknowledged, sub.failed, sub.reconnections)),
    ...(sub.failures ?? []).slice(0, 5).map((f) => row(`Subscription failed: ${f.kind}`, f.count)),
    row('Messages expected / received / missed', slash(m.expected, m.received, m.missed)),
    row('Delivered (% of expected)', m.deliveredPercent), row('Missed (% of expected)', m.missedPercent),
    row('Messages duplicated / out of order / early', slash(m.duplicated, m.outOfOrder, m.early)),
    row('Messages unmatched (no seq) / of no publish', slash(m.unmatched, m.unpublished)),
    row('Trip time p50 / p90 / p99 / max (ms)', slash(trip.p50Ms, trip.p90Ms, trip.p99Ms, trip.maxMs)),
    row(`Trip time: messages timed / untimed / published before their request (sent stamp: ${trip.timedBy === 'sentUs rule' ? 'the sentUs rule' : 'the publish\'s'})`,
      slash(trip.messages, trip.untimed, trip.publishedBeforeRequest ?? null)),
    row('Publishes: sent / answered 2xx / failed', slash(pub.count, pub.ok, pub.failed)),
    ...pub.failures.slice(0, 5).map((f) => row(`Publish failed: ${f.kind}`, f.count)),
    row(`Publish rate achieved / asked (messages/s, over ${fmt(pub.windowSeconds)} s)`, slash(pub.achievedPerSecond, pub.askedPerSecond)),
    row('Publish latency p50 / p99 (ms)', slash(pub.latencyP50Ms, pub.latencyP99Ms)),
  ];
  return `<div class="card" id="target"><h3>Target: delivered messages</h3>${table(rows)}</div>`;
}

// The engines' CPU and GC over the steady window (analysis/measure/workload.js, as a built-in run's card).
function loadGeneratorCard(s) {
  const m = s.workload;
  if (!m) return '';
  const rows = [
    row('Steady window (s)', `${fmt(m.window.fromSecond)}\u2013${fmt(m.window.toSecond)} (${fmt(m.window.seconds)} s)`),
    ...m.engines.map((e) => row(`Engine ${e.name}: JVM CPU mean (%) / GC pause (% of time)`,
      `${fmt(e.jvmCpuMean)} / ${e.gcPauseShare === null ? '?' : fmt(Math.round(e.gcPauseShare * 1000) / 10)}`)),
    ...m.hosts.map((h) => row(`Host ${h.name} (${h.roles.join(', ')}): CPU / steal (%)`, `${fmt(h.cpu.mean)} / ${fmt(h.steal.mean)}`)),
  ];
  return `<div class="card"><h3>Load generator</h3>${table(rows)}</div>`;
}

const SERVER_NOT_MONITORED = '<div class="card" id="server-not-monitored"><h3>Server not monitored</h3><p class="none">A target run measures a push server pushbench did not start: its CPU, memory, connections and emit cycles are not known, so there are no server panels. The figures are what the engines published and their subscribers received.</p></div>';

// The target's server when hosts.conf named its process (summary target.server; docs/targets.md
// "Monitoring the target"), else that it was not monitored.
function targetServerCard(s) {
  const sv = s.target.server;
  if (!sv) return SERVER_NOT_MONITORED;
  const who = sv.monitor ? (sv.monitor.pid ? `pid ${sv.monitor.pid}` : `process ${sv.monitor.process}`) : null;
  if (sv.problem) return `<div class="card" id="target-server"><h3>Target server (${escapeHtml(who ?? '?')})</h3><p class="none">${escapeHtml(sv.problem)}</p></div>`;
  const rows = [
    row('Monitored', `${who} and its children on ${s.parameters.hosts?.sut?.name ?? 'the sut host'}`),
    row('CPU mean (% of one core, steady window)', sv.cpuMeanPercent), row('CPUs it may use', sv.cores),
    row('Seconds saturated / in the window', slash(sv.saturatedSeconds, sv.seconds)),
    row('RSS at most (MB)', sv.rssPeakMB), row('CPU per message received (µs)', sv.microsPerMessage),
  ];
  return `<div class="card" id="target-server"><h3>Target server</h3>${table(rows)}</div>`;
}

function targetCards(s, runDir) {
  return `${targetParametersCard(s)}${targetCard(s)}${targetServerCard(s)}${loadGeneratorCard(s)}${provenanceCard(runDir)}`;
}

// A report's error that is said in one line (the run's outputs, not a fault of this code).
class ReportError extends Error {}

// The run's summary and its charts as the report reads them, analysing the run again first when they
// are not whole. unreadable: what stayed missing or not whole, for the page's flags.
async function readOutputs(runDir) {
  const { problem } = await analyzeUnlessWhole(runDir, { analyse: analyzeAndWrite });
  const summary = readWhole(path.join(runDir, SUMMARY));
  if (summary.problem) throw new ReportError(`${runDir}: ${problem}`);
  const charts = [];
  for (const id of orderedChartIds(path.join(runDir, 'charts'))) {
    const { value } = readWhole(path.join(runDir, 'charts', `${id}.json`));
    if (value) charts.push({ canvas: `chart-${id}`, ofc: value, source: `../charts/${id}.json` });
  }
  return { s: summary.value, charts, unreadable: problem };
}

// Writes the report; returns the path of index.html.
async function writeReport(runDir) {
  const { s, charts, unreadable } = await readOutputs(runDir);
  const reportDir = path.join(runDir, 'report');
  copyAssets(reportDir);
  const flags = [...(unreadable ? [`The analysis' outputs are not whole: ${unreadable}; what is whole is shown.`] : []), ...flagList(s)];
  const skipped = Object.entries(s.charts?.skipped ?? {}).map(([id, why]) => `${id} (${why})`);
  const body = [
    verdictBanner(s),
    thresholdsBanner(s),
    flags.length ? `<div class="flags"><strong>Check before trusting these results</strong><ul>${flags.map((f) => `<li>${escapeHtml(f)}</li>`).join('')}</ul></div>` : '',
    `<div class="cards">${s.target ? targetCards(s, runDir)
      : `${parametersCard(s)}${totalsCard(s)}${resourcesCard(s)}${workloadCard(s)}${capacityCard(s, runDir)}${networkCard(s)}${provenanceCard(runDir)}`}</div>`,
    `<h2>Charts</h2>`,
    charts.length ? `<div class="charts">${charts.map((c) => chartCard(c.canvas, c.source)).join('')}</div>` : '<p class="none">No charts: the run has no data.</p>',
    skipped.length ? `<p class="none">Not drawn (no data): ${escapeHtml(skipped.join(', '))}</p>` : '',
    s.notes?.length ? `<h2>Notes</h2><ul>${s.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : '',
  ].join('\n');
  const html = page({ title: s.title, subtitle: `run ${s.id}`, body, charts, assets: '.' });
  const file = path.join(reportDir, 'index.html');
  writeFileAtomic(file, html);
  return file;
}

async function main(argv) {
  if (argv.length !== 1 || argv[0].startsWith('-')) {
    console.error('usage: node charts/report.js <run-dir>');
    return 2;
  }
  const runDir = path.resolve(argv[0]);
  if (!isUsableRunDir(runDir) && !fs.existsSync(path.join(runDir, SUMMARY))) {
    console.error(`report: ${runDir} is not a run directory`);
    return 1;
  }
  console.log(await writeReport(runDir));
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
    // the run's outputs or a write (a full disk, a permission) in one line; anything else with its stack
    console.error(`report: ${err instanceof ReportError || err.code ? err.message : err.stack || err}`);
    process.exitCode = 1;
  });
}

module.exports = { writeReport, flagList, verdictBanner };
