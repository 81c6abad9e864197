'use strict';
// The capacity search's page (capacity/search.js): trip time p99 and delivery against connections, one
// point per step, and a table of the steps, each linked to its run's report. Self-contained HTML with an
// inline SVG (no script), so it opens from disk anywhere.
const path = require('node:path');

const esc = (v) => String(v ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const COLOURS = { held: '#2e7d32', failed: '#c62828', generator: '#ef6c00', disturbed: '#757575', incomplete: '#757575' };

// One SVG chart of `value(step)` against the steps' levels (log scale of connections).
function chart(steps, { title, unit, value }) {
  const W = 560; const H = 240; const L = 60; const B = 40; const T = 24; const R = 16;
  const pts = steps.map((s) => ({ x: s.level, y: value(s), outcome: s.outcome })).filter((p) => p.y !== null && p.y !== undefined);
  const xs = steps.map((s) => s.level);
  const [x0, x1] = [Math.min(...xs, 1), Math.max(...xs, 2)];
  const yMax = Math.max(1, ...pts.map((p) => p.y)) * 1.1;
  const lx = (x) => L + ((Math.log(x) - Math.log(x0)) / Math.max(1e-9, Math.log(x1) - Math.log(x0))) * (W - L - R);
  const ly = (y) => H - B - (y / yMax) * (H - B - T);
  const sorted = [...pts].sort((a, b) => a.x - b.x);
  const line = sorted.map((p, i) => `${i ? 'L' : 'M'}${lx(p.x).toFixed(1)},${ly(p.y).toFixed(1)}`).join(' ');
  const dots = pts.map((p) => `<circle cx="${lx(p.x).toFixed(1)}" cy="${ly(p.y).toFixed(1)}" r="4" fill="${COLOURS[p.outcome]}"><title>${p.x} connections: ${p.y} ${unit} (${p.outcome})</title></circle>`).join('');
  const xTicks = [...new Set(xs)].sort((a, b) => a - b).map((x) => `<text x="${lx(x).toFixed(1)}" y="${H - B + 16}" text-anchor="middle" font-size="11">${x}</text>`).join('');
  const yTicks = [0, 0.5, 1].map((f) => `<text x="${L - 6}" y="${ly(yMax * f / 1.1).toFixed(1)}" text-anchor="end" font-size="11">${+(yMax * f / 1.1).toPrecision(3)}</text>`).join('');
  return `<svg width="${W}" height="${H}" role="img" aria-label="${esc(title)}"><text x="${L}" y="16" font-size="13">${esc(title)} (${esc(unit)})</text>`
    + `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#999"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#999"/>`
    + `<path d="${line}" fill="none" stroke="#1565c0"/>${dots}${xTicks}${yTicks}<text x="${(W + L) / 2}" y="${H - 6}" text-anchor="middle" font-size="11">connections</text></svg>`;
}

function capacityPage(result, dir) {
  const rows = result.steps.map((s, i) => {
    const report = s.runDir ? path.relative(dir, path.join(s.runDir, 'report', 'index.html')) : null;
    return `<tr><td>${i + 1}</td><td>${s.level}</td><td style="color:${COLOURS[s.outcome]}">${esc(s.outcome)}</td><td>${esc(s.verdict ?? '-')}</td>`
      + `<td>${s.tripP99Ms ?? '-'}</td><td>${s.receivedPercent ?? '-'}</td><td>${s.missed ?? '-'}</td><td>${s.thresholdsFailed}</td>`
      + `<td>${esc(s.reasons.join('; '))}</td><td>${report ? `<a href="${esc(report)}">report</a>` : '-'}</td></tr>`;
  }).join('\n');
  const headline = result.held ? `${result.held} connections held` : 'no level held';
  return `<!doctype html><html><head><meta charset="utf-8"><title>capacity: ${esc(result.name)}</title>
<style>body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:nth-child(3),td:nth-child(4),td:nth-child(9){text-align:left}</style></head><body>
<h1>Capacity of ${esc(result.name)}: ${esc(headline)}</h1>
<p>Stopped by <b>${esc(result.stoppedBy ?? 'nothing yet')}</b>: ${esc(result.reason ?? '')}${result.interrupted ? ' (interrupted: the steps below are what ran)' : ''}.</p>
<p>A step <b>held</b> when its verdict was valid and every threshold passed (docs/validity.md: a loss beyond its bound is not valid);
levels double from ${result.start} until one does not hold, then bisect to within ${result.resolutionPercent}% of the held level.
Arguments: <code>${esc(result.args.join(' '))}</code></p>
${chart(result.steps, { title: 'trip time p99', unit: 'ms', value: (s) => s.tripP99Ms })}
${chart(result.steps, { title: 'messages received of those expected', unit: '%', value: (s) => s.receivedPercent })}
<table><tr><th>step</th><th>connections</th><th>outcome</th><th>verdict</th><th>trip p99 (ms)</th><th>received (%)</th><th>missed</th><th>thresholds failed</th><th>reasons</th><th>run</th></tr>
${rows}
</table></body></html>
`;
}

module.exports = { capacityPage };
