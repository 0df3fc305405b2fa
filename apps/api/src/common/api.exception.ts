/**
 * Errors raised by the API layer itself (the store raises `StoreError`). ApiError is a
 * FleetAuditError like every other error of the project: its code is one of ApiErrorCode, which the
 * exception filter maps to an HTTP status (and the GraphQL transport to `extensions.code`).
 */
import { FleetAuditError } from '@app/errors';

/** Why a request was refused by the API layer. */
export type ApiErrorCode =
  /** Query, path or body failed validation (400). */
  | 'VALIDATION_FAILED'
  /** Missing or wrong bearer token (401). */
  | 'UNAUTHENTICATED'
  /** The token is valid but its role does not allow this operation (403). */
  | 'FORBIDDEN'
  /**
   * Too many failed authentications from this client address or against this token id, or the forecast queue is
   * full (429, `Retry-After`).
   */
  | 'RATE_LIMITED'
  /** The addressed resource does not exist (404). */
  | 'NOT_FOUND'
  /** A what-if or headroom went over the forecast time or heap budget: the input must get smaller (422). */
  | 'FORECAST_TOO_LARGE'
  /** This API process has no way to start scans (standalone API without a launcher) (503). */
  | 'SCAN_LAUNCH_UNAVAILABLE'
  /** This API process has no TOKEN_HASH_KEY, so it cannot create scoped tokens (503). */
  | 'TOKENS_DISABLED';

/** One validation problem: where (`query.limit`, `body.source`) and what. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** An API-layer error with a stable code; the exception filter maps it to an HTTP status. */
export class ApiError extends FleetAuditError {
  override readonly name = 'ApiError';
  /** Only RATE_LIMITED heals by waiting; the others need another request, token or process config. */
  get permanent(): boolean {
    return this.code !== 'RATE_LIMITED';
  }

  /**
   * @param code stable code (see ApiErrorCode)
   * @param message one line for the client; never contains the token
   * @param issues validation problems, for VALIDATION_FAILED
   * @param retryAfterSeconds for RATE_LIMITED: whole seconds until a retry can succeed (the `Retry-After` header
   *   of REST and GraphQL answers, and the number the message quotes)
   */
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly issues?: ValidationIssue[],
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}
