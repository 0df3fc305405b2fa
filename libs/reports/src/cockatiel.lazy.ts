import type * as CockatielModule from 'cockatiel';

let cockatiel: typeof CockatielModule | undefined;

/**
 * `cockatiel` (the retry policy of report and chat deliveries), loaded at the first delivery: the offline report
 * (`fleet-audit report --fleet DIR`) imports this library's entry and delivers nothing, so it does not load the
 * package (test/cli/offline-modules.e2e-spec.ts).
 */
export function cockatielPackage(): typeof CockatielModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load needs require (import() is async)
  return (cockatiel ??= require('cockatiel') as typeof CockatielModule);
}
