/**
 * `npm run bench:console`: the web console's weight and speed as a user meets it on the demo.
 *
 * 1. Bundle size: the initial JS and CSS index.html loads (its module script, stylesheet and modulepreload links),
 *    gzip-compressed (zlib level 6, what a compressing proxy sends), against the 250 KB budget; the lazy chunks (the
 *    echarts chunk) apart.
 * 2. First meaningful paint on `fleet-audit demo`: Debian's Chromium (headless, playwright-core) opens the console
 *    link the demo prints (`#token=`, signing in) in a fresh context, RUNS times (default 5, `--runs N`); measured
 *    from navigation start to the frame after the overview's quota table appears (the page's main content: a
 *    MutationObserver and requestAnimationFrame, added before the page's own scripts), beside Chromium's
 *    first-contentful-paint. The first run has a cold HTTP cache; the median is over all runs. Target: 1 s.
 *
 * Prints one JSON line: `{"bench":"console","initialGzipBytes":N,"initialBytes":N,"lazyGzipBytes":N,"budgetBytes":256000,
 * "withinBudget":bool,"runs":[{"fcpMs":N,"fmpMs":N}],"fmpMedianMs":N,"fmpColdMs":N,"targetMs":1000,"withinTarget":bool,
 * "loadavg":[start,end]}`. Runs the built CLI and the console build (dist/), so `npm run bench:console` builds first.
 * Wall times depend on what else the machine runs: run it on a quiet machine.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { intFlag, loadAvg1m, median } from './bench-support';
import { packageRoot } from '../apps/cli/src/package-root.util';

/** The project root, found from this file in dist/ or any other output root of `nest build cli`. */
const ROOT = packageRoot();
const BIN = join(ROOT, 'bin', 'fleet-audit.js');
const CONSOLE_DIR = join(ROOT, 'dist', 'console');
const CHROMIUM = '/usr/bin/chromium';
/** The budgets: initial JS + CSS at most 250 KB gzip, first meaningful paint at most 1 s. */
const BUDGET_BYTES = 250 * 1024;
const TARGET_MS = 1_000;
/** The overview's main content. */
const MAIN_CONTENT = '.table-wrap[aria-label="Quotas nearest their limit"] tbody tr';

/** The assets index.html loads at once (script, stylesheet, modulepreload), and the rest of assets/ (lazy). */
function bundleFigures(): {
  initialGzipBytes: number;
  initialBytes: number;
  lazyGzipBytes: number;
  initial: string[];
} {
  const html = readFileSync(join(CONSOLE_DIR, 'index.html'), 'utf8');
  const initial = [...html.matchAll(/(?:src|href)="\/assets\/([^"]+)"/g)].map((m) => m[1]!);
  const all = readdirSync(join(CONSOLE_DIR, 'assets'));
  const gz = (f: string) => gzipSync(readFileSync(join(CONSOLE_DIR, 'assets', f)), { level: 6 }).length;
  return {
    initial,
    initialBytes: initial.reduce((n, f) => n + readFileSync(join(CONSOLE_DIR, 'assets', f)).length, 0),
    initialGzipBytes: initial.reduce((n, f) => n + gz(f), 0),
    lazyGzipBytes: all.filter((f) => !initial.includes(f)).reduce((n, f) => n + gz(f), 0),
  };
}

/** A TCP port free on 127.0.0.1 now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function main(): Promise<void> {
  if (!existsSync(join(CONSOLE_DIR, 'index.html')))
    throw new Error(`${CONSOLE_DIR}/index.html is missing: run npm run build:console`);
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const runs = intFlag('runs', 5);
  const load0 = loadAvg1m();
  const bundle = bundleFigures();
  const port = await freePort();
  const demo = spawn(process.execPath, [BIN, 'demo', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let out = '';
  const link = await new Promise<string>((resolve, reject) => {
    demo.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Console: (http:\/\/\S+#token=\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    demo.stderr.resume();
    demo.once('close', (code) => reject(new Error(`demo exited (${code}) before printing the console link`)));
  });
  const browser = await chromium.launch({
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
  const results: { fcpMs: number | null; fmpMs: number }[] = [];
  try {
    // One context for every run: the first run has a cold HTTP cache, the others reload as a returning user does.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript((selector: string) => {
      const w = window as unknown as { __fmp?: number };
      const seen = () => {
        if (w.__fmp === undefined && document.querySelector(selector)) {
          requestAnimationFrame(() => requestAnimationFrame(() => (w.__fmp ??= performance.now())));
          return true;
        }
        return false;
      };
      new MutationObserver((_, obs) => seen() && obs.disconnect()).observe(document, {
        childList: true,
        subtree: true,
      });
    }, MAIN_CONTENT);
    for (let i = 0; i < runs; i++) {
      const page = await context.newPage();
      await page.goto(link);
      await page.waitForFunction(
        () => (window as unknown as { __fmp?: number }).__fmp !== undefined,
        undefined,
        { timeout: 30_000 },
      );
      const r = await page.evaluate(() => ({
        fmpMs: Math.round((window as unknown as { __fmp: number }).__fmp),
        fcpMs: Math.round(performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1),
      }));
      results.push({ fcpMs: r.fcpMs >= 0 ? r.fcpMs : null, fmpMs: r.fmpMs });
      await page.close();
    }
  } finally {
    await browser.close();
    demo.kill('SIGINT');
    await new Promise((resolve) => demo.once('close', resolve));
  }
  const fmpMedianMs = median(results.map((r) => r.fmpMs));
  process.stdout.write(
    `${JSON.stringify({
      bench: 'console',
      initialAssets: bundle.initial,
      initialBytes: bundle.initialBytes,
      initialGzipBytes: bundle.initialGzipBytes,
      lazyGzipBytes: bundle.lazyGzipBytes,
      budgetBytes: BUDGET_BYTES,
      withinBudget: bundle.initialGzipBytes <= BUDGET_BYTES,
      runs: results,
      fmpColdMs: results[0]?.fmpMs ?? null,
      fmpMedianMs,
      targetMs: TARGET_MS,
      withinTarget: fmpMedianMs <= TARGET_MS && (results[0]?.fmpMs ?? Infinity) <= TARGET_MS,
      loadavg: [load0, loadAvg1m()],
    })}\n`,
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:console: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
