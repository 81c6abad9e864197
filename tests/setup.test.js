'use strict';
// setup.sh: a second call only checks (nothing is installed again), and a prerequisite it cannot
// install itself (Java, Maven, Node.js) stops it with one clear line naming what is missing.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const SETUP = path.join(ROOT, 'setup.sh');

// A PATH holding only the named commands (symlinks to the real ones), so one prerequisite can be missing.
function pathWith(commands) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-setup-path-'));
  for (const cmd of commands) {
    const real = execFileSync('bash', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim();
    fs.symlinkSync(real, path.join(dir, cmd));
  }
  return dir;
}

function setup(args, env = {}) {
  return spawnSync('bash', [SETUP, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 600000 });
}

test('a second set-up call installs nothing', () => {
  const first = setup([]); // test.sh already ran it; this makes sure, then the next call must only check
  assert.equal(first.status, 0, first.stderr);
  const again = setup([]);
  assert.equal(again.status, 0, again.stderr);
  // First installs say "installing", "installed in" or "built:"; a check says "present", "up to date", "already installed".
  assert.doesNotMatch(again.stdout + again.stderr, /installing|(?<!already )installed in|built:/i);
  assert.match(again.stdout, /jmeter: .*up to date/);
  assert.match(again.stdout, /tomcat6 .*already installed/);
  assert.match(again.stdout, /tomcat7 .*already installed/);
  assert.match(again.stdout, /instrumentation-java: up to date/);
  assert.match(again.stdout, /Debian packages present/);
  assert.match(again.stdout, /npm dependencies present/);
  assert.match(again.stdout, /setup: ready/);
});

const BASICS = ['bash', 'dirname', 'mkdir', 'sed', 'id'];
const cases = [
  ['Java', BASICS, /missing prerequisite: Java 17 or newer \(no 'java' on PATH\)/],
  ['Maven', [...BASICS, 'java', 'javac'], /missing prerequisite: Maven/],
  ['Node.js', [...BASICS, 'java', 'javac', 'mvn'], /missing prerequisite: Node\.js 18 or newer/],
];
for (const [what, commands, message] of cases) {
  test(`no ${what}: one clear line, exit 1, nothing installed`, () => {
    const bin = pathWith(commands);
    const build = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-setup-build-'));
    try {
      const r = setup([], { PATH: bin, PB_BUILD: build });
      assert.equal(r.status, 1);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `expected one line, got:\n${r.stderr}`);
      assert.match(lines[0], message);
      assert.equal(r.stdout, '');
      assert.deepEqual(fs.readdirSync(build).filter((f) => f !== 'state'), [], 'something was installed');
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
      fs.rmSync(build, { recursive: true, force: true });
    }
  });
}

test('setup.sh refuses an unknown option', () => {
  const r = setup(['--bogus']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /usage: \.\/setup\.sh/);
});
