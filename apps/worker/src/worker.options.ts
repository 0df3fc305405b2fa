/**
 * What a worker process is built from, with every default in one place. `startWorker` takes
 * these; the env-based `WorkerConfig` (worker-config.ts) and the CLI flags map onto them.
 */
import type { DestinationStream } from 'pino';
import type { LogLevelName } from '@app/telemetry';
import type { LogLevel } from '@nestjs/common';
import type { ChatDeliveryOptions, ChatRoute, ReportWebhookOptions } from '@app/reports';
import { assertRetentionPolicy, DEFAULT_RETENTION_POLICY, type RetentionPolicy } from '@app/store';
import type { PartialAuditSettings } from '@app/checks';
import type { ApiRateLimiter, RateLimiterOptions } from '@app/collectors';
import type { DistributedScanSource, JobName, ScanJobPolicy } from '@app/queue';

/** Hourly, on the hour (cron with seconds: `s m h dom mon dow`). */
export const DEFAULT_SCAN_SCHEDULE = '0 0 * * * *';

/** Monday 06:00 UTC (cron with seconds): the weekly report's default schedule. */
export const DEFAULT_REPORT_SCHEDULE = '0 0 6 * * 1';
/** Default retention cron: daily at 03:17 UTC (RETENTION_SCHEDULE's default). */
export const DEFAULT_RETENTION_SCHEDULE = '0 17 3 * * *';

/** Weekly report schedule and delivery of a worker. */
export interface WorkerReportOptions {
  /** Cron with seconds, evaluated in UTC (default Monday 06:00); `false`: no scheduled reports. */
  schedule?: string | false;
  /** Limit the scheduled report to these accounts (default all). */
  accounts?: string[];
  /** Webhook to POST each report to (JSON with a link and the Markdown summary), retried with backoff. */
  webhook?: ReportWebhookOptions;
  /** Chat services to deliver each report to in their own formats, whole or per team (libs/reports chat-delivery.ts). */
  chats?: { routes: ChatRoute[] } & ChatDeliveryOptions;
}

