import { TAG_CCM_OWNER, TAG_CLUSTER_ID, needNlb, parseNlbNamedKey, type Nlb } from '@app/domain';
import { DOC_URL, SEED } from '../doc-links.constants';
import { groupsOfNlb, type RegionNlbView } from '../nlb-index';
import { type PassText, regionRef } from '../result.util';
import { nlbRegionCheck } from './nlb-quota.util';
import { findOwner } from './lb-orphaned.rule';
import { nlbRef } from '../lb-refs';

/** An NLB that belongs to an NLB Service: its message (built when read; `clusterId` is the Service's cluster). */
const ownedText: PassText<{ service: string }, string> = (ref, { service }, clusterId) =>
  `NLB ${ref.id} belongs to NLB Service ${service} in cluster ${clusterId}`;

/** The Service an NLB last served, from its listener descriptions or server group names (for messages). */
function formerServiceOf(view: RegionNlbView, nlb: Nlb): string | undefined {
  for (const text of [...nlb.listeners.map((l) => l.description), ...groupsOfNlb(view, nlb).map((g) => g.name)]) {
    const k = parseNlbNamedKey(text);
    if (k) return `${k.namespace}/${k.serviceName} in cluster ${k.clusterId}`;
  }
  return undefined;
}

/**
 * An NLB that CCM created (tag `kubernetes.do.not.delete` = the Service's default LB name) whose Service no longer
 * exists, is no longer an NLB LoadBalancer Service (type changed, class removed: CCM then cleans up and deletes the
 * NLB, nlb_controller.go `cleanupLoadBalancerResources`), or whose cluster (tag `ack.aliyun.com`) is gone. Matching
 * as LB_ORPHANED: the Service whose default LB name equals the tag, in the tagged cluster. NLBs without the CCM tag
 * (reused, console-created, kept by `preserve-lb-on-delete`, which removes the tags) are never orphans here. Skipped
 * when the NLB data or the clusters to search were not read.
 */
export const nlbOrphanedRule = nlbRegionCheck({
  id: 'NLB_ORPHANED',
  title: 'CCM-created NLB whose Service or cluster no longer exists',
  category: 'ownership',
  resourceKind: 'NetworkLoadBalancer',
  defaultSeverity: 'warning',
  description:
    'Finds NLB instances tagged by CCM (kubernetes.do.not.delete) that no NLB LoadBalancer Service owns any more: ' +
    'the Service was deleted or changed type or class without CCM cleaning up, or the cluster was deleted. They ' +
    'keep costing money and hold NLB and server-group quota.',
  remediation:
    'Confirm the NLB carries no traffic, then delete it in the NLB console (turn deletion protection off first) ' +
    'together with its server groups. To keep it for a Service, remove the CCM tags and reuse it with ' +
    `service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id. ${DOC_URL.nlbAnnotations}`,
  source:
    `${SEED.lbConsiderations} (CCM creates a CLB or an NLB; finalizer service.k8s.alibaba/nlb); ${SEED.nlbAnnotations}; ` +
    'CCM pkg/controller/service/nlbv2/nlb_controller.go cleanupLoadBalancerResources, pkg/provider/alibaba/nlb/loadbalancer.go FindNLB',
  check(view, re, out, r, ctx) {
    if ((re.region.nlbs ?? []).length === 0) {
      out.push(r.pass(regionRef(re), `${re.region.regionId} of account ${re.account.accountId} has no NLB`));
      return;
    }
    for (const nlb of re.region.nlbs ?? []) {
      const ref = nlbRef(ctx.index, nlb);
      const owner = nlb.tags[TAG_CCM_OWNER];
      if (owner === undefined) {
        out.push(r.pass(ref, `NLB ${nlb.loadBalancerId} was not created by CCM (no ${TAG_CCM_OWNER} tag): never an orphan`));
        continue;
      }
      const clusterId = nlb.tags[TAG_CLUSTER_ID];
      const former = formerServiceOf(view, nlb);
      const figures = { ownerTag: owner, ...(clusterId ? { clusterId } : {}), ...(former ? { formerService: former } : {}) };
      const found = findOwner(ctx.index, owner, clusterId, re.account, re.region);
      if ('skip' in found) {
        out.push(r.skipped(ref, found.skip, figures));
        continue;
      }
      const last = former ? ` (last served ${former})` : '';
      if (found.clusterGone) {
        out.push(r.fail(ref, `NLB ${nlb.loadBalancerId} was created by CCM for cluster ${clusterId}, which no longer exists${last}`, { figures: { ...figures, orphanReason: 'cluster-gone' } }));
        continue;
      }
      const match = found.match;
      if (!match) {
        out.push(
          r.fail(ref, `NLB ${nlb.loadBalancerId} was created by CCM (${TAG_CCM_OWNER}=${owner}) but no Service with that UID exists${clusterId ? ` in cluster ${clusterId}` : ` in the clusters of ${re.region.regionId}`}${last}`, {
            figures: { ...figures, orphanReason: 'service-gone' },
          }),
        );
        continue;
      }
      const svcId = `${match.service.namespace}/${match.service.name}`;
      if (!needNlb(match.service)) {
        out.push(
          r.fail(ref, `NLB ${nlb.loadBalancerId} was created by CCM for Service ${svcId}, which is no longer an NLB LoadBalancer Service (type ${match.service.type}${match.service.loadBalancerClass ? `, class ${match.service.loadBalancerClass}` : ', no loadBalancerClass'})`, {
            figures: { ...figures, orphanReason: 'service-not-nlb', service: svcId },
          }),
        );
        continue;
      }
      out.push(r.pass(ref, ownedText, { ...figures, service: svcId }, match.cluster.cluster.clusterId));
    }
  },
});
