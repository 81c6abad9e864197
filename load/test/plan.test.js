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
  // The study's tree (section 3.2), in JMeter 5.6 element classes, with the push sampler plugin's
  // TestBean shown by JMeter's TestBeanGUI.
  const want = [
    'TestPlan TestPlanGui', 'Arguments ArgumentsPanel User Defined Variables', 'ConfigTestElement HttpDefaultsGui',
    'SetupThreadGroup SetupThreadGroupGui Init', 'HTTPSamplerProxy HttpTestSampleGui logging',
    'IfController IfControllerPanel If Set Event', 'HTTPSamplerProxy HttpTestSampleGui setevent',
    'ThreadGroup ThreadGroupGui Timestamp', 'PushSampler TestBeanGUI timestamp', 'HTTPSamplerProxy HttpTestSampleGui timestamp',
    'ThreadGroup ThreadGroupGui Request', 'PushSampler TestBeanGUI request', 'HTTPSamplerProxy HttpTestSampleGui request',
    'UserParameters UserParametersGui Response File Name',
    'ResponseAssertion AssertionGui not error', 'ResponseAssertion AssertionGui not timeout',
    'ThreadGroup ThreadGroupGui Request summary (push)', 'PushSummarySampler TestBeanGUI request',
    'ThreadGroup ThreadGroupGui Request (mux)', 'MuxSampler TestBeanGUI request',
    'ResultCollector SimpleDataWriter Request Data Writer', 'ResultCollector SummaryReport Summary Report',
    'ThreadGroup ThreadGroupGui Clean Up', 'HTTPSamplerProxy HttpTestSampleGui clear',
    'ConstantTimer ConstantTimerGui Constant Timer',
  ];
  for (const w of want) assert.ok(elements.some((l) => l.startsWith(`element ${w}`)), `missing ${w}`);
  const where = (l) => l.split('\tin ')[1];
  // Save Responses to a file only where JMeter's HTTP sampler answers: Init, the http time stamp, the two
  // http request branches and Clean Up; a push sample is in the stream log, never a file of its own.
  assert.deepEqual(elements.filter((l) => l.includes('ResultSaver ResultSaverGui')).map(where), [
    'pushbench/Init', 'pushbench/Timestamp/HTTP Timestamp/Once/timestamp',
    'pushbench/Request/With Event (HTTP)/request', 'pushbench/Request/Without Event (HTTP)/request', 'pushbench/Clean Up',
  ]);
  assert.ok(fs.statSync(resaved).size > 1000);

  // No script runs per sample: the not-timeout assertions are built-in Response Assertions, and the mux
  // engine asserts inside its sampler.
  assert.deepEqual(elements.filter((l) => / JSR223\w* /.test(l)), []);
  assert.deepEqual(elements.filter((l) => l.startsWith('element ResponseAssertion AssertionGui not timeout\t')).map(where),
    ['pushbench/Request/With Event (push)/request', 'pushbench/Request/With Event (HTTP)/request']);
  assert.deepEqual(elements.filter((l) => l.startsWith('element MuxSampler TestBeanGUI request\t')).map(where),
    ['pushbench/Request (mux)']);
  assert.deepEqual(elements.filter((l) => l.startsWith('element PushSampler TestBeanGUI request\t')).map(where),
    ['pushbench/Request/With Event (push)', 'pushbench/Request/Without Event (push)', 'pushbench/Request/Pull']);
  assert.deepEqual(elements.filter((l) => l.startsWith('element HTTPSamplerProxy HttpTestSampleGui request\t')).map(where),
    ['pushbench/Request/With Event (HTTP)', 'pushbench/Request/Without Event (HTTP)']);
  assert.deepEqual(elements.filter((l) => l.startsWith('element ResponseAssertion AssertionGui not error\t')).map(where),
    ['With Event (push)', 'Without Event (push)', 'Pull', 'With Event (HTTP)', 'Without Event (HTTP)']
      .map((b) => `pushbench/Request/${b}/request`));
  // results.csv's writer: a copy in every group and HTTP branch, none whose scope holds a push request (its
  // answers' one record is the stream log: a listener's scope is every node on a sampler's path); the push
  // answers' summaries have theirs.
  const writers = elements.filter((l) => l.startsWith('element ResultCollector SimpleDataWriter Request Data Writer\t')).map(where);
  assert.deepEqual(writers, ['pushbench/Init', 'pushbench/Timestamp', 'pushbench/Request/With Event (HTTP)',
    'pushbench/Request/Without Event (HTTP)', 'pushbench/Request summary (push)', 'pushbench/Request (mux)', 'pushbench/Clean Up']);
  assert.deepEqual(elements.filter((l) => l.startsWith('element PushSummarySampler TestBeanGUI request\t')).map(where),
    ['pushbench/Request summary (push)']);
  const pushRequests = elements.filter((l) => l.startsWith('element PushSampler TestBeanGUI request\t')).map(where);
  for (const w of writers) for (const p of pushRequests) assert.ok(!`${p}/`.startsWith(`${w}/`), `${w} hears ${p}`);
});

