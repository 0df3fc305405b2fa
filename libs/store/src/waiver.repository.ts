import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { waiverFields, type ResolvedWaiverInput, type Waiver, type WaiverCategory } from '@app/domain';
import { isUuid } from './page.util';
import { mayManage, scopeCondition, SYSTEM_PRINCIPAL, type Principal, type Scoped } from './principal';
import { teamRowCondition } from './team-scope.util';
import { toIso, toIsoOrNull } from './sql.util';
import { StoreError } from './store.exception';
import { withTransaction } from './transaction.util';

/**
 * A stored waiver: the domain waiver plus the id of the `fa_` token that created it (null: created by
 * the bootstrap API_TOKEN, the CLI, or before tokens existed). Non-admin tokens manage only their own.
 */
export interface StoredWaiver extends Waiver {
  createdByToken: string | null;
}

/** One entry of a waiver's append-only history. */
export interface WaiverHistoryEntry {
  /** Version of the waiver this change produced (1 = created). */
  version: number;
  action: 'created' | 'updated' | 'revoked';
  /**
   * Who made the change: the authenticated principal (`token:<id>` for an `fa_` token, `bootstrap` for the
   * API_TOKEN, the local user for the CLI). Never a name the client chose.
   */
  actor: string;
  /** The `fa_` token that made the change (null: bootstrap, CLI, or a row written before this was recorded). */
  actorTokenId: string | null;
  /** That token's name when it was made (null: unnamed or no token). */
  actorTokenName: string | null;
  /** A name the client gave (`createdBy`, `updatedBy`, `?by=`) when it differs from the actor: a claim, not verified. */
  statedBy: string | null;
  /** ISO 8601 UTC. */
  at: string;
  /** The waiver as it was after the change. */
  waiver: Waiver;
}

/** The actor of an audit row: the authenticated principal, and a name the client stated (when it differs). */
export interface AuditActor {
  /** `token:<id>`, `bootstrap`, or (system principal: CLI, worker) the name the caller gives, e.g. the local user. */
  actor: string;
  tokenId: string | null;
  tokenName: string | null;
  /** The client-given name when it is not the actor itself; recorded, labelled, never trusted. */
  statedBy: string | null;
}

/**
 * Who an audit row names: for a request, the authenticated principal, never the client's word
 * (an `fa_` token as `token:<id>` with its id and name; the API_TOKEN as `bootstrap`); the name the client sent is
 * kept apart as `statedBy`. In-process callers (the SYSTEM principal: CLI, worker) are trusted to name their user.
 * @param by who is authenticated
 * @param given the name the caller passed (client-given for API requests)
 */
export function auditActorOf(by: Principal, given: string): AuditActor {
  if (by.kind === 'system') return { actor: given, tokenId: null, tokenName: null, statedBy: null };
  const actor = by.kind === 'token' && by.tokenId ? `token:${by.tokenId}` : 'bootstrap';
  const tokenId = by.kind === 'token' ? by.tokenId : null;
  return { actor, tokenId, tokenName: by.tokenName ?? null, statedBy: given !== actor ? given : null };
}

/** Input of `waivers.create`: a validated waiver (libs/domain resolveWaiverInput) and who creates it. */
export interface CreateWaiverInput extends ResolvedWaiverInput {
  /** Who is authenticated (default SYSTEM_PRINCIPAL: `createdBy` is then the actor, as the CLI names its user). */
  by?: Principal;
  createdBy: string;
  /** Default: now. */
  createdAt?: Date;
  /** A caller-chosen uuid (idempotent imports); default a random one. */
  id?: string;
  /** The id of the `fa_` token creating it (ownership); null/absent for API_TOKEN, CLI, imports. */
  createdByToken?: string | null;
}

/** Fields a change may set (scope never changes; a different scope is a different waiver). */
export type WaiverChanges = Partial<Pick<ResolvedWaiverInput, 'owner' | 'reason' | 'category' | 'ticket' | 'expiresAt'>>;

interface WaiverRow extends QueryResultRow {
  id: string;
  check_id: string;
  account_id: string;
  region_id: string | null;
  cluster_id: string | null;
  resource: string;
  owner: string;
  reason: string;
  category: WaiverCategory;
  ticket: string | null;
  created_by: string;
  created_at: Date | string;
  expires_at: Date | string;
  revoked_at: Date | string | null;
  revoked_by: string | null;
  version: number;
  created_by_token: string | null;
}

