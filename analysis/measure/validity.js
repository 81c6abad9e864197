'use strict';
// Run validity: did the run measure the server, or the load generator or the machine? (CHIRON,
// shared/reference 001, names this a threat to validity.) Every rule and threshold is here, each
// overridable from the environment as PB_VALIDITY_<NAME>; docs/validity.md explains them.
//
// From the workload model's numbers (analysis/measure/workload.js) the run gets one verdict:
//   server-limited   the server could not keep up while the engines had headroom (a crash, errors, emit
//                    cycles longer than the interval, held streams' messages missed beyond
//                    MESSAGES_LOST_SHARE, or the load fell short with the server busy) — a real server result
//   generator-bound  the load fell short because of the engines: their CPU or GC saturated, the ramp-up
//                    not reached, re-poll gaps long, while the server had CPU to spare
//   disturbed        steal, or other processes took the machine
//   failed           the run measured nothing of the server: most samples failed, or no request reached
//                    it, or records were lost on the way while the load looks short (a data problem)
//   valid            the load asked was the load offered, on an undisturbed machine
// Precedence: a crash is server-limited; then failed; a shortfall on a disturbed machine is disturbed (neither
// side's signs can be trusted there), else it goes to the side with the evidence (generator first, then the
// server); without a shortfall a disturbance still marks the run, and then a trip-time tail the engines'
// stops explain (TAIL_ENGINE_SHARE) makes it generator-bound.
// Any message missed is named among the reasons, whatever the verdict (withLoss). A target run (docs/targets.md)
// has rules of its own, assessTargetValidity.
// The words are analysis/verdict.js' VERDICTS, which its readers (sweep, figures, study page) take.

const DEFAULTS = {
  SATURATED_CPU_PERCENT: 95,      // a host second is saturated at or above this CPU used (100 - idle)
  SATURATED_SHARE: 0.5,           // ... and a host or process is saturated in at least this share of the window
  PROCESS_SATURATED_SHARE: 0.9,   // a process second is saturated at or above this share of what it can use
  ANSWERS_SHORT: 0.9,             // the load fell short: answers achieved below this share of those asked
  CONNECTIONS_SHORT: 0.95,        // ... or connections held (time-weighted mean) below this share of the connections asked
  RAMPUP_LATE_SECONDS: 5,         // ... or the last thread started later than ramp-up + max(these seconds,
  RAMPUP_LATE_SHARE: 0.2,         //     this share of the ramp-up)
  GAP_SHARE: 0.5,                 // ... or the 99th percentile re-poll gap exceeds this share of the emit interval
                                  //     (of the max-duration without events)
  MISSED_SHARE: 0.02,             // ... or this share of the answers asked fell into re-poll gaps
  MESSAGES_LOST_SHARE: 0.001,     // server-limited: messages missed above this share of those expected (held streams'
                                  //     messages; a target run's subscribers'); any loss below it is named
  GC_PAUSE_SHARE: 0.1,            // an engine paused for GC at least this share of the window is saturated
  STEAL_MEAN_PERCENT: 5,          // disturbed: mean steal at or above this on any host
  STEAL_SECOND_PERCENT: 10,       // ... or steal at or above this in at least STEAL_SECONDS_SHARE of the window
  STEAL_SECONDS_SHARE: 0.1,
  OTHER_CPU_PERCENT: 30,          // disturbed: processes other than the server and the engines used this % of a host
  ERROR_SHARE: 0.01,              // server-limited: at least this share of samples failed with an error
  FAILED_SHARE: 0.5,              // failed: more than this share of samples failed (errors and timeout failures)
  EMIT_SHARE: 1.0,                // server-limited: emit cycles' 90th percentile duration at or above this share of the interval
  EMIT_GROWTH: 3,                 // ... or the last third's mean emit duration this many times the first third's (and > 100 ms)
  TAIL_PAUSE_MS: 20,              // the tail (measure/tail.js): a JVM stop this long (ms) in a second can explain its slow records
  TAIL_ENGINE_SHARE: 0.2,         // generator-bound: engine stops explain at least this share of the trip times beyond p99
  TAIL_MIN_RECORDS: 50,           // ... of a kind with at least this many records beyond p99 (fewer: one stop in one
                                  //     second can hold the share by coincidence, and the rule does not judge)
};

