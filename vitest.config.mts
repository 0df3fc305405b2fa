/**
 * Test suite configuration: two vitest projects.
 *
 * - `unit`: pure in-memory tests (`*.spec.ts` that start no process, server or database), in worker threads
 *   with no per-file isolation (one module graph per thread: Nest, Apollo and the cloud SDKs are imported once
 *   per thread, not once per file).
 * - `integration`: `*.integration-spec.ts`, `*.e2e-spec.ts` and the `*.spec.ts` that spawn a process (the
 *   built CLI, promtool, helm), in forked processes that keep their module graph from file to file. Each file owns its PostgreSQL database
 *   (cloned from the template that test/global-setup.ts migrates once), its Redis key prefix and OS-assigned
 *   ports, so files run side by side; most of their time waits on child processes, PostgreSQL, Redis or the
 *   simulator, so it runs more workers than the machine has cores (INTEGRATION_WORKERS, default 4).
 *
 * One project: `npx vitest run --project unit`; one file: `npx vitest run test/cli/cli.e2e-spec.ts`.
 * test/global-setup.ts builds the CLI once into dist-test/ (never dist/, which every `nest build` deletes).
 */
import { defineConfig } from 'vitest/config';
import swc from 'unplugin-swc';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { WeightSequencer } from './test/support/weight-sequencer.mts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** `*.spec.ts` files that spawn processes (CLI, promtool, helm): they run with the integration project. */
const SPAWNING_SPECS = [
  'test/golden/golden.spec.ts',
  'test/partial/partial-dump.spec.ts',
  'test/telemetry/promtool.spec.ts',
  'test/deploy/helm-chart.spec.ts',
];

const cores = availableParallelism();
/** Forked integration workers: 2x the cores (at least 4), measured on 2 cores (README "Tests"). */
const integrationWorkers = Number(process.env.INTEGRATION_WORKERS) || Math.max(4, cores * 2);

export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    alias: {
      '@app/domain': here('./libs/domain/src/index.ts'),
      '@app/checks': here('./libs/checks/src/index.ts'),
      '@app/collectors': here('./libs/collectors/src/index.ts'),
      // Before '@app/store' (see '@app/audit/scan').
      '@app/store/model': here('./libs/store/src/model-entry.ts'),
      '@app/store': here('./libs/store/src/index.ts'),
      '@app/telemetry': here('./libs/telemetry/src/index.ts'),
      // Before '@app/audit': an alias key also matches its subpaths, so the longer one must come first.
      '@app/audit/scan': here('./libs/audit/src/scan-entry.ts'),
      '@app/audit': here('./libs/audit/src/index.ts'),
      '@app/forecast': here('./libs/forecast/src/index.ts'),
      '@app/reports': here('./libs/reports/src/index.ts'),
      '@app/queue': here('./libs/queue/src/index.ts'),
      '@app/config': here('./libs/config/src/index.ts'),
      '@app/errors': here('./libs/errors/src/index.ts'),
      '@app/fleet-sim': here('./apps/fleet-sim/src/index.ts'),
      '@app/api': here('./apps/api/src/index.ts'),
      '@app/worker': here('./apps/worker/src/index.ts'),
    },
  },
  test: {
    // Defaults for a loaded 2-core machine shared with other builds; a file that needs more says so.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // One pool for both projects (vitest runs projects of different worker counts one after the other).
    maxWorkers: integrationWorkers,
    // Longest files first by test/file-weights.json (a clean clone has no vitest results cache to order by).
    sequence: { sequencer: WeightSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'test/**/*.spec.ts'],
          exclude: SPAWNING_SPECS,
          pool: 'threads',
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          // Template database and CLI build: only the project that needs them (unit runs start at once).
          globalSetup: ['./test/global-setup.ts'],
          // Per-file CPU, only when asked (`TEST_FILE_CPU_LOG=FILE npm test`, then `npm run test:cpu -- FILE`).
          setupFiles: process.env.TEST_FILE_CPU_LOG ? ['./test/support/file-cpu.setup.ts'] : [],
          include: ['test/**/*.integration-spec.ts', 'test/**/*.e2e-spec.ts', ...SPAWNING_SPECS],
          pool: 'forks',
          // Each fork keeps its module graph from one file to the next (isolate: false): Nest, Apollo and the cloud SDKs
          // are evaluated once per fork instead of once per file, which was a third of the suite's time (CI: 986 s of
          // imports for 1,834 s of tests). Files own their state (database, Redis prefix, ports, servers they close),
          // so none depends on a fresh module graph. INTEGRATION_ISOLATE=1 gives every file a fresh one again.
          isolate: process.env.INTEGRATION_ISOLATE === '1',
          // A young generation of 64 MiB semi-spaces (V8's default is 16): the forks parse YAML and JSON, audit fleets and
          // render reports, allocating far more short-lived objects than they keep, and each scavenge costs what survives
          // it, so fewer, larger ones cost less. Reading the sample fleet: 211-228 -> 180-188 ms of CPU a read (3 runs each).
          execArgv: ['--max-semi-space-size=64'],
        },
      },
    ],
  },
});
