import type { Pool } from 'pg';
import type { ResourceRef, Severity } from '@app/domain';
import { decodeCursor, encodeCursor } from './keyset-cursor.util';
import { isUuid } from './page.util';
import { scopeCondition, teamCondition, type Scoped } from './principal';
import { toNumber } from './sql.util';
import { StoreError } from './store.exception';
import { resourceOfRow, type ResourceRow } from './resource-row.util';
import { ColumnProbe } from './schema-probe.util';

/**
 * How a fingerprint changed between a baseline scan (`against`) and a scan. Exclusive: `new` (only in the
 * scan), `resolved` (only in the baseline), `severityChanged` (in both, another severity), `persisting`
 * (in both, same severity). Fingerprints are stable across scans (libs/checks fingerprint.util.ts), so
 * they are the identity the diff joins on.
 */
export type FindingChange = 'new' | 'resolved' | 'persisting' | 'severityChanged';

/** Every change kind, in the order they are counted. */
export const FINDING_CHANGES: readonly FindingChange[] = ['new', 'resolved', 'persisting', 'severityChanged'];

/** One fingerprint of a diff. */
export interface ScanDiffItem {
  fingerprint: string;
  change: FindingChange;
  checkId: string;
  /** Severity in the scan; null when resolved. */
  severity: Severity | null;
  /** Severity in the baseline; null when new. */
  previousSeverity: Severity | null;
  /** The resource (as in the scan; as in the baseline when resolved). */
  resource: ResourceRef;
  /** The finding's message (as in the scan; as in the baseline when resolved). */
  message: string;
}

/** Filters and keyset paging of a diff. */
export interface ScanDiffQuery {
  /** The scan compared (either order: see ScanDiffRepository). */
  scanId: string;
  /** The baseline it is compared against (may be newer than `scanId`). */
  againstScanId: string;
  /** Only items of this change kind (counts are not narrowed by it). */
  change?: FindingChange;
  checkId?: string;
  accountId?: string;
  clusterId?: string;
  /** Page size, 1..1000. */
  limit: number;
  /** Opaque cursor (`nextCursor` of the previous page): items after it in fingerprint order. */
  after?: string;
}

/** A page of a diff with its counts (over the whole diff within the scope and filters). */
export interface ScanDiffPage {
  counts: Record<FindingChange, number>;
  items: ScanDiffItem[];
  /** Cursor of the next page; null on the last page. */
  nextCursor: string | null;
}

interface DiffRow extends ResourceRow {
  fingerprint: string;
  change: FindingChange;
  check_id: string;
  severity: Severity | null;
  previous_severity: Severity | null;
  namespace: string | null;
  name: string | null;
  message: string;
}

/** Largest page (items). */
export const MAX_DIFF_PAGE = 1000;

/**
 * The difference between the findings of two scans by fingerprint (REST `/v1/scans/{id}/diff`, GraphQL
 * `scanDiff`), computed in SQL: a FULL OUTER JOIN of the two scans' findings on `fingerprint`, each side
 * restricted to the caller's accounts and the filters first, so counts are computed over the scope (never
 * filtered afterwards) and a page is an index range of `findings (scan_id, fingerprint)` on both sides.
 *
 * Semantics (the same for REST and GraphQL): the diff says how `scanId` differs from the
 * baseline `againstScanId`, by set membership, whichever of the two ran first: `new` = in `scanId`, not in
 * `against`; `resolved` = in `against`, not in `scanId`; `persisting` / `severityChanged` = in both (severity of
 * `scanId` vs `previousSeverity` of `against`). With `against` newer than `scanId` the diff simply runs backward
 * in time (what the later scan's `resolved` would call `new`); swapping the two ids swaps `new` and `resolved`.
 * Both scans must have succeeded (a running or failed scan's findings are incomplete: CONFLICT naming it) and be
 * of one fleet (scans whose fleet names differ are refused, naming both ids and fleets; a scan without a fleet
 * name, started through the API without one, is compared as given).
 */
export class ScanDiffRepository {
  /** Whether `findings.cluster_name` exists (migration 1798500000000; read as NULL before it). */
  private readonly clusterNameColumn: ColumnProbe;

  /** @param pool the store's connection pool */
  constructor(private readonly pool: Pool) {
    this.clusterNameColumn = new ColumnProbe(pool, 'findings', 'cluster_name');
  }

