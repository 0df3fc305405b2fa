import type { Pool, QueryResultRow } from 'pg';
import { isUuid, resolvePage } from './page.util';
import { scopeCoversCondition, SYSTEM_PRINCIPAL, type Scoped } from './principal';
import { toIso, toIsoOrNull, toNumber } from './sql.util';
import { StoreError } from './store.exception';
import type { Page, PageRequest } from './store.types';
import { pagingSql, toPage, type GraphPage, type GraphPageArgs } from './keyset-page.util';

/** Webhook delivery state of a stored report. */
export type ReportDeliveryStatus = 'none' | 'pending' | 'delivered' | 'failed';

/** A stored report as listed (no document). */
export interface StoredReportListItem {
  id: string;
  periodKey: string;
  scopeKey: string;
  status: 'building' | 'ready' | 'failed';
  createdAt: string;
  finishedAt: string | null;
  periodStart: string | null;
  periodEnd: string | null;
  scanId: string | null;
  /** The report's summary counts (libs/reports ReportDocument.summary); null until ready. */
  summary: Record<string, unknown> | null;
  error: string | null;
  delivery: { status: ReportDeliveryStatus; attempts: number; error: string | null; deliveredAt: string | null };
}

/** A stored report with its document. */
export interface StoredReport extends StoredReportListItem {
  /** The report document (libs/reports ReportDocument); null until ready. */
  document: Record<string, unknown> | null;
}

interface ReportRow extends QueryResultRow {
  id: string;
  period_key: string;
  scope_key: string;
  status: StoredReportListItem['status'];
  created_at: Date | string;
  finished_at: Date | string | null;
  period_start: Date | string | null;
  period_end: Date | string | null;
  scan_id: string | null;
  summary: Record<string, unknown> | null;
  error: string | null;
  delivery_status: ReportDeliveryStatus;
  delivery_attempts: number;
  delivery_error: string | null;
  delivered_at: Date | string | null;
  document?: Record<string, unknown> | null;
}

const LIST_COLUMNS = `id, period_key, scope_key, status, created_at, finished_at, period_start, period_end, scan_id, summary, error,
  delivery_status, delivery_attempts, delivery_error, delivered_at`;

/**
 * The reports a principal may read (SQL over `reports`): those whose accounts all lie within its scope; for a
 * team-scoped principal, those covering any of its accounts (`account_ids` NULL: every account), since it reads a
 * report only as its team's rendition (libs/reports teamReportDocument: its teams' clusters in its accounts).
 */
function reportScopeCondition(scope: Scoped, add: (value: unknown) => string): string {
  if (scope.teamScope === undefined || scope.accountScope.all) return scopeCoversCondition('account_ids', scope, add);
  return `(account_ids IS NULL OR account_ids && ${add([...scope.accountScope.accountIds])}::text[])`;
}

/** Longest stored error text (characters). */
const MAX_ERROR = 2000;

/**
 * Stored weekly reports (table `reports`). `claim` is the once-per-period gate: the (period, scope) row
 * is unique, so of several workers firing the same tick exactly one gets the row and builds the report.
 *
 * Scope: a report is built for a scope (every account, or a list of accounts: column
 * `account_ids`, derived from `scope_key`). Reads take the caller's scope and filter in SQL: a caller
 * sees a report only when every account it covers is within its scope (`scopeCoversCondition`), so a
 * report over every account is for all-accounts tokens only, and a team token sees the reports made for
 * its accounts (or a subset). A report out of scope does not exist for the caller (NOT_FOUND / absent).
 */
export class ReportRepository {
  /** @param pool the store's connection pool */
  constructor(private readonly pool: Pool) {}

  /**
   * Claim the report of (period, scope): insert its `building` row.
   * @returns the new row's id, or null when another process claimed it first
   */
  async claim(periodKey: string, scopeKey: string, at: Date = new Date()): Promise<string | null> {
    const rows = await this.pool.query<{ id: string }>(
      `INSERT INTO reports (period_key, scope_key, created_at) VALUES ($1, $2, $3) ON CONFLICT (period_key, scope_key) DO NOTHING RETURNING id`,
      [periodKey, scopeKey, at],
    );
    return rows.rows[0]?.id ?? null;
  }

  /** Store the built document (status `ready`). @throws StoreError NOT_FOUND */
  async complete(id: string, r: { document: Record<string, unknown>; summary: Record<string, unknown>; periodStart: string; periodEnd: string; scanId: string | null }, at: Date = new Date()): Promise<void> {
    const res = await this.pool.query(
      `UPDATE reports SET status = 'ready', document = $2::jsonb, summary = $3::jsonb, period_start = $4, period_end = $5, scan_id = $6, finished_at = $7 WHERE id = $1`,
      [id, JSON.stringify(r.document), JSON.stringify(r.summary), r.periodStart, r.periodEnd, r.scanId, at],
    );
    if (!res.rowCount) throw new StoreError('NOT_FOUND', `report ${id} not found`);
  }

  /** Mark the report failed with a reason (never credentials). */
  async fail(id: string, error: string, at: Date = new Date()): Promise<void> {
    await this.pool.query(`UPDATE reports SET status = 'failed', error = $2, finished_at = $3 WHERE id = $1`, [id, error.slice(0, MAX_ERROR), at]);
  }

