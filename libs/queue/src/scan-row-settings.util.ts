/**
 * What a distributed scan records in its row's `settings` (JSON): the audit settings it runs with
 * and, when the trigger fixed one, the analysis clock (`analysisTime`). Everything a scan needs
 * to be planned again after Redis lost its jobs is then in PostgreSQL plus the worker's scan
 * config, so a re-planned scan analyses exactly like the original would have.
 */
import type { PartialAuditSettings } from '@app/checks';

/** Key of the analysis clock (ISO 8601) in a distributed scan's row settings. */
export const ANALYSIS_TIME_KEY = 'analysisTime';

/** The row settings of a scan: audit settings plus `analysisTime` when `now` is given. */
export function scanRowSettings(
  settings: PartialAuditSettings | undefined,
  now: string | undefined,
): Record<string, unknown> {
  const audit = settings ? (JSON.parse(JSON.stringify(settings)) as Record<string, unknown>) : {};
  return now === undefined ? audit : { ...audit, [ANALYSIS_TIME_KEY]: now };
}

/** The run options a scan row's settings stand for (inverse of {@link scanRowSettings}). */
export function runOptionsOfScanRow(row: Record<string, unknown>): {
  settings?: PartialAuditSettings;
  now?: string;
} {
  const { [ANALYSIS_TIME_KEY]: now, ...audit } = row;
  return {
    // The row holds what scanRowSettings wrote; the plan job validates the settings again.
    ...(Object.keys(audit).length > 0 ? { settings: audit as PartialAuditSettings } : {}),
    ...(typeof now === 'string' ? { now } : {}),
  };
}
