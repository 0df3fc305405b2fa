import type { Pool, PoolClient } from 'pg';
import type { QuotaUsageSample, ResourceKind } from '@app/domain';
import { chunk, MAX_BIND_PARAMETERS, toNumber, WhereBuilder } from './sql.util';
import { SYSTEM_PRINCIPAL, type Scoped } from './principal';
import { StoreError } from './store.exception';
import { resourceOfRow, type ResourceRow } from './resource-row.util';
import { teamRowCondition, type TeamRowColumns } from './team-scope.util';
import type { ColumnSpec } from './bulk-insert.util';

/**
 * The team rule of `quota_usage` rows (team-scope.util.ts) for row alias or table name `row`: a sample of a cluster is
 * its team's (the row's `team`); a quota of an account or region (resource kind `Account` / `Region`, e.g. an
 * account's CLB instances in a region) is visible to a team owning a cluster there, with the account's figures; any
 * other sample outside a cluster (a CLB no cluster claims, a vSwitch) to no team. Columns are qualified with `row`: the
 * rule's subqueries read graph_clusters, whose columns have the same names.
 */
export function quotaTeamColumns(row: string): TeamRowColumns {
  return {
    scan: `${row}.scan_id`,
    account: `${row}.account_id`,
    region: `${row}.region_id`,
    cluster: `${row}.cluster_id`,
    team: `${row}.team`,
    shared: `${row}.resource_kind IN ('Account', 'Region')`,
  };
}

/** `WHERE` of one scan's samples within the principal's accounts and teams. */
function scanSamplesWhere(scanId: string, scope: Scoped): WhereBuilder {
  const where = new WhereBuilder().equals('scan_id', scanId).inScope('account_id', { accountScope: scope.accountScope });
  if (scope.teamScope !== undefined) where.where(teamRowCondition(quotaTeamColumns('quota_usage'), scope, (v) => where.param(v)));
  return where;
}

/** Columns written per sample row, in VALUES order. */
const INSERT_COLUMNS = [
  'scan_id',
  'check_id',
  'account_id',
  'region_id',
  'cluster_id',
  'resource_kind',
  'resource_id',
  'used',
  '"limit"',
  'ratio',
  'team',
] as const;

/** The columns of `quota_usage` after `scan_id`, as the COPY path writes them (copy.util.ts). */
export const QUOTA_COPY_COLUMNS: ColumnSpec<QuotaUsageSample> = [
  ['check_id', 'text', (s) => s.checkId],
  ['account_id', 'text', (s) => s.resource.accountId],
  ['region_id', 'text', (s) => s.resource.regionId],
  ['cluster_id', 'text', (s) => s.resource.clusterId],
  ['resource_kind', 'text', (s) => s.resource.kind],
  ['resource_id', 'text', (s) => s.resource.id],
  ['used', 'numeric', (s) => s.used],
  ['"limit"', 'numeric', (s) => s.limit],
  ['ratio', 'numeric', (s) => s.ratio],
  ['team', 'text', (s) => s.resource.team],
];

/**
 * The key of a sample within a scan: the fields of the table's primary key after `scan_id`, in the order the analysis
 * emits samples (check, then resource kind, account, region and id: libs/checks `runAudit` sorts a check's results by
 * resource key), so that `dedupeRows` finds them in key order and has nothing to hash.
 */
export function quotaSampleKey(s: QuotaUsageSample): readonly string[] {
  return [s.checkId, s.resource.kind, s.resource.accountId, s.resource.regionId, s.resource.id];
}

/** Rows per INSERT: one statement binds at most 65535 parameters (11 per row: 5957 rows). */
export const QUOTA_ROWS_PER_INSERT = Math.floor(MAX_BIND_PARAMETERS / INSERT_COLUMNS.length);

/** A `quota_usage` row as `pg` returns it (numeric columns may arrive as strings). */
export interface QuotaUsageRow extends ResourceRow {
  check_id: string;
  used: string | number;
  limit: string | number;
  ratio: string | number;
}

/**
 * Quota usage samples of scans (table `quota_usage`). Writes happen only inside
 * `ScanRepository.complete` (COPY chunks through scan-store.ts, or `replaceForScan` in one transaction) and by the
 * shards of a sharded scan (`insertForScan`).
 */
