import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import {
  ForecastBudgetError,
  ForecastBusyError,
  ForecastPool,
  ForecastUnavailableError,
  headroomTrendsFromStore,
  latestSnapshot,
  trendsFromStore,
  trendsPageFromStore,
  type TrendsRequest,
} from '@app/audit';
import { clustersInScope, headroomInScope, scenarioInScope, seesWholeFleet, whatIfInScope } from './forecast-scope';
import { HeadroomOptionError, ScenarioError, parseScenario, planResultOf, preparePlan, readManifests, type HeadroomEntry, type PlanResult, type TrendEntry, type WhatIfResult } from '@app/forecast';
import { DEFAULT_PAGE_LIMIT, Store, scopeIncludes, type Principal } from '@app/store';
import { loadYaml, YamlLoadError } from '@app/domain';
import { ApiError } from '../common/api.exception';
import { planBodySchema, type HeadroomQuery, type TrendsQuery } from './forecasts.schemas';
import { scenarioApiError } from './scenario-errors';

/**
 * The forecast pool's refusals as API errors (REST and GraphQL map ApiError the same way).
 * @throws ApiError RATE_LIMITED (429 + Retry-After) for a full queue, FORECAST_TOO_LARGE (422) past a budget
 */
function throwPoolError(e: unknown): void {
  if (e instanceof ForecastBusyError) throw new ApiError('RATE_LIMITED', e.message, undefined, e.retryAfterSeconds);
  if (e instanceof ForecastBudgetError) throw new ApiError('FORECAST_TOO_LARGE', e.message);
}

/** Injection token of the API's forecast thread pool (libs/audit ForecastPool: warm piscina threads). */
export const FORECAST_POOL = Symbol('FORECAST_POOL');

const poolLogger = new Logger('ForecastPool');

/**
 * The API's report of a forecast thread that failed while it ran no computation (ForecastPoolOptions.onThreadError):
 * one error line through the app's logger (nestjs-pino when the API logs JSON, else Nest's console logger), the
 * error's name and first message line, never a stack: `forecast thread failed outside a computation and was
 * dropped: Error: Cannot find module ...`.
 * @param error what the thread threw (an Error, or any value)
 */
export function logForecastThreadError(error: unknown): void {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  poolLogger.error(`forecast thread failed outside a computation and was dropped: ${text.split('\n')[0]}`);
}

/**
 * Forecast use cases for the REST API and GraphQL: trends in-process (a bounded read of stored series), headroom
 * and what-ifs in the forecast thread pool (off the event loop, with time and heap budgets) on the
 * latest stored snapshot, read here and handed to a pool thread as plain data.
 */
@Injectable()
export class ForecastsService implements OnApplicationShutdown {
  constructor(
    private readonly store: Store,
    @Inject(FORECAST_POOL) private readonly pool: ForecastPool,
  ) {}

  /** Stops the running forecast computations, refuses the waiting ones (429) and ends the pool's threads. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
  }

  /**
   * Trends of the stored quota series (JSON contract: libs/forecast README): every entry soonest first, or with
   * `limit` / `after` one page in series key order with `nextCursor` (an account of a 5,000-cluster
   * fleet has some 60,000 series), the principal's accounts applied before paging, its teams (the clusters the
   * latest stored snapshot gives them) after: a team-scoped page may hold fewer entries than `limit`.
   * @throws StoreError INVALID_ARGUMENT for a malformed cursor
   */
  async trends(q: TrendsQuery, principal: Principal): Promise<{ trends: TrendEntry[]; nextCursor?: string | null }> {
    const request: TrendsRequest = {
      now: q.now ?? new Date(),
      settings: {
        ...(q.windowDays ? { windowDays: q.windowDays } : {}),
        ...(q.minSamples ? { minSamples: Math.ceil(q.minSamples) } : {}),
        ...(q.minSpanHours ? { minSpanHours: q.minSpanHours } : {}),
      },
      ...(q.checkId ? { checkId: q.checkId } : {}),
      ...(q.accountId ? { accountId: q.accountId } : {}),
      ...(q.clusterId ? { clusterId: q.clusterId } : {}),
      ...(q.status ? { status: q.status } : {}),
    };
    // A team-scoped token: only series of its teams' clusters (series outside any cluster carry no team).
    const inTeams = principal.teamScope === undefined ? undefined : await this.teamClusters(principal);
    const keep = (t: TrendEntry) => inTeams === undefined || (t.resource.clusterId !== null && inTeams.has(t.resource.clusterId));
    if (q.limit !== undefined || q.after !== undefined) {
      const scope = principal.accountScope.all ? {} : { accountIds: [...principal.accountScope.accountIds] };
      const page = await trendsPageFromStore(this.store, request, { limit: q.limit ?? DEFAULT_PAGE_LIMIT, ...(q.after ? { after: q.after } : {}), ...scope });
      return inTeams === undefined ? page : { ...page, trends: page.trends.filter(keep) };
    }
    const trends = await trendsFromStore(this.store, request);
    return { trends: trends.filter((t) => scopeIncludes(principal.accountScope, t.resource.accountId) && keep(t)) };
  }

