import { TAG_CLUSTER_ID, type ResourceRef } from '@app/domain';
import type { ClbEntry, FleetIndex } from './fleet-index';

/**
 * The cluster that owns each CLB, where the snapshot says: CLB results (quota samples, findings) then carry that
 * cluster (and through it its name and team), instead of standing for their account as a whole. In order:
 *  1. the tag `ack.aliyun.com` = cluster id that CCM writes on the CLBs it creates and that the API-server CLB carries
 *     (`util.ClusterTagKey`, research/ccm-behaviour.md 1.3), when that cluster is in the snapshot in the CLB's
 *     account and region;
 *  2. the cluster whose API server it is (`apiServerLoadBalancerId`, DescribeClusterDetail);
 *  3. the one cluster of the CLB Services whose backends are on it (FleetIndex.servicesByClb: found by id or by the
 *     owner tag `kubernetes.do.not.delete`), e.g. a reused CLB of one cluster.
 * A CLB none of these names, or whose Services span several clusters, has no owner: its results stay of the account.
 * Account and region quotas (the CLB instances of an account in a region) are never attributed: clusters share them.
 * @returns CLB id -> owning cluster id
 */
export function clbOwnerClusters(ix: FleetIndex): Map<string, string> {
  const out = new Map<string, string>();
  const sameArea = (clusterId: string, e: ClbEntry) => {
    const c = ix.clusterById.get(clusterId);
    return c !== undefined && c.account.accountId === e.account.accountId && c.region.regionId === e.region.regionId;
  };
  for (const [id, e] of ix.clbById) {
    const tagged = e.clb.tags[TAG_CLUSTER_ID];
    if (tagged !== undefined && sameArea(tagged, e)) out.set(id, tagged);
  }
  for (const c of ix.clusters) {
    const lb = c.cluster.apiServerLoadBalancerId;
    const e = lb === undefined ? undefined : ix.clbById.get(lb);
    if (lb !== undefined && e !== undefined && !out.has(lb) && sameArea(c.cluster.clusterId, e)) out.set(lb, c.cluster.clusterId);
  }
  for (const [id, services] of ix.servicesByClb()) {
    if (out.has(id) || services.length === 0) continue;
    const clusters = new Set(services.map((se) => se.cluster.cluster.clusterId));
    if (clusters.size === 1) out.set(id, services[0]!.cluster.cluster.clusterId);
  }
  return out;
}

/**
 * A CLB result's resource with its owning cluster (`clusterId`) when `owners` names one and it has none yet; any other
 * resource as it is. The identity of a CLB does not include its cluster (fingerprint.util.ts REGION_SCOPED_KINDS), so
 * fingerprints and the result order do not change.
 */
export function withClbOwner(resource: ResourceRef, owners: ReadonlyMap<string, string>): ResourceRef {
  if (resource.kind !== 'LoadBalancer' || resource.clusterId !== undefined) return resource;
  const clusterId = owners.get(resource.id);
  if (clusterId === undefined) return resource;
  // Key order of the JSON contract: the cluster right after the region.
  const out: Record<string, unknown> = {};
  for (const k in resource) {
    out[k] = resource[k as keyof ResourceRef];
    if (k === 'regionId') out['clusterId'] = clusterId;
  }
  return out as unknown as ResourceRef;
}