// The thresholds in force: the defaults, each replaced by a numeric PB_VALIDITY_<NAME> from env.
function thresholds(env = process.env) {
  const t = { ...DEFAULTS };
  const problems = [];
  for (const k of Object.keys(DEFAULTS)) {
    const v = env[`PB_VALIDITY_${k}`];
    if (v === undefined || v === '') continue;
    const n = Number(v);
    if (Number.isFinite(n) && n >= 0) t[k] = n; else problems.push(`PB_VALIDITY_${k}=${v} is not a number >= 0: default ${DEFAULTS[k]} used`);
  }
  return { thresholds: t, problems };
}

const fmt = (n) => (n === null || n === undefined ? '?' : Number(n).toLocaleString('en-US', { maximumFractionDigits: 1 }));
const pct = (share) => `${fmt(share * 100)}%`;

// No request reached anyone: JMeter recorded no request sample (or no results.csv exists) and the server
// held no connection.
const noLoad = (m) => m.connections.asked > 0 && (m.rampup.threadsSeen ?? 0) === 0 && !(m.connections.mean > 0);

// Reasons the load fell short of what the run asked; each { rule, text }. A churned run's clients are away
// from a dropped stream until they resume it (docs/engine.md "Churn"), so the connections it held and the
// answers it got live fall short by design: neither is judged (its received and missed messages, counted
// across reconnections, say what the churn cost).
function shortfalls(m, t) {
  const out = [];
  const a = m.answers;
  const churned = m.churnPercent > 0;
  if (!churned && a && a.expected > 0 && a.judged !== false && a.share !== null && a.share < t.ANSWERS_SHORT) {
    out.push({ rule: 'answers-short', text: `${fmt(a.achievedPerSecond)} of ${fmt(a.expectedPerSecond)} answers/s asked (${pct(a.share)}; ${a.basis})` });
  }
  const c = m.connections;
  if (!churned && !noLoad(m) && c.expected > 0 && c.share !== null && c.share < t.CONNECTIONS_SHORT) {
    out.push({ rule: 'connections-short', text: `the server held ${fmt(c.mean)} connections on average (minimum ${fmt(c.min)}) of ${fmt(c.expected)} connections` });
  }
  const r = m.rampup;
  if (r.lastThreadStartSecond !== null && r.askedSeconds !== null
      && r.lastThreadStartSecond > r.askedSeconds + Math.max(t.RAMPUP_LATE_SECONDS, t.RAMPUP_LATE_SHARE * r.askedSeconds)) {
    out.push({ rule: 'rampup-late', client: true, text: `the last thread started ${fmt(r.lastThreadStartSecond)} s after the load began; the ramp-up asked ${fmt(r.askedSeconds)} s` });
  }
  const g = m.gaps;
  if (g && g.count > 0 && g.againstMs > 0 && g.p99Ms > t.GAP_SHARE * g.againstMs) {
    out.push({ rule: 'gaps-long', client: true, text: `re-poll gap p50/p90/p99 ${fmt(g.p50Ms)}/${fmt(g.p90Ms)}/${fmt(g.p99Ms)} ms against a ${fmt(g.againstMs)} ms ${g.against}` });
  }
  if (m.missedCycles && m.missedCycles.share !== null && m.missedCycles.share >= t.MISSED_SHARE) {
    out.push({ rule: 'missed-cycles', client: true, text: `${fmt(m.missedCycles.count)} emit cycles missed by connections between polls (${pct(m.missedCycles.share)} of the answers asked)` });
  }
  return out;
}

