import { CCM_NAME_PREFIX, TAG_CCM_OWNER, TAG_CLUSTER_ID, needNlb, parseNlbNamedKey, type Figures, type NlbServerGroup } from '@app/domain';
import { DOC_URL, SEED } from '../doc-links.constants';
import type { RegionEntry } from '../fleet-index';
import { nlbServerGroupRef } from '../nlb-index';
import { type PassText, regionRef } from '../result.util';
import { nlbRegionCheck } from './nlb-quota.util';
import { findOwner } from './lb-orphaned.rule';

/** A server group CCM did not create: its message (built when read; `ref` is the group's). */
const untaggedText: PassText<{ usedByNlb: boolean }> = (ref, { usedByNlb }) =>
  `NLB server group ${ref.id} was not created by CCM (no ${TAG_CCM_OWNER} tag${usedByNlb ? ', used by an NLB' : ''})`;

/** A server group that belongs to an NLB Service (`service`, read for its namespace and name): its message (built when read). */
const ownedText: PassText<Figures, { namespace: string; name: string }> = (ref, _figures, service) =>
  `NLB server group ${ref.id} belongs to NLB Service ${service.namespace}/${service.name}`;

/** Whether a server group is used by an NLB: related to one, or the target of a listener of the region. */
function usedGroups(re: RegionEntry): Set<string> {
  const used = new Set<string>();
  for (const nlb of re.region.nlbs ?? []) for (const l of nlb.listeners) if (l.serverGroupId) used.add(l.serverGroupId);
  for (const g of re.region.nlbServerGroups ?? []) if (g.relatedLoadBalancerIds.length > 0) used.add(g.serverGroupId);
  return used;
}

/**
 * An NLB server group CCM made for a Service that is gone. CCM finds its groups by the two tags only
 * (`kubernetes.do.not.delete` = the Service's default LB name, `ack.aliyun.com` = the cluster;
 * nlbv2/server_groups.go `ListNLBServerGroups`), also on a reused NLB; builds before v2.12.4 (commit cad3a50ec)
 * skipped the server-group cleanup when an NLB Service was deleted, and `preserve-lb-on-delete` untags the groups
 * and keeps them (research/nlb.md 3.3). So a group is orphaned when:
 * - it carries the CCM owner tag and no NLB LoadBalancer Service with that default LB name exists in the tagged
 *   cluster (or the cluster is gone);
 * - it carries no CCM tag, is named `k8s.{port}.{proto}.{svc}.{ns}.{cluster}` and no NLB uses it (the
 *   `preserve-lb-on-delete` leftover) while that Service is gone.
 * Every one holds a slot of the fixed 3,000 per region (NLB_SERVER_GROUP_QUOTA). Skipped when the NLB data or the
 * clusters to search were not read.
 */
export const nlbServerGroupOrphanedRule = nlbRegionCheck({
  id: 'NLB_SERVER_GROUP_ORPHANED',
  title: 'NLB server group left behind by a deleted NLB Service',
  category: 'ownership',
  resourceKind: 'NlbServerGroup',
  defaultSeverity: 'warning',
  description:
    'Finds NLB server groups CCM created for a Service that no longer exists: CCM builds before v2.12.4 left them ' +
    'behind when an NLB Service was deleted, and preserve-lb-on-delete keeps them untagged. Each holds a slot of ' +
    'the 3,000 server groups per region, a quota that cannot be raised.',
  remediation:
    'Check that no listener uses the group, then delete it (NLB console, or DeleteServerGroup). Upgrade CCM to ' +
    'v2.12.4 or later so that deleting an NLB Service deletes its server groups too. ' +
    `${DOC_URL.nlbQuotas} ${DOC_URL.nlbAnnotations}`,
  source:
    `${SEED.lbConsiderations} (CCM manages an NLB's resources; quota limits); ${SEED.nlbQuotas} nlb_quota_servergroups_num; ` +
    'CCM pkg/controller/service/nlbv2/server_groups.go getServerGroupTag, ListNLBServerGroups; model_applier.go cleanup ' +
    '(commits 9e18cbf27 and cad3a50ec, fixed in v2.12.4)',
  check(_view, re, out, r, ctx) {
    const groups = re.region.nlbServerGroups ?? [];
    if (groups.length === 0) {
      out.push(r.pass(regionRef(re), `${re.region.regionId} of account ${re.account.accountId} has no NLB server group`));
      return;
    }
    const used = usedGroups(re);
    for (const g of groups) judge(g);

    function judge(g: NlbServerGroup): void {
      const ref = nlbServerGroupRef(re, g);
      const key = parseNlbNamedKey(g.name);
      const owner = g.tags[TAG_CCM_OWNER];
      const inUse = used.has(g.serverGroupId);
      const figures = { serverGroupName: g.name, servers: g.servers.length, usedByNlb: inUse, ...(owner ? { ownerTag: owner } : {}) };
      let found: ReturnType<typeof findOwner>;
      if (owner !== undefined) {
        found = findOwner(ctx.index, owner, g.tags[TAG_CLUSTER_ID] ?? key?.clusterId, re.account, re.region);
      } else if (key && !inUse && g.name.startsWith(`${CCM_NAME_PREFIX}.`)) {
        const ce = ctx.index.clusterById.get(key.clusterId);
        const svc = ce?.cluster.kubernetes ? ctx.index.service(key.clusterId, key.namespace, key.serviceName) : undefined;
        if (ce && !ce.cluster.kubernetes) {
          out.push(r.skipped(ref, `Kubernetes objects of cluster ${key.clusterId} were not read`, figures));
          return;
        }
        if (!ce || !svc || !needNlb(svc.service)) {
          out.push(r.fail(ref, `NLB server group ${g.serverGroupId} (${g.name}) is named by CCM for Service ${key.namespace}/${key.serviceName} in cluster ${key.clusterId}, which ${!ce ? 'cluster no longer exists' : 'is no longer an NLB Service'}, carries no CCM tag and no NLB uses it (left by preserve-lb-on-delete)`, { figures: { ...figures, orphanReason: 'untagged-unused' } }));
          return;
        }
        out.push(r.pass(ref, `NLB server group ${g.serverGroupId} is named for NLB Service ${key.namespace}/${key.serviceName}, which exists`, figures));
        return;
      } else {
        out.push(r.pass(ref, untaggedText, figures));
        return;
      }
      if ('skip' in found) {
        out.push(r.skipped(ref, found.skip, figures));
        return;
      }
      const svcText = key ? ` (named for ${key.namespace}/${key.serviceName} in cluster ${key.clusterId})` : '';
      if (found.clusterGone || !found.match || !needNlb(found.match.service)) {
        const why = found.clusterGone ? 'its cluster no longer exists' : !found.match ? 'no Service with that UID exists' : `Service ${found.match.service.namespace}/${found.match.service.name} is no longer an NLB LoadBalancer Service`;
        out.push(
          r.fail(ref, `NLB server group ${g.serverGroupId}${svcText} was created by CCM (${TAG_CCM_OWNER}=${owner}) but ${why}${inUse ? '' : '; no NLB uses it'}: it holds one of the ${re.region.regionId} server-group slots`, {
            figures: { ...figures, orphanReason: found.clusterGone ? 'cluster-gone' : !found.match ? 'service-gone' : 'service-not-nlb' },
          }),
        );
        return;
      }
      out.push(r.pass(ref, ownedText, figures, found.match.service));
    }
  },
});
