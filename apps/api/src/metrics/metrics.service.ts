import { Inject, Injectable } from '@nestjs/common';
import { trendsFromStore } from '@app/audit';
import type { TrendEntry } from '@app/forecast';
import { Store, scopeIncludes, type Principal } from '@app/store';
import { DEFAULT_QUOTA_MIN_RATIO, renderFleetMetrics } from '@app/telemetry';
import type { ProcessMetrics } from '@app/telemetry';
import { METRICS_OPTIONS, PROCESS_METRICS, type MetricsOptions } from '../api.constants';

/** Exhaustion forecasts are exported for series that may run out within 90 days (p10; research F1 horizon). */
const EXPORT_HORIZON_SECONDS = 90 * 86_400;
/** The exported forecasts are refitted at least this often even without a new scan (window drift), ms. */
const EXHAUSTION_REFIT_MS = 15 * 60_000;

/** One quantile set of an exported exhaustion forecast (the shape `renderFleetMetrics` takes). */
type Exhaustion = Pick<TrendEntry, 'checkId' | 'resource' | 'secondsToExhaustion'>;

/**
 * The fleet's exhaustion forecasts, fitted once per succeeded scan instead of once per scrape: a trend
 * changes only when a scan adds samples, and its predicted times (`exhaustsAt`) are absolute, so a scrape
 * only re-derives "seconds from now" from them (`max(0, exhaustsAt - now)`). Refitted when the latest
 * succeeded scan changes or `EXHAUSTION_REFIT_MS` of wall time after the last fit (samples leaving the 14-day window). Concurrent
 * scrapes share one fit. Holds every account's series; each scrape filters them by its principal's scope (accounts,
 * and for a team-scoped principal its clusters and the account / region quotas they draw on).
 * One per API process (a provider), so every scrape shares its fit.
 */
@Injectable()
export class ExhaustionForecasts {
  private key: string | null = null;
  private fittedAt = 0;
  private fit: Promise<TrendEntry[]> | null = null;

  constructor(private readonly store: Store) {}

  /** The series with a forecast (ok or exhausted) whose p10 falls within the export horizon, seconds from `now`. */
  async at(now: Date, principal: Principal): Promise<Exhaustion[]> {
    const latestId = await this.store.scans.latestSucceededId();
    if (this.fit === null || latestId !== this.key || Date.now() - this.fittedAt > EXHAUSTION_REFIT_MS) {
      this.key = latestId;
      this.fittedAt = Date.now();
      const fit = trendsFromStore(this.store, { now }).then((all) => all.filter((t) => t.status === 'ok' || t.status === 'exhausted'));
      // A failed fit (store outage) is not cached: the next scrape tries again.
      fit.catch(() => {
        if (this.fit === fit) this.fit = null;
      });
      this.fit = fit;
    }
    const seconds = (at: string | null): number | null => (at === null ? null : Math.max(0, Math.round((Date.parse(at) - now.getTime()) / 1000)));
    const out: Exhaustion[] = [];
    const inTeams = principal.teamScope === undefined || latestId === null ? undefined : teamSeries(await this.store.graph.teamClusters(latestId, principal));
    for (const t of await this.fit) {
      if (!scopeIncludes(principal.accountScope, t.resource.accountId)) continue;
      if (principal.teamScope !== undefined && (inTeams === undefined || !inTeams(t.resource))) continue;
      const s = { p10: seconds(t.exhaustsAt.p10), p50: seconds(t.exhaustsAt.p50), p90: seconds(t.exhaustsAt.p90) };
      if (s.p10 !== null && s.p10 <= EXPORT_HORIZON_SECONDS) out.push({ checkId: t.checkId, resource: t.resource, secondsToExhaustion: s });
    }
    return out;
  }
}

/**
 * Which forecast series a team-scoped principal sees (the quota rule of libs/store team-scope.util.ts): a series of one
 * of its clusters, or of an account / region quota (kind `Account` / `Region`) where it owns a cluster.
 * @param clusters the principal's clusters in the latest succeeded scan (FleetGraphRepository.teamClusters)
 */
