/**
 * Shared shape of the NLB quota checks (NLB_*_QUOTA): region scope; a region whose `nlb` dataset was not read
 * gets one `skipped` result naming the gap; else one pass / fail per measured resource, graded like the CLB quota
 * checks (`quotaSeverity`: warning / critical at the configured ratios of the effective quota: the Quota Center
 * value of the region, else the documented default of NLB "NLB quotas").
 */
import type { CheckResult, RegionSnapshot, ResourceRef, SlbQuotaDefinition } from '@app/domain';
import type { CheckContext } from '../check.types';
import type { RegionEntry } from '../fleet-index';
import { nlbNotReadReason, regionNlbView, type RegionNlbView } from '../nlb-index';
import { pct, quotaSeverity, regionRef, type ResultFactory } from '../result.util';

/**
 * The NLB view of a region, or `undefined` after pushing the region's `skipped` result (NLB data not read).
 */
export function nlbViewOrSkip(re: RegionEntry, out: CheckResult[], r: ResultFactory, ctx: CheckContext): RegionNlbView | undefined {
  const view = regionNlbView(re.region);
  if (!view) out.push(r.skipped(regionRef(re), nlbNotReadReason(ctx.index, re.account, re.region)));
  return view;
}

/**
 * Push one quota result: `used` of the effective `definition` quota of `region`, graded by the settings' ratios.
 * @param what the message's subject and count (`NLB nlb-x has 12 listeners`)
 * @param extra more figures (distinct servers, ...)
 */
export function pushNlbQuota(
  out: CheckResult[],
  r: ResultFactory,
  ctx: CheckContext,
  region: RegionSnapshot,
  definition: SlbQuotaDefinition,
  ref: ResourceRef,
  used: number,
  what: string,
  extra: Record<string, string | number> = {},
): void {
  const { limit, limitSource } = ctx.index.quota(region, definition);
  const ratio = used / limit;
  const figures = { used, limit, ratio, limitSource, quota: definition.quotaActionCode, ...extra };
  const text = `${what}: ${pct(ratio)} of ${definition.quotaActionCode} ${limit} (${limitSource === 'quota-center' ? 'Quota Center' : 'documented default'})`;
  const severity = quotaSeverity(ratio, ctx.settings.quota);
  out.push(severity ? r.fail(ref, text, { severity, figures }) : r.pass(ref, text, figures));
}
