import type { Pool, QueryResultRow } from 'pg';
import { TEAM_NAME } from '@app/domain';
import { DEFAULT_TOKEN_TTL_DAYS, generateToken, hashesEqual, hashTokenSecret, MAX_TOKEN_TTL_DAYS } from './api-token.util';
import { accountsScope, ALL_ACCOUNTS, scopeCoversCondition, SYSTEM_PRINCIPAL, type AccountScope, type Role, ROLES, type Scoped } from './principal';
import { toIso, toIsoOrNull } from './sql.util';
import { StoreError } from './store.exception';
import { withTransaction } from './transaction.util';

/** A stored token as listed (never the secret nor its hash). */
export interface StoredApiToken {
  id: string;
  name: string;
  role: Role;
  /** Account ids the token may read, or null for every account. */
  accounts: string[] | null;
  /** Teams (owners) the token may read within its accounts, or null for every team (migration 1799500000000). */
  teams: string[] | null;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  createdBy: string;
}

/** Input of `apiTokens.create`. */
export interface CreateApiTokenInput {
  role: Role;
  /** Explicit account ids (at least one), or null/absent for every account. */
  accounts?: readonly string[] | null;
  /** Explicit teams (at least one; with `accounts`), or null/absent for every team. */
  teams?: readonly string[] | null;
  /** Lifetime in milliseconds (default 90 days; at most 365 days); cut to the creating token's expiry when that is sooner. */
  ttlMs?: number;
  name?: string;
  /** Who creates it: a token id, `bootstrap` or `cli`. */
  createdBy: string;
  /** Default now (tests). */
  now?: Date;
}

/** A token event of the audit table. */
export interface ApiTokenEvent {
  id: number;
  at: string;
  event: 'created' | 'revoked' | 'denied';
  tokenId: string | null;
  actor: string | null;
  clientAddress: string | null;
  reason: string | null;
}

/** Why a token use was denied (audit `reason`). */
export type TokenDenialReason = 'unknown' | 'bad-secret' | 'expired' | 'revoked' | 'forbidden';

interface TokenRow extends QueryResultRow {
  id: string;
  name: string;
  role: Role;
  account_ids: string[] | null;
  team_names: string[] | null;
  secret_hash: Buffer;
  created_at: Date | string;
  expires_at: Date | string;
  last_used_at: Date | string | null;
  revoked_at: Date | string | null;
  created_by: string;
}

const TOKEN_COLUMNS = 'id, name, role, account_ids, team_names, secret_hash, created_at, expires_at, last_used_at, revoked_at, created_by';
const ACCOUNT_ID = /^[0-9A-Za-z_.-]{1,64}$/;
const DAY_MS = 86_400_000;

/**
 * Scoped API tokens and their audit trail (migration 1796200000000). Secrets are hashed with the
 * server key passed to the constructor; tokens can only be created when a key is configured.
 */
export class ApiTokenRepository {
  /**
   * @param pool the store's connection pool
   * @param hashKey the server key (TOKEN_HASH_KEY); absent: tokens can be listed and revoked, not created or verified
   */
  constructor(
    private readonly pool: Pool,
    private readonly hashKey: string | undefined,
  ) {}

  /** Whether a server key is configured (tokens can be created and verified). */
  get hasKey(): boolean {
    return this.hashKey !== undefined;
  }

