/**
 * Shared shape of the NLB checks judged per region (NLB_*_QUOTA, NLB_ORPHANED, NLB_SERVER_GROUP_ORPHANED and the NLB
 * parts of LB_NO_BACKENDS / LB_LISTENER_PORT_CONFLICT): region scope; a region whose `nlb` dataset was not read
 * gets one `skipped` result naming the gap (`nlbRegionCheck`); the quota checks then push one pass / fail per
 * measured resource, graded like the CLB quota checks (`quotaSeverity`: warning / critical at the configured ratios
 * of the effective quota: the Quota Center value of the region, else the documented default of NLB "NLB quotas").
 */
import type { RegionSnapshot, ResourceRef, QuotaDefinition } from '@app/domain';
import { scopedCheck, type ScopedCheckDefinition } from '../check-scope';
import type { CheckContext, ResultSink } from '../check.types';
import type { RegionEntry, ServiceEntry } from '../fleet-index';
import { nlbNotReadReason, nlbOfService, regionNlbView, type RegionNlbView } from '../nlb-index';
import { limitSourceText, pct, pushQuotaUse, regionRef, type PassText, type QuotaFigures, type ResultFactory } from '../result.util';

/**
 * The NLB view of a region, or `undefined` after pushing the region's `skipped` result (NLB data not read).
 */
export function nlbViewOrSkip(re: RegionEntry, out: ResultSink, r: ResultFactory, ctx: CheckContext): RegionNlbView | undefined {
  const view = regionNlbView(ctx.index, re.region);
  if (!view) out.push(r.skipped(regionRef(re), nlbNotReadReason(ctx.index, re.account, re.region)));
  return view;
}

/**
 * The NLB CCM finds for an NLB Service (`nlbOfService`) and its region's NLB view, or `undefined` after pushing the
 * Service's `skipped` result naming the `nlb` gap (the region's NLBs were not read).
 */
export function nlbOfServiceOrSkip(
  se: ServiceEntry,
  ref: ResourceRef,
  out: ResultSink,
  r: ResultFactory,
  ctx: CheckContext,
): { found: NonNullable<ReturnType<typeof nlbOfService>>; view: RegionNlbView } | undefined {
  const found = nlbOfService(ctx.index, se);
  const view = regionNlbView(ctx.index, se.cluster.region);
  if (found && view) return { found, view };
  out.push(r.skipped(ref, nlbNotReadReason(ctx.index, se.cluster.account, se.cluster.region)));
  return undefined;
}

/**
 * A region-scoped NLB check: its metadata, and a `check` that runs only where the region's NLB data was read,
 * with that region's NLB view (elsewhere the region gets the `skipped` result naming the `nlb` gap).
 */
export interface NlbRegionCheckDefinition extends Omit<ScopedCheckDefinition<'region'>, 'scope' | 'needs' | 'check'> {
  /** Judge one region whose NLBs were read: push its results to `out`. */
  check(view: RegionNlbView, re: RegionEntry, out: ResultSink, r: ResultFactory, ctx: CheckContext): void;
}

/**
 * Turn an NLB region check into a `CheckDefinition` (scope `region`, no CLB-side dataset needed: the NLB gap is
 * judged per region by `nlbViewOrSkip`).
 */
export function nlbRegionCheck(def: NlbRegionCheckDefinition): ReturnType<typeof scopedCheck<'region'>> {
  const { check, ...meta } = def;
  return scopedCheck({
    ...meta,
    scope: 'region',
    needs: [],
    check(re, out, r, ctx) {
      const view = nlbViewOrSkip(re, out, r, ctx);
      if (view) check(view, re, out, r, ctx);
    },
  });
}

/**
 * The message of an NLB quota result: `what` (the subject and its count: `NLB nlb-x has 12 listeners`), then the share
 * of the quota (`: 24 % of nlb_quota_loadbalancer_listeners_num 50 (documented default)`). Call it once per check, at
 * module level: the `PassText` it returns builds a passing result's message when read.
 * @param what the subject and count, from the result's ref, figures (`used`, the check's extras) and arg
 */
export function nlbQuotaText<A = undefined>(what: PassText<QuotaFigures, A>): PassText<QuotaFigures, A> {
  return (ref, f, arg) => `${what(ref, f, arg)}: ${pct(f.ratio)} of ${String(f['quota'])} ${f.limit} (${limitSourceText(f.limitSource)})`;
}

/**
 * Push one quota result: `used` of the effective `definition` quota of `region`, graded by the settings' ratios.
 * Figures: used, limit, ratio, limitSource, `quota` (the quota's action code), then `extra`.
 * @param text the message (`nlbQuotaText`)
 * @param extra more figures (distinct servers, ...)
 */
export function pushNlbQuota(
  out: ResultSink,
  r: ResultFactory,
  ctx: CheckContext,
  region: RegionSnapshot,
  definition: QuotaDefinition,
  ref: ResourceRef,
  used: number,
  text: PassText<QuotaFigures>,
  extra: Record<string, string | number> = {},
): void {
  pushQuotaUse(out, r, ctx, { region, definition, ref, used }, text, { quota: definition.quotaActionCode, ...extra });
}
