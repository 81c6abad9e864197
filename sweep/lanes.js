'use strict';
// Lanes (issue #24 item 1): independent host sets a sweep runs on at once, one permutation per lane at a
// time. A lane is a hosts.conf (one sut, its engines; docs/hosts.md): ./sweep.sh --lanes a.conf,b.conf.
// Without --lanes the sweep has one lane, the usual hosts file (PB_HOSTS or hosts.conf), and runs
// exactly as before.
//
// What keeps two run.sh of one sweep apart on this machine (the controller of every lane runs here):
//   PB_STATE                    <PB_STATE>/lanes/<lane>: PID files, ssh sockets and work directories
//                               (hosts sharing this file system, as the test's namespace hosts do, would
//                               otherwise stop each other's servers: run.sh stops every server first)
//   PB_JMETER_CLIENT_LOCALPORT  + LANE_PORT_STEP x the lane's position: the controller's callback ports
//   PB_HOSTS                    the lane's file
// and no host may be in two lanes (same address, or both on this machine).

const fs = require('node:fs');
const path = require('node:path');

const LANE_PORT_STEP = 10;   // JMeter's controller takes a few ports from client.rmi.localport up

class LaneError extends Error {}

// --lanes value -> [{ name, file }], names from the file names (made unique), files resolved.
function parseLanes(value, cwd = process.cwd()) {
  const files = String(value).split(',').map((s) => s.trim()).filter(Boolean);
  if (!files.length) throw new LaneError('--lanes: empty list');
  const seen = new Map();
  return files.map((f, i) => {
    const file = path.resolve(cwd, f);
    if (files.indexOf(f) !== i) throw new LaneError(`--lanes: ${f} is given twice`);
    let name = path.basename(file).replace(/\.conf$/, '').replace(/[^A-Za-z0-9_.-]/g, '_') || `lane${i + 1}`;
    if (seen.has(name)) name = `${name}-${i + 1}`;
    seen.set(name, true);
    return { name, file };
  });
}

// Each lane with the environment its run.sh and its checks get.
function laneEnvs(lanes, env = process.env, root = path.resolve(__dirname, '..')) {
  if (lanes.length === 1 && lanes[0].default) return [{ ...lanes[0], index: 0, env: {} }];
  const state = env.PB_STATE || path.join(env.PB_BUILD || path.join(root, 'build'), 'state');
  const basePort = Number(env.PB_JMETER_CLIENT_LOCALPORT || 4100);
  return lanes.map((l, i) => ({
    ...l,
    index: i,
    env: {
      PB_HOSTS: l.file,
      PB_STATE: path.join(state, 'lanes', l.name),
      PB_JMETER_CLIENT_LOCALPORT: String(basePort + i * LANE_PORT_STEP),
    },
  }));
}

// The one lane of a sweep without --lanes.
const defaultLane = () => ({ name: 'default', file: null, default: true });

// Files that do not exist: checked before anything else, with the lane named.
function missingFiles(lanes) {
  return lanes.filter((l) => l.file && !fs.existsSync(l.file)).map((l) => `lane ${l.name}: ${l.file}: no such file`);
}

// Hosts in more than one lane: lanes [{ name, hosts: [{ role, name, address }] }] -> messages.
// A host is its address; every 127.0.0.0/8 address is this machine.
function sharedHosts(lanes) {
  const where = new Map();
  for (const l of lanes) {
    for (const h of l.hosts) {
      const id = /^127\./.test(h.address) ? 'this machine (127.0.0.0/8)' : h.address;
      if (!where.has(id)) where.set(id, new Map());
      const m = where.get(id);
      if (!m.has(l.name)) m.set(l.name, `${h.role} ${h.name}`);
    }
  }
  return [...where].filter(([, m]) => m.size > 1)
    .map(([id, m]) => `host ${id} is in ${m.size} lanes: ${[...m].map(([lane, what]) => `${lane} (${what})`).join(', ')}; a host may be in one lane only`);
}

module.exports = { parseLanes, laneEnvs, defaultLane, missingFiles, sharedHosts, LaneError, LANE_PORT_STEP };