/** The latest succeeded scan (whose fleet graph says which team owns which cluster), as ScanRepository.latestSucceededId. */
const LATEST_SUCCEEDED_SCAN = `(SELECT ls.id FROM scans ls WHERE ls.status = 'succeeded' ORDER BY ls.started_at DESC, ls.id DESC LIMIT 1)`;

/**
 * The waivers a principal sees (SQL over `waivers`, columns unqualified): those of its accounts, and for a
 * team-scoped principal (team-scope.util.ts, teams as the latest succeeded scan's fleet graph has them) a waiver of
 * one cluster when that cluster is its team's, a waiver of a whole account or region when its team owns a cluster
 * there (the waiver may cover that cluster's findings). The same rule guards changes and revocations.
 */
function waiverScopeCondition(scope: Scoped, add: (value: unknown) => string): string {
  const accounts = scopeCondition('account_id', scope, add);
  if (scope.teamScope === undefined) return accounts;
  // Qualified: the rule's subqueries read graph_clusters, whose columns have the same names.
  return `${accounts} AND ${teamRowCondition({ scan: LATEST_SUCCEEDED_SCAN, account: 'waivers.account_id', region: 'waivers.region_id', cluster: 'waivers.cluster_id' }, scope, add)}`;
}

const COLUMNS = `id, check_id, account_id, region_id, cluster_id, resource, owner, reason, category, ticket,
  created_by, created_at, expires_at, revoked_at, revoked_by, version, created_by_token`;

/**
 * Waivers (tables `waivers`, `waiver_history`): create, change, revoke, read. Every change writes the
 * waiver row and one history row in the same transaction; the history is append-only (a trigger refuses
 * UPDATE and DELETE). Waivers are never deleted: a revoked waiver stays readable with its history.
 *
 * Every read and change takes the caller's scope (a Principal; SYSTEM_PRINCIPAL for in-process
 * callers) and filters on `account_id` inside SQL: a waiver of an account outside the scope does not
 * exist for the caller (NOT_FOUND, never FORBIDDEN, so its existence does not leak). A waiver names
 * exactly one account, so no waiver spans scopes. Changes also need `mayManage` (admins: anyone's;
 * others: only waivers their own token created), else FORBIDDEN.
 */
export class WaiverRepository {
  /** @param pool the store's connection pool */
  constructor(private readonly pool: Pool) {}

  /**
   * Store a new waiver and its `created` history entry.
   * @throws StoreError INVALID_ARGUMENT when `id` is not a uuid or a table rule is broken; CONFLICT when the id exists
   */
  async create(input: CreateWaiverInput): Promise<StoredWaiver> {
    if (input.id !== undefined && !isUuid(input.id)) throw new StoreError('INVALID_ARGUMENT', `waiver id must be a uuid, got "${input.id}"`);
    return withTransaction(this.pool, async (client) => {
      const rows = await client
        .query<WaiverRow>(
          `INSERT INTO waivers (id, check_id, account_id, region_id, cluster_id, resource, owner, reason, category, ticket,
                                created_by, created_at, expires_at, created_by_token)
           VALUES (COALESCE($1::uuid, gen_random_uuid()), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
           RETURNING ${COLUMNS}`,
          [
            input.id ?? null,
            input.checkId,
            input.accountId,
            input.regionId ?? null,
            input.clusterId ?? null,
            input.resource,
            input.owner,
            input.reason,
            input.category,
            input.ticket ?? null,
            auditActorOf(input.by ?? SYSTEM_PRINCIPAL, input.createdBy).actor,
            input.createdAt ?? new Date(),
            input.expiresAt,
            input.createdByToken ?? null,
          ],
        )
        .catch(rethrowConstraint);
      const waiver = toWaiver(rows.rows[0]);
      await this.appendHistory(client, waiver, 1, 'created', auditActorOf(input.by ?? SYSTEM_PRINCIPAL, input.createdBy), waiver.createdAt);
      return waiver;
    });
  }

  /**
   * One waiver (revoked ones too) of an account in the scope, or null (also when out of scope).
   * @param scope the caller (default SYSTEM_PRINCIPAL: every account)
   */
  async get(id: string, scope: Scoped = SYSTEM_PRINCIPAL): Promise<StoredWaiver | null> {
    if (!isUuid(id)) return null;
    const params: unknown[] = [id];
    const inScope = waiverScopeCondition(scope, (v) => `$${params.push(v)}`);
    const rows = await this.pool.query<WaiverRow>(`SELECT ${COLUMNS} FROM waivers WHERE id = $1 AND ${inScope}`, params);
    return rows.rows[0] ? toWaiver(rows.rows[0]) : null;
  }

