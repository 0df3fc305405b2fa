/**
 * Forecast use cases over the store, shared by the CLI (`fleet-audit forecast ...`) and the API
 * (`/v1/forecasts/...`): read the quota history or the latest stored snapshot, run the pure models of
 * libs/forecast, return their JSON contracts.
 */
import type { PartialAuditSettings } from '@app/checks';
import type { FleetSnapshot } from '@app/domain';
import {
  ScenarioApplier,
  findCluster,
  DEFAULT_TREND_SETTINGS,
  forecastFittedTrends,
  forecastTrends,
  headroomOfSnapshot,
  parseScenario,
  resolveTrendSettings,
  runWhatIf,
  type ConvergenceSettings,
  type HeadroomEntry,
  type HeadroomOptions,
  type HeadroomTrend,
  type Scenario,
  type TrendEntry,
  type TrendSettings,
  type WhatIfResult,
} from '@app/forecast';
import { decodeCursor, encodeCursor, type QuotaHistoryQuery, type QuotaSeriesKey, type Store, type StoredSnapshot } from '@app/store';
import { analyzeAndStore } from './analyze-and-store';
import { fleetAuditErrorKind } from '@app/errors';

/** A forecast that cannot run on what is stored (no scans yet, no snapshot). */
export class ForecastUnavailableError extends fleetAuditErrorKind('ForecastUnavailableError', 'FORECAST_UNAVAILABLE', true) {
  // permanent: nothing stored to forecast on: a scan must be stored first.
}

/** Filters and settings of `trendsFromStore`. */
export interface TrendsRequest extends Omit<QuotaHistoryQuery, 'since' | 'until'> {
  now: Date;
  settings?: Partial<TrendSettings>;
  /** Only entries with this status. */
  status?: TrendEntry['status'];
}

/**
 * Trends of every stored quota series in the window ending at `now` (libs/forecast `forecastTrends`), from the
 * stored fits of that window when the store keeps them (QuotaTrendRepository), else from the samples.
 */
export async function trendsFromStore(store: Store, request: TrendsRequest): Promise<TrendEntry[]> {
  const { now, settings, status, ...filters } = request;
  const resolved = resolveTrendSettings(settings ?? {});
  const since = new Date(now.getTime() - (settings?.windowDays ?? DEFAULT_TREND_SETTINGS.windowDays) * 86_400_000);
  // The fits kept for exactly this window's scans (refreshed when a scan completes) give the same entries as
  // refitting the samples, at one row per series; any other window refits.
  const window = await store.quotaTrends.windowFor(since, now, resolved.intervalCoverage);
  const out =
    window && !(filters.clusterId !== undefined && window.mixedClusterSeries > 0)
      ? forecastFittedTrends(await store.quotaTrends.fits(window.id, filters), now.getTime(), resolved)
      : forecastTrends(await store.quotaUsage.history({ ...filters, since, until: now }), now.getTime(), resolved);
  return status ? out.filter((e) => e.status === status) : out;
}

/**
 * The snapshot of the latest succeeded scan that stored one.
 * @throws ForecastUnavailableError when there is none
 */
export async function latestSnapshot(store: Store): Promise<StoredSnapshot> {
  const s = await store.snapshots.latest();
  if (!s) throw new ForecastUnavailableError('no succeeded scan with a stored snapshot: run fleet-audit scan --database-url URL first');
  return s;
}

/**
 * The stored quota trends that can run out (`ok` or `exhausted`, a p50 time to exhaustion), in the shape headroom
 * orders its rows by (HeadroomOptions.trends).
 */
export async function headroomTrendsFromStore(store: Store, now: Date): Promise<HeadroomTrend[]> {
  const trends = await trendsFromStore(store, { now });
  return trends
    .filter((t) => t.secondsToExhaustion.p50 !== null)
    .map((t) => ({ checkId: t.checkId, resource: t.resource, secondsToExhaustion: { p50: t.secondsToExhaustion.p50 } }));
}

/**
 * Headroom on the latest stored snapshot (the analysis clock is the scan's observation time unless given), rows
 * ordered by the stored trends' time to exhaustion (headroomTrendsFromStore).
 */
export async function headroomFromStore(
  store: Store,
  options: HeadroomOptions & { now?: Date; settings?: PartialAuditSettings },
): Promise<{ scanId: string; headroom: HeadroomEntry[] }> {
  const s = await latestSnapshot(store);
  const now = options.now ?? new Date(s.observedAt);
  const trends = options.trends ?? (await headroomTrendsFromStore(store, now));
  return { scanId: s.scanId, headroom: headroomOfSnapshot(s.snapshot, { ...options, trends, now }) };
}

/** A what-if on the latest stored snapshot (clock: the scan's observation time unless given). */
export async function whatIfFromStore(
  store: Store,
  scenario: Scenario,
  options: { now?: Date; settings?: PartialAuditSettings; convergence?: Partial<ConvergenceSettings> } = {},
): Promise<{ scanId: string; result: WhatIfResult }> {
  const s = await latestSnapshot(store);
  return {
    scanId: s.scanId,
    result: runWhatIf(s.snapshot, scenario, {
      now: options.now ?? new Date(s.observedAt),
      ...(options.settings ? { settings: options.settings } : {}),
      ...(options.convergence ? { convergence: options.convergence } : {}),
    }),
  };
}

/** Options of `backfillGrowthHistory`. */
export interface GrowthHistoryOptions {
  /** The cluster that "grew": the earlier scans see it with fewer nodes. */
  clusterId: string;
  /** Earlier daily scans to store (count). */
  days: number;
  /** Nodes the cluster gained per day (count). */
  nodesPerDay: number;
  /** The latest (real) observation; the history ends one day before it. */
  now: Date;
  settings?: PartialAuditSettings;
}

