'use strict';
// Target files (issue #47, docs/targets.md): a push server pushbench did not start, described in JSON. This
// module is the one place a target file is read: every key checked (an unknown one refused, so a typo never
// silently changes a run), every error naming the key's path; the checked file normalized into the spec the
// engines get (the JMeter property target.spec, base64 of JSON; docs/targets.md "Inside"). The engines fill
// the placeholders and frame the messages; the analysis extracts seq and sentUs (analysis/measure/).
//
//   readTarget(file)                 { target, sha256, text } or a TargetError naming the key; tls.ca's file
//                                    (relative to the target file's directory) read and checked into tls.caPem
//   checkTarget(json, label)         the normalized target of a parsed file (label: the file, for messages);
//                                    no file is read (the analysis checks a run's copy, without its CA file)
//   engineSpec(target, prefix, first, count)  the spec one engine gets: its channels are named <prefix><n>;
//                                    its connections are the run's first..first+count-1 (their {{token}} lines)
//   encodeSpec(spec)                 base64 of its JSON
//   DRAIN_MS                         the publishers stop this long before the subscriptions end
//
// CLI (run.sh, lib/decide.js):
//   node lib/target.js check <file>                 the normalized target as JSON; exit 2 with the error
//   node lib/target.js spec <file> <channel prefix> [<first connection> <connections>]
//                                                   one engine's target.spec (base64)
// Tokens (issue #49 item 2): the file `tokens` names holds one value a line; connection n of the run (over all
// engines) fills {{token}} with line n + 1. The values are read here only to be checked and counted: neither
// the target, nor the spec, nor any message holds one (an engine reads its own lines from the file).
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { parseThreshold, ThresholdError } = require('./thresholds');

const TRANSPORTS = Object.freeze(['sse', 'ws', 'stream', 'poll', 'pull']);
// The engines stop publishing this long before they close the subscriptions at the run's duration, so the
// last messages have time to arrive; the analysis expects nothing published after it.
const DRAIN_MS = 2000;
const MAX_PAD = 1 << 20;
const LIMITS = Object.freeze({ channels: [1, 100000], rate: [0.01, 10000], intervalMs: [10, 3600000] });
// Which placeholders each part may hold: seq and sentUs exist only once a publish is sent.
// {{cursor}} only in a poll's or pull's URL and headers, and only with subscribe.cursor.fromMessage.
const PLACEHOLDERS = Object.freeze({ subscribe: ['channel', 'client', 'token', 'cursor', 'pad'], publish: ['channel', 'seq', 'sentUs', 'token', 'pad'] });
// A sample value for each placeholder, to check that a templated URL parses once filled.
const SAMPLE = Object.freeze({ channel: 'run-engine-0', client: '0', cursor: '1700000000%3A0', seq: '1', sentUs: '1700000000000000', token: 'token', pad: 'x' });

class TargetError extends Error {}

const KEYS = Object.freeze({
  top: ['name', 'transport', 'interval', 'subscribe', 'publish', 'channels', 'rate', 'extract', 'thresholds', 'tls', 'tokens'],
  tls: ['ca', 'insecure', 'serverName'],
  subscribe: ['url', 'headers', 'send', 'framing', 'cursor'],
  publish: ['method', 'url', 'headers', 'body'],
  extract: ['seq', 'sentUs'],
});

const typeOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

