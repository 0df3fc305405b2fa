/**
 * The ids of the load-balancer kinds CCM manages, as the keys of an interface so that a kind's module adds its own
 * id (`declare module` of this file, in the kind's folder, beside its `LoadBalancerKind`) instead of a list here
 * naming every kind: CLB (SLB, clbv1 controller) and NLB (nlbv2 controller). The run-time list is
 * `LOAD_BALANCER_KIND_IDS` (lb-kinds/index.ts), read from the registered kinds.
 */
export interface LoadBalancerKindIds {
  clb: true;
  nlb: true;
}

/** One load-balancer kind's id (`LoadBalancerKind.id`): a key of {@link LoadBalancerKindIds}. */
export type LoadBalancerKindId = keyof LoadBalancerKindIds;
