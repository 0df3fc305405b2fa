/**
 * How the CLI reports failures: one clear line on stderr and an exit code; never a stack trace
 * (unless FLEET_AUDIT_DEBUG=1).
 *
 * Exit codes (issue "walking skeleton", CLI): 0 ok; 1 a finding at or above `--fail-on`;
 * 2 bad input (malformed fleet directory, bad config, bad flag) or a failed scan.
 */
import type { FleetValidationError, ScanConfigError } from '@app/collectors';
import type { ScanFailedError } from '@app/audit';
import { debugWanted } from './cli-config';

// Errors are recognised by name, not instanceof, so that this module (loaded by every command)
// does not load the collectors, the SDKs and NestJS: `fleet-audit --help` stays fast.
const isNamed = <T extends Error>(e: unknown, name: string): e is T => e instanceof Error && e.name === name;

/** Exit code: success. */
export const EXIT_OK = 0;
/** Exit code: a finding at or above the `--fail-on` severity exists. */
export const EXIT_FINDINGS = 1;
/** Exit code: bad input or a failed scan. */
export const EXIT_ERROR = 2;

/** An error the CLI reports as one line with exit code 2. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

/** One line describing an error for the user (file/path for validation errors). */
export function describeError(e: unknown): string {
  if (isNamed<FleetValidationError>(e, 'FleetValidationError')) return `invalid fleet directory: ${e.file}: ${e.jsonPath}: expected ${e.expected.replace(/^expected /, '')}`;
  if (isNamed<ScanConfigError>(e, 'ScanConfigError')) return `invalid config file: ${e.message}`;
  if (isNamed<ScanFailedError>(e, 'ScanFailedError')) return `scan ${e.scanId} failed: ${e.message}`;
  if (e instanceof Error) return e.message.split('\n')[0];
  return String(e);
}

/** Print an error line to stderr (with the stack only when FLEET_AUDIT_DEBUG=1). */
export function reportError(e: unknown): void {
  process.stderr.write(`fleet-audit: error: ${describeError(e)}\n`);
  if (e instanceof Error && debugWanted() && e.stack) process.stderr.write(`${e.stack}\n`);
}
