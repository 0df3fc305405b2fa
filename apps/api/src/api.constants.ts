/** Dependency-injection tokens of the API module (values given to `createApiApp`). */

/** The bearer token every `/v1` request must present (string). */
export const API_TOKEN = Symbol('API_TOKEN');

/** The `ScanLauncher` port implementation. */
export const SCAN_LAUNCHER = Symbol('SCAN_LAUNCHER');
/** Injection token: scan launches one token may ask for per minute (a count; SCAN_LAUNCHES_PER_MINUTE). */
export const SCAN_LAUNCHES_PER_MINUTE = Symbol('SCAN_LAUNCHES_PER_MINUTE');
/** Scan launches per token and minute when the caller sets none (the SCAN_LAUNCHES_PER_MINUTE default). */
export const DEFAULT_SCAN_LAUNCHES_PER_MINUTE = 10;

/** Metadata key marking a route as public (no bearer token), see `Public()`. */
export const IS_PUBLIC_ROUTE = 'fleetAudit:isPublicRoute';

/** Metadata key of the lowest role a route needs, see `RequireRole()`. */
export const REQUIRED_ROLE = 'fleetAudit:requiredRole';

/** Metadata key marking a route that filters by team (a team-scoped token may call it), see `TeamAware()`. */
export const TEAM_AWARE_ROUTE = 'fleetAudit:teamAwareRoute';


/** `MetricsOptions` of `GET /metrics`. */
export const METRICS_OPTIONS = Symbol('METRICS_OPTIONS');

/** Options of `GET /metrics`. */
export interface MetricsOptions {
  /** Per-resource quota gauges only at or above this usage ratio (0..1); default 0.5 (libs/telemetry). */
  quotaMinRatio?: number;
}

/** Lease of running scans `{ leaseMs?, intervalMs? }` (libs/store scan-lease; defaults 30 s / 5 s). */
export const SCAN_LEASE = Symbol('SCAN_LEASE');

/** `ReadinessProbes` of `GET /readyz`. */
export const READINESS_PROBES = Symbol('READINESS_PROBES');

/** Extra dependencies `/readyz` checks besides PostgreSQL and the migrations. */
export interface ReadinessProbes {
  /** Resolves when Redis answers (e.g. `() => redis.ping()`); unset = Redis not configured. */
  redis?: () => Promise<unknown>;
}

/** The process metrics (`ProcessMetrics` of libs/telemetry) appended to `GET /metrics`. */
export const PROCESS_METRICS = Symbol('PROCESS_METRICS');
