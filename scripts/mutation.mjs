#!/usr/bin/env node
/**
 * `npm run mutation -- <files...> [stryker options]`: mutation testing of the given source files (StrykerJS,
 * stryker.config.mjs) against the `unit` vitest project. Stryker's `--mutate` takes one comma-separated list; this
 * turns the file arguments into it, so that a shell glob or several paths work. Options (`--...`) pass through to
 * `stryker run` (e.g. `--incremental` to re-test only what changed since the last run, `--concurrency 2`).
 * Prints the per-file score table and the surviving mutants; the HTML and JSON reports are in reports/mutation/.
 *
 * `--specs <paths>` (comma-separated spec files) runs every mutant against all the tests of those unit specs and no
 * others (stryker.specs.config.mjs: `coverageAnalysis: 'all'`, module-level mutants counted, 5 s timeout): it sets
 * `MUTATION_SPECS` for vitest.stryker.config.mts and passes the same list as Stryker's `--testFiles`. The figure does
 * not depend on per-test coverage: under the default `perTest` a mutant runs only the tests that executed it inside a
 * test body, so a test that asserts on a value computed at a spec's top level or in a `beforeAll` is not run against
 * it, and the mutant is reported as surviving though that test kills it.
 *
 * A file argument may carry Stryker's line range (`libs/forecast/src/trend.model.ts:142-144`, several arguments for
 * several ranges): only the mutants of those lines run, e.g. the survivors of an earlier full run after new tests.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const argv = process.argv.slice(2);
const specsAt = argv.indexOf('--specs');
const specs = specsAt === -1 ? undefined : argv[specsAt + 1];
if (specsAt !== -1 && (specs === undefined || specs.startsWith('-'))) {
  console.error('--specs needs a comma-separated list of spec globs');
  process.exit(2);
}
const args = specsAt === -1 ? argv : [...argv.slice(0, specsAt), ...argv.slice(specsAt + 2)];
const firstOption = args.findIndex((a) => a.startsWith('-'));
const files = firstOption === -1 ? args : args.slice(0, firstOption);
const options = firstOption === -1 ? [] : args.slice(firstOption);

if (files.length === 0) {
  console.error('usage: npm run mutation -- <source files...> [stryker run options]');
  console.error('e.g.   npm run mutation -- libs/domain/src/ccm/vgroup-diff.model.ts');
  process.exit(2);
}
// A file may carry Stryker's line range (`path:12-30`, or `path:12:4-30:8` with columns): mutate only those lines.
const missing = files.filter((f) => !existsSync(f.replace(/:\d+(:\d+)?-\d+(:\d+)?$/, '')));
if (missing.length > 0) {
  console.error(`no such file: ${missing.join(', ')}`);
  process.exit(2);
}

// The package's exports hide its bin: resolve it beside its package.json.
const stryker = join(dirname(createRequire(import.meta.url).resolve('@stryker-mutator/core/package.json')), 'bin', 'stryker.js');
const started = Date.now();
const narrowed = specs === undefined ? [] : ['--testFiles', specs];
const config = specs === undefined ? 'stryker.config.mjs' : 'stryker.specs.config.mjs';
const run = spawnSync(process.execPath, [stryker, 'run', config, '--mutate', files.join(','), ...narrowed, ...options], {
  stdio: 'inherit',
  env: specs === undefined ? process.env : { ...process.env, MUTATION_SPECS: specs },
});
console.log(`mutation run of ${files.length} file(s): ${Math.round((Date.now() - started) / 1000)} s; reports in reports/mutation/`);
process.exit(run.status ?? 1);
