/**
 * Every environment variable of ack-fleet-audit, declared once: namespace, description, default,
 * whether it is secret, which processes read it, and its schema (zod). `loadConfig` validates them
 * at boot and maps them into the namespaced `FleetAuditConfig`; `renderConfigTable` writes the
 * README's configuration table from this list (`npm run docs:config`; test/config checks it is current).
 *
 * Model: immich `server/src/repositories/config.repository.ts` (one env schema for every process,
 * mapped into namespaced config: `database`, `redis`, `bull`, ...).
 *
 * Schemas take the raw, non-empty string (an empty variable counts as unset) and give the typed
 * value; their messages state the expected shape and never include the value.
 */
import { z } from 'zod';

/** A process that reads configuration (the simulator `fleet-sim` reads none: its knobs are flags). */
export type ProcessName = 'api' | 'worker' | 'cli';

/** Namespaces of `FleetAuditConfig`, one per concern. */
export type ConfigNamespace = 'database' | 'redis' | 'queues' | 'schedule' | 'reports' | 'retention' | 'api' | 'graphql' | 'scans' | 'forecasts' | 'log' | 'cli' | 'collector';

/** Accepted `LOG_LEVEL` values (pino's), lowest first; `silent` turns logging off. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/** One of `LOG_LEVELS`. */
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** Minimum length of `API_TOKEN` (characters). */
export const MIN_API_TOKEN_LENGTH = 16;
/** Minimum length of `TOKEN_HASH_KEY` (characters; HMAC-SHA-256 key of scoped-token hashes). */
export const MIN_TOKEN_HASH_KEY_LENGTH = 32;

/** One declared variable. */
export interface EnvVarSpec<T = unknown> {
  /** Where its value lands in `FleetAuditConfig`. */
  namespace: ConfigNamespace;
  /** What it does (one sentence; the README table shows it). */
  description: string;
  /** The expected shape in words: shown in the "is required" error and the README. */
  shape: string;
  /** Raw default applied when unset or empty (as the variable would hold it); none: stays unset. */
  default?: string;
  /** What happens when unset and there is no default (README). */
  whenUnset?: string;
  /** Never printed: config dumps and error messages show `[redacted]`. */
  secret: boolean;
  /** Processes that read it. */
  usedBy: readonly ProcessName[];
  /** Processes that refuse to start without it. */
  requiredBy?: readonly ProcessName[];
  /** Raw string -> typed value; messages say what is expected, never the value. */
  schema: z.ZodType<T, string>;
}

const positiveInt = (what: string) =>
  z
    .string()
    .regex(/^\d+$/, `must be a positive integer (${what})`)
    .transform(Number)
    .pipe(z.number().int().min(1, `must be a positive integer (${what})`));

const postgresUrl = z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// or postgresql:// URL');
const redisUrl = z.string().regex(/^rediss?:\/\/\S+$/, 'must be a redis:// or rediss:// URL');
const httpUrl = z.string().regex(/^https?:\/\/\S+$/, 'must be an http:// or https:// URL');
const cron = z.string().regex(/^\S+( \S+){4,5}$/, 'must be a cron expression of 5 or 6 fields');
/** Set to any non-empty value: true (the variable is only read when non-empty). */
const flag = z.string().transform(() => true);
/** A cron expression as `cron`, or `off`: false (the scheduled job is not registered). */
const cronOrOff = z
  .string()
  .regex(/^(off|\S+( \S+){4,5})$/, 'must be a cron expression of 5 or 6 fields, or off')
  .transform((s): string | false => (s === 'off' ? false : s));
/** `1` or `0`: true or false. */
const oneOrZero = z.enum(['0', '1'], 'must be 1 or 0').transform((s) => s === '1');
/** An interface to bind: an IP address or a host name. */
const hostName = z.string().regex(/^[\w.:-]+$/, 'must be an IP address or host name');

/**
 * A whole number from `min` to `max` (digits only, at most as many as `max` has); every failure says `message`.
 * @param message default `must be an integer from {min} to {max}`
 */