// A checker bound to one file: fail(key, what) throws "target file <label>: <key>: <what>".
function checker(label) {
  const fail = (key, what) => { throw new TargetError(`target file ${label}: ${key}: ${what}`); };
  const object = (key, v) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(key, `must be an object, got ${typeOf(v)}`);
    return v;
  };
  const onlyKeys = (key, v, allowed) => {
    for (const k of Object.keys(v)) {
      if (!allowed.includes(k)) fail(key ? `${key}.${k}` : k, `unknown key (allowed${key ? ` in ${key}` : ''}: ${allowed.join(', ')})`);
    }
  };
  const string = (key, v, { empty = false } = {}) => {
    if (typeof v !== 'string') fail(key, `must be a string, got ${typeOf(v)}`);
    if (!empty && v === '') fail(key, 'must not be empty');
    return v;
  };
  const number = (key, v, [min, max], { whole = false } = {}) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) fail(key, `must be a number, got ${typeOf(v)}`);
    if (whole && !Number.isInteger(v)) fail(key, `must be a whole number, got ${v}`);
    if (v < min || v > max) fail(key, `must be from ${min} to ${max}, got ${v}`);
    return v;
  };
  return { fail, object, onlyKeys, string, number, used: new Set() };
}

// The placeholders of a text: [{ name, arg }]; an unknown one, or one not allowed in this part, fails.
function placeholders(c, key, text, part) {
  const found = [];
  const re = /\{\{([^{}]*)\}\}/g;
  let m;
  while ((m = re.exec(text)) !== null) {
    const [name, arg] = m[1].split(':');
    if (!PLACEHOLDERS[part].includes(name) || (name === 'pad') !== (arg !== undefined)) {
      const allowed = PLACEHOLDERS[part].map((p) => (p === 'pad' ? '{{pad:N}}' : `{{${p}}}`)).join(', ');
      c.fail(key, `unknown placeholder {{${m[1]}}} (allowed in ${part}: ${allowed})`);
    }
    if (name === 'pad' && !(/^[0-9]{1,7}$/.test(arg) && Number(arg) <= MAX_PAD)) c.fail(key, `{{pad:N}} needs N from 0 to ${MAX_PAD}, got '${arg}'`);
    found.push({ name, arg });
    c.used.add(name);
  }
  const rest = text.replace(re, '');
  // '{{' always opens a placeholder; '}}' alone is text (a JSON body closing nested objects)
  if (rest.includes('{{')) c.fail(key, 'an unclosed placeholder ({{ without its }})');
  return found;
}

const fill = (text) => text.replace(/\{\{([^{}:]*)(?::[0-9]+)?\}\}/g, (_, name) => SAMPLE[name]);

// The schemes spoken over TLS (issue #49), and each one's default port.
const TLS_SCHEMES = Object.freeze(['https', 'wss']);
const DEFAULT_PORT = Object.freeze({ http: 80, ws: 80, https: 443, wss: 443 });

// A URL of the given schemes, its placeholders checked and the filled URL parsed; tls: spoken over TLS.
function url(c, key, v, part, schemes) {
  c.string(key, v);
  placeholders(c, key, v, part);
  let u;
  try { u = new URL(fill(v)); } catch { c.fail(key, `not a URL: '${v}'`); }
  const scheme = u.protocol.slice(0, -1);
  if (!schemes.includes(scheme)) c.fail(key, `must be a ${schemes.map((s) => `${s}://`).join(' or ')} URL, got '${v}'`);
  if (u.username || u.password) c.fail(key, 'credentials in the URL are not sent; use headers (e.g. Authorization)');
  if (u.hash) c.fail(key, `a #fragment is never sent: '${v}'`);
  return { text: v, host: u.hostname, port: Number(u.port || DEFAULT_PORT[scheme]), tls: TLS_SCHEMES.includes(scheme) };
}

// The tls object (docs/targets.md "TLS"): { ca: a PEM file's path or null, insecure, serverName or null }.
// Only with an https:// or wss:// URL; ca and insecure exclude each other (insecure checks nothing).
function checkTls(c, v, used) {
  if (v === undefined) return { ca: null, insecure: false, serverName: null };
  c.object('tls', v);
  c.onlyKeys('tls', v, KEYS.tls);
  if (!used) c.fail('tls', 'no https:// or wss:// URL uses it');
  const ca = v.ca === undefined ? null : c.string('tls.ca', v.ca);
  if (v.insecure !== undefined && typeof v.insecure !== 'boolean') c.fail('tls.insecure', `must be true or false, got ${typeOf(v.insecure)}`);
  const insecure = v.insecure === true;
  if (insecure && ca !== null) c.fail('tls.insecure', 'trusts any certificate: tls.ca would not be checked (give one or the other)');
  const serverName = v.serverName === undefined ? null : c.string('tls.serverName', v.serverName);
  if (serverName !== null && !/^[A-Za-z0-9.-]{1,253}$/.test(serverName)) c.fail('tls.serverName', `must be a host name, got '${serverName}'`);
  return { ca, insecure, serverName };
}

// The token file (relative to the target file's directory), its values checked but never kept or printed:
// { path (absolute), count }. A value may not be empty nor hold a control character (it goes into a header).
function countTokens(c, file, given) {
  const where = path.resolve(path.dirname(file), given);
  let text;
  try { text = fs.readFileSync(where, 'utf8'); } catch (e) { c.fail('tokens', `cannot be read: ${where}: ${e.code || e.message}`); }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, i) => {
    const v = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (v === '') c.fail('tokens', `${where}: line ${i + 1} is empty`);
    if (/[\u0000-\u001f\u007f]/.test(v)) c.fail('tokens', `${where}: line ${i + 1} holds a control character (its value is not shown)`);
  });
  if (lines.length === 0) c.fail('tokens', `${where}: holds no value`);
  return { path: where, count: lines.length };
}

