import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { LRUCache } from 'lru-cache';
import { CHECKS } from '@app/checks';
import type { Figures, Finding, ResourceRef, Severity } from '@app/domain';
import { chunk, MAX_BIND_PARAMETERS, storableJson, storableText, toIso, toNumber, toOptionalNumber, WhereBuilder } from './sql.util';
import { StoreError } from './store.exception';
import { ScanPrunedError, type PrunedPolicy } from './scan-pruned.error';

/**
 * `pruned_at` and `pruned_policy` of a `scans` row (its alias, or the table's name), the policy as NULL where the
 * database was migrated before 1799600000001 (no such column). Named, not read through `to_jsonb` of the row: that
 * converted the whole row, its coverage and skipped results included (megabytes at 5,000 clusters), on every read
 * of findings (9-20 ms of the 15-42 ms of a GraphQL findings page at 1,000 clusters).
 * @param hasPolicy whether `scans.pruned_policy` exists
 */
function prunedColumns(hasPolicy: boolean): string {
  return hasPolicy ? 'pruned_at, pruned_policy' : 'pruned_at, NULL::jsonb AS pruned_policy';
}
import type { FindingPage, FindingQuery, StoredFinding } from './store.types';
import { isUuid, resolvePage } from './page.util';
import { decodeCursor, encodeCursor, keysetAfter, keysetOrderBy, type KeysetColumn } from './keyset-cursor.util';
import { SYSTEM_PRINCIPAL, type Scoped } from './principal';
import { pagingSql, toPage, type GraphPage, type GraphPageArgs } from './keyset-page.util';
import { scopeCacheKey, type ReadGeneration } from './read-generation';
import { resourceOfRow, type ResourceRow } from './resource-row.util';
import { ColumnProbe } from './schema-probe.util';
import type { ColumnSpec } from './bulk-insert.util';

/**
 * Most findings the page cache of `list` holds (sum over cached pages; least recently used pages are dropped
 * first). A cached finding is about 1-2 KB of heap, so the default bounds the cache to a few tens of MB.
 */
export const FINDING_PAGE_CACHE_MAX_FINDINGS = 20_000;

/** What `list` computes per page request, passed through the page cache's fetch. */
interface ListFetchContext {
  run: () => Promise<{ page: FindingPage; cacheable: boolean }>;
  /** The answer of this request's own run when it must not be cached (a scan not succeeded). */
  uncached?: FindingPage;
}

/** Columns written per finding row, in VALUES order. */
const INSERT_COLUMNS = [
  'scan_id',
  'fingerprint',
  'check_id',
  'severity',
  'account_id',
  'region_id',
  'cluster_id',
  'resource_kind',
  'resource_id',
  'namespace',
  'name',
  'message',
  'remediation',
  'source',
  'used',
  '"limit"',
  'ratio',
  'figures',
  'cluster_name',
  'team',
  'texts_id',
] as const;

/**
 * Rows per INSERT: each row binds one parameter per column, and one statement may bind at most
 * 65535 parameters (see MAX_BIND_PARAMETERS), so 21 columns allow 3120 rows per statement.
 */
export const FINDING_ROWS_PER_INSERT = Math.floor(MAX_BIND_PARAMETERS / INSERT_COLUMNS.length);

/** The finding columns as read, with the fingerprint's first / last sighting. */
interface FindingRow extends ResourceRow {
  fingerprint: string;
  check_id: string;
  severity: Severity;
  namespace: string | null;
  name: string | null;
  message: string;
  remediation: string;
  source: string;
  used: string | number | null;
  limit: string | number | null;
  ratio: string | number | null;
  figures: Figures | null;
  first_seen_at: Date | string;
  last_seen_at: Date | string;
  /** 0 info, 1 warning, 2 critical (generated column; the listing's first sort key). */
  severity_rank: number;
}

/**
 * The finding columns as read. `clusterName`: whether the schema has `findings.cluster_name` (migration
 * 1798500000000); `team`: whether it has `findings.team` (migration 1799500000000); without them the columns read
 * as NULL. `texts`: whether it has `findings.texts_id` (migration 1800300000001): a finding's remediation and source
 * are then its own columns, or where those are NULL the `finding_texts` row it names (alias `fxt`: the listing's
 * outer query calls its scan `t`). `from` is the row source aliased `f`: the table, or a page of it
 * (`pageOfFindings`).
 */
const selectFinding = (clusterName: boolean, team: boolean, texts: boolean, from = 'findings f') => `
  SELECT f.fingerprint, f.check_id, f.severity, f.account_id, f.region_id, f.cluster_id,
         ${clusterName ? 'f.cluster_name' : 'NULL::text AS cluster_name'}, ${team ? 'f.team' : 'NULL::text AS team'},
         f.resource_kind, f.resource_id, f.namespace, f.name, f.message,
         ${texts ? 'COALESCE(f.remediation, fxt.remediation) AS remediation, COALESCE(f.source, fxt.source) AS source' : 'f.remediation, f.source'},
         f.used, f."limit", f.ratio, f.figures, ff.first_seen_at, ff.last_seen_at, f.severity_rank
    FROM ${from}
    JOIN finding_fingerprints ff ON ff.fingerprint = f.fingerprint${texts ? '\n    LEFT JOIN finding_texts fxt ON fxt.id = f.texts_id' : ''}`;

/**
 * The listing order: most severe first, then check id, then fingerprint (unique within a scan, so
 * the order is total and stable for paging). The rank is negated so every column ascends: the
 * keyset condition is then one row comparison, served as a range scan by findings_scan_keyset_idx
 * `(scan_id, (-severity_rank), check_id, fingerprint)` (migration 1797000000000).
 */