// Evidence that the engines were the bottleneck; unknowns when their monitors are missing.
// unmonitoredServer (a target run): the server may share an engine's host unseen, so a saturated host counts
// against the engine only when its JVM used at least as much CPU as the host's other processes; otherwise
// it is named among the unknowns.
function generatorEvidence(m, t, { unmonitoredServer = false } = {}) {
  const out = [];
  const unknown = [];
  for (const e of m.engines) {
    unknown.push(...e.unknown);
    const host = m.hosts.find((h) => h.roles.includes(`engine ${e.name}`));
    const shared = host?.roles.includes('sut');
    const need = Math.ceil(t.SATURATED_SHARE * (host?.cpu.seconds ?? 0));
    const saturated = host && host.cpu.seconds > 0 && host.cpu.saturatedSeconds >= need;
    // On a host shared with the server, a saturated host counts against the engine only when its JVM used
    // at least as much CPU as the server.
    // (both as a share of the host: the JVM's % of one core over the host's cores)
    const jvmHostShare = e.jvmCpuMean !== null && host?.cores > 0 ? e.jvmCpuMean / host.cores : null;
    const others = unmonitoredServer && jvmHostShare !== null && Number.isFinite(host?.otherCpuMean) && jvmHostShare < host.otherCpuMean;
    const engineLeads = !others && (!shared || (e.jvmCpuMean !== null && m.server.cpuMean !== null && e.jvmCpuMean >= m.server.cpuMean));
    if (saturated && others) {
      unknown.push(`engine ${e.name}'s host CPU >= ${t.SATURATED_CPU_PERCENT}% in ${host.cpu.saturatedSeconds} of ${host.cpu.seconds} steady seconds, mostly other processes' (${fmt(host.otherCpuMean)}% of the host against the JMeter JVM's ${fmt(jvmHostShare)}%: the target's server if it runs on this host)`);
    } else if (saturated && engineLeads) {
      out.push({ rule: 'engine-cpu', text: `engine ${e.name}'s host CPU >= ${t.SATURATED_CPU_PERCENT}% in ${host.cpu.saturatedSeconds} of ${host.cpu.seconds} steady seconds (JMeter JVM ${fmt(e.jvmCpuMean)}% of one core${shared ? `, the server ${fmt(m.server.cpuMean)}%` : ''})` });
    } else if (e.jvmSaturatedSeconds !== null && e.seconds > 0 && e.jvmSaturatedSeconds >= Math.ceil(t.SATURATED_SHARE * e.seconds)) {
      out.push({ rule: 'engine-cpu', text: `engine ${e.name}'s JMeter JVM at >= ${pct(t.PROCESS_SATURATED_SHARE)} of its ${e.cpus} CPUs in ${e.jvmSaturatedSeconds} of ${e.seconds} steady seconds` });
    }
    if (e.gcPauseShare !== null && e.gcPauseShare >= t.GC_PAUSE_SHARE) {
      out.push({ rule: 'engine-gc', text: `engine ${e.name} paused for GC ${pct(e.gcPauseShare)} of the steady window` });
    }
  }
  return { evidence: out, unknown };
}

// The trip times' tail set by the engines: their JVMs stopped (>= TAIL_PAUSE_MS) in the seconds of at least
// TAIL_ENGINE_SHARE of the records beyond p99 (tail: data/summary.json's, measure/tail.js), of a kind with at
// least TAIL_MIN_RECORDS records beyond p99: with fewer, the few seconds that hold them are few chances, and
// one stop falling in one of them would decide.
const TAIL_KINDS = [['tripTime', 'trip times'], ['comet', 'comet trip times']];
function tailEvidence(tail, t) {
  const out = [];
  for (const [key, words] of TAIL_KINDS) {
    const k = tail?.[key];
    const e = k?.causes?.enginePause;
    if (!e || e.share === null || !(k.records > 0) || k.records < t.TAIL_MIN_RECORDS || e.share < t.TAIL_ENGINE_SHARE) continue;
    out.push({ rule: 'tail-engine-pause', text: `an engine JVM stopped >= ${fmt(t.TAIL_PAUSE_MS)} ms in the seconds of ${fmt(e.records)} of the ${fmt(k.records)} ${words} beyond p99 (${fmt(k.beyondMs)} ms): ${pct(e.share)}; longest engine stop ${fmt(tail.longestEnginePauseMs)} ms` });
  }
  return out;
}

// The error kinds, most frequent first, as text: "Non HTTP response code: java.net.ConnectException 86,849".
const kindsText = (kinds) => (kinds ?? []).slice(0, 3).map((k) => `${k.kind} ${fmt(k.count)}`).join('; ');

