'use strict';
// The study's findings (reference 000: section 5's figures 5-28 and its two throughput tables, section
// 6.1's conclusions, section 6.2's answers to RQ1-RQ4), retold with their numbers, each with the checks
// that hold pushbench's runs against it (charts/study-finding.js applies them, study-metrics.js names the
// metrics). A check:
//   kind     'compare' (metric of runs matching a against those matching b, per condition: every other
//            parameter equal), 'trend' (largest against smallest value of `by`, per condition),
//            'below' / 'above' (against threshold), 'none' / 'some' (runs where a yes/no metric is 1)
//   select   which runs (a figure filter, charts/figures.js: threads may be 'level:N' or 'max')
//   expect   compare: 'greater' | 'less' | 'similar'; trend: 'up' | 'down' | 'flat'
//   at       'max': only the largest connection level
//   minConnections  the study saw the effect at this many connections or more (default: its smallest level,
//            1,000): runs below give an indicative conclusion only (study-finding.js scaleGate)
//   keepsUp  a claim that shows only where the load saturates something (a throughput, an open question's
//            contrast): judged on the conditions where some run fell short of its load (study-finding.js)
//   machine  why the study's machine makes it not comparable
//   versions why the software versions make it not comparable (THREATS below names them): every check whose
//            effect depends on them (crashes, emit spikes that depend on the collector, absolute ceilings)
//   ownCores a claim about a server using the cores it is given: not comparable where its runs share a
//            core with the load generator (study-finding.js)
//   client   why the study's clients, not its servers, set the effect: not comparable
//   noStudyResult  the study left the question open: pushbench's numbers stand alone (not comparable)
// The study ran each permutation once for 600 s with 1,000-20,000 connections on a dedicated quad-core
// server; what follows is pushbench's reading, not the study's sentences.

const COMET = { type: 'comet' };
const POLL = { type: 'poll' };
const NO_EVENTS = { events: false };
const ev = (emitIntervalMs) => ({ events: true, emitIntervalMs });
const POLL_10S = { type: 'poll', events: false, maxDurationMs: 10000 };   // long polls timing out after 10 s
const TOMCATS = ['tc6', 'tc7'];
const SPIKE_MS = 10000;   // an emit loop of 10 s or more: the study's spikes were 15-115 s
const CLIENT_REPOLL = 'how many polls come back between two 1 s emits is set by how fast the clients send the next poll: the study\'s JMeter 2.4 threads on 2011 machines, here one selector engine that re-polls within milliseconds';
const TC7_CRASH = 'the study\'s Tomcat 7.0.16 (June 2011) died of OutOfMemoryError; 7.0.109 on JDK 17 carries ten years of fixes to its NIO connector and asynchronous requests, so whether it crashes says little about 7.0.16';
// Emit spikes: the study saw loops of 15-115 s with the CPU near zero, which it put down to garbage
// collection in its JVM; JDK 17's collectors (the Serial collector here, the server pinned to one core) are
// not that JVM's, so whether a loop reaches 10 s says little about the study's.
const COLLECTOR_SPIKE = 'the study\'s spikes came with its CPU near zero, which it put down to garbage collection in its 2011 JVM; JDK 17\'s collectors (here the Serial collector: the server is pinned to one core) are not that JVM\'s, so whether an emit loop reaches 10 s says little about the study\'s';
// An absolute level of CPU: Node.js 0.4.10 on a 2011 Core2 against Node.js 20 on a 2020s core.
const NODE_CEILING = 'whether a number of connections fills a core is an absolute level of CPU, set by Node.js 0.4.10 on the study\'s 2011 Core2 Quad against Node.js 20 on this machine\'s core, so it says little about the study\'s';

