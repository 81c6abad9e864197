'use strict';
// A run's provenance (issue #24 item 3): what exactly produced it — pushbench's commit, the versions of
// the software under test and of the load generator, each host's hardware, and the settings that differ
// from lib/config.sh's defaults. run.json carries it (docs/run-layout.md); the run report shows it and
// the comparison pages warn when runs drawn in one figure differ in any of it.
//
//   node lib/provenance.js < facts     prints the provenance object (JSON) built from lines of
//     pushbench <TAB> commit|dirty <TAB> <value>
//     transport <TAB> type|sampler <TAB> <value>      (the test type, PB_REQUEST_SAMPLER)
//     setting   <TAB> <PB_ name> <TAB> <value>
//     host      <TAB> <role: sut|engine|sut,engine> <TAB> <name> <TAB> <key> <TAB> <value>   (host/host-facts.sh)
// (lib/provenance.sh collects them during run.sh.)

const HOST_NUMBERS = ['cores', 'memoryMB'];
const VERSION_KEYS = ['jmeter', 'tomcat6', 'tomcat7', 'node', 'jdk', 'kernel'];
// Which role's host a version is read from: JMeter runs on the engines, the rest where the server runs.
const VERSION_ROLE = { jmeter: 'engine', tomcat6: 'sut', tomcat7: 'sut', node: 'sut', jdk: 'sut', kernel: 'sut' };
// The transport of each test type (docs/protocol.md) and how the load side speaks it (docs/engine.md). Recorded,
// not compared (facts): a figure draws runs of several types on purpose.
const PROTOCOLS = { comet: 'HTTP/1.1 streaming (NDJSON)', poll: 'HTTP/1.1 long polling', pull: 'HTTP/1.1 short polling',
  sse: 'Server-Sent Events (text/event-stream)', ws: 'WebSocket (RFC 6455)' };
const clientOf = (type, sampler) => {
  if (sampler === 'mux') return type === 'ws' ? 'mux engine, its own RFC 6455 framing' : 'mux engine, its own HTTP/1.1 parser';
  if (sampler === 'push') return 'push sampler, a socket per connection';
  return sampler ? `JMeter ${sampler} sampler` : null;
};

function build(text) {
  const out = { pushbench: { commit: null, dirty: null }, transport: null, versions: {}, hosts: [], settings: {} };
  const transport = {};
  const hosts = new Map();
  for (const line of text.split('\n')) {
    const f = line.split('\t');
    if (f[0] === 'pushbench' && f[1] === 'commit') out.pushbench.commit = f[2] || null;
    else if (f[0] === 'pushbench' && f[1] === 'dirty') out.pushbench.dirty = f[2] === '' ? null : f[2] === '1';
    else if (f[0] === 'setting' && f[1]) out.settings[f[1]] = f[2] ?? '';
    else if (f[0] === 'transport' && f[1]) transport[f[1]] = f[2] || null;
    else if (f[0] === 'host' && f.length >= 5) {
      const [, role, name, key, value = ''] = f;
      if (!hosts.has(name)) hosts.set(name, { name, role });
      const h = hosts.get(name);
      h[key] = HOST_NUMBERS.includes(key) ? (value === '' ? null : Number(value)) : (value || null);
    }
  }
  if (transport.type) {
    out.transport = { type: transport.type, protocol: PROTOCOLS[transport.type] ?? null, sampler: transport.sampler ?? null,
      client: clientOf(transport.type, transport.sampler) };
  }
  out.hosts = [...hosts.values()].map((h) => ({
    name: h.name, role: h.role, cores: h.cores ?? null, memoryMB: h.memoryMB ?? null, cpuModel: h.cpuModel ?? null,
    kernel: h.kernel ?? null, jdk: h.jdk ?? null, node: h.node ?? null, jmeter: h.jmeter ?? null,
  }));
  for (const key of VERSION_KEYS) {
    const from = [...hosts.values()].find((h) => h.role.split(',').includes(VERSION_ROLE[key]) && h[key]);
    out.versions[key] = from ? from[key] : null;
  }
  return out;
}

