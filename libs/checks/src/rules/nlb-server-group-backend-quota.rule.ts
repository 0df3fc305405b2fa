import { NLB_QUOTA_SERVER_GROUP_SERVERS } from '@app/domain';
import { DOC_URL, FORECAST_HINT, SEED } from '../doc-links.constants';
import { nlbServerGroupRef } from '../nlb-index';
import { count, QUOTA_RATIO_SETTINGS } from '../result.util';
import { nlbQuotaText, nlbRegionCheck, pushNlbQuota } from './nlb-quota.util';

/** `NLB server group sgp-x (name) has 100 servers: ...` (`ref` is the group's: its id, and its name when it has one). */
const serversText = nlbQuotaText((ref, f) => `NLB server group ${ref.id} (${ref.name || 'unnamed'}) has ${count(f.used, 'server')}`);

/**
 * Servers in one NLB server group vs `nlb_quota_servergroup_noeci_servers_num` (Quota Center value of the region,
 * else the documented default 400; NLB "NLB quotas"). CCM puts every eligible node of a Cluster-mode Service in its
 * group (research/nlb.md 4), so a large cluster reaches it first. Counts the listed servers (ListServerGroupServers),
 * or `ServerCount` when it reports more. Region scope; a region whose NLB data was not read is skipped.
 */
export const nlbServerGroupBackendQuotaRule = nlbRegionCheck({
  id: 'NLB_SERVER_GROUP_BACKEND_QUOTA',
  title: 'NLB server group servers vs the per-server-group quota',
  category: 'quota',
  resourceKind: 'NlbServerGroup',
  defaultSeverity: 'warning',
  description:
    'Counts the servers (ECS instances, ENIs, IPs) of each NLB server group against the per-group quota. CCM adds ' +
    'every eligible node to the group of a Cluster-mode Service port; once the group is full, CCM cannot add the ' +
    'next node and the sync fails.',
  remediation:
    'Request a higher nlb_quota_servergroup_noeci_servers_num in Quota Center, or reduce the servers per group: ' +
    'switch the Service to externalTrafficPolicy: Local (only nodes running its pods) or ENI mode, or limit the ' +
    `nodes with the backend-label annotation. ${FORECAST_HINT} ${DOC_URL.nlbQuotas}`,
  source: `${SEED.lbConsiderations} "Quota limits"; ${SEED.nlbQuotas} nlb_quota_servergroup_noeci_servers_num (default 400); CCM pkg/controller/service/nlbv2/server_groups.go buildClusterBackends`,
  settings: QUOTA_RATIO_SETTINGS,
  quotaUsage: true,
  quota: NLB_QUOTA_SERVER_GROUP_SERVERS,
  check(_view, re, out, r, ctx) {
    for (const g of re.region.nlbServerGroups ?? []) {
      const used = Math.max(g.servers.length, g.serverCount ?? 0);
      pushNlbQuota(out, r, ctx, re.region, NLB_QUOTA_SERVER_GROUP_SERVERS, nlbServerGroupRef(re, g), used, serversText);
    }
  },
});
