'use strict';
// lib/target.js: every target file key checked with an error naming it, and the spec the engines get
// (docs/targets.md). The shipped example files must pass.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { checkTarget, readTarget, engineSpec, encodeSpec, TargetError, DRAIN_MS } = require('../target');

const ROOT = path.join(__dirname, '..', '..');
const good = () => ({
  transport: 'sse',
  subscribe: { url: 'http://127.0.0.1:18480/sse/{{channel}}', headers: { Accept: 'text/event-stream' } },
  publish: { url: 'http://127.0.0.1:18480/pub/{{channel}}', body: '{"seq":{{seq}},"sentUs":{{sentUs}},"p":"{{pad:16}}"}' },
  channels: 4, rate: 2,
  extract: { seq: '/seq', sentUs: 'sentUs":([0-9]+)' },
});
const bad = (mutate, pattern) => {
  const t = good();
  mutate(t);
  assert.throws(() => checkTarget(t, 't.json'), (e) => e instanceof TargetError && pattern.test(e.message), `expected ${pattern}`);
};

test('a good target is normalized: defaults, header pairs, ports, the drain', () => {
  const t = checkTarget(good(), 'dir/my-target.json');
  assert.equal(t.name, 'my-target');
  assert.equal(t.publish.method, 'POST');
  assert.deepEqual(t.subscribe.headers, [['Accept', 'text/event-stream']]);
  assert.equal(t.subscribe.port, 18480);
  assert.equal(t.subscribe.host, '127.0.0.1');
  assert.deepEqual(t.subscribe.framing, { kind: 'line' });
  assert.equal(t.drainMs, DRAIN_MS);
  assert.deepEqual(t.extract, { seq: '/seq', sentUs: 'sentUs":([0-9]+)' });
});

