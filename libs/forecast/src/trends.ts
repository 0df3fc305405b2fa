import type { ResourceKind } from '@app/domain';
import { fitTrendWindow, projectTrend, resolveTrendSettings, TheilSenScratch, type QuotaObservation, type TrendFit, type TrendForecast, type TrendSettings } from './trend.model';

/** The resource of a quota series (the `quota_usage` key: check + account + region + kind + id). */
export interface SeriesResource {
  kind: ResourceKind;
  id: string;
  accountId: string;
  regionId: string;
  /** null when the resource is not in a cluster (a CLB, a region). */
  clusterId: string | null;
}

/** One quota series: the check measuring it, its resource and its samples (epoch ms, counts). */
export interface QuotaSeries {
  checkId: string;
  resource: SeriesResource;
  observations: readonly QuotaObservation[];
}

/**
 * One trend entry: the JSON contract of `forecast trends --format json` (`{"trends": [...]}`) and
 * `GET /v1/forecasts/trends`. Units: counts, counts per day, seconds from `now`, ISO 8601 times.
 */
export interface TrendEntry extends TrendForecast {
  checkId: string;
  resource: SeriesResource;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const STATUS_ORDER: Readonly<Record<TrendEntry['status'], number>> = {
  exhausted: 0,
  ok: 1,
  decreasing: 2,
  flat: 3,
  insufficient_data: 4,
};

/** One series fitted over its window (`fitTrendWindow`): what a stored trend fit holds. */
export interface FittedSeries {
  checkId: string;
  resource: SeriesResource;
  window: TrendFit;
}

/**
 * Forecasts every series and sorts the entries: exhausted first, then `ok` by p10 time to exhaustion
 * (soonest first), then decreasing, flat and insufficient data; ties by check id and resource.
 *
 * @param now the forecast clock (epoch ms)
 */
export function forecastTrends(
  series: readonly QuotaSeries[],
  now: number,
  settings: Partial<TrendSettings> = {},
): TrendEntry[] {
  const resolved = resolveTrendSettings(settings);
  const scratch = new TheilSenScratch(); // one work space for every fit of this call
  return forecastFittedTrends(
    series.map((s) => ({ checkId: s.checkId, resource: s.resource, window: fitTrendWindow(s.observations, now, resolved, scratch) })),
    now,
    resolved,
  );
}

/**
 * `forecastTrends` over series already fitted (`fitTrendWindow` over the same window and with the same
 * `intervalCoverage`; libs/store keeps such fits per scan window): the same entries in the same order, at
 * O(series) cost instead of refitting every sample.
 *
 * @param now the forecast clock (epoch ms)
 */
export function forecastFittedTrends(series: readonly FittedSeries[], now: number, settings: Partial<TrendSettings> = {}): TrendEntry[] {
  const resolved = resolveTrendSettings(settings);
  const out: TrendEntry[] = series.map((s) => {
    const f = projectTrend(s.window, now, resolved);
    // Key order is the documented JSON contract.
    return {
      checkId: s.checkId,
      resource: { kind: s.resource.kind, id: s.resource.id, accountId: s.resource.accountId, regionId: s.resource.regionId, clusterId: s.resource.clusterId },
      status: f.status,
      used: f.used,
      limit: f.limit,
      slopePerDay: f.slopePerDay,
      samples: f.samples,
      secondsToExhaustion: f.secondsToExhaustion,
      exhaustsAt: f.exhaustsAt,
    };
  });
  out.sort(compareTrendEntries);
  return out;
}

/** The order of `forecastTrends`: status, then p10 seconds to exhaustion (soonest first), then the series key. */
export function compareTrendEntries(a: TrendEntry, b: TrendEntry): number {
  return (
    STATUS_ORDER[a.status] - STATUS_ORDER[b.status] ||
    (a.secondsToExhaustion.p10 ?? Infinity) - (b.secondsToExhaustion.p10 ?? Infinity) ||
    cmp(a.checkId, b.checkId) ||
    cmp(a.resource.accountId, b.resource.accountId) ||
    cmp(a.resource.regionId, b.resource.regionId) ||
    cmp(a.resource.kind, b.resource.kind) ||
    cmp(a.resource.id, b.resource.id)
  );
}
