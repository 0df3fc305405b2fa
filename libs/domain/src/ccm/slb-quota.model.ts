import type { QuotaDefinition } from './quota-definition.types';

/**
 * The effective value of a quota in one region: the Quota Center value when the region's quotas were
 * read and list the code, else the documented default.
 *
 * @param quotas the region's Quota Center values (`undefined` = not read)
 * @returns the limit (count) and whether it came from Quota Center or the documented default
 */
export function effectiveQuota(
  quotas:
    | readonly { quotaActionCode: string; totalQuota: number; dimensions?: Record<string, string> }[]
    | undefined,
  definition: QuotaDefinition,
): { limit: number; limitSource: 'quota-center' | 'default' } {
  if (quotas) {
    // Prefer the account-wide value (no dimensions); fall back to the first entry of the code.
    let found: { totalQuota: number } | undefined;
    for (const q of quotas) {
      if (q.quotaActionCode !== definition.quotaActionCode) continue;
      if (!q.dimensions || Object.keys(q.dimensions).length === 0) {
        found = q;
        break;
      }
      found ??= q;
    }
    if (found && Number.isFinite(found.totalQuota) && found.totalQuota > 0) {
      return { limit: found.totalQuota, limitSource: 'quota-center' };
    }
  }
  return { limit: definition.defaultValue, limitSource: 'default' };
}
