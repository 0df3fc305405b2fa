/**
 * `fleet-audit serve`: the REST API on PostgreSQL (`DATABASE_URL`), protected by the bearer token in
 * `API_TOKEN`. `POST /v1/scans` queues scans of the sources given with `--fleet` / `--config`
 * (callers pick one by name; they can never name a path) where the launch module puts them (libs/audit
 * `createScanLauncher`): scan configs on the BullMQ workers with `REDIS_URL`, every other source in a bounded
 * in-process queue (`SCAN_QUEUE_DEPTH`) that runs one scan at a time in a child process, off the API's event loop.
 */
import { helpFooter } from './help-text.util';
import { loadApi, loadAudit, loadCollectors, loadQueue, loadStore, loadTelemetry } from '../lazy';
import { Command, Option } from 'commander';
import { basename } from 'node:path';
import type { ScanSource } from '@app/audit';
import { CliUsageError, EXIT_OK, reportError } from '../cli-error';
import { cliConfig } from '../cli-config';
import { consoleBuildDir } from '../package-root.util';
import { boundPort, parsePort } from './sim.command';
import { untilInterrupted } from './signals.util';
import { cliStreams } from '../output/cli-streams';
import { jsonStatusLinesFor, writeStatusLine } from '../output/status-line';

/** Options of `serve`. */
export interface ServeOptions {
  port: number;
  host: string;
  fleet: string[];
  config: string[];
  databaseUrl?: string;
  /** Audit settings file of every scan this API starts. */
  settings?: string;
  /** JSON log level (LOG_LEVEL): request log, scan lifecycle events. */
  logLevel?: string;
}

const collect = (v: string, prev: string[]) => [...prev, v];

/** Run the API until SIGINT/SIGTERM. @throws CliUsageError on missing settings */
export async function runServeCommand(opts: ServeOptions): Promise<number> {
  // Status and error lines on stderr are JSON objects when stderr is not a terminal (output/status-line.ts).
  jsonStatusLinesFor(cliStreams().stderr, 'api');
  if (!opts.databaseUrl) throw new CliUsageError('DATABASE_URL (or --database-url) is required');
  const config = cliConfig();
  // API_TOKEN's length and shape were validated at boot (libs/config); here it must be set.
  const token = config.api.token;
  if (!token) throw new CliUsageError('API_TOKEN must be set to a secret of at least 16 characters');
  const { createScanLauncher, loadAuditSettings } = loadAudit();
  const settings = opts.settings !== undefined ? loadAuditSettings(opts.settings) : undefined;
  const { createApiApp } = loadApi();
  // SCAN_QUEUE_DEPTH: validated at boot (libs/config), default 4.
  const queueDepth = config.scans.queueDepth;
  const { loadScanConfig } = loadCollectors();
  const { Store } = loadStore();
  const sources: { name: string; source: ScanSource }[] = [
    ...opts.config.map((p) => {
      const config = loadScanConfig(p);
      return { name: config.name, source: { kind: 'live' as const, config, configPath: p } };
    }),
    ...opts.fleet.map((d) => ({ name: basename(d), source: { kind: 'offline' as const, fleetDir: d } })),
  ];
  // TOKEN_HASH_KEY enables scoped fa_ tokens (fleet-audit token create); API_TOKEN stays the bootstrap admin.
  const tokenHashKey = config.api.tokenHashKey;
  const store = await Store.open({ connectionString: opts.databaseUrl, migrate: true, ...(tokenHashKey ? { tokenHashKey } : {}) });
  const redisUrl = config.redis.url;
  // Through the lazy re-export: a dynamic import('@app/...') keeps its alias in the build and fails.
  const { parseLogLevel, createLogger } = loadTelemetry();
  let level: ReturnType<typeof parseLogLevel>;
  try {
    level = parseLogLevel(opts.logLevel);
  } catch (e) {
    throw new CliUsageError((e as Error).message);
  }
  // With REDIS_URL scan configs go to the BullMQ workers (they crawl the live APIs); fleet directories are files on
  // this host, so their scans run in this process's queue, as every scan does without REDIS_URL.
  const launch = createScanLauncher({
    store,
    sources,
    onError: reportError,
    ...(settings ? { settings } : {}),
    events: createLogger({ level, name: 'api' }),
    queue: { queueDepth, databaseUrl: opts.databaseUrl },
    ...(redisUrl
      ? { distributed: (configs) => loadQueue().openDistributedScanLauncher({ store, redisUrl, prefix: config.redis.prefix, configs, ...(settings ? { settings } : {}) }) }
      : {}),
  });
  const launcher = launch.launcher;
  // /readyz checks Redis too when one is configured (the API enqueues scans on it).
  const redisProbe = redisUrl ? loadQueue().createRedisProbe(redisUrl) : undefined;
  const webConsole = consoleBuildDir();
  const app = await createApiApp({
    store,
    token,
    scanLauncher: launcher,
    log: { level },
    graphql: { ...config.graphql, stackTraces: config.cli?.debug === true },
    trustProxy: config.api.trustProxy,
    // SCAN_LAUNCHES_PER_MINUTE: launches one token may ask for per minute (validated at boot, libs/config).
    scanLaunchesPerMinute: config.scans.launchesPerMinute,
    // FORECAST_IDLE_TIMEOUT_MS: how long an idle what-if / headroom thread stays warm (validated at boot, libs/config).
    forecasts: { idleTimeoutMs: config.forecasts.idleTimeoutMs },
    ...(redisProbe ? { readiness: { redis: () => redisProbe.ping() } } : {}),
    // The web console at `/` when it is built (npm install builds it).
    ...(webConsole ? { consoleDir: webConsole } : {}),
  });
  // Listen before announcing the API (a SIGTERM right after the line must stop it gracefully, not kill it).
  const interrupted = untilInterrupted();
  await app.listen(opts.port, opts.host);
  // The bound port, not the asked one: `--port 0` lets the system choose a free port, announced here.
  const url = `http://${opts.host}:${boundPort(app.getHttpServer(), opts.port)}`;
  writeStatusLine(
    cliStreams().stderr,
    'info',
    `API on ${url} (sources: ${launcher.sourceNames().join(', ') || 'none'})${webConsole ? `, web console at ${url}/` : ''}`,
    { event: 'api.listening', url, console: webConsole !== undefined },
  );
  await interrupted;
  // Waiting scans end `interrupted`; the running one gets 10 s to finish.
  await launch.stop();
  await app.close();
  await redisProbe?.close();
  await launch.close();
  await store.close();
  return EXIT_OK;
}

