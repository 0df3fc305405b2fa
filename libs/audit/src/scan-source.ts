/**
 * The sources a scan launch may name: the operator configures named sources (`serve --fleet / --config`), a request
 * picks one by name (default: the first), and every launcher (in this process, queued in child processes, on the
 * workers) and the launch module's router pick it, name its fleet and list its accounts the same way here.
 *
 * Security: API callers cannot name arbitrary paths; a request may only pick one of the configured sources.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fleetAuditErrorKind } from '@app/errors';
import type { ScanSource } from './scan-runner';

/** A request to start a scan: `source` names one of the configured sources (default: the first). */
export interface LaunchRequest {
  source?: string;
}

/** A configured source: the name a request picks it by, and where the scan reads its fleet. */
export interface NamedScanSource {
  name: string;
  source: ScanSource;
}

/** Thrown when a launch request names a source that is not configured (the API answers 400 INVALID_ARGUMENT). */
export class UnknownScanSourceError extends fleetAuditErrorKind('UnknownScanSourceError', 'SCAN_SOURCE_UNKNOWN', true) {}

/**
 * The configured source a request names.
 * @param sources the configured sources, first = default
 * @param requested the name a request gave; undefined picks the first
 * @returns the source, or undefined when none is configured under that name (or none at all)
 */
export function findScanSource<T extends { name: string }>(sources: readonly T[], requested: string | undefined): T | undefined {
  return requested === undefined ? sources[0] : sources.find((s) => s.name === requested);
}

/**
 * The configured source a request names, as `findScanSource`.
 * @throws UnknownScanSourceError when there is none, naming the request's source and listing the configured ones
 */
export function pickScanSource<T extends { name: string }>(sources: readonly T[], requested: string | undefined): T {
  const chosen = findScanSource(sources, requested);
  if (!chosen) throw unknownScanSource(requested, sources.map((s) => s.name));
  return chosen;
}

/**
 * The error of a launch naming an unconfigured source.
 * @param requested the name the request gave (undefined: it gave none and no source is configured)
 * @param configured the names that are configured, in order
 */
export function unknownScanSource(requested: string | undefined, configured: readonly string[]): UnknownScanSourceError {
  return new UnknownScanSourceError(`unknown scan source "${requested ?? ''}"; configured: ${configured.join(', ') || 'none'}`);
}

/** The fleet name a scan of `s` is created with before it is read: a scan config's name, else the source's name. */
export function fleetNameOf(s: NamedScanSource): string {
  return s.source.kind === 'live' ? s.source.config.name : s.name;
}

/**
 * The accounts a source reads, for the API's scope check: a scan config's accounts, or the account directories of a
 * fleet directory (`accounts/<uid>`).
 * @returns the account ids, or undefined for a fleet directory without `accounts/` (a generated fleet: its accounts
 *   are known only once it is built)
 */
export function sourceAccountsOf(source: ScanSource): string[] | undefined {
  if (source.kind === 'live') return source.config.accounts.map((a) => a.accountId);
  try {
    return readdirSync(join(source.fleetDir, 'accounts'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return undefined;
  }
}
