/**
 * The explorer page (GET /, public/) in a real browser: Debian's Chromium driven by playwright-core
 * against the real service on the embedded engine. No console error and no CSP violation; a bad
 * token shows the 401; logs.all shows 100 rows and pages to older ones without a repeat (a tie on
 * the boundary timestamp included); the usage chart has one point per bucket; the "copy as curl"
 * line, run by curl, answers the same body; it fits 360 px. Screenshots go to test/artifacts/.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Service } from '../src/service.ts';
import { pgliteFactory, type TestStore } from './support/engines.ts';
import { edgeRow, insertRows, isoMicros } from './support/fixtures.ts';
import { startTestService, TOKEN } from './support/service.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = new URL('./artifacts/', import.meta.url);
/** This machine's network is closed: without these, Chromium's own background connections fail noisily. */
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ROWS = 250;

describe('the explorer page in Chromium', () => {
  let store: TestStore;
  let service: Service;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `no browser at ${CHROMIUM}: install Debian's chromium (.ci/run does) or set CHROMIUM_PATH`);
    mkdirSync(ARTIFACTS, { recursive: true });
    store = await pgliteFactory.open();
    // One row every 40 minutes back over a week; rows 99 and 100 (0-based) share a timestamp, so
    // the first page ends inside a tie.
    const now = Date.now();
    const rows = Array.from({ length: ROWS }, (_, i) => {
      const at = now - (i === 100 ? 99 : i) * 40 * 60_000 - 60_000;
      return edgeRow(`r${String(i).padStart(3, '0')}`, isoMicros(at, 1), 'alpha', i % 3 === 0 ? '/auth/v1/token' : '/rest/v1/todos?select=*');
    });
    await insertRows(store, 'edge_logs', rows);
    service = await startTestService(store);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.setDefaultTimeout(15_000);
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
    });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await store?.teardown();
  });

  const shot = (name: string) => page.screenshot({ path: new URL(`explorer-${name}.png`, ARTIFACTS).pathname, fullPage: true });

  test('loads without a console error; a bad token shows the 401 code and message', async () => {
    const res = await page.goto(`${service.url}/`);
    assert.equal(res?.status(), 200);
    assert.match(res?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    await shot('start');
    await page.fill('#token', 'not-a-valid-token-000000');
    await page.press('#token', 'Enter');
    await page.waitForSelector('#token-status.error');
    assert.match(await page.textContent('#token-status') ?? '', /^401 unauthorized: A valid access token is required/);
    await shot('bad-token');
    // The browser reports the refused call itself; that one error is expected, nothing else.
    assert.deepEqual(consoleErrors.splice(0), ['Failed to load resource: the server responded with a status of 401 (Unauthorized)']);
  });

  test('logs.all: 100 rows, then older rows without a repeat; copy as curl answers the same body', async () => {
    await page.fill('#token', TOKEN);
    await page.press('#token', 'Enter');
    await page.waitForSelector('button[data-query="logs.all"]');
    assert.deepEqual(await page.$$eval('#queries button', (bs) => bs.map((b) => b.textContent)), ['logs.all', 'usage.api-counts']);
    await page.click('button[data-query="logs.all"]');
    // Regression: the form started empty though the demo store's project is "default" (the stored query's example).
    assert.equal(await page.inputValue('input[name="project"]'), 'default');
    // Regression: "(your local time)" under a description saying "UTC when no offset".
    assert.match(await page.textContent('label:has(input[name="iso_timestamp_end"]) small') ?? '', /\(ISO 8601; UTC when no offset\)\. Entered here in your local time, sent as UTC\.$/);
    await page.fill('input[name="project"]', 'alpha');
    const answered = page.waitForResponse((r) => r.url().includes('/api/endpoints/query/logs.all'));
    await page.press('input[name="project"]', 'Enter');
    const body = await (await answered).text();
    await page.waitForSelector('#rows tbody tr');
    const first = await ids(page);
    assert.equal(first.length, 100);
    assert.equal(await page.textContent('dd[data-meta="Rows"]'), '100');
    assert.match(await page.textContent('dd[data-meta="Cache-Status"]') ?? '', /fwd=bypass/);
    await shot('logs-all');

    // The curl line, run as written with TOKEN set, answers what the page got.
    const line = await page.inputValue('#curl');
    assert.match(line, /^curl -H "X-API-KEY: \$TOKEN" 'http:\/\/127\.0\.0\.1:\d+\/api\/endpoints\/query\/logs\.all\?project=alpha'$/);
    // Not execFileSync: the service runs in this process and must keep answering meanwhile.
    const { stdout: viaCurl } = await promisify(execFile)('bash', ['-c', line], { env: { ...process.env, TOKEN }, encoding: 'utf8' });
    assert.equal(viaCurl, body);

    await page.click('#older');
    await page.waitForFunction((before) => document.querySelector('#rows tbody tr td')?.textContent !== before, first[0]);
    const second = await ids(page);
    // The page ends at the oldest row shown, inclusive: 100 rows come back, the boundary row among
    // them, and it is left out.
    assert.equal(second.length, 99);
    assert.deepEqual(second.filter((id) => first.includes(id)), [], 'no row repeated');
    // The tie at the boundary: the row not shown on the first page is the first of the second.
    assert.equal(second[0], first.includes('r099') ? 'r100' : 'r099');
    const all = [...first, ...second].sort();
    assert.deepEqual(all, Array.from({ length: 199 }, (_, i) => `r${String(i).padStart(3, '0')}`), 'nothing skipped');
    // Regression: the strip said "Rows 100" above a table of 99.
    assert.equal(await page.textContent('dd[data-meta="Rows"]'), '99 new (1 already shown)');
    await shot('logs-all-older');
    // A full answer again (100 rows), so older rows are still offered; the next one holds the rest,
    // fewer than a call returns: nothing older exists, and the button goes (regression: it was
    // offered under any answer, a 12-row one too).
    assert.equal(await page.isHidden('#older'), false);
    const last = page.waitForResponse((r) => r.url().includes('iso_timestamp_end'));
    await page.click('#older');
    await last;
    await page.waitForFunction((left) => document.querySelector('dd[data-meta="Rows"]')?.textContent === `${left} new (1 already shown)`, ROWS - 199);
    assert.equal(await page.isHidden('#older'), true);
  });

  test('usage.api-counts: the chart has one point per bucket for each count', async () => {
    await page.click('button[data-query="usage.api-counts"]');
    await page.selectOption('select[name="interval"]', 'daily');
    await page.fill('input[name="project"]', 'alpha');
    await page.click('#run');
    await page.waitForSelector('#chart svg');
    const buckets = await page.$$eval('#rows tbody tr', (trs) => trs.length);
    assert.ok(buckets >= 7, `${buckets} daily buckets`);
    const points = await page.$$eval('#chart g[data-series]', (gs) => gs.map((g) => [g.getAttribute('data-series'), g.querySelectorAll('circle').length]));
    assert.deepEqual(points, ['total_rest_requests', 'total_storage_requests', 'total_auth_requests', 'total_realtime_requests'].map((s) => [s, buckets]));
    await shot('usage-chart');
  });

  test('at 360 px wide nothing but the table scrolls sideways; no console error or CSP violation anywhere', async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
    await shot('narrow');
    assert.deepEqual(consoleErrors, []);
    const weight = ['/', '/explorer/explorer.js', '/explorer/explorer.css', '/explorer/icon.svg'].map((p) => statSync(new URL(`../public/${p === '/' ? 'index.html' : p.split('/').pop()}`, import.meta.url)).size);
    console.log(`explorer: page weight ${weight.reduce((a, b) => a + b, 0)} bytes (${weight.join(' + ')}); screenshots in test/artifacts/`);
  });
});

/** The ids of the rows the table shows, in order. */
function ids(page: Page): Promise<string[]> {
  return page.$$eval('#rows tbody tr', (trs) => trs.map((tr) => tr.children[0]!.textContent ?? ''));
}

