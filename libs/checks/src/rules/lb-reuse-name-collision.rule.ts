import type { CheckResult, ResourceRef, Severity } from '@app/domain';
import type { CheckDefinition } from '../check.types';
import { DOC_URL, SEED } from '../doc-links.constants';
import { clbRef, count, listSome, notReadReason, resultsFor } from '../result.util';

const SEVERITY: Severity = 'warning';
const ID = 'LB_REUSE_NAME_COLLISION';

/**
 * A CLB reused across clusters by Services with the same namespace/name. Seed 004: "When you reuse an existing
 * SLB instance across clusters, ensure that the combination of namespace and Service name is unique for each
 * cluster." CCM tells its listeners and vServer groups apart only by `k8s/{port}/{svc}/{ns}/{clusterId}`; with
 * equal namespace/name only the cluster id separates them, and a CCM without a configured cluster id uses the
 * literal `clusterid` (pkg/provider/alibaba/base/metadata.go), so the clusters overwrite each other's
 * listeners and backends. One result per CLB used by Services of two or more clusters.
 */
export const lbReuseNameCollisionRule: CheckDefinition = {
  id: ID,
  title: 'CLB reused across clusters by Services with the same namespace/name',
  category: 'ownership',
  resourceKind: 'LoadBalancer',
  defaultSeverity: SEVERITY,
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
  evaluate(ctx) {
    const r = resultsFor(ID, SEVERITY);
    const out: CheckResult[] = [];
    for (const [lbId, services] of ctx.index.servicesByClb()) {
      if (services.length < 2) continue;
      const clusters = new Set(services.map((s) => s.cluster.cluster.clusterId));
      if (clusters.size < 2) continue;
      const entry = ctx.index.clbById.get(lbId);
      if (!entry) continue;
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
      if (collisions.length > 0) {
        out.push(
          r.fail(
            clbRef(entry.clb),
            `CLB ${lbId} is reused by ${count(clusters.size, 'cluster')}, and ${count(collisions.length, 'Service name')} ` +
              `repeats across them: ${listSome(collisions, 3)}`,
            { figures: { ...figures, names: collisions } },
          ),
        );
      } else {
        out.push(
          r.pass(
            clbRef(entry.clb),
            `CLB ${lbId} is reused by ${count(clusters.size, 'cluster')} with distinct Service namespace/names`,
            figures,
          ),
        );
      }
    }
    // CLBs reused from several clusters in a region whose CLBs were not read: the collision cannot be judged.
    for (const [lbId, reusers] of ctx.index.reusersByLbId) {
      if (ctx.index.clbById.has(lbId)) continue;
      if (new Set(reusers.map((s) => s.cluster.cluster.clusterId)).size < 2) continue;
      const { account, region } = reusers[0]!.cluster;
      if (region.loadBalancers) continue;
      const ref: ResourceRef = {
        kind: 'LoadBalancer',
        id: lbId,
        accountId: account.accountId,
        regionId: region.regionId,
      };
      out.push(
        r.skipped(
          ref,
          notReadReason(
            ctx.index,
            `CLB instances of ${region.regionId}`,
            'slb',
            account.accountId,
            region.regionId,
          ),
        ),
      );
    }
    return out;
  },
};
