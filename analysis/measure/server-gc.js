'use strict';
// The server JVM's collections over the steady window (issue #35 item 4: how Tomcat 7 fares with the
// study's -Xmx2400m, study section 5): how long it stood still, how many full collections it made, and what
// was live after them, from sut/gc.log (read/gc-log.js). A stop or a collection is booked in the window
// when it ended within it (as pausePerSecond books a pause in the second it ended in).
//   stoppedMs        the stops' total (safepoints, or GC pauses where no safepoints are logged)
//   stoppedShare     stoppedMs over the window's length: the share of the time no request was served
//   fullCollections  the "Pause Full" collections; fullCollectionMs their total
//   liveMB           the heap's occupancy after each full collection (what survived it: the live set):
//                    { first, last, min, max }, or null without a full collection in the window
//   heapMB           the heap's size the JVM had taken at the window's last collection, or null

const { r3 } = require('./per-second');

// gc: read/gc-log.js's { pauses }; stops: its stopsOf(gc); fromMs, toMs: the window on the JVM's clock
// (epoch ms). Returns the figures above, and source: 'safepoints' | 'GC pauses' (what stoppedMs sums).
function serverGcOf({ gc, stops, fromMs, toMs }) {
  const within = (x) => x.epochMs >= fromMs && x.epochMs < toMs;
  const windowStops = stops.filter(within);
  const collections = gc.pauses.filter(within);
  const full = collections.filter((p) => p.full);
  const live = full.map((p) => p.afterMB).filter((v) => v !== null);
  const sized = collections.filter((p) => p.heapMB !== null);
  const stoppedMs = r3(windowStops.reduce((n, s) => n + s.pauseMs, 0));
  return {
    source: stops.some((s) => s.source === 'safepoint') ? 'safepoints' : 'GC pauses',
    stops: windowStops.length,
    stoppedMs,
    stoppedShare: toMs > fromMs ? r3(stoppedMs / (toMs - fromMs)) : null,
    fullCollections: full.length,
    fullCollectionMs: r3(full.reduce((n, p) => n + p.pauseMs, 0)),
    liveMB: live.length ? { first: live[0], last: live[live.length - 1], min: Math.min(...live), max: Math.max(...live) } : null,
    heapMB: sized.length ? sized[sized.length - 1].heapMB : null,
  };
}

module.exports = { serverGcOf };