// The PEM text of tls.ca's file (relative to the target file's directory), each certificate parsed.
function readCa(c, file, ca) {
  const where = path.resolve(path.dirname(file), ca);
  let pem;
  try { pem = fs.readFileSync(where, 'ascii'); } catch (e) { c.fail('tls.ca', `cannot be read: ${where}: ${e.code || e.message}`); }
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) c.fail('tls.ca', `${where}: no PEM certificate (-----BEGIN CERTIFICATE-----) in it`);
  for (const b of blocks) {
    try { new crypto.X509Certificate(b); } catch (e) { c.fail('tls.ca', `${where}: a certificate that does not parse: ${e.message}`); }
  }
  return `${blocks.join('\n')}\n`;
}

// Request headers: an object of strings, as [name, value] pairs in the file's order.
function headers(c, key, v, part) {
  if (v === undefined) return [];
  c.object(key, v);
  return Object.entries(v).map(([name, value]) => {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) c.fail(`${key}.${name}`, 'not a header name (RFC 9110 token)');
    if (/^(host|content-length|transfer-encoding|connection|upgrade)$/i.test(name)) c.fail(`${key}.${name}`, 'set by the engine itself');
    c.string(`${key}.${name}`, value, { empty: true });
    if (/[\r\n\0]/.test(value)) c.fail(`${key}.${name}`, 'must not hold CR, LF or NUL');
    placeholders(c, `${key}.${name}`, value, part);
    return [name, value];
  });
}

// An extract rule: a JSON pointer (RFC 6901) or a regular expression with exactly one capture group.
function extractRule(c, key, v) {
  c.string(key, v);
  if (v.startsWith('/')) {
    if (/~[^01]|~$/.test(v)) c.fail(key, `a JSON pointer's ~ must be ~0 or ~1: '${v}'`);
    return v;
  }
  let re;
  try { re = new RegExp(v); } catch (e) { c.fail(key, `neither a JSON pointer (starts with /) nor a regular expression: ${e.message}`); }
  const groups = new RegExp(`${re.source}|`).exec('').length - 1;
  if (groups !== 1) c.fail(key, `a regular expression needs exactly one capture group, '${v}' has ${groups}`);
  return v;
}

