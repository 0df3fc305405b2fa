import { Inject, Injectable, Logger } from '@nestjs/common';
import { analyzeAndStore, ScanFailedError } from '@app/audit';
import { logScanCompleted, nestScanEventSink } from '@app/telemetry';
import { assembleWireFleet, NOT_CRAWLED, type TargetSlice } from '@app/collectors';
import { mapWireFleet, targetKey, type CoverageEntry } from '@app/domain';
import { crawlJobId, type JobName, type JobResults, type ScanScopeLock } from '@app/queue';
import { Store, type StoredScanTarget } from '@app/store';
import type { AnalyzeScanCommand } from '../jobs/scan-job.commands';
import { SCAN_SCOPE_LOCK } from '../worker.constants';

/** Error code of the coverage entries of a target whose crawl job never delivered a slice. */
export const CRAWL_FAILED_CODE = 'CrawlJobFailed';

/**
 * Analyzes a scan once every crawl ended: loads the slices, assembles the WireFleet
 * (`assembleWireFleet`), maps it (`mapWireFleet`) and hands it to libs/audit `analyzeAndStore` (the
 * same step as a local scan: every check, then the scan completed in one transaction). A target without a slice (its crawl failed
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
        crawlFailures.get(crawlJobId(cmd.scanId, row.target)) ??
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
      failed.map((f) => [f.row.targetKey, `crawl of ${f.row.targetKey} failed: ${f.reason}`]),
    );
    const coverage = wire.coverage.map((c): CoverageEntry => {
      const reason =
        c.status === 'failed' && c.errorCode === NOT_CRAWLED ? reasons.get(targetKey(c)) : undefined;
      return reason === undefined ? c : { ...c, errorCode: CRAWL_FAILED_CODE, message: reason };
    });
    const snapshot = mapWireFleet({ ...wire, coverage });

    let findings: number;
    let analysis: Awaited<ReturnType<typeof analyzeAndStore>>;
    try {
      analysis = await analyzeAndStore(snapshot, {
        scanId: cmd.scanId,
        now: new Date(cmd.now ?? scan.startedAt),
        ...(cmd.settings ? { settings: cmd.settings } : {}),
        store: this.store,
      });
      findings = analysis.findings.length;
    } catch (e) {
      if (!(e instanceof ScanFailedError)) throw e;
      await this.store.scans.fail(cmd.scanId, e.message);
      await this.releaseScope(cmd);
      return { status: 'skipped', reason: e.message };
    }
    await this.releaseScope(cmd);
    logScanCompleted(nestScanEventSink(this.logger), {
      scanId: cmd.scanId,
      fleet: scan.fleetName ?? cmd.scanId,
      startedAt: scan.startedAt,
      finishedAt: analysis.finishedAt,
      findings,
      bySeverity: analysis.summary.bySeverity,
      coverage: snapshot.coverage,
    });
    return { status: 'done', findings, failedTargets: failed.length };
  }

  private async releaseScope(cmd: AnalyzeScanCommand): Promise<void> {
    if (cmd.scope)
      await this.scopes.release(cmd.scope, cmd.scanId).catch((e: unknown) =>
        // The scan is ended either way; a lock not released expires with its TTL.
        this.logger.warn(`scan ${cmd.scanId}: scope lock ${cmd.scope} not released (it expires with its TTL): ${e instanceof Error ? e.message : String(e)}`),
      );
  }
}
