'use strict';
// Opens pages in the installed headless Chromium through playwright-core (no bundled browser download).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');

const CHROMIUM = process.env.PB_CHROMIUM || '/usr/bin/chromium';

async function launch() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (set PB_CHROMIUM): the browser test needs it`);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

// Loads a file:// page and reports console errors, failed requests and each canvas: rendered flag and
// how many of its pixels differ from the background (a blank canvas has none).
async function inspectPage(context, file, screenshot) {
  const page = await context.newPage();
  const consoleErrors = [];
  const failedRequests = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('requestfailed', (r) => failedRequests.push(r.url()));
  await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
  await page.waitForTimeout(300);
  const canvases = await page.evaluate(() => Array.from(document.querySelectorAll('canvas')).map((c) => {
    const ctx = c.getContext('2d');
    const { data } = ctx.getImageData(0, 0, c.width, c.height);
    let inked = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] > 0 && (data[i] < 235 || data[i + 1] < 235 || data[i + 2] < 235)) inked++;
    }
    return { id: c.id, rendered: c.getAttribute('data-rendered'), width: c.width, height: c.height, inked };
  }));
  const externalRequests = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((u) => !u.startsWith('file:')));
  // The run report's validity banner, as a reader sees it (null on pages without one).
  const verdict = await page.evaluate(() => {
    const el = document.getElementById('verdict');
    if (!el) return null;
    const box = el.getBoundingClientRect();
    return { verdict: el.dataset.verdict, text: el.innerText, top: box.top, visible: box.width > 0 && box.height > 0 };
  });
  if (screenshot) {
    fs.mkdirSync(path.dirname(screenshot), { recursive: true });
    await page.screenshot({ path: screenshot, fullPage: true });
  }
  await page.close();
  return { consoleErrors, failedRequests, canvases, externalRequests, verdict };
}

// Opens a page from disk and checks it as a reader sees it: no console error, no failed or off-disk request,
// exactly the expected canvases, each drawn and not blank. A screenshot goes to `screenshot`.
async function assertPageDrawn(file, expectedCanvases, screenshot) {
  const assert = require('node:assert/strict');
  const browser = await launch();
  try {
    const result = await inspectPage(browser.context, file, screenshot);
    assert.deepEqual(result.consoleErrors, []);
    assert.deepEqual(result.failedRequests, []);
    assert.deepEqual(result.externalRequests, []);
    assert.deepEqual(result.canvases.map((c) => c.id), expectedCanvases);
    for (const c of result.canvases) {
      assert.equal(c.rendered, 'yes', c.id);
      assert.ok(c.inked > 1500, `${c.id} looks blank (${c.inked} inked pixels)`);
    }
  } finally {
    await browser.close();
  }
}

module.exports = { launch, inspectPage, assertPageDrawn };
