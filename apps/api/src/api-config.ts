/**
 * Configuration of the standalone API process (`main.ts`): a thin view over libs/config, where
 * every variable is declared once and validated at boot (README "Configuration").
 */
import { loadConfig, type Environment, type LogLevelName } from '@app/config';

/** Validated configuration of the API process. */
export interface ApiConfig {
  database: { url: string };
  api: { token: string; port: number; host: string; tokenHashKey?: string; trustProxy: number | string | false };
  log: { level: LogLevelName };
  /** The in-process scan queue: scans that may wait behind the running one; launches per token and minute. */
  scans: { queueDepth: number; launchesPerMinute: number };
  /** GraphQL limits and the sandbox page (GRAPHQL_MAX_COST, GRAPHQL_MAX_DEPTH, GRAPHQL_SANDBOX). */
  graphql: { sandbox: boolean; maxCost: number; maxDepth: number; maxQueryBytes: number; introspection?: boolean };
  /** The forecast thread pool: how long an idle thread stays warm, ms (FORECAST_IDLE_TIMEOUT_MS; 0: none). */
  forecasts: { idleTimeoutMs: number };
}

/**
 * Validate the environment once, at boot (DATABASE_URL and API_TOKEN are required).
 * @param env the process environment (`processEnvironment()`) or a test double
 * @throws ConfigError (libs/config) naming every invalid or missing variable, never a value
 */
export function loadApiConfig(env: Environment): ApiConfig {
  const c = loadConfig(env, 'api');
  // requiredBy 'api' in the declaration: loadConfig has thrown when either is missing.
  const url = c.database.url as string;
  const token = c.api.token as string;
  return {
    database: { url },
    api: { token, port: c.api.port, host: c.api.host, trustProxy: c.api.trustProxy, ...(c.api.tokenHashKey ? { tokenHashKey: c.api.tokenHashKey } : {}) },
    log: { level: c.log.level },
    scans: { queueDepth: c.scans.queueDepth, launchesPerMinute: c.scans.launchesPerMinute },
    graphql: { ...c.graphql },
    forecasts: { idleTimeoutMs: c.forecasts.idleTimeoutMs },
  };
}