// The facts of one provenance that a comparison checks, as [label, value] pairs. Hosts are compared by
// role and position (lanes name their hosts differently; what matters is what they are).
function facts(p) {
  if (!p) return [['provenance', 'none recorded']];
  const pairs = [
    ['pushbench commit', p.pushbench?.commit ?? '?'],
    ['working tree', p.pushbench?.dirty === null || p.pushbench?.dirty === undefined ? '?' : p.pushbench.dirty ? 'dirty' : 'clean'],
    ...VERSION_KEYS.map((k) => [k, p.versions?.[k] ?? '?']),
  ];
  const byRole = {};
  for (const h of p.hosts ?? []) {
    const role = h.role;
    byRole[role] = (byRole[role] ?? 0) + 1;
    const label = `${role} host ${byRole[role]}`;
    pairs.push([`${label} cores`, h.cores ?? '?'], [`${label} memory MB`, h.memoryMB ?? '?'], [`${label} CPU`, h.cpuModel ?? '?']);
  }
  pairs.push(['hosts', (p.hosts ?? []).map((h) => h.role).join(' + ') || '?']);
  const names = new Set([...Object.keys(p.settings ?? {})]);
  for (const n of [...names].sort()) pairs.push([n, p.settings[n]]);
  return pairs;
}

// Where the provenances of several runs differ: [{ what, values: [distinct values] }]. A setting left at
// its default in one run and changed in another counts as a difference ('default' for the former).
function differences(provenances) {
  const lists = provenances.map((p) => new Map(facts(p)));
  const keys = new Set(lists.flatMap((m) => [...m.keys()]));
  const out = [];
  for (const k of keys) {
    const values = [...new Set(lists.map((m) => String(m.has(k) ? m.get(k) : /^PB_/.test(k) ? 'default' : '?')))];
    if (values.length > 1) out.push({ what: k, values });
  }
  return out;
}

// What a run's hosts are, as one short label: runs on host sets that differ in it are not repeats of one
// another, and a figure drawing several draws them as separate lines. Host names and addresses are left
// out (two lanes of identical machines are one host set); null without a provenance.
function hostSet(p) {
  if (!p?.hosts?.length) return null;
  const one = (h) => `${h.cores ?? '?'} cores ${h.memoryMB === null || h.memoryMB === undefined ? '?' : Math.round(h.memoryMB / 1024)} GB ${h.cpuModel ?? '?'}`;
  const sut = p.hosts.filter((h) => h.role.split(',').includes('sut'));
  const engines = p.hosts.filter((h) => h.role.split(',').includes('engine'));
  const counted = (hs) => [...hs.reduce((m, h) => m.set(one(h), (m.get(one(h)) ?? 0) + 1), new Map())]
    .map(([label, n]) => `${n} x ${label}`).join(', ');
  // pinned CPUs (PB_SERVER_CPUS, PB_ENGINE_CPUS) make another setup of the same hosts
  const pins = [['server', p.settings?.PB_SERVER_CPUS], ['engines', p.settings?.PB_ENGINE_CPUS]].filter(([, v]) => v).map(([who, v]) => `${who} on CPU ${v}`);
  return `SUT ${sut.map(one).join(', ') || '?'}; engines ${counted(engines) || '?'}${p.hosts.some((h) => h.role === 'sut,engine') ? ' (shared)' : ''}${pins.length ? `; ${pins.join(', ')}` : ''}`;
}

function formatDifferences(diffs) {
  return diffs.map((d) => `${d.what}: ${d.values.join(' / ')}`).join('; ');
}

module.exports = { build, facts, differences, formatDifferences, hostSet, VERSION_KEYS };

if (require.main === module) {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d) => { input += d; });
  process.stdin.on('end', () => process.stdout.write(`${JSON.stringify(build(input), null, 2)}\n`));
}