const FINDING_ORDER: KeysetColumn[] = [
  { expr: '-f.severity_rank', dir: 'asc' },
  { expr: 'f.check_id', dir: 'asc' },
  { expr: 'f.fingerprint', dir: 'asc' },
];
const ORDER_FINDINGS = keysetOrderBy(FINDING_ORDER);

/**
 * The row source of one page of findings, aliased `f`: the rows of `findings f` matching `where`, in `order`, cut by
 * `limit` (and `offset`) BEFORE the sightings and shared texts are joined. Joined first, PostgreSQL could hash-join
 * `finding_texts` (a few dozen rows) and so lose the index order, reading and sorting every finding that matches
 * instead of the page's rows: one account's findings of one check, a cursor deep, at 5,000 clusters read 7,641 rows
 * for a page of 51 (401 ms under load; 81-98 ms alone). The caller orders the joined rows again by `order`.
 * @param where the `WHERE ...` clause over alias `f`
 * @param order the `ORDER BY ...` clause over alias `f`
 * @param limitOffset `LIMIT $n` and an optional `OFFSET $m`
 */
function pageOfFindings(where: string, order: string, limitOffset: string): string {
  return `(SELECT f.* FROM findings f ${where} ${order} ${limitOffset}) f`;
}

/**
 * The keyset condition "after `cursor`" (or before it, `dir` 'desc') in the listing order (FINDING_ORDER) for a listing
 * filtered to one check, `checkId`. With the check fixed by the filter, `(-rank, check_id, fingerprint) > (r, c, f)`
 * is `(-rank, fingerprint) > (r, f)` when the cursor's check `c` is the filter's, `-rank >= r` when `c` sorts
 * before it and `-rank > r` when after it (mirrored for 'desc'). So written it is a range of
 * findings_scan_check_keyset_idx (scan_id, check_id, -severity_rank, fingerprint, migration 1800400000001) after
 * its prefix, where the generic row comparison made PostgreSQL walk findings_scan_keyset_idx from the cursor on,
 * through the findings of every other check (a page of one account's findings of one check at 5,000 clusters:
 * 81-98 ms). Check ids are ASCII, so JavaScript's order of them is the column's.
 * @param cursor the cursor's values: negated rank, check id, fingerprint
 * @param param adds a bind parameter, returns its placeholder
 */
export function checkKeysetCondition(
  checkId: string,
  cursor: readonly [number, string, string],
  dir: 'asc' | 'desc',
  param: (v: unknown) => string,
): string {
  const [rank, check, fingerprint] = cursor;
  const after = dir === 'asc';
  if (check === checkId) return `((-f.severity_rank, f.fingerprint) ${after ? '>' : '<'} (${param(rank)}, ${param(fingerprint)}))`;
  // The filter's check sorts after the cursor's: in ascending order its rows of rank r come after the cursor.
  const sameRankQualifies = after === checkId > check;
  return `(-f.severity_rank ${after ? '>' : '<'}${sameRankQualifies ? '=' : ''} ${param(rank)})`;
}

/** A findings cursor: the scan it pages, then the sort key of the last row read. */
type FindingCursor = [scanId: string, negRank: number, checkId: string, fingerprint: string];

/**
 * The filters a findings cursor was made for (checkId, severity, accountId, clusterId), as a short tag carried in the
 * cursor: a cursor followed with other filters would page a different listing from a position in this one (rows
 * skipped or repeated without any error), so `list` refuses it. 16 hex characters of a sha256.
 */
function filterTag(q: Pick<FindingQuery, 'checkId' | 'severity' | 'accountId' | 'clusterId' | 'team'>): string {
  // The team only when given: cursors of listings without it keep their tag.
  return createHash('sha256')
    .update(JSON.stringify([q.checkId ?? null, q.severity ?? null, q.accountId ?? null, q.clusterId ?? null, ...(q.team !== undefined ? [q.team] : [])]))
    .digest('hex')
    .slice(0, 16);
}

/** The filters of a query for an error message: `checkId=X, severity=Y` or `no filters`. */
function describeFilters(q: Pick<FindingQuery, 'checkId' | 'severity' | 'accountId' | 'clusterId' | 'team'>): string {
  const parts = (['checkId', 'severity', 'accountId', 'clusterId', 'team'] as const).filter((k) => q[k] !== undefined).map((k) => `${k}=${q[k]}`);
  return parts.length ? parts.join(', ') : 'no filters';
}

/**
 * Findings of scans: paged, filtered reads for the API and full reads for reports. Writes happen
 * only by `ScanRepository.complete` (COPY chunks through scan-store.ts, or `replaceForScan` in one transaction) and by
 * the shards of a sharded scan (`insertForScan`).
 */
export class FindingRepository {
  /**
   * Pages of `list` of succeeded scans, keyed by (findings generation, scan, filters, paging, scope). See `list`.
   * lru-cache's `fetch` also makes concurrent misses of one key share one query.
   */
  private readonly pages: LRUCache<string, FindingPage, ListFetchContext>;

  /**
   * @param pool the store's connection pool
   * @param latestSucceededScanId resolves the default scan of `list`
   * @param pageCacheMaxFindings bound of the page cache of `list`, in findings (0 disables it)
   */
  constructor(
    private readonly pool: Pool,
    private readonly latestSucceededScanId: () => Promise<string | null>,
    pageCacheMaxFindings: number = FINDING_PAGE_CACHE_MAX_FINDINGS,
  ) {
    this.pages = new LRUCache<string, FindingPage, ListFetchContext>({
      maxSize: Math.max(1, pageCacheMaxFindings),
      sizeCalculation: (p) => p.items.length + 1,
      fetchMethod: async (_key, _stale, { context }) => {
        const { page, cacheable } = await context.run();
        if (cacheable) return page;
        context.uncached = page;
        return undefined;
      },
    });
    this.pageCacheEnabled = pageCacheMaxFindings > 0;
    this.clusterNameColumn = new ColumnProbe(pool, 'findings', 'cluster_name');
    this.teamColumn = new ColumnProbe(pool, 'findings', 'team');
    this.textsColumn = new ColumnProbe(pool, 'findings', 'texts_id');
    this.prunedPolicyColumn = new ColumnProbe(pool, 'scans', 'pruned_policy');
  }

