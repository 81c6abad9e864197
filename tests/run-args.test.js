'use strict';
// run.sh refuses bad arguments and bad hosts files before it starts anything: exit 2 with a usage
// line or a message naming the hosts file and line; an unreachable ssh host is exit 3 (preflight).
const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { scratch, hostsFile, LOCAL_HOSTS, runSh, listFiles } = require('./lib/runsh');

const USAGE = /usage: \.\/run\.sh <server-type> <rampup> <duration> <threads> <test-type>/;

// Runs run.sh in a fresh scratch area and checks that it created nothing: no run directory, no PID
// file, no log of a started server or engine.
async function refused(args, { hosts = LOCAL_HOSTS, env = {} } = {}) {
  const s = scratch('args');
  try {
    const file = hostsFile(s.dir, hosts);
    const r = await runSh(args, { env: { PB_RESULTS: s.results, PB_STATE: s.state, PB_HOSTS: file, ...env }, timeoutMs: 60000 });
    assert.equal(listFiles(s.results).length, 0, `a run directory was created: ${listFiles(s.results)}`);
    const started = listFiles(s.state).filter((f) => /\.(pid|log)$/.test(f) || f.startsWith('runs'));
    assert.deepEqual(started, [], 'something was started');
    assert.equal(r.runDir, null, 'run.sh printed a run directory');
    return { ...r, hostsPath: file };
  } finally {
    s.cleanup();
  }
}

