/**
 * Configuration of a worker process, declared once and validated at boot (STYLE.md C.10-12).
 * Only the composition roots (`main.ts`, the CLI's `worker` command) pass `process.env` here.
 *
 * | variable                      | default            | meaning                                                    |
 * |-------------------------------|--------------------|------------------------------------------------------------|
 * | `REDIS_URL` (sensitive)       | required           | the queues, API budgets and scope locks                    |
 * | `DATABASE_URL` (sensitive)    | required           | scans, targets, findings                                   |
 * | `FLEET_AUDIT_QUEUE_PREFIX`    | `fleet-audit`      | Redis key prefix (several installations on one Redis)      |
 * | `WORKER_CONCURRENCY`          | 4                  | crawl jobs in flight per process                           |
 * | `WORKER_ANALYZE_CONCURRENCY`  | 1                  | analyze jobs in flight per process (CPU-bound)             |
 * | `WORKER_LOCK_DURATION_MS`     | 30000              | job lock; a dead worker's jobs are retaken after it expires |
 * | `WORKER_STALLED_INTERVAL_MS`  | 30000              | how often stalled jobs are looked for                      |
 * | `WORKER_SHUTDOWN_GRACE_MS`    | 25000              | SIGTERM: wait this long for jobs, then return them to wait |
 * | `SCAN_CONFIGS`                | none               | comma-separated scan config files scheduled by this worker |
 * | `SCAN_SCHEDULE`               | `0 0 * * * *`      | cron (with seconds) of scheduled scans: hourly             |
 * | `REPORT_SCHEDULE`             | `0 0 6 * * 1`      | cron (with seconds, UTC) of the weekly report; `off`: none |
 * | `REPORT_WEBHOOK_URL` (sensitive) | none            | POST each weekly report here (retried with backoff)        |
 * | `REPORT_LINK_BASE`            | none               | base URL of the report link sent to the webhook            |
 * | `SCAN_RECONCILE_INTERVAL_MS`  | 30000              | how often running scans are checked for lost jobs          |
 */
import { z } from 'zod';
import type { ScanConfig } from '@app/collectors';
import type { PartialAuditSettings } from '@app/checks';
import type { WorkerOptions } from './worker.options';

const positiveInt = (what: string) =>
  z
    .string()
    .regex(/^\d+$/, `must be a positive integer (${what})`)
    .transform(Number)
    .pipe(z.number().int().min(1, `must be a positive integer (${what})`));

/** Variables, with descriptions (see the module comment); sensitive values never appear in messages. */
const workerEnvSchema = z.object({
  REDIS_URL: z
    .string('is required (redis://host:port)')
    .regex(/^rediss?:\/\/\S+$/, 'must be a redis:// or rediss:// URL'),
  DATABASE_URL: z
    .string('is required (postgres://user@host:port/database)')
    .regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// or postgresql:// URL'),
  FLEET_AUDIT_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, 'must be letters, digits, _ . or -')
    .optional(),
  WORKER_CONCURRENCY: positiveInt('crawl jobs per process').optional(),
  WORKER_ANALYZE_CONCURRENCY: positiveInt('analyze jobs per process').optional(),
  WORKER_LOCK_DURATION_MS: positiveInt('milliseconds').optional(),
  WORKER_STALLED_INTERVAL_MS: positiveInt('milliseconds').optional(),
  WORKER_SHUTDOWN_GRACE_MS: positiveInt('milliseconds').optional(),
  SCAN_CONFIGS: z.string().optional(),
  SCAN_SCHEDULE: z
    .string()
    .regex(/^\S+( \S+){4,5}$/, 'must be a cron expression of 5 or 6 fields')
    .optional(),
  SCAN_RECONCILE_INTERVAL_MS: positiveInt('milliseconds').optional(),
  REPORT_SCHEDULE: z
    .string()
    .regex(/^(off|\S+( \S+){4,5})$/, 'must be a cron expression of 5 or 6 fields, or off')
    .optional(),
  REPORT_WEBHOOK_URL: z.string().regex(/^https?:\/\/\S+$/, 'must be an http:// or https:// URL').optional(),
  REPORT_LINK_BASE: z.string().regex(/^https?:\/\/\S+$/, 'must be an http:// or https:// URL').optional(),
});

/** Validated configuration of a worker process. */
export interface WorkerConfig {
  database: { url: string };
  redis: { url: string; prefix?: string };
  queues: {
    crawlConcurrency?: number;
    analyzeConcurrency?: number;
    lockDurationMs?: number;
    stalledIntervalMs?: number;
    shutdownGraceMs?: number;
  };
  schedule: { configPaths: string[]; cron?: string; reconcileIntervalMs?: number };
  /** Weekly report: cron (`false`: off), webhook and link base. */
  reports: { cron?: string | false; webhookUrl?: string; linkBase?: string };
}

