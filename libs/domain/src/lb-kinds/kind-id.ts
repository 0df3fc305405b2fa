/** The ids of the load-balancer kinds CCM manages: CLB (SLB, clbv1 controller) and NLB (nlbv2 controller). */
export const LOAD_BALANCER_KIND_IDS = ['clb', 'nlb'] as const;

/** One load-balancer kind's id (`LoadBalancerKind.id`). */
export type LoadBalancerKindId = (typeof LOAD_BALANCER_KIND_IDS)[number];
