/**
 * A Quota Center quota a load-balancer kind's resources count against: its code, its documented default (used when
 * the account's Quota Center value was not read, `effectiveQuota`) and whether it can be raised. Sources per quota on
 * the constants (CLB: slb-quota.constants.ts; NLB: nlb-quota.constants.ts); adjustability from the CLB and NLB quota
 * pages (research/quota-center.md 7). `adjustable` is the documented answer: Quota Center's `ListProductQuotas`
 * `Adjustable` of the account, read live, wins where it was read.
 */
export interface QuotaDefinition {
  /** Quota Center `QuotaActionCode`, e.g. `slb_quota_backendservers_num`. */
  quotaActionCode: string;
  /** Quota Center `ProductCode`: `slb` (CLB) or `nlb`. */
  productCode: string;
  /** Documented default, count. */
  defaultValue: number;
  /** Whether the documentation says an increase can be applied for. */
  adjustable: boolean;
  /** Where the default and adjustability come from. */
  source: string;
}
