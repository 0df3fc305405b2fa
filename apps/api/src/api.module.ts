import { type DynamicModule, Inject, type MiddlewareConsumer, Module, type NestModule, RequestMethod } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { ApiTokenRepository, FindingRepository, ScanRepository, ScanTargetRepository, Store } from '@app/store';
import { ForecastPool, type ForecastPoolOptions } from '@app/audit';
import { type AuthOptions, TokenAuthenticator } from './auth/token-authenticator';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { createProcessMetrics, logDestination, loggerOptions, type LogLevelName, type ProcessMetrics } from '@app/telemetry';
import {
  API_TOKEN,
  METRICS_OPTIONS,
  PROCESS_METRICS,
  READINESS_PROBES,
  DEFAULT_SCAN_LAUNCHES_PER_MINUTE,
  SCAN_LAUNCHER,
  SCAN_LAUNCHES_PER_MINUTE,
  SCAN_LEASE,
  type MetricsOptions,
  type ReadinessProbes,
} from './api.constants';
import { ReadyController } from './health/ready.controller';
import { ApiExceptionFilter } from './common/api-exception.filter';
import { BearerAuthGuard } from './common/bearer-auth.guard';
import { FindingsController } from './findings/findings.controller';
import { FindingsService } from './findings/findings.service';
import { ForecastsController } from './forecasts/forecasts.controller';
import { PlansController } from './forecasts/plans.controller';
import { QuotaPlanController } from './quota-plan/quota-plan.controller';
import { QuotaPlanService } from './quota-plan/quota-plan.service';
import { AdmissionController } from './admission/admission.controller';
import { AdmissionService } from './admission/admission.service';
import { FORECAST_POOL, ForecastsService, logForecastThreadError } from './forecasts/forecasts.service';
import { HealthController } from './health/health.controller';
import { HealthService } from './health/health.service';
import { MetricsController } from './metrics/metrics.controller';
import { ExhaustionForecasts, MetricsService } from './metrics/metrics.service';
import type { ScanLauncher } from './scan-launcher.port';
import { ScansController } from './scans/scans.controller';
import { ScansService } from './scans/scans.service';
import { ScanReaperService } from './scans/scan-reaper.service';
import { WaiversController } from './waivers/waivers.controller';
import { ReportsController } from './reports/reports.controller';
import { TokensController } from './tokens/tokens.controller';
import { TokensService } from './tokens/tokens.service';
import { WhoamiController } from './auth/whoami.controller';
import { QuotasController } from './quotas/quotas.controller';
import { FleetController } from './fleet/fleet.controller';
import { FleetService } from './fleet/fleet.service';
import { QuotasService } from './quotas/quotas.service';
import { ReportsService } from './reports/reports.service';
import { ScanSelectionService } from './scans/scan-selection.service';
import { WaiversService } from './waivers/waivers.service';
import { graphqlModule, type GraphqlOptions } from './graphql/graphql.options';
import { GraphAnswerFastPath } from './graphql/graphql-answer.middleware';
import { GraphAnswerCache } from './graphql/graphql-response-cache.plugin';
import { DEFAULT_MAX_QUERY_BYTES, GRAPHQL_MAX_QUERY_BYTES, GraphqlRequestLimits } from './graphql/graphql-request-limits.middleware';

/** Whether this API serves /graphql (ApiModuleOptions.graphql !== false). */
const GRAPHQL_SERVED = Symbol('GRAPHQL_SERVED');
import { GRAPHQL_RESOLVERS } from './graphql/graphql.resolvers';
import { FORECAST_TOKEN_RESOLVERS } from './graphql/graphql-forecast.resolvers';
import { QuotaPlanResolver } from './graphql/graphql-quota-plan.resolvers';

