'use strict';
// Gatling's own figures for one request name, from its HTML report (bench/peers.sh, issue #38 item 6):
// Gatling 3.15 writes no stats.json, so the request's page (req_<name>-<hash>.html) is read: its "Total
// count" (OK, KO) and its response time's 50th and 99th percentiles (all requests, OK and KO). One JSON line:
// {"ok":n,"ko":n,"p50":ms,"p99":ms}, null for what the page lacks; exit 1 when there is no such page.
//   node bench/peers/gatling-stats.js <results dir> <request name>
const fs = require('node:fs');
const path = require('node:path');

// Every row "<td class="title">T</td> <td class="total">a</td> <td class="ok">b</td> <td class="ko">c</td>".
function rows(html) {
  const out = {};
  const re = /<td class="title">([^<]*)(?:<\/abbr>)?<\/td>\s*<td class="total">([^<]*)<\/td>\s*<td class="ok">([^<]*)<\/td>\s*<td class="ko">([^<]*)<\/td>/g;
  for (let m; (m = re.exec(html)) !== null;) {
    const num = (v) => (/^-?\d+(\.\d+)?$/.test(v.trim().replace(/,/g, '')) ? Number(v.trim().replace(/,/g, '')) : null);
    out[m[1].trim()] = { total: num(m[2]), ok: num(m[3]), ko: num(m[4]) };
  }
  return out;
}

function figures(html) {
  const r = rows(html);
  const count = r['Total count'] || {};
  return {
    ok: count.ok ?? 0,
    ko: count.ko ?? 0,
    p50: (r['50th percentile'] || {}).total ?? null,
    p99: (r['99th percentile'] || {}).total ?? null,
  };
}

// The request's page anywhere under the results directory (one run's directory in it).
function findPage(dir, name) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findPage(p, name);
      if (found) return found;
    } else if (entry.name.startsWith(`req_${name}-`) && entry.name.endsWith('.html')) {
      return p;
    }
  }
  return null;
}

module.exports = { rows, figures, findPage };

if (require.main === module) {
  const [dir, name] = process.argv.slice(2);
  if (!dir || !name) {
    console.error('usage: node bench/peers/gatling-stats.js <results dir> <request name>');
    process.exit(2);
  }
  const page = fs.existsSync(dir) ? findPage(dir, name) : null;
  if (!page) {
    console.error(`gatling-stats: no page of request '${name}' under ${dir}`);
    process.exit(1);
  }
  console.log(JSON.stringify(figures(fs.readFileSync(page, 'utf8'))));
}