  /** Whether `findings.cluster_name` exists (a database migrated before 1798500000000 has none: read NULL, write none). */
  private readonly clusterNameColumn: ColumnProbe;
  /** Whether `findings.team` exists (migration 1799500000000; before it: read NULL, write none, no team matches). */
  private readonly teamColumn: ColumnProbe;
  /**
   * Whether `findings.texts_id` exists (migration 1800300000001; before it: every row holds its remediation and
   * source, and is written so).
   */
  private readonly textsColumn: ColumnProbe;
  /** Whether `scans.pruned_policy` exists (migration 1799600000001; before it a pruned scan names no policy). */
  private readonly prunedPolicyColumn: ColumnProbe;
  /**
   * The registry's `finding_texts` rows once every one was there before the transaction that read them (committed:
   * rows are never deleted), so later writes of this database need no statement for them.
   */
  private committedTexts: CheckTexts | undefined;

  /** The registry's `finding_texts` rows (checkTexts), from `committedTexts` once they are known committed. */
  private async checkTexts(client: PoolClient): Promise<CheckTexts> {
    if (this.committedTexts) return this.committedTexts;
    const { texts, written } = await checkTexts(client);
    if (!written && texts.size === CHECKS.length) this.committedTexts = texts;
    return texts;
  }

  /** The SELECT of finding rows for this database's schema. */
  private async selectFindingSql(from?: string): Promise<string> {
    return selectFinding(await this.clusterNameColumn.exists(), await this.teamColumn.exists(), await this.textsColumn.exists(), from);
  }

  /** The team column expression of alias `f` (`NULL::text` before migration 1799500000000: no team matches). */
  private async teamExpr(): Promise<string> {
    return (await this.teamColumn.exists()) ? 'f.team' : 'NULL::text';
  }

  private readonly pageCacheEnabled: boolean;

  /**
   * One page of findings of one scan, filtered, most severe first, in ONE SQL statement: the scan
   * (given, or the latest succeeded one), the page, and on the first page the count. The latest succeeded scan is the
   * generation's (`generation.latestSucceededScanId`); without a generation one statement more reads it.
   *
   * Paging is keyset ("seek"): `nextCursor` holds the scan id and the sort key of the page's last
   * row; the next page is the rows after it in findings_scan_keyset_idx order, so a page costs its
   * own rows (not the rows before it) and paging is stable while other scans are stored (the cursor
   * keeps its scan, even when the default "latest succeeded scan" moves on). `offset` still works
   * (it reads and skips the rows before it; deprecated) but not together with a cursor.
   *
   * `total` is counted only without a cursor (the first page, or offset paging): it is the one part
   * whose cost grows with the scan's size, and a client that follows cursors already has it.
   * @param query `scanId` defaults to the latest succeeded scan (or the cursor's scan); `limit`
   *   1..1000 (default 100); `cursor` a `nextCursor` of an earlier page with the same filters
   * @param scope the caller's principal: only findings of its accounts are listed and counted (in SQL)
   * @param generation the request's ReadGeneration (`Store.generations.current()`, read by this request before
   *   calling): with it, pages of SUCCEEDED scans are cached in memory under (findings generation, scan or
   *   "latest", filters, limit, offset, cursor, the scope's exact account set), so repeated pages and counts
   *   cost no SQL. A stored page never changes under one generation: a scan's findings, their sightings and the
   *   latest succeeded scan change only in transactions that bump it. Pages of running / failed scans are never
   *   cached. Without it, nothing is cached.
   * @returns the page, `total` (null with a cursor), the scan read (null: no succeeded scan yet)
   *   and `nextCursor` (null on the last page). Cached pages are shared: callers must not mutate them.
   * @throws StoreError NOT_FOUND when `scanId` names no scan; INVALID_ARGUMENT for bad paging, a
   *   malformed cursor, a cursor with an offset, or a cursor of another scan than `scanId`
   */
  async list(query: FindingQuery, scope: Scoped, generation?: ReadGeneration): Promise<FindingPage> {
    if (!generation || !this.pageCacheEnabled) return (await this.listUncached(query, scope, generation)).page;
    const key = JSON.stringify([
      generation.findings,
      query.scanId?.toLowerCase() ?? null,
      query.checkId ?? null,
      query.severity ?? null,
      query.accountId ?? null,
      query.clusterId ?? null,
      query.limit ?? null,
      query.offset ?? null,
      query.cursor ?? null,
      scopeCacheKey(scope),
      query.team ?? null,
      scope.teamScope ?? null,
    ]);
    const context: ListFetchContext = { run: () => this.listUncached(query, scope, generation) };
    const cached = await this.pages.fetch(key, { context });
    if (cached) return cached;
    // Not cacheable: this request's own answer, or (it joined another request's uncacheable fetch) a fresh read.
    return context.uncached ?? (await this.listUncached(query, scope, generation)).page;
  }

