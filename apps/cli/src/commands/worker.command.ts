/**
 * `fleet-audit worker`: a distributed-scan worker (docs/architecture.md "Running modes"): consumes the
 * plan, crawl, analyze and shard queues on REDIS_URL (ANALYZE_SHARDS: a scan's analysis as one job per (account,
 * region) and a final job; README "Sharded analysis"), writes to DATABASE_URL, runs the scan schedule of
 * the configs given with `--config` (default hourly), and drains gracefully on SIGTERM/SIGINT
 * (in-flight jobs finish, or go back to the queue after WORKER_SHUTDOWN_GRACE_MS).
 *
 * Environment (declared in libs/config, viewed by apps/worker `worker-config.ts`): REDIS_URL, DATABASE_URL (required),
 * FLEET_AUDIT_QUEUE_PREFIX, WORKER_CONCURRENCY, WORKER_ANALYZE_CONCURRENCY, ANALYZE_SHARDS, WORKER_LOCK_DURATION_MS,
 * WORKER_STALLED_INTERVAL_MS, WORKER_SHUTDOWN_GRACE_MS, SCAN_CONFIGS, SCAN_SCHEDULE,
 * SCAN_RECONCILE_INTERVAL_MS. Flags override them.
 */
import { helpFooter } from './help-text.util';
import { loadAudit, loadCollectors, loadTelemetry, loadWorker } from '../lazy';
import { Command, Option } from 'commander';
import { processEnvironment, type Environment } from '@app/config';
import { parsePort } from './sim.command';
import { CliUsageError, EXIT_OK } from '../cli-error';
import { untilInterrupted } from './signals.util';
import { cliStreams } from '../output/cli-streams';
import { jsonStatusLinesFor, writeStatusLine } from '../output/status-line';

/** Options of `worker` after parsing. */
export interface WorkerCommandOptions {
  redisUrl?: string;
  databaseUrl?: string;
  concurrency?: number;
  config: string[];
  schedule?: string;
  /** `--no-schedule` sets this false. */
  scheduleEnabled: boolean;
  /** Audit settings file of the scheduled scans. */
  settings?: string;
  /** Port of the health endpoint (`/healthz`, `/readyz`); none when unset. */
  healthPort?: number;
  /** Interface of the health endpoint (default 127.0.0.1). */
  healthHost?: string;
  /** JSON log level (`--log-level`, default LOG_LEVEL, else info). */
  logLevel?: string;
}

const collect = (v: string, prev: string[]) => [...prev, v];

function parseConcurrency(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1)
    throw new CliUsageError(`--concurrency: expected a positive integer, got "${v}"`);
  return n;
}

/**
 * Run a worker until SIGINT/SIGTERM, then drain it.
 * @throws CliUsageError for missing or invalid settings; ScanConfigError for a bad --config;
 *   StoreError when PostgreSQL is unreachable
 */
export async function runWorkerCommand(
  opts: WorkerCommandOptions,
  env: Environment = processEnvironment(),
): Promise<number> {
  const { loadWorkerConfig, workerOptionsFromConfig, startWorker } = loadWorker();
  const { loadScanConfig } = loadCollectors();
  let config: ReturnType<typeof loadWorkerConfig>;
  try {
    config = loadWorkerConfig({
      ...env,
      ...(opts.redisUrl ? { REDIS_URL: opts.redisUrl } : {}),
      ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
    });
  } catch (e) {
    throw new CliUsageError(e instanceof Error ? e.message : String(e));
  }
  const settings = opts.settings !== undefined ? loadAudit().loadAuditSettings(opts.settings) : undefined;
  const options = workerOptionsFromConfig(config, loadScanConfig, {
    ...(settings ? { settings } : {}),
    ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
    configPaths: opts.config,
    ...(opts.scheduleEnabled === false
      ? { schedule: false as const }
      : opts.schedule !== undefined
        ? { schedule: opts.schedule }
        : {}),
  });
  // Status and error lines on stderr are JSON objects too when stderr is not a terminal (output/status-line.ts).
  jsonStatusLinesFor(cliStreams().stderr, 'worker');
  // One logger everywhere: JSON lines through nestjs-pino like `serve`, pretty only on a
  // terminal; job and scan lifecycle events (scan.completed, ...) are one line each.
  const { parseLogLevel } = loadTelemetry();
  let level: ReturnType<typeof parseLogLevel>;
  try {
    level = parseLogLevel(opts.logLevel, config.log.level);
  } catch (e) {
    throw new CliUsageError((e as Error).message);
  }
  // Listen before anything announces readiness: a SIGTERM between the "ready" line and the listener took the
  // default action (killed by the signal, not drained with exit 0); one during start-up drains once started.
  const interrupted = untilInterrupted();
  const worker = await startWorker({
    ...options,
    name: `worker-${process.pid}`,
    log: { level },
    ...(opts.healthPort !== undefined ? { health: { port: opts.healthPort, ...(opts.healthHost ? { host: opts.healthHost } : {}) } } : {}),
  });
  const scheduled = options.sources?.map((s) => s.name).join(', ') || 'none';
  writeStatusLine(cliStreams().stderr, 'info', `worker ${process.pid} ready (scheduled sources: ${scheduled}${worker.healthUrl ? `; health: ${worker.healthUrl}/readyz` : ''})`, {
    event: 'worker.ready',
    ...(worker.healthUrl ? { health: `${worker.healthUrl}/readyz` } : {}),
  });
  const signal = await interrupted;
  writeStatusLine(cliStreams().stderr, 'info', `worker ${process.pid}: ${signal}: draining`, { event: 'worker.draining', signal });
  await worker.close();
  return EXIT_OK;
}

