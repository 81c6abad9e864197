'use strict';
// Small real runs on this machine (the local default hosts): each server type, comet and long poll,
// through run.sh from start to report with the real servers, real JMeter and the real analyzer.
// A part that is not installed (Tomcat, a WAR, JMeter) makes the run fail preflight: the test fails
// with run.sh's message saying what to install.
const { test, describe, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { parse } = require('csv-parse/sync');
const path = require('node:path');
const tar = require('tar');
const { spawnSync } = require('node:child_process');
const { ROOT, scratch, hostsFile, LOCAL_HOSTS, runSh } = require('./lib/runsh');

const THREADS = 100;
const RAMPUP = 2;
const DURATION = 10;

// Comet always with an event; poll without one on node (every poll times out after 3 s) and with one on
// tc6 (every poll ends with an event), so both kinds of poll answer are covered. tests/sweep.test.js's
// mini sweep runs the other two pairings (tc6 comet, tc7 poll) through run.sh.
const RUNS = [
  ['node', 'comet', ['-', 'event1', '2000']],
  ['node', 'poll', ['3000']],
  ['tc6', 'poll', ['3000', 'event1', '2000']],
  ['tc7', 'comet', ['-', 'event1', '2000']],
];

const s = scratch('local');
after(() => s.cleanup());

async function archiveEntries(file) {
  const names = [];
  await tar.t({ file, onentry: (e) => names.push(e.path) });
  return names;
}

// results.csv as arrays (JMeter quotes a field that holds a comma, as the summaries' messages do).
function csvRows(file) {
  const [header, ...rows] = parse(fs.readFileSync(file), { skip_empty_lines: true, relax_column_count: true });
  return { header, rows };
}

describe('run.sh, local runs', () => {
  for (const [server, type, extra] of RUNS) {
    test(`${server} ${type}: complete run, every file of the run layout, a report`, async () => {
      const args = [server, String(RAMPUP), String(DURATION), String(THREADS), type, ...extra];
      const r = await runSh(args, {
        env: { PB_RESULTS: s.results, PB_HOSTS: hostsFile(s.dir, LOCAL_HOSTS) },
        timeoutMs: 240000,
      });
      assert.equal(r.code, 0, `run.sh ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
      const dir = r.runDir;
      assert.ok(dir && fs.existsSync(dir), 'no run directory');
      assert.match(path.basename(dir), new RegExp(`^\\d{8}-\\d{6}-${server}-${type}-${THREADS}-${DURATION}(-\\d+)?$`));

      const run = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
      assert.equal(run.status, 'complete');
      assert.equal(run.serverCrashed, false);
      assert.equal(run.server, server);
      assert.equal(run.type, type);
      assert.equal(run.connections, THREADS);
      assert.equal(run.hosts.engines.length, 1);
      assert.equal(run.hosts.engines[0].connections, THREADS);
      // The engine got the heap lib/jmeter-heap.sh sizes for its threads.
      const expectHeap = spawnSync('bash', ['-c', 'source lib/config.sh; source lib/jmeter-heap.sh; jmeter_heap_mb "$@"', '-',
        String(THREADS)], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
      assert.equal(run.hosts.engines[0].heapMb, Number(expectHeap));
      assert.match(fs.readFileSync(path.join(dir, 'run.log'), 'utf8'), new RegExp(`heap ${expectHeap}m`));
      assert.ok(run.finishedAt > run.startedAt);
      for (const step of ['preflight', 'start_engines', 'wait_for_completion', 'copy_responses', 'analyze']) {
        assert.ok(Number.isInteger(run.steps[step]), `no duration for step ${step}`);
      }

      for (const f of ['run.log', 'sut/vmstat.log', 'sut/pidstat.log', 'sut/meminfo.txt', 'sut/server.log',
        'jmeter/results.csv', 'jmeter/controller.log', 'jmeter/engine-local.log', 'report/index.html']) {
        assert.ok(fs.existsSync(path.join(dir, f)), `${f} missing`);
      }
      const vmstatLines = fs.readFileSync(path.join(dir, 'sut/vmstat.log'), 'utf8').split('\n').filter((l) => /^\s*\d/.test(l));
      assert.ok(vmstatLines.length >= DURATION, `only ${vmstatLines.length} vmstat samples`);
      assert.match(fs.readFileSync(path.join(dir, 'sut/pidstat.log'), 'utf8'), /%CPU/);

      // The engine's responses came back: the push sampler's stream log (every record of every request,
      // stamped on arrival) and the control requests' answers, named by their sampler labels; a handful of
      // files, not one per sample.
      const archive = path.join(dir, 'responses/local.tar.gz');
      assert.ok(fs.statSync(archive).size > 0, 'empty response archive');
      const entries = await archiveEntries(archive);
      assert.ok(entries.some((n) => /(^|\/)push-\d+\.tsv\.gz$/.test(n)), `no stream log in the archive (${entries.slice(0, 8)})`);
      assert.ok(entries.some((n) => /(^|\/)logging_/.test(n)), `no logging_ answer in the archive (${entries.slice(0, 8)})`);
      assert.ok(entries.length <= 10, `${entries.length} files in the archive`);

      // results.csv holds the engine's summary samples (the mux engine, docs/engine.md: answers as
      // SampleCount; distributed mode: thread names carry its address), and no sample per answer.
      const { header, rows } = csvRows(path.join(dir, 'jmeter/results.csv'));
      const label = header.indexOf('label');
      const thread = header.indexOf('threadName');
      const count = header.indexOf('SampleCount');
      assert.ok(label >= 0 && thread >= 0 && count >= 0, `results.csv header: ${header}`);
      assert.equal(rows.filter((row) => row[label] === 'request').length, 0, 'a sample per answer');
      const summaries = rows.filter((row) => row[label] === 'request-summary');
      const answers = summaries.reduce((n, row) => n + Number(row[count]), 0);
      assert.ok(answers >= THREADS * 0.9, `only ${answers} answers in the summaries`);
      assert.ok(summaries.some((row) => row[thread].includes('127.0.0.1')), 'no sample names the engine');

      const summary = JSON.parse(fs.readFileSync(path.join(dir, 'data/summary.json'), 'utf8'));
      // The analysis took the answers from the stream log, as many as the summaries counted.
      assert.equal(summary.totals.answersFrom, 'stream logs');
      assert.equal(summary.totals.samplesByLabel.request.samples, answers);
      assert.equal(summary.flags.lostAnswers, false);
      assert.ok(summary.totals.responsesSent > 0, 'no responses in the analysis');
      // A client holds one connection at a time; a long poll's next request may be counted by a Tomcat
      // (another thread) before the answer it follows is counted as finished: up to one such overlap per
      // ten clients.
      const overlap = type === 'poll' ? Math.ceil(THREADS / 10) : 0;
      assert.ok(summary.peakConnections >= THREADS * 0.9 && summary.peakConnections <= THREADS + overlap,
        `peak connections ${summary.peakConnections}, threads ${THREADS}`);
      // Every long poll answered by an event found its JMeter sample and got a trip time (CHIRON).
      if (type === 'poll' && extra[1]) {
        const t = summary.tripTime;
        assert.ok(t && t.polls > 0, `no trip times: ${JSON.stringify(t)}`);
        assert.equal(t.unmatched, 0);
        assert.equal(t.polls, summary.totals.events);
        assert.ok(t.p50Ms > -t.errorBoundMs - 1 && t.p99Ms < 2000, `trip times ${JSON.stringify(t)}`);
      } else if (type === 'comet') {
        // Every comet record was stamped on arrival by the push sampler: each has a trip time (issue #22).
        const c = summary.tripTime?.comet;
        assert.ok(c && c.records === summary.totals.events, `comet trip times ${JSON.stringify(c)}, events ${summary.totals.events}`);
        assert.ok(c.p50Ms > -c.errorBoundMs - 1 && c.p99Ms < 2000, `comet trip times ${JSON.stringify(c)}`);
        // the engine's own offset, the figures of each emit cycle, and the report drawing both distributions
        assert.ok(summary.clockOffset.byEngine.some((e) => e.engine === 'local' && e.measurements >= 2), JSON.stringify(summary.clockOffset));
        const cycles = JSON.parse(fs.readFileSync(path.join(dir, 'data/trip-cycles.json'), 'utf8')).comet;
        assert.ok(cycles.length >= 2 && cycles.length === c.cycles.count, `cycles ${cycles.length}, summary ${JSON.stringify(c.cycles)}`);
        assert.equal(cycles.reduce((n, cy) => n + cy.count, 0), c.records, 'every timed record in one emit cycle');
        const html = fs.readFileSync(path.join(dir, 'report/index.html'), 'utf8');
        for (const chart of ['trip-time-spectrum', 'trip-time-cycles']) assert.match(html, new RegExp(`id="chart-${chart}"`), chart);
        assert.match(html, /Comet trip time per emit cycle/);
      } else {
        assert.equal(summary.tripTime, null);   // polls that time out carry no event
      }
      assert.match(r.stdout, /^report: .*report\/index\.html$/m);
    });
  }
});