  /**
   * `list` without the cache; `cacheable`: the page is of a succeeded scan. The scan is named by a bind parameter in
   * the page's statement (its id, the cursor's, or the latest succeeded one: the generation's, else one statement more
   * asks for it), so PostgreSQL plans and locks that scan's partition of `findings` only (migration 1800800000000:
   * partitions are pruned at plan time for parameters, not for a value a subquery reads).
   */
  private async listUncached(query: FindingQuery, scope: Scoped, generation?: ReadGeneration): Promise<{ page: FindingPage; cacheable: boolean }> {
    const { limit, offset } = resolvePage(query);
    let cursor: FindingCursor | undefined;
    if (query.cursor !== undefined) {
      if (offset !== 0) throw new StoreError('INVALID_ARGUMENT', 'cursor and offset cannot be combined (a cursor already says where the page starts)');
      const [scanId, negRank, checkId, fingerprint, filters] = decodeCursor(query.cursor, 5);
      if (typeof scanId !== 'string' || !isUuid(scanId) || typeof negRank !== 'number' || typeof checkId !== 'string' || typeof fingerprint !== 'string')
        throw new StoreError('INVALID_ARGUMENT', `cursor "${query.cursor.slice(0, 40)}" is malformed (use a cursor returned by this listing)`);
      if (filters !== filterTag(query))
        throw new StoreError(
          'INVALID_ARGUMENT',
          `cursor was returned for other filters than ${describeFilters(query)}: send the first page's checkId, severity, accountId and clusterId with it, or start again without a cursor`,
        );
      if (query.scanId !== undefined && query.scanId.toLowerCase() !== scanId.toLowerCase())
        throw new StoreError('INVALID_ARGUMENT', `cursor belongs to scan ${scanId}, not to scanId ${query.scanId}`);
      cursor = [scanId, negRank, checkId, fingerprint];
    }
    const named = cursor?.[0] ?? query.scanId;
    if (named !== undefined && !isUuid(named)) throw new StoreError('NOT_FOUND', `scan ${named} not found`);
    const scanId = named ?? (generation ? generation.latestSucceededScanId : await this.latestSucceededScanId());
    if (scanId === null) return { page: { items: [], total: 0, scanId: null, nextCursor: null }, cacheable: false };

    const where = new WhereBuilder();
    const pruned = prunedColumns(await this.prunedPolicyColumn.exists());
    const scanParam = where.param(scanId);
    const target = `SELECT id, status, ${pruned} FROM scans WHERE id = ${scanParam}`;
    filterFindings(where.where(`f.scan_id = ${scanParam}`), query, scope, await this.teamExpr());
    const filters = where.sql();
    if (cursor) {
      const values = cursor.slice(1) as [number, string, string];
      const param = (v: unknown) => where.param(v);
      where.where(query.checkId !== undefined ? checkKeysetCondition(query.checkId, values, 'asc', param) : keysetAfter(FINDING_ORDER, values, param));
    }
    const total = cursor ? 'NULL::bigint' : `(SELECT count(*) FROM findings f ${filters})`;
    // One more row than asked: whether a next page exists, without a count.
    const limitOffset = `LIMIT ${where.param(limit + 1)}${offset > 0 ? ` OFFSET ${where.param(offset)}` : ''}`;
    const pageSql = `${await this.selectFindingSql(pageOfFindings(where.sql(), ORDER_FINDINGS, limitOffset))} ${ORDER_FINDINGS}`;
    const rows = await this.pool.query<
      FindingRow & { page_scan_id: string; page_scan_status: string; page_total: string | number | null; page_scan_pruned_at: Date | string | null; page_scan_pruned_policy: PrunedPolicy | null }
    >(
      // The count is taken once, in the materialised CTE: as a scalar subquery of the outer select it
      // ran once per page row (101 counts of the whole scan per page: 3.4 s at 100,000 findings, bench:api).
      `WITH t AS MATERIALIZED (SELECT t.id, t.status, t.pruned_at, t.pruned_policy, ${total} AS total FROM (${target}) t)
       SELECT t.id AS page_scan_id, t.status AS page_scan_status, t.total AS page_total,
              t.pruned_at AS page_scan_pruned_at, t.pruned_policy AS page_scan_pruned_policy, p.*
         FROM t LEFT JOIN LATERAL (${pageSql}) p ON true
        ORDER BY -p.severity_rank, p.check_id, p.fingerprint`,
      where.params,
    );
    const head = rows.rows[0];
    if (!head) {
      if (named !== undefined) throw new StoreError('NOT_FOUND', `scan ${named} not found`);
      // The latest succeeded scan was deleted since it was read.
      return { page: { items: [], total: 0, scanId: null, nextCursor: null }, cacheable: false };
    }
    if (head.page_scan_pruned_at !== null) throw new ScanPrunedError(head.page_scan_id, toIso(head.page_scan_pruned_at), head.page_scan_pruned_policy);
    const found = rows.rows.filter((r) => r.fingerprint !== null);
    const items = found.slice(0, limit);
    const last = items.at(-1);
    const page: FindingPage = {
      items: items.map(toStoredFinding),
      total: head.page_total === null ? null : toNumber(head.page_total),
      scanId: head.page_scan_id,
      nextCursor:
        found.length > limit && last
          ? encodeCursor([head.page_scan_id, -last.severity_rank, last.check_id, last.fingerprint, filterTag(query)])
          : null,
    };
    return { page, cacheable: head.page_scan_status === 'succeeded' };
  }

  /**
   * Every finding of one scan, most severe first (reports, week-over-week diffs). Unpaged: the
   * caller holds the whole scan in memory anyway.
   * @param scope the caller's principal (`SYSTEM_PRINCIPAL` for in-process jobs)
   * @throws StoreError NOT_FOUND when the scan does not exist
   */
  async forScan(scanId: string, scope: Scoped): Promise<StoredFinding[]> {
    await this.assertScanReadable(scanId);
    const where = new WhereBuilder().equals('f.scan_id', scanId).inScope('f.account_id', scope, await this.teamExpr());
    const rows = await this.pool.query<FindingRow>(`${await this.selectFindingSql()} ${where.sql()} ${ORDER_FINDINGS}`, where.params);
    return rows.rows.map(toStoredFinding);
  }

