import {
  TAG_CCM_OWNER,
  TAG_CLUSTER_ID,
  parseCcmNamedKey,
  type AccountSnapshot,
  type Clb,
  type RegionSnapshot,
} from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import type { FleetIndex, ServiceEntry } from '../fleet-index';
import { notReadReason, type PassText } from '../result.util';
import { clbRef } from '../lb-refs';

/** A CLB that belongs to a LoadBalancer Service: its message (built when read; `clusterId` is the Service's cluster). */
const ownedText: PassText<{ service: string }, string> = (ref, { service }, clusterId) =>
  `CLB ${ref.id} belongs to LoadBalancer Service ${service} in cluster ${clusterId}`;

/** The Service a CCM-created CLB last served, from its vServer group / listener names (for messages). */
function formerServiceOf(clb: Clb): string | undefined {
  for (const g of clb.vServerGroups) {
    const k = parseCcmNamedKey(g.name);
    if (k) return `${k.namespace}/${k.serviceName} in cluster ${k.clusterId}`;
  }
  for (const l of clb.listeners) {
    const k = parseCcmNamedKey(l.description);
    if (k) return `${k.namespace}/${k.serviceName} in cluster ${k.clusterId}`;
  }
  return undefined;
}

/** The owner search of a CCM-created CLB or NLB: the Service found (or none), the tagged cluster gone, or why not known. */
export type OwnerSearch = { match?: ServiceEntry; clusterGone?: boolean } | { skip: string };

/**
 * The Service whose default LB name is `owner`: within the tagged cluster when `clusterId` is set (the cluster must
 * exist and its Kubernetes objects must have been read), else within the clusters of the CLB's account and region
 * (a miss counts only when all of them were read).
 */
export function findOwner(
  index: FleetIndex,
  owner: string,
  clusterId: string | undefined,
  account: AccountSnapshot,
  region: RegionSnapshot,
): OwnerSearch {
  const candidates = index.servicesByDefaultLbName().get(owner) ?? [];
  if (clusterId === undefined) {
    const match = candidates.find(
      (s) =>
        s.cluster.account.accountId === account.accountId && s.cluster.region.regionId === region.regionId,
    );
    const unread = match ? undefined : index.clustersNotAllRead(account, region);
    return unread
      ? { skip: `cannot search every cluster for the owner of ${owner}: ${unread}` }
      : { ...(match ? { match } : {}) };
  }
  const ce = index.clusterById.get(clusterId);
  if (!ce) {
    const failed = index.failedCoverage(account.accountId, region.regionId, undefined, 'cs');
    return failed
      ? {
          skip: notReadReason(
            index,
            `the cluster list of ${region.regionId}`,
            'cs',
            account.accountId,
            region.regionId,
            undefined,
            'was',
          ),
        }
      : { clusterGone: true };
  }
  if (!ce.cluster.kubernetes)
    return {
      skip: notReadReason(
        index,
        `Kubernetes objects of cluster ${clusterId}`,
        'kubernetes',
        ce.account.accountId,
        ce.region.regionId,
        clusterId,
      ),
    };
  const match = candidates.find((s) => s.cluster.cluster.clusterId === clusterId);
  return match ? { match } : {};
}

/**
 * A CLB that CCM created (tag `kubernetes.do.not.delete` = the Service's default LB name) whose Service no
 * longer exists, is no longer type LoadBalancer, or whose cluster (tag `ack.aliyun.com`) is gone. CCM
 * deletes the CLB it created when the Service is deleted or changes type (seeds 000/003 "When are SLB
 * instances automatically deleted?"), so such a CLB is left behind and still billed.
 *
 * Matching: the Service whose default LB name (`"a"` + UID without dashes, 32 chars) equals the tag value,
 * within the tagged cluster when `ack.aliyun.com` is present, else within every cluster of the CLB's
 * account and region. Never an orphan: the API-server CLB (`external_loadbalancer_id` of a cluster) and
 * CLBs without the CCM tag (console-created or reused). Skipped when the clusters to search were not all
 * read.
 *
 * CLBs only, on purpose: NLBs are NLB_ORPHANED's (nlb-orphaned.rule.ts), which shares `findOwner` but
 * judges the owner as the NLB controller does (CCM deletes the NLB once the Service is no longer type LoadBalancer
 * with class `alibabacloud.com/nlb`, nlb_controller.go `cleanupLoadBalancerResources`; the class is immutable, so
 * a CLB Service never turns into an NLB one: research/nlb.md 1). Judging NLBs here too would report each orphaned
 * NLB twice. Negative control: fixture LB_ORPHANED/pass.nlb-orphan-is-not-a-clb-orphan.json and
 * libs/checks/test/lb-orphaned-nlb.spec.ts.
 */
