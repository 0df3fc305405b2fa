import { NLB_QUOTA_INSTANCES } from '@app/domain';
import { DOC_URL, FORECAST_HINT, SEED } from '../doc-links.constants';
import { count, QUOTA_RATIO_SETTINGS, regionRef } from '../result.util';
import { nlbQuotaText, nlbRegionCheck, pushNlbQuota } from './nlb-quota.util';

/** `cn-hangzhou of account 1 has 55 NLB instances: ...` (`ref` is the region's). */
const instancesText = nlbQuotaText((ref, f) => `${ref.regionId} of account ${ref.accountId} has ${count(f.used, 'NLB instance')}`);

/**
 * NLB instances of one account and region vs `nlb_quota_loadbalancers_num` (default 60; NLB "NLB quotas"). Every
 * NLB Service that does not reuse an NLB creates one. Region scope; skipped where the NLB data was not read.
 */
export const nlbInstanceQuotaRule = nlbRegionCheck({
  id: 'NLB_INSTANCE_QUOTA',
  title: 'NLB instances per region vs the instance quota',
  category: 'quota',
  resourceKind: 'Region',
  defaultSeverity: 'warning',
  description:
    'Counts the NLB instances of each account and region (CCM creates one per NLB Service that does not reuse one) ' +
    'against the per-region NLB instance quota. When it is reached, new NLB Services stay pending.',
  remediation:
    'Request a higher nlb_quota_loadbalancers_num in Quota Center, release NLBs no Service uses (NLB_ORPHANED), or ' +
    `reuse an existing NLB for several Services. ${FORECAST_HINT} ${DOC_URL.nlbQuotas}`,
  source: `${SEED.lbConsiderations} "Quota limits"; ${SEED.nlbQuotas} nlb_quota_loadbalancers_num (default 60)`,
  settings: QUOTA_RATIO_SETTINGS,
  quotaUsage: true,
  quota: NLB_QUOTA_INSTANCES,
  check(_view, re, out, r, ctx) {
    const n = re.region.nlbs?.length ?? 0;
    pushNlbQuota(out, r, ctx, re.region, NLB_QUOTA_INSTANCES, regionRef(re), n, instancesText);
  },
});