/** Options of `startWorker`. */
export interface WorkerOptions {
  /** PostgreSQL URL (sensitive: never logged). */
  databaseUrl: string;
  /** Redis URL (sensitive: never logged). */
  redisUrl: string;
  /** Redis key prefix of queues, locks and limiters (default `fleet-audit`). */
  prefix?: string;
  /** Apply pending migrations at start (default true). */
  migrate?: boolean;
  /**
   * Lease of running offline/live scans (libs/store scan-lease): this worker's reaper marks failed
   * a running scan without a heartbeat for `leaseMs`, swept every `intervalMs` (defaults 30 s / 5 s).
   */
  scanLease?: { leaseMs?: number; intervalMs?: number };
  /** Jobs in flight per process, per queue (counts; defaults crawl 4, analyze 1, plan 2). */
  concurrency?: { crawl?: number; analyze?: number; plan?: number };
  /**
   * Sharded analysis of distributed scans (default true; ANALYZE_SHARDS): analyze-scan adds one analyze-shard job
   * per (account, region) and a complete-scan job instead of analyzing the whole fleet in one process, so a
   * worker's memory is bounded by one shard. `false`: the whole-fleet analysis (libs/audit analyzeAndStore).
   */
  analyzeShards?: boolean;
  /** Job lock duration, milliseconds (default 30000): a killed worker's jobs are retaken after it. */
  lockDurationMs?: number;
  /**
   * Job lock of analyze jobs, milliseconds (default 300000). The analysis of a large fleet is one
   * CPU-bound stretch that keeps the event loop from renewing the lock; a lock shorter than it
   * would let a second worker start the same analysis (harmless, the result is identical, but
   * wasted). A dead worker's analysis is retaken after this long.
   */
  analyzeLockDurationMs?: number;
  /** Stalled-job check interval, milliseconds (default 30000). */
  stalledIntervalMs?: number;
  /** Times a job may stall (its worker died) and be retaken before it fails (count, default 2). */
  maxStalledCount?: number;
  /**
   * On shutdown, how long in-flight jobs may run on before they are cancelled and returned to
   * the queue (milliseconds, default 25000: inside Kubernetes' default 30 s termination grace; under
   * Docker Compose set `stop_grace_period` above it, Docker's default is 10 s).
   */
  shutdownGraceMs?: number;
  /** Retries per job kind (libs/queue DEFAULT_JOB_POLICIES otherwise). */
  policies?: Partial<Record<JobName, ScanJobPolicy>>;
  /**
   * Scan configs this worker knows by name (the fleet name): scheduled by `schedule`, and planned
   * again by the reconciler when Redis lost one of their running scans.
   */
  sources?: DistributedScanSource[];
  /**
   * Cron (with seconds) that starts a scan of every source; default hourly. `false`: no schedule.
   * A source whose scan is still running is not started again (scope lock).
   */
  schedule?: string | false;
  /**
   * The time a schedule tick is for (it names the tick's scan, `scheduledScanId`); default the system
   * clock. Tests pass a virtual clock and fire the registered cron themselves instead of waiting on it.
   */
  clock?: () => Date;
  /** Longest a scope lock holds without being released (milliseconds, default 6 hours). */
  scopeLockTtlMs?: number;
  /** Audit settings of scheduled scans. */
  settings?: PartialAuditSettings;
  /**
   * Lost-job reconciler: how often running scans are checked (`intervalMs`, default 30000), how old
   * a scan must be to be checked (`graceMs`, default 10000), how long a scan of an unknown source
   * may stay lost before it is failed (`failLostAfterMs`, default 120000). `false`: off.
   */
  reconcile?: { intervalMs?: number; graceMs?: number; failLostAfterMs?: number } | false;
  /**
   * The per-account API budget limiter for a scan's budget; default: the Redis-backed one shared by
   * every worker (libs/queue RedisRateLimiterPool). Tests may wrap it.
   */
  rateLimiterFor?: (budget: RateLimiterOptions) => ApiRateLimiter;
  /** Weekly compliance report: schedule (default Monday 06:00 UTC), scope and webhook (libs/reports). */
  reports?: WorkerReportOptions;
  /**
   * Retention (libs/store RetentionService, README "Retention"): cron with seconds in UTC (default daily 03:17, as
   * RETENTION_SCHEDULE; `false`: off), the policy (default DEFAULT_RETENTION_POLICY) and the most rows one DELETE
   * removes (default 5000).
   */
  retention?: { schedule?: string | false; policy?: RetentionPolicy; batchRows?: number };
  /** Nest log levels (default errors and warnings; `false` silent). Ignored when `log` is set. */
  logger?: LogLevel[] | false;
  /**
   * Structured JSON logs through nestjs-pino instead (level from `LOG_LEVEL`, redacted, pretty only
   * on a TTY); scan lifecycle events (`scan.started`, `scan.target_failed`, `scan.completed`) go there. One process
   * has one nestjs-pino logger: the first app built with `log` fixes its options (see the API's `log`).
   */
  log?: { level: LogLevelName; pretty?: boolean; destination?: DestinationStream };
  /**
   * The networks this worker reaches (WORKER_REACH): `any`, or VPC ids. It takes the crawls of clusters whose
   * intranet API server endpoint is in one of them (the pool queues `scan-crawl.<vpc>`), besides the general
   * crawl, analysis and plan queues every worker takes; `any` follows every pool queue crawls were queued for.
   * Default `any`.
   */
  reach?: 'any' | readonly string[];
  /** How long a pool crawl waits for a worker that reaches its VPC before it is a coverage gap, ms (default 300,000). */
  reachWaitMs?: number;
  /** Name of this worker in BullMQ (shown on the jobs it processes). */
  name?: string;
  /**
   * Serve `/healthz` and `/readyz` (PostgreSQL and Redis answer) on this port for Docker Compose
   * and Kubernetes probes (worker-health.server.ts); default: no health endpoint.
   */
  health?: { port: number; host?: string };
}

/** Options with every default applied. */
export interface ResolvedWorkerOptions extends Required<
  Omit<
    WorkerOptions,
    'prefix' | 'settings' | 'rateLimiterFor' | 'name' | 'concurrency' | 'reconcile' | 'policies' | 'scanLease' | 'reports' | 'retention' | 'log' | 'health' | 'reach'
  >