  /**
   * Findings of one scan counted per (check id, severity), sorted by check id then severity; with
   * `accounts`, only those accounts' findings (report scopes), always within the principal's scope.
   * @param scope the caller's principal: counts cover only its accounts
   * @throws StoreError NOT_FOUND when the scan does not exist
   */
  async countsByCheckAndSeverity(
    scanId: string,
    scope: Scoped,
    accounts?: readonly string[],
  ): Promise<{ checkId: string; severity: Severity; count: number }[]> {
    await this.assertScanExists(scanId);
    const where = new WhereBuilder().equals('scan_id', scanId).inScope('account_id', scope, (await this.teamColumn.exists()) ? 'team' : 'NULL::text');
    if (accounts !== undefined && accounts.length > 0) where.where(`account_id = ANY(${where.param([...accounts])}::text[])`);
    const rows = await this.pool.query<{ check_id: string; severity: Severity; n: string | number }>(
      `SELECT check_id, severity, count(*) AS n FROM findings ${where.sql()}
        GROUP BY check_id, severity ORDER BY check_id, severity`,
      where.params,
    );
    return rows.rows.map((r) => ({ checkId: r.check_id, severity: r.severity, count: toNumber(r.n) }));
  }

  /**
   * Findings of one scan counted per cluster, team and severity (metrics `fleet_audit_cluster_findings`), the largest
   * counts first; findings outside a cluster are not counted. One row per (account, cluster, team, severity).
   * @param scope the caller's principal: counts cover only its accounts (and teams)
   * @throws StoreError NOT_FOUND when the scan does not exist
   */
  async countsByCluster(
    scanId: string,
    scope: Scoped,
  ): Promise<{ accountId: string; clusterId: string; clusterName: string | null; team: string | null; severity: Severity; count: number }[]> {
    await this.assertScanExists(scanId);
    const team = (await this.teamColumn.exists()) ? 'team' : 'NULL::text';
    const name = (await this.clusterNameColumn.exists()) ? 'max(cluster_name)' : 'NULL::text';
    const where = new WhereBuilder().equals('scan_id', scanId).where('cluster_id IS NOT NULL').inScope('account_id', scope, team);
    const rows = await this.pool.query<{ account_id: string; cluster_id: string; cluster_name: string | null; team: string | null; severity: Severity; n: string | number }>(
      `SELECT account_id, cluster_id, ${name} AS cluster_name, ${team} AS team, severity, count(*) AS n FROM findings ${where.sql()}
        GROUP BY account_id, cluster_id, ${team === 'team' ? 'team, ' : ''}severity ORDER BY n DESC, account_id, cluster_id, severity`,
      where.params,
    );
    return rows.rows.map((r) => ({ accountId: r.account_id, clusterId: r.cluster_id, clusterName: r.cluster_name, team: r.team, severity: r.severity, count: toNumber(r.n) }));
  }

  /**
   * The (check, resource) of every finding of one scan whose check id is in `checkIds` (waiver matching:
   * which waivers matched a scan). Reads only the key columns.
   * @throws StoreError NOT_FOUND when the scan does not exist
   */
  async keysForChecks(
    scanId: string,
    checkIds: readonly string[],
    scope: Scoped = SYSTEM_PRINCIPAL,
  ): Promise<{ checkId: string; severity: Severity; resource: ResourceRef }[]> {
    await this.assertScanExists(scanId);
    if (checkIds.length === 0) return [];
    const where = new WhereBuilder().equals('scan_id', scanId);
    where.where(`check_id = ANY(${where.param([...checkIds])}::text[])`).inScope('account_id', scope, (await this.teamColumn.exists()) ? 'team' : 'NULL::text');
    const rows = await this.pool.query<Pick<FindingRow, 'check_id' | 'severity' | 'account_id' | 'region_id' | 'cluster_id' | 'resource_kind' | 'resource_id'>>(
      `SELECT check_id, severity, account_id, region_id, cluster_id, resource_kind, resource_id FROM findings ${where.sql()}`,
      where.params,
    );
    return rows.rows.map((r) => ({
      checkId: r.check_id,
      severity: r.severity,
      resource: resourceOfRow(r),
    }));
  }

  /**
   * Replace the findings of a scan and record their fingerprints' sightings. Must run inside the
   * caller's transaction (`ScanRepository.complete`), on its client.
   * @param client the transaction's client
   * @param scanId the scan (row locked by the caller)
   * @param observedAt the scan's start: the sighting time of its fingerprints
   * @param findings the scan's findings; duplicates of one fingerprint keep the most severe
   */
  async replaceForScan(client: PoolClient, scanId: string, observedAt: Date, findings: readonly Finding[]): Promise<void> {
    // Replace, not append: completing the same scan twice leaves exactly the second set.
    await client.query('DELETE FROM findings WHERE scan_id = $1', [scanId]);
    await this.insertForScan(client, scanId, observedAt, findings, false);
  }

