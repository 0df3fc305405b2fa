/**
 * Authentication of API requests: the bootstrap `API_TOKEN` (admin over every account,
 * so `demo` and existing setups keep working) and scoped `fa_<id>_<secret>` tokens from the store.
 * Shared by the REST guard and the GraphQL context, so both transports get the same Principal.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { ALL_ACCOUNTS, StoreError, looksLikeToken, parseToken, scopeOfToken, teamScopeOfToken, type ApiTokenRepository, type Principal, type TokenDenialReason } from '@app/store';
import { ApiError } from '../common/api.exception';

/** Tuning of the authenticator (defaults in brackets). */
export interface AuthOptions {
  /** How long a verified token is trusted without a database read, ms [2000]. Bounds how late a revocation takes effect on each replica. */
  cacheTtlMs?: number;
  /**
   * Failed authentications per client address, and per token id, per window [20]. Past it, further FAILED attempts
   * from that address or against that token id answer 429 (with `Retry-After`) instead of 401; a valid token is
   * always verified first and always accepted, so a neighbour behind the same NAT or ingress cannot lock anyone out.
   */
  maxFailures?: number;
  /** Length of the failure-counting window, ms [60000]. */
  failureWindowMs?: number;
}

/** Most cached tokens / counted addresses and token ids kept in memory (oldest dropped first). */
const MAX_ENTRIES = 10_000;

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** The principal of the bootstrap API_TOKEN. */
export const BOOTSTRAP_PRINCIPAL: Principal = Object.freeze({ role: 'admin', kind: 'bootstrap', tokenId: null, accountScope: ALL_ACCOUNTS });

/** One failure-counting window (of an address or a token id). */
interface FailureWindow {
  count: number;
  windowStart: number;
}

/**
 * Turns an `Authorization` header into a Principal, or throws ApiError UNAUTHENTICATED /
 * RATE_LIMITED. A malformed `fa_` token (bad shape or checksum) is refused without a database
 * read. Failures are logged with the reason, token id and client address, never the secret;
 * denied uses of a real token id also go to the audit table.
 *
 * Throttling: the token is verified FIRST; a valid one is accepted whatever its address did.
 * Failures are counted per client address (Express `req.ip`: the socket peer, or the `X-Forwarded-For` hop the
 * `API_TRUST_PROXY` setting trusts) and per token id (so guesses at one token from many addresses are counted
 * together); a failure from an address or against a token id over `maxFailures` in the window answers
 * RATE_LIMITED, whose message and `Retry-After` give the same number of seconds (until the window ends).
 */
export class TokenAuthenticator {
  private readonly logger = new Logger('Auth');
  private readonly bootstrap: Buffer;
  private readonly cache = new Map<string, { principal: Principal; until: number }>();
  private readonly failures = new Map<string, FailureWindow>();
  private readonly tokenFailures = new Map<string, FailureWindow>();
  private readonly cacheTtlMs: number;
  private readonly maxFailures: number;
  private readonly failureWindowMs: number;

  /**
   * @param bootstrapToken the API_TOKEN (admin, every account)
   * @param tokens the store's token repository
   * @param options cache and rate-limit tuning
   * @param now clock (tests)
   */
  constructor(
    bootstrapToken: string,
    private readonly tokens: ApiTokenRepository,
    options: AuthOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.bootstrap = sha256(bootstrapToken);
    this.cacheTtlMs = options.cacheTtlMs ?? 2000;
    this.maxFailures = options.maxFailures ?? 20;
    this.failureWindowMs = options.failureWindowMs ?? 60_000;
  }

  /**
   * Authenticate one request.
   * @param header the `Authorization` header value
   * @param clientAddress the client address (rate limiting, logs, audit)
   * @throws ApiError UNAUTHENTICATED for a missing or wrong token; RATE_LIMITED (with `retryAfterSeconds`) for a
   *   wrong token when its address or its token id failed `maxFailures` times in the window. Never for a valid token.
   */
  async authenticate(header: string | undefined, clientAddress: string): Promise<Principal> {
    const match = typeof header === 'string' ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    if (!match) return this.deny(clientAddress, 'missing', null, 'Missing bearer token: send "Authorization: Bearer <token>"');
    const presented = match[1];
    if (!looksLikeToken(presented)) {
      if (timingSafeEqual(sha256(presented), this.bootstrap)) return BOOTSTRAP_PRINCIPAL;
      return this.deny(clientAddress, 'invalid', null, 'Invalid bearer token');
    }
    const parsed = parseToken(presented);
    if (!parsed) return this.deny(clientAddress, 'malformed', null, 'Invalid bearer token: not a well-formed fa_ token (bad shape or checksum)');
    if (!this.tokens.hasKey) {
      return this.deny(clientAddress, 'disabled', null, 'Scoped tokens are not enabled on this server (TOKEN_HASH_KEY is not set)');
    }
    const cacheKey = `${parsed.id}:${sha256(parsed.secret).toString('base64')}`;
    const cached = this.cache.get(cacheKey);
    const t = this.now();
    if (cached && cached.until > t) return cached.principal;
    const verdict = await this.tokens.verify(parsed.id, parsed.secret, new Date(t)).catch((e: unknown) => {
      if (e instanceof StoreError) throw e;
      this.logger.error(`token store unavailable: ${e instanceof Error ? e.message : String(e)}`);
      throw new StoreError('UNAVAILABLE', 'The token store is unavailable; retry later', { cause: e });
    });
    if (!verdict.ok) {
      await this.audit(parsed.id, clientAddress, verdict.reason);
      const why = verdict.reason === 'expired' ? 'token expired' : verdict.reason === 'revoked' ? 'token revoked' : 'invalid bearer token';
      return this.deny(clientAddress, verdict.reason, parsed.id, `Invalid bearer token: ${why}`);
    }
    const principal: Principal = Object.freeze({
      role: verdict.token.role,
      kind: 'token',
      tokenId: verdict.token.id,
      ...(verdict.token.name ? { tokenName: verdict.token.name } : {}),
      accountScope: scopeOfToken(verdict.token),
      ...(verdict.token.teams !== null ? { teamScope: teamScopeOfToken(verdict.token) } : {}),
    });
    const until = Math.min(t + this.cacheTtlMs, new Date(verdict.token.expiresAt).getTime());
    this.remember(this.cache, cacheKey, { principal, until });
    this.tokens.touch(verdict.token.id, new Date(t)).catch((e: unknown) => this.logger.warn(`last_used_at of ${verdict.token.id} not updated: ${String(e)}`));
    return principal;
  }

