/**
 * Per-account credentials of a live scan: the base credentials of the config (literal simulator
 * keys, named env variables, or the `@alicloud/credentials` default chain), and for every account
 * with `auditRoleArn` temporary STS credentials from AssumeRole into that role.
 *
 * AssumeRole (research/alibaba-cloud-api.md sections 1.7 and 5): `@alicloud/sts20150401`
 * `assumeRoleWithOptions` (not the credentials package's RAM-role provider, which hard-codes
 * HTTPS and so cannot reach the plain-HTTP simulator), signed with the base credentials, through
 * the config's endpoint and protocol. Request `RoleArn`, `RoleSessionName=fleet-audit`,
 * `DurationSeconds`; response `Credentials{AccessKeyId, AccessKeySecret, SecurityToken,
 * Expiration}` (ISO 8601 UTC). Each account's credentials are cached until 5 minutes before
 * `Expiration` (the STS "best practices" note of the SDK: reuse a token within its validity);
 * concurrent requests for one account share one AssumeRole call.
 *
 * Errors: a failed AssumeRole is a CollectError with STS's code (`EntityNotExist.Role`,
 * `NoPermission`, `InvalidAccessKeyId.NotFound`, ...); the scan turns it into `failed` coverage of
 * every dataset of that account. Secrets (base AccessKey, temporary keys, token) are redacted from
 * every message and never logged.
 */
import type Sts from '@alicloud/sts20150401';
import {
  credentialSecrets,
  resolveBaseCredentials,
  stsConfig,
  type AccountCredentials,
} from './alibaba-clients.factory';
import { alibabaError, CollectError } from './collect-error.util';
import { dara, stsSdk } from './sdk-modules';
import type { ScanAccount, ScanConfig } from './scan-config';
import { processEnvironment } from '@app/config';

/** RoleSessionName of every AssumeRole call (2-64 chars `[A-Za-z0-9.@_-]`; it shows in the account's ActionTrail). */
export const ROLE_SESSION_NAME = 'fleet-audit';
/** Validity asked for, seconds (STS default 3600; the minimum is 900). */
export const ASSUME_ROLE_DURATION_SECONDS = 3600;
/** Refresh cached STS credentials this long before their `Expiration`, milliseconds (5 minutes). */
export const REFRESH_BEFORE_EXPIRY_MS = 5 * 60_000;

/** Resolves the credentials of one account (may call STS). */
export type CredentialsFor = (account: ScanAccount) => AccountCredentials | Promise<AccountCredentials>;

/** Runs one remote call with retries and pacing (`CallRunner.run` bound to an account). */
export type RemoteCallRunner = <T>(api: string, fn: () => Promise<T>) => Promise<T>;

/** Options of {@link AccountCredentialsResolver}. */
export interface AccountCredentialsResolverOptions {
  /** Environment for `credentials.*Env` (default libs/config `processEnvironment()`). */
  env?: Record<string, string | undefined>;
  /** Clock, epoch milliseconds (tests). */
  now?: () => number;
  /** How the AssumeRole call is run (retries); default: called once, directly. */
  run?: RemoteCallRunner;
}

interface CacheEntry {
  promise: Promise<AccountCredentials>;
  /** When to stop using it, epoch ms (Expiration - 5 min); Infinity while in flight. */
  refreshAt: number;
}

/**
 * Base credentials + cached AssumeRole per account. One instance per scan (or per worker
 * process: the cache keeps tokens across targets until 5 minutes before they expire).
 */
export class AccountCredentialsResolver {
  private readonly cache = new Map<string, CacheEntry>();
  private base?: AccountCredentials;
  private sts?: Sts;

  constructor(
    private readonly config: Pick<ScanConfig, 'credentials' | 'alibabaCloud'>,
    private readonly options: AccountCredentialsResolverOptions = {},
  ) {}

  /**
   * The base credentials of the scan.
   * @throws CredentialsConfigError when a named env variable is unset
   */
  baseCredentials(): AccountCredentials {
    this.base ??= resolveBaseCredentials(this.config, this.options.env ?? processEnvironment());
    return this.base;
  }

  /**
   * Credentials to read `account` with: the base credentials, or STS credentials of its
   * `auditRoleArn` (cached until 5 minutes before expiry).
   * @throws CollectError with STS's error code when AssumeRole fails; CredentialsConfigError
   */
  async credentialsFor(account: ScanAccount): Promise<AccountCredentials> {
    const base = this.baseCredentials();
    const roleArn = account.auditRoleArn;
    if (roleArn === undefined) return base;
    const key = `${account.accountId}|${roleArn}`;
    const now = (this.options.now ?? Date.now)();
    const hit = this.cache.get(key);
    if (hit && now < hit.refreshAt) return hit.promise;
    const entry: CacheEntry = { promise: this.assume(account.accountId, roleArn, base), refreshAt: Infinity };
    this.cache.set(key, entry);
    entry.promise.then(
      (c) => {
        entry.refreshAt =
          (c.kind === 'static' ? (c.expiresAt ?? Infinity) : Infinity) - REFRESH_BEFORE_EXPIRY_MS;
      },
      () => {
        if (this.cache.get(key) === entry) this.cache.delete(key); // the next target asks again
      },
    );
    return entry.promise;
  }

  /** Forget every cached token. */
  clear(): void {
    this.cache.clear();
  }

  private async assume(
    accountId: string,
    roleArn: string,
    base: AccountCredentials,
  ): Promise<AccountCredentials> {
    this.sts ??= new (stsSdk().default)(stsConfig(this.config.alibabaCloud, base));
    const sts = this.sts;
    const secrets = credentialSecrets(base);
    const target = `${accountId} ${roleArn}`;
    const call = async () => {
      try {
        return await sts.assumeRoleWithOptions(
          new (stsSdk().AssumeRoleRequest)({
            roleArn,
            roleSessionName: ROLE_SESSION_NAME,
            durationSeconds: ASSUME_ROLE_DURATION_SECONDS,
          }),
          new (dara().RuntimeOptions)({}),
        );
      } catch (e) {
        throw alibabaError(e, 'AssumeRole', target, secrets);
      }
    };
    const resp = await (this.options.run ? this.options.run('AssumeRole', call) : call());
    const c = resp.body?.credentials;
    const expiresAt = c?.expiration ? Date.parse(c.expiration) : NaN;
    if (!c?.accessKeyId || !c.accessKeySecret || !c.securityToken || !Number.isFinite(expiresAt))
      throw new CollectError(
        'InvalidResponse',
        `AssumeRole ${target}: malformed response at $.Credentials: expected AccessKeyId, AccessKeySecret, SecurityToken and an ISO Expiration`,
      );
    return {
      kind: 'static',
      accessKeyId: c.accessKeyId,
      accessKeySecret: c.accessKeySecret,
      securityToken: c.securityToken,
      expiresAt,
    };
  }
}
