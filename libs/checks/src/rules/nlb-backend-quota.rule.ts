import { NLB_QUOTA_BACKEND_SERVERS, type NlbServerGroup } from '@app/domain';
import { DOC_URL, FORECAST_HINT, SEED } from '../doc-links.constants';
import { groupsOfNlb, serverKey, type RegionNlbView } from '../nlb-index';
import type { IdSequence } from '../positional-cache';
import { count, QUOTA_RATIO_SETTINGS } from '../result.util';
import { nlbQuotaText, nlbRegionCheck, pushNlbQuota } from './nlb-quota.util';
import { nlbRef } from '../lb-refs';

/** `NLB nlb-x has 100 backend entries (100 distinct servers) in 1 server group: ...` (`ref` is the NLB's). */
const backendsText = nlbQuotaText(
  (ref, f) =>
    `NLB ${ref.id} has ${count(f.used, 'backend entry', 'backend entries')} (${count(Number(f['distinctServers']), 'distinct server')}) in ${count(Number(f['serverGroups']), 'server group')}`,
);

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
  quota: NLB_QUOTA_BACKEND_SERVERS,
  check(view, re, out, r, ctx) {
    const bySequence = new Map<IdSequence, number>();
    for (const nlb of re.region.nlbs ?? []) {
      const groups = groupsOfNlb(view, nlb);
      const used = groups.reduce((n, g) => n + g.servers.length, 0);
      const distinct = distinctServersOfNlb(view, groups, bySequence);
      pushNlbQuota(out, r, ctx, re.region, NLB_QUOTA_BACKEND_SERVERS, nlbRef(ctx.index, nlb), used, backendsText, { distinctServers: distinct, serverGroups: groups.length });
    }
  },
});

/**
 * Distinct servers (by `serverKey`) over the server groups of one NLB (count), as `distinctServers` counts them, once
 * per server sequence: where every non-empty group of the NLB has the same sequence in the region's NLB view
 * (`NlbServerGroupShape.sequence`: the same server keys at the same positions; in Cluster mode every server group of a
 * cluster's NLB Services lists the same nodes, nlbv2/server_groups.go), the count is the sequence's, computed for
 * its first list and kept in `bySequence` (one region's sequences). The 2.6M servers of the 10M-entry bench fleet
 * were each compared once more here; now each sequence's list is.
 */
export function distinctServersOfNlb(
  view: RegionNlbView,
  groups: readonly NlbServerGroup[],
  bySequence: Map<IdSequence, number>,
): number {
  let sequence: IdSequence | undefined;
  let first: NlbServerGroup | undefined;
  for (const g of groups) {
    if (g.servers.length === 0) continue;
    const s = view.groupShapes.get(g)?.sequence;
    if (s === undefined || (sequence !== undefined && s !== sequence)) return distinctServers(groups);
    sequence = s;
    first ??= g;
  }
  if (sequence === undefined) return 0;
  let n = bySequence.get(sequence);
  if (n === undefined) {
    // Every list of the sequence holds the same server keys: the count of one of them is the sequence's.
    n = distinctServers([first!]);
    bySequence.set(sequence, n);
  }
  return n;
}

/**
 * Distinct servers (by `serverKey`: type and id) over the server groups of one NLB (count). One group of `Ecs`
 * servers (keyed by their ECS id) in id order, as the mappers sort them, has its repeats next to each other: counted
 * in one pass without a Set (2.6M servers on the 10M-entry bench fleet). Otherwise, a Set of the
 * keys.
 */
export function distinctServers(groups: readonly NlbServerGroup[]): number {
  if (groups.length === 1) {
    const servers = groups[0]!.servers;
    let distinct = servers.length > 0 && servers[0]!.type === 'Ecs' ? 1 : 0;
    let simple = distinct === 1;
    for (let i = 1; i < servers.length && simple; i++) {
      const a = servers[i - 1]!.serverId;
      const b = servers[i]!;
      simple = b.type === 'Ecs' && a <= b.serverId;
      if (a !== b.serverId) distinct++;
    }
    if (simple) return distinct;
  }
  const keys = new Set<string>();
  for (const g of groups) for (const sv of g.servers) keys.add(serverKey(sv));
  return keys.size;
}
