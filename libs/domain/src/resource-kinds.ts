/**
 * Every resource kind a finding can be about, at run time, for enumerations (API query enums, fingerprints): the
 * kinds of no load-balancer kind and CLB's (which keeps its own path), then each load-balancer kind's own
 * (`LoadBalancerKind.resourceKinds`) in `LB_KINDS` order. The type is `ResourceKind` (finding.types.ts).
 */
import { LB_KINDS } from './lb-kinds';
import type { ResourceKind } from './finding.types';

/**
 * The resource kinds of the load-balancer kinds that declare theirs (NLB: NLB instance, server group, server), in
 * `LB_KINDS` order. Each is named by its id within its account and region (the kind's List* APIs take `RegionId`).
 */
export const LB_KIND_RESOURCE_KINDS: readonly ResourceKind[] = Object.freeze(LB_KINDS.flatMap((k) => k.resourceKinds ?? []));

/** Every resource kind (see the file comment). */
export const RESOURCE_KINDS: readonly ResourceKind[] = Object.freeze([
  'Account',
  'Region',
  'Cluster',
  'Node',
  'Service',
  'LoadBalancer',
  'VServerGroup',
  'EcsInstance',
  'VSwitch',
  'RamRole',
  ...LB_KIND_RESOURCE_KINDS,
]);