  /** The ids of the clusters of a team-scoped principal, by the latest stored snapshot's teams (none before a scan). */
  private async teamClusters(principal: Principal): Promise<Set<string>> {
    try {
      return new Set(clustersInScope((await latestSnapshot(this.store)).snapshot, principal).keys());
    } catch (e) {
      if (e instanceof ForecastUnavailableError) return new Set();
      throw e;
    }
  }

  /**
   * Headroom on the latest stored snapshot, rows ordered by the stored trends' time to exhaustion. A scoped token
   * (accounts, teams) gets the clusters its scope covers, computed on the whole snapshot so shared quotas are split
   * between every cluster that draws from them (forecast-scope.ts); `clusterId` outside the scope answers as an
   * unknown cluster does (no rows).
   * @throws ApiError NOT_FOUND when no scan stored a snapshot; VALIDATION_FAILED for an unknown `like` node;
   *   RATE_LIMITED (429) when the forecast queue is full; FORECAST_TOO_LARGE (422) past the time or heap budget
   */
  async headroom(q: HeadroomQuery, principal: Principal): Promise<{ scanId: string; headroom: HeadroomEntry[] }> {
    try {
      const s = await latestSnapshot(this.store);
      const inScope = seesWholeFleet(principal) ? undefined : clustersInScope(s.snapshot, principal);
      const wanted = q.clusterId && inScope ? [...inScope.values()].find((c) => c.clusterId === q.clusterId || c.name === q.clusterId) : undefined;
      if (q.clusterId && inScope && !wanted) return { scanId: s.scanId, headroom: [] };
      const now = new Date(s.observedAt);
      const headroom = await this.pool.headroom(s.snapshot, {
        now,
        trends: await headroomTrendsFromStore(this.store, now),
        ...(q.clusterId ? { clusterIds: [wanted?.clusterId ?? q.clusterId] } : {}),
        ...(q.like ? { like: q.like } : {}),
        ...(q.ports ? { ports: Math.ceil(q.ports) } : {}),
        ...(q.podsPerService ? { podsPerService: Math.ceil(q.podsPerService) } : {}),
      });
      return { scanId: s.scanId, headroom: inScope ? headroomInScope(headroom, inScope) : headroom };
    } catch (e) {
      if (e instanceof ForecastUnavailableError) throw new ApiError('NOT_FOUND', e.message);
      throwPoolError(e);
      if (e instanceof HeadroomOptionError)
        throw new ApiError('VALIDATION_FAILED', e.message.replace('--like', 'query.like'), [{ path: 'query.like', message: e.message }]);
      throw e;
    }
  }

  /** `planOnLatest` on this service's store and pool (REST `POST /v1/plans`, GraphQL `plan`). */
  plan(body: unknown, principal: Principal): Promise<{ scanId: string } & PlanResult> {
    return planOnLatest(this.store, this.pool, body, principal);
  }

