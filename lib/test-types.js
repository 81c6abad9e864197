'use strict';
// The test types run.sh takes (lib/args.sh validates them) and what each one is to the parts that size,
// select and analyse runs: run.sh's disk estimate (lib/response-estimate.js, lib/disk-need.js), the
// sweep (sweep/permutations.js, sweep/capacity.js) and the analysis and reports (analysis/, charts/). One
// place, so a type added here reaches all of them (docs/protocol.md defines the requests):
//   comet  one request held open, one record per emit cycle until the clear (the study's Comet streaming)
//   sse    the same records on a held Server-Sent Events stream (GET, text/event-stream), which the engine
//          requests again with Last-Event-ID when it ends or breaks, as EventSource does (issue #38)
//   ws     the same records on a held WebSocket stream (an upgrade of GET /request, one text frame per
//          record), which the engine subscribes again with the cursor it got when it ends or breaks (issue
//          #38); Tomcat 6 speaks none (RESUMED_STREAMS, NO_WEBSOCKET)
//   poll   one record per request (an event or a timeout), requested again at once (long polling)
//   pull   one answer per request, at once, every pull-interval ms (short polling, issue #26)
// A held stream (comet, sse, ws) is one request answered by many records, each stamped on arrival: its
// per-record trip time, its received / unique / missed messages over the time it was held. A resumed
// stream (sse, ws) is requested again by the same client when it ends or breaks, resuming where it was
// (docs/protocol.md "Replay and gaps"): its messages count per client across its streams.
const TEST_TYPES = Object.freeze(['comet', 'poll', 'pull', 'sse', 'ws']);
const HELD_STREAMS = Object.freeze(['comet', 'sse', 'ws']);
const RESUMED_STREAMS = Object.freeze(['sse', 'ws']);
// Servers without WebSocket (Tomcat 6 has no WebSocket API: docs/protocol.md "Which server speaks what").
const NO_WEBSOCKET = Object.freeze(['tc6', 'tc6-bio']);

// Whether requests of this type are held streams (above).
const isHeldStream = (type) => HELD_STREAMS.includes(type);
// Whether a client of this type resumes its stream when it ends (above).
const isResumedStream = (type) => RESUMED_STREAMS.includes(type);
// Whether a server speaks the type (every server speaks every type but ws).
const speaks = (server, type) => type !== 'ws' || !NO_WEBSOCKET.includes(server);

module.exports = { TEST_TYPES, HELD_STREAMS, RESUMED_STREAMS, NO_WEBSOCKET, isHeldStream, isResumedStream, speaks };
