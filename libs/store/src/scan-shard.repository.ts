import type { Pool, PoolClient } from 'pg';
import type { CoverageEntry, Finding, FleetGraph, FleetSnapshot, QuotaUsageSample, SkippedResult } from '@app/domain';
import type { FindingRepository } from './finding.repository';
import type { FleetGraphRepository } from './fleet-graph.repository';
import type { QuotaUsageRepository } from './quota-usage.repository';
import type { ScanPartitions } from './scan-partition.util';
import { encodeSnapshotLines } from './scan-snapshot.repository';
import { isUuid } from './page.util';
import { storableJson, storableText } from './sql.util';
import { StoreError } from './store.exception';
import { withStoreRetry } from './store-retry.util';
import { withTransaction } from './transaction.util';
import type { ScanSummary } from './store.types';

/** Longest stored error message of a failed shard (characters). */
const MAX_ERROR_LENGTH = 4000;

/**
 * One shard of a sharded analysis: an account and one of its regions, or the account alone
 * when it has no region (`regionId` ''). `lead` marks the shard that reports the account's own results and
 * coverage (the account's lowest region, or the account-only shard).
 */
export interface ScanShardPlace {
  /** `region/<account>/<region>` or `account/<account>` (libs/domain `targetKey` of the shard's target). */
  shardKey: string;
  accountId: string;
  /** '' for an account-only shard. */
  regionId: string;
  lead: boolean;
}

/** What one shard stores, in one transaction (`ScanShardRepository.storeDone`). */
export interface ScanShardPart {
  findings: readonly Finding[];
  /** Quota usage samples of the shard's resources. */
  quotaUsage: readonly QuotaUsageSample[];
  /** The fleet graph of the shard's (account, region). */
  graph: FleetGraph;
  /**
   * The shard's snapshot without coverage (kept in `coverage`), the account's RAM only in the lead shard: the
   * snapshot loader merges the parts (ScanSnapshotRepository).
   */
  snapshot: FleetSnapshot;
  /** The shard's part of the scan's summary (complete-scan sums the parts). */
  summary: ScanSummary;
  /** The shard's coverage entries (the account's own entries only in the lead shard), sorted by coverage key. */
  coverage: readonly CoverageEntry[];
  /** The shard's skipped results, in result order (check id, resource key). */
  skipped: readonly SkippedResult[];
}

/** A shard row as complete-scan reads it (the snapshot part is left in the database). */
export interface StoredScanShard extends ScanShardPlace {
  status: 'done' | 'failed';
  /** null for a failed shard. */
  summary: ScanSummary | null;
  coverage: CoverageEntry[];
  skipped: SkippedResult[];
  /** Why the shard failed; null when done. */
  error: string | null;
}

/** Outcome of storing a shard. */
export type ShardStoreOutcome =
  /** Stored now. */
  | 'stored'
  /** An earlier attempt of the same shard stored it already (its transaction committed): nothing was written. */
  | 'already-done'
  /** The scan is no longer running (completed or failed): nothing was written. */
  | 'scan-ended';

/**
 * The shards of sharded distributed scans (table `scan_shards`, migration 1799000000000): each `analyze-shard`
 * job stores its findings, quota samples, fleet-graph rows and its row (summary part, coverage, skipped results,
 * compressed snapshot part) in ONE transaction, so a shard is either wholly stored or not at all; `complete-scan`
 * reads the rows back to finish the scan (ScanRepository.completeFromShards).
 *
 * Idempotent under retries and SIGKILL: a retried shard finds its `done` row (the earlier attempt committed)
 * and writes nothing, or finds none (the earlier attempt rolled back: it left no row anywhere) and stores. Two
 * attempts at once (a stalled job retaken while the first still runs) serialise on a transaction-scoped
 * advisory lock of (scan, shard). A shard never writes into a scan that is no longer running.
 */
export class ScanShardRepository {
  /**
   * @param pool the store's connection pool
   * @param partitions the tables partitioned per scan: a shard writes through their parents, so the scan's partitions
   *   are made sure of before its transaction (scan-partition.util.ts)
   */
  constructor(
    private readonly pool: Pool,
    private readonly findings: FindingRepository,
    private readonly quotaUsage: QuotaUsageRepository,
    private readonly graph: FleetGraphRepository,
    private readonly partitions?: ScanPartitions,
  ) {}