/** What the API module is built from: adapters created by the caller (CLI, main.ts, tests). */
export interface ApiModuleOptions {
  /** An open store; the caller closes it after the app. */
  store: Store;
  /** The bearer token every `/v1` request must present (at least 16 characters). */
  token: string;
  /** Starts scans for `POST /v1/scans`. */
  scanLauncher: ScanLauncher;
  /** Scan launches one token may ask for per minute (SCAN_LAUNCHES_PER_MINUTE; default 10). */
  scanLaunchesPerMinute?: number;
  /** Options of `GET /metrics` (default: per-resource quota gauges from 50 % usage). */
  metrics?: MetricsOptions;
  /**
   * Lease of running scans: a running scan without a heartbeat for `leaseMs` is marked failed
   * (`interrupted: ...`) by this process's reaper, swept every `intervalMs` (defaults 30 s / 5 s).
   */
  scanLease?: { leaseMs?: number; intervalMs?: number };
  /** Token cache and failed-authentication rate limit (defaults: 2 s cache, 20 failures per minute per address). */
  auth?: AuthOptions;
  /** Dependencies `/readyz` checks besides PostgreSQL and the migrations (Redis). */
  readiness?: ReadinessProbes;
  /** Process, runtime and HTTP metrics appended to `/metrics` (default: a new set for this app). */
  processMetrics?: ProcessMetrics;
  /**
   * Structured logs through nestjs-pino (JSON lines, redacted, a request log with id and latency).
   * Unset: Nest's default logger (embedded use in the CLI). One process has one nestjs-pino request logger
   * (nestjs-pino 5.2.1 `rootLogger.js`): a second app built with `log` in the same process logs where the first one's
   * options said, its own ignored. The CLI builds one app per process; tests reset it (test/api/nestjs-pino-reset.util.ts).
   */
  log?: ApiLogOptions;
  /** The GraphQL endpoint `/graphql` (default: served, sandbox off); `false` serves none. */
  graphql?: GraphqlOptions | false;
  /**
   * Budgets of the forecast thread pool (what-if, headroom; defaults: 1 running, 2 waiting, 20 s, 256 MB heap, threads
   * warm 60 s, FORECAST_IDLE_TIMEOUT_MS); a thread failing outside a computation is logged unless `onThreadError` is given.
   */
  forecasts?: ForecastPoolOptions;
}

/** Logging of the API (nestjs-pino + pino-http). */
export interface ApiLogOptions {
  /** Minimum level (`LOG_LEVEL`). */
  level: LogLevelName;
  /** Pretty-print (default: only on a TTY stdout without `destination`). */
  pretty?: boolean;
  /** Where lines go (default stdout); tests read them back from a stream. */
  destination?: DestinationStream;
}

/** A request id from the client's `X-Request-Id` when it is a safe token (<= 128 of `[A-Za-z0-9._-]`), else a UUID. */
export function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

/**
 * How the request log line of every request is written (pino-http options beside the logger's own): the request id
 * (`requestIdOf`), the level by status (probes at debug), and what of the request and response it shows. The
 * nestjs-pino module's middleware and the admission webhook's own route (admission.route.ts) both log with these.
 */
export const REQUEST_LOG_OPTIONS = {
  genReqId: requestIdOf,
  customLogLevel: (req: IncomingMessage, res: ServerResponse, err?: Error): 'error' | 'warn' | 'info' | 'debug' => {
    if (err || res.statusCode >= 500) return 'error';
    if (res.statusCode >= 400) return 'warn';
    return /^\/(healthz|readyz|metrics)\b/.test(req.url ?? '') ? 'debug' : 'info';
  },
  serializers: {
    req: (req: { id: unknown; method: string; url: string; headers: Record<string, unknown>; remoteAddress?: string }) => ({
      id: req.id,
      method: req.method,
      url: req.url,
      headers: { 'user-agent': req.headers['user-agent'], authorization: req.headers.authorization },
    }),
    res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
  },
};

/** The nestjs-pino module: request log (id, method, url, status, `responseTime` ms), probes at debug. */
function loggerModule(log: ApiLogOptions): DynamicModule {
  return LoggerModule.forRoot({
    pinoHttp: [
      { ...loggerOptions({ level: log.level, name: 'api' }), ...REQUEST_LOG_OPTIONS },
      logDestination({ ...(log.pretty !== undefined ? { pretty: log.pretty } : {}), ...(log.destination ? { destination: log.destination } : {}) }),
    ],
  });
}

