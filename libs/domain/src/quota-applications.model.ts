/**
 * Quota Center applications as a scan reads them (ListQuotaApplications; research/quota-center.md 4): which refusals
 * still stand. Used by QUOTA_APPLICATION_REFUSED (libs/checks) and by `quota request`, which files no quota again
 * over a standing refusal unless told to.
 */
import type { QuotaApplicationRecord, RegionSnapshot } from './snapshot.types';

/** A refusal that still stands: the latest application of its quota, refused, for more than the quota now gives. */
export interface StandingRefusal {
  application: QuotaApplicationRecord;
  /** The quota's current value in Quota Center (`TotalQuota`), count; absent when the region's quotas were not read. */
  currentLimit?: number;
}

/**
 * The refusals of a region that still stand (Quota Center 2020-05-10 ListQuotaApplications: `Status` `Disagree` is a
 * refused application, `AuditReason` the reviewer's reason; research/quota-center.md 4). Per product and quota code
 * only the latest application counts (by `ApplyTime`, then id): a refusal followed by an approval or by a new
 * application in review no longer stands. A refusal asking for no more than the quota's current value (raised since,
 * by another application or by hand) no longer stands either.
 * @returns the standing refusals, ordered by product and quota code
 */
export function standingRefusals(region: Pick<RegionSnapshot, 'quotaApplications' | 'quotas'>): StandingRefusal[] {
  const latest = new Map<string, QuotaApplicationRecord>();
  for (const a of region.quotaApplications ?? []) {
    const key = `${a.productCode}:${a.quotaActionCode}`;
    const seen = latest.get(key);
    if (!seen || laterThan(a, seen)) latest.set(key, a);
  }
  const out: StandingRefusal[] = [];
  for (const key of [...latest.keys()].sort()) {
    const a = latest.get(key)!;
    if (a.status !== 'Disagree') continue;
    const current = region.quotas?.find((q) => q.quotaActionCode === a.quotaActionCode)?.totalQuota;
    if (current !== undefined && current >= a.desireValue) continue;
    out.push(current !== undefined ? { application: a, currentLimit: current } : { application: a });
  }
  return out;
}

/**
 * Whether `a` counts as filed after `b`: `ApplyTime` compared as instants (an unknown time is older than any known
 * one). Quota Center gives whole seconds, so two applications can tie: then one not refused wins (the quota has an
 * approval or a review of the same moment, so the refusal is not the last word), then the greater id.
 */
function laterThan(a: QuotaApplicationRecord, b: QuotaApplicationRecord): boolean {
  const ta = a.applyTime !== undefined ? Date.parse(a.applyTime) : NaN;
  const tb = b.applyTime !== undefined ? Date.parse(b.applyTime) : NaN;
  if (!Number.isNaN(ta) && !Number.isNaN(tb) && ta !== tb) return ta > tb;
  if (Number.isNaN(ta) !== Number.isNaN(tb)) return Number.isNaN(tb);
  const ra = a.status === 'Disagree';
  const rb = b.status === 'Disagree';
  if (ra !== rb) return rb;
  return a.applicationId > b.applicationId;
}