  /**
   * Create a token; writes the row and a `created` audit event in one transaction.
   * @returns the stored token and the plaintext `token` (shown once, never stored)
   * @throws StoreError INVALID_ARGUMENT for an unknown role, empty or malformed account list,
   *   or a lifetime not in (0, 365 days]; UNAVAILABLE when no server key is configured
   */
  async create(input: CreateApiTokenInput): Promise<{ token: string; stored: StoredApiToken }> {
    if (this.hashKey === undefined) throw new StoreError('UNAVAILABLE', 'TOKEN_HASH_KEY is not configured: tokens cannot be created');
    if (!ROLES.includes(input.role)) throw new StoreError('INVALID_ARGUMENT', `role must be one of ${ROLES.join(', ')}, got "${input.role}"`);
    const accounts = input.accounts ?? null;
    if (accounts !== null) {
      if (accounts.length === 0) throw new StoreError('INVALID_ARGUMENT', 'accounts must list at least one account id (or be omitted for all)');
      const bad = accounts.find((a) => !ACCOUNT_ID.test(a));
      if (bad !== undefined) throw new StoreError('INVALID_ARGUMENT', `account id "${bad.slice(0, 80)}" is malformed`);
    }
    const teams = input.teams ?? null;
    if (teams !== null) {
      if (teams.length === 0) throw new StoreError('INVALID_ARGUMENT', 'teams must list at least one team (or be omitted for every team)');
      if (accounts === null) throw new StoreError('INVALID_ARGUMENT', "a team-scoped token lists its accounts too: give the accounts of the team's clusters");
      const bad = teams.find((t) => !TEAM_NAME.test(t));
      if (bad !== undefined) throw new StoreError('INVALID_ARGUMENT', `team "${bad.slice(0, 80)}" is malformed (a letter or digit, then up to 62 letters, digits, ".", "_" or "-")`);
    }
    const ttlMs = input.ttlMs ?? DEFAULT_TOKEN_TTL_DAYS * DAY_MS;
    if (!Number.isFinite(ttlMs) || ttlMs <= 0 || ttlMs > MAX_TOKEN_TTL_DAYS * DAY_MS) {
      throw new StoreError('INVALID_ARGUMENT', `expiry must be more than 0 and at most ${MAX_TOKEN_TTL_DAYS} days`);
    }
    const name = (input.name ?? '').slice(0, 200);
    const now = input.now ?? new Date();
    const generated = generateToken();
    const hash = hashTokenSecret(this.hashKey, generated.id, generated.secret);
    return withTransaction(this.pool, async (client) => {
      // The creating token's row, share-locked until this transaction ends: a revocation (an UPDATE of that row)
      // waits for this token to be written, and the revocation's next pass sees it (revokeWithDescendants); one
      // that committed first is seen here, and the creation is refused.
      const creator = await client.query<{ revoked_at: Date | null; expires_at: Date }>('SELECT revoked_at, expires_at FROM api_tokens WHERE id = $1 FOR SHARE', [input.createdBy]);
      const c = creator.rows[0];
      if (c && c.revoked_at !== null) throw new StoreError('FORBIDDEN', `token ${input.createdBy} was revoked: it can create no token`);
      if (c && new Date(c.expires_at).getTime() <= now.getTime()) throw new StoreError('FORBIDDEN', `token ${input.createdBy} has expired: it can create no token`);
      const row = await client.query<TokenRow>(
        // A token minted by a token expires no later than its creator (`created_by` is the creating token's id,
        // or `bootstrap` / `cli`, which match no token and leave the expiry as asked).
        `INSERT INTO api_tokens (id, name, role, account_ids, secret_hash, created_at, expires_at, created_by, team_names)
         VALUES ($1, $2, $3, $4::text[], $5, $6,
                 LEAST($7::timestamptz, COALESCE((SELECT p.expires_at FROM api_tokens p WHERE p.id = $8), $7::timestamptz)), $8, $9::text[])
         RETURNING ${TOKEN_COLUMNS}`,
        [
          generated.id,
          name,
          input.role,
          accounts ? [...new Set(accounts)].sort() : null,
          hash,
          now,
          new Date(now.getTime() + ttlMs),
          input.createdBy,
          teams ? [...new Set(teams)].sort() : null,
        ],
      );
      await client.query(`INSERT INTO api_token_events (at, event, token_id, actor) VALUES ($1, 'created', $2, $3)`, [now, generated.id, input.createdBy]);
      return { token: generated.token, stored: toStoredToken(row.rows[0]) };
    });
  }