/** Build the `serve` subcommand. */
export function serveCommand(run: (p: Promise<number>) => void): Command {
  return new Command('serve')
    .description('serve the REST API (needs DATABASE_URL and API_TOKEN; TOKEN_HASH_KEY enables scoped tokens)')
    .option('--port <port>', 'port (0: a free port, announced on the listening line)', parsePort, 3000)
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--fleet <dir>', 'fleet directory POST /v1/scans may scan (repeatable)', collect, [])
    .option('--config <file>', 'scan config POST /v1/scans may scan (repeatable)', collect, [])
    .addOption(new Option('--database-url <url>', 'PostgreSQL URL').env('DATABASE_URL'))
    .option('--settings <file>', 'audit settings (YAML/JSON) of every scan started through the API')
    .addOption(new Option('--log-level <level>', 'JSON log level: trace, debug, info, warn, error, fatal, silent').env('LOG_LEVEL').default('info'))
    .addHelpText(
      'after',
      helpFooter(
        ['API_TOKEN=$(openssl rand -hex 24) fleet-audit serve --database-url postgres://... --config scan.yaml', 'curl -H "Authorization: Bearer $API_TOKEN" http://127.0.0.1:3000/v1/scans', 'open http://127.0.0.1:3000/docs   # Swagger UI'],
        [
          'API_TOKEN  bearer token of the API (required, >= 16 characters)',
          'REDIS_URL  enqueue API scans of --config sources on the BullMQ workers (--fleet directories are scanned by this process)',
          'SCAN_QUEUE_DEPTH  scans that may wait behind the running one without Redis (default 4; past it POST /v1/scans answers 429)',
        ],
      ),
    )
    .action((o: ServeOptions) => run(runServeCommand(o)));
}
