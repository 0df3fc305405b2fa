/** Dependency-injection tokens of the worker module (interfaces and functions have no class token). */

/** The resolved `WorkerOptions`. */
export const WORKER_OPTIONS = Symbol('WORKER_OPTIONS');
/** The `ScanJobQueue` port (libs/queue BullScanJobQueue). */
export const SCAN_JOB_QUEUE = Symbol('SCAN_JOB_QUEUE');
/** The `RateLimiterFactory` of crawls (per-account API budgets shared through Redis). */
export const SCAN_RATE_LIMITER = Symbol('SCAN_RATE_LIMITER');
/** The `ScanScopeLock` of scheduled scans. */
export const SCAN_SCOPE_LOCK = Symbol('SCAN_SCOPE_LOCK');
/** The `DistributedScanClient` (submits scheduled and re-planned scans). */
export const SCAN_CLIENT = Symbol('SCAN_CLIENT');
/**
 * `{ dropWaiting(): Promise<void> }`: rejects calls waiting for API budget and gives back the Redis
 * concurrency slots they held (shutdown past its grace).
 */
export const SCAN_RATE_LIMITER_CONTROL = Symbol('SCAN_RATE_LIMITER_CONTROL');

// Names in @nestjs/schedule's registry, in one place because each must be unique per worker.
/** The scan schedule's cron (ScanScheduleCron). */
export const SCAN_SCHEDULE_CRON = 'scan-schedule';
/** The weekly report's cron (ReportScheduleCron). */
export const REPORT_SCHEDULE_CRON = 'weekly-report';
/** The retention cron (RetentionScheduleCron). */
export const RETENTION_SCHEDULE_CRON = 'retention';
/** The scan reconciler's interval (ScanReconcilerService). */
export const SCAN_RECONCILE_INTERVAL = 'scan-reconcile';