function teamSeries(clusters: readonly { clusterId: string; accountId: string; regionId: string }[]): (r: TrendEntry['resource']) => boolean {
  const ids = new Set(clusters.map((c) => c.clusterId));
  const areas = new Set(clusters.flatMap((c) => [c.accountId, `${c.accountId}/${c.regionId}`]));
  return (r) => {
    if (r.clusterId !== null && r.clusterId !== undefined && r.clusterId !== '') return ids.has(r.clusterId);
    if (r.kind !== 'Account' && r.kind !== 'Region') return false;
    return areas.has(r.regionId ? `${r.accountId}/${r.regionId}` : r.accountId);
  };
}

/**
 * Reads the latest scans from the store and renders them as Prometheus metrics (libs/telemetry), with the exhaustion
 * forecasts of `ExhaustionForecasts` (injected, so a test can replace the fit).
 */
@Injectable()
export class MetricsService {
  constructor(
    private readonly store: Store,
    private readonly exhaustion: ExhaustionForecasts,
    @Inject(METRICS_OPTIONS) private readonly options: MetricsOptions,
    @Inject(PROCESS_METRICS) private readonly process: ProcessMetrics,
  ) {}

  /**
   * The exposition text of one scrape, over the principal's accounts only (every count and series
   * filtered in SQL), then the process, runtime and HTTP request metrics of this API process.
   * @throws StoreError UNAVAILABLE when PostgreSQL does not answer (the filter maps it to 503)
   */
  async render(principal: Principal): Promise<string> {
    const [fleet, proc] = await Promise.all([this.renderFleet(principal), this.process.render()]);
    return `${fleet.trimEnd()}\n${proc}`;
  }

  /** The fleet metrics of the latest scans the principal may see (libs/telemetry `renderFleetMetrics`). */
  private async renderFleet(principal: Principal): Promise<string> {
    const [latest, lastFinished] = await Promise.all([this.store.scans.latestSucceeded(principal), this.store.scans.latestFinished()]);
    const summary = (latest?.summary ?? {}) as { byCheckStatus?: Record<string, { pass: number; fail: number; skipped: number }> };
    const floor = this.options.quotaMinRatio ?? DEFAULT_QUOTA_MIN_RATIO;
    // Waivers apply at read time: a waiver created, revoked or expired changes the next scrape.
    const now = new Date();
    return renderFleetMetrics({
      latest: latest
        ? {
            startedAt: latest.startedAt,
            finishedAt: latest.finishedAt,
            processingSeconds: latest.processingSeconds,
            findings: await this.store.findings.countsByCheckAndSeverity(latest.id, principal),
            clusterFindings: await this.store.findings.countsByCluster(latest.id, principal),
            waived: await this.store.waiverService.waivedCounts(latest.id, principal, now),
            byCheckStatus: summary.byCheckStatus ?? {},
            coverage: latest.coverage ?? [],
            // Only the samples above the floor are loaded; counts and maxima come from SQL over all of them.
            quotaUsage: await this.store.quotaUsage.forScan(latest.id, principal, floor),
            quotaStats: await this.store.quotaUsage.statsByCheck(latest.id, principal),
            // Series with a forecast (ok, or already exhausted) and an early answer within 90 days, in the principal's accounts.
            exhaustion: await this.exhaustion.at(now, principal),
          }
        : null,
      lastFinished: lastFinished && lastFinished.status !== 'running'
        ? { status: lastFinished.status, startedAt: lastFinished.startedAt, finishedAt: lastFinished.finishedAt }
        : null,
      quotaMinRatio: floor,
      // Waiver states and report deliveries over the principal's scope (filtered in SQL): waivers of its
      // accounts, reports wholly within its accounts.
      waivers: await this.store.waiverService.stateCounts(now, principal),
      reports: await this.store.reports.deliveryStats(principal),
      storage: await this.storage(),
      // Applications are per account and region: a scoped principal counts those of its accounts, a team-scoped one those
      // of the regions where its teams have clusters in the latest scan.
      quotaApplications: await this.store.quotaApplications.countsByStatus(principal, latest?.id),
    });
  }

  /** The database size and the retention counters (not per account: one store for every scope). */
  private async storage(): Promise<NonNullable<Parameters<typeof renderFleetMetrics>[0]['storage']>> {
    const [databaseBytes, counters] = await Promise.all([this.store.retentionRows.databaseSize(), this.store.retentionRows.counters()]);
    const last = counters.reduce<Date | null>((m, c) => (m === null || c.lastRunAt > m ? c.lastRunAt : m), null);
    return { databaseBytes, removed: counters, lastRunAt: last ? last.toISOString() : null };
  }
}
