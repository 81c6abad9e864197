#!/usr/bin/env node
'use strict';
// Dev tool, not a test: drives a real server under test (base URL as argument) through a few seconds of a
// tiny run — time stamp, logging off, event set, comet streams, polls that get events, a poll that times
// out, a rejected request, clear — and saves every body under <out>/bodies/ with JMeter's file naming
// (label_N.suffix) plus <out>/samples.json (one entry per sample, for results.csv). Bounded: ~6 s.
//   node capture-bodies.js http://127.0.0.1:17080 <out-dir>
const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');

const [base, outDir] = process.argv.slice(2);
if (!base || !outDir) { console.error('usage: capture-bodies.js <base-url> <out-dir>'); process.exit(2); }
const bodiesDir = path.join(outDir, 'bodies');
fs.mkdirSync(bodiesDir, { recursive: true });
const samples = [];
let seq = 0;

function request(label, method, urlPath, body, thread, { abortAfterMs } = {}) {
  return new Promise((resolve) => {
    const start = Date.now();
    const url = new URL(urlPath, base);
    const req = http.request(url, { method, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      const done = () => {
        const data = Buffer.concat(chunks);
        const suffix = (res.headers['content-type'] || 'text/plain').split(';')[0].split('/')[1];
        const file = `${label}_${++seq}.${suffix}`;
        fs.writeFileSync(path.join(bodiesDir, file), data);
        samples.push({ timeStamp: start, elapsed: Date.now() - start, label, responseCode: res.statusCode,
          responseMessage: res.statusMessage, threadName: thread, dataType: 'text',
          success: res.statusCode < 400, bytes: data.length, URL: url.href, file });
        resolve(data.toString());
      };
      res.on('end', done);
      res.on('aborted', done);
      res.on('error', () => {});
    });
    req.on('error', (err) => {
      // JMeter saves its exception text as the body of a sample that got no answer.
      const file = `${label}_${++seq}.plain`;
      const text = `${err.code === 'ECONNREFUSED' ? 'java.net.ConnectException' : 'java.net.SocketException'}: ${err.message}\n\tat java.base/sun.nio.ch.Net.pollConnect(Native Method)\n`;
      fs.writeFileSync(path.join(bodiesDir, file), text);
      samples.push({ timeStamp: start, elapsed: Date.now() - start, label, responseCode: 'Non HTTP response code: java.net.ConnectException',
        responseMessage: `Non HTTP response message: ${err.message}`, threadName: thread, dataType: 'text', success: false,
        bytes: text.length, URL: url.href, file });
      resolve(null);
    });
    if (abortAfterMs) setTimeout(() => req.destroy(), abortAfterMs);
    if (body) req.write(JSON.stringify(body));
    req.end();
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function pollLoop(thread, until) {
  while (Date.now() < until) {
    await request('request', 'POST', '/request', { type: 'poll', events: ['event1'], duration: 3000 }, thread);
  }
}

async function main() {
  const startedAt = Date.now();
  await request('timestamp', 'GET', `/timestamp?client=${Date.now()}`, null, 'Init 1-1');
  await request('logging', 'POST', '/logging', { enabled: false }, 'Init 1-1');
  const comets = [1, 2, 3].map((i) => request('request', 'POST', '/request', { type: 'comet', events: ['event1'] },
    `Comet 1-${i}`, i === 3 ? { abortAfterMs: 1800 } : {}));
  await sleep(200);
  await request('setevent', 'POST', '/event/set', { name: 'event1', frequency: 700 }, 'Init 1-1');
  const until = Date.now() + 3000;
  const polls = [1, 2, 3].map((i) => pollLoop(`Poll 1-${i}`, until));
  const quiet = request('request', 'POST', '/request', { type: 'poll', events: ['quiet1'], duration: 1500 }, 'Quiet 1-1');
  await request('request', 'POST', '/request', { type: 'sometimes', events: ['event1'] }, 'Bad 1-1');
  await request('request', 'POST', '/request', { type: 'poll', events: ['event1'], duration: 1000 }, 'Refused 1-1', {});
  await Promise.all([...polls, quiet]);
  await request('clear', 'POST', '/event/clear', {}, 'Init 1-1');
  await Promise.all(comets);
  // one request against a port nobody listens on: JMeter's "connection refused" sample
  const refused = new URL(base); refused.port = String(Number(refused.port) + 19);
  await new Promise((resolve) => {
    const start = Date.now();
    const req = http.request(refused, { method: 'POST' });
    req.on('error', (err) => {
      const file = `request_${++seq}.plain`;
      const text = `java.net.ConnectException: Connection refused\n\tat java.base/sun.nio.ch.Net.pollConnect(Native Method)\n\tat org.apache.http.impl.conn.DefaultClientConnectionOperator.openConnection(DefaultClientConnectionOperator.java:180)\n`;
      fs.writeFileSync(path.join(bodiesDir, file), text);
      samples.push({ timeStamp: start, elapsed: Date.now() - start, label: 'request',
        responseCode: 'Non HTTP response code: java.net.ConnectException', responseMessage: `Non HTTP response message: ${err.message}`,
        threadName: 'Refused 1-1', dataType: 'text', success: false, bytes: text.length, URL: refused.href, file });
      resolve();
    });
    req.end();
  });
  fs.writeFileSync(path.join(outDir, 'samples.json'), JSON.stringify({ startedAt, finishedAt: Date.now(), samples }, null, 1));
  console.log(`captured ${samples.length} samples in ${Date.now() - startedAt} ms`);
}

main();
