'use strict';
// lib/config.sh's settings as Node sees them, read from that file: it stays the one place of every
// default. Each of its settings is a line `PB_NAME=${PB_NAME:-<default>}` (lib/config.sh's own form);
// a default may name settings defined above it ($PB_BUILD, ${PB_START_TIMEOUT_TOMCAT}). As in bash, a
// setting that is unset or empty in the environment takes its default.
//
//   settings(env)   every setting of lib/config.sh resolved against env (default process.env), plus
//                   every other PB_* variable of env as given: { NAME: value }
//   DEFAULTS        [{ name, default }] in the file's order (the defaults unexpanded)
//
// lib/test/decide.test.js checks settings() against bash sourcing lib/config.sh.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const LINE = /^([A-Z][A-Z0-9_]*)=\$\{\1:-(.*?)\}\s*(?:#.*)?$/;

const DEFAULTS = fs.readFileSync(path.join(__dirname, 'config.sh'), 'utf8').split('\n')
  .map((l) => LINE.exec(l)).filter(Boolean).map((m) => ({ name: m[1], default: m[2] }));

// $NAME and ${NAME} in a default, from the settings resolved so far.
const expand = (text, known) => text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
  (_, a, b) => known[a ?? b] ?? '');

function settings(env = process.env) {
  const out = {};
  for (const [k, v] of Object.entries(env)) if (k.startsWith('PB_') && v !== undefined) out[k] = String(v);
  const given = (name) => (env[name] !== undefined && env[name] !== '' ? String(env[name]) : null);
  const known = { HOME: env.HOME ?? '' };
  for (const d of DEFAULTS) {
    // PB_ROOT's default is the checkout (a command substitution in bash).
    const value = given(d.name) ?? (d.name === 'PB_ROOT' ? ROOT : expand(d.default, known));
    known[d.name] = value;
    out[d.name] = value;
  }
  return out;
}

module.exports = { settings, DEFAULTS, ROOT };
