/**
 * Load the declared environment (`env.declaration.ts`) once, at boot: validate every declared
 * variable, check the ones the process requires, and map them into namespaced, typed config.
 * Apps keep thin views over it (apps/api `api-config.ts`, apps/worker `worker-config.ts`, the CLI).
 */
import { ENV_VARS, type EnvValue, type EnvVarName, type EnvVarSpec, type LogLevelName, type ProcessName } from './env.declaration';
import type { Environment } from './environment';
import { fleetAuditErrorKind } from '@app/errors';

/** Configuration of every process, by namespace (units in the names: `Ms` = milliseconds). */
export interface FleetAuditConfig {
  database: { url?: string };
  redis: { url?: string; prefix: string };
  queues: {
    crawlConcurrency: number;
    analyzeConcurrency: number;
    /** ANALYZE_SHARDS: a distributed scan's analysis runs as shard jobs and a final job. */
    analyzeShards: boolean;
    lockDurationMs: number;
    stalledIntervalMs: number;
    shutdownGraceMs: number;
    /** WORKER_REACH: `any`, or the VPC ids whose intranet API server endpoints this worker dials. */
    reach: 'any' | string[];
    /** WORKER_REACH_WAIT_MS: a pool crawl's bounded wait for a worker that reaches its VPC. */
    reachWaitMs: number;
  };
  schedule: { configPaths: string[]; cron: string; reconcileIntervalMs: number };
  /** Weekly report: cron (`false`: off), webhook and link base. */
  reports: { cron: string | false; webhookUrl?: string; chatWebhooks?: string; linkBase?: string };
  /** Retention (README "Retention"): cron (`false`: off), the policy (`weeklyWeeks` null: forever), rows per DELETE. */
  retention: { cron: string | false; rawHours: number; dailyDays: number; weeklyWeeks: number | null; quotaDays: number; batchRows: number };
  /** `trustProxy`: Express 'trust proxy' (false: the socket peer is the client). */
  api: { token?: string; tokenHashKey?: string; port: number; host: string; trustProxy: number | string | false };
  /** GraphQL at /graphql: the sandbox page, the query cost and depth limits. */
  graphql: { sandbox: boolean; maxCost: number; maxDepth: number; maxQueryBytes: number; introspection?: boolean };
  /** The in-process scan queue of `serve` (no Redis): scans that may wait behind the running one. */
  scans: { queueDepth: number; launchesPerMinute: number };
  /** The API's forecast thread pool (what-if, headroom): how long an idle thread stays warm, ms (0: none). */
  forecasts: { idleTimeoutMs: number };
  log: { level: LogLevelName };
  /** CLI only: NO_COLOR, FLEET_AUDIT_DEBUG=1 (stack traces), USER (author of waiver changes). */
  cli: { noColor: boolean; debug: boolean; user?: string };
}

/**
 * Invalid or missing environment variables. The message names each one and the expected shape
 * ("invalid configuration: API_PORT must be a port number from 1 to 65535; DATABASE_URL is required
 * (postgres://user@host:port/database)") and never contains a value.
 */
export class ConfigError extends fleetAuditErrorKind('ConfigError', 'CONFIG_INVALID', true) {
  // code: transports map it (CLI exit 2, process exit 1); permanent: the environment must change.
  /** The variables at fault, in declaration order. */
  readonly variables: EnvVarName[];

  constructor(problems: { variable: EnvVarName; message: string }[]) {
    super(`invalid configuration: ${problems.map((p) => `${p.variable} ${p.message}`).join('; ')}`);
    this.variables = problems.map((p) => p.variable);
  }
}

/** Typed values of the declared variables that are set (or defaulted). */
export type EnvValues = { [K in EnvVarName]?: EnvValue<K> };

/**
 * Validate the declared variables of `env`. Empty values count as unset; defaults apply to unset
 * ones. Every declared variable is validated whatever the process (one schema for all, so a bad
 * value fails at the first boot, not in another process later); `requiredBy` is per process.
 * @param env the environment (`processEnvironment()`, or a test double)
 * @param processName the process booting: decides which variables are required
 * @throws ConfigError naming every invalid or missing variable and the expected shape
 */
