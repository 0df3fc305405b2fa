/**
 * `scan --format html` in a real browser at 1,400 px: Debian's Chromium, headless,
 * through playwright-core. Every column of the findings table, the message and remediation included, is
 * on screen: the page never scrolls sideways and each cell's right edge is inside the viewport (before,
 * long resource paths and check ids pushed the message column off-screen). A screenshot is taken
 * (WRITE_SCAN_SCREENSHOT=1 writes docs/images/scan-html.png).
 */
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScan } from '@app/audit';
import { renderHtml } from '../../apps/cli/src/output/report-formats.renderer';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) process.stderr.write(`warning: ${CHROMIUM} not found: the scan HTML browser test is SKIPPED (install Debian's chromium; .ci/run does)\n`);
const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const WIDTH = 1400;

describe.skipIf(!available)('scan --format html in headless Chromium at 1,400 px (e2e)', () => {
  let browser: Browser;
  let file: string;

  beforeAll(async () => {
    const outcome = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: new Date('2026-11-23T00:00:00Z') });
    file = join(mkdtempSync(join(tmpdir(), 'fa-scan-html-')), 'scan.html');
    writeFileSync(file, renderHtml(outcome));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('keeps every column, the message included, inside the viewport', async () => {
    const page = await browser.newPage({ viewport: { width: WIDTH, height: 900 } });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const rows = await page.locator('tbody tr').count();
    expect(rows).toBeGreaterThan(10);
    // No horizontal scrolling.
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth).toBeLessThanOrEqual(WIDTH);
    // Every header cell, the last (Remediation) included, ends inside the viewport and is readable.
    const heads = await page.locator('thead th').evaluateAll((ths) => ths.map((th) => ({ text: th.textContent, ...JSON.parse(JSON.stringify(th.getBoundingClientRect())) as { left: number; right: number; width: number } })));
    expect(heads.map((h) => h.text)).toEqual(['Severity', 'Check', 'Resource', 'Message', 'Remediation']);
    for (const h of heads) {
      expect(h.right, `${h.text} column`).toBeLessThanOrEqual(WIDTH);
      expect(h.width, `${h.text} column width`).toBeGreaterThan(70);
    }
    const message = heads[3];
    expect(message.width).toBeGreaterThan(300);
    const shot = join(tmpdir(), `fa-scan-html-${process.pid}.png`);
    await page.screenshot({ path: shot, fullPage: false });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    if (process.env.WRITE_SCAN_SCREENSHOT === '1') await page.screenshot({ path: join(__dirname, '..', '..', 'docs', 'images', 'scan-html.png'), fullPage: false });
    await page.close();
  });
});
