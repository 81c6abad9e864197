'use strict';
// Thresholds (issue #49 item 3): a pass or a fail a CI can act on, as k6's thresholds are. A threshold is
// one comparison of a run's figure with a limit, `<metric><op><limit>`:
//
//   trip.p99<=250      received>=99.9      verdict==valid      publish.failed==0
//
// op is one of <= < >= > == !=; a limit is a number, or for `verdict` one of its words. The metrics, their
// units and definitions are the table METRICS below (docs/thresholds.md shows it): each reads one figure
// of data/summary.json, for a built-in run or a target run (docs/targets.md) alike. A figure the run did
// not measure (no trip time in a run without events) fails its threshold, named "not measured", so a
// gate never passes on nothing.
//
//   parseThreshold(text)              { text, metric, op, limit } or a ThresholdError saying what is wrong
//   evaluate(thresholds, summary)     [{ text, metric, unit, op, limit, value, pass, why }]
//   junitXml(runId, results)          the results as JUnit XML: one test case per threshold
//
// CLI: node lib/thresholds.js check <expr>...   exit 2 naming the first bad one (run.sh, sweep.sh)

const VERDICTS = ['valid', 'generator-bound', 'server-limited', 'disturbed', 'failed'];
const OPS = { '<=': (a, b) => a <= b, '>=': (a, b) => a >= b, '==': (a, b) => a === b, '!=': (a, b) => a !== b,
  '<': (a, b) => a < b, '>': (a, b) => a > b };

class ThresholdError extends Error {}

// A held stream's figures (comet, sse, ws) or the polls' (poll, pull) of a built-in run.
const builtinTrip = (s) => (s.tripTime?.comet ?? s.tripTime ?? null);
const builtinMessages = (s) => {
  const m = s.messages ?? {};
  return m[s.parameters?.type] ?? m.comet ?? null;
};
const tripField = (field) => (s) => (s.target ? s.target.tripTime?.[field] : builtinTrip(s)?.[field]) ?? null;

// metric -> { unit, about, read(summary): number | string | null }
const METRICS = {
  'trip.p50': { unit: 'ms', about: 'trip time, 50th percentile: a message\'s arrival - its send (target: publish; built-in: emit cycle start)', read: tripField('p50Ms') },
  'trip.p90': { unit: 'ms', about: 'trip time, 90th percentile', read: tripField('p90Ms') },
  'trip.p99': { unit: 'ms', about: 'trip time, 99th percentile', read: tripField('p99Ms') },
  'trip.max': { unit: 'ms', about: 'trip time, the longest', read: tripField('maxMs') },
  received: { unit: '%', about: 'messages received of those expected (each once), x 100',
    read: (s) => (s.target ? s.target.messages?.deliveredPercent : builtinMessages(s)?.receivedPercent) ?? null },
  missed: { unit: 'messages', about: 'messages expected and never received',
    read: (s) => (s.target ? s.target.messages?.missed : builtinMessages(s)?.missed) ?? null },
  errors: { unit: 'answers', about: 'failed answers (subscriptions, polls) of the load',
    read: (s) => (s.target ? s.target.subscriptions?.failed : s.totals?.errors) ?? null },
  'publish.failed': { unit: 'publishes', about: 'publishes not answered 2xx (target runs)',
    read: (s) => s.target?.publish?.failed ?? null },
  connections: { unit: 'connections', about: 'the most connections held at once (target: the subscribers that were subscribed)',
    read: (s) => (s.target ? s.target.subscriptions?.subscribersAcknowledged : s.peakConnections) ?? null },
  verdict: { unit: null, about: `the validity verdict (docs/validity.md): ${VERDICTS.join(', ')}`, read: (s) => s.validity?.verdict ?? null },
};

function parseThreshold(text) {
  const t = String(text).trim();
  const m = /^([a-z][a-z0-9.]*)\s*(<=|>=|==|!=|<|>)\s*(\S+)$/.exec(t);
  if (!m) throw new ThresholdError(`threshold '${text}': expected <metric><op><limit>, e.g. trip.p99<=250 (ops: <= < >= > == !=)`);
  const [, metric, op, raw] = m;
  if (!METRICS[metric]) throw new ThresholdError(`threshold '${text}': unknown metric '${metric}' (known: ${Object.keys(METRICS).join(', ')})`);
  if (metric === 'verdict') {
    if (op !== '==' && op !== '!=') throw new ThresholdError(`threshold '${text}': verdict compares with == or != only`);
    if (!VERDICTS.includes(raw)) throw new ThresholdError(`threshold '${text}': a verdict is one of ${VERDICTS.join(', ')}, not '${raw}'`);
    return { text: t, metric, op, limit: raw };
  }
  if (!/^-?[0-9]+(\.[0-9]+)?$/.test(raw)) throw new ThresholdError(`threshold '${text}': the limit of ${metric} must be a number (${METRICS[metric].unit}), not '${raw}'`);
  return { text: t, metric, op, limit: Number(raw) };
}

function evaluate(thresholds, summary) {
  return thresholds.map((th) => {
    const { unit } = METRICS[th.metric];
    const value = METRICS[th.metric].read(summary);
    if (value === null || value === undefined) return { ...th, unit, value: null, pass: false, why: 'not measured in this run' };
    const pass = OPS[th.op](value, th.limit);
    const shown = `${value}${unit ? ` ${unit}` : ''}`;
    return { ...th, unit, value, pass, why: pass ? `${shown} ${th.op} ${th.limit}` : `${shown}, wanted ${th.op} ${th.limit}` };
  });
}

const xml = (v) => String(v).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// JUnit XML (the surefire schema CI systems read): one <testcase> per threshold, a <failure> when it failed.
function junitXml(runId, results) {
  const failed = results.filter((r) => !r.pass).length;
  const cases = results.map((r) => `    <testcase classname="pushbench.thresholds" name="${xml(r.text)}" time="0">\n`
    + (r.pass ? `      <system-out>${xml(r.why)}</system-out>\n` : `      <failure message="${xml(r.why)}" type="threshold">${xml(r.why)}</failure>\n`)
    + '    </testcase>\n').join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="${results.length}" failures="${failed}">\n`
    + `  <testsuite name="${xml(`pushbench ${runId}`)}" tests="${results.length}" failures="${failed}" errors="0" skipped="0">\n${cases}  </testsuite>\n</testsuites>\n`;
}

function main(argv) {
  if (argv[0] !== 'check' || argv.length < 2) {
    process.stderr.write('usage: node lib/thresholds.js check <threshold>...\n');
    return 2;
  }
  try {
    argv.slice(1).forEach(parseThreshold);
  } catch (e) {
    if (!(e instanceof ThresholdError)) throw e;
    process.stderr.write(`${e.message}\n`);
    return 2;
  }
  return 0;
}

module.exports = { METRICS, VERDICTS, ThresholdError, parseThreshold, evaluate, junitXml };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