export class QuotaUsageRepository {
  /** @param pool the store's connection pool */
  constructor(private readonly pool: Pool) {}

  /**
   * Replace a scan's samples (completing a scan again leaves exactly the second set). Duplicate
   * (check, account, region, kind, resource) keys keep the first sample.
   * @param client the transaction's client
   */
  async replaceForScan(client: PoolClient, scanId: string, samples: readonly QuotaUsageSample[]): Promise<void> {
    await client.query('DELETE FROM quota_usage WHERE scan_id = $1', [scanId]);
    await this.insertForScan(client, scanId, samples);
  }

  /**
   * Add samples to a scan (a sample of the same key already there is kept): `replaceForScan` without its
   * DELETE; a shard of a sharded analysis adds its samples with it (ScanShardRepository).
   * @param client the transaction's client
   */
  async insertForScan(client: PoolClient, scanId: string, samples: readonly QuotaUsageSample[]): Promise<void> {
    for (const rows of chunk(samples, QUOTA_ROWS_PER_INSERT)) {
      const params: unknown[] = [];
      const tuples = rows.map((s) => {
        const base = params.length;
        params.push(
          scanId,
          s.checkId,
          s.resource.accountId,
          s.resource.regionId,
          s.resource.clusterId ?? null,
          s.resource.kind,
          s.resource.id,
          s.used,
          s.limit,
          s.ratio,
          s.resource.team ?? null,
        );
        return `(${INSERT_COLUMNS.map((_, i) => `$${base + i + 1}`).join(', ')})`;
      });
      await client.query(
        `INSERT INTO quota_usage (${INSERT_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`,
        params,
      );
    }
  }

  /**
   * Per check of one scan: how many resources were measured and the highest usage ratio (one row per
   * check id, sorted by id). Computed in SQL, so a scrape of a large fleet does not load every sample.
   * @param scope the caller's principal: only samples of its accounts (and teams, quotaTeamColumns) are counted
   */
  async statsByCheck(scanId: string, scope: Scoped): Promise<{ checkId: string; resources: number; maxRatio: number }[]> {
    const where = scanSamplesWhere(scanId, scope);
    const { rows } = await this.pool.query<{ check_id: string; n: string | number; max_ratio: string | number }>(
      `SELECT check_id, count(*) AS n, max(ratio) AS max_ratio FROM quota_usage ${where.sql()}
        GROUP BY check_id ORDER BY check_id`,
      where.params,
    );
    return rows.map((r) => ({ checkId: r.check_id, resources: toNumber(r.n), maxRatio: toNumber(r.max_ratio) }));
  }

  /**
   * The samples of one scan, at or above `minRatio`, highest ratio first.
   * @param scope the caller's principal: only samples of its accounts (and teams: a team-scoped principal sees the
   *   samples of its teams' clusters and the account / region quotas they draw on, quotaTeamColumns)
   * @param minRatio fraction 0..1 (default 0: all)
   */
  async forScan(scanId: string, scope: Scoped, minRatio = 0): Promise<QuotaUsageSample[]> {
    const where = scanSamplesWhere(scanId, scope);
    where.where(`ratio >= ${where.param(minRatio)}`);
    const { rows } = await this.pool.query<QuotaUsageRow>(
      `SELECT check_id, account_id, region_id, cluster_id, team, resource_kind, resource_id, used, "limit", ratio
         FROM quota_usage ${where.sql()}
        ORDER BY ratio DESC, check_id, account_id, region_id, resource_id`,
      where.params,
    );
    return rows.map(quotaSampleOfRow);
  }

