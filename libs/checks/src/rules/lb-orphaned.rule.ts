import {
  TAG_CCM_OWNER,
  TAG_CLUSTER_ID,
  parseCcmNamedKey,
  type CheckResult,
  type Clb,
  type Severity,
} from '@app/domain';
import type { CheckDefinition } from '../check.types';
import { DOC_URL, SEED } from '../doc-links.constants';
import type { ClusterEntry, FleetIndex, RegionEntry, ServiceEntry } from '../fleet-index';
import { clbRef, regionRef, resultsFor } from '../result.util';

const SEVERITY: Severity = 'warning';
const ID = 'LB_ORPHANED';

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

/** Why the clusters of a region cannot all be searched for the Service, or `undefined` when they can. */
function regionNotFullyRead(index: FleetIndex, re: RegionEntry): string | undefined {
  const failed = index.failedCoverage(re.account.accountId, re.region.regionId, undefined, 'cs');
  if (failed)
    return `the cluster list of ${re.region.regionId} was not read${failed.message ? ` (${failed.message})` : ''}`;
  const unread = re.region.clusters.filter((c) => !c.kubernetes).map((c) => c.clusterId);
  if (unread.length > 0) return `Kubernetes objects of clusters ${unread.join(', ')} were not read`;
  return undefined;
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
 */
export const lbOrphanedRule: CheckDefinition = {
  id: ID,
  title: 'CCM-created CLB whose Service or cluster no longer exists',
  category: 'ownership',
  resourceKind: 'LoadBalancer',
  defaultSeverity: SEVERITY,
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
  evaluate(ctx) {
    const r = resultsFor(ID, SEVERITY);
    const out: CheckResult[] = [];
    const byName = ctx.index.servicesByDefaultLbName();
    for (const re of ctx.index.regions) {
      const lbs = re.region.loadBalancers;
      if (!lbs) {
        const failed = ctx.index.failedCoverage(re.account.accountId, re.region.regionId, undefined, 'slb');
        out.push(
          r.skipped(
            regionRef(re),
            `CLB instances of ${re.region.regionId} were not read${failed?.message ? ` (${failed.message})` : ''}`,
          ),
        );
        continue;
      }
      let regionReason: string | undefined | null = null; // computed once per region on demand
      for (const clb of lbs) {
        const owner = clb.tags[TAG_CCM_OWNER];
        if (owner === undefined) continue; // not created by CCM: never an orphan
        const ref = clbRef(clb);
        const apiServerOf = ctx.index.apiServerClusters.get(clb.loadBalancerId);
        if (apiServerOf) {
          out.push(
            r.pass(
              ref,
              `CLB ${clb.loadBalancerId} is the API server CLB of cluster ${apiServerOf[0]?.cluster.clusterId}: never an orphan`,
            ),
          );
          continue;
        }
        const clusterId = clb.tags[TAG_CLUSTER_ID];
        const former = formerServiceOf(clb);
        const figures = {
          ownerTag: owner,
          ...(clusterId ? { clusterId } : {}),
          ...(former ? { formerService: former } : {}),
        };
        const candidates = byName.get(owner) ?? [];
        let match: ServiceEntry | undefined;
        if (clusterId !== undefined) {
          const ce: ClusterEntry | undefined = ctx.index.clusterById.get(clusterId);
          if (!ce) {
            const failed = ctx.index.failedCoverage(
              re.account.accountId,
              re.region.regionId,
              undefined,
              'cs',
            );
            if (failed) {
              out.push(
                r.skipped(
                  ref,
                  `the cluster list of ${re.region.regionId} was not read${failed.message ? ` (${failed.message})` : ''}`,
                  figures,
                ),
              );
            } else {
              out.push(
                r.fail(
                  ref,
                  `CLB ${clb.loadBalancerId} was created by CCM for cluster ${clusterId}, which no longer exists${former ? ` (last served ${former})` : ''}`,
                  {
                    figures: { ...figures, orphanReason: 'cluster-gone' },
                  },
                ),
              );
            }
            continue;
          }
          if (!ce.cluster.kubernetes) {
            const failed = ctx.index.failedCoverage(
              ce.account.accountId,
              ce.region.regionId,
              clusterId,
              'kubernetes',
            );
            out.push(
              r.skipped(
                ref,
                `Kubernetes objects of cluster ${clusterId} were not read${failed?.message ? ` (${failed.message})` : ''}`,
                figures,
              ),
            );
            continue;
          }
          match = candidates.find((s) => s.cluster.cluster.clusterId === clusterId);
        } else {
          match = candidates.find(
            (s) =>
              s.cluster.account.accountId === re.account.accountId &&
              s.cluster.region.regionId === re.region.regionId,
          );
          if (!match) {
            if (regionReason === null) regionReason = regionNotFullyRead(ctx.index, re);
            if (regionReason) {
              out.push(
                r.skipped(
                  ref,
                  `cannot search every cluster for the owner of ${owner}: ${regionReason}`,
                  figures,
                ),
              );
              continue;
            }
          }
        }
        if (!match) {
          out.push(
            r.fail(
              ref,
              `CLB ${clb.loadBalancerId} was created by CCM (kubernetes.do.not.delete=${owner}) but no Service with that UID ` +
                `exists${clusterId ? ` in cluster ${clusterId}` : ` in the clusters of ${re.region.regionId}`}${former ? ` (last served ${former})` : ''}`,
              { figures: { ...figures, orphanReason: 'service-gone' } },
            ),
          );
          continue;
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
          continue;
        }
        out.push(
          r.pass(
            ref,
            `CLB ${clb.loadBalancerId} belongs to LoadBalancer Service ${svcId} in cluster ${match.cluster.cluster.clusterId}`,
            {
              ...figures,
              service: svcId,
            },
          ),
        );
      }
    }
    return out;
  },
};