function framing(c, v, transport) {
  if (v === undefined) return { kind: 'line' };
  if (transport !== 'stream') c.fail('subscribe.framing', `only for transport stream, not ${transport}`);
  if (v === 'line' || v === 'chunk') return { kind: v };
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    c.onlyKeys('subscribe.framing', v, ['delimiter']);
    return { kind: 'delimiter', text: c.string('subscribe.framing.delimiter', v.delimiter) };
  }
  return c.fail('subscribe.framing', `must be "line", "chunk" or { "delimiter": "..." }, got ${JSON.stringify(v)}`);
}

// subscribe.cursor (poll and pull): response header -> request header pairs echoed on the next request,
// and the two keys of a cursor taken from the last message (docs/targets.md "Cursors"): fromMessage, an
// extract rule (the grammar of extract.seq) whose value fills {{cursor}}, and initial, its value before
// the first message the rule matches (default ''). Returns { headers: [[from, to]], message: { rule,
// initial } or null }.
const CURSOR_KEYS = Object.freeze(['fromMessage', 'initial']);
function cursor(c, v, transport) {
  if (v === undefined) return { headers: [], message: null };
  if (transport !== 'poll' && transport !== 'pull') c.fail('subscribe.cursor', `only for transports poll and pull, not ${transport}`);
  c.object('subscribe.cursor', v);
  const headers = Object.entries(v).filter(([k]) => !CURSOR_KEYS.includes(k)).map(([from, to]) => {
    c.string(`subscribe.cursor.${from}`, to);
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(from) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(to)) {
      c.fail(`subscribe.cursor.${from}`, 'response header -> request header, both header names');
    }
    return [from, to];
  });
  if (v.fromMessage === undefined) {
    if (v.initial !== undefined) c.fail('subscribe.cursor.initial', 'only with subscribe.cursor.fromMessage');
    return { headers, message: null };
  }
  const rule = extractRule(c, 'subscribe.cursor.fromMessage', v.fromMessage);
  const initial = v.initial === undefined ? '' : c.string('subscribe.cursor.initial', v.initial, { empty: true });
  if (/[\u0000-\u001f\u007f]/.test(initial)) c.fail('subscribe.cursor.initial', 'must not hold a control character (it may go into a header)');
  return { headers, message: { rule, initial } };
}

function checkSubscribe(c, v, transport) {
  c.object('subscribe', v);
  c.onlyKeys('subscribe', v, KEYS.subscribe);
  if (v.url === undefined) c.fail('subscribe.url', 'required');
  const u = url(c, 'subscribe.url', v.url, 'subscribe', transport === 'ws' ? ['ws', 'wss'] : ['http', 'https']);
  let send = null;
  if (v.send !== undefined) {
    if (transport !== 'ws') c.fail('subscribe.send', `only for transport ws, not ${transport}`);
    send = c.string('subscribe.send', v.send);
    placeholders(c, 'subscribe.send', send, 'subscribe');
  }
  const cur = cursor(c, v.cursor, transport);
  return { url: u.text, host: u.host, port: u.port, tls: u.tls, headers: headers(c, 'subscribe.headers', v.headers, 'subscribe'), send,
    framing: framing(c, v.framing, transport), ...cursorParts(c, cur) };
}

// {{cursor}} and subscribe.cursor.fromMessage go together: each without the other is refused.
function cursorParts(c, cur) {
  if (cur.message === null && c.used.has('cursor')) c.fail('subscribe.cursor.fromMessage', 'required: {{cursor}} is used (the rule that takes it from the last message; transports poll and pull)');
  if (cur.message !== null && !c.used.has('cursor')) c.fail('subscribe.cursor.fromMessage', 'no {{cursor}} in subscribe.url or subscribe.headers uses it');
  return { cursor: cur.headers, cursorMessage: cur.message };
}

