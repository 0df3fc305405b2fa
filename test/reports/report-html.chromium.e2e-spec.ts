/**
 * The HTML report in a real browser: Debian's Chromium, headless, through
 * playwright-core (`executablePath`, no bundled browser download). The page must render with no console
 * error and no request other than its own file (self-contained: inline CSS and SVG, no script), show the
 * summary table and the three charts; a full-page screenshot is taken. With WRITE_REPORT_SCREENSHOT=1 the
 * screenshot is written to docs/images/weekly-report.png (the README's picture).
 *
 * `.ci/run` installs `chromium` when /usr/bin/chromium is absent; only where that is impossible does this
 * suite skip, with a warning on stderr.
 */
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScan } from '@app/audit';
import { buildReport, loadReportInput, renderReport, reportInputFromScans } from '@app/reports';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { SAMPLE_FLEET } from '../cli/cli-run.util';
import { at, seedThreeWeeks } from './report-fixture.util';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) process.stderr.write(`warning: ${CHROMIUM} not found: the HTML report browser test is SKIPPED (install Debian's chromium; .ci/run does)\n`);

describe.skipIf(!available)('HTML report in headless Chromium (e2e)', () => {
  let db: TestDatabase;
  let browser: Browser;
  let file: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    const store = await Store.open({ connectionString: db.url, migrate: true });
    try {
      await seedThreeWeeks(store);
      const html = renderReport(buildReport(await loadReportInput(store, { now: at(15) })), 'html');
      file = join(mkdtempSync(join(tmpdir(), 'fa-report-html-')), 'weekly-report.html');
      writeFileSync(file, html);
    } finally {
      await store.close();
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await db?.release();
  });

  it('renders with no console errors and no external requests, with the summary table and the charts', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => requests.push(r.url()));
    const url = pathToFileURL(file).href;
    await page.goto(url, { waitUntil: 'load' });
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    expect(await page.locator('#summary tbody tr').count()).toBe(8);
    expect(await page.locator('#summary [data-count="new"]').textContent()).toBe('1');
    expect(await page.locator('.chart svg').count()).toBe(3);
    // The charts drew something: bars / lines are SVG paths with a real size.
    const box = await page.locator('#chart-trend svg').boundingBox();
    expect(box?.width).toBeGreaterThan(300);
    expect(await page.locator('#chart-checks svg path').count()).toBeGreaterThan(5);
    const shot = join(tmpdir(), `fa-weekly-report-${process.pid}.png`);
    await page.screenshot({ path: shot, fullPage: false });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    if (process.env.WRITE_REPORT_SCREENSHOT === '1') await page.screenshot({ path: join(__dirname, '..', '..', 'docs', 'images', 'weekly-report.png'), fullPage: false });
    // Printable: the print stylesheet applies and the page still has its tables.
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('#summary').isVisible()).toBe(true);
    await page.close();
  });

  it('the findings-per-week chart says it is stacked; no table of the sample fleet report overflows its card', async () => {
    // The sample fleet's real ids and messages (long CLB, vServer group and check ids), every finding new.
    const outcome = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE_FLEET }, now: at(15) });
    const doc = buildReport(
      reportInputFromScans({
        current: { scan: { id: 'sample', startedAt: at(15).toISOString(), fleetName: outcome.scan.fleetName }, findings: outcome.findings, coverage: outcome.scan.coverage, quotaUsage: outcome.quotaUsage },
        now: at(15),
      }),
    );
    expect(doc.new.length).toBeGreaterThan(10);
    const sampleFile = join(mkdtempSync(join(tmpdir(), 'fa-report-sample-')), 'weekly-report.html');
    writeFileSync(sampleFile, renderReport(doc, 'html'));
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(pathToFileURL(sampleFile).href, { waitUntil: 'load' });
    expect(await page.locator('#chart-trend svg').textContent()).toMatch(/stacked/i);
    // Every table fits the section (card) holding it: nothing sticks out past its right edge.
    const overflowing = await page.evaluate(() =>
      [...document.querySelectorAll('section table')].flatMap((t) => {
        const card = (t.closest('section') as HTMLElement).getBoundingClientRect();
        const box = t.getBoundingClientRect();
        return box.right > card.right + 0.5 ? [`${t.previousElementSibling?.textContent ?? '?'}: ${Math.round(box.right - card.right)} px`] : [];
      }),
    );
    expect(overflowing).toEqual([]);
    const newTable = page.locator('#new + table');
    expect(await newTable.count()).toBe(1);
    const shot = join(tmpdir(), `fa-weekly-report-new-${process.pid}.png`);
    await newTable.screenshot({ path: shot });
    if (process.env.REPORT_SCREENSHOT_DIR) await page.screenshot({ path: join(process.env.REPORT_SCREENSHOT_DIR, 'weekly-report-sample.png'), fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(5_000);
    await page.close();
  });
});