  /**
   * A what-if scenario on the latest stored snapshot.
   * @throws ApiError VALIDATION_FAILED naming every problem of the scenario in its message and in `issues` (one
   *   `{ path, message }` each, `path` as bodyPathOf (scenario-errors.ts) gives it; at most MAX_SCENARIO_ISSUES); NOT_FOUND when no scan
   *   stored a snapshot; RATE_LIMITED (429) when the forecast queue is full; FORECAST_TOO_LARGE (422) past the time or
   *   heap budget
   */
  async whatIf(body: unknown, principal: Principal): Promise<{ scanId: string } & WhatIfResult> {
    try {
      const parsed = parseScenario(typeof body === 'string' ? scenarioYaml(body) : body);
      const s = await latestSnapshot(this.store);
      if (seesWholeFleet(principal)) return { scanId: s.scanId, ...(await this.pool.whatIf(s.snapshot, parsed, { now: new Date(s.observedAt) })) };
      // A scoped token: every step on a cluster within its scope, and the answer about the resources in scope.
      const inScope = clustersInScope(s.snapshot, principal);
      const result = await this.pool.whatIf(s.snapshot, scenarioInScope(parsed, inScope), { now: new Date(s.observedAt) });
      return { scanId: s.scanId, ...whatIfInScope(result, inScope, principal) };
    } catch (e) {
      if (e instanceof ScenarioError) throw scenarioApiError(e);
      if (e instanceof ForecastUnavailableError) throw new ApiError('NOT_FOUND', e.message);
      throwPoolError(e);
      throw e;
    }
  }
}

/**
 * What applying manifests does to a cluster of the latest stored snapshot (libs/forecast manifest-plan.ts), run in
 * the forecast pool as the what-ifs are. A scoped token plans only on a cluster within its scope (any other answers
 * as an unknown cluster does: FORBIDDEN) and sees the resources in scope.
 * @throws ApiError VALIDATION_FAILED for an invalid body or manifest (naming the document and field), an unknown
 *   cluster or a deletion of a Service the cluster lacks; FORBIDDEN for a cluster outside the token's scope;
 *   NOT_FOUND when no scan stored a snapshot; RATE_LIMITED / FORECAST_TOO_LARGE as the what-ifs
 */
export async function planOnLatest(store: Store, pool: ForecastPool, body: unknown, principal: Principal): Promise<{ scanId: string } & PlanResult> {
  const parsed = planBodySchema.safeParse(body);
  if (!parsed.success)
    throw new ApiError('VALIDATION_FAILED', parsed.error.issues.map((i) => `body.${i.path.join('.')}: ${i.message}`).join('; '), parsed.error.issues.map((i) => ({ path: `body.${i.path.join('.')}`, message: i.message })));
  const b = parsed.data;
  try {
    const manifests = readManifests([{ source: 'manifests', text: b.manifests }]);
    const s = await latestSnapshot(store);
    let cluster = b.cluster;
    const inScope = seesWholeFleet(principal) ? undefined : clustersInScope(s.snapshot, principal);
    if (inScope) {
      const hits = inScope.get(cluster) ? [inScope.get(cluster)!] : [...inScope.values()].filter((c) => c.name === cluster);
      if (hits.length !== 1) throw new ApiError('FORBIDDEN', `cluster "${cluster.slice(0, 80)}" is not a cluster within the token's scope (by id, or by a name unique within it)`);
      cluster = hits[0]!.clusterId;
    }
    const prepared = preparePlan(s.snapshot, manifests, { cluster, ...(b.delete?.length ? { deletes: b.delete } : {}) });
    const result = await pool.whatIf(s.snapshot, prepared.scenario, { now: new Date(s.observedAt) });
    const visible = inScope ? whatIfInScope(result, inScope, principal) : result;
    return { scanId: s.scanId, ...planResultOf(prepared, visible) };
  } catch (e) {
    if (e instanceof ScenarioError) throw new ApiError('VALIDATION_FAILED', e.message.replace(/^--cluster: /, 'body.cluster: '), [{ path: e.field ? `body.${e.field}` : 'body.manifests', message: e.message }]);
    if (e instanceof ForecastUnavailableError) throw new ApiError('NOT_FOUND', e.message);
    throwPoolError(e);
    throw e;
  }
}

/**
 * A what-if body sent as YAML (`Content-Type: application/yaml`: the API's text parser gives a string; JSON bodies
 * arrive parsed), parsed to the object `parseScenario` validates as it does JSON, by the product's YAML loader
 * (libs/domain `loadYaml`: alias expansion bounded, so a small body cannot hold a forecast thread).
 * @throws ScenarioError `body: not valid YAML: <reason> at line L, column C` (the position when the parser gives one)
 */
function scenarioYaml(text: string): unknown {
  try {
    return loadYaml(text, 'body');
  } catch (e) {
    if (!(e instanceof YamlLoadError)) throw e;
    const at = e.line === undefined ? '' : ` at line ${e.line}${e.column === undefined ? '' : `, column ${e.column}`}`;
    throw new ScenarioError(`body: not valid YAML: ${e.reason}${at}`);
  }
}
