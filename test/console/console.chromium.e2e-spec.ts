/**
 * The web console in a real browser: Debian's Chromium, headless, through playwright-core (`executablePath`, no
 * browser download), against one API (createApiApp with the console build, as `serve` and `demo` run it) on a real
 * PostgreSQL holding the sample fleet's scan and a generated 6-day history of payments-legacy (as `demo` stores it).
 *
 * It signs in (form and `#token=` link), reads the overview, filters findings, opens a cluster and its trend chart,
 * runs a what-if that breaches a quota (and one the API refuses, shown at its field), waives a finding as operator and
 * is refused as viewer (no button; the API answers 403), and checks that a token scoped to one account never receives
 * another account's data on any page. axe-core (injected into each page) must report no serious or critical
 * violation; keyboard navigation, the OS dark mode and both sizes (1280x800, 390x844) are checked. No request leaves
 * the API's origin, and the page runs under the API's Content-Security-Policy unchanged.
 *
 * With CONSOLE_SCREENSHOT_DIR=<dir> every page is also captured at both sizes (`npm run docs:console` writes
 * docs/console/). `.ci/run` installs `chromium` when /usr/bin/chromium is absent; only where that is impossible does
 * this suite skip, with a warning on stderr. The console build (dist/console) comes from `npm install`; when it is
 * missing this suite builds it first.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, type ScanLauncher } from '@app/api';
import {
  analyzeAndStore,
  backfillGrowthHistory,
  defaultForecastWorkerEntry,
  loadAuditSettings,
} from '@app/audit';
import { loadFleetDirectory } from '@app/collectors';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const ROOT = join(__dirname, '..', '..');
const CONSOLE_DIR = join(ROOT, 'dist', 'console');
const SAMPLE = join(ROOT, 'examples', 'fleets', 'sample');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available)
  process.stderr.write(
    `warning: ${CHROMIUM} not found: the web console browser test is SKIPPED (install Debian's chromium; .ci/run does)\n`,
  );

const BOOTSTRAP = 'console-e2e-bootstrap-0123456789abcdef';
const KEY = 'console-e2e-hash-key-0123456789abcdef-0123456789';
/** The sample fleet's two accounts: the scoped token sees ACCOUNT_A only. */
const ACCOUNT_A = '1234567890123456';
const ACCOUNT_B = '1987654321098765';
const PAYMENTS = 'c1e64668d4e11407d7227bc187533f952';
/** A cluster of account B (data-platform): the scoped token must not get it even by its address. */
const B_CLUSTER = 'c75849719d4432e7378507410f099fa74';
/** CLBs of account A (payments' checkout-gateway) and of account B. */
const A_CLB = 'lb-bp1i0hoxo5qje4vllnxj';
const B_CLB = 'lb-2ze0yj1jt8z2ff7d0b7u';
/** An NLB of the sample fleet (account A, cn-beijing). */
const NLB = 'nlb-alc8afpodbqvpz396mnw';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** How long a poll waits for the page (API answers on a loaded CI machine take seconds; vitest's default is 1 s). */
const POLL = { timeout: 20_000, interval: 100 };
const launcher = {
  launch: () => Promise.reject(new Error('no scans in this test')),
} as unknown as ScanLauncher;

describe.skipIf(!available)('web console in headless Chromium (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let base: string;
  let browser: Browser;
  /** The sample fleet's scan (the latest). */
  let latestScanId = '';
  const tokens: Record<'operator' | 'viewer' | 'scoped', string> = { operator: '', viewer: '', scoped: '' };
  const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const shots = process.env.CONSOLE_SCREENSHOT_DIR;

  beforeAll(async () => {
    if (!existsSync(join(CONSOLE_DIR, 'index.html'))) {
      const { build } = await import('vite');
      await build({ configFile: join(ROOT, 'apps', 'console', 'vite.config.mts'), logLevel: 'warn' });
    }
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const now = new Date();
    const snapshot = loadFleetDirectory(SAMPLE);
    const settings = loadAuditSettings(join(SAMPLE, 'audit-settings.yaml'));
    const scan = await store.scans.create({ source: 'offline', startedAt: now });
    latestScanId = scan.id;
    await analyzeAndStore(snapshot, { scanId: scan.id, now, store, settings });
    await backfillGrowthHistory(store, snapshot, {
      clusterId: PAYMENTS,
      days: 6,
      nodesPerDay: 2,
      now,
      settings,
    });
    tokens.operator = (
      await store.apiTokens.create({ role: 'operator', createdBy: 'test', name: 'console-operator' })
    ).token;
    tokens.viewer = (
      await store.apiTokens.create({ role: 'viewer', createdBy: 'test', name: 'console-viewer' })
    ).token;
    tokens.scoped = (
      await store.apiTokens.create({
        role: 'viewer',
        accounts: [ACCOUNT_A],
        createdBy: 'test',
        name: 'console-account-a',
      })
    ).token;
    app = await createApiApp({
      store,
      token: BOOTSTRAP,
      scanLauncher: launcher,
      logger: false,
      consoleDir: CONSOLE_DIR,
      forecasts: { workerEntry: defaultForecastWorkerEntry(process.env.FLEET_AUDIT_DIST) },
    });
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    // playwright-core starts Chromium with a fresh temporary profile (--user-data-dir) of its own and removes it on close.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    if (shots) mkdirSync(shots, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await store?.close();
    await db?.release();
  });

  /** A page of a new context (its own sessionStorage) that records errors, foreign requests and API answers. */
  async function open(viewport = DESKTOP, colorScheme: 'light' | 'dark' = 'light') {
    const context: BrowserContext = await browser.newContext({ viewport, colorScheme });
    const page = await context.newPage();
    const errors: string[] = [];
    const foreign: string[] = [];
    const answers: { url: string; status: number; body: string }[] = [];
    /** API requests sent and not answered yet (named when a page never finishes loading). */
    const pending = new Set<string>();
    page.on('request', (r) => {
      if (r.url().startsWith(`${base}/v1/`) || r.url() === `${base}/graphql`) pending.add(r.url());
    });
    page.on('requestfinished', (r) => pending.delete(r.url()));
    page.on('requestfailed', (r) => {
      pending.delete(r.url());
      const why = r.failure()?.errorText ?? 'failed';
      // The console aborts the loads of a page it leaves (an AbortSignal per load): a page left before one of its
      // lists arrived shows as net::ERR_ABORTED, which is the intended behaviour, not a failure.
      if (why !== 'net::ERR_ABORTED') errors.push(`${r.url()}: ${why}`);
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      // 4xx answers the page shows (a refused scenario, a cluster outside the scope) are logged by Chromium as errors.
      if (m.type() === 'error' && !/status of (400|403|404|409)/.test(m.text())) errors.push(m.text());
    });
    page.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('blob:') && !r.url().startsWith('data:'))
        foreign.push(r.url());
    });
    page.on('response', async (r) => {
      if (r.url().startsWith(`${base}/v1/`) || r.url() === `${base}/graphql`)
        answers.push({ url: r.url(), status: r.status(), body: await r.text().catch(() => '') });
    });
    return { context, page, errors, foreign, answers, pending };
  }

  /** Sign in through the `#token=` link `demo` prints; the page must clear the fragment. */
  async function signInByLink(page: Page, token: string, path = '/') {
    await page.goto(`${base}${path}#token=${encodeURIComponent(token)}`);
    await page.locator('header .who').waitFor();
    expect(new URL(page.url()).hash).toBe('');
  }

  /** Go to a console path as a click on a link would (client-side routing, no reload). */
  async function go(page: Page, path: string) {
    await page.evaluate((p) => {
      history.pushState(null, '', p);
      dispatchEvent(new PopStateEvent('popstate'));
    }, path);
  }

  /** axe-core's serious and critical violations of the page as it is now (rule id: first target). */
  async function axeProblems(page: Page): Promise<string[]> {
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const r = await (
        window as unknown as {
          axe: {
            run: (
              ctx: Document,
              o: object,
            ) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
          };
        }
      ).axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        target: v.nodes[0]?.target.join(' ') ?? '',
      }));
    });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.target}`);
  }

  /** The document is no wider than the viewport (nothing forces a sideways scroll of the page itself). */
  async function overflow(page: Page): Promise<number> {
    return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  }

  async function shoot(page: Page, name: string) {
    if (shots) await page.screenshot({ path: join(shots, `${name}.png`), fullPage: false });
  }

  it('serves the console at / under the strict CSP without shadowing any API route', async () => {
    const root = await fetch(`${base}/`);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toMatch(/text\/html/);
    const csp = root.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    const html = await root.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect((await fetch(`${base}/clusters/${PAYMENTS}`)).status).toBe(200);
    const unknown = await fetch(`${base}/v1/nothing-here`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/json/);
    expect((await fetch(`${base}/healthz`)).headers.get('content-type')).toMatch(/json/);
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    expect((await fetch(`${base}/v1/findings`)).status).toBe(401);
    expect((await fetch(`${base}/no-such-page`)).status).toBe(404);
    const asset = html.match(/src="(\/assets\/[^"]+\.js)"/)![1]!;
    const js = await fetch(`${base}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toContain('immutable');
  });

  it('signs in with the form, shows the overview, and signs out', async () => {
    const { context, page, errors, foreign } = await open();
    await page.goto(`${base}/`);
    await page.getByLabel('API token').fill(tokens.viewer);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('header .who').textContent(), POLL).toContain('viewer');
    expect(await page.evaluate(() => sessionStorage.getItem('fleet-audit.token'))).toBe(tokens.viewer);
    // Quotas nearest their limit first: ratios in descending order.
    await page.locator('.table-wrap[aria-label="Quotas nearest their limit"] tbody tr').first().waitFor();
    const ratios = await page
      .locator('.table-wrap[aria-label="Quotas nearest their limit"] .quota-text')
      .allTextContents();
    const pcts = ratios.map((t) => Number(/\((\d+)%\)/.exec(t)![1]));
    expect(pcts.length).toBeGreaterThan(3);
    expect([...pcts].sort((a, b) => b - a)).toEqual(pcts);
    // Exhaustion date of the quota the generated history grows (CLB_BACKEND_QUOTA of payments' CLB).
    expect(await page.locator('.table-wrap[aria-label="Quotas nearest their limit"]').textContent()).toMatch(
      /\d{4}-\d{2}-\d{2}/,
    );
    expect(await page.locator('#by-severity').textContent()).toMatch(/critical\s*\d+/i);
    // The sample's quota datasets that were not read are named as not read.
    expect(await page.locator('#coverage-gaps').textContent()).toContain('not read');
    expect(await page.locator('#last-scan .age').textContent()).toMatch(/ago/);
    expect(await axeProblems(page)).toEqual([]);
    await shoot(page, 'overview-1280x800');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('fleet-audit.token'))).toBeNull();
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    await context.close();
  });

  it('filters findings, opens a cluster and its trend chart, keyboard first', async () => {
    const { context, page, errors, foreign } = await open();
    await signInByLink(page, tokens.viewer, '/findings');
    await page.locator('.finding').first().waitFor();
    const all = await page.locator('#findings-count').textContent();
    await page.getByLabel('Severity').selectOption('critical');
    await expect
      .poll(async () => (await page.locator('#findings-count').textContent()) !== all, POLL)
      .toBe(true);
    const sevs = await page.locator('.finding .finding-head .sev').allTextContents();
    expect(sevs.length).toBeGreaterThan(0);
    expect(new Set(sevs)).toEqual(new Set(['critical']));
    expect(page.url()).toContain('severity=critical');
    await page.getByLabel('Cluster').selectOption('payments-legacy');
    await expect.poll(() => page.url(), POLL).toContain('cluster=payments-legacy');
    // Every finding listed is of that cluster (once the new page replaced the old one).
    await expect
      .poll(async () => {
        const heads = await page.locator('.finding .finding-head').allTextContents();
        return heads.length > 0 && heads.every((h) => h.includes('payments-legacy'));
      }, POLL)
      .toBe(true);
    // Message, remediation and a documentation link on each finding; no write action for a viewer.
    expect(await page.locator('.finding .remediation a').count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Waive…' }).count()).toBe(0);
    expect(await axeProblems(page)).toEqual([]);
    await shoot(page, 'findings-1280x800');

    // Keyboard: the skip link comes first, then the navigation; Enter follows a link and focus lands on the title.
    await page.goto(`${base}/`);
    await page.locator('header .who').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    let guard = 0;
    while ((await page.evaluate(() => document.activeElement?.textContent)) !== 'Clusters' && guard++ < 10)
      await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName), POLL).toBe('H1');
    expect(await page.locator('h1').textContent()).toBe('Clusters');
    await page.getByRole('link', { name: 'payments-legacy' }).click();
    await page.locator('[data-testid="trend-chart"] svg').waitFor({ timeout: 15_000 });
    expect(await page.locator('h1').textContent()).toBe('Cluster payments-legacy');
    expect(await page.locator('#ccm-version').textContent()).toMatch(/^v\d/);
    // The chart drew its lines and its p10-p90 band; its summary names the exhaustion date.
    expect(await page.locator('[data-testid="trend-chart"] svg path').count()).toBeGreaterThan(4);
    expect(await page.locator('.chart-figure figcaption').textContent()).toMatch(
      /reaches the limit around \d{4}-\d{2}-\d{2}|exhausted/,
    );
    expect(await page.locator('.table-wrap[aria-label="Services"] tbody tr').count()).toBeGreaterThan(0);
    expect(await axeProblems(page)).toEqual([]);
    await shoot(page, 'cluster-1280x800');
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    await context.close();
  });

  it('runs a what-if that breaches a quota, and shows a refused scenario at its field (operator)', async () => {
    const { context, page, errors, foreign } = await open();
    await signInByLink(page, tokens.operator, '/whatif');
    await page.getByLabel('Cluster').selectOption('payments-legacy');
    await page.getByLabel('Nodes to add').fill('0');
    await page.getByRole('button', { name: 'Run what-if' }).click();
    await page.locator('.field.invalid .field-error').first().waitFor();
    expect(await page.locator('.field.invalid .field-error').first().textContent()).toMatch(
      />=\s*1|too small/i,
    );
    expect(await page.getByLabel('Nodes to add').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Nodes to add').fill('50');
    await page.getByRole('button', { name: 'Run what-if' }).click();
    await page.locator('#whatif-result').waitFor({ timeout: 30_000 });
    expect(await page.locator('.step-result .breach').first().textContent()).toContain('CLB_BACKEND_QUOTA');
    expect(await page.locator('.step-result').first().getAttribute('data-breach')).toBe('yes');
    expect(await page.locator('#convergence').count()).toBeLessThanOrEqual(1);
    expect(await axeProblems(page)).toEqual([]);
    await shoot(page, 'whatif-result-1280x800');
    // The YAML editor holds the same scenario, and runs it too.
    await page.getByRole('button', { name: 'YAML' }).click();
    expect(await page.getByLabel('Scenario (YAML)').inputValue()).toContain('addNodes:');
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    await context.close();
  });

  it('waives a finding and builds, downloads and opens a report as operator; a viewer has no such button and the API refuses the waiver (403)', async () => {
    const op = await open();
    await signInByLink(op.page, tokens.operator, '/findings?checkId=LB_NO_BACKENDS');
    await op.page.locator('.finding').first().waitFor();
    const first = op.page.locator('.finding').first();
    await first.getByRole('button', { name: 'Waive…' }).click();
    await first.getByLabel('Owner').fill('team-payments');
    await first.getByLabel(/Reason/).fill('Kept for the failover drill next week');
    await first.getByRole('button', { name: 'Waive', exact: true }).click();
    await op.page.locator('.notice[role="status"]').waitFor();
    expect(await op.page.locator('.notice[role="status"]').textContent()).toMatch(/^Waived LB_NO_BACKENDS/);
    await expect.poll(() => op.page.locator('.finding .tag-waived').count(), POLL).toBeGreaterThan(0);
    await go(op.page, '/waivers');
    await op.page
      .locator('.table-wrap[aria-label="Waivers, expiring soon first"] tbody tr')
      .first()
      .waitFor();
    expect(
      await op.page.locator('.table-wrap[aria-label="Waivers, expiring soon first"]').textContent(),
    ).toContain('team-payments');
    expect(await axeProblems(op.page)).toEqual([]);
    await shoot(op.page, 'waivers-1280x800');
    // Reports: build one now (operator), download it as Markdown, open the HTML in a new tab (a blob of the page:
    // the token never goes into a URL).
    await go(op.page, '/reports');
    await op.page.getByRole('button', { name: 'Build a report now' }).click();
    await op.page.locator('.table-wrap[aria-label="Reports"] tbody tr').first().waitFor();
    const [file] = await Promise.all([
      op.page.waitForEvent('download'),
      op.page.getByRole('button', { name: 'Download md' }).first().click(),
    ]);
    expect(file.suggestedFilename()).toMatch(/^report-\d{4}-\d{2}-\d{2}\.md$/);
    expect(readFileSync((await file.path())!, 'utf8')).toMatch(/^#/m);
    const [tab] = await Promise.all([
      op.context.waitForEvent('page'),
      op.page.getByRole('button', { name: 'Open' }).first().click(),
    ]);
    await tab.waitForLoadState();
    expect(tab.url()).toMatch(/^blob:/);
    expect(await tab.locator('#summary').count()).toBe(1);
    await tab.close();
    expect(op.errors).toEqual([]);
    await op.context.close();

    const viewer = await open();
    await signInByLink(viewer.page, tokens.viewer, '/findings?checkId=LB_NO_BACKENDS');
    await viewer.page.locator('.finding').first().waitFor();
    expect(await viewer.page.getByRole('button', { name: 'Waive…' }).count()).toBe(0);
    await go(viewer.page, '/waivers');
    await viewer.page.locator('.table-wrap[aria-label="Waivers, expiring soon first"]').waitFor();
    expect(await viewer.page.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
    // The same request the operator's page made, with the viewer's token from the viewer's page: refused.
    const status = await viewer.page.evaluate(async () => {
      const token = sessionStorage.getItem('fleet-audit.token');
      const r = await fetch('/v1/waivers', {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          checkId: 'LB_NO_BACKENDS',
          accountId: '1234567890123456',
          resource: '*',
          owner: 'x',
          reason: 'a viewer trying to waive',
          category: 'accepted-risk',
        }),
      });
      return r.status;
    });
    expect(status).toBe(403);
    await go(viewer.page, '/reports');
    await viewer.page.locator('h1', { hasText: 'Reports' }).waitFor();
    expect(await viewer.page.getByRole('button', { name: 'Build a report now' }).count()).toBe(0);
    await go(viewer.page, '/whatif');
    await viewer.page.locator('h1', { hasText: 'What-if' }).waitFor();
    expect(await viewer.page.getByRole('button', { name: 'Run what-if' }).count()).toBe(0);
    expect(viewer.errors).toEqual([]);
    await viewer.context.close();
  });

  it('a token scoped to one account never receives another account on any page', async () => {
    const { context, page, errors, answers, pending } = await open();
    await signInByLink(page, tokens.scoped, '/');
    await page.locator('.table-wrap[aria-label="Quotas nearest their limit"]').waitFor();
    expect(await page.locator('header .who').textContent()).toContain(ACCOUNT_A);
    const pages: [string, string][] = [
      ['/findings', '.finding'],
      ['/clusters', '.table-wrap[aria-label="Clusters"]'],
      [`/clusters/${PAYMENTS}`, '.table-wrap[aria-label="Services"]'],
      [`/clusters/${B_CLUSTER}`, '.error'],
      ['/whatif', '#scenario-name'],
      ['/scans', '.table-wrap[aria-label="Scans"]'],
      [`/scans/${latestScanId}`, '#against'],
      [`/load-balancers/${A_CLB}`, '.table-wrap[aria-label="Listeners"]'],
      [`/load-balancers/${B_CLB}`, '.error'],
      [`/nlbs/${NLB}`, '.table-wrap[aria-label="Listeners"]'],
      ['/reports', 'h1'],
      ['/waivers', 'h1'],
    ];
    for (const [path, ready] of pages) {
      await go(page, path);
      await page
        .locator(ready)
        .first()
        .waitFor({ timeout: 15_000 })
        .catch(async (e: unknown) => {
          throw new Error(
            `${path}: ${String(e)}; the page shows: ${await page.locator('main').textContent()}; unanswered: ${[...pending].join(', ')}; errors: ${errors.join('; ')}`,
          );
        });
      await expect
        .poll(() => page.locator('[role="status"]').filter({ hasText: 'Loading' }).count(), POLL)
        .toBe(0);
      expect(await page.locator('main').textContent(), path).not.toContain(ACCOUNT_B);
      // Account B's cluster by its address: answered as absent.
      if (path.endsWith(B_CLUSTER)) expect(await page.locator('main').textContent()).toContain('No cluster');
      if (path.endsWith(B_CLB)) expect(await page.locator('.error').textContent()).toMatch(/^404/);
    }
    expect(answers.length).toBeGreaterThan(8);
    for (const a of answers) expect(a.body, a.url).not.toContain(ACCOUNT_B);
    expect(errors).toEqual([]);
    await context.close();
  });

  // Screenshots for the docs: every page at both sizes in light mode too.
  const passes: [typeof DESKTOP, 'light' | 'dark'][] = [
    [PHONE, 'light'],
    [DESKTOP, 'dark'],
    ...(shots ? ([[DESKTOP, 'light']] as [typeof DESKTOP, 'light' | 'dark'][]) : []),
  ];
  // One test per pass: eleven pages with an axe run each take 20-40 s on a busy 2-core machine.
  it.each(passes)(
    'every page: no serious or critical axe violation, nothing wider than the screen (%o, %s)',
    async (viewport, scheme) => {
      const pages = [
        '/',
        '/findings',
        '/clusters',
        `/clusters/${PAYMENTS}`,
        '/whatif',
        '/scans',
        '/reports',
        '/waivers',
        '/tokens',
        `/nlbs/${NLB}`,
      ];
      {
        const { context, page, errors } = await open(viewport, scheme);
        await signInByLink(page, BOOTSTRAP, '/');
        expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
          scheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)',
        );
        for (const path of pages) {
          await go(page, path);
          await page.locator('h1').first().waitFor();
          await expect
            .poll(() => page.locator('[role="status"]').filter({ hasText: 'Loading' }).count(), POLL)
            .toBe(0);
          expect(await overflow(page), `${path} at ${viewport.width}px`).toBeLessThanOrEqual(0);
          expect(await axeProblems(page), `${path} ${viewport.width}px ${scheme}`).toEqual([]);
          const name =
            path === '/'
              ? 'overview'
              : path.startsWith('/clusters/')
                ? 'cluster'
                : path.startsWith('/nlbs/')
                  ? 'nlb'
                  : path.slice(1);
          await shoot(
            page,
            `${name}-${viewport.width}x${viewport.height}${scheme === 'dark' ? '-dark' : ''}`,
          );
        }
        // A load balancer page from the cluster's Services.
        await go(page, `/clusters/${PAYMENTS}`);
        await page.locator('.table-wrap[aria-label="Services"] a').first().click();
        await page.locator('.table-wrap[aria-label="Listeners"]').waitFor();
        expect(await overflow(page)).toBeLessThanOrEqual(0);
        expect(await axeProblems(page)).toEqual([]);
        await shoot(
          page,
          `load-balancer-${viewport.width}x${viewport.height}${scheme === 'dark' ? '-dark' : ''}`,
        );
        expect(errors).toEqual([]);
        await context.close();
      }
    },
    150_000,
  );
});
