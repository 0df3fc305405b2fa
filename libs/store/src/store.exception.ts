/**
 * Typed errors of the store (STYLE.md H.40): each transport maps `code` to its own status
 * (the API's exception filter: NOT_FOUND 404, CONFLICT 409, INVALID_ARGUMENT 400, FORBIDDEN 403, UNAVAILABLE 503).
 */
import { FleetAuditError } from '@app/errors';

/** Why a store operation failed. */
export type StoreErrorCode =
  /** The scan (or other row) named by id does not exist. */
  | 'NOT_FOUND'
  /** The operation contradicts the row's state (e.g. completing a scan that already failed). */
  | 'CONFLICT'
  /** An argument is out of range (e.g. `limit` above 1000). */
  | 'INVALID_ARGUMENT'
  /** The caller may see the row but not change it (e.g. another token's waiver, and not admin). */
  | 'FORBIDDEN'
  /** PostgreSQL cannot be reached or the schema cannot be migrated. */
  | 'UNAVAILABLE';

/** An error of the store, with a stable `code`. Messages never contain credentials. */
export class StoreError extends FleetAuditError {
  override readonly name = 'StoreError';
  /** Only UNAVAILABLE (PostgreSQL unreachable) may heal by retrying. */
  get permanent(): boolean {
    return this.code !== 'UNAVAILABLE';
  }

  /**
   * @param code stable error code for transports to map
   * @param message one line for humans (no credentials)
   * @param options.cause the underlying driver error, if any
   */
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A connection string with its password replaced by `***`, for error messages and logs.
 * Unparseable input is replaced entirely, since it may hold a secret in an unknown place.
 */
export function redactConnectionString(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = '***';
    url.searchParams.delete('password');
    return url.toString();
  } catch {
    return '<connection string>';
  }
}
