/**
 * Where a scenario step's cluster is in a snapshot: the cluster and its region, found by id or by name. The scenario
 * applier and its NLB part both work on this location.
 */
import { resolveClusterRef, type ClusterSnapshot, type FleetSnapshot, type NamedCluster, type RegionSnapshot } from '@app/domain';

/** A cluster of a snapshot with its region. */
export interface ClusterLocation {
  cluster: ClusterSnapshot;
  region: RegionSnapshot;
}

/** Finds a cluster by id. */
export function findCluster(snapshot: FleetSnapshot, clusterId: string): ClusterLocation | undefined {
  for (const a of snapshot.accounts)
    for (const r of a.regions)
      for (const c of r.clusters) if (c.clusterId === clusterId) return { cluster: c, region: r };
  return undefined;
}

/**
 * Finds a cluster named by id or by name (an id wins).
 * @returns the cluster, or `{ error }`: one line naming what was given and listing the valid clusters (`unknown
 *   cluster 'x'; clusters: storefront (c81faa03…), ...`) or the clusters sharing an ambiguous name
 */
export function locateCluster(snapshot: FleetSnapshot, given: string): ClusterLocation | { error: string } {
  const all: (NamedCluster & { loc: ClusterLocation })[] = [];
  for (const a of snapshot.accounts)
    for (const r of a.regions)
      for (const c of r.clusters) {
        if (c.clusterId === given) return { cluster: c, region: r };
        all.push({ clusterId: c.clusterId, name: c.name, loc: { cluster: c, region: r } });
      }
  const found = resolveClusterRef(given, all);
  return 'error' in found ? { error: found.error } : found.loc;
}
