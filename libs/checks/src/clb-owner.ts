import { TAG_CLUSTER_ID, type ResourceRef } from '@app/domain';
import type { ClbEntry, FleetIndex } from './fleet-index';
import { nlbOfService } from './nlb-index';

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
 * NLBs: nlbOwnerClusters.
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
 * The cluster that owns each NLB, by the same rules as a CLB's (clbOwnerClusters) where NLBs have them: the tag
 * `ack.aliyun.com` = cluster id CCM writes on the NLBs it creates (`setDefaultValueForLoadBalancer`,
 * research/ccm-behaviour.md 1.3) when that cluster is in the NLB's account and region, else the one cluster of the NLB
 * Services CCM finds it for (nlb-index.ts nlbOfService: by id, owner tag or default name). An NLB of Services of
 * several clusters, or of none, has no owner.
 * @returns NLB id -> owning cluster id
 */
export function nlbOwnerClusters(ix: FleetIndex): Map<string, string> {
  const users = new Map<string, Set<string>>();
  for (const se of ix.services) {
    if (!se.needNlb) continue;
    const found = nlbOfService(ix, se);
    if (!found?.nlb || found.by === 'none') continue;
    const set = users.get(found.nlb.loadBalancerId) ?? new Set<string>();
    set.add(se.cluster.cluster.clusterId);
    users.set(found.nlb.loadBalancerId, set);
  }
  const out = new Map<string, string>();
  for (const { account, region } of ix.regions) {
    for (const nlb of region.nlbs ?? []) {
      const tagged = nlb.tags[TAG_CLUSTER_ID];
      const c = tagged === undefined ? undefined : ix.clusterById.get(tagged);
      if (tagged !== undefined && c !== undefined && c.account.accountId === account.accountId && c.region.regionId === region.regionId) out.set(nlb.loadBalancerId, tagged);
      else {
        const clusters = users.get(nlb.loadBalancerId);
        if (clusters?.size === 1) out.set(nlb.loadBalancerId, [...clusters][0]!);
      }
    }
  }
  return out;
}

/**
 * A load balancer result's resource (`LoadBalancer`: a CLB, `NetworkLoadBalancer`: an NLB) with its owning cluster
 * (`clusterId`) when `owners` (clbOwnerClusters and nlbOwnerClusters, by id) names one and it has none yet; any other
 * resource as it is. The identity of a load balancer does not include its cluster (fingerprint.util.ts
 * REGION_SCOPED_KINDS), so fingerprints and the result order do not change.
 */
export function withLbOwner(resource: ResourceRef, owners: ReadonlyMap<string, string>): ResourceRef {
  if ((resource.kind !== 'LoadBalancer' && resource.kind !== 'NetworkLoadBalancer') || resource.clusterId !== undefined) return resource;
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
