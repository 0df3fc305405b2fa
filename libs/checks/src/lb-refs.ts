/**
 * The shared ResourceRef of each load balancer, with its owning cluster: one object per CLB or NLB per fleet index,
 * held by the results of every check of it, so a result needs no copy to carry its owner (about 150,000
 * load-balancer results per 1,000 clusters) and their findings share one named resource. Kept on the index
 * (`FleetIndex.memo`), built on first use.
 */
import type { Clb, Nlb, ResourceRef } from '@app/domain';
import { clbOwnerClusters, nlbOwnerClusters } from './clb-owner';
import type { FleetIndex } from './fleet-index';
import { lbRef } from './result.util';

const OWNERS = Symbol('load-balancer owners');
const REFS = Symbol('load-balancer refs');

/**
 * The owning cluster of each load balancer that has one, by load-balancer id (clb-owner.ts `clbOwnerClusters` and
 * `nlbOwnerClusters`; CLB ids `lb-...` and NLB ids `nlb-...` never collide); computed once per index.
 * @returns load-balancer id -> owning cluster id
 */
export function lbOwners(index: FleetIndex): ReadonlyMap<string, string> {
  return index.memo(OWNERS, () => {
    const both = clbOwnerClusters(index);
    for (const [id, clusterId] of nlbOwnerClusters(index)) both.set(id, clusterId);
    return both as ReadonlyMap<string, string>;
  });
}

/**
 * The ResourceRef of a CLB (`LoadBalancer`) or an NLB (`NetworkLoadBalancer`) with its owning cluster when one owns
 * it (`lbOwners`; result.util `lbRef`), built once per load balancer of the index and shared by every result of it.
 */
export function loadBalancerRef(index: FleetIndex, kind: 'LoadBalancer' | 'NetworkLoadBalancer', lb: Clb | Nlb): ResourceRef {
  const refs = index.memo(REFS, () => new Map<Clb | Nlb, ResourceRef>());
  let ref = refs.get(lb);
  if (ref === undefined) refs.set(lb, (ref = lbRef(kind, lb, lbOwners(index).get(lb.loadBalancerId))));
  return ref;
}

/** The shared ResourceRef of a CLB, with its owning cluster when one owns it (`loadBalancerRef`). */
export function clbRef(index: FleetIndex, clb: Clb): ResourceRef {
  return loadBalancerRef(index, 'LoadBalancer', clb);
}

/** The shared ResourceRef of an NLB, with its owning cluster when one owns it (`loadBalancerRef`). */
export function nlbRef(index: FleetIndex, nlb: Nlb): ResourceRef {
  return loadBalancerRef(index, 'NetworkLoadBalancer', nlb);
}
