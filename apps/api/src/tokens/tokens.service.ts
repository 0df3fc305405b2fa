import { Inject, Injectable } from '@nestjs/common';
import { ApiTokenRepository, scopeIncludes, type AccountScope, type Principal, type Role, type StoredApiToken } from '@app/store';
import { TokenAuthenticator } from '../auth/token-authenticator';
import { ApiError } from '../common/api.exception';

/** Who acted, for the audit table: the token id, or `bootstrap`. */
export function actorOf(p: Principal): string {
  return p.tokenId ?? p.kind;
}

/** What to create (already validated at the boundary: REST body or GraphQL input, tokens.schemas.ts). */
export interface NewToken {
  role: Role;
  /** Explicit account ids, or undefined for every account. */
  accounts?: readonly string[] | undefined;
  /** Explicit teams (owners; with `accounts`), or undefined for every team. */
  teams?: readonly string[] | undefined;
  /** Lifetime in milliseconds (the store enforces (0, 365 days]). */
  ttlMs: number;
  name?: string | undefined;
}

/**
 * The scoped-admin rule, one place for REST `/v1/tokens` and GraphQL `createToken`: an admin
 * scoped to accounts S may only create tokens over a non-empty subset of S, never an all-accounts token. An
 * all-accounts admin may create any token.
 * @throws ApiError FORBIDDEN naming the accounts outside the scope, or for an all-accounts token from a scoped admin
 */
export function assertCreatableWithin(scope: AccountScope, accounts: readonly string[] | undefined): void {
  if (scope.all) return;
  if (accounts === undefined) {
    throw new ApiError('FORBIDDEN', 'a token scoped to some accounts cannot create an all-accounts token: list the accounts (within its scope)');
  }
  const outside = accounts.filter((a) => !scopeIncludes(scope, a));
  if (outside.length > 0) throw new ApiError('FORBIDDEN', `accounts ${outside.join(', ')} are outside the token's account scope`);
}

/**
 * The scoped-admin rule for teams: an admin scoped to teams T may only create tokens over a non-empty subset of T,
 * never a token over every team.
 * @throws ApiError FORBIDDEN naming the teams outside the scope, or for an every-team token from a team-scoped admin
 */
export function assertTeamsCreatableWithin(teamScope: readonly string[] | undefined, teams: readonly string[] | undefined): void {
  if (teamScope === undefined) return;
  if (teams === undefined) throw new ApiError('FORBIDDEN', 'a token scoped to some teams cannot create a token over every team: list the teams (within its scope)');
  const outside = teams.filter((t) => !teamScope.includes(t));
  if (outside.length > 0) throw new ApiError('FORBIDDEN', `teams ${outside.join(', ')} are outside the token's team scope`);
}

/**
 * Token management for admins, shared by REST `/v1/tokens` and the GraphQL `tokens` / `createToken` /
 * `revokeToken` fields (the caller checks the admin role first: RequireRole / requireRole). Audit rows
 * (`created`, `revoked`) are written by ApiTokenRepository in the same statement or transaction as the change.
 * Listing and revoking see only tokens whose accounts lie within the caller's scope (filtered in SQL by the
 * repository); tokens outside it behave as absent (404), so their ids are not confirmed.
 */
@Injectable()
export class TokensService {
  constructor(
    private readonly tokens: ApiTokenRepository,
    @Inject(TokenAuthenticator) private readonly auth: TokenAuthenticator,
  ) {}

  /** Every token within the caller's scope, newest first (created_at, id descending); never secrets. */
  list(principal: Principal): Promise<StoredApiToken[]> {
    return this.tokens.list(principal);
  }

  /**
   * Create a token under the scoped-admin rule. A token created by a token expires no later than its creator (the
   * store cuts the requested lifetime; the answer's `expiresAt` says when).
   * @returns the stored token and the plaintext `token` (shown once)
   * @throws ApiError TOKENS_DISABLED without TOKEN_HASH_KEY; FORBIDDEN (assertCreatableWithin);
   *   StoreError INVALID_ARGUMENT for a lifetime outside (0, 365 days]
   */
  async create(input: NewToken, principal: Principal): Promise<StoredApiToken & { token: string }> {
    if (!this.tokens.hasKey) throw new ApiError('TOKENS_DISABLED', 'TOKEN_HASH_KEY is not configured: this server cannot create tokens');
    assertCreatableWithin(principal.accountScope, input.accounts);
    assertTeamsCreatableWithin(principal.teamScope, input.teams);
    const { token, stored } = await this.tokens.create({
      role: input.role,
      accounts: input.accounts ?? null,
      teams: input.teams ?? null,
      ttlMs: input.ttlMs,
      ...(input.name !== undefined ? { name: input.name } : {}),
      createdBy: actorOf(principal),
    });
    return { ...stored, token };
  }

  /**
   * Revoke a token within the caller's scope (idempotent), and with it every token it minted, transitively;
   * drop them all from this replica's cache at once (other replicas: within the cache TTL).
   * @throws ApiError NOT_FOUND when no token within the scope has this id
   */
  async revoke(id: string, principal: Principal): Promise<StoredApiToken> {
    const revoked = await this.tokens.revokeWithDescendants(id, actorOf(principal), principal);
    if (!revoked) throw new ApiError('NOT_FOUND', `token ${id} not found`);
    for (const t of [id, ...revoked.descendants]) this.auth.forget(t);
    return revoked.token;
  }
}