describe('run.sh arguments', () => {
  const bad = [
    ['no arguments', []],
    ['too few arguments', ['node', '5', '30', '500']],
    ['too many arguments', ['node', '5', '30', '500', 'poll', '3000', 'event1', '2000', 'extra']],
    ['unknown server type', ['jetty', '5', '30', '500', 'comet'], /server-type/],
    ['unknown test type', ['node', '5', '30', '500', 'stream'], /test-type/],
    ['non-numeric rampup', ['node', 'five', '30', '500', 'comet'], /rampup/],
    ['negative duration', ['node', '5', '-30', '500', 'comet'], /duration/],
    ['zero threads', ['node', '5', '30', '0', 'comet'], /threads/],
    ['rampup not shorter than duration', ['node', '30', '30', '500', 'comet'], /rampup \(30 s\) must be shorter than duration/],
    ['threads with a shell command', ['node', '5', '30', '500;touch /tmp/pb-pwned', 'comet'], /threads/],
    ['poll without max-duration', ['node', '5', '30', '500', 'poll'], /max-duration/],
    ['poll with - as max-duration', ['node', '5', '30', '500', 'poll', '-'], /max-duration/],
    ['max-duration out of range', ['node', '5', '30', '500', 'poll', '9999999'], /max-duration/],
    ['event name with shell metacharacters', ['node', '5', '30', '500', 'comet', '-', 'ev$(id)', '2000'], /event-name/],
    ['event name with a path', ['node', '5', '30', '500', 'comet', '-', '../x', '2000'], /event-name/],
    ['event name containing "timeout"', ['node', '5', '30', '500', 'poll', '3000', 'mytimeout', '2000'], /timeout/],
    ['event name without emit interval', ['node', '5', '30', '500', 'comet', '-', 'event1'], /emit-interval/],
    ['emit interval without event name', ['node', '5', '30', '500', 'comet', '-', '-', '2000'], /emit-interval was given without an event-name/],
    ['emit interval too small', ['node', '5', '30', '500', 'comet', '-', 'event1', '5'], /emit-interval/],
    ['emit interval not a number', ['node', '5', '30', '500', 'comet', '-', 'event1', '2s'], /emit-interval/],
    // pull (issue #26): its interval is a positive whole number of ms, and it takes no max-duration.
    ['pull without pull-interval', ['node', '5', '30', '500', 'pull'], /pull needs a pull-interval/],
    ['pull with - as pull-interval', ['node', '5', '30', '500', 'pull', '-', 'event1', '2000'], /pull needs a pull-interval/],
    ['pull-interval zero', ['node', '5', '30', '500', 'pull', '0', 'event1', '2000'], /pull-interval must be a positive whole number of ms, got '0'/],
    ['pull-interval negative', ['node', '5', '30', '500', 'pull', '-500'], /pull-interval must be a positive whole number of ms, got '-500'/],
    ['pull-interval with a unit', ['node', '5', '30', '500', 'pull', '1s', 'event1', '2000'], /pull-interval must be a positive whole number/],
    ['pull-interval a fraction', ['node', '5', '30', '500', 'pull', '0.5'], /pull-interval must be a positive whole number/],
    ['pull-interval out of range', ['node', '5', '30', '500', 'pull', '3600001'], /pull-interval must be between 1 and 3600000/],
    ['pull with a max-duration', ['node', '5', '30', '500', 'pull', '1000', '3000'], /pull takes no max-duration/],
    ['pull with a max-duration and an event', ['node', '5', '30', '500', 'pull', '1000', '3000', 'event1'], /pull takes no max-duration/],
    ['pull with a max-duration, an event and its interval', ['node', '5', '30', '500', 'pull', '1000', '3000', 'event1', '2000'], /pull takes no max-duration/],
    // sse (issue #38): comet's arguments, but no max-duration; the mux engine alone speaks it.
    ['sse with a max-duration', ['node', '5', '30', '500', 'sse', '3000', 'event1', '2000'], /sse takes no max-duration/],
    ['sse with a max-duration alone', ['node', '5', '30', '500', 'sse', '3000'], /sse takes no max-duration/],
    ['sse with an event and no interval', ['node', '5', '30', '500', 'sse', '-', 'event1'], /emit-interval/],
    // ws (issue #38): as sse; Tomcat 6 has no WebSocket API, so tc6 and tc6-bio are refused with the reason.
    ['ws with a max-duration', ['node', '5', '30', '500', 'ws', '3000', 'event1', '2000'], /ws takes no max-duration/],
    ['ws with an event and no interval', ['tc7', '5', '30', '500', 'ws', '-', 'event1'], /emit-interval/],
    ['ws on tc6', ['tc6', '2', '15', '50', 'ws', '-', 'event1', '1000'], /tc6 does not speak WebSocket \(Tomcat 6 has no WebSocket API/],
    ['ws on tc6-bio', ['tc6-bio', '5', '30', '500', 'ws'], /tc6-bio does not speak WebSocket \(Tomcat 6 has no WebSocket API/],
  ];
  for (const [name, args, message] of bad) {
    test(`${name}: exit 2, usage line, nothing started`, async () => {
      const r = await refused(args);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, USAGE);
      if (message) assert.match(r.stderr, message);
      assert.equal(fs.existsSync('/tmp/pb-pwned'), false, 'an argument reached a shell');
    });
  }
  test('sse with a thread-per-connection sampler: exit 2 naming PB_REQUEST_SAMPLER, nothing started', async () => {
    const r = await refused(['node', '5', '30', '500', 'sse', '-', 'event1', '2000'], { env: { PB_REQUEST_SAMPLER: 'push' } });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /sse needs the mux engine \(PB_REQUEST_SAMPLER=mux, the default\), got PB_REQUEST_SAMPLER=push/);
  });
  test('ws with a thread-per-connection sampler: exit 2 naming PB_REQUEST_SAMPLER, nothing started', async () => {
    const r = await refused(['tc7', '5', '30', '500', 'ws', '-', 'event1', '2000'], { env: { PB_REQUEST_SAMPLER: 'http' } });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /ws needs the mux engine \(PB_REQUEST_SAMPLER=mux, the default\), got PB_REQUEST_SAMPLER=http/);
  });
  test('churn on a comet run: exit 2, churn drops SSE and WebSocket streams only, nothing started', async () => {
    const r = await refused(['node', '5', '30', '500', 'comet', '-', 'event1', '2000'], { env: { PB_CHURN_PERCENT: '5' } });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /PB_CHURN_PERCENT=5 drops SSE and WebSocket streams only, not comet streams \(leave it at 0\)/);
  });
  test('--help prints the usage, the - convention and the exit codes, exit 0', async () => {
    const r = await runSh(['--help'], { timeoutMs: 10000 });
    assert.equal(r.code, 0);
    assert.match(r.stdout, USAGE);
    assert.match(r.stdout, /comet - event1 2000/);
    assert.match(r.stdout, /sse - event1 2000/);
    assert.match(r.stdout, /ws - event1 2000/);
    assert.match(r.stdout, /130 interrupted/);
  });
});