  /**
   * One page of the diff, in fingerprint order, with the counts of every change kind.
   * @param scope the caller: only findings of its accounts (and teams), on both sides
   * @throws StoreError NOT_FOUND when either scan does not exist; CONFLICT when either has not succeeded;
   *   INVALID_ARGUMENT for scans of different fleets, a bad limit or cursor
   */
  async diff(query: ScanDiffQuery, scope: Scoped): Promise<ScanDiffPage> {
    if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_DIFF_PAGE) {
      throw new StoreError('INVALID_ARGUMENT', `limit must be an integer from 1 to ${MAX_DIFF_PAGE}, got ${query.limit}`);
    }
    const after = query.after === undefined ? undefined : decodeCursor(query.after, 1)[0];
    if (after !== undefined && typeof after !== 'string') throw new StoreError('INVALID_ARGUMENT', 'cursor is malformed (use nextCursor of this listing)');
    await this.checkComparable(query.scanId, query.againstScanId);
    const counts = await this.counts(query, scope);
    const params: unknown[] = [];
    const p = (v: unknown) => `$${params.push(v)}`;
    const sides = this.sides(query, scope, p, after, await this.clusterNameColumn.exists());
    const change = query.change === undefined ? '' : `WHERE change = ${p(query.change)}`;
    const { rows } = await this.pool.query<DiffRow>(
      `${sides}
       SELECT * FROM (
         SELECT COALESCE(a.fingerprint, b.fingerprint) AS fingerprint, ${CHANGE_SQL} AS change,
                COALESCE(a.check_id, b.check_id) AS check_id, a.severity, b.severity AS previous_severity,
                COALESCE(a.account_id, b.account_id) AS account_id, COALESCE(a.region_id, b.region_id) AS region_id,
                CASE WHEN a.fingerprint IS NULL THEN b.cluster_id ELSE a.cluster_id END AS cluster_id,
                CASE WHEN a.fingerprint IS NULL THEN b.cluster_name ELSE a.cluster_name END AS cluster_name,
                COALESCE(a.resource_kind, b.resource_kind) AS resource_kind, COALESCE(a.resource_id, b.resource_id) AS resource_id,
                CASE WHEN a.fingerprint IS NULL THEN b.namespace ELSE a.namespace END AS namespace,
                CASE WHEN a.fingerprint IS NULL THEN b.name ELSE a.name END AS name,
                COALESCE(a.message, b.message) AS message
           FROM a FULL OUTER JOIN b ON a.fingerprint = b.fingerprint) d
       ${change}
       ORDER BY fingerprint LIMIT ${p(query.limit + 1)}`,
      params,
    );
    const more = rows.length > query.limit;
    const kept = more ? rows.slice(0, query.limit) : rows;
    return { counts, items: kept.map(toItem), nextCursor: more ? encodeCursor([kept[kept.length - 1].fingerprint]) : null };
  }

  /**
   * Both scans exist, succeeded and are of one fleet (see the class comment for why).
   * @throws StoreError NOT_FOUND naming the missing scan; CONFLICT naming a scan that has not succeeded;
   *   INVALID_ARGUMENT naming both scans and fleets when their fleets differ
   */
  private async checkComparable(scanId: string, againstScanId: string): Promise<void> {
    const ids = [scanId, againstScanId];
    const { rows } = await this.pool.query<{ id: string; status: string; fleet_name: string | null }>(
      'SELECT id, status, fleet_name FROM scans WHERE id = ANY($1::uuid[])',
      [ids.filter(isUuid)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    // A missing scan is reported before one that has not succeeded, whichever side each is on.
    for (const id of ids) if (!byId.has(id)) throw new StoreError('NOT_FOUND', `scan ${id} not found`);
    for (const id of ids) {
      const scan = byId.get(id)!;
      if (scan.status !== 'succeeded') {
        throw new StoreError('CONFLICT', `scan ${id} is ${scan.status}: only succeeded scans have a complete set of findings to diff (${scanId} against ${againstScanId})`);
      }
    }
    const a = byId.get(scanId)!.fleet_name;
    const b = byId.get(againstScanId)!.fleet_name;
    if (a !== null && b !== null && a !== b) {
      throw new StoreError('INVALID_ARGUMENT', `scans ${scanId} (fleet "${a}") and ${againstScanId} (fleet "${b}") are of different fleets: a diff compares two scans of one fleet`);
    }
  }

  /** Counts per change kind over the scope and filters (one aggregate statement). */
  private async counts(query: ScanDiffQuery, scope: Scoped): Promise<Record<FindingChange, number>> {
    const params: unknown[] = [];
    const sides = this.sides(query, scope, (v) => `$${params.push(v)}`, undefined, false);
    const { rows } = await this.pool.query<{ change: FindingChange; n: string | number }>(
      `${sides} SELECT ${CHANGE_SQL} AS change, count(*) AS n FROM a FULL OUTER JOIN b ON a.fingerprint = b.fingerprint GROUP BY 1`,
      params,
    );
    const counts: Record<FindingChange, number> = { new: 0, resolved: 0, persisting: 0, severityChanged: 0 };
    for (const r of rows) counts[r.change] = toNumber(r.n);
    return counts;
  }

  /**
   * The `WITH a AS (scan), b AS (baseline)` clause: each side's findings in scope, filtered, after the cursor;
   * `clusterName`: the schema has `findings.cluster_name` (NULL is read otherwise).
   */
  private sides(query: ScanDiffQuery, scope: Scoped, p: (v: unknown) => string, after: string | undefined, clusterName: boolean): string {
    const side = (scanId: string) => {
      // A team-scoped principal: the findings of its teams on each side (each finding's team as its scan stored it).
      const where = [`scan_id = ${p(scanId)}`, scopeCondition('account_id', scope, p), teamCondition('team', scope, p)];
      if (query.checkId !== undefined) where.push(`check_id = ${p(query.checkId)}`);
      if (query.accountId !== undefined) where.push(`account_id = ${p(query.accountId)}`);
      if (query.clusterId !== undefined) where.push(`cluster_id = ${p(query.clusterId)}`);
      if (after !== undefined) where.push(`fingerprint > ${p(after)}`);
      return `SELECT fingerprint, check_id, severity, account_id, region_id, cluster_id, ${clusterName ? 'cluster_name' : 'NULL::text AS cluster_name'}, resource_kind, resource_id, namespace, name, message
                FROM findings WHERE ${where.join(' AND ')}`;
    };
    return `WITH a AS (${side(query.scanId)}), b AS (${side(query.againstScanId)})`;
  }
}

/** The change kind of a joined row (a: the scan, b: the baseline). */
const CHANGE_SQL = `CASE WHEN b.fingerprint IS NULL THEN 'new' WHEN a.fingerprint IS NULL THEN 'resolved'
  WHEN a.severity <> b.severity THEN 'severityChanged' ELSE 'persisting' END`;

function toItem(r: DiffRow): ScanDiffItem {
  return {
    fingerprint: r.fingerprint,
    change: r.change,
    checkId: r.check_id,
    severity: r.severity,
    previousSeverity: r.previous_severity,
    resource: resourceOfRow(r),
    message: r.message,
  };
}