  /**
   * Verify a parsed token against its row: one primary-key read.
   * @returns the token when id and secret match and it is neither revoked nor expired, else the denial reason
   * @throws StoreError UNAVAILABLE when no server key is configured
   */
  async verify(id: string, secret: string, now = new Date()): Promise<{ ok: true; token: StoredApiToken } | { ok: false; reason: TokenDenialReason }> {
    if (this.hashKey === undefined) throw new StoreError('UNAVAILABLE', 'TOKEN_HASH_KEY is not configured: tokens cannot be verified');
    const rows = await this.pool.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE id = $1`, [id]);
    const row = rows.rows[0];
    // Hash anyway when the id is unknown, so timing does not tell known ids from unknown ones.
    const presented = hashTokenSecret(this.hashKey, id, secret);
    if (!row) return { ok: false, reason: 'unknown' };
    if (!hashesEqual(Buffer.from(row.secret_hash), presented)) return { ok: false, reason: 'bad-secret' };
    if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
    if (new Date(row.expires_at).getTime() <= now.getTime()) return { ok: false, reason: 'expired' };
    return { ok: true, token: toStoredToken(row) };
  }

  /** Record a use: sets `last_used_at` unless it was set less than a minute ago (bounded writes). */
  async touch(id: string, now = new Date()): Promise<void> {
    await this.pool.query(
      `UPDATE api_tokens SET last_used_at = $2::timestamptz
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
      [id, now],
    );
  }

  /** One token (without hash), or null. */
  async get(id: string): Promise<StoredApiToken | null> {
    const rows = await this.pool.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE id = $1`, [id]);
    return rows.rows[0] ? toStoredToken(rows.rows[0]) : null;
  }

  /**
   * Every token whose accounts lie within the scope, newest first (admins; bounded by how many an
   * organisation creates). An admin scoped to some accounts sees only tokens over a subset of them
   * (never all-accounts tokens), filtered in SQL.
   * @param scope the caller (default every account: CLI)
   */
  async list(scope: Scoped = SYSTEM_PRINCIPAL): Promise<StoredApiToken[]> {
    const params: unknown[] = [];
    const inScope = `${scopeCoversCondition('account_ids', scope, (v) => `$${params.push(v)}`)} AND ${teamsCoverCondition('team_names', scope, (v) => `$${params.push(v)}`)}`;
    const rows = await this.pool.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE ${inScope} ORDER BY created_at DESC, id DESC`, params);
    return rows.rows.map(toStoredToken);
  }

  /**
   * Revoke a token (idempotent: revoking again keeps the first time) and record a `revoked` event.
   * @param scope the caller (default every account): only tokens whose accounts lie within it
   * @returns the token, or null when no token in the scope has this id
   */
  async revoke(id: string, actor: string, scope: Scoped = SYSTEM_PRINCIPAL): Promise<StoredApiToken | null> {
    return (await this.revokeWithDescendants(id, actor, scope))?.token ?? null;
  }

  /**
   * Revoke a token and every token it minted, transitively; each newly revoked descendant gets a `revoked` event
   * with reason `creator-revoked`. Descendants lie within the token's scope (the scoped-admin rule), hence within the
   * caller's.
   *
   * Tokens minted while the revocation runs are revoked too. One transaction revokes the tree as its statement
   * snapshot sees it, which locks every row of that tree; a creation holding a share lock on its creator's row
   * (`create`) makes that UPDATE wait until the new token is committed, and a creation arriving later waits for this
   * transaction and then finds its creator revoked. The statement runs again, each time with a fresh snapshot
   * (READ COMMITTED), until a pass finds no token it had not revoked: the new tokens committed during a pass are
   * found by the next one.
   * @param scope the caller (default every account): only a token whose accounts lie within it is found
   * @returns the token and the ids of its descendants (revoked now or before), or null when no token in the scope has this id
   */
  async revokeWithDescendants(id: string, actor: string, scope: Scoped = SYSTEM_PRINCIPAL): Promise<{ token: StoredApiToken; descendants: string[] } | null> {
    return withTransaction(this.pool, async (client) => {
      let root: TokenRow | undefined;
      const descendants = new Set<string>();
      for (let pass = 0; ; pass += 1) {
        const params: unknown[] = [id, actor, pass === 0];
        const inScope = `${scopeCoversCondition('account_ids', scope, (v) => `$${params.push(v)}`)} AND ${teamsCoverCondition('team_names', scope, (v) => `$${params.push(v)}`)}`;
        const rows = await client.query<TokenRow & { descendant: boolean; was_revoked: boolean }>(
          `WITH RECURSIVE root AS (SELECT id FROM api_tokens WHERE id = $1 AND ${inScope}),
                tree AS (SELECT id, false AS descendant FROM root
                         UNION SELECT t.id, true FROM api_tokens t JOIN tree ON t.created_by = tree.id),
                before AS (SELECT t.id, t.revoked_at IS NOT NULL AS was_revoked, tree.descendant FROM api_tokens t JOIN tree USING (id)),
                r AS (UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE id IN (SELECT id FROM tree) RETURNING ${TOKEN_COLUMNS}),
                e AS (INSERT INTO api_token_events (event, token_id, actor, reason)
                      SELECT 'revoked', b.id, $2, CASE WHEN b.descendant THEN 'creator-revoked' END FROM before b
                       WHERE (NOT b.descendant AND $3::boolean) OR (b.descendant AND NOT b.was_revoked))
           SELECT r.*, b.descendant, b.was_revoked FROM r JOIN before b USING (id)`,
          params,
        );
        root ??= rows.rows.find((r) => !r.descendant);
        if (!root) return null;
        const before = descendants.size;
        for (const r of rows.rows) if (r.descendant) descendants.add(r.id);
        if (pass > 0 && descendants.size === before) break;
      }
      return { token: toStoredToken(root), descendants: [...descendants] };
    });
  }

  /** Record a denied use (never the presented secret). */
  async recordDenied(tokenId: string | null, clientAddress: string | null, reason: TokenDenialReason): Promise<void> {
    await this.pool.query(`INSERT INTO api_token_events (event, token_id, client_address, reason) VALUES ('denied', $1, $2, $3)`, [
      tokenId,
      clientAddress,
      reason,
    ]);
  }

  /** Audit events, newest first, optionally of one token; at most `limit` (default 100). */
  async events(tokenId?: string, limit = 100): Promise<ApiTokenEvent[]> {
    const rows = await this.pool.query<{
      id: string | number;
      at: Date;
      event: ApiTokenEvent['event'];
      token_id: string | null;
      actor: string | null;
      client_address: string | null;
      reason: string | null;
    }>(
      `SELECT id, at, event, token_id, actor, client_address, reason FROM api_token_events
        WHERE ($1::text IS NULL OR token_id = $1) ORDER BY id DESC LIMIT $2`,
      [tokenId ?? null, limit],
    );
    return rows.rows.map((r) => ({
      id: Number(r.id),
      at: toIso(r.at),
      event: r.event,
      tokenId: r.token_id,
      actor: r.actor,
      clientAddress: r.client_address,
      reason: r.reason,
    }));
  }
}

