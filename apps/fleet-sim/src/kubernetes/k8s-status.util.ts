/**
 * Kubernetes API errors: `kind: Status` objects with the HTTP status in `code` and the standard
 * `reason` (apimachinery `metav1.StatusReason`).
 */

/** Standard reasons used by the simulator. */
export type K8sStatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'Expired'
  | 'NotAcceptable'
  | 'TooManyRequests'
  | 'ServiceUnavailable';

/** A Kubernetes error to answer with. */
export class K8sStatusError extends Error {
  override readonly name = 'K8sStatusError';
  /**
   * @param code HTTP status
   * @param reason apimachinery reason
   * @param details optional `{name, group, kind}` of the object concerned
   * @param headers extra response headers (`retry-after` for 429)
   */
  constructor(
    readonly code: number,
    readonly reason: K8sStatusReason,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  /** The `Status` body. */
  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}