function checkPublish(c, v) {
  c.object('publish', v);
  c.onlyKeys('publish', v, KEYS.publish);
  const method = v.method === undefined ? 'POST' : c.string('publish.method', v.method);
  if (method !== 'POST' && method !== 'PUT') c.fail('publish.method', `must be POST or PUT, got '${method}'`);
  if (v.url === undefined) c.fail('publish.url', 'required');
  const u = url(c, 'publish.url', v.url, 'publish', ['http', 'https']);
  if (v.body === undefined) c.fail('publish.body', 'required');
  const body = c.string('publish.body', v.body, { empty: true });
  const used = placeholders(c, 'publish.body', body, 'publish').map((p) => p.name);
  if (!used.includes('seq')) c.fail('publish.body', 'must carry {{seq}}: a delivered message is known by its sequence number');
  return { method, url: u.text, host: u.host, port: u.port, tls: u.tls, headers: headers(c, 'publish.headers', v.headers, 'publish'), body };
}

// The file's thresholds (lib/thresholds.js), each checked: their texts.
function thresholdList(c, v) {
  if (v === undefined) return [];
  if (!Array.isArray(v)) c.fail('thresholds', `must be an array of strings, got ${typeOf(v)}`);
  return v.map((t, i) => {
    c.string(`thresholds[${i}]`, t);
    try {
      return parseThreshold(t).text;
    } catch (e) {
      if (e instanceof ThresholdError) c.fail(`thresholds[${i}]`, e.message);
      throw e;
    }
  });
}

// The normalized target of a parsed file, or a TargetError naming the first bad key.
function checkTarget(json, label = 'target') {
  const c = checker(label);
  c.object('(the file)', json);
  c.onlyKeys('', json, KEYS.top);
  const base = path.basename(String(label)).replace(/\.json$/i, '');
  const name = json.name === undefined ? base : c.string('name', json.name);
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) c.fail('name', `letters, digits, '.', '_' and '-' only (at most 64), got '${name}'`);
  if (json.transport === undefined) c.fail('transport', `required: one of ${TRANSPORTS.join(', ')}`);
  if (!TRANSPORTS.includes(json.transport)) c.fail('transport', `must be one of ${TRANSPORTS.join(', ')}, got ${JSON.stringify(json.transport)}`);
  const transport = json.transport;
  let intervalMs = 0;
  if (transport === 'pull') {
    if (json.interval === undefined) c.fail('interval', 'required for transport pull (ms between two asks)');
    intervalMs = c.number('interval', json.interval, LIMITS.intervalMs, { whole: true });
  } else if (json.interval !== undefined) {
    c.fail('interval', `only for transport pull, not ${transport}`);
  }
  if (json.subscribe === undefined) c.fail('subscribe', 'required');
  if (json.publish === undefined) c.fail('publish', 'required: the engines time the messages they publish');
  if (json.extract === undefined) c.fail('extract', 'required: where a message\'s seq is');
  const subscribe = checkSubscribe(c, json.subscribe, transport);
  const publish = checkPublish(c, json.publish);
  const channels = json.channels === undefined ? 1 : c.number('channels', json.channels, LIMITS.channels, { whole: true });
  const rate = json.rate === undefined ? 1 : c.number('rate', json.rate, LIMITS.rate);
  c.object('extract', json.extract);
  c.onlyKeys('extract', json.extract, KEYS.extract);
  if (json.extract.seq === undefined) c.fail('extract.seq', 'required');
  const extract = { seq: extractRule(c, 'extract.seq', json.extract.seq),
    sentUs: json.extract.sentUs === undefined ? null : extractRule(c, 'extract.sentUs', json.extract.sentUs) };
  const tls = checkTls(c, json.tls, subscribe.tls || publish.tls);
  const tokens = json.tokens === undefined ? null : { file: c.string('tokens', json.tokens) };
  if (tokens === null && c.used.has('token')) c.fail('tokens', 'required: {{token}} is used (a file of one value a line, one line per connection)');
  if (tokens !== null && !c.used.has('token')) c.fail('tokens', 'no {{token}} uses it');
  return { name, transport, intervalMs, subscribe, publish, channels, rate, extract, thresholds: thresholdList(c, json.thresholds), tls, tokens, drainMs: DRAIN_MS };
}