  /**
   * The principal of a request that `authenticate` would accept WITHOUT any I/O: the bootstrap token, or an `fa_`
   * token whose verdict is cached and still valid (the same cache and expiry `authenticate` uses, so revocation holds
   * within the same bound). `undefined` for anything else (no header, unknown, malformed, uncached token): the caller
   * then takes the normal path, which authenticates, counts failures and audits. Never counts a failure, never
   * audits, never throws. For the GraphQL answer fast path. (A valid token is accepted whatever its address did, as
   * in `authenticate`.)
   * @param header the `Authorization` header value
   */
  cachedPrincipal(header: string | undefined): Principal | undefined {
    const match = typeof header === 'string' ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    if (!match) return undefined;
    const presented = match[1];
    if (!looksLikeToken(presented)) return timingSafeEqual(sha256(presented), this.bootstrap) ? BOOTSTRAP_PRINCIPAL : undefined;
    const parsed = parseToken(presented);
    if (!parsed) return undefined;
    const cached = this.cache.get(`${parsed.id}:${sha256(parsed.secret).toString('base64')}`);
    return cached && cached.until > this.now() ? cached.principal : undefined;
  }

  /** Drop cached verdicts of a token (called after revoking it through this replica). */
  forget(tokenId: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${tokenId}:`)) this.cache.delete(key);
  }

  /** Record a use refused for lack of role (audit `forbidden`). */
  async forbidden(principal: Principal, clientAddress: string, what: string): Promise<void> {
    this.logger.warn(`auth forbidden: ${what} needs a higher role than ${principal.role} (token ${principal.tokenId ?? principal.kind}, address ${clientAddress})`);
    if (principal.tokenId) await this.audit(principal.tokenId, clientAddress, 'forbidden');
  }

  private async audit(tokenId: string, clientAddress: string, reason: TokenDenialReason): Promise<void> {
    await this.tokens.recordDenied(tokenId, clientAddress, reason).catch((e: unknown) => this.logger.error(`audit of a denied use failed: ${String(e)}`));
  }

  /**
   * Count a failure against the address (and the token id, when the token named one) and throw: RATE_LIMITED when
   * either is now past `maxFailures` in its window, else UNAUTHENTICATED.
   */
  private deny(clientAddress: string, reason: string, tokenId: string | null, message: string): never {
    const t = this.now();
    const byAddress = this.countFailure(this.failures, clientAddress, t);
    const byToken = tokenId ? this.countFailure(this.tokenFailures, tokenId, t) : undefined;
    this.logger.warn(`auth denied: ${reason}${tokenId ? ` (token ${tokenId})` : ''} from ${clientAddress}`);
    const over = [byAddress.count > this.maxFailures ? { what: 'from this address', w: byAddress } : undefined, byToken && byToken.count > this.maxFailures ? { what: 'against this token id', w: byToken } : undefined].filter(
      (x): x is { what: string; w: FailureWindow } => x !== undefined,
    );
    if (over.length > 0) {
      const seconds = Math.max(1, Math.ceil((Math.max(...over.map((o) => o.w.windowStart)) + this.failureWindowMs - t) / 1000));
      throw new ApiError('RATE_LIMITED', `Too many failed authentications ${over.map((o) => o.what).join(' and ')}; retry in ${seconds} s`, undefined, seconds);
    }
    throw new ApiError('UNAUTHENTICATED', message);
  }

  private countFailure(map: Map<string, FailureWindow>, key: string, t: number): FailureWindow {
    const f = map.get(key);
    if (f && t - f.windowStart < this.failureWindowMs) {
      f.count++;
      return f;
    }
    const fresh = { count: 1, windowStart: t };
    this.remember(map, key, fresh);
    return fresh;
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as string);
  }
}