  /**
   * Add findings to a scan (rows of the same fingerprint already there are kept) and record their sightings
   * (`finding_fingerprints`): the part of `replaceForScan` after its DELETE; a shard of a sharded analysis adds
   * its findings with it (libs/store ScanShardRepository).
   * @param client the transaction's client
   * @param onlyThese record the sightings of `findings` only (a shard), not of every finding of the scan
   */
  async insertForScan(
    client: PoolClient,
    scanId: string,
    observedAt: Date,
    findings: readonly Finding[],
    onlyThese: boolean,
  ): Promise<void> {
    // A database migrated before 1798500000000 (1799500000000, 1800300000001) has no cluster_name (team, texts_id)
    // column: rows are written without it.
    const hasName = await this.clusterNameColumn.exists(client);
    const hasTeam = await this.teamColumn.exists(client);
    const texts = (await this.textsColumn.exists(client)) ? await this.checkTexts(client) : undefined;
    const keep = INSERT_COLUMNS.map((c) => (c !== 'cluster_name' || hasName) && (c !== 'team' || hasTeam) && (c !== 'texts_id' || texts !== undefined));
    const columns = INSERT_COLUMNS.filter((_, i) => keep[i]);
    for (const rows of chunk(dedupeByFingerprint(findings), FINDING_ROWS_PER_INSERT)) {
      const params: unknown[] = [];
      const tuples = rows.map((f) => {
        const base = params.length;
        params.push(...findingValues(scanId, f, texts).filter((_, i) => keep[i]));
        return `(${columns.map((_, i) => `$${base + i + 1}`).join(', ')})`;
      });
      await client.query(
        `INSERT INTO findings (${columns.join(', ')}) VALUES ${tuples.join(', ')}
         ON CONFLICT (scan_id, fingerprint) DO NOTHING`,
        params,
      );
    }
    await this.recordSightings(client, scanId, observedAt, onlyThese ? findings.map((f) => f.fingerprint) : null);
  }

  /**
   * Record the first / last sightings (`finding_fingerprints`) of a scan's stored findings, or of `only` among them.
   * Set-based from the rows written: no bind-parameter limit, one statement per scan. Order-independent: scans
   * completed out of order still yield the earliest first sighting and the latest last sighting. ORDER BY fixes the
   * row-lock order, so two scans completing at once with overlapping fingerprints wait for each other instead of
   * deadlocking.
   * @param client the transaction's client (the one that marks the scan succeeded: sightings are visible with it)
   * @param observedAt the scan's observation time (its start)
   * @param only the fingerprints to record (a shard's), or null for every finding of the scan
   */
  async recordSightings(client: PoolClient, scanId: string, observedAt: Date, only: readonly string[] | null): Promise<void> {
    await client.query(
      `INSERT INTO finding_fingerprints AS ff (fingerprint, check_id, first_seen_at, last_seen_at, first_scan_id, last_scan_id)
       SELECT f.fingerprint, f.check_id, $2, $2, $1, $1 FROM findings f
        WHERE f.scan_id = $1 AND ($3::text[] IS NULL OR f.fingerprint = ANY($3::text[])) ORDER BY f.fingerprint
       ON CONFLICT (fingerprint) DO UPDATE SET
         check_id      = EXCLUDED.check_id,
         first_scan_id = CASE WHEN EXCLUDED.first_seen_at < ff.first_seen_at THEN EXCLUDED.first_scan_id ELSE ff.first_scan_id END,
         first_seen_at = LEAST(ff.first_seen_at, EXCLUDED.first_seen_at),
         last_scan_id  = CASE WHEN EXCLUDED.last_seen_at >= ff.last_seen_at THEN EXCLUDED.last_scan_id ELSE ff.last_scan_id END,
         last_seen_at  = GREATEST(ff.last_seen_at, EXCLUDED.last_seen_at)`,
      [scanId, observedAt, only],
    );
  }

  /**
   * The finding columns after `scan_id` for a COPY into `findings` (copy.util.ts), without the columns this
   * database's schema lacks (`cluster_name` before migration 1798500000000, `team` before 1799500000000). From
   * migration 1800300000001 on, a finding whose remediation and source are its check's (the libs/checks registry's)
   * is written with NULL texts and the id of their `finding_texts` row, which this writes first when missing, in the
   * caller's transaction (so a row never names texts its transaction did not see committed or write).
   * @param client the caller's transaction client (schema probe and texts rows)
   */
  async copyColumns(client: PoolClient): Promise<ColumnSpec<Finding>> {
    const hasName = await this.clusterNameColumn.exists(client);
    const hasTeam = await this.teamColumn.exists(client);
    const columns = FINDING_COLUMNS.filter(([c]) => (c !== 'cluster_name' || hasName) && (c !== 'team' || hasTeam));
    if (!(await this.textsColumn.exists(client))) return columns;
    const texts = await this.checkTexts(client);
    const shared = (f: Finding) => sharedTextsId(texts, f) !== null;
    return [
      ...columns.map(([c, kind, value]): ColumnSpec<Finding>[number] =>
        c === 'remediation' || c === 'source' ? [c, kind, (f) => (shared(f) ? null : value(f))] : [c, kind, value],
      ),
      ['texts_id', 'integer', (f) => sharedTextsId(texts, f)],
    ];
  }