/** Build the `worker` subcommand; `run` receives the exit-code promise. */
export function workerCommand(run: (p: Promise<number>) => void): Command {
  return new Command('worker')
    .description('run a distributed-scan worker (needs REDIS_URL and DATABASE_URL)')
    .option('--redis-url <url>', 'Redis of the queues (default: REDIS_URL)')
    .option('--database-url <url>', 'PostgreSQL URL (default: DATABASE_URL)')
    .option(
      '--concurrency <n>',
      'crawl jobs in flight in this process (default: WORKER_CONCURRENCY or 4)',
      parseConcurrency,
    )
    .option(
      '--config <file>',
      'scan config to scan on the schedule (repeatable; default: SCAN_CONFIGS)',
      collect,
      [],
    )
    .option(
      '--schedule <cron>',
      'cron with seconds for scheduled scans (default: SCAN_SCHEDULE or hourly "0 0 * * * *")',
    )
    .option('--no-schedule', 'do not run the scan schedule')
    .option('--settings <file>', 'audit settings (YAML/JSON) of the scheduled scans')
    .addOption(new Option('--health-port <port>', 'serve /healthz and /readyz (PostgreSQL and Redis answer) on this port, for container probes (0: a free port, named on the ready line)').env('WORKER_HEALTH_PORT').argParser(parsePort))
    .addOption(new Option('--health-host <host>', 'interface of the health endpoint (0.0.0.0 in a Kubernetes pod)').env('WORKER_HEALTH_HOST').default('127.0.0.1'))
    .option('--log-level <level>', 'JSON log level: trace, debug, info, warn, error, fatal, silent (default: LOG_LEVEL or info; pretty only on a terminal)')
    .addHelpText(
      'after',
      helpFooter(
        ['fleet-audit worker --redis-url redis://127.0.0.1:6379 --database-url postgres://... --config scan.yaml', 'fleet-audit worker --no-schedule --concurrency 8', 'fleet-audit worker --health-port 8081 && curl http://127.0.0.1:8081/readyz'],
        ['REDIS_URL, DATABASE_URL  defaults of --redis-url, --database-url', 'WORKER_CONCURRENCY, SCAN_CONFIGS, SCAN_SCHEDULE  defaults of --concurrency, --config, --schedule'],
      ),
    )
    .action(
      (o: {
        redisUrl?: string;
        databaseUrl?: string;
        concurrency?: number;
        config: string[];
        schedule?: string | false;
        settings?: string;
        healthPort?: number;
        healthHost?: string;
        logLevel?: string;
      }) =>
        run(
          runWorkerCommand({
            config: o.config,
            scheduleEnabled: o.schedule !== false,
            ...(o.redisUrl !== undefined ? { redisUrl: o.redisUrl } : {}),
            ...(o.settings !== undefined ? { settings: o.settings } : {}),
            ...(o.databaseUrl !== undefined ? { databaseUrl: o.databaseUrl } : {}),
            ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
            ...(typeof o.schedule === 'string' ? { schedule: o.schedule } : {}),
            ...(o.healthPort !== undefined ? { healthPort: o.healthPort } : {}),
            ...(o.healthHost !== undefined ? { healthHost: o.healthHost } : {}),
            ...(o.logLevel !== undefined ? { logLevel: o.logLevel } : {}),
          }),
        ),
    );
}
