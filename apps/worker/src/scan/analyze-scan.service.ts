import { Inject, Injectable, Logger } from '@nestjs/common';
import { analyzeAndStore, refreshQuotaApplicationsFromSnapshot, ScanFailedError } from '@app/audit';
import { logScanCompleted, nestScanEventSink } from '@app/telemetry';
import { crawlJobId, type JobName, type JobResults, type ScanJobQueue } from '@app/queue';
import type { FleetSnapshot } from '@app/domain';
import { Store, type StoredScan } from '@app/store';
import { payloads, type AnalyzeScanCommand } from '../jobs/scan-job.commands';
import type { ResolvedWorkerOptions } from '../worker.options';
import { SCAN_JOB_QUEUE, WORKER_OPTIONS } from '../worker.constants';
import { ScanScopeRelease } from './scan-scope.release';
import { shardsOf, snapshotOfTargets, splitTargets } from './scan-slices.util';

export { CRAWL_FAILED_CODE } from './scan-slices.util';

/**
 * Analyzes a scan once every crawl ended. First the targets without a slice are marked failed (with the crawl
 * job's reason where BullMQ kept it). Then:
 * - sharded (worker option `analyzeShards`, ANALYZE_SHARDS, default on): add the second flow,
 *   complete-scan with one analyze-shard job per (account, region) (AnalyzeShardService, CompleteScanService);
 *   this job loads no slice;
 * - otherwise: load every slice, build the snapshot (scan-slices.util.ts) and hand it to libs/audit
 *   `analyzeAndStore` (the same step as a local scan: every check, then the scan completed in one transaction).
 * A target without a slice is `failed` coverage (`CrawlJobFailed` with the job's reason), never healthy.
 *
 * Idempotent: a scan that already ended is left alone; the shard flow's job ids derive from the scan, so a
 * retried job adds nothing twice; the analysis clock defaults to the scan's start, so a retry computes the
 * same result.
 */
@Injectable()
export class AnalyzeScanService {
  private readonly logger = new Logger(AnalyzeScanService.name);

  constructor(
    private readonly store: Store,
    @Inject(SCAN_JOB_QUEUE) private readonly queue: ScanJobQueue,
    @Inject(WORKER_OPTIONS) private readonly options: Pick<ResolvedWorkerOptions, 'analyzeShards'>,
    private readonly scopes: ScanScopeRelease,
  ) {}

  /**
   * Analyze one scan (or hand it to its shards).
   * @param crawlFailures why crawl jobs failed for good, by job id (BullMQ ignored child failures)
   * @returns `done` (with `shards` when sharded), or `skipped` when the scan already ended or read nothing
   *   (then it is failed)
   * @throws Postgres and Redis errors (retried)
   */
  async analyze(
    cmd: AnalyzeScanCommand,
    crawlFailures: ReadonlyMap<string, string>,
  ): Promise<JobResults[JobName.AnalyzeScan]> {
    const scan = await this.store.scans.get(cmd.scanId);
    if (!scan) return { status: 'skipped', reason: `scan ${cmd.scanId} does not exist` };
    if (scan.status !== 'running') {
      await this.scopes.release(cmd);
      return { status: 'skipped', reason: `scan ${cmd.scanId} already ${scan.status}` };
    }
    const sharded = this.options.analyzeShards;
    // Sharded: the states only (no slice is loaded here); the shards read their own slices.
    const rows = sharded
      ? await this.store.scanTargets.listStates(cmd.scanId)
      : await this.store.scanTargets.listForScan(cmd.scanId);
    const targets = splitTargets(
      rows,
      (row) => crawlFailures.get(crawlJobId(cmd.scanId, row.target)) ?? row.error ?? 'its crawl job never finished',
    );
    await this.store.scanTargets.markFailed(
      cmd.scanId,
      targets.failed.map((f) => ({ key: f.row.targetKey, target: f.row.target, error: f.reason })),
    );
    if (sharded) {
      const shards = shardsOf(cmd.config);
      await this.queue.addShardFlow(
        cmd.runPayload(),
        shards.map((s) => payloads.shard(cmd, s)),
      );
      return { status: 'done', findings: 0, failedTargets: targets.failed.length, shards: shards.length };
    }
    return this.analyzeInProcess(cmd, scan, snapshotOfTargets(cmd.config, targets), targets.failed.length);
  }

  private async analyzeInProcess(
    cmd: AnalyzeScanCommand,
    scan: StoredScan,
    snapshot: FleetSnapshot,
    failedTargets: number,
  ): Promise<JobResults[JobName.AnalyzeScan]> {
    let analysis: Awaited<ReturnType<typeof analyzeAndStore>>;
    try {
      analysis = await analyzeAndStore(snapshot, {
        scanId: cmd.scanId,
        now: new Date(cmd.now ?? scan.startedAt),
        ...(cmd.settings ? { settings: cmd.settings } : {}),
        store: this.store,
      });
    } catch (e) {
      if (!(e instanceof ScanFailedError)) throw e;
      await this.store.scans.fail(cmd.scanId, e.message);
      await this.scopes.release(cmd);
      return { status: 'skipped', reason: e.message };
    }
    await this.scopes.release(cmd);
    // What the crawl read of Quota Center's applications refreshes the stored ones; a failure is no failed scan.
    await refreshQuotaApplicationsFromSnapshot(this.store, snapshot).catch((e: unknown) =>
      this.logger.warn(`scan ${cmd.scanId}: quota applications not refreshed: ${e instanceof Error ? e.message : String(e)}`),
    );
    logScanCompleted(nestScanEventSink(this.logger), {
      scanId: cmd.scanId,
      fleet: scan.fleetName ?? cmd.scanId,
      startedAt: scan.startedAt,
      finishedAt: analysis.finishedAt,
      findings: analysis.findings.length,
      bySeverity: analysis.summary.bySeverity,
      coverage: snapshot.coverage,
    });
    // The step after the store, best effort: statistics and quota trend fits for the stored scan.
    await this.store.scans.refreshAfterStore();
    return { status: 'done', findings: analysis.findings.length, failedTargets };
  }
}
