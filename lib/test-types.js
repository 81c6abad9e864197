'use strict';
// The test types run.sh takes (lib/args.sh validates them) and what each one is to the parts that size,
// select and analyse runs: run.sh's disk estimate (lib/response-estimate.js, lib/disk-need.js), the
// sweep (sweep/permutations.js, sweep/capacity.js) and the analysis and reports (analysis/, charts/). One
// place, so a type added here reaches all of them (docs/protocol.md defines the requests):
//   comet  one request held open, one record per emit cycle until the clear (the study's Comet streaming)
//   sse    the same records on a held Server-Sent Events stream (GET, text/event-stream), which the engine
//          requests again with Last-Event-ID when it ends or breaks, as EventSource does (issue #38)
//   poll   one record per request (an event or a timeout), requested again at once (long polling)
//   pull   one answer per request, at once, every pull-interval ms (short polling, issue #26)
// A held stream (comet, sse) is one request answered by many records, each stamped on arrival: its
// per-record trip time, its received / unique / missed messages over the time it was held.
const TEST_TYPES = Object.freeze(['comet', 'poll', 'pull', 'sse']);
const HELD_STREAMS = Object.freeze(['comet', 'sse']);

// Whether requests of this type are held streams (above).
const isHeldStream = (type) => HELD_STREAMS.includes(type);

module.exports = { TEST_TYPES, HELD_STREAMS, isHeldStream };
