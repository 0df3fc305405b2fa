/**
 * The one policy layer: who is asking (`Principal`: role + account scope) and the SQL
 * filter every read applies for it. REST, GraphQL, `/metrics` and later readers (reports,
 * forecasts) pass the request's principal to the repositories, which filter INSIDE SQL (counts
 * and aggregates included), never after the fact. See README "Scoped tokens: using the scope".
 */

/** Roles, weakest first: viewer reads; operator also starts scans and runs what-ifs; admin also manages tokens and others' waivers. */
export type Role = 'viewer' | 'operator' | 'admin';

/** Every role, weakest first. */
export const ROLES: readonly Role[] = ['viewer', 'operator', 'admin'];

/** Which Alibaba Cloud accounts (UIDs) a principal may see: all, or an explicit list (possibly empty). */
export type AccountScope = { readonly all: true } | { readonly all: false; readonly accountIds: readonly string[] };

/** The scope of every account. */
export const ALL_ACCOUNTS: AccountScope = Object.freeze({ all: true });

/** The scope of exactly these accounts (deduplicated, sorted). */
export function accountsScope(accountIds: readonly string[]): AccountScope {
  return Object.freeze({ all: false, accountIds: Object.freeze([...new Set(accountIds)].sort()) });
}

/** Anything that carries an account scope (a Principal, or the scope alone in internal code). */
export interface Scoped {
  readonly accountScope: AccountScope;
  /**
   * The teams (owners, libs/domain owners.ts) the principal may read, or undefined for every team. A team-scoped
   * principal sees only rows of its teams where rows carry a team (findings, quota samples, headroom, what-if);
   * rows outside every cluster carry none and are outside its scope. Readers that cannot filter by team refuse it
   * (WhereBuilder.inScope without a team column matches nothing; the API's TeamAware routes).
   */
  readonly teamScope?: readonly string[];
}

/**
 * Who is asking: the request's authenticated token (or the bootstrap `API_TOKEN`, or the process
 * itself for internal jobs), its role and account scope.
 */
export interface Principal extends Scoped {
  readonly role: Role;
  /** `token`: an `fa_...` token; `bootstrap`: the API_TOKEN admin; `system`: in-process callers (CLI, worker). */
  readonly kind: 'token' | 'bootstrap' | 'system';
  /** The token id (`kind: 'token'`), else null. */
  readonly tokenId: string | null;
  /** The token's name as its creator gave it (`kind: 'token'` with a name); audit rows record it next to the id. */
  readonly tokenName?: string;
}

/** In-process callers (CLI, worker, reports job): admin over every account. Never given to a request. */
export const SYSTEM_PRINCIPAL: Principal = Object.freeze({ role: 'admin', kind: 'system', tokenId: null, accountScope: ALL_ACCOUNTS });

/** Whether `role` is at least `required` (viewer < operator < admin). */
export function roleAllows(role: Role, required: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(required);
}

/** Whether the scope includes `accountId`. */
export function scopeIncludes(scope: AccountScope, accountId: string): boolean {
  return scope.all || scope.accountIds.includes(accountId);
}

/**
 * The SQL condition restricting `column` (an account id column, from code, never input) to the
 * scope, registering the bind parameter through `param`: `TRUE` for every account,
 * `column = ANY($n::text[])` otherwise (an empty list matches nothing).
 */
export function scopeCondition(column: string, scoped: Scoped, param: (value: unknown) => string): string {
  const scope = scoped.accountScope;
  if (scope.all) return 'TRUE';
  return `${column} = ANY(${param([...scope.accountIds])}::text[])`;
}

/** Whether the principal's team scope includes `team` (every team without a team scope; never a row without team). */
export function teamScopeIncludes(scoped: Scoped, team: string | null | undefined): boolean {
  if (scoped.teamScope === undefined) return true;
  return team !== null && team !== undefined && scoped.teamScope.includes(team);
}

/**
 * The SQL condition restricting a team column (from code, never input) to the principal's teams: `TRUE` without a
 * team scope, `column = ANY($n::text[])` otherwise (NULL teams match nothing).
 */
export function teamCondition(column: string, scoped: Scoped, param: (value: unknown) => string): string {
  if (scoped.teamScope === undefined) return 'TRUE';
  return `${column} = ANY(${param([...scoped.teamScope])}::text[])`;
}

/**
 * The SQL condition for rows that cover a SET of accounts (`column`: a `text[]` of account ids, NULL
 * meaning every account; from code, never input): `TRUE` for an all-accounts scope, otherwise the row's
 * accounts must all lie within the scope (`column IS NOT NULL AND column <@ $n::text[]`), so a row over
 * every account, or over any account outside the scope, is never shown to a scoped principal.
 */
export function scopeCoversCondition(column: string, scoped: Scoped, param: (value: unknown) => string): string {
  const scope = scoped.accountScope;
  if (scope.all) return 'TRUE';
  return `(${column} IS NOT NULL AND ${column} <@ ${param([...scope.accountIds])}::text[])`;
}

/**
 * Whether `principal` may change or revoke a record created by token `createdByToken` (null: the
 * bootstrap API_TOKEN, the CLI or legacy rows): admins may manage anyone's, viewers and operators only
 * what their own `fa_` token created ("admin (+ manage tokens and waivers of others)").
 */
export function mayManage(principal: Principal, createdByToken: string | null): boolean {
  if (roleAllows(principal.role, 'admin')) return true;
  return principal.kind === 'token' && principal.tokenId !== null && principal.tokenId === createdByToken;
}