> {
  reach: 'any' | readonly string[];
  reports: { schedule: string | false; accounts?: string[]; webhook?: ReportWebhookOptions; chats?: { routes: ChatRoute[] } & ChatDeliveryOptions };
  retention: { schedule: string | false; policy: RetentionPolicy; batchRows: number };
  scanLease?: { leaseMs?: number; intervalMs?: number };
  log?: WorkerOptions['log'];
  prefix?: string;
  settings?: PartialAuditSettings;
  rateLimiterFor?: (budget: RateLimiterOptions) => ApiRateLimiter;
  name?: string;
  policies: Partial<Record<JobName, ScanJobPolicy>>;
  concurrency: { crawl: number; analyze: number; plan: number };
  reconcile: { intervalMs: number; graceMs: number; failLostAfterMs: number } | false;
}

/** The wall clock: the default `WorkerOptions.clock` (one function, so resolved options compare equal). */
export const systemClock = (): Date => new Date();

/**
 * Apply the defaults.
 * @throws RangeError for a non-positive concurrency or duration
 */
export function resolveWorkerOptions(o: WorkerOptions): ResolvedWorkerOptions {
  const resolved: ResolvedWorkerOptions = {
    databaseUrl: o.databaseUrl,
    redisUrl: o.redisUrl,
    migrate: o.migrate ?? true,
    concurrency: {
      crawl: o.concurrency?.crawl ?? 4,
      analyze: o.concurrency?.analyze ?? 1,
      plan: o.concurrency?.plan ?? 2,
    },
    analyzeShards: o.analyzeShards ?? true,
    lockDurationMs: o.lockDurationMs ?? 30_000,
    analyzeLockDurationMs: o.analyzeLockDurationMs ?? 300_000,
    stalledIntervalMs: o.stalledIntervalMs ?? 30_000,
    maxStalledCount: o.maxStalledCount ?? 2,
    shutdownGraceMs: o.shutdownGraceMs ?? 25_000,
    reach: o.reach ?? 'any',
    reachWaitMs: o.reachWaitMs ?? 300_000,
    policies: o.policies ?? {},
    sources: o.sources ?? [],
    schedule: o.schedule ?? DEFAULT_SCAN_SCHEDULE,
    clock: o.clock ?? systemClock,
    reports: {
      schedule: o.reports?.schedule ?? DEFAULT_REPORT_SCHEDULE,
      ...(o.reports?.accounts ? { accounts: o.reports.accounts } : {}),
      ...(o.reports?.webhook ? { webhook: o.reports.webhook } : {}),
      ...(o.reports?.chats ? { chats: o.reports.chats } : {}),
    },
    retention: {
      schedule: o.retention?.schedule ?? DEFAULT_RETENTION_SCHEDULE,
      policy: o.retention?.policy ?? { ...DEFAULT_RETENTION_POLICY },
      batchRows: o.retention?.batchRows ?? 5_000,
    },
    scopeLockTtlMs: o.scopeLockTtlMs ?? 6 * 3_600_000,
    reconcile:
      o.reconcile === false
        ? false
        : {
            intervalMs: o.reconcile?.intervalMs ?? 30_000,
            graceMs: o.reconcile?.graceMs ?? 10_000,
            failLostAfterMs: o.reconcile?.failLostAfterMs ?? 120_000,
          },
    logger: o.logger ?? ['error', 'warn', 'fatal'],
    ...(o.prefix !== undefined ? { prefix: o.prefix } : {}),
    ...(o.settings !== undefined ? { settings: o.settings } : {}),
    ...(o.rateLimiterFor !== undefined ? { rateLimiterFor: o.rateLimiterFor } : {}),
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.log !== undefined ? { log: o.log } : {}),
  };
  const positive: [string, number][] = [
    ['concurrency.crawl', resolved.concurrency.crawl],
    ['concurrency.analyze', resolved.concurrency.analyze],
    ['concurrency.plan', resolved.concurrency.plan],
    ['lockDurationMs', resolved.lockDurationMs],
    ['analyzeLockDurationMs', resolved.analyzeLockDurationMs],
    ['stalledIntervalMs', resolved.stalledIntervalMs],
    ['maxStalledCount', resolved.maxStalledCount],
    ['scopeLockTtlMs', resolved.scopeLockTtlMs],
    ['reachWaitMs', resolved.reachWaitMs],
    ['retention.batchRows', resolved.retention.batchRows],
  ];
  assertRetentionPolicy(resolved.retention.policy);
  for (const [name, n] of positive) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be a positive integer, got ${n}`);
  }
  return resolved;
}
