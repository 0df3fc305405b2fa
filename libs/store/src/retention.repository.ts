import type { Pool, PoolClient } from 'pg';
import type { PrunedPolicy } from './scan-pruned.error';
import type { RetentionScan } from './retention.policy';
import { isPerScanTable, type ScanPartitions } from './scan-partition.util';

/**
 * The rows of a scan that pruning deletes: every table holding rows per scan except `quota_usage` (kept for
 * trends) and `scans` itself. test/store/retention.integration-spec.ts checks that this list and
 * `quota_usage` are every table with a `scan_id` column (but the reports and the chunk rows of a store in flight), so
 * a new per-scan table cannot be forgotten. Deleting a scan deletes its rows here first: most of these tables keep no
 * foreign key to `scans` (migration 1800200000002), so no cascade would.
 */
export const PRUNED_SCAN_TABLES = [
  'findings',
  'scan_targets',
  'scan_snapshots',
  'scan_shards',
  'graph_regions',
  'graph_clusters',
  'graph_services',
  'graph_load_balancers',
  'graph_server_groups',
  'graph_server_lists',
  'graph_ecs_instances',
  'graph_ecs_attachments',
  'graph_nlbs',
  // Bookkeeping of a chunked store in flight (scan-store.ts): none is left once a scan ended, and its chunk rows go
  // with it (ON DELETE CASCADE).
  'scan_store_attempts',
] as const;

/** Tables retention removes rows from (a scan's deletion adds `quota_usage` and the `scans` row). */
export type RetentionTable = (typeof PRUNED_SCAN_TABLES)[number] | 'quota_usage' | 'scans';

/** Rows removed (or, in a dry run, that would be), by table. */
export type RemovedRows = Partial<Record<RetentionTable, number>>;

/** Advisory lock key held by a retention run, so two workers never thin the store at once ("fleet-audit:retention"). */
export const RETENTION_LOCK_KEY = 7_461_824_009_113;

/** One `retention_removed` counter (see migration 1798900000000). */
export interface RetentionCounter {
  kind: string;
  removed: number;
  lastRunAt: Date;
}

/**
 * SQL of retention (table `scans` and the per-scan tables). Deletion is in bounded batches: each statement
 * deletes at most `batchRows` rows of one table in its own transaction, so it holds row locks on those rows only
 * (readers are never blocked: MVCC) and a crash leaves a partly pruned scan that the next run finishes.
 */
export class RetentionRepository {
  /**
   * @param pool the store's connection pool
   * @param partitions the tables partitioned per scan (scan-partition.util.ts): a scan's own partition of them is
   *   dropped whole instead of deleted row by row
   */
  constructor(
    private readonly pool: Pool,
    private readonly partitions?: ScanPartitions,
  ) {}

  /** Every scan with its start time and status, as the planner needs them. */
  async scans(): Promise<RetentionScan[]> {
    const { rows } = await this.pool.query<{ id: string; status: RetentionScan['status']; started_at: Date; pruned: boolean }>(
      'SELECT id, status, started_at, pruned_at IS NOT NULL AS pruned FROM scans',
    );
    return rows.map((r) => ({ id: r.id, status: r.status, startedAt: r.started_at.getTime(), pruned: r.pruned }));
  }