// The threats to comparing these runs with the study's, named on the page (reference 001 calls them
// threats to validity). A check whose effect depends on one says so with `versions` or `machine`.
const THREATS = [
  { id: 'versions', title: 'Software versions',
    text: 'The study ran Node.js 0.4.10 (July 2011), Tomcat 6.0.32 and 7.0.16 on a JVM whose version it does not name, its server on Ubuntu 10.10. pushbench runs Node.js 20, Tomcat 6.0.53 and 7.0.109 on JDK 17 (each run\'s provenance records its versions). V8, the JIT and the garbage collectors changed in between, so absolute CPU, memory and emit durations are not the study\'s; comparisons between servers and between transports are what carries over, and crashes that came from bugs of the old versions are not comparable.' },
  { id: 'machine', title: 'The machine',
    text: 'The study\'s server under test ran alone on a dedicated quad-core host (Intel Core2 Quad, 4.00 GB) with the load generators on four other machines. Here one 2-core virtual machine holds all: in the at-scale sitting the server is pinned to one core (PB_SERVER_CPUS=1) and the JMeter engine, the controller and the monitors to the other (PB_ENGINE_CPUS=0); the machine is shared with other tenants (steal is measured and judged per run: docs/validity.md). A server that needs more than one core (the Tomcats under heavy load) is held to one, where the study\'s had four; RQ4\'s runs give the server both cores (PB_SERVER_CPUS=0-1) with the engine on one of them, so there the host, not node-cluster, is the limit.' },
  { id: 'scale', title: 'Scale and duration',
    text: 'The study ran 1,000 to 20,000 connections for 600 s, once per permutation. Here 1,000 to 15,000: a process may hold 20,000 open files here, and the study\'s 20,000 connections need more, so every check the study made at 20,000 is judged at 15,000 and is indicative only. 3 repeats each were asked (the conditions with fewer usable runs are listed under the conclusions and left out), with a steady window of 30 s or more holding at least 3 warm emit cycles; 600 s only where a finding is about time (emit spikes, crashes, memory growth). The 100/400 sitting below the study\'s smallest level gives indicative conclusions only.' },
  { id: 'client', title: 'The client',
    text: 'The study\'s JMeter 2.4 started a thread per connection on Windows and Ubuntu machines; pushbench\'s JMeter 5.6.3 engine drives all connections of an engine through one selector thread (docs/engine.md). Where the study\'s numbers were set by its clients (polls answered per cycle, figures 20 and 24), pushbench\'s differ for that reason.' },
];

