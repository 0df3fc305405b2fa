/**
 * The lean entry of libs/audit (`@app/audit/scan`): the scan use case (collect -> analyze -> store, `runScan`), the
 * analysis, the threaded analysis and the settings and waivers files, without what only a server or a stored scan
 * needs. Importing it loads neither libs/store (pg), libs/telemetry (pino, prom-client), the thread pool (piscina) nor
 * the launchers and forecasts: the modules here load those at their point of use (scan-row.ts for a scan with a store,
 * piscina when a pool starts). The CLI's offline commands (`scan --fleet`, `report --fleet`, `plan --settings`) import
 * this entry (apps/cli/src/lazy `loadScan`); everything else imports `@app/audit`, which re-exports it.
 * test/cli/offline-modules.e2e-spec.ts holds the rule.
 */
export * from './analyze-and-store';
export * from './scan-runner';
export { ScanHandOver } from './scan-hand-over';
export * from './threaded-audit';
export type { AuditShardAnswer, AuditShardTask, ResultRun } from './threaded-audit-shard';
export * from './audit-settings.loader';
export * from './waivers-file.loader';
