// @ts-check
/**
 * The mutation run of `npm run mutation -- <files> --specs <spec globs>` (scripts/mutation.mjs): stryker.config.mjs,
 * but every mutant runs every test of the named specs (vitest.stryker.config.mts narrows the unit project to them).
 *
 * - `coverageAnalysis: 'all'`: under `perTest` a mutant runs only the tests that executed it inside a test body; a test
 *   that asserts on a value computed at a spec's top level, in a `beforeAll` or through a memo filled by an earlier
 *   test is not run against it, and the mutant is reported as surviving though that test kills it.
 * - `ignoreStatic: false` (Stryker refuses `ignoreStatic` without per-test coverage): module-level mutants (constant
 *   tables, defaults, a check's definition) count in the score, but the vitest runner does not apply them (the module
 *   is not evaluated again), so they are reported as surviving even where a test kills them: check those by hand
 *   (apply the change, run the specs).
 * - `timeoutMS: 5_000`: the narrowed specs start in about a second, and a mutant that makes a hot loop endless
 *   (a partition step, a quickselect) should end as a timeout in seconds, not after 15.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
import base from './stryker.config.mjs';

export default { ...base, coverageAnalysis: 'all', ignoreStatic: false, timeoutMS: 5_000 };