// Evidence that the run measured nothing of the server: most samples failed, the server answered none of
// the answers asked (a server stopped, a SUT unreachable), or no request reached it.
function failureEvidence(m, t) {
  const out = [];
  const e = m.errors;
  const failures = e?.failures ?? e?.failed ?? 0;
  if (e && e.samples > 0 && failures / e.samples > t.FAILED_SHARE) {
    const kinds = kindsText(e.kinds);
    out.push({ rule: 'most-failed', text: `${fmt(failures)} of ${fmt(e.samples)} samples failed (${pct(failures / e.samples)})${kinds ? `: ${kinds}` : ''}` });
  }
  const a = m.answers;
  if (a && a.expected > 0 && a.achieved === 0 && a.judged !== false && !noLoad(m)) {
    out.push({ rule: 'no-answer', text: `the server answered none of the ${fmt(a.expected)} answers asked in the steady window (${a.basis})` });
  }
  if (noLoad(m)) {
    out.push({ rule: 'no-load', text: `neither JMeter nor the server recorded a request of the ${fmt(m.connections.asked)} connections asked: see jmeter/controller.log and the engine logs` });
  } else if (m.connections.expected > 0 && m.connections.max === 0) {
    out.push({ rule: 'no-connection', text: 'the server held no connection in the whole steady window' });
  }
  return out;
}

// Evidence that the server was the bottleneck.
function serverEvidence(m, t, crashed) {
  const out = [];
  if (crashed) out.push({ rule: 'server-crashed', text: 'the server under test died during the run' });
  if (m.errors && m.errors.share !== null && m.errors.share >= t.ERROR_SHARE) {
    out.push({ rule: 'errors', text: `${fmt(m.errors.failed)} of ${fmt(m.errors.samples)} samples failed with an error (${pct(m.errors.share)})` });
  }
  const lost = messagesMissed(m.messages, t);
  if (lost?.beyond) out.push(lost.reason);
  const s = m.server;
  if (s.saturatedSeconds !== null && s.seconds > 0 && s.saturatedSeconds >= Math.ceil(t.SATURATED_SHARE * s.seconds)) {
    out.push({ rule: 'server-cpu', text: `the server process at >= ${pct(t.PROCESS_SATURATED_SHARE)} of the ${fmt(s.capacityPercent)}% CPU it can use in ${s.saturatedSeconds} of ${s.seconds} steady seconds` });
  }
  const e = m.emit;
  if (e && e.cyclesExpected >= 3 && Number.isFinite(e.cyclesNumbered) && e.cyclesNumbered < t.ANSWERS_SHORT * e.cyclesExpected) {
    out.push({ rule: 'emit-stall', text: `the server emitted ${fmt(e.cyclesNumbered)} cycles in the steady window; one per ${fmt(e.emitIntervalMs)} ms asks ${fmt(e.cyclesExpected)}` });
  }
  if (e && e.emitIntervalMs > 0 && e.durationP90Ms !== null && e.durationP90Ms >= t.EMIT_SHARE * e.emitIntervalMs) {
    out.push({ rule: 'emit-duration', text: `emit cycles took ${fmt(e.durationP90Ms)} ms (90th percentile), the interval is ${fmt(e.emitIntervalMs)} ms` });
  } else if (e && e.firstThirdMeanMs > 0 && e.lastThirdMeanMs > 100 && e.lastThirdMeanMs >= t.EMIT_GROWTH * e.firstThirdMeanMs) {
    out.push({ rule: 'emit-duration', text: `emit durations grew from ${fmt(e.firstThirdMeanMs)} to ${fmt(e.lastThirdMeanMs)} ms (mean of the first and last third of the window)` });
  }
  return out;
}

// Messages the clients missed (workload's `messages`: { kind, expected, missed, share }, or null): the reason
// naming their count and share, and whether the share is beyond MESSAGES_LOST_SHARE; null when none missed.
function messagesMissed(msg, t) {
  if (!msg || !(msg.missed > 0)) return null;
  return { beyond: msg.share !== null && msg.share > t.MESSAGES_LOST_SHARE,
    reason: { rule: 'messages-missed', text: `${fmt(msg.missed)} of the ${fmt(msg.expected)} messages ${msg.kind} expected were missed (${pctFine(msg.share)}; the bound is ${pctFine(t.MESSAGES_LOST_SHARE)})` } };
}

// A share as a percentage to three decimals ("0.012%"): losses are judged at a tenth of a percent.
const pctFine = (share) => `${Number(share * 100).toLocaleString('en-US', { maximumFractionDigits: 3 })}%`;

