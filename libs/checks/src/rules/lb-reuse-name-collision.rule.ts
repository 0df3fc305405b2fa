import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import type { ServiceEntry } from '../fleet-index';
import { count, listSome } from '../result.util';
import { clbRef } from '../lb-refs';

/** The ids of the clusters of some Services, distinct. */
function clustersOf(services: readonly ServiceEntry[]): Set<string> {
  return new Set(services.map((s) => s.cluster.cluster.clusterId));
}

/**
 * A CLB reused across clusters by Services with the same namespace/name. Seed 004: "When you reuse an existing
 * SLB instance across clusters, ensure that the combination of namespace and Service name is unique for each
 * cluster." CCM tells its listeners and vServer groups apart only by `k8s/{port}/{svc}/{ns}/{clusterId}`; with
 * equal namespace/name only the cluster id separates them, and a CCM without a configured cluster id uses the
 * literal `clusterid` (pkg/provider/alibaba/base/metadata.go), so the clusters overwrite each other's
 * listeners and backends. One result per CLB used by Services of two or more clusters.
 */
export const lbReuseNameCollisionRule = scopedCheck({
  id: 'LB_REUSE_NAME_COLLISION',
  title: 'CLB reused across clusters by Services with the same namespace/name',
  category: 'ownership',
  resourceKind: 'LoadBalancer',
  defaultSeverity: 'warning',
  description:
    'For every CLB used by Services of several clusters, checks that no namespace/name appears in two clusters. ' +
    "CCM attributes listeners and vServer groups by namespace, name and cluster id; colliding names let one cluster's " +
    "CCM treat the other's as its own.",
  remediation:
    'When you reuse an existing CLB instance across clusters, make the combination of namespace and Service name ' +
    `unique for each cluster: rename or move one of the Services, or give it its own CLB. ${DOC_URL.lbConsiderations}`,
  source:
    `${SEED.lbConsiderations} "Which load balancers can be reused?"; CCM pkg/model/load_balancer.go VGroupNamedKey, ` +
    'pkg/provider/alibaba/base/metadata.go (cluster id fallback "clusterid")',
  scope: 'sharedClb',
  needs: ['slb'],
  applies: ({ services }) => clustersOf(services).size >= 2,
  check({ lbId, clb, services }, out, r, ctx) {
    const clusters = clustersOf(services);
    const byName = new Map<string, Set<string>>();
    for (const se of services) {
      const k = `${se.service.namespace}/${se.service.name}`;
      const set = byName.get(k) ?? new Set<string>();
      set.add(se.cluster.cluster.clusterId);
      byName.set(k, set);
    }
    const collisions = [...byName.entries()]
      .filter(([, c]) => c.size > 1)
      .map(([name, c]) => `${name} in ${[...c].sort().join(' and ')}`)
      .sort();
    const figures = {
      clusters: [...clusters].sort(),
      services: services.length,
      collisions: collisions.length,
    };
    const reused = `CLB ${lbId} is reused by ${count(clusters.size, 'cluster')}`;
    if (collisions.length === 0) {
      out.push(r.pass(clbRef(ctx.index, clb.clb), `${reused} with distinct Service namespace/names`, figures));
      return;
    }
    out.push(
      r.fail(
        clbRef(ctx.index, clb.clb),
        `${reused}, and ${count(collisions.length, 'Service name')} ${collisions.length === 1 ? 'repeats' : 'repeat'} across them: ${listSome(collisions, 3)}`,
        { figures: { ...figures, names: collisions } },
      ),
    );
  },
});
