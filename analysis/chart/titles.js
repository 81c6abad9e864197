'use strict';
// Names and titles in the study's style ("Comet – With Events – 10 Second Emit Interval – CPU Usage").
// The study's three, then the extended study's (issue #23): Node.js on every core, the blocking connectors.
const SERVER_NAMES = { node: 'Node.js', tc6: 'Tomcat 6', tc7: 'Tomcat 7',
  'node-cluster': 'Node.js Cluster', 'tc6-bio': 'Tomcat 6 Blocking', 'tc7-bio': 'Tomcat 7 Blocking' };
const TYPE_NAMES = { comet: 'Comet', poll: 'Long Poll', pull: 'Pull' };
const DASH = ' \u2013 ';

const serverName = (s) => SERVER_NAMES[s] ?? String(s ?? 'unknown server');
const typeName = (t) => TYPE_NAMES[t] ?? String(t ?? 'unknown type');
const thousands = (n) => Number(n).toLocaleString('en-GB');

function seconds(ms) {
  if (ms === null || ms === undefined) return null;
  return ms % 1000 === 0 ? `${ms / 1000} Second` : `${thousands(ms)} ms`;
}

// "With Events – 10 Second Emit Interval", "No Events – 10 Second Request Duration", "No Events"
function eventPart(run) {
  if (run.event && run.interval) return `With Events${DASH}${seconds(run.interval)} Emit Interval`;
  if (run.type === 'poll' && run.maxDuration) return `No Events${DASH}${seconds(run.maxDuration)} Request Duration`;
  return 'No Events';
}

function runTitle(run) {
  const parts = [serverName(run.server), typeName(run.type), eventPart(run)];
  if (run.threads) parts.push(`${thousands(run.threads)} Requests`);
  return parts.join(DASH);
}

const join = (...parts) => parts.filter(Boolean).join(DASH);

module.exports = { serverName, typeName, eventPart, runTitle, seconds, thousands, join, DASH };