describe('run.sh hosts files', () => {
  const engine = 'engine  e1  127.0.0.1  local';
  const sut = 'sut  s1  127.0.0.1  local';
  const args = ['node', '1', '5', '10', 'comet'];
  // [name, lines, line number the message names, message]
  const bad = [
    ['unknown role', [sut, 'client c1 127.0.0.1 local'], 3, /unknown role 'client'/],
    ['unknown option', [sut, `${engine} colour=blue`], 3, /unknown option 'colour'/],
    ['option without a value sign', [sut, `${engine} fast`], 3, /bad option 'fast'/],
    ['bad address', [sut, 'engine e1 127.0.0.300 local'], 3, /bad address '127\.0\.0\.300'/],
    ['host name instead of an address', [sut, 'engine e1 localhost local'], 3, /bad address 'localhost'/],
    ['bad name', [sut, 'engine e;1 127.0.0.1 local'], 3, /bad name/],
    ['duplicate engine name', [sut, engine, 'engine e1 127.0.0.2 local'], 4, /duplicate engine name 'e1' \(first on line 3\)/],
    ['no sut', [engine], 2, /no sut line/],
    ['two suts', [sut, 'sut s2 127.0.0.2 local', engine], 3, /a second sut 's2'/],
    ['no engine', [sut], 2, /no engine line/],
    ['ssh target malformed', [sut, 'engine e1 127.0.0.1 ssh:alice'], 3, /bad access 'ssh:alice'/],
    ['ssh target with a command', [sut, 'engine e1 127.0.0.1 ssh:alice@h;id'], 3, /bad access/],
    ['bad ssh port', [sut, 'engine e1 127.0.0.1 ssh:alice@127.0.0.1 port=70000'], 3, /bad ssh port/],
    ['key for local access', [sut, `${engine} key=/etc/hostname`], 3, /key= is only for ssh access/],
    ['rmi on the sut', ['sut s1 127.0.0.1 local rmi=1234', engine], 2, /rmi= is only for engines/],
    ['relative dir', [sut, `${engine} dir=work/pb`], 3, /bad dir/],
    ['bind on an engine', [sut, `${engine} bind=0.0.0.0`], 3, /bind= is only for the sut/],
    ['bind that is no IPv4 address', ['sut s1 127.0.0.1 local bind=localhost', engine], 2, /bad bind address 'localhost'/],
    ['two engines on one address and rmi port', [sut, engine, 'engine e2 127.0.0.1 local'], 4, /rmi port/],
    ['key that is a directory', [sut, 'engine e1 127.0.0.1 ssh:alice@127.0.0.1 key=/etc'], 3, /key file '\/etc' is not a readable file/],
    ['engine rmi port on the server\'s port', [sut, `${engine} rmi=${process.env.PB_PORT_NODE || 8080}`], 3, /rmi port \d+ is the server's port on 127\.0\.0\.1/],
    ['engine rmi port on the controller\'s callback port', [sut, `${engine} rmi=${process.env.PB_JMETER_CLIENT_LOCALPORT || 4100}`], 3, /is the controller's callback port/],
    ['engine rmi port on another engine\'s RMI local port', [sut, engine, `engine e2 127.0.0.1 local rmi=${process.env.PB_JMETER_RMI_LOCALPORT || 4000}`], 4, /is the RMI local port of engine 'e1'/],
    ['fewer threads than engines', [sut, engine, 'engine e2 127.0.0.1 local rmi=5199', 'engine e3 127.0.0.1 local rmi=5299'], null, /threads \(2\) must be at least the number of engines/],
  ];
  for (const [name, lines, line, message] of bad) {
    test(`${name}: exit 2 naming the line`, async () => {
      const a = name === 'fewer threads than engines' ? ['node', '1', '5', '2', 'comet'] : args;
      const r = await refused(a, { hosts: lines });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
      if (line !== null) assert.ok(r.stderr.includes(`${r.hostsPath}:${line}:`), `no ${path.basename(r.hostsPath)}:${line}: in ${r.stderr}`);
    });
  }

  test('a missing hosts file named by PB_HOSTS: exit 2', async () => {
    const s = scratch('args');
    try {
      const r = await runSh(args, { env: { PB_RESULTS: s.results, PB_STATE: s.state, PB_HOSTS: path.join(s.dir, 'nope.conf') }, timeoutMs: 30000 });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /nope\.conf: not found/);
      assert.equal(listFiles(s.results).length, 0);
    } finally {
      s.cleanup();
    }
  });

  test('more threads than one engine can hold: exit 3, saying what does not fit and how to fix it', async () => {
    // One process here may open at most 20,000 files (design.md): 25,000 connections fit neither the
    // one engine nor the server.
    const r = await refused(['node', '5', '30', '25000', 'comet']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /engine local .*open files: this JMeter engine needs 25000 connections/);
    assert.match(r.stderr, /add engines on other hosts to hosts\.conf/);
    assert.match(r.stderr, /sut local .*open files: the node server .* raise the open-files limit/);
  });

  // lib/decide.js settingsProblems: every port, count, address and flag of lib/config.sh, before anything uses one.
  const badSettings = [
    ['a newline in PB_PORT_NODE', { PB_PORT_NODE: '18080\n1' }, /PB_PORT_NODE holds a control character \(a newline\?\): \$'18080\\n1'/],
    ['PB_JMETER_RMI_PORT out of range', { PB_JMETER_RMI_PORT: '70000' }, /PB_JMETER_RMI_PORT must be a port \(1-65535\), got 70000/],
    ['PB_MAX_EMITTERS not a number', { PB_MAX_EMITTERS: 'many' }, /PB_MAX_EMITTERS must be a whole number >= 1, got many/],
    ['PB_REPLAY_CYCLES over 1024', { PB_REPLAY_CYCLES: '2000' }, /PB_REPLAY_CYCLES must be a whole number from 0 to 1024, got 2000/],
    ['PB_STREAM_BACKLOG_BYTES 0', { PB_STREAM_BACKLOG_BYTES: '0' }, /PB_STREAM_BACKLOG_BYTES must be a whole number >= 1, got 0/],
    ['PB_SERVER_ADDRESS a host name', { PB_SERVER_ADDRESS: 'localhost' }, /PB_SERVER_ADDRESS must be an IPv4 address/],
    ['PB_JMETER_RMI_SSL neither 0 nor 1', { PB_JMETER_RMI_SSL: 'yes' }, /PB_JMETER_RMI_SSL must be 1 \(SSL\) or 0/],
    ['PB_JMETER_STREAM_LOG_CODEC neither lz4 nor gzip', { PB_JMETER_STREAM_LOG_CODEC: 'zstd' }, /PB_JMETER_STREAM_LOG_CODEC must be lz4 or gzip, got zstd/],
    ['PB_CHURN_PERCENT over 100', { PB_CHURN_PERCENT: '100.5' }, /PB_CHURN_PERCENT must be a percentage from 0 to 100 \(up to 3 decimals\), got 100\.5/],
  ];
  for (const [name, env, message] of badSettings) {
    test(`${name}: exit 2 naming the setting, nothing started`, async () => {
      const r = await refused(args, { env });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /bad settings \(lib\/config\.sh; nothing was started\)/);
      assert.match(r.stderr, message);
    });
  }

  test('PB_JMETER_HEAP that is not a heap size: exit 2, nothing started', async () => {
    const r = await refused(args, { env: { PB_JMETER_HEAP: 'lots' } });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /PB_JMETER_HEAP=lots is not a heap size/);
  });

  test('an engine heap larger than the memory available: exit 3, saying what to do', async () => {
    const r = await refused(args, { env: { PB_JMETER_HEAP: '100000g' } });
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /engine local .*memory: this JMeter engine \(\d+ threads\) needs a 102400000 MB heap but only \d+ MB are available/);
    assert.match(r.stderr, /add engines on other\s+hosts to hosts\.conf/);
  });

  test('unreachable ssh host: exit 3 before anything starts, naming the host', async () => {
    // Port 1 on the loopback: nothing listens, so ssh fails at once (connection refused).
    const r = await refused(args, { hosts: [sut, 'engine far 127.0.0.1 ssh:nobody@127.0.0.1 port=1'] });
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /engine far \(127\.0\.0\.1, ssh:nobody@127\.0\.0\.1\): unreachable/);
    assert.match(r.stderr, /nothing was started/);
  });
});
