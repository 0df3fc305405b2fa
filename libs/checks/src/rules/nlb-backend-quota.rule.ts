import { NLB_QUOTA_BACKEND_SERVERS } from '@app/domain';
import { DOC_URL, FORECAST_HINT, SEED } from '../doc-links.constants';
import { groupsOfNlb, nlbRef, serverKey } from '../nlb-index';
import { count, QUOTA_RATIO_SETTINGS } from '../result.util';
import { nlbRegionCheck, pushNlbQuota } from './nlb-quota.util';

/**
 * Backend entries of one NLB, summed over its server groups (one per listener) and so over every Service sharing
 * the NLB, vs `nlb_quota_loadbalancer_noeci_servers_num` (default 400; NLB "NLB quotas"). Whether the quota counts
 * distinct servers or entries is not documented (research/nlb.md 5): entries are counted (conservative), distinct
 * servers reported beside them. Region scope; skipped where the NLB data was not read.
 */
export const nlbBackendQuotaRule = nlbRegionCheck({
  id: 'NLB_BACKEND_QUOTA',
  title: 'NLB backend servers vs the per-instance quota',
  category: 'quota',
  resourceKind: 'NetworkLoadBalancer',
  defaultSeverity: 'warning',
  description:
    'Counts the backend entries of each NLB across all its server groups (one per listener, so a Service with ' +
    'several ports counts every node once per port, and Services reusing one NLB add up) against the per-NLB quota.',
  remediation:
    'Request a higher nlb_quota_loadbalancer_noeci_servers_num in Quota Center, spread the Services over more ' +
    'NLBs, or attach fewer servers: externalTrafficPolicy: Local or ENI mode instead of Cluster mode. ' +
    `${FORECAST_HINT} ${DOC_URL.nlbQuotas}`,
  source: `${SEED.lbConsiderations} "Quota limits"; ${SEED.nlbQuotas} nlb_quota_loadbalancer_noeci_servers_num (default 400); CCM pkg/controller/service/nlbv2/server_groups.go`,
  settings: QUOTA_RATIO_SETTINGS,
  quotaUsage: true,
  check(view, re, out, r, ctx) {
    for (const nlb of re.region.nlbs ?? []) {
      const groups = groupsOfNlb(view, nlb);
      const used = groups.reduce((n, g) => n + g.servers.length, 0);
      const keys = new Set<string>();
      for (const g of groups) for (const sv of g.servers) keys.add(serverKey(sv));
      const distinct = keys.size;
      pushNlbQuota(out, r, ctx, re.region, NLB_QUOTA_BACKEND_SERVERS, nlbRef(nlb), used, `NLB ${nlb.loadBalancerId} has ${count(used, 'backend entry', 'backend entries')} (${count(distinct, 'distinct server')}) in ${count(groups.length, 'server group')}`, { distinctServers: distinct, serverGroups: groups.length });
    }
  },
});
