import { NLB_QUOTA_SERVER_ADDED, type NlbServer } from '@app/domain';
import { DOC_URL, FORECAST_HINT, SEED } from '../doc-links.constants';
import { nlbServerRef, type RegionNlbView } from '../nlb-index';
import { count, QUOTA_RATIO_SETTINGS } from '../result.util';
import { nlbQuotaText, nlbRegionCheck, pushNlbQuota } from './nlb-quota.util';

/** `Ecs server i-x is in 10 NLB server groups: ...` (`ref` is the server's: its id; the type is a figure). */
const serverAddedText = nlbQuotaText((ref, f) => `${String(f['serverType'])} server ${ref.id} is in ${count(f.used, 'NLB server group')}`);

/**
 * Server groups one server (ECS instance, ENI, or IP: IP entries count too) is in vs `nlb_quota_server_added_num`
 * (default 200; NLB "NLB quotas"). Cluster mode adds every eligible node to the server group of every Service port
 * of every Cluster-mode NLB Service (research/nlb.md 4 (d), (e); seed 004: Cluster mode "quickly consumes the
 * quota"), so a node reaches it after 200 such ports. Region scope; skipped where the NLB data was not read.
 */
export const nlbServerAddedQuotaRule = nlbRegionCheck({
  id: 'NLB_SERVER_ADDED_QUOTA',
  title: 'NLB server groups per server vs the server-added quota',
  category: 'quota',
  resourceKind: 'EcsInstance',
  defaultSeverity: 'warning',
  description:
    'Counts, for each backend server (ECS instance, ENI or IP), the NLB server groups it is in, against the quota ' +
    'of times one server can be added to server groups. In Cluster mode every node is added once per port of every ' +
    'NLB Service, so this quota limits how many Cluster-mode NLB Service ports a cluster can have.',
  remediation:
    'Switch NLB Services to externalTrafficPolicy: Local or ENI mode (servers only where pods run), restrict nodes ' +
    'with the backend-label annotation, or request a higher nlb_quota_server_added_num in Quota Center. ' +
    `${FORECAST_HINT} ${DOC_URL.nlbQuotas}`,
  source: `${SEED.lbConsiderations} "Load balancing update policies" (Cluster mode quota use); ${SEED.nlbQuotas} nlb_quota_server_added_num (default 200, IP entries included)`,
  settings: QUOTA_RATIO_SETTINGS,
  quotaUsage: true,
  quota: NLB_QUOTA_SERVER_ADDED,
  check(view, re, out, r, ctx) {
    for (const { server, groups } of serversInKeyOrder(view))
      pushNlbQuota(out, r, ctx, re.region, NLB_QUOTA_SERVER_ADDED, nlbServerRef(re, server), groups, serverAddedText, { serverType: server.type });
  },
});

/** A server with how many server groups hold it (a `RegionNlbView.groupsByServer` entry). */
type ServerGroups = { server: NlbServer; groups: number };

/**
 * The servers of a region's server groups in the order the audit lists results (resource key: kind, then id; ties in
 * first-seen order): ECS instances (`EcsInstance` refs) by id, then ENI, ECI and IP servers (`NlbServer` refs) by id.
 * `groupsByServer` holds them in first-seen order, group after group, which the audit would otherwise sort by built
 * key strings (250,000 servers in thousands of sorted runs on a 5,000-cluster fleet).
 */
function serversInKeyOrder(view: RegionNlbView): ServerGroups[] {
  const byServer = view.groupsByServer;
  // An `Ecs` server's key is its id (`serverKey`): the ids are sorted by the engine's own string sort, without a
  // JavaScript comparison per pair; the few other servers by a comparison of their ids (a stable sort: ties keep
  // their first-seen order).
  const ecsIds: string[] = [];
  const other: ServerGroups[] = [];
  for (const e of byServer.values()) {
    if (e.server.type === 'Ecs') ecsIds.push(e.server.serverId);
    else other.push(e);
  }
  ecsIds.sort();
  other.sort((a, b) => (a.server.serverId < b.server.serverId ? -1 : a.server.serverId > b.server.serverId ? 1 : 0));
  const out = new Array<ServerGroups>(ecsIds.length + other.length);
  for (let i = 0; i < ecsIds.length; i++) out[i] = byServer.get(ecsIds[i]!)!;
  for (let i = 0; i < other.length; i++) out[ecsIds.length + i] = other[i]!;
  return out;
}