const intInRange = (min: number, max: number, message = `must be an integer from ${min} to ${max}`) =>
  z
    .string()
    .regex(new RegExp(`^\\d{1,${String(max).length}}$`), message)
    .transform(Number)
    .pipe(z.number().int().min(min, message).max(max, message));
/** A TCP port number, 1 to 65535. */
const port = intInRange(1, 65_535, 'must be a port number from 1 to 65535');
/** A secret of at least `min` characters without whitespace (the message names the minimum, never the value). */
const secretOfAtLeast = (min: number) =>
  z.string().min(min, `must be at least ${min} characters`).regex(/^\S+$/, 'must not contain whitespace');

/** Helper keeping each entry's schema output type. */
const declare = <T>(spec: EnvVarSpec<T>): EnvVarSpec<T> => spec;

/**
 * The declaration, in README order. Names are the variables; see `FleetAuditConfig` for the
 * typed, namespaced result.
 */
export const ENV_VARS = {
  DATABASE_URL: declare({
    namespace: 'database',
    description: 'PostgreSQL of scans, findings, waivers and tokens; the CLI flag `--database-url` defaults to it',
    shape: 'postgres://user@host:port/database',
    whenUnset: '`scan` does not store; `demo` uses embedded PGlite',
    secret: true,
    usedBy: ['api', 'worker', 'cli'],
    requiredBy: ['api', 'worker'],
    schema: postgresUrl,
  }),
  REDIS_URL: declare({
    namespace: 'redis',
    description: 'Redis of the scan queues, API budgets and scope locks (`scan --distributed`, `serve` enqueues on workers)',
    shape: 'redis://host:port',
    whenUnset: 'no queue: the CLI and `serve` scan in-process',
    secret: true,
    usedBy: ['worker', 'cli'],
    requiredBy: ['worker'],
    schema: redisUrl,
  }),
  FLEET_AUDIT_QUEUE_PREFIX: declare({
    namespace: 'redis',
    description: 'Redis key prefix of queues, locks and limiters (several installations on one Redis)',
    shape: 'letters, digits, _ . or -',
    default: 'fleet-audit',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'must be letters, digits, _ . or -'),
  }),
  WORKER_CONCURRENCY: declare({
    namespace: 'queues',
    description: 'crawl jobs in flight per worker process',
    shape: 'a positive integer',
    default: '4',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: positiveInt('crawl jobs per process'),
  }),
  WORKER_ANALYZE_CONCURRENCY: declare({
    namespace: 'queues',
    description: 'analyze jobs in flight per worker process (CPU-bound)',
    shape: 'a positive integer',
    default: '1',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: positiveInt('analyze jobs per process'),
  }),
  ANALYZE_SHARDS: declare({
    namespace: 'queues',
    description:
      "`true`: a distributed scan's analysis runs as one job per (account, region) and a final job, each worker holding one shard's data at a time (README \"Sharded analysis\"); `false`: one analyze job holds the whole fleet",
    shape: 'true or false',
    default: 'true',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: z.enum(['true', 'false'], 'must be true or false').transform((s) => s === 'true'),
  }),
  WORKER_LOCK_DURATION_MS: declare({
    namespace: 'queues',
    description: "job lock, milliseconds: a dead worker's jobs are retaken after it expires",
    shape: 'a positive integer (milliseconds)',
    default: '30000',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: positiveInt('milliseconds'),
  }),
  WORKER_STALLED_INTERVAL_MS: declare({
    namespace: 'queues',
    description: 'how often stalled jobs are looked for, milliseconds',
    shape: 'a positive integer (milliseconds)',
    default: '30000',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: positiveInt('milliseconds'),
  }),
  WORKER_SHUTDOWN_GRACE_MS: declare({
    namespace: 'queues',
    description: 'on SIGTERM, wait this long (milliseconds) for jobs, then return them to the queue',
    shape: 'a positive integer (milliseconds)',
    default: '25000',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: positiveInt('milliseconds'),
  }),
  WORKER_REACH: declare({
    namespace: 'queues',
    description:
      'the networks this worker reaches: `any`, or the VPC ids whose intranet API server endpoints it can dial (README "Worker pools by network reach"); a cluster\'s crawl goes only to a worker that reaches its endpoint, cloud API and analysis jobs to any worker',
    shape: '`any`, or comma-separated VPC ids (vpc-...)',
    default: 'any',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: z
      .string()
      .transform((s) => s.split(',').map((p) => p.trim()).filter((p) => p !== ''))
      .pipe(
        z.union([
          z.tuple([z.literal('any')]).transform((): 'any' => 'any'),
          z.array(z.string().regex(/^vpc-[a-z0-9]+$/, 'must be `any` or VPC ids (vpc-...)')).min(1, 'must be `any` or VPC ids (vpc-...)'),
        ]),
      ),
  }),
  WORKER_REACH_WAIT_MS: declare({
    namespace: 'queues',
    description:
      'how long a cluster crawl waits for a worker that reaches its VPC before it is a coverage gap ("no worker reaches vpc-..."), milliseconds; set it on the workers (they queue cluster crawls)',
    shape: 'a positive integer (milliseconds)',
    default: '300000',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: positiveInt('milliseconds'),
  }),
  SCAN_CONFIGS: declare({
    namespace: 'schedule',
    description: 'scan config files scheduled by this worker (`fleet-audit worker --config` overrides)',
    shape: 'comma-separated file paths',
    whenUnset: 'no scheduled sources',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: z.string().transform((s) =>
      s
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== ''),
    ),
  }),
  SCAN_SCHEDULE: declare({
    namespace: 'schedule',
    description: 'cron (with seconds, UTC) of scheduled scans: hourly by default',
    shape: 'a cron expression of 5 or 6 fields',
    default: '0 0 * * * *',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: cron,
  }),
  SCAN_RECONCILE_INTERVAL_MS: declare({
    namespace: 'schedule',
    description: 'how often running scans are checked for lost jobs, milliseconds',
    shape: 'a positive integer (milliseconds)',
    default: '30000',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: positiveInt('milliseconds'),
  }),
  REPORT_SCHEDULE: declare({
    namespace: 'reports',
    description: 'cron (with seconds, UTC) of the weekly compliance report (Monday 06:00); `off`: none',
    shape: 'a cron expression of 5 or 6 fields, or off',
    default: '0 0 6 * * 1',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: cronOrOff,
  }),
  REPORT_WEBHOOK_URL: declare({
    namespace: 'reports',
    description: 'POST each weekly report here (retried with backoff); may embed a token',
    shape: 'an http:// or https:// URL',
    whenUnset: 'no webhook',
    secret: true,
    usedBy: ['worker', 'cli'],
    schema: httpUrl,
  }),
  REPORT_CHAT_WEBHOOKS: declare({
    namespace: 'reports',
    description:
      'deliver each weekly report to chat services in their own formats (DingTalk actionCard, Lark interactive card, Slack Block Kit), the whole report or one team\'s part, linking back to the report; the URLs embed the robots\' tokens',
    shape: 'a JSON array of {"kind": "dingtalk|lark|slack", "url": "https://...", "team": "payments"} (team optional)',
    whenUnset: 'no chat delivery',
    secret: true,
    usedBy: ['worker', 'cli'],
    schema: z
      .string()
      .refine((t) => {
        try {
          return Array.isArray(JSON.parse(t));
        } catch {
          return false;
        }
      }, 'must be a JSON array of routes'),
  }),
  REPORT_LINK_BASE: declare({
    namespace: 'reports',
    description: 'base URL of the report link sent to the webhook',
    shape: 'an http:// or https:// URL',
    whenUnset: 'no link',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: httpUrl,
  }),
  RETENTION_SCHEDULE: declare({
    namespace: 'retention',
    description: 'cron (with seconds, UTC) of the retention run that thins old scans (daily 03:17, README "Retention"); `off`: none',
    shape: 'a cron expression of 5 or 6 fields, or off',
    default: '0 17 3 * * *',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: cronOrOff,
  }),
  RETENTION_RAW_HOURS: declare({
    namespace: 'retention',
    description: 'keep every scan this many hours',
    shape: 'an integer >= 24 (hours)',
    default: '48',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: positiveInt('hours').pipe(z.number().min(24, 'must be at least 24 (hours): a day is over before it is thinned')),
  }),
  RETENTION_DAILY_DAYS: declare({
    namespace: 'retention',
    description: "then keep the last scan of each UTC day this many days (92 covers the weekly report's 12 weeks and its diff base)",
    shape: 'an integer >= 7 (days)',
    default: '92',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: positiveInt('days').pipe(z.number().min(7, 'must be at least 7 (days): a week is over before it is thinned')),
  }),
  RETENTION_WEEKLY_WEEKS: declare({
    namespace: 'retention',
    description: 'then keep the last scan of each ISO week this many weeks; `forever`: never delete weekly scans',
    shape: 'a positive integer (weeks), or forever',
    default: '52',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: z
      .string()
      .regex(/^(forever|[1-9]\d*)$/, 'must be a positive integer (weeks) or forever')
      .transform((s): number | null => (s === 'forever' ? null : Number(s))),
  }),
  RETENTION_QUOTA_DAYS: declare({
    namespace: 'retention',
    description: 'keep the quota samples of every scan this many days (the forecast trend window, 14 days, plus a day); older ones follow the scans kept',
    shape: 'a positive integer (days)',
    default: '15',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: positiveInt('days'),
  }),
  RETENTION_BATCH_ROWS: declare({
    namespace: 'retention',
    description: 'most rows one retention DELETE removes (each batch is its own short transaction)',
    shape: 'a positive integer (rows)',
    default: '5000',
    secret: false,
    usedBy: ['worker', 'cli'],
    schema: positiveInt('rows'),
  }),
  API_TOKEN: declare({
    namespace: 'api',
    description: 'bearer token of `/v1`: the bootstrap admin token',
    shape: `a random secret of at least ${MIN_API_TOKEN_LENGTH} characters`,
    whenUnset: 'the API and `serve` refuse to start',
    secret: true,
    usedBy: ['api', 'cli'],
    requiredBy: ['api'],
    schema: secretOfAtLeast(MIN_API_TOKEN_LENGTH),
  }),
  TOKEN_HASH_KEY: declare({
    namespace: 'api',
    description: 'server key (HMAC-SHA-256) of scoped `fa_` token hashes; the same value for the API and `fleet-audit token create`',
    shape: `at least ${MIN_TOKEN_HASH_KEY_LENGTH} characters, no whitespace`,
    whenUnset: 'only `API_TOKEN` works',
    secret: true,
    usedBy: ['api', 'cli'],
    schema: secretOfAtLeast(MIN_TOKEN_HASH_KEY_LENGTH),
  }),
  API_PORT: declare({
    namespace: 'api',
    description: 'TCP port of the standalone API process (`serve` and `demo` take `--port`)',
    shape: 'a port number from 1 to 65535',
    default: '3000',
    secret: false,
    usedBy: ['api'],
    schema: port,
  }),
  API_HOST: declare({
    namespace: 'api',
    description: 'interface the standalone API binds; 0.0.0.0 in a container (the image sets it)',
    shape: 'an IP address or host name',
    default: '127.0.0.1',
    secret: false,
    usedBy: ['api'],
    schema: hostName,
  }),
  API_TRUST_PROXY: declare({
    namespace: 'api',
    description:
      "which proxies in front of the API are trusted to name the client in X-Forwarded-For (Express 'trust proxy'): the client address is what failed-authentication throttling counts and the audit records; `0` uses the socket peer and ignores the header",
    shape: '`0`, a hop count, or comma-separated addresses / CIDRs / `loopback`, `linklocal`, `uniquelocal`',
    default: '0',
    secret: false,
    usedBy: ['api', 'cli'],
    schema: z
      .string()
      .regex(/^[\w.:/, -]+$/, 'must be 0, a hop count, or comma-separated addresses / CIDRs')
      .transform((s): number | string | false => (s === '0' ? false : /^\d+$/.test(s) ? Number(s) : s)),
  }),
  SCAN_LAUNCHES_PER_MINUTE: declare({
    namespace: 'scans',
    description:
      'scan launches (`POST /v1/scans`, GraphQL `startScan`, joins of a running scan included) one token may ask for per minute on one API process; past it the API answers 429 with `Retry-After`',
    shape: 'an integer from 1 to 100000',
    default: '10',
    secret: false,
    usedBy: ['api', 'cli'],
    schema: intInRange(1, 100_000),
  }),
  SCAN_QUEUE_DEPTH: declare({
    namespace: 'scans',
    description:
      'scans that may wait behind the running one in the in-process scan queue of `serve` without Redis; past it `POST /v1/scans` answers 429 (kept equal to libs/audit DEFAULT_SCAN_QUEUE_DEPTH)',
    shape: 'an integer from 0 to 1000',
    default: '4',
    secret: false,
    usedBy: ['api', 'cli'],
    schema: intInRange(0, 1000),
  }),
  FORECAST_IDLE_TIMEOUT_MS: declare({
    namespace: 'forecasts',
    description:
      'how long a forecast thread of the API (what-if, headroom) stays warm with nothing to compute, milliseconds (kept equal to libs/audit DEFAULT_FORECAST_IDLE_TIMEOUT_MS); a warm thread spares the next what-if the thread start (100-300 ms) and costs about 50 MiB of RSS while idle; `0`: no warm thread, each exits after its computation',
    shape: 'an integer from 0 to 3600000 (milliseconds)',
    default: '60000',
    secret: false,
    usedBy: ['api', 'cli'],
    schema: intInRange(0, 3_600_000, 'must be an integer from 0 to 3600000 (milliseconds; 0: no warm thread)'),
  }),
  WORKER_HEALTH_PORT: declare({
    namespace: 'queues',
    description:
      '`fleet-audit worker --health-port`: serve /healthz (liveness) and /readyz (PostgreSQL and Redis answer) on this port, for container probes',
    shape: 'a port number from 1 to 65535',
    whenUnset: 'no health endpoint',
    secret: false,
    usedBy: ['cli'],
    schema: port,
  }),
  WORKER_HEALTH_HOST: declare({
    namespace: 'queues',
    description: '`fleet-audit worker --health-host`: interface of the health endpoint (0.0.0.0 in a Kubernetes pod)',
    shape: 'an IP address or host name',
    default: '127.0.0.1',
    secret: false,
    usedBy: ['cli'],
    schema: hostName,
  }),
  GRAPHQL_SANDBOX: declare({
    namespace: 'graphql',
    description: '`1`: the page of GET /graphql (offline, self-contained) also links to Apollo Sandbox on the web (`demo` turns it on)',
    shape: '1 or 0',
    default: '0',
    secret: false,
    usedBy: ['api', 'cli'],
    schema: oneOrZero,
  }),
  GRAPHQL_INTROSPECTION: declare({
    namespace: 'graphql',
    description:
      '`1`: answer introspection queries and suggest field names in validation errors; off by default when NODE_ENV=production (the schema is committed as apps/api/schema.gql), on otherwise',
    shape: '1 or 0',
    secret: false,
    whenUnset: 'on unless NODE_ENV=production',
    usedBy: ['api', 'cli'],
    schema: oneOrZero,
  }),
  GRAPHQL_MAX_COST: declare({
    namespace: 'graphql',
    description:
      'largest GraphQL query cost (a connection costs 1 + first x its node cost, like GitHub); a costlier query is refused before it runs, with its cost',
    shape: 'an integer from 1 to 100000',
    default: '1000',
    secret: false,
    usedBy: ['api', 'cli'],
    schema: intInRange(1, 100_000),
  }),
  GRAPHQL_MAX_QUERY_BYTES: declare({
    namespace: 'graphql',
    description:
      'longest GraphQL query text (bytes of UTF-8); a longer one is refused with 413 QUERY_TOO_LARGE before it is parsed or cached',
    shape: 'an integer from 1024 to 1048576',
    default: '32768',
    secret: false,
    usedBy: ['api', 'cli'],
    schema: intInRange(1024, 1_048_576),
  }),
  GRAPHQL_MAX_DEPTH: declare({
    namespace: 'graphql',
    description: 'deepest GraphQL query (edges/node/pageInfo not counted); a deeper query is refused before it runs',
    shape: 'an integer from 1 to 32',
    default: '8',
    secret: false,
    usedBy: ['api', 'cli'],
    schema: intInRange(1, 32),
  }),
  LOG_LEVEL: declare({
    namespace: 'log',
    description: 'minimum level of the JSON logs (pretty only on a TTY); `serve --log-level` defaults to it',
    shape: LOG_LEVELS.join(', '),
    default: 'info',
    secret: false,
    usedBy: ['api', 'worker', 'cli'],
    schema: z
      .string()
      .transform((s) => s.toLowerCase())
      .pipe(z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`)),
  }),
  NO_COLOR: declare({
    namespace: 'cli',
    description: 'any non-empty value turns off coloured CLI output (https://no-color.org)',
    shape: 'any non-empty value',
    whenUnset: 'colour on a terminal only',
    secret: false,
    usedBy: ['cli'],
    schema: flag,
  }),
  FLEET_AUDIT_DIST: declare({
    namespace: 'cli',
    description:
      'directory of a `nest build cli` output that bin/fleet-audit.js runs instead of dist/apps/cli, and where the forecast thread pool finds its worker (the test suite points it at its own build)',
    shape: 'a directory path',
    whenUnset: 'dist/apps/cli beside bin/',
    secret: false,
    usedBy: ['cli', 'api'],
    schema: z.string().min(1, 'must be a directory path'),
  }),
  FLEET_AUDIT_DEBUG: declare({
    namespace: 'cli',
    description: '`1`: the CLI prints the stack trace after an error line, and GraphQL errors of `serve` / `demo` carry `extensions.stacktrace` (never otherwise)',
    shape: '1 or 0',
    default: '0',
    secret: false,
    usedBy: ['cli'],
    schema: oneOrZero,
  }),
  USER: declare({
    namespace: 'cli',
    description: 'login name (set by the shell) recorded as the author of waiver changes: the default of `waiver --by`',
    shape: 'a name',
    whenUnset: '`cli`',
    secret: false,
    usedBy: ['cli'],
    schema: z.string(),
  }),
  ALIBABA_CLOUD_ACCESS_KEY_ID: declare({
    namespace: 'collector',
    description:
      'AccessKey ID read when a scan config sets `credentials.accessKeySecretEnv` alone (the default name of `credentials.accessKeyIdEnv`); also read by the `@alicloud/credentials` default chain',
    shape: 'an AccessKey ID',
    whenUnset: 'the scan config names another variable, or the default chain (profile, ECS RAM role) is used',
    secret: true,
    usedBy: ['worker', 'cli'],
    schema: z.string(),
  }),
  ALIBABA_CLOUD_ACCESS_KEY_SECRET: declare({
    namespace: 'collector',
    description:
      'AccessKey secret read when a scan config sets `credentials.accessKeyIdEnv` alone (the default name of `credentials.accessKeySecretEnv`); also read by the `@alicloud/credentials` default chain',
    shape: 'an AccessKey secret',
    whenUnset: 'as for ALIBABA_CLOUD_ACCESS_KEY_ID',
    secret: true,
    usedBy: ['worker', 'cli'],
    schema: z.string(),
  }),
} as const satisfies Record<string, EnvVarSpec<never> | EnvVarSpec<unknown>>;

/** A declared variable name. */
export type EnvVarName = keyof typeof ENV_VARS;

/** The typed value of one declared variable. */
export type EnvValue<K extends EnvVarName> = (typeof ENV_VARS)[K] extends EnvVarSpec<infer T> ? T : never;
