#!/usr/bin/env node
/**
 * `npm run test:weights [-- <vitest results cache or JSON report>]`: writes test/file-weights.json, the expected
 * seconds of each test file that test/support/weight-sequencer.mts orders the suite by (longest first). Run it after
 * a full `npx vitest run` (so that the weights come from the same machine load).
 *
 * By default it reads vitest's results cache of that run (node_modules/.vite/vitest/<hash>/results.json: each file's
 * duration as vitest measured it, its beforeAll/afterAll hooks included, what vitest itself orders by). A JSON report
 * (`--reporter=json --outputFile=...`) is read too, but its file times span the first test's start to the last test's
 * end, leaving the hooks out: a file whose work is in beforeAll (test/e2e/demo: 38 s of run, 1.2 s of tests;
 * test/store/retention: 77 s / 20 s) looked short and started late. Keys are `<project>:<path from the root>`;
 * values are rounded to 0.1 s.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The newest vitest results cache under node_modules/.vite/vitest/, if any. */
function newestResultsCache() {
  const dir = join(root, 'node_modules', '.vite', 'vitest');
  let entries = [];
  try {
    entries = readdirSync(dir).map((d) => join(dir, d, 'results.json'));
  } catch {
    return undefined;
  }
  return entries
    .map((p) => ({ p, t: statSync(p, { throwIfNoEntry: false })?.mtimeMs }))
    .filter((e) => e.t !== undefined)
    .sort((a, b) => b.t - a.t)[0]?.p;
}
const reportPath = process.argv[2] ?? newestResultsCache();
if (!reportPath) {
  console.error('usage: npm run test:weights [-- <vitest results cache (node_modules/.vite/vitest/*/results.json) or JSON report>]');
  process.exit(2);
}
let report;
try {
  report = JSON.parse(readFileSync(reportPath, 'utf8'));
} catch (e) {
  console.error(`${reportPath}: not a vitest results cache or JSON report (${e instanceof Error ? e.message : String(e)})`);
  process.exit(2);
}
if (!Array.isArray(report.testResults) && !Array.isArray(report.results)) {
  console.error(`${reportPath}: neither a results cache (results) nor a JSON report (testResults)`);
  process.exit(2);
}
const config = readFileSync(join(root, 'vitest.config.mts'), 'utf8');
/** The project a file ran in: the spawning specs and the integration file suffixes are integration, the rest unit. */
const spawning = [...config.matchAll(/'(test\/[^']+\.spec\.ts)'/g)].map((m) => m[1]);
const projectOf = (file) =>
  /\.(integration|e2e)-spec\.ts$/.test(file) || spawning.includes(file) ? 'integration' : 'unit';
const weights = {};
if (Array.isArray(report.results)) {
  // The results cache: [`<project>:<path>`, { duration (ms), failed }] for every file that ever ran in this checkout;
  // only files that exist are kept.
  for (const [key, { duration }] of report.results) {
    const file = key.slice(key.indexOf(':') + 1);
    if (statSync(join(root, file), { throwIfNoEntry: false })) weights[key] = Math.round(duration / 100) / 10;
  }
} else {
  for (const r of report.testResults) {
    const file = relative(root, r.name);
    weights[`${projectOf(file)}:${file}`] = Math.round((r.endTime - r.startTime) / 100) / 10;
  }
}
const sorted = Object.fromEntries(Object.entries(weights).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(join(root, 'test', 'file-weights.json'), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/file-weights.json: ${Object.keys(sorted).length} files, ${Math.round(Object.values(sorted).reduce((a, b) => a + b, 0))} s in all`);