// Evaluates the plan's BRANCH_* derived variables (their __groovy code, with `vars` holding the given
// values) for every combination of request.sampler, event.enabled and request.type, in one Groovy JVM.
const BRANCH_CHECK = `
def xml = new groovy.xml.XmlSlurper().parse(new File(args[0]))
def branches = xml.'**'.findAll { it.name() == 'elementProp' && it.@name.text().startsWith('BRANCH_') }
  .collectEntries { e -> [(e.@name.text()): e.stringProp.find { it.@name == 'Argument.value' }.text()] }
def derived = xml.'**'.findAll { it.name() == 'elementProp' && it.@name.text() in ['REQUEST_THREADS', 'MUX_THREADS', 'PUSH_SUMMARY_THREADS', 'MUX_BODY', 'MUX_METHOD', 'MUX_PATH', 'REQUEST_BODY', 'CLEAR_DELAY'] }
  .collectEntries { e -> [(e.@name.text()): e.stringProp.find { it.@name == 'Argument.value' }.text()] }
def run = { value, bindings -> new GroovyShell(new Binding(bindings)).evaluate(value.replaceAll(/^[$][{]__groovy[(]/, '').replaceAll(/[)][}]$/, '').replace('\\\\,', ',')) }
for (sampler in ['mux', 'push', 'http', 'HTTP', 'other']) for (mt in ['3', '']) {
  def props = new Properties(); if (mt) props.setProperty('mux.threads', mt)
  def b = [vars: [REQUEST_SAMPLER: sampler, NUMTHREADS: '250', REQUEST_TYPE: 'pull', PULL_BODY_HEAD: 'HEAD', REQUEST_BODY: 'BODY'], props: props]
  println "threads \${sampler} \${mt ?: '-'}: \${run(derived.REQUEST_THREADS, b)} \${run(derived.MUX_THREADS, b)} \${run(derived.MUX_BODY, b)}"
}
for (t in ['comet 3000', 'sse 3000', 'ws 3000', 'ws 0']) {
  def (type, d) = t.tokenize(' ')
  def b = [vars: [REQUEST_TYPE: type, REQUEST_EVENTS: ' event1, event2 ,', REQUEST_DURATION: d]]
  println "mux request \${t}: \${run(derived.MUX_METHOD, b)} \${run(derived.MUX_PATH, b)} \${run(derived.REQUEST_BODY, b)}"
}
for (event in ['true', 'false']) for (m in ['5000', '']) {
  def b = [vars: [TEST_DURATION: '12', EVENT_SET_ENABLED: event, EVENT_FREQUENCY: '2000', CLEAR_MARGIN: m]]
  println "clear \${event} \${m ?: '-'}: \${run(derived.CLEAR_DELAY, b)}"
}
for (sampler in ['mux', 'push', 'http', 'HTTP']) for (event in ['true', 'false']) for (type in ['comet', 'poll', 'pull']) {
  def on = branches.findAll { name, value ->
    def code = value.replaceAll(/^[$][{]__groovy[(]/, '').replaceAll(/[)][}]$/, '').replace('\\\\,', ',')
    new GroovyShell(new Binding([vars: [REQUEST_SAMPLER: sampler, EVENT_SET_ENABLED: event, REQUEST_TYPE: type]])).evaluate(code) == 'true'
  }.keySet()
  def summary = run(derived.PUSH_SUMMARY_THREADS, [vars: [REQUEST_SAMPLER: sampler, REQUEST_TYPE: type]])
  println "\${sampler} \${event} \${type}: \${on.sort().join(' ')} | summary \${summary}"
}`;

