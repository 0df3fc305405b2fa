import { Inject, Injectable, Logger } from '@nestjs/common';
import { summarize } from '@app/audit';
import { QUOTA_USAGE_CHECK_IDS, runAudit } from '@app/checks';
import { assembleWireFleet, NOT_CRAWLED, type TargetSlice } from '@app/collectors';
import { mapWireFleet, quotaUsageOf, skippedResultsOf, type CoverageEntry, type FleetSnapshot } from '@app/domain';
import { crawlJobId, type JobName, type JobResults, type ScanScopeLock } from '@app/queue';
import { Store, type ScanTargetRef, type StoredScanTarget } from '@app/store';
import type { AnalyzeScanCommand } from '../jobs/scan-job.commands';
import { SCAN_SCOPE_LOCK } from '../worker.constants';

/** Error code of the coverage entries of a target whose crawl job never delivered a slice. */
export const CRAWL_FAILED_CODE = 'CrawlJobFailed';

/**
 * Analyzes a scan once every crawl ended: loads the slices, assembles the WireFleet
 * (`assembleWireFleet`), maps it (`mapWireFleet`), runs every check (`runAudit`) and completes the
 * scan in one transaction (`store.scans.complete`). A target without a slice (its crawl failed
 * for good, or never ran) is `failed` coverage (assembleWireFleet's `NotCrawled`, here renamed
 * `CrawlJobFailed` with the job's reason), so it is never reported as healthy.
 *
 * Idempotent: a scan that already ended is left alone, and the analysis clock defaults to the
 * scan's start, so a retry computes the same result.
 */
@Injectable()
export class AnalyzeScanService {
  private readonly logger = new Logger(AnalyzeScanService.name);

  constructor(
    private readonly store: Store,
    @Inject(SCAN_SCOPE_LOCK) private readonly scopes: ScanScopeLock,
  ) {}

  /**
   * Analyze one scan.
   * @param crawlFailures why crawl jobs failed for good, by job id (BullMQ ignored child failures)
   * @returns `done`, or `skipped` when the scan already ended or read nothing (then it is failed)
   * @throws Postgres errors (retried)
   */
  async analyze(
    cmd: AnalyzeScanCommand,
    crawlFailures: ReadonlyMap<string, string>,
  ): Promise<JobResults[JobName.AnalyzeScan]> {
    const scan = await this.store.scans.get(cmd.scanId);
    if (!scan) return { status: 'skipped', reason: `scan ${cmd.scanId} does not exist` };
    if (scan.status !== 'running') {
      await this.releaseScope(cmd);
      return { status: 'skipped', reason: `scan ${cmd.scanId} already ${scan.status}` };
    }

    const rows = await this.store.scanTargets.listForScan(cmd.scanId);
    const slices: TargetSlice[] = [];
    const failed: { row: StoredScanTarget; reason: string }[] = [];
    for (const row of rows) {
      if (row.status === 'ok') {
        // Written by CrawlTargetService.saveSlice from a TargetSlice (trusted JSON, see there).
        slices.push(row.slice as TargetSlice);
        continue;
      }
      const reason =
        crawlFailures.get(crawlJobId(cmd.scanId, toCrawlTarget(row.target))) ??
        row.error ??
        'its crawl job never finished';
      failed.push({ row, reason });
    }
    await this.store.scanTargets.markFailed(
      cmd.scanId,
      failed.map((f) => ({ key: f.row.targetKey, target: f.row.target, error: f.reason })),
    );

    // assembleWireFleet reports every target without a slice as `failed` NotCrawled coverage;
    // name the reason where the crawl job told it.
    const wire = assembleWireFleet(cmd.config, slices);
    const reasons = new Map(
      failed.map((f) => [coverageTargetKey(f.row.target), `crawl of ${f.row.targetKey} failed: ${f.reason}`]),
    );
    const coverage = wire.coverage.map((c): CoverageEntry => {
      const reason =
        c.status === 'failed' && c.errorCode === NOT_CRAWLED ? reasons.get(coverageTargetKey(c)) : undefined;
      return reason === undefined ? c : { ...c, errorCode: CRAWL_FAILED_CODE, message: reason };
    });
    const snapshot = mapWireFleet({ ...wire, coverage });

    if (readNothing(snapshot)) {
      const first = snapshot.coverage[0];
      const reason =
        `nothing could be read: ${first.api} on account ${first.accountId}${first.regionId ? `/${first.regionId}` : ''} failed with ${first.errorCode ?? 'an error'}: ${first.message ?? ''}`.trim();
      await this.store.scans.fail(cmd.scanId, reason);
      await this.releaseScope(cmd);
      return { status: 'skipped', reason };
    }

    const { results, findings } = runAudit(snapshot, {
      now: new Date(cmd.now ?? scan.startedAt),
      ...(cmd.settings ? { settings: cmd.settings } : {}),
    });
    const summary = summarize(snapshot, results, findings);
    await this.store.scans.complete(cmd.scanId, {
      findings,
      coverage: snapshot.coverage,
      skipped: skippedResultsOf(results),
      quotaUsage: quotaUsageOf(results, QUOTA_USAGE_CHECK_IDS),
      summary,
      finishedAt: new Date(),
    });
    await this.releaseScope(cmd);
    this.logger.log(`scan ${cmd.scanId}: ${findings.length} findings, ${failed.length} targets not read`);
    return { status: 'done', findings: findings.length, failedTargets: failed.length };
  }

  private async releaseScope(cmd: AnalyzeScanCommand): Promise<void> {
    if (cmd.scope) await this.scopes.release(cmd.scope, cmd.scanId).catch(() => undefined);
  }
}

/** A stored target as the collectors' CrawlTarget (the store keeps the same fields). */
function toCrawlTarget(t: ScanTargetRef): Parameters<typeof crawlJobId>[1] {
  if (t.kind === 'cluster')
    return {
      kind: 'cluster',
      accountId: t.accountId,
      regionId: t.regionId ?? '',
      clusterId: t.clusterId ?? '',
    };
  if (t.kind === 'region') return { kind: 'region', accountId: t.accountId, regionId: t.regionId ?? '' };
  return { kind: 'account', accountId: t.accountId };
}

/** The target part of a coverage entry or stored target (account, region, cluster). */
function coverageTargetKey(t: { accountId: string; regionId?: string; clusterId?: string }): string {
  return [t.accountId, t.regionId ?? '', t.clusterId ?? ''].join('|');
}

/** Every coverage entry failed: the scan read nothing (libs/audit `runScan` fails such a scan too). */
function readNothing(snapshot: FleetSnapshot): boolean {
  return snapshot.coverage.length > 0 && snapshot.coverage.every((c) => c.status === 'failed');
}
