import { Inject, Injectable } from '@nestjs/common';
import { trendsFromStore } from '@app/audit';
import { Store, scopeIncludes, type Principal } from '@app/store';

/** Exhaustion forecasts are exported for series that may run out within 90 days (p10; research F1 horizon). */
const EXPORT_HORIZON_SECONDS = 90 * 86_400;
import { DEFAULT_QUOTA_MIN_RATIO, renderFleetMetrics } from '@app/telemetry';
import type { ProcessMetrics } from '@app/telemetry';
import { METRICS_OPTIONS, PROCESS_METRICS, type MetricsOptions } from '../api.constants';

/** Reads the latest scans from the store and renders them as Prometheus metrics (libs/telemetry). */
@Injectable()
export class MetricsService {
  constructor(
    private readonly store: Store,
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
            findings: await this.store.findings.countsByCheckAndSeverity(latest.id, principal),
            waived: await this.store.waiverService.waivedCounts(latest.id, principal, now),
            byCheckStatus: summary.byCheckStatus ?? {},
            coverage: latest.coverage ?? [],
            // Only the samples above the floor are loaded; counts and maxima come from SQL over all of them.
            quotaUsage: await this.store.quotaUsage.forScan(latest.id, principal, floor),
            quotaStats: await this.store.quotaUsage.statsByCheck(latest.id, principal),
            // Series with a forecast (ok, or already exhausted) and an early answer within 90 days, in the principal's accounts.
            exhaustion: (await trendsFromStore(this.store, { now })).filter(
              (t) =>
                scopeIncludes(principal.accountScope, t.resource.accountId) &&
                (t.status === 'ok' || t.status === 'exhausted') &&
                t.secondsToExhaustion.p10 !== null &&
                t.secondsToExhaustion.p10 <= EXPORT_HORIZON_SECONDS,
            ),
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
    });
  }
}