test('the Request group\'s five branches exclude each other; the same request in each; only the CSV writer listens', () => {
  const xml = fs.readFileSync(PLAN, 'utf8');
  // The GUI-only Summary Report is off: enabled, every engine would send each sample to the controller twice.
  assert.match(xml, /testclass="ResultCollector" testname="Summary Report" enabled="false"/);
  // The CSV writer's copies are one writer: the same file, the same columns (JMeter writes the header once).
  const writers = [...xml.matchAll(/<ResultCollector [^>]*testname="Request Data Writer" enabled="true">([\s\S]*?)<\/ResultCollector>/g)]
    .map((m) => m[1].replace(/\s+/g, ' ').replace(/<stringProp name="TestPlan.comments">[^<]*<\/stringProp>/, ''));
  assert.equal(writers.length, 7);
  assert.equal(new Set(writers).size, 1, 'the copies differ');
  assert.match(writers[0], /<stringProp name="filename">\$\{__P\(log.dir.base,build\/gui-run\)\}\/results.csv<\/stringProp>/);
  const requests = (tag) => [...xml.matchAll(new RegExp(`<${tag} [^>]*testname="request"[^>]*>[\\s\\S]*?</${tag}>`, 'g'))]
    .map((m) => m[0].replace(/\s+/g, ' ').replace(/ testname="request"[^>]*>/, '>').replace(/<stringProp name="TestPlan.comments">[^<]*<\/stringProp>/, ''));
  const push = requests('pushbench.jmeter.PushSampler');
  const http = requests('HTTPSamplerProxy');
  assert.equal(push.length, 3, 'push: with event, without event, pull');
  assert.equal(push[0], push[1], 'the push branches with and without event send the same request');
  assert.match(push[0], /<stringProp name="body">\$\{REQUEST_BODY\}<\/stringProp>/);
  assert.match(push[2], /<stringProp name="body">\$\{PULL_BODY_HEAD\}\$\{PULL_CURSOR\}\}<\/stringProp>/);
  assert.equal(http.length, 2);
  assert.equal(http[0], http[1], 'the http branches send the same request');
  const condition = (name) => new RegExp(`testname="${name.replace(/[()]/g, '\\$&')}"[^>]*>\\s*<stringProp name="TestPlan.comments">[^<]*</stringProp>\\s*` +
    '<stringProp name="IfController.condition">([^<]*)</stringProp>').exec(xml)?.[1];
  assert.deepEqual(['With Event (push)', 'Without Event (push)', 'Pull', 'With Event (HTTP)', 'Without Event (HTTP)'].map(condition),
    ['${BRANCH_PUSH_EVENT}', '${BRANCH_PUSH_NO_EVENT}', '${BRANCH_PULL}', '${BRANCH_HTTP_EVENT}', '${BRANCH_HTTP_NO_EVENT}']);

  h.requireJMeter();
  const lib = path.join(h.JMETER_HOME, 'lib');
  const r = h.sh(['java', '-cp', `${lib}/*`, 'groovy.ui.GroovyMain', '-e', BRANCH_CHECK, PLAN], { timeout: 120000 });
  assert.equal(r.status, 0, r.stderr);
  // A thread per connection with push and http, mux.threads selector threads (at least 1) with mux (and
  // any other word); the mux body for pull is the body head.
  const want = ['mux 3', 'mux -', 'push 3', 'push -', 'http 3', 'http -', 'HTTP 3', 'HTTP -', 'other 3', 'other -'].map((k) => {
    const mux = /^(mux|other)/.test(k);
    return `threads ${k}: ${mux ? 0 : 250} ${mux ? (k.endsWith('3') ? 3 : 1) : 0} HEAD`;
  });
  // The mux engine's request line: POST /request, or for sse a GET with the subscription in the query, for
  // ws a GET (the upgrade) whose first message is the body, which leaves out a duration of 0 as comet's
  // does (run.sh's request.duration for ws).
  want.push('mux request comet 3000: POST /request {"type":"comet","events":["event1","event2"],"duration":3000}',
    'mux request sse 3000: GET /request?type=sse&events=event1,event2 {"type":"sse","events":["event1","event2"],"duration":3000}',
    'mux request ws 3000: GET /request {"type":"ws","events":["event1","event2"],"duration":3000}',
    'mux request ws 0: GET /request {"type":"ws","events":["event1","event2"]}');
  // Clean Up clears the duration, one emit interval (1 s without an event) and clear.margin.ms after its start.
  want.push('clear true 5000: 19000', 'clear true -: 14000', 'clear false 5000: 18000', 'clear false -: 13000');
  // Exactly one branch for every thread-per-connection setting, pull always the push sampler's Pull
  // branch; none with mux (its own group).
  // The push answers' summary thread runs exactly when a push branch does (the push sampler's Pull with http too).
  for (const event of ['true', 'false']) for (const type of ['comet', 'poll', 'pull']) want.push(`mux ${event} ${type}:  | summary 0`);
  for (const [sampler, s] of [['push', 'PUSH'], ['http', 'HTTP'], ['HTTP', 'HTTP']]) {
    for (const event of ['true', 'false']) {
      for (const type of ['comet', 'poll', 'pull']) {
        const branch = type === 'pull' ? 'BRANCH_PULL' : `BRANCH_${s}_${event === 'true' ? 'EVENT' : 'NO_EVENT'}`;
        want.push(`${sampler} ${event} ${type}: ${branch} | summary ${/PUSH|PULL/.test(branch) ? 1 : 0}`);
      }
    }
  }
  assert.deepEqual(r.stdout.split('\n').filter(Boolean).map((l) => l.trimEnd()), want.map((l) => l.trimEnd()));
});
