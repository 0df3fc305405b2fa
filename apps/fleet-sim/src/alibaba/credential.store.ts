/**
 * The AccessKeys the simulator accepts, each bound to the fleet account whose resources it reads.
 *
 * The base AccessKey (registered at start) belongs to the fleet's management account. STS
 * AssumeRole (`sts.handler.ts`) adds temporary keys bound to the role's account, with a security
 * token and an expiry; request verification (`request-auth.service.ts`) checks both. Expired
 * temporary keys are kept for a while so a late caller gets `InvalidSecurityToken.Expired`
 * rather than `InvalidAccessKeyId.NotFound`, then dropped so a long-running simulator does not grow.
 */

/** Who an STS key was issued to (what GetCallerIdentity reports for it). */
export interface AssumedRoleIdentity {
  /** Role name as stored in the account's `ram/roles.json`, else as requested. */
  roleName: string;
  /** Numeric role id (from `roles.json`, else a stable id derived from account and name). */
  roleId: string;
  /** `RoleSessionName` of the AssumeRole call. */
  sessionName: string;
}

/** One accepted AccessKey. */
export interface SimCredential {
  accessKeyId: string;
  accessKeySecret: string;
  /** Numeric id of the fleet account whose resources this key reads. */
  accountId: string;
  /** STS keys only: the token the caller must send (`x-acs-security-token` / `SecurityToken`). */
  securityToken?: string;
  /** STS keys only: when the key stops being accepted. */
  expiresAt?: Date;
  /** STS keys only: the assumed role. */
  assumedRole?: AssumedRoleIdentity;
}

/** How long an expired STS key is still recognised (answered `Expired`), milliseconds. */
export const EXPIRED_KEY_GRACE_MS = 24 * 3600 * 1000;

/** Temporary keys kept before expired ones are swept. */
const SWEEP_THRESHOLD = 10_000;

/** AccessKey id -> credential. */
export class CredentialStore {
  private readonly byId = new Map<string, SimCredential>();
  private temporary = 0;

  /**
   * Register (or replace) a credential. Adding a temporary key sweeps keys that expired more than
   * {@link EXPIRED_KEY_GRACE_MS} before `now` once many temporary keys exist.
   * @param now the simulator clock (only used for the sweep)
   */
  add(credential: SimCredential, now: Date = new Date()): void {
    if (credential.expiresAt !== undefined && !this.byId.has(credential.accessKeyId)) this.temporary++;
    this.byId.set(credential.accessKeyId, credential);
    if (this.temporary > SWEEP_THRESHOLD) this.sweep(now);
  }

  /** The credential of an AccessKey id, or `undefined`. */
  get(accessKeyId: string): SimCredential | undefined {
    return this.byId.get(accessKeyId);
  }

  /** Forget a credential. */
  remove(accessKeyId: string): void {
    const c = this.byId.get(accessKeyId);
    if (c?.expiresAt !== undefined) this.temporary--;
    this.byId.delete(accessKeyId);
  }

  private sweep(now: Date): void {
    const cutoff = now.getTime() - EXPIRED_KEY_GRACE_MS;
    for (const [id, c] of this.byId)
      if (c.expiresAt !== undefined && c.expiresAt.getTime() < cutoff) this.remove(id);
  }
}