test('every bad key is refused with its path', () => {
  bad((t) => { t.colour = 'red'; }, /t\.json: colour: unknown key/);
  bad((t) => { t.subscribe.heders = {}; }, /subscribe\.heders: unknown key/);
  bad((t) => { t.transport = 'smoke'; }, /transport: must be one of sse, ws, stream, poll, pull/);
  bad((t) => { delete t.transport; }, /transport: required/);
  bad((t) => { t.channels = '10'; }, /channels: must be a number, got a string/);
  bad((t) => { t.channels = 2.5; }, /channels: must be a whole number/);
  bad((t) => { t.rate = 0; }, /rate: must be from 0\.01/);
  bad((t) => { t.subscribe.url = 'htp//nowhere'; }, /subscribe\.url: not a URL/);
  bad((t) => { t.subscribe.url = 'ws://127.0.0.1/x'; }, /subscribe\.url: must be a http:\/\/ or https:\/\/ URL/);
  bad((t) => { t.subscribe.url = 'wss://127.0.0.1/x'; }, /subscribe\.url: must be a http:\/\/ or https:\/\/ URL/);
  bad((t) => { t.tls = { insecure: true }; }, /tls: no https:\/\/ or wss:\/\/ URL uses it/);
  bad((t) => { t.subscribe.url = 'http://127.0.0.1/{{seq}}'; }, /subscribe\.url: unknown placeholder \{\{seq\}\} \(allowed in subscribe/);
  bad((t) => { t.publish.body = '{{seq}} {{nonce}}'; }, /publish\.body: unknown placeholder \{\{nonce\}\}/);
  bad((t) => { t.publish.body = '{{seq}} {{pad:x}}'; }, /publish\.body: \{\{pad:N\}\} needs N/);
  bad((t) => { t.publish.body = '{{seq}} {{pad}}'; }, /unknown placeholder \{\{pad\}\}/);
  bad((t) => { t.publish.body = '{{seq}} {{channel'; }, /unclosed placeholder/);
  bad((t) => { t.publish.body = 'hello'; }, /publish\.body: must carry \{\{seq\}\}/);
  bad((t) => { t.publish.method = 'GET'; }, /publish\.method: must be POST or PUT/);
  bad((t) => { t.extract.seq = 'seq=[0-9]+'; }, /extract\.seq: a regular expression needs exactly one capture group, 'seq=\[0-9\]\+' has 0/);
  bad((t) => { t.extract.seq = '(a)(b)'; }, /has 2/);
  bad((t) => { t.extract.seq = '(unclosed'; }, /extract\.seq: neither a JSON pointer/);
  bad((t) => { t.extract.seq = '/a~2'; }, /~0 or ~1/);
  bad((t) => { delete t.extract; }, /extract: required/);
  bad((t) => { t.subscribe.headers = { 'Bad Name': 'x' }; }, /subscribe\.headers\.Bad Name: not a header name/);
  bad((t) => { t.subscribe.headers = { Host: 'x' }; }, /subscribe\.headers\.Host: set by the engine/);
  bad((t) => { t.subscribe.headers = { X: 'a\r\nInjected: 1' }; }, /must not hold CR, LF or NUL/);
  bad((t) => { t.subscribe.send = 'hi'; }, /subscribe\.send: only for transport ws, not sse/);
  bad((t) => { t.subscribe.framing = 'chunk'; }, /subscribe\.framing: only for transport stream/);
  bad((t) => { t.subscribe.cursor = { Etag: 'If-None-Match' }; }, /subscribe\.cursor: only for transports poll and pull/);
  bad((t) => { t.subscribe.cursor = { fromMessage: '/id' }; }, /subscribe\.cursor: only for transports poll and pull/);
  bad((t) => { t.subscribe.url = 'http://h/s?since={{cursor}}'; }, /subscribe\.cursor\.fromMessage: required: \{\{cursor\}\} is used/);
  bad((t) => { t.interval = 100; }, /interval: only for transport pull/);
  bad((t) => { t.transport = 'pull'; }, /interval: required for transport pull/);
  bad((t) => { t.name = 'a b'; }, /name: letters, digits/);
});

test('transport-specific keys: ws send, stream framing, poll cursor, pull interval', () => {
  const ws = checkTarget({ ...good(), transport: 'ws', subscribe: { url: 'ws://h:9/ws/{{channel}}', send: '{"sub":"{{channel}}"}' } });
  assert.equal(ws.subscribe.send, '{"sub":"{{channel}}"}');
  assert.equal(ws.subscribe.port, 9);
  const st = checkTarget({ ...good(), transport: 'stream', subscribe: { url: 'http://h/s', framing: { delimiter: '\n\n' } } });
  assert.deepEqual(st.subscribe.framing, { kind: 'delimiter', text: '\n\n' });
  const chunk = checkTarget({ ...good(), transport: 'stream', subscribe: { url: 'http://h/s', framing: 'chunk' } });
  assert.deepEqual(chunk.subscribe.framing, { kind: 'chunk' });
  const poll = checkTarget({ ...good(), transport: 'poll',
    subscribe: { url: 'http://h/lp', cursor: { 'Last-Modified': 'If-Modified-Since', Etag: 'If-None-Match' } } });
  assert.deepEqual(poll.subscribe.cursor, [['Last-Modified', 'If-Modified-Since'], ['Etag', 'If-None-Match']]);
  assert.equal(poll.subscribe.cursorMessage, null);
  const pull = checkTarget({ ...good(), transport: 'pull', interval: 500, subscribe: { url: 'http://h/lp' } });
  assert.equal(pull.intervalMs, 500);
});

test('a cursor from the last message: subscribe.cursor.fromMessage fills {{cursor}} (initial before the first)', () => {
  const poll = (cursor, url = 'http://h/lp?since={{cursor}}', headers = undefined) => ({ ...good(), transport: 'poll',
    subscribe: { url, headers, cursor } });
  const t = checkTarget(poll({ fromMessage: '/id', initial: '0', Etag: 'If-None-Match' }));
  assert.deepEqual(t.subscribe.cursor, [['Etag', 'If-None-Match']], 'the reserved keys are not header pairs');
  assert.deepEqual(t.subscribe.cursorMessage, { rule: '/id', initial: '0' });
  assert.deepEqual(engineSpec(t, 'p-').subscribe.cursorMessage, { rule: '/id', initial: '0' });
  const h = checkTarget(poll({ fromMessage: 'id=([0-9:]+)' }, 'http://h/lp', { 'X-Since': '{{cursor}}' }));
  assert.deepEqual(h.subscribe.cursorMessage, { rule: 'id=([0-9:]+)', initial: '' }, 'initial defaults to empty');
  const pull = checkTarget({ ...poll({ fromMessage: '/next' }), transport: 'pull', interval: 100 });
  assert.equal(pull.subscribe.cursorMessage.rule, '/next');
  const no = (cursor, pattern, url, headers) => assert.throws(() => checkTarget(poll(cursor, url, headers), 't.json'),
    (e) => e instanceof TargetError && pattern.test(e.message), `expected ${pattern}`);
  no({ fromMessage: 'id=[0-9]+' }, /t\.json: subscribe\.cursor\.fromMessage: a regular expression needs exactly one capture group/);
  no({ fromMessage: '/a~2' }, /subscribe\.cursor\.fromMessage: a JSON pointer's ~ must be ~0 or ~1/);
  no({ fromMessage: 7 }, /subscribe\.cursor\.fromMessage: must be a string, got a number/);
  no({ fromMessage: '' }, /subscribe\.cursor\.fromMessage: must not be empty/);
  no({ fromMessage: '/id', initial: 0 }, /subscribe\.cursor\.initial: must be a string, got a number/);
  no({ fromMessage: '/id', initial: 'a\r\nX: 1' }, /subscribe\.cursor\.initial: must not hold a control character/);
  no({ initial: '0' }, /subscribe\.cursor\.initial: only with subscribe\.cursor\.fromMessage/, 'http://h/lp');
  no({ fromMessage: '/id' }, /subscribe\.cursor\.fromMessage: no \{\{cursor\}\} in subscribe\.url or subscribe\.headers uses it/, 'http://h/lp');
  assert.throws(() => checkTarget({ ...poll({ fromMessage: '/id' }), publish: { url: 'http://h/p', body: '{{seq}} {{cursor}}' } }),
    /publish\.body: unknown placeholder \{\{cursor\}\}/);
});

test('the engine spec names its channels and carries no host split; base64 of JSON', () => {
  const t = checkTarget(good(), 'x.json');
  const spec = engineSpec(t, '20261128-010000-target-local-');
  assert.equal(spec.channelPrefix, '20261128-010000-target-local-');
  assert.equal(spec.subscribe.host, undefined);
  assert.equal(spec.subscribe.url, t.subscribe.url);
  assert.deepEqual(spec.extract, { sentUs: 'sentUs":([0-9]+)' }, 'of the rules the engine gets sentUs only (its timed sample)');
  assert.equal(spec.subscribe.cursorMessage, null);
  assert.deepEqual(JSON.parse(Buffer.from(encodeSpec(spec), 'base64').toString('utf8')), spec);
  assert.throws(() => engineSpec(t, 'bad prefix/'), TargetError);
});

test('https:// and wss:// URLs: port 443 by default, the tls keys checked, the CA file read into the spec', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-target-tls-'));
  const r = spawnSync('bash', [path.join(ROOT, 'targets', 'tls', 'make-certs.sh'), path.join(tmp, 'certs')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const file = path.join(tmp, 'secure.json');
  const json = { ...good(), transport: 'ws', subscribe: { url: 'wss://localhost/ws/{{channel}}' },
    publish: { ...good().publish, url: 'https://127.0.0.1:8443/pub/{{channel}}' }, tls: { ca: 'certs/ca.pem', serverName: 'localhost' } };
  fs.writeFileSync(file, JSON.stringify(json));
  const { target } = readTarget(file);
  assert.equal(target.subscribe.port, 443);
  assert.equal(target.subscribe.tls, true);
  assert.equal(target.publish.port, 8443);
  assert.deepEqual({ ...target.tls, caPem: undefined }, { ca: 'certs/ca.pem', insecure: false, serverName: 'localhost', caPem: undefined });
  const spec = engineSpec(target, 'run-e1-');
  assert.equal(spec.tls.ca, `${fs.readFileSync(path.join(tmp, 'certs', 'ca.pem'), 'ascii').trim()}\n`, 'the PEM text itself: a remote engine needs no file');
  assert.equal(spec.tls.insecure, false);
  assert.equal(spec.tls.serverName, 'localhost');
  assert.equal(spec.subscribe.tls, undefined, 'the scheme says it');
  assert.deepEqual(engineSpec(checkTarget(good()), 'p-').tls, { ca: null, insecure: false, serverName: null }, 'defaults');
  const insecure = checkTarget({ ...good(), subscribe: { url: 'https://h/s' }, tls: { insecure: true } });
  assert.equal(insecure.tls.insecure, true);
  assert.equal(checkTarget({ ...good(), subscribe: { url: 'https://h/s' } }).tls.insecure, false, 'off by default');
  assert.throws(() => engineSpec(checkTarget(json, file), 'p-'), /tls\.ca 'certs\/ca\.pem' was not read/, 'checkTarget reads no file');
  const refused = (tls, pattern, f = file) => {
    fs.writeFileSync(f, JSON.stringify({ ...json, tls }));
    assert.throws(() => readTarget(f), (e) => e instanceof TargetError && pattern.test(e.message), `expected ${pattern}`);
  };
  refused({ ca: 'certs/none.pem' }, /tls\.ca: cannot be read: .*none\.pem: ENOENT/);
  refused({ ca: 'certs/server.key' }, /tls\.ca: .*no PEM certificate/);
  refused({ ca: 'certs/ca.pem', insecure: true }, /tls\.insecure: trusts any certificate/);
  refused({ insecure: 'yes' }, /tls\.insecure: must be true or false, got a string/);
  refused({ serverName: 'a b' }, /tls\.serverName: must be a host name/);
  refused({ caFile: 'x' }, /tls\.caFile: unknown key \(allowed in tls: ca, insecure, serverName\)/);
  fs.rmSync(tmp, { recursive: true });
});

test('tokens: {{token}} needs the file and the file a {{token}}; the values counted, checked, never kept or printed', () => {
  bad((t) => { t.subscribe.headers = { Authorization: 'Bearer {{token}}' }; }, /tokens: required: \{\{token\}\} is used/);
  bad((t) => { t.tokens = 'tokens.txt'; }, /tokens: no \{\{token\}\} uses it/);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-target-tokens-'));
  const file = path.join(tmp, 'with-tokens.json');
  const json = { ...good(), subscribe: { ...good().subscribe, headers: { Authorization: 'Bearer {{token}}' } },
    publish: { ...good().publish, headers: { Cookie: 'sid={{token}}' } }, tokens: 'secrets/tokens.txt' };
  fs.mkdirSync(path.join(tmp, 'secrets'));
  fs.writeFileSync(path.join(tmp, 'secrets', 'tokens.txt'), 'secret-a\r\nsecret-b\nsecret-c\n');
  fs.writeFileSync(file, JSON.stringify(json));
  const { target } = readTarget(file);
  assert.deepEqual(target.tokens, { file: 'secrets/tokens.txt', path: path.join(tmp, 'secrets', 'tokens.txt'), count: 3 });
  const spec = engineSpec(target, 'run-e2-', 1, 2);
  assert.deepEqual(spec.tokens, { file: path.join(tmp, 'secrets', 'tokens.txt'), first: 1, count: 2 }, 'the engine reads its own lines');
  assert.doesNotMatch(JSON.stringify({ target, spec }), /secret-/, 'no value in the target or the spec');
  assert.throws(() => engineSpec(target, 'run-e2-', 2, 2), /tokens: .*tokens\.txt holds 3 value\(s\), the run has 4 connections \(one each\)/);
  assert.throws(() => engineSpec(target, 'run-e2-'), /tokens: an engine's first connection and its connections are needed/);
  const cli = spawnSync(process.execPath, [path.join(ROOT, 'lib', 'target.js'), 'spec', file, 'run-e1-', '0', '3'], { encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);
  assert.equal(JSON.parse(Buffer.from(cli.stdout.trim(), 'base64').toString('utf8')).tokens.count, 3);
  const { parseTargetArguments } = require('../decide-args');
  assert.throws(() => parseTargetArguments(['--target', file, '1', '10', '5']),
    (e) => /tokens: .* holds 3 value\(s\), the run has 5 connections \(one each\)/.test(e.message) && !/secret-/.test(e.message), 'run.sh refuses it before anything starts');
  assert.equal(parseTargetArguments(['--target', file, '1', '10', '3']).connections, 3);
  fs.writeFileSync(path.join(tmp, 'secrets', 'tokens.txt'), 'secret-a\n\nsecret-c\n');
  assert.throws(() => readTarget(file), (e) => /tokens: .*line 2 is empty/.test(e.message));
  fs.writeFileSync(path.join(tmp, 'secrets', 'tokens.txt'), 'secret-a\nsecret\u0001b\n');
  assert.throws(() => readTarget(file), (e) => /line 2 holds a control character \(its value is not shown\)/.test(e.message) && !/secret/.test(e.message.split(':').pop()));
  fs.rmSync(tmp, { recursive: true });
});

test('the shipped example target files pass, and the CLI exits 2 naming the key', () => {
  const dir = path.join(ROOT, 'targets');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.ok(files.length >= 4, files.join(', '));
  const certified = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-target-ca-'));
  for (const f of files) {
    // A file trusting a CA of its own (tls.ca, made by targets/tls/make-certs.sh; not shipped) is checked
    // as a copy beside a CA made for the test.
    let file = path.join(dir, f);
    const ca = JSON.parse(fs.readFileSync(file, 'utf8')).tls?.ca;
    if (ca) {
      const made = spawnSync('bash', [path.join(ROOT, 'targets', 'tls', 'make-certs.sh'), path.join(certified, path.dirname(ca))], { encoding: 'utf8' });
      assert.equal(made.status, 0, made.stderr);
      file = path.join(certified, f);
      fs.copyFileSync(path.join(dir, f), file);
    }
    const { target, sha256 } = readTarget(file);
    assert.match(sha256, /^[0-9a-f]{64}$/);
    assert.equal(target.name, f.replace(/\.json$/, ''));
  }
  fs.rmSync(certified, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-target-'));
  const file = path.join(tmp, 'typo.json');
  fs.writeFileSync(file, JSON.stringify({ ...good(), chanels: 3 }));
  const r = spawnSync(process.execPath, [path.join(ROOT, 'lib', 'target.js'), 'check', file], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /typo\.json: chanels: unknown key/);
  fs.writeFileSync(file, '{ not json');
  const j = spawnSync(process.execPath, [path.join(ROOT, 'lib', 'target.js'), 'check', file], { encoding: 'utf8' });
  assert.equal(j.status, 2);
  assert.match(j.stderr, /typo\.json: not JSON/);
  fs.rmSync(tmp, { recursive: true });
});

test('a target file may carry thresholds, each checked by lib/thresholds.js', () => {
  assert.deepEqual(checkTarget({ ...good(), thresholds: ['trip.p99<=500', 'received>=99.9'] }).thresholds, ['trip.p99<=500', 'received>=99.9']);
  bad((t) => { t.thresholds = 'trip.p99<=5'; }, /thresholds: must be an array of strings/);
  bad((t) => { t.thresholds = ['speed>1']; }, /thresholds\[0\]: threshold 'speed>1': unknown metric/);
});

test('hosts.conf names a target server to monitor: process= or pid= on the sut line, refused for a built-in run', () => {
  const { decide } = require('../decide');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-target-hosts-'));
  const hosts = (sut) => { const f = path.join(tmp, `h${Math.random()}.conf`); fs.writeFileSync(f, `${sut}\nengine local 127.0.0.1 local\n`); return f; };
  const file = path.join(ROOT, 'targets', 'nchan-sse.json');
  const env = (f) => ({ ...process.env, PB_HOSTS: f });
  const byName = decide({ argv: ['--target', file, '2', '8', '50'], env: env(hosts('sut local 127.0.0.1 local process=nginx')) });
  assert.deepEqual([byName.target.monitored, byName.target.monitor], [true, { host: 'local', process: 'nginx' }]);
  const byPid = decide({ argv: ['--target', file, '2', '8', '50'], env: env(hosts('sut local 127.0.0.1 local pid=4321')) });
  assert.deepEqual(byPid.target.monitor, { host: 'local', pid: 4321 });
  assert.equal(decide({ argv: ['--target', file, '2', '8', '50'], env: env(hosts('sut local 127.0.0.1 local')) }).target.monitored, false);
  const builtin = decide({ argv: ['node', '2', '8', '50', 'comet'], env: env(hosts('sut local 127.0.0.1 local pid=4321')) });
  assert.match(builtin.refused.message, /pid= and process= name a target run's server/);
  const both = decide({ argv: ['--target', file, '2', '8', '50'], env: env(hosts('sut local 127.0.0.1 local pid=1 process=nginx')) });
  assert.match(both.refused.message, /pid= or its process=, not both/);
  const bad = decide({ argv: ['--target', file, '2', '8', '50'], env: env(hosts('sut local 127.0.0.1 local process=a;b')) });
  assert.match(bad.refused.message, /bad process name/);
  fs.rmSync(tmp, { recursive: true });
});

test('a JSON body closing nested objects right after a placeholder is no unclosed placeholder', () => {
  const t = checkTarget({ ...good(), publish: { url: 'http://h/p', body: '{"data":{"seq":{{seq}},"sentUs":{{sentUs}}}}' } });
  assert.equal(t.publish.body, '{"data":{"seq":{{seq}},"sentUs":{{sentUs}}}}');
  bad((t) => { t.publish.body = '{"data":{"seq":{{seq}}, "x": "{{channel"}'; }, /unclosed placeholder/);
});