/**
 * Stores a short dated history for a demo: `days` earlier daily scans of `snapshot`, each with the cluster
 * `nodesPerDay` nodes a day smaller (the newest workers removed through the CCM model: their ECS instances
 * leave every CLB), so `forecast trends` has a growth to extrapolate. Clearly a generated history: the
 * scans' fleet name says so.
 * @throws ScenarioError when the cluster is unknown or has too few nodes
 */
export async function backfillGrowthHistory(store: Store, snapshot: FleetSnapshot, o: GrowthHistoryOptions): Promise<string[]> {
  const ids: string[] = [];
  const loc = findCluster(snapshot, o.clusterId);
  const workers = (loc?.cluster.kubernetes?.nodes ?? []).filter((n) => !Object.prototype.hasOwnProperty.call(n.labels, 'node-role.kubernetes.io/master')).map((n) => n.name);
  for (let k = o.days; k >= 1; k--) {
    const copy = structuredClone(snapshot);
    const names = workers.slice(Math.max(0, workers.length - k * o.nodesPerDay));
    if (names.length > 0) {
      const scenario = parseScenario({ apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'history', steps: [{ removeNodes: { cluster: o.clusterId, names } }] });
      new ScenarioApplier(copy).apply(scenario.steps[0]!);
    }
    const observedAt = new Date(o.now.getTime() - k * 86_400_000);
    const scan = await store.scans.create({ source: 'offline', fleetName: `${snapshot.name} (generated history)`, startedAt: observedAt });
    await analyzeAndStore(copy, { scanId: scan.id, now: observedAt, store, ...(o.settings ? { settings: o.settings } : {}) });
    ids.push(scan.id);
  }
  return ids;
}

/** Paging of `trendsPageFromStore`: a page size and the `nextCursor` of the previous page. */
export interface TrendsPaging {
  /** Entries per page (count, >= 1). */
  limit: number;
  /** Opaque cursor: the `nextCursor` of the previous page. */
  after?: string;
  /** Only series of these accounts (a scoped principal's), applied before paging. */
  accountIds?: readonly string[];
}

/** Arity of a trends cursor: the series key (check, account, region, kind, resource id). */
const TREND_CURSOR_ARITY = 5;

/** The series key of an entry, in page order. */
function seriesKeyOf(e: { checkId: string; resource: { accountId: string; regionId: string; kind: string; id: string } }): QuotaSeriesKey {
  return [e.checkId, e.resource.accountId, e.resource.regionId, e.resource.kind, e.resource.id];
}

/** Order of series keys: element by element, by UTF-16 code units (the bytewise order of ASCII ids PostgreSQL pages in). */
function compareKeys(a: QuotaSeriesKey, b: QuotaSeriesKey): number {
  for (let i = 0; i < TREND_CURSOR_ARITY; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
}

/**
 * One page of trends: the entries `trendsFromStore` gives, in series key order (check, account,
 * region, resource kind, resource id) instead of soonest first, so that a page reads only its own series' stored
 * fits (QuotaTrendRepository.fitsPage) whatever the fleet's size; `nextCursor` names the last entry (null on the last
 * page). Without stored fits for the window the samples are refitted, with the same entries.
 * @throws StoreError INVALID_ARGUMENT for a malformed cursor
 */
export async function trendsPageFromStore(store: Store, request: TrendsRequest, paging: TrendsPaging): Promise<{ trends: TrendEntry[]; nextCursor: string | null }> {
  const { now, settings, status, ...filters } = request;
  const resolved = resolveTrendSettings(settings ?? {});
  const after = paging.after === undefined ? undefined : (decodeCursor(paging.after, TREND_CURSOR_ARITY).map(String) as unknown as QuotaSeriesKey);
  const since = new Date(now.getTime() - (settings?.windowDays ?? DEFAULT_TREND_SETTINGS.windowDays) * 86_400_000);
  const window = await store.quotaTrends.windowFor(since, now, resolved.intervalCoverage);
  let entries: TrendEntry[];
  if (window && !(filters.clusterId !== undefined && window.mixedClusterSeries > 0)) {
    const statusFilter = status
      ? { status, minSamples: resolved.minSamples, minSpanMs: resolved.minSpanHours * 3_600_000, flatHorizonDays: resolved.flatHorizonDays }
      : undefined;
    const fits = await store.quotaTrends.fitsPage(
      window.id,
      { ...filters, ...(paging.accountIds ? { accountIds: paging.accountIds } : {}), ...(statusFilter ? { status: statusFilter } : {}) },
      { limit: paging.limit, ...(after ? { after } : {}) },
    );
    // Projected one by one (no sort: already in key order); `forecastFittedTrends` of one series is its entry.
    entries = fits.map((f) => forecastFittedTrends([f], now.getTime(), resolved)[0]!);
    if (status) entries = entries.filter((e) => e.status === status);
  } else {
    const scope = paging.accountIds ? new Set(paging.accountIds) : undefined;
    entries = (await trendsFromStore(store, request))
      .filter((e) => !scope || scope.has(e.resource.accountId))
      .filter((e) => !after || compareKeys(seriesKeyOf(e), after) > 0)
      .sort((a, b) => compareKeys(seriesKeyOf(a), seriesKeyOf(b)))
      .slice(0, paging.limit + 1);
  }
  const more = entries.length > paging.limit;
  const page = entries.slice(0, paging.limit);
  return { trends: page, nextCursor: more && page.length > 0 ? encodeCursor(seriesKeyOf(page[page.length - 1]!)) : null };
}
