'use strict';
// testplan.jmx as a file: the 14 properties of the study drive it, and JMeter's own GUI classes open it
// (headless); and the JMeter home is installed idempotently.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./helpers');

const PLAN = path.join(h.ROOT, 'testplan.jmx');
const STUDY_PROPERTIES = ['server.host', 'server.port', 'threads.num', 'rampup.period', 'test.duration',
  'logging.enabled', 'log.dir.base', 'log.dir.res', 'event.enabled', 'event.name', 'event.frequency',
  'request.type', 'request.events', 'request.duration'];

test('a second install-jmeter.sh is fast and prints one line', () => {
  const script = path.join(h.ROOT, 'load', 'install-jmeter.sh');
  assert.equal(h.sh([script]).status, 0);
  const started = Date.now();
  const again = h.sh([script]);
  assert.equal(again.status, 0, again.stderr);
  assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
  assert.match(again.stdout, /^jmeter: [\d.]+ up to date in .+\n$/);
  for (const jar of ['bin/ApacheJMeter.jar', 'lib/ext/ApacheJMeter_http.jar', 'lib/ext/ApacheJMeter_core.jar']) {
    assert.ok(fs.existsSync(path.join(h.JMETER_HOME, jar)), jar);
  }
  assert.ok(fs.readdirSync(path.join(h.JMETER_HOME, 'lib')).some((f) => /^groovy-jsr223-.*\.jar$/.test(f)),
    'no Groovy JSR223 engine in lib');
  const props = fs.readFileSync(path.join(h.JMETER_HOME, 'bin', 'user.properties'), 'utf8');
  assert.match(props, /^sample_variables=responseFile$/m);
  // No connection is recycled by JMeter during a run (its default: 60 s after it was opened).
  const ttl = /^httpclient4\.time_to_live=(\d+)$/m.exec(props);
  assert.ok(ttl && Number(ttl[1]) >= 24 * 3600 * 1000, `httpclient4.time_to_live: ${ttl?.[1]}`);
});

test('the plan reads each of the study\'s 14 variables from its property', () => {
  const xml = fs.readFileSync(PLAN, 'utf8');
  for (const p of STUDY_PROPERTIES) {
    assert.ok(xml.includes(`\${__P(${p},`), `no \${__P(${p},...)} in the plan`);
  }
  assert.ok(xml.includes('${__P(request.timeout,'), 'request.timeout');
});

test('the plan opens with JMeter\'s GUI classes and survives a save', () => {
  h.requireJMeter();
  const resaved = path.join(h.newRunDir('plan-check'), 'resaved.jmx');
  const lib = path.join(h.JMETER_HOME, 'lib');
  const r = h.sh(['java', '-Djava.awt.headless=true', '-cp', `${lib}/*:${lib}/ext/*`, 'groovy.ui.GroovyMain',
    path.join(__dirname, 'plan-check.groovy'), h.JMETER_HOME, PLAN, resaved], { timeout: 180000 });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /^plan ok: \d+ elements$/m);
  const elements = r.stdout.split('\n').filter((l) => l.startsWith('element '));
  // The study's tree (section 3.2), in JMeter 5.6 element classes.
  const want = [
    'TestPlan TestPlanGui', 'Arguments ArgumentsPanel User Defined Variables', 'ConfigTestElement HttpDefaultsGui',
    'SetupThreadGroup SetupThreadGroupGui Init', 'HTTPSamplerProxy HttpTestSampleGui logging',
    'IfController IfControllerPanel If Set Event', 'HTTPSamplerProxy HttpTestSampleGui setevent',
    'ThreadGroup ThreadGroupGui Timestamp', 'HTTPSamplerProxy HttpTestSampleGui timestamp',
    'ThreadGroup ThreadGroupGui Request', 'HTTPSamplerProxy HttpTestSampleGui request',
    'UserParameters UserParametersGui Response File Name',
    'ResponseAssertion AssertionGui not error', 'JSR223Assertion TestBeanGUI not timeout',
    'ResultCollector SimpleDataWriter Request Data Writer', 'ResultCollector SummaryReport Summary Report',
    'ThreadGroup ThreadGroupGui Clean Up', 'HTTPSamplerProxy HttpTestSampleGui clear',
    'ConstantTimer ConstantTimerGui Constant Timer',
  ];
  for (const w of want) assert.ok(elements.some((l) => l.startsWith(`element ${w}`)), `missing ${w}`);
  assert.equal(elements.filter((l) => l.includes('ResultSaver ResultSaverGui')).length, 4,
    'one Save Responses to a file per thread group');
  assert.ok(fs.statSync(resaved).size > 1000);

  // No script runs per sample unless an event is set: the only JSR223 element is the not-timeout
  // assertion, on the request of the With Event branch; Without Event has the same request without it.
  const where = (l) => l.split('\tin ')[1];
  const scripts = elements.filter((l) => / JSR223\w* /.test(l));   // the class (or a name) says JSR223
  assert.deepEqual(scripts.map(where), ['pushbench/Request/With Event/request'], scripts.join('\n'));
  assert.deepEqual(elements.filter((l) => l.startsWith('element HTTPSamplerProxy HttpTestSampleGui request\t')).map(where),
    ['pushbench/Request/With Event', 'pushbench/Request/Without Event']);
  assert.deepEqual(elements.filter((l) => l.startsWith('element ResponseAssertion AssertionGui not error\t')).map(where),
    ['pushbench/Request/With Event/request', 'pushbench/Request/Without Event/request']);
});

test('the Request group\'s two branches send the same request and exclude each other; only the CSV writer listens', () => {
  const xml = fs.readFileSync(PLAN, 'utf8');
  // The GUI-only Summary Report is off: enabled, every engine would send each sample to the controller twice.
  assert.match(xml, /testclass="ResultCollector" testname="Summary Report" enabled="false"/);
  assert.match(xml, /testclass="ResultCollector" testname="Request Data Writer" enabled="true"/);
  const samplers = [...xml.matchAll(/<HTTPSamplerProxy [^>]*testname="request"[^>]*>[\s\S]*?<\/HTTPSamplerProxy>/g)]
    .map((m) => m[0].replace(/\s+/g, ' '));
  assert.equal(samplers.length, 2);
  assert.equal(samplers[0], samplers[1]);
  const condition = (name) => new RegExp(`testname="${name}"[^>]*>\\s*<stringProp name="TestPlan.comments">[^<]*</stringProp>\\s*` +
    '<stringProp name="IfController.condition">([^<]*)</stringProp>').exec(xml)?.[1];
  assert.equal(condition('With Event'), '${EVENT_SET_ENABLED}');
  assert.equal(condition('Without Event'), '${EVENT_NOT_SET}');
  assert.match(xml, /<stringProp name="Argument.name">EVENT_NOT_SET<\/stringProp>\s*<stringProp name="Argument.value">\$\{__groovy\(String.valueOf\(!\(vars\?.get\(&apos;EVENT_SET_ENABLED&apos;\)/);
});
