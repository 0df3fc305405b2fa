/**
 * Configuration of a worker process: a thin view over libs/config, where every variable is
 * declared once (with default, description and secrecy) and validated at boot (README
 * "Configuration"). Only the composition roots (`main.ts`, the CLI's `worker` command) pass the
 * environment here.
 */
import { loadConfig, type Environment, type FleetAuditConfig } from '@app/config';
import type { ScanConfig } from '@app/collectors';
import type { PartialAuditSettings } from '@app/checks';
import type { WorkerOptions } from './worker.options';
import { parseChatRoutes } from '@app/reports';

/** Validated configuration of a worker process (the namespaces a worker reads). */
export interface WorkerConfig {
  database: { url: string };
  redis: { url: string; prefix: string };
  queues: FleetAuditConfig['queues'];
  schedule: FleetAuditConfig['schedule'];
  /** Weekly report: cron (`false`: off), webhook and link base. */
  reports: FleetAuditConfig['reports'];
  /** Retention: cron (`false`: off), policy, rows per DELETE. */
  retention: FleetAuditConfig['retention'];
  log: FleetAuditConfig['log'];
}

/**
 * Validate the environment once, at boot (REDIS_URL and DATABASE_URL are required).
 * @param env the process environment (`processEnvironment()`) or a test double
 * @throws ConfigError (libs/config) naming every invalid or missing variable, never a value
 */
export function loadWorkerConfig(env: Environment): WorkerConfig {
  const c = loadConfig(env, 'worker');
  // requiredBy 'worker' in the declaration: loadConfig has thrown when either is missing.
  return {
    database: { url: c.database.url as string },
    redis: { url: c.redis.url as string, prefix: c.redis.prefix },
    queues: c.queues,
    schedule: c.schedule,
    reports: c.reports,
    retention: c.retention,
    log: c.log,
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
  return {
    databaseUrl: config.database.url,
    redisUrl: config.redis.url,
    prefix: config.redis.prefix,
    concurrency: { crawl: overrides.concurrency ?? q.crawlConcurrency, analyze: q.analyzeConcurrency },
    analyzeShards: q.analyzeShards,
    lockDurationMs: q.lockDurationMs,
    stalledIntervalMs: q.stalledIntervalMs,
    shutdownGraceMs: q.shutdownGraceMs,
    reach: q.reach,
    reachWaitMs: q.reachWaitMs,
    sources,
    ...(overrides.settings !== undefined ? { settings: overrides.settings } : {}),
    schedule: overrides.schedule ?? config.schedule.cron,
    reconcile: { intervalMs: config.schedule.reconcileIntervalMs },
    reports: {
      schedule: config.reports.cron,
      ...(config.reports.webhookUrl !== undefined
        ? { webhook: { url: config.reports.webhookUrl, ...(config.reports.linkBase !== undefined ? { linkBase: config.reports.linkBase } : {}) } }
        : {}),
      ...(config.reports.chatWebhooks !== undefined
        ? { chats: { routes: parseChatRoutes(config.reports.chatWebhooks), ...(config.reports.linkBase !== undefined ? { linkBase: config.reports.linkBase } : {}) } }
        : {}),
    },
    retention: {
      schedule: config.retention.cron,
      policy: { rawHours: config.retention.rawHours, dailyDays: config.retention.dailyDays, weeklyWeeks: config.retention.weeklyWeeks, quotaDays: config.retention.quotaDays },
      batchRows: config.retention.batchRows,
    },
  };
}