/** The account scope of a stored token. */
export function scopeOfToken(t: Pick<StoredApiToken, 'accounts'>): AccountScope {
  return t.accounts === null ? ALL_ACCOUNTS : accountsScope(t.accounts);
}

/** The team scope of a stored token (Scoped.teamScope): its teams, sorted, or undefined for every team. */
export function teamScopeOfToken(t: Pick<StoredApiToken, 'teams'>): readonly string[] | undefined {
  return t.teams === null ? undefined : Object.freeze([...t.teams].sort());
}

/**
 * The SQL condition for rows over a SET of teams (`column`: `text[]`, NULL = every team): TRUE without a team scope,
 * else the row's teams must lie within the principal's (a token over every team is never shown to a team-scoped one).
 */
function teamsCoverCondition(column: string, scoped: Scoped, param: (value: unknown) => string): string {
  if (scoped.teamScope === undefined) return 'TRUE';
  return `(${column} IS NOT NULL AND ${column} <@ ${param([...scoped.teamScope])}::text[])`;
}

function toStoredToken(r: TokenRow): StoredApiToken {
  return {
    id: r.id,
    name: r.name,
    role: r.role,
    accounts: r.account_ids,
    teams: r.team_names ?? null,
    createdAt: toIso(r.created_at),
    expiresAt: toIso(r.expires_at),
    lastUsedAt: toIsoOrNull(r.last_used_at),
    revokedAt: toIsoOrNull(r.revoked_at),
    createdBy: r.created_by,
  };
}