  /**
   * Rows each table holds for `scanIds` (what pruning, plus `quota_usage` and the scan rows when `withQuota`,
   * would remove): the dry run's figures.
   */
  async countRows(scanIds: readonly string[], withQuota: boolean): Promise<RemovedRows> {
    const out: RemovedRows = {};
    if (scanIds.length === 0) return out;
    const tables: RetentionTable[] = [...PRUNED_SCAN_TABLES, ...(withQuota ? (['quota_usage'] as const) : [])];
    for (const t of tables) {
      const { rows } = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${t} WHERE scan_id = ANY($1::uuid[])`, [scanIds]);
      const n = Number(rows[0]?.n ?? 0);
      if (n > 0) out[t] = n;
    }
    if (withQuota) out.scans = scanIds.length;
    return out;
  }

  /**
   * Delete the heavy rows of scan `scanId` (PRUNED_SCAN_TABLES) in batches of at most `batchRows` rows and mark it
   * pruned, with the policy it was pruned under (what readers of its findings are told). Refuses (returns null) a
   * running scan and the latest succeeded scan, whatever the plan said.
   * @param policy the retention policy of the run (stored as `scans.pruned_policy`); null: none recorded
   * @returns rows removed by table, or null when the scan was not pruned
   */
  async prune(scanId: string, batchRows: number, policy: PrunedPolicy | null = null): Promise<RemovedRows | null> {
    if (!(await this.removable(scanId))) return null;
    const removed = await this.deleteRows(scanId, PRUNED_SCAN_TABLES, batchRows);
    // Marked once its rows are gone: a run that crashed midway left it unmarked, and the next run finishes it.
    const stored = policy ? { rawHours: policy.rawHours, dailyDays: policy.dailyDays, weeklyWeeks: policy.weeklyWeeks, quotaDays: policy.quotaDays } : null;
    await this.pool.query('UPDATE scans SET pruned_at = now(), pruned_policy = $2::jsonb WHERE id = $1 AND pruned_at IS NULL', [scanId, stored === null ? null : JSON.stringify(stored)]);
    return removed;
  }

  /**
   * Delete scan `scanId` with every row it has, in batches of at most `batchRows` rows per statement; the scan row
   * goes last (the tables that keep a foreign key to it have nothing left to cascade to; the others have none).
   * Refuses (returns null) a running scan and the latest succeeded scan.
   * @returns rows removed by table, or null when the scan was not deleted
   */
  async delete(scanId: string, batchRows: number): Promise<RemovedRows | null> {
    if (!(await this.removable(scanId))) return null;
    const removed = await this.deleteRows(scanId, [...PRUNED_SCAN_TABLES, 'quota_usage'], batchRows);
    const res = await this.pool.query(`DELETE FROM scans WHERE id = $1 AND ${REMOVABLE}`, [scanId]);
    removed.scans = res.rowCount ?? 0;
    return removed;
  }

  /**
   * Plain VACUUM of `scans`, `quota_usage` and the per-scan tables: marks the space of removed rows reusable, as
   * autovacuum does on its own schedule (no lock that blocks reads or writes; the files do not shrink).
   */
  async vacuum(): Promise<void> {
    await this.pool.query(`VACUUM ${['scans', 'quota_usage', ...PRUNED_SCAN_TABLES].join(', ')}`);
  }

  /**
   * Drop the per-scan tables whose scan is gone (a removal that could not drop them at the time, a scan deleted by
   * hand: `ScanPartitions.removeOrphans`).
   * @returns the tables dropped
   */
  async removeOrphanPartitions(): Promise<string[]> {
    return (await this.partitions?.removeOrphans()) ?? [];
  }

  /** `pg_database_size` of the current database, bytes. */
  async databaseSize(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
    return Number(rows[0]?.n ?? 0);
  }

  /** Add a run's removals to the `retention_removed` counters (kinds with 0 too, so the run time moves). */
  async record(removed: Readonly<Record<string, number>>, at: Date): Promise<void> {
    const kinds = Object.keys(removed);
    if (kinds.length === 0) return;
    await this.pool.query(
      `INSERT INTO retention_removed (kind, removed, last_run_at)
       SELECT k, n, $3 FROM unnest($1::text[], $2::bigint[]) AS x(k, n)
       ON CONFLICT (kind) DO UPDATE SET removed = retention_removed.removed + EXCLUDED.removed, last_run_at = EXCLUDED.last_run_at`,
      [kinds, kinds.map((k) => removed[k] ?? 0), at],
    );
  }

  /** The `retention_removed` counters, by kind. */
  async counters(): Promise<RetentionCounter[]> {
    const { rows } = await this.pool.query<{ kind: string; removed: string; last_run_at: Date }>('SELECT kind, removed, last_run_at FROM retention_removed ORDER BY kind');
    return rows.map((r) => ({ kind: r.kind, removed: Number(r.removed), lastRunAt: r.last_run_at }));
  }

  /**
   * Run `fn` holding the retention advisory lock on a dedicated connection; `undefined` without running it when
   * another session holds the lock (another worker is running retention).
   */
  async withLock<T>(fn: () => Promise<T>): Promise<T | undefined> {
    const client: PoolClient = await this.pool.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [RETENTION_LOCK_KEY]);
      if (!rows[0]?.ok) return undefined;
      try {
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  }

  private async removable(scanId: string): Promise<boolean> {
    const { rows } = await this.pool.query(`SELECT 1 FROM scans WHERE id = $1 AND ${REMOVABLE}`, [scanId]);
    return rows.length > 0;
  }

  private async deleteRows(scanId: string, tables: readonly RetentionTable[], batchRows: number): Promise<RemovedRows> {
    const removed: RemovedRows = {};
    for (const t of tables) {
      // A table partitioned per scan: the scan's own partition is counted, detached and dropped whole (no row by row
      // delete, nothing left to VACUUM); the batches below then find only rows another partition holds (those stored
      // before migration 1800600000001), or all of them when the partition could not be removed now.
      let total = this.partitions && isPerScanTable(t) ? await this.partitions.removeCounted(scanId, t) : 0;
      for (;;) {
        // ctid batches: one bounded statement (and transaction) at a time, served by each table's (scan_id, ...) index.
        // The outer `scan_id` condition keeps a partitioned table's DELETE to the partition the ctids were read from (a
        // ctid names a row within one partition only).
        const res = await this.pool.query(`DELETE FROM ${t} WHERE scan_id = $1 AND ctid = ANY(ARRAY(SELECT ctid FROM ${t} WHERE scan_id = $1 LIMIT $2))`, [
          scanId,
          batchRows,
        ]);
        const n = res.rowCount ?? 0;
        total += n;
        if (n < batchRows) break;
      }
      if (total > 0) removed[t] = total;
    }
    return removed;
  }
}

/** A scan retention may touch: not running, not the latest succeeded one (checked again in SQL at removal). */
const REMOVABLE = `status <> 'running' AND id IS DISTINCT FROM (SELECT id FROM scans WHERE status = 'succeeded' ORDER BY started_at DESC, id DESC LIMIT 1)`;
