import { createHash } from 'node:crypto';
import type { ResourceKind, ResourceRef } from '@app/domain';

/**
 * Kinds whose identity is regional: a CLB, vServer group, ECS instance or vSwitch is named by its
 * id within its account and region (Alibaba Cloud API references: DescribeLoadBalancers,
 * DescribeVServerGroups, DescribeInstances, DescribeVSwitches take RegionId and return ids unique
 * there). The cluster they serve is a derived attribute that can change (or be unknown when a
 * cluster's Kubernetes objects were not read), so it is not part of their key (issue 14 item 7).
 */
export const REGION_SCOPED_KINDS: ReadonlySet<ResourceKind> = new Set<ResourceKind>(['LoadBalancer', 'VServerGroup', 'EcsInstance', 'VSwitch', 'NetworkLoadBalancer', 'NlbServerGroup', 'NlbServer']);

/**
 * The stable identity key of a resource, `|`-separated: kind, account, region, cluster and id for
 * cluster-scoped kinds (Service, Node, Cluster: their ids are only unique within a cluster);
 * kind, account, region, an empty field and id for region-scoped kinds ({@link REGION_SCOPED_KINDS})
 * and for account / region kinds (which carry no cluster). Two results about the same resource in
 * two scans have the same key, whatever cluster the resource is attributed to.
 */
export function resourceKeyOf(resource: ResourceRef): string {
  const cluster = REGION_SCOPED_KINDS.has(resource.kind) ? '' : (resource.clusterId ?? '');
  return [resource.kind, resource.accountId, resource.regionId, cluster, resource.id].join('|');
}

/**
 * Fingerprint of a finding: the first 32 hex characters of sha256(`checkId` + NUL + resource key).
 * Stable across scans, so scans diff into new / resolved / persisting and waivers can name it
 * (ARCHITECTURE.md "Findings carry a fingerprint"). The SQL migration
 * `1796500000001_rekeyed_region_scoped_fingerprints.sql` computes the same value in PostgreSQL.
 */
export function fingerprintOf(checkId: string, resource: ResourceRef): string {
  return createHash('sha256')
    .update(`${checkId}\u0000${resourceKeyOf(resource)}`)
    .digest('hex')
    .slice(0, 32);
}