  /**
   * The samples of one scan with the highest use within `scope` (and `accounts` when given): the first `limit` of
   * them by ratio, and every other sample whose ratio equals the last one's, ordered as `forScan` orders. What a
   * report lists as the quotas closest to their limits (libs/reports REPORT_TOP_QUOTAS), read as a range of
   * quota_usage_scan_ratio_idx (scan_id, ratio) instead of every sample of the scan (a million rows at 5,000
   * clusters: 4.5 s of the weekly report's build).
   * @param limit count of samples, at least 1
   * @param accounts account ids to keep (a report's accounts); undefined keeps every account of the scope
   * @throws StoreError INVALID_ARGUMENT when `limit` is not a positive integer
   */
  async highestForScan(scanId: string, scope: Scoped, limit: number, accounts?: readonly string[]): Promise<QuotaUsageSample[]> {
    if (!Number.isInteger(limit) || limit < 1) throw new StoreError('INVALID_ARGUMENT', `limit must be a positive integer, not ${limit}`);
    const where = scanSamplesWhere(scanId, scope);
    if (accounts !== undefined) where.where(`account_id = ANY(${where.param(accounts)}::text[])`);
    const matching = where.sql();
    // The ratio of the limit-th sample; with fewer samples than that, every one of them.
    const { rows } = await this.pool.query<QuotaUsageRow>(
      `WITH cut AS (SELECT ratio FROM quota_usage ${matching} ORDER BY ratio DESC LIMIT 1 OFFSET ${where.param(limit - 1)})
       SELECT check_id, account_id, region_id, cluster_id, team, resource_kind, resource_id, used, "limit", ratio
         FROM quota_usage ${matching} AND (NOT EXISTS (SELECT 1 FROM cut) OR ratio >= (SELECT ratio FROM cut))
        ORDER BY ratio DESC, check_id, account_id, region_id, resource_id`,
      where.params,
    );
    return rows.map(quotaSampleOfRow);
  }

  /**
   * The history of the quotas that stand at or above `minRatio` in scan `latestScanId`: their samples in
   * every scan of `scanIds`, with the scan's start time (epoch ms), oldest first (report forecasts).
   * @param scope the quotas `scope` reads in `latestScanId` (default every one): a team's rendition of a report
   *   forecasts the quotas its clusters draw on
   */
  async historyOfHighest(
    latestScanId: string,
    scanIds: readonly string[],
    minRatio: number,
    scope: Scoped = SYSTEM_PRINCIPAL,
  ): Promise<(QuotaUsageSample & { at: number })[]> {
    const highest = scanSamplesWhere(latestScanId, scope);
    highest.where(`ratio >= ${highest.param(minRatio)}`);
    const { rows } = await this.pool.query<QuotaUsageRow & { started_at: Date | string }>(
      `SELECT q.check_id, q.account_id, q.region_id, q.cluster_id, q.resource_kind, q.resource_id, q.used, q."limit", q.ratio, s.started_at
         FROM quota_usage q JOIN scans s ON s.id = q.scan_id
        WHERE q.scan_id = ANY(${highest.param(scanIds)}::uuid[])
          AND (q.check_id, q.account_id, q.region_id, q.resource_kind, q.resource_id) IN (
              SELECT check_id, account_id, region_id, resource_kind, resource_id FROM quota_usage ${highest.sql()})
        ORDER BY s.started_at, q.check_id, q.account_id, q.region_id, q.resource_kind, q.resource_id`,
      highest.params,
    );
    return rows.map((r) => ({
      ...quotaSampleOfRow(r),
      at: (r.started_at instanceof Date ? r.started_at : new Date(r.started_at)).getTime(),
    }));
  }

  /**
   * The history of quota series over succeeded scans observed in `[since, until]` (the scans' start times:
   * `scan --now` backfills set them), grouped per series (check + account + region + kind + resource), the
   * samples in time order. Filters narrow the series (equality). Series sorted by key.
   * @param db where to read (default the pool; QuotaTrendRepository reads in its transaction's snapshot)
   */
  async history(query: QuotaHistoryQuery, db: Pool | PoolClient = this.pool): Promise<QuotaHistorySeries[]> {
    return (await this.historyWithClusterMix(query, db)).series;
  }

