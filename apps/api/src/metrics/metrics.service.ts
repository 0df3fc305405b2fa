import { Inject, Injectable } from '@nestjs/common';
import { Store } from '@app/store';
import { renderFleetMetrics } from '@app/telemetry';
import { METRICS_OPTIONS, type MetricsOptions } from '../api.constants';

/** Reads the latest scans from the store and renders them as Prometheus metrics (libs/telemetry). */
@Injectable()
export class MetricsService {
  constructor(
    private readonly store: Store,
    @Inject(METRICS_OPTIONS) private readonly options: MetricsOptions,
  ) {}

  /**
   * The exposition text of one scrape.
   * @throws StoreError UNAVAILABLE when PostgreSQL does not answer (the filter maps it to 503)
   */
  async render(): Promise<string> {
    const [latest, lastFinished] = await Promise.all([this.store.scans.latestSucceeded(), this.store.scans.latestFinished()]);
    const summary = (latest?.summary ?? {}) as { byCheckStatus?: Record<string, { pass: number; fail: number; skipped: number }> };
    return renderFleetMetrics({
      latest: latest
        ? {
            startedAt: latest.startedAt,
            finishedAt: latest.finishedAt,
            findings: await this.store.findings.countsByCheckAndSeverity(latest.id),
            byCheckStatus: summary.byCheckStatus ?? {},
            coverage: latest.coverage ?? [],
            quotaUsage: await this.store.quotaUsage.forScan(latest.id),
          }
        : null,
      lastFinished: lastFinished && lastFinished.status !== 'running'
        ? { status: lastFinished.status, startedAt: lastFinished.startedAt, finishedAt: lastFinished.finishedAt }
        : null,
      ...(this.options.quotaMinRatio !== undefined ? { quotaMinRatio: this.options.quotaMinRatio } : {}),
    });
  }
}
