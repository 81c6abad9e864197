'use strict';
// What sut/server.log (the server's own output: Node's stderr, a Tomcat's catalina output) says about the
// server running out of memory (issue #35 item 4; the study's Tomcat 7 died of OutOfMemoryError, section 5).
// The Tomcats run with -XX:+PrintClassHistogram and -XX:OnOutOfMemoryError="kill -3 %p"
// (servers/tomcat-common.sh): at their first OutOfMemoryError they print a thread dump and a class
// histogram of the heap ("num #instances #bytes class name"), which is read here. The same histogram taken
// while the server runs (`jcmd <pid> GC.class_histogram`, docs/study/heap-histogram.sh) is sut/class-histogram.txt,
// its first line "# taken at epoch ms <n>" (the SUT host's clock).
const fs = require('node:fs');

const TOP = 10;   // the histogram's largest classes kept

// From the log's text: null when no OutOfMemoryError was logged, else { lines (how many name
// java.lang.OutOfMemoryError), kinds (its messages, e.g. "Java heap space"), heap: null or { top: [{ class,
// instances, bytes }], totalInstances, totalBytes } (the first histogram printed) }.
function outOfMemoryOf(text) {
  const all = text.split('\n');
  const errors = all.filter((l) => l.includes('java.lang.OutOfMemoryError'));
  if (!errors.length) return null;
  const kinds = [...new Set(errors.map((l) => /OutOfMemoryError:\s*(.+?)\s*$/.exec(l)?.[1]).filter(Boolean))];
  return { lines: errors.length, kinds, heap: histogramOf(all) };
}

// The first class histogram in the lines, or null.
function histogramOf(lines) {
  const start = lines.findIndex((l) => /^\s*num\s+#instances\s+#bytes\s+class name/.test(l));
  if (start < 0) return null;
  const top = [];
  for (const l of lines.slice(start + 1)) {
    const total = /^Total\s+(\d+)\s+(\d+)/.exec(l);
    if (total) return { top, totalInstances: Number(total[1]), totalBytes: Number(total[2]) };
    const row = /^\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)/.exec(l);
    if (row && top.length < TOP) top.push({ class: row[3], instances: Number(row[1]), bytes: Number(row[2]) });
  }
  return { top, totalInstances: null, totalBytes: null };   // cut off before its Total line
}

// The same from the file; null when there is no such file.
function readOutOfMemory(file) {
  let text;
  try { text = fs.readFileSync(file, 'utf8'); } catch { return null; }
  return outOfMemoryOf(text);
}

// sut/class-histogram.txt: null when there is no such file or no histogram in it, else { takenAtMs (epoch
// ms, the SUT host's clock, or null), top, totalInstances, totalBytes } (the histogram as above).
function readClassHistogram(file) {
  let text;
  try { text = fs.readFileSync(file, 'utf8'); } catch { return null; }
  const lines = text.split('\n');
  const heap = histogramOf(lines);
  if (!heap) return null;
  const taken = /^# taken at epoch ms (\d+)/.exec(lines[0]);
  return { takenAtMs: taken ? Number(taken[1]) : null, ...heap };
}

module.exports = { outOfMemoryOf, readOutOfMemory, readClassHistogram };