// Any loss is named among the reasons, whatever the verdict (issue #48): tagged server-limited beyond the
// bound, else with the run's own verdict.
function withLoss(result, m, t) {
  const lost = messagesMissed(m.messages, t);
  if (!lost || result.reasons.some((r) => r.rule === 'messages-missed')) return result;
  return { ...result, reasons: [...result.reasons, { ...lost.reason, verdict: lost.beyond ? 'server-limited' : result.verdict }] };
}

function disturbance(m, t) {
  const out = [];
  for (const h of m.hosts) {
    const highNeed = Math.ceil(t.STEAL_SECONDS_SHARE * h.steal.seconds);
    if (h.steal.seconds > 0 && (h.steal.mean >= t.STEAL_MEAN_PERCENT || (h.steal.highSeconds > 0 && h.steal.highSeconds >= highNeed))) {
      out.push({ rule: 'steal', text: `host ${h.name}: steal ${fmt(h.steal.mean)}% on average, >= ${t.STEAL_SECOND_PERCENT}% in ${h.steal.highSeconds} of ${h.steal.seconds} steady seconds` });
    }
    if (h.otherCpuMean !== null && h.otherCpuMean >= t.OTHER_CPU_PERCENT) {
      out.push({ rule: 'other-processes', text: `host ${h.name}: ${fmt(h.otherCpuMean)}% of its CPU went to processes other than the server and the engines` });
    }
  }
  return out;
}

// The verdict: { verdict, reasons: [{ rule, verdict, text }], unknowns: [], confidence, thresholds }.
// known: what the caller already knows to be missing (e.g. results.csv), listed among the unknowns.
// tail: data/summary.json's `tail` (measure/tail.js), or null. lost: the records lost on the way (archives
// cut short or unreadable or missing, stream logs damaged, answers the engines counted but no log holds:
// stage/validity.js recordsLost), each a text: with a shortfall the run failed (what fell short cannot be
// told from what was lost), without one they lower the confidence.
function assessValidity(m, options = {}) {
  const t = options.thresholds ?? DEFAULTS;
  return withLoss(judge(m, { ...options, thresholds: t }), m, t);
}

// The failure rules counted from the engines' records (answers got, connections and requests seen): with
// records lost they say nothing of the server, and the loss is the reason instead.
const RECORD_RULES = ['no-answer', 'no-load', 'no-connection'];