// The file read, parsed and checked: { target, sha256 (of its bytes), text }.
function readTarget(file) {
  let text;
  try { text = fs.readFileSync(file, 'utf8'); } catch (e) { throw new TargetError(`target file ${file}: cannot be read: ${e.code || e.message}`); }
  let json;
  try { json = JSON.parse(text); } catch (e) { throw new TargetError(`target file ${file}: not JSON: ${e.message}`); }
  const target = checkTarget(json, file);
  if (target.tls.ca !== null) target.tls.caPem = readCa(checker(file), file, target.tls.ca);
  if (target.tokens !== null) Object.assign(target.tokens, countTokens(checker(file), file, target.tokens.file));
  return { target, sha256: crypto.createHash('sha256').update(text).digest('hex'), text };
}

// What one engine gets (docs/targets.md "Inside"): the target less what only the analysis reads; of the
// extract rules only sentUs, which the engine applies to a bounded sample of messages (the progress line's
// trip-time p99, docs/engine.md "Sampled trip time").
function engineSpec(t, channelPrefix, first = 0, count = null) {
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(channelPrefix)) throw new TargetError(`bad channel prefix '${channelPrefix}'`);
  let tokens = null;
  if (t.tokens) {
    if (typeof t.tokens.path !== 'string') throw new TargetError(`tokens '${t.tokens.file}' was not read (readTarget reads it)`);
    if (!Number.isInteger(first) || first < 0 || !Number.isInteger(count) || count < 1) {
      throw new TargetError('tokens: an engine\'s first connection and its connections are needed to give it its lines');
    }
    tokensFit(t.tokens, first + count);
    tokens = { file: t.tokens.path, first, count };
  }
  const part = ({ host, port, tls, ...rest }) => rest;
  const tls = t.tls ?? { ca: null, insecure: false, serverName: null };
  if (tls.ca !== null && typeof tls.caPem !== 'string') throw new TargetError(`tls.ca '${tls.ca}' was not read (readTarget reads it)`);
  return { name: t.name, transport: t.transport, intervalMs: t.intervalMs, subscribe: part(t.subscribe), publish: part(t.publish),
    channels: t.channels, rate: t.rate, drainMs: t.drainMs, channelPrefix, extract: { sentUs: t.extract.sentUs },
    tls: { ca: tls.ca === null ? null : tls.caPem, insecure: tls.insecure, serverName: tls.serverName }, tokens };
}

// A token file read by readTarget must hold a line for each of `connections` connections, or a TargetError
// says both numbers.
function tokensFit(tokens, connections) {
  if (tokens && tokens.count < connections) {
    throw new TargetError(`tokens: ${tokens.path} holds ${tokens.count} value(s), the run has ${connections} connections (one each)`);
  }
}

const encodeSpec = (spec) => Buffer.from(JSON.stringify(spec), 'utf8').toString('base64');

function main(argv) {
  const [cmd, file, prefix, first, count] = argv;
  try {
    if (cmd === 'check' && argv.length === 2) {
      process.stdout.write(`${JSON.stringify(readTarget(file).target, null, 2)}\n`);
      return 0;
    }
    if (cmd === 'spec' && (argv.length === 3 || argv.length === 5)) {
      const slice = argv.length === 5 ? [Number(first), Number(count)] : [];
      process.stdout.write(`${encodeSpec(engineSpec(readTarget(file).target, prefix, ...slice))}\n`);
      return 0;
    }
  } catch (e) {
    if (!(e instanceof TargetError)) throw e;
    process.stderr.write(`${e.message}\n`);
    return 2;
  }
  process.stderr.write('usage: node lib/target.js check <file> | spec <file> <channel prefix> [<first connection> <connections>]\n');
  return 2;
}

module.exports = { TRANSPORTS, TLS_SCHEMES, DRAIN_MS, TargetError, checkTarget, readTarget, engineSpec, encodeSpec, tokensFit };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
