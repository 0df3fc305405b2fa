import type { Pool, QueryResultRow } from 'pg';
import { toIso, toNumber } from './sql.util';
import { ALL_ACCOUNTS, type Scoped } from './principal';
import { StoreError } from './store.exception';
import { teamRowCondition } from './team-scope.util';

/** Status of a stored application: Quota Center's (`Process` in review, `Agree`, `Disagree`, `Cancel`), or ours. */
export type StoredQuotaApplicationStatus = 'submitting' | 'Process' | 'Agree' | 'Disagree' | 'Cancel' | 'failed';

/** The quota an application is for. */
export interface QuotaApplicationKey {
  accountId: string;
  regionId: string;
  productCode: string;
  quotaActionCode: string;
}

/** A stored application (counts; times ISO 8601). */
export interface StoredQuotaApplication extends QuotaApplicationKey {
  id: string;
  /** Quota Center's ApplicationId; null while `submitting` and for a `failed` call. */
  applicationId: string | null;
  status: StoredQuotaApplicationStatus;
  desireValue: number;
  approveValue: number | null;
  auditReason: string | null;
  reason: string;
  /** Who asked (the CLI's `--requested-by`, else the OS user; an API call's token name). */
  requestedBy: string;
  /** The quota plan row the application came from (libs/forecast QuotaPlanRow). */
  planRow: Record<string, unknown>;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Row extends QueryResultRow {
  id: string;
  account_id: string;
  region_id: string;
  product_code: string;
  quota_action_code: string;
  application_id: string | null;
  status: StoredQuotaApplicationStatus;
  desire_value: number | string;
  approve_value: number | string | null;
  audit_reason: string | null;
  reason: string;
  requested_by: string;
  plan_row: Record<string, unknown>;
  error: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

function ofRow(r: Row): StoredQuotaApplication {
  return {
    id: r.id,
    accountId: r.account_id,
    regionId: r.region_id,
    productCode: r.product_code,
    quotaActionCode: r.quota_action_code,
    applicationId: r.application_id,
    status: r.status,
    desireValue: toNumber(r.desire_value),
    approveValue: r.approve_value === null ? null : toNumber(r.approve_value),
    auditReason: r.audit_reason,
    reason: r.reason,
    requestedBy: r.requested_by,
    planRow: r.plan_row,
    error: r.error,
    createdAt: toIso(r.created_at),
    updatedAt: toIso(r.updated_at),
  };
}

/** Applications that are not decided yet: being filed, or in review. */
export const OPEN_QUOTA_APPLICATION_STATUSES: readonly StoredQuotaApplicationStatus[] = ['submitting', 'Process'];

/**
 * Quota Center applications (table `quota_applications`, migration 1799900000000). Filing one is two writes around
 * the cloud call: `begin` stores it as `submitting` (at most one open application per quota: a unique index), then
 * `settle` records Quota Center's answer. A run stopped between the two leaves `submitting`, which the next run
 * reconciles (ListQuotaApplications) rather than files again.
 */
export class QuotaApplicationRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Store a new application as `submitting`, unless one is open for the same quota.
   * @returns the new row, or `{ open }` with the open one (nothing written)
   */
  async begin(
    key: QuotaApplicationKey,
    fields: { desireValue: number; reason: string; requestedBy: string; planRow: Record<string, unknown> },
  ): Promise<{ created: StoredQuotaApplication } | { open: StoredQuotaApplication }> {
    const r = await this.pool.query<Row>(
      `INSERT INTO quota_applications (account_id, region_id, product_code, quota_action_code, status, desire_value, reason, requested_by, plan_row)
       VALUES ($1, $2, $3, $4, 'submitting', $5, $6, $7, $8)
       ON CONFLICT (account_id, region_id, product_code, quota_action_code) WHERE status IN ('submitting', 'Process') DO NOTHING
       RETURNING *`,
      [key.accountId, key.regionId, key.productCode, key.quotaActionCode, fields.desireValue, fields.reason, fields.requestedBy, JSON.stringify(fields.planRow)],
    );
    if (r.rows[0]) return { created: ofRow(r.rows[0]) };
    const open = await this.openFor(key);
    if (!open) throw new StoreError('CONFLICT', `an application for ${key.productCode}/${key.quotaActionCode} in ${key.accountId} ${key.regionId} changed while it was filed; run again`);
    return { open };
  }

  /** The open application (submitting or in review) of a quota, or undefined. */
  async openFor(key: QuotaApplicationKey): Promise<StoredQuotaApplication | undefined> {
    const r = await this.pool.query<Row>(
      `SELECT * FROM quota_applications WHERE account_id = $1 AND region_id = $2 AND product_code = $3 AND quota_action_code = $4
         AND status IN ('submitting', 'Process')`,
      [key.accountId, key.regionId, key.productCode, key.quotaActionCode],
    );
    return r.rows[0] ? ofRow(r.rows[0]) : undefined;
  }

  /**
   * Record Quota Center's answer (or a refused call: status `failed` with `error`).
   * @throws StoreError NOT_FOUND when the row is gone
   */
  async settle(
    id: string,
    answer: { applicationId: string | null; status: StoredQuotaApplicationStatus; approveValue?: number | null; auditReason?: string | null; error?: string | null; desireValue?: number },
  ): Promise<StoredQuotaApplication> {
    const r = await this.pool.query<Row>(
      `UPDATE quota_applications SET application_id = COALESCE($2, application_id), status = $3, approve_value = $4, audit_reason = $5, error = $6,
         desire_value = COALESCE($7, desire_value), updated_at = now()
       WHERE id = $1 RETURNING *`,
      [id, answer.applicationId, answer.status, answer.approveValue ?? null, answer.auditReason ?? null, answer.error ?? null, answer.desireValue ?? null],
    );
    if (!r.rows[0]) throw new StoreError('NOT_FOUND', `quota application ${id} not found`);
    return ofRow(r.rows[0]);
  }

  /** Every stored application, newest first (at most `limit`), optionally only some statuses or accounts. */
  async list(filter: { statuses?: readonly StoredQuotaApplicationStatus[]; accountIds?: readonly string[]; limit?: number } = {}): Promise<StoredQuotaApplication[]> {
    const r = await this.pool.query<Row>(
      `SELECT * FROM quota_applications
       WHERE ($1::text[] IS NULL OR status = ANY($1)) AND ($2::text[] IS NULL OR account_id = ANY($2))
       ORDER BY created_at DESC, id LIMIT $3`,
      [filter.statuses ?? null, filter.accountIds ?? null, Math.min(Math.max(filter.limit ?? 1000, 1), 10_000)],
    );
    return r.rows.map(ofRow);
  }

  /**
   * Applications per status (the `fleet_audit_quota_applications{status}` gauge) within a principal's scope: those of
   * its accounts; for a team-scoped principal, those of the accounts and regions where one of its teams owns a cluster
   * in scan `scanId` (a region's quota serves every cluster of the region, as the quota plan rows; team-scope.util).
   * A team-scoped principal with no scan to tell its regions from counts none.
   * @param scoped the principal (default: every account and team)
   * @param scanId the scan whose clusters say which regions a team has (the latest succeeded one)
   */
  async countsByStatus(scoped: Scoped = { accountScope: ALL_ACCOUNTS }, scanId?: string): Promise<Record<string, number>> {
    if (scoped.teamScope !== undefined && scanId === undefined) return {};
    const params: unknown[] = [];
    const add = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const accounts = scoped.accountScope.all ? 'TRUE' : `qa.account_id = ANY(${add([...scoped.accountScope.accountIds])}::text[])`;
    const teams = scanId === undefined || scoped.teamScope === undefined ? 'TRUE' : teamRowCondition({ scan: `${add(scanId)}::uuid`, account: 'qa.account_id', region: 'qa.region_id' }, scoped, add);
    const r = await this.pool.query<{ status: string; n: string }>(
      `SELECT qa.status, count(*)::text AS n FROM quota_applications qa WHERE ${accounts} AND ${teams} GROUP BY qa.status`,
      params,
    );
    return Object.fromEntries(r.rows.map((x) => [x.status, Number(x.n)]));
  }
}
