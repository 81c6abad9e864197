'use strict';
// Parser for `pidstat -h -u -r -p PID 1` (sysstat): one line per second with %CPU and RSS (kB) of the
// server process. Columns are found by the "# Time ..." header's names. The time column is a clock time of
// the SUT host (HH:MM:SS, possibly with AM/PM, or epoch seconds on older sysstat); with the date from the
// "Linux ..." banner it becomes an epoch time (local time zone of the analyzer).
// Given several PIDs (`-p a,b,c`: node-cluster's primary and workers, host/monitor.sh) pidstat prints one
// line per process per second, all with the same time: those lines become one sample, their %CPU and RSS
// summed, so a server of several processes reads as one. Only lines of different PIDs are summed: a PID
// already in the sample starts the next one (pidstat late by a second prints two samples with one time).
const { lineParsers } = require('./lines');

function parseBannerDate(text) {
  let m = /\b(\d{2})\/(\d{2})\/(\d{2,4})\b/.exec(text);          // MM/DD/YY (default locale)
  if (m) {
    const year = m[3].length === 2 ? 2000 + Number(m[3]) : Number(m[3]);
    return { year, month: Number(m[1]), day: Number(m[2]) };
  }
  m = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(text);                     // ISO (S_TIME_FORMAT=ISO)
  if (m) return { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  return null;
}

// Seconds since midnight of "HH:MM:SS" (+ optional AM/PM), or null.
function secondsOfDay(time, ampm) {
  const m = /^(\d{1,2}):(\d{2}):(\d{2})$/.exec(time);
  if (!m) return null;
  let h = Number(m[1]);
  if (ampm === 'PM' && h < 12) h += 12;
  if (ampm === 'AM' && h === 12) h = 0;
  return h * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

function createPidstatParser() {
  let columns = null;
  let date = null;
  let lastSod = null;
  let dayShift = 0;  // a run that crosses midnight
  let lastTime = null; // the time column of the latest sample: a line with the same one may be another process
  let pids = new Set(); // the PIDs summed into the latest sample
  const state = { samples: [], skipped: 0, cores: null };

  function line(raw) {
    const text = raw.trim();
    if (text === '') return;
    if (text.startsWith('Linux')) {
      date = parseBannerDate(text) || date;
      const cores = /\((\d+) CPU\)/.exec(text);   // the host's cores, as the banner gives them
      if (cores) state.cores = Number(cores[1]);
      return;
    }
    if (text.startsWith('#')) { columns = text.slice(1).trim().split(/\s+/); return; }
    if (text.startsWith('Average')) return;
    if (!columns) { state.skipped++; return; }
    let fields = text.split(/\s+/);
    if (fields[1] === 'AM' || fields[1] === 'PM') fields = [fields[0] + ' ' + fields[1], ...fields.slice(2)];
    if (fields.length < columns.length) { state.skipped++; return; }
    const get = (name) => fields[columns.indexOf(name)];
    const cpu = Number(get('%CPU'));
    const rssKB = Number(get('RSS'));
    if (!Number.isFinite(cpu) || !Number.isFinite(rssKB) || columns.indexOf('%CPU') < 0) { state.skipped++; return; }
    const pid = columns.includes('PID') ? get('PID') : null;
    if (fields[0] === lastTime && pid !== null && !pids.has(pid)) {
      const sample = state.samples[state.samples.length - 1];
      sample.cpu += cpu;
      sample.rssMB += rssKB / 1024;
      pids.add(pid);
      return;
    }
    const [time, ampm] = fields[0].split(' ');
    let epochMs = null;
    if (/^\d{9,}$/.test(time)) epochMs = Number(time) * 1000;
    else {
      const sod = secondsOfDay(time, ampm);
      if (sod === null) { state.skipped++; return; }
      if (lastSod !== null && sod < lastSod - 3600) dayShift++;
      lastSod = sod;
      if (date) {
        const midnight = new Date(date.year, date.month - 1, date.day + dayShift).getTime();
        epochMs = midnight + sod * 1000;
      }
    }
    state.samples.push({ epochMs, cpu, rssMB: rssKB / 1024 });
    lastTime = fields[0];
    pids = new Set(pid === null ? [] : [pid]);
  }
  return { line, state };
}

// Returns { samples: [{epochMs (that host's clock, or null), cpu, rssMB}], skipped, cores (from the banner, or null) }.
const { fromFile: parsePidstatFile, fromText: parsePidstatText } = lineParsers(createPidstatParser);

module.exports = { parsePidstatFile, parsePidstatText, secondsOfDay, parseBannerDate };