  /**
   * `history`, and how many of its series have samples in more than one cluster, or in a cluster and in none (a
   * trend refresh records that count: `QuotaTrendRepository`, `mixedClusterSeries`), from the same read.
   * @param db where to read (default the pool)
   */
  async historyWithClusterMix(query: QuotaHistoryQuery, db: Pool | PoolClient = this.pool): Promise<{ series: QuotaHistorySeries[]; mixedClusterSeries: number }> {
    const w = new WhereBuilder();
    const since = w.param(query.since);
    const until = w.param(query.until);
    const scans = `s.status = 'succeeded' AND s.started_at >= ${since} AND s.started_at <= ${until}`;
    // The window's scans named as `scan_id = ANY(...)` too: the primary key (scan_id, check_id, account_id, region_id,
    // ...) then serves a (check, account, region) series group as one index range per scan, the path a trend refresh
    // takes for every group (no index leads with check_id: migration 1800300000000).
    w.where(scans).where(`q.scan_id = ANY(ARRAY(SELECT s.id FROM scans s WHERE ${scans}))`);
    w.equals('q.check_id', query.checkId)
      .equals('q.account_id', query.accountId)
      .equals('q.region_id', query.regionId)
      .equals('q.cluster_id', query.clusterId)
      .equals('q.resource_kind', query.resourceKind);
    // One row per series, its samples as arrays in time order: a window of hourly scans holds hundreds of samples per
    // series, and a row (and a JS object, a Date and two numeric strings) per sample made the reading cost several
    // times the fits (bench:trend-refresh). The cluster is the latest sample's that names one, as a listing shows it.
    const { rows } = await db.query<{
      check_id: string;
      account_id: string;
      region_id: string;
      resource_kind: ResourceKind;
      resource_id: string;
      cluster_id: string | null;
      at: number[];
      used: number[];
      limits: number[];
      mixed: boolean;
    }>(
      `SELECT q.check_id, q.account_id, q.region_id, q.resource_kind, q.resource_id,
              (array_agg(q.cluster_id ORDER BY s.started_at DESC, s.id DESC) FILTER (WHERE q.cluster_id IS NOT NULL))[1] AS cluster_id,
              array_agg(floor(extract(epoch FROM s.started_at) * 1000)::float8 ORDER BY s.started_at, s.id) AS at,
              array_agg(q.used::float8 ORDER BY s.started_at, s.id) AS used,
              array_agg(q."limit"::float8 ORDER BY s.started_at, s.id) AS limits,
              (min(q.cluster_id) <> max(q.cluster_id) OR (count(q.cluster_id) > 0 AND count(q.cluster_id) < count(*))) AS mixed
         FROM quota_usage q JOIN scans s ON s.id = q.scan_id
        ${w.sql()}
        GROUP BY q.check_id, q.account_id, q.region_id, q.resource_kind, q.resource_id
        ORDER BY q.check_id, q.account_id, q.region_id, q.resource_kind, q.resource_id`,
      w.params,
    );
    const out: QuotaHistorySeries[] = new Array(rows.length);
    let mixedClusterSeries = 0;
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k]!;
      if (r.mixed) mixedClusterSeries += 1;
      const observations = new Array<{ at: number; used: number; limit: number }>(r.at.length);
      for (let i = 0; i < r.at.length; i++) observations[i] = { at: r.at[i]!, used: r.used[i]!, limit: r.limits[i]! };
      out[k] = {
        checkId: r.check_id,
        resource: { kind: r.resource_kind, id: r.resource_id, accountId: r.account_id, regionId: r.region_id, clusterId: r.cluster_id },
        observations,
      };
    }
    return { series: out, mixedClusterSeries };
  }
}

/** Filters of `QuotaUsageRepository.history` (times inclusive). */
export interface QuotaHistoryQuery {
  since: Date;
  until: Date;
  checkId?: string;
  accountId?: string;
  regionId?: string;
  clusterId?: string;
  resourceKind?: ResourceKind;
}

/** One quota series: its samples over succeeded scans (epoch ms of the scan start, counts). */
export interface QuotaHistorySeries {
  checkId: string;
  resource: { kind: ResourceKind; id: string; accountId: string; regionId: string; clusterId: string | null };
  observations: { at: number; used: number; limit: number }[];
}

/**
 * A `quota_usage` row as a sample (counts; ratio used/limit in 0..n); a NULL cluster becomes an absent clusterId.
 * The one row mapping of quota samples: the quota listings of the fleet graph (fleet-graph.repository.ts) use it too.
 */
export function quotaSampleOfRow(r: QuotaUsageRow): QuotaUsageSample {
  return {
    checkId: r.check_id,
    resource: resourceOfRow(r),
    used: toNumber(r.used),
    limit: toNumber(r.limit),
    ratio: toNumber(r.ratio),
  };
}