function judge(m, { crashed = false, thresholds: t = DEFAULTS, known = [], tail = null, lost = [] } = {}) {
  const short = shortfalls(m, t);
  const counted = failureEvidence(m, t);
  const failure = lost.length ? counted.filter((f) => !RECORD_RULES.includes(f.rule)) : counted;
  const lossExplainsFailure = lost.length > 0 && failure.length < counted.length;
  const gen = generatorEvidence(m, t);
  const tailed = tailEvidence(tail, t);
  gen.evidence.push(...tailed);
  const srv = serverEvidence(m, t, crashed);
  const dis = disturbance(m, t);
  const unknowns = [...gen.unknown, ...known, ...(short.length || lossExplainsFailure ? [] : lost.map((l) => `records lost: ${l}`))];
  if (m.window.seconds < 1) unknowns.push('no steady window: the run has no load seconds to judge');
  if (m.churnPercent > 0) unknowns.push(`churn: the clients drop ${fmt(m.churnPercent)}% of their streams a second, so the connections held and the answers got live are not judged`);
  const serverCpuUnknown = m.server.seconds === 0;
  if (serverCpuUnknown) unknowns.push('server process CPU unknown (no pidstat samples in the steady window)');
  const tag = (list, verdict) => list.map(({ rule, text }) => ({ rule, verdict, text }));
  const serverBusy = srv.some((r) => r.rule === 'server-cpu');
  let verdict;
  let reasons;
  if (crashed) {
    verdict = 'server-limited';
    reasons = [...tag(srv, verdict), ...tag(short, verdict)];
  } else if (failure.length) {
    verdict = 'failed';
    reasons = tag(failure, verdict);
  } else if ((short.length || lossExplainsFailure) && lost.length) {
    verdict = 'failed';
    reasons = [...lost.map((text) => ({ rule: 'records-lost', verdict, text: `records lost: ${text}` })), ...tag(short, verdict)];
  } else if (short.length && dis.length) {
    // On a machine others took, neither side's signs tell who fell short: they are listed, the verdict is the disturbance.
    verdict = 'disturbed';
    reasons = [...tag(dis, verdict), ...tag(short, verdict), ...tag(gen.evidence, 'generator-bound'), ...tag(srv, 'server-limited')];
  } else if (short.length && gen.evidence.length && !serverBusy) {
    verdict = 'generator-bound';
    reasons = [...tag(gen.evidence, verdict), ...tag(short, verdict)];
  } else if (short.length && short.some((s) => s.client) && !serverBusy) {
    // Late thread starts, long re-poll gaps and cycles missed between polls are the client's own delays
    // (a gap runs from an answer received to the next request sent), whatever its CPU figures say.
    verdict = 'generator-bound';
    reasons = tag(short, verdict);
  } else if (short.length && srv.length) {
    verdict = 'server-limited';
    reasons = [...tag(srv, verdict), ...tag(short, verdict), ...tag(gen.evidence, 'generator-bound')];
  } else if (short.length) {
    verdict = 'server-limited';
    reasons = [{ rule: 'no-generator-sign', verdict, text: 'the load fell short while the engines had headroom' }, ...tag(short, verdict)];
  } else if (dis.length) {
    verdict = 'disturbed';
    reasons = [...tag(dis, verdict), ...tag(tailed, 'generator-bound')];
  } else if (tailed.length) {
    // the load was offered, but the trip times' tail is the engines' stops, not the server's answers
    verdict = 'generator-bound';
    reasons = [...tag(tailed, verdict), ...tag(srv.filter((r) => r.rule !== 'server-cpu'), 'server-limited')];
  } else if (srv.some((r) => r.rule !== 'server-cpu')) {
    verdict = 'server-limited';   // errors or late emit cycles; a busy server that kept up is a valid result
    reasons = tag(srv.filter((r) => r.rule !== 'server-cpu'), verdict);
  } else {
    verdict = 'valid';
    reasons = [];
  }
  return { verdict, reasons, unknowns, confidence: unknowns.length ? 'reduced' : 'full' };
}

