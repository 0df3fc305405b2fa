/**
 * How the CLI reports failures: one clear line on stderr and an exit code; never a stack trace
 * (unless FLEET_AUDIT_DEBUG=1).
 *
 * Exit codes (libs/errors/README.md): 0 ok; 1 a finding at or above
 * `--fail-on`; 2 bad input (malformed fleet directory, bad config, bad flag) or a failed scan;
 * 3 a transient failure a retry may cure (database unavailable, scan queue full, waiting for a
 * distributed scan ended); 130 interrupted. {@link exitCodeOf} is the one place that maps an error
 * to its exit code, from its libs/errors `code` and `permanent` flag, never its name.
 */
import type { FleetValidationError, ScanConfigError } from '@app/collectors';
import type { ScanFailedError } from '@app/audit';
import { debugWanted } from './cli-config';
import { FleetAuditError, hasConnectionLossShape, isFleetAuditError } from '@app/errors';
import { cliStreams } from './output/cli-streams';
import { wantsJsonLines, writeStatusLine } from './output/status-line';
import { terminalText } from '@app/domain';

// Errors are recognised by their libs/errors code (libs/errors is dependency-free), not by
// importing their classes, so that this module (loaded by every command) does not load the
// collectors, the SDKs and NestJS: `fleet-audit --help` stays fast.
const hasCode = <T extends FleetAuditError>(e: unknown, code: string): e is T => isFleetAuditError(e) && e.code === code;

/** Exit code: success. */
export const EXIT_OK = 0;
/** Exit code: a finding at or above the `--fail-on` severity exists. */
export const EXIT_FINDINGS = 1;
/** Exit code: bad input or a failed scan. */
export const EXIT_ERROR = 2;
/** Exit code: a transient failure (a FleetAuditError with `permanent: false`); retrying may succeed. */
export const EXIT_TRANSIENT = 3;

/**
 * The exit code of a command that failed with `e`: EXIT_TRANSIENT for our errors marked transient
 * (libs/errors `permanent: false`, e.g. StoreError UNAVAILABLE, SCAN_QUEUE_FULL, SCAN_WAIT_ENDED),
 * EXIT_ERROR for everything else (permanent errors: bad input, config, a failed scan; and errors
 * that are not ours, which are reported as failures rather than guessed retryable).
 */
export function exitCodeOf(e: unknown): number {
  if (isFleetAuditError(e)) return e.permanent ? EXIT_ERROR : EXIT_TRANSIENT;
  return lostDatabaseConnection(e) ? EXIT_TRANSIENT : EXIT_ERROR;
}

/**
 * Whether `e` (not one of ours) or one of its causes is a lost or refused database connection that reached the CLI
 * unwrapped (a PostgreSQL restart before a scan's row was created surfaced the driver's error, exit
 * 2). Such a failure is transient wherever it happens: exit 3, and a one-line message of our own.
 */
function lostDatabaseConnection(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur && depth < 5; depth += 1) {
    if (hasConnectionLossShape(cur)) return true;
    cur = typeof cur === 'object' ? (cur as { cause?: unknown }).cause : undefined;
  }
  return false;
}

/** An error the CLI reports as one line with exit code 2 (CLI_USAGE, permanent). */
export class CliUsageError extends FleetAuditError {
  override readonly name = 'CliUsageError';
  /** Stable code (libs/errors README). */
  readonly code = 'CLI_USAGE';
  /** A bad flag or argument: the command line must change. */
  readonly permanent = true;
}

/** One line describing an error for the user (file/path for validation errors). */
export function describeError(e: unknown): string {
  if (hasCode<FleetValidationError>(e, 'FLEET_INVALID')) return `invalid fleet directory: ${e.file}: ${e.jsonPath}: expected ${e.expected.replace(/^expected /, '')}`;
  if (hasCode<ScanConfigError>(e, 'SCAN_CONFIG_INVALID')) return `invalid config file: ${e.message}`;
  if (hasCode<ScanFailedError>(e, 'SCAN_FAILED')) return `scan ${e.scanId} failed: ${e.message}`;
  if (!isFleetAuditError(e) && lostDatabaseConnection(e)) {
    const code = (e as { code?: unknown }).code;
    return `the database is unavailable (PostgreSQL connection lost${typeof code === 'string' ? `, ${code}` : ''}); retry later`;
  }
  if (e instanceof Error) return e.message.split('\n')[0];
  return String(e);
}

/**
 * Print an error line to stderr (with the stack only when FLEET_AUDIT_DEBUG=1).
 * @returns the exit code of `e` ({@link exitCodeOf}), for callers that exit with it
 */
export function reportError(e: unknown): number {
  // A service (serve, worker) writing to a log collector: the error is one JSON log line like the rest.
  if (wantsJsonLines(cliStreams().stderr)) {
    writeStatusLine(cliStreams().stderr, 'error', `error: ${describeError(e)}`, { ...(isFleetAuditError(e) ? { code: e.code } : {}), exitCode: exitCodeOf(e) });
    return exitCodeOf(e);
  }
  // Messages quote files, API answers and cloud errors: printed without control characters.
  cliStreams().stderr.write(`fleet-audit: error: ${terminalText(describeError(e), false)}\n`);
  if (e instanceof Error && debugWanted() && e.stack) cliStreams().stderr.write(`${terminalText(e.stack)}\n`);
  return exitCodeOf(e);
}
