/**
 * The AccessKeys the simulator accepts, each bound to the fleet account whose resources it reads.
 *
 * Today the simulator registers one base AccessKey for the fleet's management account. STS
 * (AssumeRole into each account's audit role, a later issue) adds temporary keys here with a
 * security token and an expiry; request verification already checks both.
 */

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
}

/** AccessKey id -> credential. */
export class CredentialStore {
  private readonly byId = new Map<string, SimCredential>();

  /** Register (or replace) a credential. */
  add(credential: SimCredential): void {
    this.byId.set(credential.accessKeyId, credential);
  }

  /** The credential of an AccessKey id, or `undefined`. */
  get(accessKeyId: string): SimCredential | undefined {
    return this.byId.get(accessKeyId);
  }

  /** Forget a credential (e.g. an expired STS key). */
  remove(accessKeyId: string): void {
    this.byId.delete(accessKeyId);
  }
}