  /**
   * Whether cluster `clusterId` of account `accountId` belongs to one of the principal's teams in the latest succeeded
   * scan's fleet graph (true without a team scope): a team-scoped token may waive only findings of its clusters.
   */
  async clusterInTeams(accountId: string, clusterId: string, scope: Scoped): Promise<boolean> {
    if (scope.teamScope === undefined) return true;
    const rows = await this.pool.query(
      `SELECT 1 FROM graph_clusters WHERE scan_id = ${LATEST_SUCCEEDED_SCAN} AND account_id = $1 AND cluster_id = $2 AND team = ANY($3::text[])`,
      [accountId, clusterId, [...scope.teamScope]],
    );
    return rows.rows.length > 0;
  }

  /**
   * The ids of the scope's waivers that start with `prefix` (as `git` resolves a short hash), at most `limit`,
   * revoked ones included (revoking one again answers CONFLICT, naming it).
   * @param prefix lower- or upper-case hex digits and dashes of a uuid's textual form; anything else matches nothing
   * @param scope the caller (default every account)
   */
  async idsStartingWith(prefix: string, limit: number, scope: Scoped = SYSTEM_PRINCIPAL): Promise<string[]> {
    if (!/^[0-9a-f-]{1,36}$/i.test(prefix)) return [];
    const params: unknown[] = [`${prefix.toLowerCase()}%`, limit];
    const inScope = waiverScopeCondition(scope, (v) => `$${params.push(v)}`);
    const rows = await this.pool.query<{ id: string }>(`SELECT id FROM waivers WHERE id::text LIKE $1 AND ${inScope} ORDER BY id LIMIT $2`, params);
    return rows.rows.map((r) => r.id);
  }

  /**
   * Every waiver of the scope's accounts, oldest first (waivers are few: hundreds, not millions).
   * @param opts.includeRevoked also revoked ones (default false)
   * @param opts.scope the caller: only waivers of its accounts, filtered in SQL (default every account)
   */
  async list(opts: { includeRevoked?: boolean; scope?: Scoped } = {}): Promise<StoredWaiver[]> {
    const params: unknown[] = [];
    const where = [waiverScopeCondition(opts.scope ?? SYSTEM_PRINCIPAL, (v) => `$${params.push(v)}`)];
    if (!opts.includeRevoked) where.push('revoked_at IS NULL');
    const rows = await this.pool.query<WaiverRow>(`SELECT ${COLUMNS} FROM waivers WHERE ${where.join(' AND ')} ORDER BY created_at, id`, params);
    return rows.rows.map(toWaiver);
  }

  /**
   * Change owner, reason, category, ticket or expiry (a renewal); appends an `updated` history entry.
   * @param by who asks (default SYSTEM_PRINCIPAL): the waiver must be in its scope and its to manage
   * @throws StoreError NOT_FOUND (no such waiver in the scope), FORBIDDEN (another token's waiver and
   *   `by` is not admin), CONFLICT (revoked: create a new one instead)
   */
  async update(id: string, changes: WaiverChanges, actor: string, at: Date = new Date(), by: Principal = SYSTEM_PRINCIPAL): Promise<StoredWaiver> {
    return withTransaction(this.pool, async (client) => {
      const current = await this.lock(client, id, by);
      if (current.revoked_at !== null) throw new StoreError('CONFLICT', `waiver ${id} is revoked; create a new waiver instead`);
      const rows = await client
        .query<WaiverRow>(
          `UPDATE waivers SET owner = COALESCE($2, owner), reason = COALESCE($3, reason), category = COALESCE($4, category),
                  ticket = COALESCE($5, ticket), expires_at = COALESCE($6, expires_at), version = version + 1
            WHERE id = $1 RETURNING ${COLUMNS}`,
          [id, changes.owner ?? null, changes.reason ?? null, changes.category ?? null, changes.ticket ?? null, changes.expiresAt ?? null],
        )
        .catch(rethrowConstraint);
      const waiver = toWaiver(rows.rows[0]);
      await this.appendHistory(client, waiver, rows.rows[0].version, 'updated', auditActorOf(by, actor), at.toISOString());
      return waiver;
    });
  }