/** Invalid or missing environment variables; the message names them and never shows values. */
export class WorkerConfigError extends Error {
  override readonly name = 'WorkerConfigError';
}

/**
 * Validate the environment once, at boot.
 * @param env the process environment (or a test double)
 * @throws WorkerConfigError listing every invalid variable and why
 */
export function loadWorkerConfig(env: Record<string, string | undefined>): WorkerConfig {
  const keys = Object.keys(workerEnvSchema.shape) as (keyof typeof workerEnvSchema.shape)[];
  const parsed = workerEnvSchema.safeParse(
    Object.fromEntries(keys.map((k) => [k, env[k] === '' ? undefined : env[k]])),
  );
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`);
    throw new WorkerConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const c = parsed.data;
  const defined = <T extends object>(o: T): T =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
  return {
    database: { url: c.DATABASE_URL },
    redis: defined({ url: c.REDIS_URL, prefix: c.FLEET_AUDIT_QUEUE_PREFIX }),
    queues: defined({
      crawlConcurrency: c.WORKER_CONCURRENCY,
      analyzeConcurrency: c.WORKER_ANALYZE_CONCURRENCY,
      lockDurationMs: c.WORKER_LOCK_DURATION_MS,
      stalledIntervalMs: c.WORKER_STALLED_INTERVAL_MS,
      shutdownGraceMs: c.WORKER_SHUTDOWN_GRACE_MS,
    }),
    schedule: defined({
      configPaths: (c.SCAN_CONFIGS ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== ''),
      cron: c.SCAN_SCHEDULE,
      reconcileIntervalMs: c.SCAN_RECONCILE_INTERVAL_MS,
    }),
    reports: defined({
      cron: c.REPORT_SCHEDULE === 'off' ? (false as const) : c.REPORT_SCHEDULE,
      webhookUrl: c.REPORT_WEBHOOK_URL,
      linkBase: c.REPORT_LINK_BASE,
    }),
  };
}

/** Overrides of the environment from command-line flags (`fleet-audit worker`). */
export interface WorkerConfigOverrides {
  concurrency?: number;
  configPaths?: string[];
  schedule?: string | false;
  /** Audit settings of the scheduled scans (from `--settings FILE`, validated by the caller). */
  settings?: PartialAuditSettings;
}

/**
 * Worker options from a validated environment (plus CLI overrides): loads the scan configs that
 * the schedule and the reconciler know by name.
 * @param loadConfig reads and validates one scan config file (libs/collectors `loadScanConfig`)
 * @throws what `loadConfig` throws (ScanConfigError naming file and path)
 */
export function workerOptionsFromConfig(
  config: WorkerConfig,
  loadConfig: (path: string) => ScanConfig,
  overrides: WorkerConfigOverrides = {},
): WorkerOptions {
  const paths =
    overrides.configPaths && overrides.configPaths.length > 0
      ? overrides.configPaths
      : config.schedule.configPaths;
  const sources = paths.map((p) => {
    const c = loadConfig(p);
    return { name: c.name, config: c };
  });
  const q = config.queues;
  const crawl = overrides.concurrency ?? q.crawlConcurrency;
  const schedule = overrides.schedule ?? config.schedule.cron;
  return {
    databaseUrl: config.database.url,
    redisUrl: config.redis.url,
    ...(config.redis.prefix !== undefined ? { prefix: config.redis.prefix } : {}),
    concurrency: {
      ...(crawl !== undefined ? { crawl } : {}),
      ...(q.analyzeConcurrency !== undefined ? { analyze: q.analyzeConcurrency } : {}),
    },
    ...(q.lockDurationMs !== undefined ? { lockDurationMs: q.lockDurationMs } : {}),
    ...(q.stalledIntervalMs !== undefined ? { stalledIntervalMs: q.stalledIntervalMs } : {}),
    ...(q.shutdownGraceMs !== undefined ? { shutdownGraceMs: q.shutdownGraceMs } : {}),
    sources,
    ...(overrides.settings !== undefined ? { settings: overrides.settings } : {}),
    ...(schedule !== undefined ? { schedule } : {}),
    ...(config.schedule.reconcileIntervalMs !== undefined
      ? { reconcile: { intervalMs: config.schedule.reconcileIntervalMs } }
      : {}),
    reports: {
      ...(config.reports.cron !== undefined ? { schedule: config.reports.cron } : {}),
      ...(config.reports.webhookUrl !== undefined
        ? { webhook: { url: config.reports.webhookUrl, ...(config.reports.linkBase !== undefined ? { linkBase: config.reports.linkBase } : {}) } }
        : {}),
    },
  };
}
