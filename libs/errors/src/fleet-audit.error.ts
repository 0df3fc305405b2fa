/**
 * The one base of ack-fleet-audit's errors: a stable `code` each transport maps
 * (the API's exception filter to an HTTP status, the CLI to an exit code, the worker to retry or
 * give up) and a `permanent` flag (true: retrying cannot help; the input, config or environment
 * must change). Transports read these two, never `name` strings.
 *
 * Model: twenty's custom exceptions (a code per error, mapped per transport). Dependency-free, so
 * every lib and app may import it, including the pure ones (libs/domain, libs/checks).
 */

/** Options of a FleetAuditError. */
export interface FleetAuditErrorOptions {
  /** The underlying error (driver, SDK, parser), kept for logs; never shown to users raw. */
  cause?: unknown;
}

/** An error with a stable code and whether a retry may help. */
export abstract class FleetAuditError extends Error {
  /** Stable, upper-snake code (`SCAN_CONFIG_INVALID`, `NOT_FOUND`, ...): what transports map. */
  abstract readonly code: string;
  /** True when no retry can succeed (bad input or configuration); false for transient failures. */
  abstract readonly permanent: boolean;

  /**
   * @param message one line for humans; never contains credentials
   * @param options.cause the underlying error, if any
   */
  constructor(message: string, options?: FleetAuditErrorOptions) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
  }
}

/**
 * The base class of one kind of FleetAuditError, so that its `name`, stable `code` and `permanent` flag are
 * declared once, in the `extends` clause:
 * `export class ScanFailedError extends fleetAuditErrorKind('ScanFailedError', 'SCAN_FAILED', true) {}`.
 * Subclasses add their own fields and constructor (the default one takes `(message, options?)`).
 * @param name the class name (`Error.name`, for logs; transports never read it)
 * @param code the stable upper-snake code transports map (libs/errors README)
 * @param permanent true when no retry can succeed (the input, config or environment must change)
 */
export function fleetAuditErrorKind<C extends string>(name: string, code: C, permanent: boolean) {
  return class extends FleetAuditError {
    override readonly name = name;
    readonly code: C = code;
    readonly permanent = permanent;
  };
}

/** Whether `e` is one of ours (a FleetAuditError), for transports mapping `code` / `permanent`. */
export function isFleetAuditError(e: unknown): e is FleetAuditError {
  return e instanceof FleetAuditError;
}

/**
 * Whether retrying the operation that threw `e` cannot help: a FleetAuditError marked permanent.
 * Anything else (driver, network, unknown errors) counts as transient.
 */
export function isPermanentError(e: unknown): boolean {
  return e instanceof FleetAuditError && e.permanent;
}
