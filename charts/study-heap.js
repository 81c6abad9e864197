'use strict';
// docs/study's answer to issue #35 item 4: Tomcat 7 with the study's -Xmx2400m over the study's 600 s (the
// study's Tomcat 7.0.16 died of OutOfMemoryError, section 5): does it crash, when, and what its heap holds.
// One row per Tomcat 7 run of 600 s or more at the study's scale, from its summary: crash and
// OutOfMemoryError, the server's peak RSS, its collections over the steady window (summary.serverGc,
// analysis/measure/server-gc.js; runs analysed before it have none), the longest emit, the run's verdict;
// then the largest classes of each class histogram taken while a run ran (summary.serverHeapHistogram:
// docs/study/heap-histogram.sh). A plain function of the runs, as the page's other sections.
const { table, escapeHtml, fmt } = require('./page');
const { metricValue } = require('./study-metrics');
const { conditionLabel, STUDY_SMALLEST_LEVEL } = require('./study-finding');
const { verdictOf, isValid } = require('../analysis/verdict');

const LONG_SECONDS = 600;   // the study's duration: the runs that can show a crash or memory growing over time
const MB = 1024 * 1024;

// The Tomcat 7 runs the section is about, in time order.
function longTomcat7Runs(runs) {
  return runs.filter((r) => r.params.server === 'tc7' && r.params.durationS >= LONG_SECONDS && r.params.connections >= STUDY_SMALLEST_LEVEL)
    .sort((a, b) => a.summary.id.localeCompare(b.summary.id));
}

// the live heap's range over the window's full collections (MB)
const liveRange = (live) => {
  if (!live) return '\u2013';
  return live.min === live.max ? fmt(live.min) : `${fmt(live.min)}\u2013${fmt(live.max)}`;
};
const pct = (share) => (share === null || share === undefined ? '\u2013' : `${fmt(share * 100, 1)}%`);
const cell = (v, cls = 'num') => `<td class="${cls}">${escapeHtml(v)}</td>`;

function runRow(r) {
  const s = r.summary;
  const gc = s.serverGc ?? null;
  const oom = s.serverOutOfMemory;
  const verdict = verdictOf(s);
  return [cell(s.id, ''), cell(conditionLabel(r.params, ['server']), ''),
    s.serverCrashed ? '<td><span class="bad">crashed</span></td>' : '<td>no</td>',
    oom ? `<td><span class="bad">${escapeHtml(`${oom.lines} (${oom.kinds.join(', ') || 'no message'})`)}</span></td>` : '<td>none</td>',
    cell(fmt(metricValue('serverRss', r), 0)),
    cell(liveRange(gc?.liveMB)),
    cell(fmt(gc?.heapMB)), cell(fmt(gc?.fullCollections)), cell(pct(gc?.stoppedShare)),
    cell(fmt(s.tail?.longestServerPauseMs, 0)), cell(fmt(metricValue('peakEmitDurationMs', r), 0)),
    isValid(verdict) ? '<td><span class="ok">valid</span></td>' : `<td><span class="warn">${escapeHtml(verdict)}</span></td>`];
}

// A histogram's largest classes as rows: class, instances, MB, share of the heap's bytes.
function histogramRows(h) {
  return h.top.map((c) => [cell(c.class, ''), cell(fmt(c.instances)), cell(fmt(c.bytes / MB, 1)),
    cell(h.totalBytes ? pct(c.bytes / h.totalBytes) : '\u2013')]);
}

// The section's HTML (a heading, the answer in numbers, the runs' table, the histograms), or '' without runs.
function heapSection(runs) {
  const long = longTomcat7Runs(runs);
  if (!long.length) return '';
  const crashed = long.filter((r) => r.summary.serverCrashed).length;
  const oom = long.filter((r) => r.summary.serverOutOfMemory).length;
  const withGc = long.filter((r) => r.summary.serverGc);
  const histograms = long.filter((r) => r.summary.serverHeapHistogram);
  return [
    '<h3 id="tomcat7-heap">Tomcat 7 with the study\'s heap (-Xmx2400m) over 600 s</h3>',
    `<p>The study's Tomcat 7.0.16 died of OutOfMemoryError again and again (section 5). Here Tomcat 7.0.109 on JDK 17, with the same
-Xmx2400m, ran ${long.length} run${long.length === 1 ? '' : 's'} of ${LONG_SECONDS} s or more: it <strong>crashed in ${crashed}</strong> and logged an OutOfMemoryError in
${oom}${withGc.length ? '' : ', and no run\'s collections were read'}. <em>Live heap</em>: the lowest and highest occupancy of the heap after a full
collection in the steady window (what survived it, MB; one value: never more); <em>heap</em>: the heap's size
the JVM had taken (MB); <em>full collections</em> and <em>stopped</em> (the share of the steady window the JVM stood still at safepoints)
over the steady window; <em>longest stop</em> and <em>longest emit</em> in ms (the emit after the window's first 10 s). A dash: not measured
(runs analysed before the collections were read).</p>`,
    table(long.map(runRow), { head: ['Run', 'Permutation', 'Crashed', 'OutOfMemoryError', { text: 'Peak RSS (MB)', num: true },
      { text: 'Live heap (MB)', num: true }, { text: 'Heap (MB)', num: true }, { text: 'Full collections', num: true },
      { text: 'Stopped', num: true }, { text: 'Longest stop (ms)', num: true }, { text: 'Longest emit (ms)', num: true }, 'Validity'] }),
    ...histograms.map((r) => {
      const h = r.summary.serverHeapHistogram;
      return `<p>What the heap held in run ${escapeHtml(r.summary.id)}${h.atSecond === null ? '' : ` at its second ${escapeHtml(fmt(h.atSecond, 0))}`}
(a class histogram, <code>jcmd GC.class_histogram</code>, after the full collection it makes: live objects only): ${escapeHtml(fmt(h.totalBytes / MB, 0))} MB
in ${escapeHtml(fmt(h.totalInstances))} objects; its ${h.top.length} largest classes:</p>`
        + table(histogramRows(h), { head: ['Class', { text: 'Instances', num: true }, { text: 'MB', num: true }, { text: 'Share of the heap', num: true }] });
    }),
  ].join('\n');
}

module.exports = { heapSection, longTomcat7Runs, LONG_SECONDS };