/**
 * The REST API: `/v1/scans`, `/v1/findings`, `/v1/waivers`, `/v1/reports`, `/metrics` (Prometheus), `/healthz`. A dynamic module, so the composition
 * root hands in the adapters (store, launcher, token) and tests can build it around real ones.
 * Every route needs the bearer token except those marked `@Public()`.
 */
@Module({})
export class ApiModule implements NestModule {
  constructor(@Inject(GRAPHQL_SERVED) private readonly graphqlServed: boolean) {}

  /** POST /graphql first meets the fast path for stored answers (after the body parser, before Apollo). */
  configure(consumer: MiddlewareConsumer): void {
    if (!this.graphqlServed) return;
    // Size and nesting limits before anything parses, hashes or caches the request.
    consumer.apply(GraphqlRequestLimits).forRoutes({ path: 'graphql', method: RequestMethod.ALL });
    consumer.apply(GraphAnswerFastPath).forRoutes({ path: 'graphql', method: RequestMethod.POST });
  }

  /** The module around the given adapters. */
  static register(options: ApiModuleOptions): DynamicModule {
    // One authenticator for REST and GraphQL: the same token cache, rate limit and audit rows.
    const authenticator = new TokenAuthenticator(options.token, options.store.apiTokens, options.auth);
    // Stored answers of graph-only GraphQL queries: written by the Apollo plugin, sent by the fast path.
    const answers = new GraphAnswerCache();
    const graphql = options.graphql === false ? [] : [graphqlModule(options.graphql ?? {}, options.store, authenticator, answers)];
    return {
      module: ApiModule,
      imports: [...(options.log ? [loggerModule(options.log)] : []), ...graphql],
      controllers: [ScansController, FindingsController, QuotasController, FleetController, WaiversController, ReportsController, ForecastsController, PlansController, QuotaPlanController, AdmissionController, MetricsController, HealthController, TokensController, WhoamiController, ReadyController],
      providers: [
        { provide: Store, useValue: options.store },
        { provide: ScanRepository, useValue: options.store.scans },
        { provide: FindingRepository, useValue: options.store.findings },
        { provide: ScanTargetRepository, useValue: options.store.scanTargets },
        { provide: API_TOKEN, useValue: options.token },
        { provide: ApiTokenRepository, useValue: options.store.apiTokens },
        { provide: TokenAuthenticator, useValue: authenticator },
        { provide: GraphAnswerCache, useValue: answers },
        { provide: GRAPHQL_SERVED, useValue: options.graphql !== false },
        { provide: GRAPHQL_MAX_QUERY_BYTES, useValue: (options.graphql && options.graphql.maxQueryBytes) || DEFAULT_MAX_QUERY_BYTES },
        { provide: SCAN_LAUNCHER, useValue: options.scanLauncher },
        { provide: SCAN_LAUNCHES_PER_MINUTE, useValue: options.scanLaunchesPerMinute ?? DEFAULT_SCAN_LAUNCHES_PER_MINUTE },
        // A thread that fails outside a computation is logged (logForecastThreadError) unless the caller handles it.
        { provide: FORECAST_POOL, useValue: new ForecastPool({ ...options.forecasts, onThreadError: options.forecasts?.onThreadError ?? logForecastThreadError }) },
        { provide: METRICS_OPTIONS, useValue: options.metrics ?? {} },
        { provide: SCAN_LEASE, useValue: options.scanLease ?? {} },
        ScanReaperService,
        { provide: READINESS_PROBES, useValue: options.readiness ?? {} },
        { provide: PROCESS_METRICS, useValue: options.processMetrics ?? createProcessMetrics() },
        { provide: APP_GUARD, useClass: BearerAuthGuard },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        ScanSelectionService,
        ScansService,
        FindingsService,
        FleetService,
        QuotasService,
        WaiversService,
        ReportsService,
        ForecastsService,
        QuotaPlanService,
        AdmissionService,
        TokensService,
        HealthService,
        ExhaustionForecasts,
        MetricsService,
        ...(options.graphql === false ? [] : [...GRAPHQL_RESOLVERS, ...FORECAST_TOKEN_RESOLVERS, QuotaPlanResolver]),
      ],
    };
  }
}