  /**
   * A keyset page of findings of one scan (GraphQL `findings`), filtered like `list`, in the same order (most
   * severe first, then check id, fingerprint); cursors carry (severity rank, check id, fingerprint).
   * @param query filters; `scanId` defaults to the latest succeeded scan
   * @param args Relay paging (`first`/`after` or `last`/`before`, 1..1000)
   * @param scope the caller's principal: only its accounts' findings
   * @returns the page and the scan read (null: no succeeded scan yet)
   * @throws StoreError NOT_FOUND when `scanId` names no scan; INVALID_ARGUMENT for bad paging or cursor
   */
  async page(
    query: Omit<FindingQuery, 'limit' | 'offset'>,
    args: GraphPageArgs,
    scope: Scoped,
  ): Promise<{ page: GraphPage<StoredFinding>; scanId: string | null }> {
    const where = new WhereBuilder();
    // Most severe first as `-severity_rank ASC`, the expression of findings_scan_keyset_idx (as the REST listing
    // orders): with `severity_rank DESC` PostgreSQL could not walk that index and sorted the scan's findings for every
    // page (283 ms for one account and check of a 5,000-cluster scan). Cursors carry the negated rank.
    const keys = [
      { expr: '-f.severity_rank', dir: 'asc' as const },
      { expr: 'f.check_id', dir: 'asc' as const },
      { expr: 'f.fingerprint', dir: 'asc' as const },
    ];
    // One check's listing: its cursors as the conditions findings_scan_check_keyset_idx serves (checkKeysetCondition),
    // decoded (and refused when malformed) here instead of by pagingSql, which then sees none.
    const checkId = query.checkId;
    const { limit, backward, conditions, order } = pagingSql(keys, checkId === undefined ? args : { first: args.first, last: args.last }, (v) => where.param(v));
    if (checkId !== undefined) {
      const bound = (cursor: string, dir: 'asc' | 'desc') =>
        checkKeysetCondition(checkId, decodeCursor(cursor, keys.length) as [number, string, string], dir, (v) => where.param(v));
      if (args.after !== undefined) conditions.push(bound(args.after, 'asc'));
      if (args.before !== undefined) conditions.push(bound(args.before, 'desc'));
    }
    const scanId = query.scanId ?? (await this.latestSucceededScanId());
    if (scanId === null) return { page: { edges: [], hasNextPage: false, hasPreviousPage: false }, scanId: null };
    await this.assertScanReadable(scanId);
    filterFindings(where.equals('f.scan_id', scanId), query, scope, await this.teamExpr());
    for (const c of conditions) where.where(c);
    const rows = await this.pool.query<FindingRow & { severity_rank: number }>(
      `${await this.selectFindingSql(pageOfFindings(where.sql(), order, `LIMIT ${where.param(limit + 1)}`))} ${order}`,
      where.params,
    );
    const ranked = rows.rows.map((r) => ({ rank: toNumber(r.severity_rank), finding: toStoredFinding(r) }));
    const page = toPage(ranked, (x) => [-x.rank, x.finding.checkId, x.finding.fingerprint], limit, backward, args);
    return { page: { ...page, edges: page.edges.map((e) => ({ cursor: e.cursor, node: e.node.finding })) }, scanId };
  }

  /** How many findings match (filters of `page`, over the scope); 0 when no scan succeeded yet. */
  async count(query: Omit<FindingQuery, 'limit' | 'offset'>, scope: Scoped): Promise<number> {
    const scanId = query.scanId ?? (await this.latestSucceededScanId());
    if (scanId === null || !isUuid(scanId)) return 0;
    const where = filterFindings(new WhereBuilder().equals('f.scan_id', scanId), query, scope, await this.teamExpr());
    const r = await this.pool.query<{ total: string | number }>(`SELECT count(*) AS total FROM findings f ${where.sql()}`, where.params);
    return toNumber(r.rows[0].total);
  }

  private async assertScanExists(scanId: string): Promise<void> {
    const found = isUuid(scanId) ? await this.pool.query('SELECT 1 FROM scans WHERE id = $1', [scanId]) : { rowCount: 0 };
    if (!found.rowCount) throw new StoreError('NOT_FOUND', `scan ${scanId} not found`);
  }

  /**
   * The scan exists and still has its findings.
   * @throws StoreError NOT_FOUND when it does not exist; ScanPrunedError when retention pruned it
   */
  private async assertScanReadable(scanId: string): Promise<void> {
    const found = isUuid(scanId)
      ? await this.pool.query<{ pruned_at: Date | string | null; pruned_policy: PrunedPolicy | null }>(`SELECT ${prunedColumns(await this.prunedPolicyColumn.exists())} FROM scans WHERE id = $1`, [scanId])
      : { rows: [] };
    const row = found.rows[0];
    if (!row) throw new StoreError('NOT_FOUND', `scan ${scanId} not found`);
    if (row.pruned_at !== null) throw new ScanPrunedError(scanId, toIso(row.pruned_at), row.pruned_policy);
  }
}

/** Keep one finding per fingerprint (the most severe; the first among equals). */
/**
 * The findings with one per fingerprint (the table's key within a scan): the most severe of each, the first among
 * equals.
 */
export function dedupeByFingerprint(findings: readonly Finding[]): Finding[] {
  const rank: Record<Severity, number> = { info: 0, warning: 1, critical: 2 };
  const byFingerprint = new Map<string, Finding>();
  for (const f of findings) {
    const seen = byFingerprint.get(f.fingerprint);
    if (!seen || rank[f.severity] > rank[seen.severity]) byFingerprint.set(f.fingerprint, f);
  }
  return [...byFingerprint.values()];
}

/**
 * The columns of `findings` after `scan_id`, as the COPY path writes them (the same values as `findingValues`: text
 * sanitised by the writer, figures as JSON, non-finite numbers as NULL).
 */
const FINDING_COLUMNS: ColumnSpec<Finding> = [
  ['fingerprint', 'text', (f) => f.fingerprint],
  ['check_id', 'text', (f) => f.checkId],
  ['severity', 'text', (f) => f.severity],
  ['account_id', 'text', (f) => f.resource.accountId],
  ['region_id', 'text', (f) => f.resource.regionId],
  ['cluster_id', 'text', (f) => f.resource.clusterId],
  ['resource_kind', 'text', (f) => f.resource.kind],
  ['resource_id', 'text', (f) => f.resource.id],
  ['namespace', 'text', (f) => f.resource.namespace],
  ['name', 'text', (f) => f.resource.name],
  ['message', 'text', (f) => f.message],
  ['remediation', 'text', (f) => f.remediation],
  ['source', 'text', (f) => f.source],
  ['used', 'numeric', (f) => finiteOrNull(f.used)],
  ['"limit"', 'numeric', (f) => finiteOrNull(f.limit)],
  ['ratio', 'numeric', (f) => finiteOrNull(f.ratio)],
  ['figures', 'jsonb', (f) => f.figures],
  ['cluster_name', 'text', (f) => f.resource.clusterName],
  ['team', 'text', (f) => f.resource.team],
];

