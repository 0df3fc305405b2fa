#!/usr/bin/env node
/**
 * `npm run test:cpu -- FILE [N]`: the integration files that cost the suite the most CPU, from the log a run with
 * `TEST_FILE_CPU_LOG=FILE npm test` wrote (test/support/file-cpu.setup.ts: one JSON line per file). Prints the totals
 * and the N (default 25) costliest files: CPU seconds (the worker's own and its reaped children's) and wall seconds.
 * On 2 cores the suite's wall time follows its CPU, so these are the files to make cheaper first.
 * Exit 2 when FILE is missing or holds no line.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [file, n = '25'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: npm run test:cpu -- FILE [N]   (FILE: what TEST_FILE_CPU_LOG=FILE npm test wrote)\n');
  process.exit(2);
}
let rows;
try {
  rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
} catch (e) {
  process.stderr.write(`test:cpu: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
}
if (rows.length === 0) {
  process.stderr.write(`test:cpu: ${file} holds no file line (was the run made with TEST_FILE_CPU_LOG=${file}?)\n`);
  process.exit(2);
}
const sum = (k) => rows.reduce((t, r) => t + r[k], 0);
const fmt = (x) => x.toFixed(1).padStart(7);
console.log(`${rows.length} files: CPU ${(sum('self') + sum('children')).toFixed(0)} s (own ${sum('self').toFixed(0)}, children ${sum('children').toFixed(0)}), wall ${sum('wall').toFixed(0)} s summed`);
console.log(`${'cpu'.padStart(7)} ${'own'.padStart(7)} ${'child'.padStart(7)} ${'wall'.padStart(7)}  file`);
for (const r of rows.sort((a, b) => b.self + b.children - (a.self + a.children)).slice(0, Number(n)))
  console.log(`${fmt(r.self + r.children)} ${fmt(r.self)} ${fmt(r.children)} ${fmt(r.wall)}  ${relative(process.cwd(), r.file)}`);