  /**
   * Store a shard's results and mark it `done` (one transaction; retried with backoff while PostgreSQL is
   * unreachable: the transaction is all-or-nothing).
   * @throws StoreError NOT_FOUND when the scan does not exist; INVALID_ARGUMENT when a finding or quota sample
   *   lies outside the shard's account (its rows would not be the shard's); UNAVAILABLE when PostgreSQL stays
   *   unreachable
   */
  async storeDone(scanId: string, place: ScanShardPlace, part: ScanShardPart): Promise<ShardStoreOutcome> {
    assertInside(scanId, place, part);
    // The scan snapshot's JSON-lines form (column lists included), gzipped line by line: a large shard's snapshot is
    // never one JSON string in memory, and its backend lists cost what they cost in a whole scan's snapshot (the
    // column form is several times less JSON to write, compress, decompress and parse than the objects). Parts stored
    // before as one JSON text still read (ScanSnapshotRepository reads both).
    const { bytes: snapshot, rawBytes } = await encodeSnapshotLines(part.snapshot);
    await withStoreRetry(`cannot store shard ${place.shardKey} of scan ${scanId}`, async () => this.partitions?.ensure(scanId));
    return withStoreRetry(`cannot store shard ${place.shardKey} of scan ${scanId}`, () =>
      withTransaction(this.pool, async (client) => {
        const started = await this.lockForShard(client, scanId, place.shardKey);
        if (started === null) return 'scan-ended';
        const done = await client.query(
          `SELECT 1 FROM scan_shards WHERE scan_id = $1 AND shard_key = $2 AND status = 'done'`,
          [scanId, place.shardKey],
        );
        if (done.rows.length > 0) return 'already-done';
        await this.findings.insertForScan(client, scanId, started, part.findings, true);
        await this.quotaUsage.insertForScan(client, scanId, part.quotaUsage);
        await this.graph.insertForScan(client, scanId, part.graph);
        await client.query(
          `INSERT INTO scan_shards (scan_id, shard_key, account_id, region_id, lead, status, summary, coverage, skipped, snapshot, bytes_raw, error, updated_at)
           VALUES ($1, $2, $3, $4, $5, 'done', $6::jsonb, $7::jsonb, $8::jsonb, $9, $10, NULL, now())
           ON CONFLICT (scan_id, shard_key) DO UPDATE
             SET status = 'done', summary = EXCLUDED.summary, coverage = EXCLUDED.coverage, skipped = EXCLUDED.skipped,
                 snapshot = EXCLUDED.snapshot, bytes_raw = EXCLUDED.bytes_raw, error = NULL, updated_at = now()`,
          [
            scanId,
            place.shardKey,
            place.accountId,
            place.regionId,
            place.lead,
            storableJson(part.summary),
            storableJson(part.coverage),
            storableJson(part.skipped),
            snapshot,
            rawBytes,
          ],
        );
        return 'stored';
      }),
    );
  }

  /**
   * Record shards that ended without storing (their job failed for good), with their failed coverage; a shard
   * already `done` keeps its row.
   * @param failures shards, one-line reasons (no credentials; cut to 4000 characters) and the coverage entries
   *   that stand for their data
   */
  async markFailed(
    scanId: string,
    failures: ReadonlyArray<{ place: ScanShardPlace; error: string; coverage: readonly CoverageEntry[] }>,
  ): Promise<void> {
    if (!isUuid(scanId)) throw new StoreError('NOT_FOUND', `scan ${scanId} not found`);
    for (const f of failures) {
      await this.pool.query(
        `INSERT INTO scan_shards (scan_id, shard_key, account_id, region_id, lead, status, coverage, error, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'failed', $6::jsonb, $7, now())
         ON CONFLICT (scan_id, shard_key) DO UPDATE
           SET coverage = EXCLUDED.coverage, error = EXCLUDED.error, updated_at = now()
           WHERE scan_shards.status = 'failed'`,
        [
          scanId,
          f.place.shardKey,
          f.place.accountId,
          f.place.regionId,
          f.place.lead,
          storableJson(f.coverage),
          storableText(f.error.slice(0, MAX_ERROR_LENGTH)),
        ],
      );
    }
  }

  /** Every shard row of a scan (without snapshot parts), by account then region (byte order). */
  async listForScan(scanId: string): Promise<StoredScanShard[]> {
    if (!isUuid(scanId)) return [];
    const { rows } = await this.pool.query<{
      shard_key: string;
      account_id: string;
      region_id: string;
      lead: boolean;
      status: 'done' | 'failed';
      summary: ScanSummary | null;
      coverage: CoverageEntry[];
      skipped: SkippedResult[];
      error: string | null;
    }>(
      `SELECT shard_key, account_id, region_id, lead, status, summary, coverage, skipped, error
         FROM scan_shards WHERE scan_id = $1 ORDER BY account_id, region_id`,
      [scanId],
    );
    return rows.map((r) => ({
      shardKey: r.shard_key,
      accountId: r.account_id,
      regionId: r.region_id,
      lead: r.lead,
      status: r.status,
      summary: r.summary,
      coverage: r.coverage,
      skipped: r.skipped,
      error: r.error,
    }));
  }

  /**
   * Serialise attempts of one shard (advisory lock until the transaction ends) and share-lock the scan row, so
   * complete-scan (which locks it for update) cannot finish the scan while the shard writes.
   * @returns the scan's start (the sighting time of its findings), or null when the scan is not running
   * @throws StoreError NOT_FOUND when the scan does not exist
   */
  private async lockForShard(client: PoolClient, scanId: string, shardKey: string): Promise<Date | null> {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`scan-shard:${scanId}:${shardKey}`]);
    const { rows } = await client.query<{ status: string; started_at: Date | string }>(
      'SELECT status, started_at FROM scans WHERE id = $1 FOR SHARE',
      [scanId],
    );
    const scan = rows[0];
    if (!scan) throw new StoreError('NOT_FOUND', `scan ${scanId} not found`);
    if (scan.status !== 'running') return null;
    return scan.started_at instanceof Date ? scan.started_at : new Date(scan.started_at);
  }
}

/**
 * Every finding and quota sample of a shard belongs to its account (rows are found again by account): a row of
 * another account means the shard read data it should not have.
 * @throws StoreError INVALID_ARGUMENT naming the first row outside
 */
function assertInside(scanId: string, place: ScanShardPlace, part: ScanShardPart): void {
  if (!isUuid(scanId)) throw new StoreError('NOT_FOUND', `scan ${scanId} not found`);
  const outside =
    part.findings.find((f) => f.resource.accountId !== place.accountId)?.resource ??
    part.quotaUsage.find((q) => q.resource.accountId !== place.accountId)?.resource;
  if (outside)
    throw new StoreError(
      'INVALID_ARGUMENT',
      `shard ${place.shardKey} of scan ${scanId} produced a row of account ${outside.accountId} (${outside.kind} ${outside.id}): a shard stores rows of its own account only`,
    );
}
