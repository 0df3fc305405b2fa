// @ts-check
/**
 * Mutation testing of chosen files against the `unit` vitest project (`npm run mutation -- <files...>`,
 * scripts/mutation.mjs passes the files as `--mutate`). Not part of CI (.ci/run): a run mutates one or a few files
 * and takes minutes. Reports (HTML, JSON) go to reports/mutation/, the sandbox to .stryker-tmp/, both git-ignored.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.mts', related: true },
  // Per-test coverage: a mutant runs only the tests that reach it.
  coverageAnalysis: 'perTest',
  // Static mutants (module-level code: a check's title, description and settings list, constant tables) are reached
  // by no test in particular, so each would run every selected test: most of a run's time for little signal. They
  // are reported as ignored, outside the score.
  ignoreStatic: true,
  // The machine's cores are shared with other builds and test runs.
  concurrency: 1,
  // A mutant that makes a loop endless ends as a timeout after this much over the test's own time. Generous: every
  // mutant run is a new vitest run whose start-up (seconds on a loaded machine) Stryker does not count as overhead,
  // and a shorter limit turns slow starts into false timeouts.
  timeoutMS: 15_000,
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0, reportScoreTable: true, reportMutants: true },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  // The sandbox is a copy of the working tree: builds, dumps and reports are not needed to run the unit tests.
  ignorePatterns: ['dist', 'dist-test', 'coverage', 'reports', '.fleet-audit', '*.tsbuildinfo', '.stryker-tmp'],
  // `--mutate` names the files (scripts/mutation.mjs); without it nothing is mutated rather than the whole tree.
  mutate: [],
  thresholds: { high: 85, low: 70, break: null },
};