/** A finite number or NULL: numeric accepts NaN / Infinity, but they mean nothing as a quota figure. */
function finiteOrNull(n: number | undefined): number | null {
  return n !== undefined && Number.isFinite(n) ? n : null;
}

/** Bind values of one finding, in INSERT_COLUMNS order; `texts`: the check texts (checkTexts) when the schema has them. */
function findingValues(scanId: string, f: Finding, texts: CheckTexts | undefined): unknown[] {
  const r = f.resource;
  const textsId = texts === undefined ? null : sharedTextsId(texts, f);
  return [
    scanId,
    f.fingerprint,
    f.checkId,
    f.severity,
    // Text from the fleet is sanitised (NUL, lone surrogates) so one odd string cannot fail the store.
    storableText(r.accountId),
    storableText(r.regionId),
    storableText(r.clusterId),
    r.kind,
    storableText(r.id),
    storableText(r.namespace),
    storableText(r.name),
    storableText(f.message),
    textsId === null ? storableText(f.remediation) : null,
    textsId === null ? f.source : null,
    finiteOrNull(f.used),
    finiteOrNull(f.limit),
    finiteOrNull(f.ratio),
    // Stringified explicitly: pg would send a JS array as a Postgres array literal, not JSON.
    f.figures === undefined ? null : storableJson(f.figures),
    storableText(r.clusterName),
    storableText(r.team),
    textsId,
  ];
}

/** The `finding_texts` rows of the registry's checks: check id -> the row's id and texts. */
type CheckTexts = ReadonlyMap<string, { id: number; remediation: string; source: string }>;

/**
 * The `finding_texts` rows (migration 1800300000001) of every check of the libs/checks registry, written first where
 * missing: one INSERT of the registry's wordings (an existing one is left as it is, so concurrent stores do not
 * lock each other's rows) and one SELECT of their ids. Run in the writer's transaction (READ COMMITTED): a row it
 * wrote is committed with the findings that name it, or neither is; `written` false means every row it read was
 * committed before (the INSERT waited for any other writer of the same wording to end).
 * @param client the writer's transaction client
 */
async function checkTexts(client: PoolClient): Promise<{ texts: CheckTexts; written: boolean }> {
  const ids = CHECKS.map((c) => c.id);
  const remediations = CHECKS.map((c) => storableText(c.remediation));
  const sources = CHECKS.map((c) => storableText(c.source));
  const wordings = `unnest($1::text[], $2::text[], $3::text[]) AS w(check_id, remediation, source)`;
  const inserted = await client.query(
    `INSERT INTO finding_texts (check_id, remediation, source) SELECT w.check_id, w.remediation, w.source FROM ${wordings}
     ON CONFLICT (check_id, md5(remediation), md5(source)) DO NOTHING`,
    [ids, remediations, sources],
  );
  const { rows } = await client.query<{ id: number; check_id: string; remediation: string; source: string }>(
    `SELECT t.id, t.check_id, t.remediation, t.source FROM finding_texts t JOIN ${wordings}
        ON t.check_id = w.check_id AND md5(t.remediation) = md5(w.remediation) AND md5(t.source) = md5(w.source)`,
    [ids, remediations, sources],
  );
  // The texts compared in full too: a row is used only for the exact wording (a digest collision names no row).
  const byCheck = new Map<string, { id: number; remediation: string; source: string }>();
  for (const c of CHECKS) {
    const row = rows.find((r) => r.check_id === c.id && r.remediation === c.remediation && r.source === c.source);
    // The registry's own strings: a finding built from them compares equal by reference, not character by character.
    if (row) byCheck.set(c.id, { id: row.id, remediation: c.remediation, source: c.source });
  }
  return { texts: byCheck, written: (inserted.rowCount ?? 0) > 0 };
}

/** The `finding_texts` id of a finding whose remediation and source are its check's (`texts`), else null (kept in the row). */
function sharedTextsId(texts: CheckTexts, f: Finding): number | null {
  const t = texts.get(f.checkId);
  return t !== undefined && f.remediation === t.remediation && f.source === t.source ? t.id : null;
}

/**
 * The filters of a findings listing on alias `f`: check, severity, account, cluster and team (each only when given),
 * then the caller's account and team scope (principal.ts; `teamExpr`: `f.team`, or `NULL::text` before its migration). The one filter list of the findings reads (page, keyset page, count).
 */
function filterFindings(
  where: WhereBuilder,
  query: Pick<FindingQuery, 'checkId' | 'severity' | 'accountId' | 'clusterId' | 'team'>,
  scope: Scoped,
  teamExpr: string,
): WhereBuilder {
  return where
    .equals('f.check_id', query.checkId)
    .equals('f.severity', query.severity)
    .equals('f.account_id', query.accountId)
    .equals('f.cluster_id', query.clusterId)
    .equals(teamExpr, query.team)
    .inScope('f.account_id', scope, teamExpr);
}

/** A row as a StoredFinding; NULL columns become absent optional fields. */
function toStoredFinding(row: FindingRow): StoredFinding {
  const resource = resourceOfRow(row);
  const used = toOptionalNumber(row.used);
  const limit = toOptionalNumber(row.limit);
  const ratio = toOptionalNumber(row.ratio);
  return {
    checkId: row.check_id,
    severity: row.severity,
    resource,
    message: row.message,
    remediation: row.remediation,
    source: row.source,
    fingerprint: row.fingerprint,
    ...(used !== undefined ? { used } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(ratio !== undefined ? { ratio } : {}),
    ...(row.figures !== null ? { figures: row.figures } : {}),
    firstSeenAt: toIso(row.first_seen_at),
    lastSeenAt: toIso(row.last_seen_at),
  };
}