// A target run's verdict (docs/validity.md "Target runs"): f, the summary's `target` (measure/target.js
// targetFigures); m, the load generator's figures (stage/target.js: window, engines, hosts); lost, known: as
// assessValidity's. No server is monitored, so there is no server sign but what the engines saw:
//   failed           no subscription acknowledged; nothing received while publishes succeeded; no publish
//                    answered 2xx; more than FAILED_SHARE of the subscriptions failed
//   disturbed        steal on an engine's host (other processes are not judged: the target may share it)
//   generator-bound  an engine's CPU or GC as for the built-in servers, or the engines published below
//                    ANSWERS_SHORT of the rate asked (the server's signs listed beside, marked server-limited)
//   server-limited   messages missed beyond MESSAGES_LOST_SHARE of those expected, or publishes failed
//   valid            otherwise; any loss at all is named among the reasons with its count and share
function assessTargetValidity(f, m, { thresholds: t = DEFAULTS, lost = [], known = [] } = {}) {
  const failure = [];
  const s = f.subscriptions;
  const p = f.publish;
  if (s.count === 0) failure.push({ rule: 'no-subscription', text: 'the engines made no subscription: see the engine logs' });
  else if (s.acknowledged === 0) failure.push({ rule: 'no-subscription', text: `none of the ${fmt(s.count)} subscriptions was acknowledged (no answer head read)` });
  if (p.count === 0) failure.push({ rule: 'no-publish', text: 'the engines published nothing: no message could be timed' });
  else if (p.ok === 0) {
    failure.push({ rule: 'no-publish', text: `none of the ${fmt(p.count)} publishes was answered 2xx${p.failures.length ? ` (${kindsText(p.failures)})` : ''}: no message could be expected or timed` });
  } else if (p.ok > 0 && f.messages.received === 0 && s.acknowledged > 0) {
    failure.push({ rule: 'nothing-received', text: `no subscriber received a message while ${fmt(p.ok)} publishes were answered 2xx` });
  }
  if (s.count > 0 && s.acknowledged > 0 && s.failed / s.count > t.FAILED_SHARE) {
    failure.push({ rule: 'most-subscriptions-failed', text: `${fmt(s.failed)} of ${fmt(s.count)} subscriptions failed (${pct(s.failed / s.count)})` });
  }
  const gen = generatorEvidence(m, t, { unmonitoredServer: true });
  // a publish rate short of the asked is the publisher's own only while the server answered its publishes:
  // publishes the server refused or cut are its sign (publish-failed below), not the generator's
  if (p.share !== null && p.share < t.ANSWERS_SHORT && p.failed === 0) {
    gen.evidence.push({ rule: 'publish-short', text: `the engines published ${fmt(p.achievedPerSecond)} of ${fmt(p.askedPerSecond)} messages/s asked (${pct(p.share)}) over ${fmt(p.windowSeconds)} s` });
  }
  const msg = f.messages;
  const loss = { kind: 'the subscribers', expected: msg.expected, missed: msg.missed, share: msg.expected > 0 ? msg.missed / msg.expected : null };
  const srv = [];
  const missed = messagesMissed(loss, t);
  if (missed?.beyond) srv.push(missed.reason);
  if (p.failed > 0) {
    const short = p.share !== null && p.share < t.ANSWERS_SHORT ? `; ${fmt(p.achievedPerSecond)} of ${fmt(p.askedPerSecond)} messages/s answered 2xx (${pct(p.share)})` : '';
    srv.push({ rule: 'publish-failed', text: `${fmt(p.failed)} of ${fmt(p.count)} publishes failed${p.failures.length ? `: ${kindsText(p.failures)}` : ''}${short}` });
  }
  // subscriptions the server refused, reset or cut (a majority is a failed run, above)
  if (s.failed > 0) {
    srv.push({ rule: 'subscriptions-failed', text: `${fmt(s.failed)} of ${fmt(s.count)} subscriptions failed${s.failures?.length ? `: ${kindsText(s.failures)}` : ''}` });
  }
  // the target's server, when hosts.conf named its process (f.server): saturated as a built-in server is
  const sv = f.server;
  if (sv && !sv.problem && sv.saturatedSeconds !== null && sv.seconds > 0 && sv.saturatedSeconds >= Math.ceil(t.SATURATED_SHARE * sv.seconds)) {
    srv.push({ rule: 'server-cpu', text: `the target's server at >= ${pct(t.PROCESS_SATURATED_SHARE)} of its ${fmt(sv.cores)} CPUs in ${fmt(sv.saturatedSeconds)} of ${fmt(sv.seconds)} steady seconds (${fmt(sv.cpuMeanPercent)}% of one core on average)` });
  }
  const dis = disturbance(m, t).filter((r) => r.rule === 'steal');
  const unknown = [...gen.unknown, ...known, ...lost.map((l) => `records lost: ${l}`)];
  const tag = (list, verdict) => list.map(({ rule, text }) => ({ rule, verdict, text }));
  let result;
  if (failure.length) result = { verdict: 'failed', reasons: tag(failure, 'failed') };
  else if (dis.length) result = { verdict: 'disturbed', reasons: [...tag(dis, 'disturbed'), ...tag(gen.evidence, 'generator-bound'), ...tag(srv, 'server-limited')] };
  else if (gen.evidence.length) result = { verdict: 'generator-bound', reasons: [...tag(gen.evidence, 'generator-bound'), ...tag(srv, 'server-limited')] };
  else if (srv.length) result = { verdict: 'server-limited', reasons: tag(srv, 'server-limited') };
  else result = { verdict: 'valid', reasons: [] };
  // a target's server not named in hosts.conf is not monitored: said, but no monitor of the run is missing
  const server = !sv ? ['the server: not monitored (a target run)'] : sv.problem ? [`the server: ${sv.problem}`] : [];
  return { ...withLoss(result, { messages: loss }, t), unknowns: [...unknown, ...server],
    confidence: unknown.length ? 'reduced' : 'full' };
}

module.exports = { assessValidity, assessTargetValidity, messagesMissed, thresholds, DEFAULTS, shortfalls, failureEvidence, generatorEvidence, serverEvidence, disturbance, tailEvidence };