export const lbOrphanedRule = scopedCheck({
  id: 'LB_ORPHANED',
  title: 'CCM-created CLB whose Service or cluster no longer exists',
  category: 'ownership',
  resourceKind: 'LoadBalancer',
  defaultSeverity: 'warning',
  description:
    'Finds CLB instances tagged by CCM (kubernetes.do.not.delete) that no LoadBalancer Service owns any more: the ' +
    'Service was deleted or changed type without CCM cleaning up, the cluster was deleted, or the tag was added ' +
    'by hand. They keep costing money and quota.',
  remediation:
    'Confirm the CLB is not used (no listeners with traffic), then release it in the SLB console (disable deletion ' +
    'protection first). If the Service still exists under another UID and should keep this CLB, reuse it ' +
    'explicitly with service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id after removing the CCM tags; a CLB ' +
    `created by CCM cannot otherwise be reused. ${DOC_URL.serviceFaq}`,
  source:
    `${SEED.serviceFaq} "When are SLB instances automatically deleted?" and "How to enable SLB renaming for older ` +
    `CCM versions" (default name from the UID); ${SEED.lbConsiderations} "Load balancing update policies"; CCM ` +
    'pkg/controller/service/reconcile/annotation/annotations.go GetDefaultLoadBalancerName, ' +
    'pkg/controller/helper/service_utils.go (TAGKEY), pkg/util/constant.go (ClusterTagKey)',
  scope: 'clb',
  needs: ['slb'],
  // Not created by CCM (no kubernetes.do.not.delete tag): never an orphan.
  applies: ({ clb }) => clb.tags[TAG_CCM_OWNER] !== undefined,
  check({ clb, account, region }, out, r, ctx) {
    const owner = clb.tags[TAG_CCM_OWNER]!;
    const ref = clbRef(ctx.index, clb);
    const apiServerOf = ctx.index.apiServerClusters.get(clb.loadBalancerId);
    if (apiServerOf) {
      out.push(
        r.pass(
          ref,
          `CLB ${clb.loadBalancerId} is the API server CLB of cluster ${apiServerOf[0]?.cluster.clusterId}: never an orphan`,
        ),
      );
      return;
    }
    const clusterId = clb.tags[TAG_CLUSTER_ID];
    const former = formerServiceOf(clb);
    const figures = {
      ownerTag: owner,
      ...(clusterId ? { clusterId } : {}),
      ...(former ? { formerService: former } : {}),
    };
    const found = findOwner(ctx.index, owner, clusterId, account, region);
    if ('skip' in found) {
      out.push(r.skipped(ref, found.skip, figures));
      return;
    }
    if (found.clusterGone) {
      out.push(
        r.fail(
          ref,
          `CLB ${clb.loadBalancerId} was created by CCM for cluster ${clusterId}, which no longer exists${former ? ` (last served ${former})` : ''}`,
          { figures: { ...figures, orphanReason: 'cluster-gone' } },
        ),
      );
      return;
    }
    const match = found.match;
    if (!match) {
      out.push(
        r.fail(
          ref,
          `CLB ${clb.loadBalancerId} was created by CCM (kubernetes.do.not.delete=${owner}) but no Service with that UID ` +
            `exists${clusterId ? ` in cluster ${clusterId}` : ` in the clusters of ${region.regionId}`}${former ? ` (last served ${former})` : ''}`,
          { figures: { ...figures, orphanReason: 'service-gone' } },
        ),
      );
      return;
    }
    const svcId = `${match.service.namespace}/${match.service.name}`;
    if (match.service.type !== 'LoadBalancer') {
      out.push(
        r.fail(
          ref,
          `CLB ${clb.loadBalancerId} was created by CCM for Service ${svcId}, which is now type ${match.service.type}`,
          {
            figures: { ...figures, orphanReason: 'service-not-loadbalancer', service: svcId },
          },
        ),
      );
      return;
    }
    out.push(
      r.pass(
        ref,
        ownedText,
        {
          ...figures,
          service: svcId,
        },
        match.cluster.cluster.clusterId,
      ),
    );
  },
});