const FINDINGS = [
  { id: 'fig05', source: 'Figure 5', figure: 'fig05', title: 'Comet without events: memory',
    study: 'Holding comet streams with no events, Node.js\'s memory stayed almost level from 1,000 to 20,000 connections. Both Tomcats climbed steeply early in the run, which the study put down to the roughly 400 request threads created as the connections arrived, and then levelled off. At 20,000 connections Tomcat 7 needed about 10% more memory than Tomcat 6.',
    checks: [
      { id: 'node-flat', text: 'Node.js memory about the same at every connection level', kind: 'trend', by: 'connections', expect: 'flat',
        metric: 'serverRss', select: { server: 'node', ...COMET, ...NO_EVENTS } },
      { id: 'tomcat-up', text: 'Tomcat memory grows with connections', kind: 'trend', by: 'connections', expect: 'up',
        metric: 'serverRss', select: { server: TOMCATS, ...COMET, ...NO_EVENTS } },
      { id: 'tc7-over-tc6', text: 'Tomcat 7 above Tomcat 6 at the largest level', kind: 'compare', a: { server: 'tc7' }, b: { server: 'tc6' },
        expect: 'greater', at: 'max', minConnections: 20000, metric: 'serverRss', select: { ...COMET, ...NO_EVENTS } },
    ] },
  { id: 'fig06', source: 'Figure 6', figure: 'fig06', title: 'Comet without events: CPU',
    study: 'CPU rose while the streams were being opened, far more on the Tomcats than on Node.js (the study suspected the cost of creating threads), and fell to almost nothing on every server once all streams were held: an idle held connection costs no CPU.',
    checks: [
      { id: 'tc6-ramp', text: 'Tomcat 6 spends more CPU than Node.js while connecting', kind: 'compare', a: { server: 'tc6' }, b: { server: 'node' },
        expect: 'greater', metric: 'rampCpu', select: { ...COMET, ...NO_EVENTS } },
      { id: 'tc7-ramp', text: 'Tomcat 7 spends more CPU than Node.js while connecting', kind: 'compare', a: { server: 'tc7' }, b: { server: 'node' },
        expect: 'greater', metric: 'rampCpu', select: { ...COMET, ...NO_EVENTS } },
      { id: 'idle', text: 'Held idle streams cost under 5% of a core', kind: 'below', threshold: 5,
        metric: 'serverCpu', select: { ...COMET, ...NO_EVENTS } },
    ] },
  { id: 'fig07', source: 'Figure 7', figure: 'fig07', title: 'Comet with events: CPU against the emit interval',
    study: 'At 5,000 comet streams, the shorter the emit interval the more CPU every server used, since each emit walks all the connections. At a 1 s interval Tomcat 7\'s CPU dropped to near zero several times, while its emit loops ran very long (figure 8).',
    checks: [
      { id: 'cpu-interval', text: 'CPU falls as the emit interval grows (second connection level)', kind: 'trend', by: 'emitIntervalMs', expect: 'down',
        metric: 'serverCpu', select: { ...COMET, events: true, connections: 'level:2' } },
    ] },
  { id: 'fig08', source: 'Figure 8', figure: 'fig08', title: 'Comet with events: emit duration at 5,000 streams',
    study: 'At a 1 s interval Tomcat 7\'s emit loop sometimes took about 30 s, once 115 s, with its CPU near zero meanwhile (garbage collection, the study guessed); Tomcat 6 did the same now and then. At longer intervals the loops settled and Node.js took about 4 times as long as either Tomcat, because Tomcat hands part of the writing to other threads while Node.js does all of it inside the loop.',
    checks: [
      { id: 'node-vs-tc6', text: 'Node.js emit loop longer than Tomcat 6\'s (intervals of 5 s and more)', kind: 'compare', a: { server: 'node' }, b: { server: 'tc6' },
        expect: 'greater', metric: 'emitDurationMs', select: { ...COMET, events: true, emitIntervalMs: [5000, 10000, 30000], connections: 'level:2' } },
      { id: 'node-vs-tc7', text: 'Node.js emit loop longer than Tomcat 7\'s (intervals of 5 s and more)', kind: 'compare', a: { server: 'node' }, b: { server: 'tc7' },
        expect: 'greater', metric: 'emitDurationMs', select: { ...COMET, events: true, emitIntervalMs: [5000, 10000, 30000], connections: 'level:2' } },
      { id: 'tc7-spike', text: 'Tomcat 7 has emit loops of 10 s or more at a 1 s interval', kind: 'above', threshold: SPIKE_MS, minConnections: 5000, versions: COLLECTOR_SPIKE,
        metric: 'peakEmitDurationMs', select: { server: 'tc7', ...COMET, ...ev(1000), connections: 'level:2' } },
    ] },
  { id: 'fig09', source: 'Figure 9', figure: 'fig09', title: 'Comet with 10 s events: emit duration against connections',
    study: 'With a 10 s interval every server\'s emit loop lengthened as connections grew, and Node.js\'s stayed about 4 times the Tomcats\' at every level.',
    checks: [
      { id: 'emit-up', text: 'Emit duration grows with connections', kind: 'trend', by: 'connections', expect: 'up',
        metric: 'emitDurationMs', select: { ...COMET, ...ev(10000) } },
      { id: 'node-vs-tc6', text: 'Node.js emit loop longer than Tomcat 6\'s', kind: 'compare', a: { server: 'node' }, b: { server: 'tc6' },
        expect: 'greater', metric: 'emitDurationMs', select: { ...COMET, ...ev(10000) } },
      { id: 'node-vs-tc7', text: 'Node.js emit loop longer than Tomcat 7\'s', kind: 'compare', a: { server: 'node' }, b: { server: 'tc7' },
        expect: 'greater', metric: 'emitDurationMs', select: { ...COMET, ...ev(10000) } },
    ] },
  { id: 'fig10', source: 'Figure 10', figure: 'fig10', title: 'Long poll without events (10 s): CPU',
    study: 'Long polls timing out every 10 s cost far more CPU than held comet streams (figure 6), because each poll opens and closes a request. CPU rose with connections: Tomcat 7 passed 90% several times at 20,000, Tomcat 6 stayed steadier, and Node.js never went beyond 25%, one of the study\'s four cores.',
    checks: [
      { id: 'poll-over-comet', text: 'Long polls cost more CPU than held comet streams', kind: 'compare', a: { type: 'poll', maxDurationMs: 10000 }, b: { type: 'comet' },
        expect: 'greater', metric: 'serverCpu', select: NO_EVENTS },
      { id: 'cpu-up', text: 'CPU grows with connections', kind: 'trend', by: 'connections', expect: 'up', metric: 'serverCpu', select: POLL_10S },
      { id: 'node-one-core', text: 'Node.js stays within one core (its per-second peak)', kind: 'below', threshold: 100, minConnections: 10000,
        machine: 'the study\'s 25% is one core of a dedicated quad-core host; here the server is pinned to one core (PB_SERVER_CPUS), so one process cannot pass it by construction',
        metric: 'peakServerCpu', select: { server: 'node', ...POLL_10S } },
    ] },
  { id: 'fig11', source: 'Figure 11', figure: 'fig11', title: 'Long poll without events (10 s): memory',
    study: 'The same long polls took clearly more memory than comet on both Tomcats, growing gradually rather than in one early step (requests are made and dropped all the time), while Node.js\'s memory hardly changed.',
    checks: [
      { id: 'tomcat-poll-over-comet', text: 'Tomcat memory higher for long polls than for comet', kind: 'compare', a: { type: 'poll', maxDurationMs: 10000 }, b: { type: 'comet' },
        expect: 'greater', metric: 'serverRss', select: { server: TOMCATS, ...NO_EVENTS } },
      { id: 'node-same', text: 'Node.js memory about the same for long polls and comet', kind: 'compare', a: { type: 'poll', maxDurationMs: 10000 }, b: { type: 'comet' },
        expect: 'similar', metric: 'serverRss', select: { server: 'node', ...NO_EVENTS } },
    ] },
  { id: 'fig12', source: 'Figure 12', figure: 'fig12', title: 'Long poll without events (10 s): responses sent',
    study: 'Over a run Node.js sent the most timeout answers, and its lead widened as connections grew; at 10,000 connections Tomcat 7 still managed about 440 answers a second, but its errors multiplied with load.',
    checks: [
      { id: 'node-over-tc6', text: 'Node.js sends more responses per second than Tomcat 6', kind: 'compare', a: { server: 'node' }, b: { server: 'tc6' },
        expect: 'greater', keepsUp: true, metric: 'responsesPerSecond', select: POLL_10S },
      { id: 'tc6-over-tc7', text: 'Tomcat 6 sends more responses per second than Tomcat 7', kind: 'compare', a: { server: 'tc6' }, b: { server: 'tc7' },
        expect: 'greater', keepsUp: true, metric: 'responsesPerSecond', select: POLL_10S },
    ] },
  { id: 'table513', source: 'Table 5.1.3', figure: 'fig12', title: 'Long poll without events: throughput at 20,000 connections',
    table: { metric: 'responsesPerSecond', select: POLL_10S, rows: [
      { server: 'node', total: 454000, perSecond: 650 }, { server: 'tc6', total: 380000, perSecond: 540 }, { server: 'tc7', total: 270000, perSecond: 385 }] },
    study: 'At 20,000 long polls with a 10 s timeout the study counted roughly 454,000 answers for Node.js (650 a second), 380,000 for Tomcat 6 (540) and 270,000 for Tomcat 7 (385) over the 600 s run.',
    checks: [
      { id: 'node-over-tc6', text: 'Node.js above Tomcat 6 at the largest level', kind: 'compare', a: { server: 'node' }, b: { server: 'tc6' },
        expect: 'greater', at: 'max', minConnections: 20000, keepsUp: true, metric: 'responsesPerSecond', select: POLL_10S },
      { id: 'tc6-over-tc7', text: 'Tomcat 6 above Tomcat 7 at the largest level', kind: 'compare', a: { server: 'tc6' }, b: { server: 'tc7' },
        expect: 'greater', at: 'max', minConnections: 20000, keepsUp: true, metric: 'responsesPerSecond', select: POLL_10S },
    ] },
  { id: 'fig13', source: 'Figure 13', figure: 'fig13', title: 'Long poll with 30 s events: CPU',
    study: 'With a 30 s emit interval (polls held up to 180 s), long-poll CPU peaked well above the no-event case. At 20,000 connections Tomcat 7\'s CPU lay near zero for most of the run: it had crashed, as it often did at shorter intervals. Node.js\'s CPU looked the same with or without events and reached its one-core ceiling at about 10,000 connections.',
    checks: [
      { id: 'events-over-none', text: 'Long-poll CPU peaks higher with events than without', kind: 'compare',
        a: { events: true, emitIntervalMs: 30000, maxDurationMs: 180000 }, b: { events: false, maxDurationMs: 10000 },
        expect: 'greater', metric: 'peakServerCpu', select: { server: TOMCATS, ...POLL } },
      { id: 'node-same', text: 'Node.js CPU about the same with or without events', kind: 'compare',
        a: { events: true, emitIntervalMs: 30000, maxDurationMs: 180000 }, b: { events: false, maxDurationMs: 10000 },
        expect: 'similar', metric: 'serverCpu', select: { server: 'node', ...POLL } },
    ] },
  { id: 'fig14', source: 'Figure 14', figure: 'fig14', title: 'Long poll with 30 s events: memory',
    study: 'Memory with events followed the no-event long-poll pattern. Both Tomcats had 2,400 MB of heap and the charts showed Tomcat 7 with room to spare, yet it kept dying of OutOfMemoryError; the study could not say why.',
    checks: [
      { id: 'tomcat-poll-over-comet', text: 'Tomcat memory higher for long polls than for comet', kind: 'compare', a: { type: 'poll' }, b: { type: 'comet' },
        expect: 'greater', metric: 'serverRss', select: { server: TOMCATS, ...ev(30000) } },
      { id: 'tc7-crash', text: 'Tomcat 7 crashes', kind: 'some', minConnections: 10000, versions: TC7_CRASH, metric: 'crashed', select: { server: 'tc7', ...POLL, ...ev(30000) } },
    ] },
  { id: 'fig15', source: 'Figure 15', figure: 'fig15', title: 'Long poll with 30 s events: emit duration',
    study: 'Emitting to long polls was slow on Tomcat 7, the reverse of comet where Tomcat 7 had done best; in the run where it crashed its emit loop had climbed to almost 15 s first, hinting that the memory trouble lies in the emit.',
    checks: [
      { id: 'tc7-over-tc6', text: 'Tomcat 7 emit loop longer than Tomcat 6\'s', kind: 'compare', a: { server: 'tc7' }, b: { server: 'tc6' },
        expect: 'greater', metric: 'emitDurationMs', select: { ...POLL, ...ev(30000) } },
      { id: 'tc7-over-node', text: 'Tomcat 7 emit loop longer than Node.js\'s', kind: 'compare', a: { server: 'tc7' }, b: { server: 'node' },
        expect: 'greater', metric: 'emitDurationMs', select: { ...POLL, ...ev(30000) } },
    ] },
  { id: 'fig16', source: 'Figure 16', figure: 'fig16', title: 'Long poll with 10 s events: responses sent',
    study: 'With events every 10 s the long-poll picture turned round from figure 12: both Tomcats answered more than Node.js, whose single thread has to do all the writing inside the emit loop. Tomcat 7 crashed again and again from 10,000 connections up.',
    checks: [
      { id: 'tc6-over-node', text: 'Tomcat 6 sends more responses per second than Node.js', kind: 'compare', a: { server: 'tc6' }, b: { server: 'node' },
        expect: 'greater', keepsUp: true, metric: 'responsesPerSecond', select: { ...POLL, ...ev(10000) } },
      { id: 'tc7-crash', text: 'Tomcat 7 crashes from 10,000 connections', kind: 'some', minConnections: 10000, versions: TC7_CRASH, metric: 'crashed',
        select: { server: 'tc7', ...POLL, ...ev(10000) } },
    ] },
  { id: 'table514', source: 'Table 5.1.4', figure: 'fig16', title: 'Long poll with 10 s events: throughput at 20,000 connections',
    table: { metric: 'responsesPerSecond', select: { ...POLL, ...ev(10000) }, rows: [
      { server: 'node', total: 251000, perSecond: 420 }, { server: 'tc6', total: 387000, perSecond: 645 }, { server: 'tc7', total: null, perSecond: null, note: 'crashed early, left out' }] },
    study: 'At 20,000 long polls with 10 s events Node.js sent roughly 251,000 answers (420 a second) and Tomcat 6 387,000 (645 a second); Tomcat 7 crashed early in that run and was left out.',
    checks: [
      { id: 'tc6-over-node', text: 'Tomcat 6 above Node.js at the largest level', kind: 'compare', a: { server: 'tc6' }, b: { server: 'node' },
        expect: 'greater', at: 'max', minConnections: 20000, keepsUp: true, metric: 'responsesPerSecond', select: { ...POLL, ...ev(10000) } },
    ] },
  { id: 'fig17', source: 'Figure 17', figure: 'fig17', title: 'Node.js, comet against long poll, 1 s events: CPU',
    study: 'On Node.js with 1 s events, long polls cost much more CPU than comet at low connection counts; from about 15,000 connections comet stayed pinned at Node.js\'s one-core ceiling (25% of the study\'s host) while long-poll CPU wandered.',
    checks: [
      { id: 'poll-over-comet', text: 'Long polls cost Node.js more CPU than comet', kind: 'compare', a: POLL, b: COMET,
        expect: 'greater', metric: 'serverCpu', select: { server: 'node', ...ev(1000) } },
      { id: 'comet-ceiling', text: 'Comet pinned at one core', kind: 'above', threshold: 90, minConnections: 15000, versions: NODE_CEILING,
        metric: 'serverCpu', select: { server: 'node', ...COMET, ...ev(1000) } },
    ] },
  { id: 'fig18', source: 'Figure 18', figure: 'fig18', title: 'Node.js, comet against long poll, 30 s events at the largest level: CPU',
    study: 'With 30 s events at 20,000 connections, Node.js spent far less CPU on comet than on long polls.',
    checks: [
      { id: 'poll-over-comet', text: 'Long polls cost Node.js more CPU than comet at the largest level', kind: 'compare', a: POLL, b: COMET,
        expect: 'greater', at: 'max', minConnections: 20000, metric: 'serverCpu', select: { server: 'node', ...ev(30000) } },
    ] },
  { id: 'fig19', source: 'Figure 19', figure: 'fig19', title: 'Node.js long poll: responses sent, 1-30 s events',
    study: 'Node.js sent the most long-poll answers at the shortest emit interval, yet at 1 s the totals for 5,000 to 20,000 connections barely differed: the emitter fired too often for more than about 5,000 polls to come back between emits. Only toward 30 s did the levels separate.',
    checks: [
      { id: 'rate-interval', text: 'Responses per second fall as the emit interval grows', kind: 'trend', by: 'emitIntervalMs', expect: 'down',
        metric: 'responsesPerSecond', select: { server: 'node', ...POLL, events: true } },
      { id: 'flat-at-1s', text: 'At 1 s, responses per second about the same at every level', kind: 'trend', by: 'connections', expect: 'flat', minConnections: 5000, client: CLIENT_REPOLL,
        metric: 'responsesPerSecond', select: { server: 'node', ...POLL, ...ev(1000) } },
    ] },
  { id: 'fig20', source: 'Figure 20', figure: 'fig20', title: 'Node.js long poll: requests per emit cycle, 1 s and 30 s',
    study: 'Per 1 s emit cycle Node.js answered at most about 2,000 polls, about 500 on average; even at 30 s it peaked near 12,000.',
    checks: [
      { id: 'cap-1s', text: 'At most 2,000 polls answered in any 1 s cycle', kind: 'below', threshold: 2000, minConnections: 5000, client: CLIENT_REPOLL,
        metric: 'peakRequestsPerCycle', select: { server: 'node', ...POLL, ...ev(1000) } },
    ] },
  { id: 'fig21', source: 'Figure 21', figure: 'fig21', title: 'Tomcat 6, comet against long poll, 1 s events: CPU',
    study: 'Tomcat 6 showed Node.js\'s pattern at low levels, long polls costing more CPU than comet; at higher levels its CPU dipped now and then, together with long emit loops (figure 22).',
    checks: [
      { id: 'poll-over-comet', text: 'Long polls cost Tomcat 6 more CPU than comet', kind: 'compare', a: POLL, b: COMET,
        expect: 'greater', metric: 'serverCpu', select: { server: 'tc6', ...ev(1000) } },
    ] },
  { id: 'fig22', source: 'Figure 22', figure: 'fig22', title: 'Tomcat 6, comet against long poll, 1 s events: emit duration',
    study: 'The dips matched spikes in Tomcat 6\'s emit duration like Tomcat 7\'s in figure 8; they did not recur in every run but often enough to note.',
    checks: [
      { id: 'spike', text: 'Tomcat 6 has emit loops of 10 s or more', kind: 'above', threshold: SPIKE_MS, minConnections: 5000, versions: COLLECTOR_SPIKE,
        metric: 'peakEmitDurationMs', select: { server: 'tc6', ...ev(1000) } },
    ] },
  { id: 'fig23', source: 'Figure 23', figure: 'fig23', title: 'Tomcat 6 long poll: responses sent, 1-30 s events',
    study: 'Tomcat 6\'s long-poll answers followed Node.js\'s pattern (figure 19): at 1 s the number of connections made little difference, because so short an interval leaves no time to re-establish many polls between emits.',
    checks: [
      { id: 'rate-interval', text: 'Responses per second fall as the emit interval grows', kind: 'trend', by: 'emitIntervalMs', expect: 'down',
        metric: 'responsesPerSecond', select: { server: 'tc6', ...POLL, events: true } },
      { id: 'flat-at-1s', text: 'At 1 s, responses per second about the same at every level', kind: 'trend', by: 'connections', expect: 'flat', minConnections: 5000, client: CLIENT_REPOLL,
        metric: 'responsesPerSecond', select: { server: 'tc6', ...POLL, ...ev(1000) } },
    ] },
  { id: 'fig24', source: 'Figure 24', figure: 'fig24', title: 'Tomcat 6 long poll: requests per emit cycle, 1 s and 30 s',
    study: 'Tomcat 6 answered about 800 to 1,000 polls per 1 s cycle, against Node.js\'s 500, and about 12,500 per 30 s cycle, close to Node.js.',
    checks: [
      { id: 'tc6-over-node', text: 'Tomcat 6 answers more polls per 1 s cycle than Node.js', kind: 'compare', a: { server: 'tc6' }, b: { server: 'node' }, client: CLIENT_REPOLL,
        expect: 'greater', minConnections: 2000, keepsUp: true, metric: 'requestsPerCycle', select: { ...POLL, ...ev(1000) } },
    ] },
  { id: 'fig25', source: 'Figure 25', figure: 'fig25', title: 'Tomcat 7, comet against long poll, 1 s events: CPU',
    study: 'Tomcat 7\'s long-poll CPU was steady and grew with connections, whereas its comet CPU swung widely between levels and between repeated runs with no pattern the study could find.',
    checks: [
      { id: 'poll-up', text: 'Long-poll CPU grows with connections', kind: 'trend', by: 'connections', expect: 'up',
        metric: 'serverCpu', select: { server: 'tc7', ...POLL, ...ev(1000) } },
    ] },
  { id: 'fig26', source: 'Figure 26', figure: 'fig26', title: 'Tomcat 7, comet against long poll, 1 s events: emit duration',
    study: 'At 5,000 streams Tomcat 7\'s low-CPU stretches lined up with emit loops of up to about 110 s; at 20,000 its emitter stopped after about 90 s, which is why its CPU looked even there.',
    checks: [
      { id: 'spike', text: 'Tomcat 7 has comet emit loops of 10 s or more', kind: 'above', threshold: SPIKE_MS, minConnections: 5000, versions: COLLECTOR_SPIKE,
        metric: 'peakEmitDurationMs', select: { server: 'tc7', ...COMET, ...ev(1000) } },
    ] },
  { id: 'fig27', source: 'Figure 27', figure: 'fig27', title: 'Tomcat 7 long poll: responses sent, 1-30 s events',
    study: 'Tomcat 7\'s long-poll results were uneven: with 10 s events it crashed at 10,000 connections and more, while every 1 s and 5 s run finished, and at 1 s it even sent a little more than Tomcat 6 (521,000 against 501,000 answers).',
    checks: [
      { id: 'tc7-over-tc6', text: 'At 1 s Tomcat 7 sends more responses per second than Tomcat 6 at the largest level', kind: 'compare',
        a: { server: 'tc7' }, b: { server: 'tc6' }, expect: 'greater', at: 'max', minConnections: 20000, keepsUp: true,
        metric: 'responsesPerSecond', select: { ...POLL, ...ev(1000) } },
      { id: 'tc7-crash', text: 'Tomcat 7 crashes with 10 s events', kind: 'some', minConnections: 10000, versions: TC7_CRASH, metric: 'crashed',
        select: { server: 'tc7', ...POLL, ...ev(10000) } },
    ] },
  { id: 'fig28', source: 'Figure 28', figure: 'fig28', title: 'Tomcat 6 and 7, 30 s events: memory',
    study: 'With 30 s events both Tomcats\' memory grew with connections, almost in proportion for comet and less regularly for long polls, and Tomcat 7 was above Tomcat 6 throughout, which might explain its frequent OutOfMemoryErrors.',
    checks: [
      { id: 'up', text: 'Tomcat memory grows with connections', kind: 'trend', by: 'connections', expect: 'up',
        metric: 'serverRss', select: { server: TOMCATS, ...ev(30000) } },
      { id: 'tc7-over-tc6', text: 'Tomcat 7 above Tomcat 6', kind: 'compare', a: { server: 'tc7' }, b: { server: 'tc6' },
        expect: 'greater', metric: 'serverRss', select: ev(30000) },
    ] },
  // Section 6.1, the conclusions drawn over all of section 5.
  { id: 'c1', source: 'Section 6.1 (1)', title: 'Shorter emit intervals cost more CPU',
    study: 'Across all tests, a shorter emit interval meant higher CPU: more events, more work for the server.',
    checks: [
      { id: 'cpu-interval', text: 'CPU falls as the emit interval grows, every server and type', kind: 'trend', by: 'emitIntervalMs', expect: 'down',
        metric: 'serverCpu', select: { events: true } },
    ] },
  { id: 'c2', source: 'Section 6.1 (2)', title: 'More connections, more Tomcat memory',
    study: 'More connections meant more memory for both Tomcats, almost linearly with comet and more erratically with long polls.',
    checks: [
      { id: 'up', text: 'Tomcat memory grows with connections, every type and interval', kind: 'trend', by: 'connections', expect: 'up',
        metric: 'serverRss', select: { server: TOMCATS } },
    ] },
  { id: 'c3', source: 'Section 6.1 (3)', figure: 'fig28', title: 'Tomcat 7 uses more memory than Tomcat 6',
    study: 'Tomcat 7 used more memory than Tomcat 6 in every comparison (figure 28), a likely reason for its many OutOfMemoryErrors.',
    checks: [
      { id: 'tc7-over-tc6', text: 'Tomcat 7 above Tomcat 6, every permutation', kind: 'compare', a: { server: 'tc7' }, b: { server: 'tc6' },
        expect: 'greater', metric: 'serverRss', select: {} },
    ] },
  { id: 'c4', source: 'Section 6.1 (4)', title: 'Node.js performs best',
    study: 'Over everything measured, Node.js came out best: its emit loops were somewhat slower than the Tomcats\', but it was by far the most stable and used much less CPU and memory in every test.',
    checks: [
      { id: 'cpu-tc6', text: 'Node.js less CPU than Tomcat 6', kind: 'compare', a: { server: 'node' }, b: { server: 'tc6' }, expect: 'less', metric: 'serverCpu', select: {} },
      { id: 'cpu-tc7', text: 'Node.js less CPU than Tomcat 7', kind: 'compare', a: { server: 'node' }, b: { server: 'tc7' }, expect: 'less', metric: 'serverCpu', select: {} },
      { id: 'rss-tc6', text: 'Node.js less memory than Tomcat 6', kind: 'compare', a: { server: 'node' }, b: { server: 'tc6' }, expect: 'less', metric: 'serverRss', select: {} },
      { id: 'rss-tc7', text: 'Node.js less memory than Tomcat 7', kind: 'compare', a: { server: 'node' }, b: { server: 'tc7' }, expect: 'less', metric: 'serverRss', select: {} },
      { id: 'no-crash', text: 'Node.js never crashes', kind: 'none', metric: 'crashed', select: { server: 'node' } },
      { id: 'emit-slower', text: 'Node.js emit loops longer than Tomcat 6\'s', kind: 'compare', a: { server: 'node' }, b: { server: 'tc6' },
        expect: 'greater', metric: 'emitDurationMs', select: { events: true } },
    ] },
  // Section 6.2, the research questions.
  { id: 'rq1', source: 'RQ1', title: 'Do push styles change server performance?',
    study: 'Yes: comet and long poll performed very differently. Long polls, which close and reopen a request for every event, used more CPU and memory on every server.',
    checks: [
      { id: 'cpu', text: 'Long polls cost more CPU than comet (same events, same level)', kind: 'compare', a: POLL, b: COMET,
        expect: 'greater', metric: 'serverCpu', select: { events: true } },
      { id: 'rss', text: 'Long polls cost more memory than comet (same events, same level)', kind: 'compare', a: POLL, b: COMET,
        expect: 'greater', metric: 'serverRss', select: { events: true } },
    ] },
  { id: 'rq2', source: 'RQ2', title: 'Can a thread-based Tomcat serve many push requests?',
    study: 'From early tests only: Tomcat with its standard blocking connectors did poorly, and switching to asynchronous non-blocking connectors raised its throughput markedly. pushbench answers it with the extended study\'s blocking connectors (tc6-bio, tc7-bio; figures RQ2.1-RQ2.4).',
    checks: [
      { id: 'tc6-memory', text: 'Tomcat 6 NIO holds comet streams with less memory than its blocking connector', kind: 'compare', a: { server: 'tc6' }, b: { server: 'tc6-bio' },
        expect: 'less', metric: 'serverRss', select: { ...COMET } },
      { id: 'tc7-memory', text: 'Tomcat 7 NIO holds comet streams with less memory than its blocking connector', kind: 'compare', a: { server: 'tc7' }, b: { server: 'tc7-bio' },
        expect: 'less', metric: 'serverRss', select: { ...COMET } },
      { id: 'tc6-rate', text: 'Tomcat 6 NIO answers more long polls per second than its blocking connector', kind: 'compare', a: { server: 'tc6' }, b: { server: 'tc6-bio' },
        expect: 'greater', keepsUp: true, metric: 'responsesPerSecond', select: { ...POLL, events: true } },
      { id: 'tc7-rate', text: 'Tomcat 7 NIO answers more long polls per second than its blocking connector', kind: 'compare', a: { server: 'tc7' }, b: { server: 'tc7-bio' },
        expect: 'greater', keepsUp: true, metric: 'responsesPerSecond', select: { ...POLL, events: true } },
    ] },
  { id: 'rq3', source: 'RQ3', title: 'Does Node.js\'s event model beat Tomcat\'s threads?',
    study: 'Yes: Node.js used far fewer resources than either Tomcat and gave much steadier results; it did not crash once in the whole study.',
    checks: [
      { id: 'cpu-tc6', text: 'Node.js less CPU than Tomcat 6', kind: 'compare', a: { server: 'node' }, b: { server: 'tc6' }, expect: 'less', metric: 'serverCpu', select: {} },
      { id: 'cpu-tc7', text: 'Node.js less CPU than Tomcat 7', kind: 'compare', a: { server: 'node' }, b: { server: 'tc7' }, expect: 'less', metric: 'serverCpu', select: {} },
      { id: 'rss-tc6', text: 'Node.js less memory than Tomcat 6', kind: 'compare', a: { server: 'node' }, b: { server: 'tc6' }, expect: 'less', metric: 'serverRss', select: {} },
      { id: 'rss-tc7', text: 'Node.js less memory than Tomcat 7', kind: 'compare', a: { server: 'node' }, b: { server: 'tc7' }, expect: 'less', metric: 'serverRss', select: {} },
      { id: 'no-crash', text: 'Node.js never crashes', kind: 'none', metric: 'crashed', select: { server: 'node' } },
    ] },
  { id: 'rq4', source: 'RQ4', title: 'Can Node.js use several cores?',
    study: 'Left open: the study ran out of time and named it future work. pushbench answers it with the extended study\'s node-cluster, one worker per core (figures RQ4.1-RQ4.4); there is no study result to confirm.',
    checks: [
      { id: 'cluster-rate', text: 'node-cluster answers more long polls per second than one Node.js process', kind: 'compare',
        a: { server: 'node-cluster' }, b: { server: 'node' }, expect: 'greater', keepsUp: true, noStudyResult: true, beyondGrid: true, ownCores: true,
        metric: 'responsesPerSecond', select: { ...POLL, events: true } },
      { id: 'cluster-cpu', text: 'node-cluster uses more than one core', kind: 'above', threshold: 100, keepsUp: true, noStudyResult: true, beyondGrid: true, ownCores: true,
        metric: 'serverCpu', select: { server: 'node-cluster' } },
    ] },
];

module.exports = { FINDINGS, THREATS };
