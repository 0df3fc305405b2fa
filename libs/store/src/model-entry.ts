/**
 * The lean entry of libs/store (`@app/store/model`): the values of its model that hold no connection (the principal
 * and its scopes, the retention calendar, the store's errors), for code that builds or renders from stored data
 * without opening a database. Importing it loads neither `pg` nor the repositories; `@app/store` re-exports all of
 * it. libs/reports imports it, so `fleet-audit report --fleet DIR` (offline) never loads the driver:
 * test/cli/offline-modules.e2e-spec.ts holds the rule.
 */
export * from './principal';
export { dayStartOf, weekStartOf } from './retention.policy';
export { StoreError, redactConnectionString, type StoreErrorCode } from './store.exception';
export { describeRetentionPolicy, ScanPrunedError, type PrunedPolicy } from './scan-pruned.error';
