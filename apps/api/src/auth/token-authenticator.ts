/**
 * Authentication of API requests (issue 11): the bootstrap `API_TOKEN` (admin over every account,
 * so `demo` and existing setups keep working) and scoped `fa_<id>_<secret>` tokens from the store.
 * Shared by the REST guard and the GraphQL context, so both transports get the same Principal.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { ALL_ACCOUNTS, StoreError, looksLikeToken, parseToken, scopeOfToken, type ApiTokenRepository, type Principal, type TokenDenialReason } from '@app/store';
import { ApiError } from '../common/api.exception';

/** Tuning of the authenticator (defaults in brackets). */
export interface AuthOptions {
  /** How long a verified token is trusted without a database read, ms [2000]. Bounds how late a revocation takes effect on each replica. */
  cacheTtlMs?: number;
  /** Failed authentications per client address per window before it is refused with 429 [20]. */
  maxFailures?: number;
  /** Length of the failure-counting window, ms [60000]. */
  failureWindowMs?: number;
}

/** Most cached tokens / counted addresses kept in memory (oldest dropped first). */
const MAX_ENTRIES = 10_000;

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** The principal of the bootstrap API_TOKEN. */
export const BOOTSTRAP_PRINCIPAL: Principal = Object.freeze({ role: 'admin', kind: 'bootstrap', tokenId: null, accountScope: ALL_ACCOUNTS });

/**
 * Turns an `Authorization` header into a Principal, or throws ApiError UNAUTHENTICATED /
 * RATE_LIMITED. A malformed `fa_` token (bad shape or checksum) is refused without a database
 * read. Failures are logged with the reason, token id and client address, never the secret;
 * denied uses of a real token id also go to the audit table.
 */
export class TokenAuthenticator {
  private readonly logger = new Logger('Auth');
  private readonly bootstrap: Buffer;
  private readonly cache = new Map<string, { principal: Principal; until: number }>();
  private readonly failures = new Map<string, { count: number; windowStart: number }>();
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
   * @param clientAddress the peer address (rate limiting, logs, audit)
   * @throws ApiError RATE_LIMITED when the address failed too often recently; UNAUTHENTICATED otherwise
   */
  async authenticate(header: string | undefined, clientAddress: string): Promise<Principal> {
    this.assertNotRateLimited(clientAddress);
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
      accountScope: scopeOfToken(verdict.token),
    });
    const until = Math.min(t + this.cacheTtlMs, new Date(verdict.token.expiresAt).getTime());
    this.remember(this.cache, cacheKey, { principal, until });
    this.tokens.touch(verdict.token.id, new Date(t)).catch((e: unknown) => this.logger.warn(`last_used_at of ${verdict.token.id} not updated: ${String(e)}`));
    return principal;
  }

  /**
   * The principal of a request that `authenticate` would accept WITHOUT any I/O: the bootstrap token, or an `fa_`
   * token whose verdict is cached and still valid (the same cache and expiry `authenticate` uses, so revocation holds
   * within the same bound). `undefined` for anything else (no header, unknown, malformed, uncached token, or an
   * address currently rate-limited): the caller then takes the normal path, which authenticates, counts failures
   * and audits. Never counts a failure, never audits, never throws. For the GraphQL answer fast path.
   * @param header the `Authorization` header value
   * @param clientAddress the peer address (a rate-limited address gets `undefined`)
   */
  cachedPrincipal(header: string | undefined, clientAddress: string): Principal | undefined {
    const f = this.failures.get(clientAddress);
    if (f && this.now() - f.windowStart < this.failureWindowMs && f.count >= this.maxFailures) return undefined;
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

  private deny(clientAddress: string, reason: string, tokenId: string | null, message: string): never {
    this.countFailure(clientAddress);
    this.logger.warn(`auth denied: ${reason}${tokenId ? ` (token ${tokenId})` : ''} from ${clientAddress}`);
    throw new ApiError('UNAUTHENTICATED', message);
  }

  private assertNotRateLimited(clientAddress: string): void {
    const f = this.failures.get(clientAddress);
    if (f && this.now() - f.windowStart < this.failureWindowMs && f.count >= this.maxFailures) {
      throw new ApiError('RATE_LIMITED', `Too many failed authentications from this address; retry in ${Math.ceil((f.windowStart + this.failureWindowMs - this.now()) / 1000)} s`);
    }
  }

  private countFailure(clientAddress: string): void {
    const t = this.now();
    const f = this.failures.get(clientAddress);
    if (!f || t - f.windowStart >= this.failureWindowMs) this.remember(this.failures, clientAddress, { count: 1, windowStart: t });
    else f.count++;
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as string);
  }
}
