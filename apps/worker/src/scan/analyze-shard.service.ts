import { Injectable, Logger } from '@nestjs/common';
import { analyzeAndStoreShard, refreshQuotaApplicationsFromSnapshot } from '@app/audit';
import type { JobName, JobResults } from '@app/queue';
import type { FleetSnapshot } from '@app/domain';
import { Store } from '@app/store';
import type { AnalyzeShardCommand } from '../jobs/scan-job.commands';
import { configOfShard, shardPlace, snapshotOfTargets, splitTargets } from './scan-slices.util';

/**
 * Analyzes one shard of a sharded scan: reads ONLY the shard's slices (its account target,
 * its region target and that region's cluster targets: `scanTargets.listForPlace`), builds the shard's snapshot
 * as the whole-scan analysis would (scan-slices.util.ts, the config reduced to the shard), runs every check on
 * it and stores the shard's part in one transaction (libs/audit `analyzeAndStoreShard`). Once stored, the quota
 * applications its region's crawl read refresh the stored ones (`refreshQuotaApplicationsFromSnapshot`); a failure
 * there is logged, never a failed shard (the next scan or `quota request` run refreshes them again).
 *
 * Idempotent: a shard already stored (an earlier attempt committed) or a scan no longer running writes nothing;
 * the analysis clock defaults to the scan's start, so every attempt computes the same part.
 */
@Injectable()
export class AnalyzeShardService {
  private readonly logger = new Logger(AnalyzeShardService.name);

  constructor(private readonly store: Store) {}

  /**
   * Analyze and store one shard.
   * @returns `done` with the shard's findings, or `skipped` when the scan ended or the shard was stored already
   * @throws Postgres errors (retried); StoreError INVALID_ARGUMENT when a result lies outside the shard's account
   */
  async analyze(cmd: AnalyzeShardCommand): Promise<JobResults[JobName.AnalyzeShard]> {
    const place = shardPlace(cmd.config, cmd.shard);
    const scan = await this.store.scans.get(cmd.scanId);
    if (!scan) return { status: 'skipped', reason: `scan ${cmd.scanId} does not exist` };
    if (scan.status !== 'running') return { status: 'skipped', reason: `scan ${cmd.scanId} already ${scan.status}` };
    const snapshot = await this.snapshotOf(cmd);
    const analysis = await analyzeAndStoreShard(snapshot, {
      scanId: cmd.scanId,
      now: new Date(cmd.now ?? scan.startedAt),
      ...(cmd.settings ? { settings: cmd.settings } : {}),
      place,
      store: this.store,
    });
    if (analysis.outcome !== 'stored')
      return {
        status: 'skipped',
        reason: analysis.outcome === 'already-done' ? `shard ${place.shardKey} already stored` : `scan ${cmd.scanId} ended meanwhile`,
      };
    await refreshQuotaApplicationsFromSnapshot(this.store, snapshot).catch((e: unknown) =>
      this.logger.warn(`scan ${cmd.scanId} shard ${place.shardKey}: quota applications not refreshed: ${e instanceof Error ? e.message : String(e)}`),
    );
    return { status: 'done', shardKey: place.shardKey, findings: analysis.findings };
  }

  /**
   * The shard's snapshot from its slices. On its own so that the rows and wire slices are garbage once it
   * returns: only the snapshot stays in memory while the checks run.
   */
  private async snapshotOf(cmd: AnalyzeShardCommand): Promise<FleetSnapshot> {
    const rows = await this.store.scanTargets.listForPlace(cmd.scanId, cmd.shard.accountId, cmd.shard.regionId);
    // analyze-scan marked every target without a slice failed, with its reason, before adding the shards.
    const targets = splitTargets(rows, (row) => row.error ?? 'its crawl job never finished');
    return snapshotOfTargets(configOfShard(cmd.config, cmd.shard), targets);
  }
}
