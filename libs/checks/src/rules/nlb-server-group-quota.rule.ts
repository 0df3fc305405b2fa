import { NLB_QUOTA_SERVER_GROUPS } from '@app/domain';
import { DOC_URL, FORECAST_HINT, SEED } from '../doc-links.constants';
import { count, QUOTA_RATIO_SETTINGS, regionRef } from '../result.util';
import { nlbQuotaText, nlbRegionCheck, pushNlbQuota } from './nlb-quota.util';

/** `cn-hangzhou of account 1 has 65 NLB server groups (10 used by no NLB): ...` (`ref` is the region's). */
const serverGroupsText = nlbQuotaText(
  (ref, f) => `${ref.regionId} of account ${ref.accountId} has ${count(f.used, 'NLB server group')} (${String(f['unusedServerGroups'])} used by no NLB)`,
);

/**
 * NLB server groups of one account and region vs `nlb_quota_servergroups_num` (3,000, **cannot be raised**; NLB
 * "NLB quotas"). CCM creates one group per Service port and protocol; groups left behind by CCM builds before the
 * v2.12.4 fix, or by `preserve-lb-on-delete`, still hold slots (NLB_SERVER_GROUP_ORPHANED). Every group
 * ListServerGroups lists counts, used by an NLB or not. Region scope; skipped where the NLB data was not read.
 */
export const nlbServerGroupQuotaRule = nlbRegionCheck({
  id: 'NLB_SERVER_GROUP_QUOTA',
  title: 'NLB server groups per region vs the fixed server-group quota',
  category: 'quota',
  resourceKind: 'Region',
  defaultSeverity: 'warning',
  description:
    'Counts the NLB server groups of each account and region (one per NLB Service port and protocol, plus any left ' +
    'behind) against the per-region quota, which cannot be raised: when it is reached, no new NLB Service port can ' +
    'get a server group.',
  remediation:
    'Delete the server groups no Service uses (NLB_SERVER_GROUP_ORPHANED lists them; upgrade CCM to v2.12.4 or ' +
    'later so deleted NLB Services no longer leave them), merge Services onto fewer ports, or move workloads to ' +
    `another region or account: the quota cannot be increased. ${FORECAST_HINT} ${DOC_URL.nlbQuotas}`,
  source: `${SEED.lbConsiderations} "Quota limits"; ${SEED.nlbQuotas} nlb_quota_servergroups_num (3,000, not adjustable); CCM pkg/controller/service/nlbv2/model_applier.go cleanup (server-group leak fixed in v2.12.4)`,
  settings: QUOTA_RATIO_SETTINGS,
  quotaUsage: true,
  quota: NLB_QUOTA_SERVER_GROUPS,
  check(_view, re, out, r, ctx) {
    const groups = re.region.nlbServerGroups ?? [];
    const unused = groups.filter((g) => g.relatedLoadBalancerIds.length === 0).length;
    pushNlbQuota(out, r, ctx, re.region, NLB_QUOTA_SERVER_GROUPS, regionRef(re), groups.length, serverGroupsText, { unusedServerGroups: unused });
  },
});
