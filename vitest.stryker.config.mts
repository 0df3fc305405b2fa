/**
 * The vitest configuration of the mutation run (`npm run mutation`, stryker.config.mjs): the suite's own
 * configuration (vitest.config.mts) with only its `unit` project. Stryker's vitest runner takes a configuration
 * file, not a project name, and the `integration` project needs PostgreSQL, Redis and a CLI build, which a mutant
 * run must not wait for.
 *
 * `MUTATION_SPECS` (comma-separated globs, set by `npm run mutation -- <files> --specs <globs>`) narrows the unit
 * project to those spec files. Stryker's own `--testFiles` narrows only the dry run: with `--coverageAnalysis all`
 * every mutant run starts vitest without a file list, so without this it would run every unit spec that imports the
 * mutated file. One file at a time (`fileParallelism: false`): the runner uses one worker anyway, and a spec's
 * result must not depend on which other file shares its thread. The unit project's shared module graph is kept: a fresh
 * graph per file (`isolate: true`) costs a re-import per mutant and still left module-level mutants unapplied (measured).
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.mts';

const specs = (process.env.MUTATION_SPECS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s.length > 0);

const projects = (base.test?.projects ?? [])
  .filter((p) => typeof p === 'object' && p !== null && 'test' in p && p.test?.name === 'unit')
  .map((p) => (specs.length > 0 && typeof p === 'object' && p !== null && 'test' in p ? { ...p, test: { ...p.test, include: specs } } : p));

export default defineConfig({
  ...base,
  test: { ...base.test, projects, ...(specs.length > 0 ? { fileParallelism: false } : {}) },
});
