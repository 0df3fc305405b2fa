/**
 * The vitest configuration of the mutation run (`npm run mutation`, stryker.config.mjs): the suite's own
 * configuration (vitest.config.mts) with only its `unit` project. Stryker's vitest runner takes a configuration
 * file, not a project name, and the `integration` project needs PostgreSQL, Redis and a CLI build, which a mutant
 * run must not wait for.
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.mts';

const projects = (base.test?.projects ?? []).filter(
  (p) => typeof p === 'object' && p !== null && 'test' in p && p.test?.name === 'unit',
);

export default defineConfig({ ...base, test: { ...base.test, projects } });