  /**
   * Revoke a waiver: its findings count again at once; appends a `revoked` history entry.
   * @param by who asks (default SYSTEM_PRINCIPAL): the waiver must be in its scope and its to manage
   * @throws StoreError NOT_FOUND (no such waiver in the scope), FORBIDDEN (another token's waiver and
   *   `by` is not admin), CONFLICT (already revoked)
   */
  async revoke(id: string, actor: string, at: Date = new Date(), by: Principal = SYSTEM_PRINCIPAL): Promise<StoredWaiver> {
    return withTransaction(this.pool, async (client) => {
      const current = await this.lock(client, id, by);
      if (current.revoked_at !== null) throw new StoreError('CONFLICT', `waiver ${id} is already revoked`);
      const rows = await client.query<WaiverRow>(
        `UPDATE waivers SET revoked_at = $2, revoked_by = $3, version = version + 1 WHERE id = $1 RETURNING ${COLUMNS}`,
        [id, at, auditActorOf(by, actor).actor],
      );
      const waiver = toWaiver(rows.rows[0]);
      await this.appendHistory(client, waiver, rows.rows[0].version, 'revoked', auditActorOf(by, actor), at.toISOString());
      return waiver;
    });
  }

  /**
   * The history of one waiver, oldest first.
   * @param scope the caller (default every account)
   * @throws StoreError NOT_FOUND when the waiver does not exist in the scope
   */
  async history(id: string, scope: Scoped = SYSTEM_PRINCIPAL): Promise<WaiverHistoryEntry[]> {
    if (!(await this.get(id, scope))) throw new StoreError('NOT_FOUND', `waiver ${id} not found`);
    const rows = await this.pool.query<{
      version: number;
      action: WaiverHistoryEntry['action'];
      actor: string;
      actor_token_id: string | null;
      actor_token_name: string | null;
      stated_by: string | null;
      at: Date | string;
      waiver: Waiver;
    }>('SELECT version, action, actor, actor_token_id, actor_token_name, stated_by, at, waiver FROM waiver_history WHERE waiver_id = $1 ORDER BY version', [id]);
    return rows.rows.map((r) => ({
      version: r.version,
      action: r.action,
      actor: r.actor,
      actorTokenId: r.actor_token_id,
      actorTokenName: r.actor_token_name,
      statedBy: r.stated_by,
      at: toIso(r.at),
      waiver: r.waiver,
    }));
  }

  private async appendHistory(client: PoolClient, waiver: StoredWaiver, version: number, action: WaiverHistoryEntry['action'], who: AuditActor, at: string): Promise<void> {
    await client.query(
      `INSERT INTO waiver_history (waiver_id, version, action, actor, actor_token_id, actor_token_name, stated_by, at, waiver)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)`,
      [waiver.id, version, action, who.actor, who.tokenId, who.tokenName, who.statedBy, at, JSON.stringify(waiver)],
    );
  }

  /** Lock the waiver row for a change by `by`: in its scope (SQL) and its to manage. */
  private async lock(client: PoolClient, id: string, by: Principal): Promise<WaiverRow> {
    const params: unknown[] = [id];
    const inScope = waiverScopeCondition(by, (v) => `$${params.push(v)}`);
    const rows = isUuid(id) ? await client.query<WaiverRow>(`SELECT ${COLUMNS} FROM waivers WHERE id = $1 AND ${inScope} FOR UPDATE`, params) : { rows: [] as WaiverRow[] };
    const row = rows.rows[0];
    if (!row) throw new StoreError('NOT_FOUND', `waiver ${id} not found`);
    if (!mayManage(by, row.created_by_token)) {
      throw new StoreError('FORBIDDEN', `waiver ${id} was created by another token; only an admin may change or revoke it`);
    }
    return row;
  }
}

/** Table rule violations (check, unique) as INVALID_ARGUMENT / CONFLICT; anything else unchanged. */
function rethrowConstraint(e: unknown): never {
  const code = (e as { code?: string }).code;
  if (code === '23514') throw new StoreError('INVALID_ARGUMENT', `waiver breaks a rule: ${(e as Error).message}`, { cause: e });
  if (code === '23505') throw new StoreError('CONFLICT', 'a waiver with this id exists', { cause: e });
  throw e;
}

function toWaiver(r: WaiverRow): StoredWaiver {
  return {
    id: r.id,
    ...waiverFields({
      checkId: r.check_id,
      accountId: r.account_id,
      regionId: r.region_id,
      clusterId: r.cluster_id,
      resource: r.resource,
      owner: r.owner,
      reason: r.reason,
      category: r.category,
      ticket: r.ticket,
    }),
    createdBy: r.created_by,
    createdAt: toIso(r.created_at),
    expiresAt: toIso(r.expires_at),
    ...(r.revoked_at !== null ? { revokedAt: toIsoOrNull(r.revoked_at) as string } : {}),
    ...(r.revoked_by !== null ? { revokedBy: r.revoked_by } : {}),
    createdByToken: r.created_by_token,
  };
}
