import { Injectable, Logger } from '@nestjs/common';
import { nothingReadReason, sumShardSummaries, type ScanSummary } from '@app/audit';
import { resourceKeyOf } from '@app/checks';
import { failedEntries } from '@app/collectors';
import { coverageKey, type CoverageEntry, type CrawlTarget, type SkippedResult } from '@app/domain';
import { logScanCompleted, nestScanEventSink } from '@app/telemetry';
import { shardJobId, type JobName, type JobResults, type ShardRef } from '@app/queue';
import { Store, type ScanShardPlace, type StoredScanShard } from '@app/store';
import type { CompleteScanCommand } from '../jobs/scan-job.commands';
import { ScanScopeRelease } from './scan-scope.release';
import { firstEntries, shardPlace, shardsOf } from './scan-slices.util';

/** Error code of the coverage entries of a shard whose analysis failed for good. */
export const SHARD_FAILED_CODE = 'ShardAnalysisFailed';

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Completes a sharded scan once every analyze-shard job ended, failed ones included: a shard
 * without a stored part is recorded `failed`, its region (and, for a lead shard, its account's RAM) reported as
 * `failed` coverage `ShardAnalysisFailed` with the reason, never as healthy; the shards' summary parts are summed,
 * their coverage and skipped results merged in the in-process analysis's order (coverage by coverage key,
 * skipped results by check id then resource key), and the scan marked succeeded (ScanRepository.completeFromShards);
 * then the scope lock is released and the same `scan.completed` event as the whole-scan analysis is logged.
 * A scan that read nothing at all is failed, as the whole-scan analysis fails it.
 *
 * Exactly once: a scan that is no longer running is left alone (also when another attempt completed it between
 * the read and the write: the completing transaction checks under the row lock).
 */
@Injectable()
export class CompleteScanService {
  private readonly logger = new Logger(CompleteScanService.name);

  constructor(
    private readonly store: Store,
    private readonly scopes: ScanScopeRelease,
  ) {}

  /**
   * Complete one sharded scan.
   * @param shardFailures why analyze-shard jobs failed for good, by job id (BullMQ ignored child failures)
   * @returns `done` with the findings and failed shards (counts), or `skipped` when the scan already ended or read
   *   nothing (then it is failed)
   * @throws Postgres errors (retried)
   */
  async complete(cmd: CompleteScanCommand, shardFailures: ReadonlyMap<string, string>): Promise<JobResults[JobName.CompleteScan]> {
    const scan = await this.store.scans.get(cmd.scanId);
    if (!scan) return { status: 'skipped', reason: `scan ${cmd.scanId} does not exist` };
    if (scan.status !== 'running') {
      await this.scopes.release(cmd);
      return { status: 'skipped', reason: `scan ${cmd.scanId} already ${scan.status}` };
    }
    const shards = shardsOf(cmd.config);
    const done = new Set((await this.store.scanShards.listForScan(cmd.scanId)).filter((s) => s.status === 'done').map((s) => s.shardKey));
    const failed = shards
      .map((shard) => ({ shard, place: shardPlace(cmd.config, shard) }))
      .filter(({ place }) => !done.has(place.shardKey))
      .map(({ shard, place }) => {
        const reason = shardFailures.get(shardJobId(cmd.scanId, shard)) ?? 'its analyze-shard job never finished';
        return { place, error: reason, coverage: failedShardCoverage(shard, place, `analysis of shard ${place.shardKey} failed: ${reason}`) };
      });
    await this.store.scanShards.markFailed(cmd.scanId, failed);

    const stored = await this.store.scanShards.listForScan(cmd.scanId);
    const coverage = mergedCoverage(stored);
    const nothing = nothingReadReason({ name: '', accounts: [], coverage });
    if (nothing !== undefined) {
      await this.store.scans.fail(cmd.scanId, nothing);
      await this.scopes.release(cmd);
      return { status: 'skipped', reason: nothing };
    }
    const summary = sumShardSummaries(
      stored.flatMap((s) => (s.summary ? [s.summary as ScanSummary] : [])),
      coverage,
      firstEntries(cmd.config).length,
    );
    const finishedAt = new Date();
    const completed = await this.store.scans.completeFromShards(cmd.scanId, { coverage, skipped: mergedSkipped(stored), summary, finishedAt });
    if (!completed) {
      await this.scopes.release(cmd);
      return { status: 'skipped', reason: `scan ${cmd.scanId} ended meanwhile` };
    }
    await this.scopes.release(cmd);
    logScanCompleted(nestScanEventSink(this.logger), {
      scanId: cmd.scanId,
      fleet: scan.fleetName ?? cmd.scanId,
      startedAt: scan.startedAt,
      finishedAt,
      findings: summary.findings,
      bySeverity: summary.bySeverity,
      coverage,
    });
    // The step after the store, best effort: statistics and quota trend fits for the tables the shards wrote.
    await this.store.scans.refreshAfterStore();
    return { status: 'done', findings: summary.findings, failedShards: failed.length };
  }
}

/**
 * The coverage that stands for a failed shard's data: every region dataset of its region `failed`, and for the
 * account's lead shard the account's own datasets (RAM) too; code `ShardAnalysisFailed`, the reason as message.
 */
export function failedShardCoverage(shard: ShardRef, place: ScanShardPlace, message: string): CoverageEntry[] {
  const targets: CrawlTarget[] = [];
  if (place.lead) targets.push({ kind: 'account', accountId: shard.accountId });
  if (shard.regionId !== null) targets.push({ kind: 'region', accountId: shard.accountId, regionId: shard.regionId });
  return targets.flatMap((t) => failedEntries(t, SHARD_FAILED_CODE, message));
}

/** Every shard's coverage, sorted by coverage key (the order of the in-process snapshot's coverage). */
function mergedCoverage(shards: readonly StoredScanShard[]): CoverageEntry[] {
  return shards
    .flatMap((s) => s.coverage)
    .map((c) => ({ c, k: coverageKey(c) }))
    .sort((x, y) => compareText(x.k, y.k))
    .map((x) => x.c);
}

/**
 * Every shard's skipped results in result order (check id, then resource key; equal keys keep shard order, which
 * is the snapshot order), as `runAudit` orders the in-process analysis's results.
 */
function mergedSkipped(shards: readonly StoredScanShard[]): SkippedResult[] {
  return shards
    .flatMap((s) => s.skipped)
    .map((r, i) => ({ r, i, k: resourceKeyOf(r.resource) }))
    .sort((x, y) => compareText(x.r.checkId, y.r.checkId) || compareText(x.k, y.k) || x.i - y.i)
    .map((x) => x.r);
}