  /** Record the webhook delivery state (attempts so far, last error). */
  async setDelivery(id: string, d: { status: ReportDeliveryStatus; attempts: number; error?: string | null; deliveredAt?: Date | null }): Promise<void> {
    await this.pool.query(`UPDATE reports SET delivery_status = $2, delivery_attempts = $3, delivery_error = $4, delivered_at = $5 WHERE id = $1`, [
      id,
      d.status,
      d.attempts,
      d.error ? d.error.slice(0, MAX_ERROR) : null,
      d.deliveredAt ?? null,
    ]);
  }

  /**
   * One report with its document, or null (absent, or not wholly within the scope).
   * @param scope the caller (default every account)
   */
  async get(id: string, scope: Scoped = SYSTEM_PRINCIPAL): Promise<StoredReport | null> {
    if (!isUuid(id)) return null;
    const params: unknown[] = [id];
    const inScope = reportScopeCondition(scope, (v) => `$${params.push(v)}`);
    const rows = await this.pool.query<ReportRow>(`SELECT ${LIST_COLUMNS}, document FROM reports WHERE id = $1 AND ${inScope}`, params);
    const r = rows.rows[0];
    return r ? { ...toItem(r), document: r.document ?? null } : null;
  }

  /**
   * Reports within the scope, newest first (no documents); `total` counts them in SQL over the scope.
   * @param scope the caller (default every account)
   * @throws StoreError INVALID_ARGUMENT for bad paging
   */
  async list(page: PageRequest = {}, scope: Scoped = SYSTEM_PRINCIPAL): Promise<Page<StoredReportListItem>> {
    const { limit, offset } = resolvePage(page);
    const params: unknown[] = [];
    const inScope = reportScopeCondition(scope, (v) => `$${params.push(v)}`);
    const count = await this.pool.query<{ n: string | number }>(`SELECT count(*) AS n FROM reports WHERE ${inScope}`, params);
    const rows = await this.pool.query<ReportRow>(
      `SELECT ${LIST_COLUMNS} FROM reports WHERE ${inScope} ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, offset],
    );
    return { items: rows.rows.map(toItem), total: toNumber(count.rows[0].n) };
  }

  /**
   * A keyset page of the reports within the scope, newest first (created_at, then id, both descending; no documents):
   * REST `GET /v1/reports?after=`. The cursor carries the creation time to the millisecond and the id.
   * @param scope the caller (default every account)
   * @throws StoreError INVALID_ARGUMENT for bad paging or a malformed cursor
   */
  async page(args: GraphPageArgs, scope: Scoped = SYSTEM_PRINCIPAL): Promise<GraphPage<StoredReportListItem> & { total: number }> {
    const params: unknown[] = [];
    const p = (v: unknown) => `$${params.push(v)}`;
    const inScope = reportScopeCondition(scope, p);
    const count = await this.pool.query<{ n: string | number }>(`SELECT count(*) AS n FROM reports WHERE ${inScope}`, params);
    const keys = [
      { expr: "date_trunc('milliseconds', created_at)", dir: 'desc' as const },
      { expr: 'id', dir: 'desc' as const },
    ];
    const { limit, backward, conditions, order } = pagingSql(keys, args, p);
    const rows = await this.pool.query<ReportRow>(`SELECT ${LIST_COLUMNS} FROM reports WHERE ${[inScope, ...conditions].join(' AND ')} ${order} LIMIT ${p(limit + 1)}`, params);
    return { ...toPage(rows.rows.map(toItem), (r) => [r.createdAt, r.id], limit, backward, args), total: toNumber(count.rows[0].n) };
  }

  /**
   * Reports within the scope per delivery status and their latest creation time (metrics).
   * @param scope the caller (default every account)
   */
  async deliveryStats(scope: Scoped = SYSTEM_PRINCIPAL): Promise<{ byDelivery: Record<ReportDeliveryStatus, number>; latestCreatedAt: string | null }> {
    const params: unknown[] = [];
    const inScope = reportScopeCondition(scope, (v) => `$${params.push(v)}`);
    const rows = await this.pool.query<{ delivery_status: ReportDeliveryStatus; n: string | number; latest: Date | string | null }>(
      `SELECT delivery_status, count(*) AS n, max(created_at) AS latest FROM reports WHERE ${inScope} GROUP BY delivery_status`,
      params,
    );
    const byDelivery: Record<ReportDeliveryStatus, number> = { none: 0, pending: 0, delivered: 0, failed: 0 };
    let latest: string | null = null;
    for (const r of rows.rows) {
      byDelivery[r.delivery_status] = toNumber(r.n);
      const l = toIsoOrNull(r.latest);
      if (l !== null && (latest === null || l > latest)) latest = l;
    }
    return { byDelivery, latestCreatedAt: latest };
  }
}

function toItem(r: ReportRow): StoredReportListItem {
  return {
    id: r.id,
    periodKey: r.period_key,
    scopeKey: r.scope_key,
    status: r.status,
    createdAt: toIso(r.created_at),
    finishedAt: toIsoOrNull(r.finished_at),
    periodStart: toIsoOrNull(r.period_start),
    periodEnd: toIsoOrNull(r.period_end),
    scanId: r.scan_id,
    summary: r.summary,
    error: r.error,
    delivery: { status: r.delivery_status, attempts: r.delivery_attempts, error: r.delivery_error, deliveredAt: toIsoOrNull(r.delivered_at) },
  };
}
