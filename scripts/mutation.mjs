#!/usr/bin/env node
/**
 * `npm run mutation -- <files...> [stryker options]`: mutation testing of the given source files (StrykerJS,
 * stryker.config.mjs) against the `unit` vitest project. Stryker's `--mutate` takes one comma-separated list; this
 * turns the file arguments into it, so that a shell glob or several paths work. Options (`--...`) pass through to
 * `stryker run` (e.g. `--incremental` to re-test only what changed since the last run, `--concurrency 2`).
 * Prints the per-file score table and the surviving mutants; the HTML and JSON reports are in reports/mutation/.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const args = process.argv.slice(2);
const firstOption = args.findIndex((a) => a.startsWith('-'));
const files = firstOption === -1 ? args : args.slice(0, firstOption);
const options = firstOption === -1 ? [] : args.slice(firstOption);

if (files.length === 0) {
  console.error('usage: npm run mutation -- <source files...> [stryker run options]');
  console.error('e.g.   npm run mutation -- libs/domain/src/ccm/vgroup-diff.model.ts');
  process.exit(2);
}
const missing = files.filter((f) => !existsSync(f));
if (missing.length > 0) {
  console.error(`no such file: ${missing.join(', ')}`);
  process.exit(2);
}

// The package's exports hide its bin: resolve it beside its package.json.
const stryker = join(dirname(createRequire(import.meta.url).resolve('@stryker-mutator/core/package.json')), 'bin', 'stryker.js');
const started = Date.now();
const run = spawnSync(process.execPath, [stryker, 'run', 'stryker.config.mjs', '--mutate', files.join(','), ...options], {
  stdio: 'inherit',
});
console.log(`mutation run of ${files.length} file(s): ${Math.round((Date.now() - started) / 1000)} s; reports in reports/mutation/`);
process.exit(run.status ?? 1);
