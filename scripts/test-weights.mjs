#!/usr/bin/env node
/**
 * `npm run test:weights -- <vitest JSON report>`: writes test/file-weights.json, the expected seconds of each test
 * file that test/support/weight-sequencer.mts orders the suite by (longest first). Make the report with
 * `npx vitest run --reporter=json --outputFile=/tmp/vitest.json` (a full run, so that the weights come from the same
 * machine load), then run this. Keys are `<project>:<path from the root>`; values are rounded to 0.1 s.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reportPath = process.argv[2];
if (!reportPath) {
  console.error('usage: npm run test:weights -- <vitest JSON report (--reporter=json --outputFile=...)>');
  process.exit(2);
}
let report;
try {
  report = JSON.parse(readFileSync(reportPath, 'utf8'));
} catch (e) {
  console.error(`${reportPath}: not a vitest JSON report (${e instanceof Error ? e.message : String(e)})`);
  process.exit(2);
}
if (!Array.isArray(report.testResults)) {
  console.error(`${reportPath}: no testResults array (make it with --reporter=json)`);
  process.exit(2);
}
const config = readFileSync(join(root, 'vitest.config.mts'), 'utf8');
/** The project a file ran in: the spawning specs and the integration file suffixes are integration, the rest unit. */
const spawning = [...config.matchAll(/'(test\/[^']+\.spec\.ts)'/g)].map((m) => m[1]);
const projectOf = (file) =>
  /\.(integration|e2e)-spec\.ts$/.test(file) || spawning.includes(file) ? 'integration' : 'unit';
const weights = {};
for (const r of report.testResults) {
  const file = relative(root, r.name);
  weights[`${projectOf(file)}:${file}`] = Math.round((r.endTime - r.startTime) / 100) / 10;
}
const sorted = Object.fromEntries(Object.entries(weights).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(join(root, 'test', 'file-weights.json'), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/file-weights.json: ${Object.keys(sorted).length} files, ${Math.round(Object.values(sorted).reduce((a, b) => a + b, 0))} s in all`);