export function parseEnvironment(env: Environment, processName: ProcessName): EnvValues {
  const values: Record<string, unknown> = {};
  const problems: { variable: EnvVarName; message: string }[] = [];
  for (const [name, spec] of Object.entries(ENV_VARS) as [EnvVarName, EnvVarSpec][]) {
    const set = env[name];
    const raw = set === undefined || set === '' ? spec.default : set;
    if (raw === undefined) {
      if (spec.requiredBy?.includes(processName)) problems.push({ variable: name, message: `is required (${spec.shape})` });
      continue;
    }
    const parsed = spec.schema.safeParse(raw);
    if (parsed.success) values[name] = parsed.data;
    else {
      const message = parsed.error.issues[0]?.message ?? `must be ${spec.shape}`;
      problems.push({ variable: name, message: spec.secret ? redactValue(message, raw) : message });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return values as EnvValues;
}

/** `message` with every occurrence of `value` replaced (schema messages never hold it; belt and braces). */
function redactValue(message: string, value: string): string {
  return value.length >= 4 ? message.split(value).join('[redacted]') : message;
}

/**
 * The namespaced configuration of a process.
 * @param env the environment (`processEnvironment()`, or a test double)
 * @param processName the process booting (`api`, `worker`, `cli`)
 * @throws ConfigError naming every invalid or missing variable and the expected shape
 */
export function loadConfig(env: Environment, processName: ProcessName): FleetAuditConfig {
  return mapConfig(parseEnvironment(env, processName));
}

/** Defaults of the declaration, typed (every variable with a `default` has a value). */
function withDefault<K extends EnvVarName>(v: EnvValues, name: K): EnvValue<K> {
  const value = v[name];
  if (value === undefined) throw new Error(`config declaration: ${name} has no default`);
  return value as EnvValue<K>;
}

function mapConfig(v: EnvValues): FleetAuditConfig {
  const optional = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined)) as T;
  return {
    database: optional({ url: v.DATABASE_URL }),
    redis: optional({ url: v.REDIS_URL, prefix: withDefault(v, 'FLEET_AUDIT_QUEUE_PREFIX') }),
    queues: {
      crawlConcurrency: withDefault(v, 'WORKER_CONCURRENCY'),
      analyzeConcurrency: withDefault(v, 'WORKER_ANALYZE_CONCURRENCY'),
      analyzeShards: withDefault(v, 'ANALYZE_SHARDS'),
      lockDurationMs: withDefault(v, 'WORKER_LOCK_DURATION_MS'),
      stalledIntervalMs: withDefault(v, 'WORKER_STALLED_INTERVAL_MS'),
      shutdownGraceMs: withDefault(v, 'WORKER_SHUTDOWN_GRACE_MS'),
      reach: withDefault(v, 'WORKER_REACH'),
      reachWaitMs: withDefault(v, 'WORKER_REACH_WAIT_MS'),
    },
    schedule: {
      configPaths: v.SCAN_CONFIGS ?? [],
      cron: withDefault(v, 'SCAN_SCHEDULE'),
      reconcileIntervalMs: withDefault(v, 'SCAN_RECONCILE_INTERVAL_MS'),
    },
    reports: optional({ cron: withDefault(v, 'REPORT_SCHEDULE'), webhookUrl: v.REPORT_WEBHOOK_URL, chatWebhooks: v.REPORT_CHAT_WEBHOOKS, linkBase: v.REPORT_LINK_BASE }),
    retention: {
      cron: withDefault(v, 'RETENTION_SCHEDULE'),
      rawHours: withDefault(v, 'RETENTION_RAW_HOURS'),
      dailyDays: withDefault(v, 'RETENTION_DAILY_DAYS'),
      weeklyWeeks: withDefault(v, 'RETENTION_WEEKLY_WEEKS'),
      quotaDays: withDefault(v, 'RETENTION_QUOTA_DAYS'),
      batchRows: withDefault(v, 'RETENTION_BATCH_ROWS'),
    },
    api: optional({ token: v.API_TOKEN, tokenHashKey: v.TOKEN_HASH_KEY, port: withDefault(v, 'API_PORT'), host: withDefault(v, 'API_HOST'), trustProxy: withDefault(v, 'API_TRUST_PROXY') }),
    graphql: { sandbox: withDefault(v, 'GRAPHQL_SANDBOX'), maxCost: withDefault(v, 'GRAPHQL_MAX_COST'), maxDepth: withDefault(v, 'GRAPHQL_MAX_DEPTH'), maxQueryBytes: withDefault(v, 'GRAPHQL_MAX_QUERY_BYTES'), ...(v.GRAPHQL_INTROSPECTION !== undefined ? { introspection: v.GRAPHQL_INTROSPECTION } : {}) },
    scans: { queueDepth: withDefault(v, 'SCAN_QUEUE_DEPTH'), launchesPerMinute: withDefault(v, 'SCAN_LAUNCHES_PER_MINUTE') },
    forecasts: { idleTimeoutMs: withDefault(v, 'FORECAST_IDLE_TIMEOUT_MS') },
    log: { level: withDefault(v, 'LOG_LEVEL') },
    cli: optional({ noColor: v.NO_COLOR ?? false, debug: withDefault(v, 'FLEET_AUDIT_DEBUG'), user: v.USER }),
  };
}

/** Config paths (namespace.key) that hold a secret: the mapped form of the `secret` variables. */
const SECRET_PATHS = new Set(['database.url', 'redis.url', 'reports.webhookUrl', 'reports.chatWebhooks', 'api.token', 'api.tokenHashKey']);

/**
 * A copy of `config` safe to print or log: secret values replaced by `[redacted]`.
 * @returns the same shape, secrets redacted
 */
export function redactConfig(config: FleetAuditConfig): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(config).map(([ns, values]) => [
      ns,
      Object.fromEntries(Object.entries(values as Record<string, unknown>).map(([k, x]) => [k, SECRET_PATHS.has(`${ns}.${k}`) && x !== undefined ? '[redacted]' : x])),
    ]),
  );
}

/** Mapped config paths of secret variables (for the test that ties them to the declaration). */
export const SECRET_CONFIG_PATHS: ReadonlySet<string> = SECRET_PATHS;
