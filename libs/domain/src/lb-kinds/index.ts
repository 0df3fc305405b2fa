/**
 * The registry of the load-balancer kinds CCM manages (`LB_KINDS`) and what is derived from it. A kind is one folder
 * per layer and one line per registry:
 * - libs/domain/src/lb-kinds/<kind>/: its `LoadBalancerKind` (with its `LoadBalancerKindData`: crawl, fleet files,
 *   snapshot mapper, simulator answers), its wire schemas and snapshot types, and the `declare module` lines adding
 *   its id (`LoadBalancerKindIds`), dataset (`CoverageDatasets`), snapshot fields (`RegionSnapshot`) and resource
 *   kinds (`ResourceKinds`); registered in `LB_KINDS` below;
 * - libs/checks/src/kinds/<kind>/: its checks and their fixtures; registered in `KIND_CHECKS` (libs/checks kinds/index.ts).
 * The collectors, the fleet directory, the simulator, the coverage datasets, the API enums (REST, GraphQL, OpenAPI)
 * and the specs that enumerate kinds or checks read these registries. Regenerated, not written: docs/checks.md,
 * the layout table of docs/fleet-format.md, apps/api/openapi.json and schema.gql, the goldens, and the sample fleet's
 * (empty) files of the kind.
 */
import type { K8sService } from '../snapshot.types';
import { CLB_KIND } from './clb.kind';
import { NLB_KIND } from './nlb.kind';
import type { LoadBalancerKind, LoadBalancerKindId } from './load-balancer-kind';
import type { LoadBalancerKindData } from './kind-data';

export * from './load-balancer-kind';
export * from './kind-data';
export { NLB_DATA, NLB_IDS_PER_LIST_LISTENERS } from './nlb/nlb.data';
export type { LoadBalancerKindIds } from './kind-id';
export { CLB_KIND } from './clb.kind';
export { NLB_KIND } from './nlb.kind';

/** Every load-balancer kind CCM manages, in catalogue order (CLB first: the default when a Service has no class). */
export const LB_KINDS: readonly LoadBalancerKind[] = Object.freeze([CLB_KIND, NLB_KIND]);

/**
 * The ids of the registered kinds, in `LB_KINDS` order: the values of the API's `loadBalancerKind` fields (REST,
 * GraphQL, OpenAPI enums), read from the registry so that adding a kind adds its id everywhere.
 */
export const LOAD_BALANCER_KIND_IDS: readonly LoadBalancerKindId[] = Object.freeze(LB_KINDS.map((k) => k.id));

/**
 * The data paths of the kinds that declare one (`LoadBalancerKind.data`), in `LB_KINDS` order: what the collectors,
 * the fleet directory, the snapshot mapper and the simulator iterate over.
 */
export const KIND_DATA: readonly LoadBalancerKindData[] = Object.freeze(
  LB_KINDS.flatMap((k) => (k.data ? [k.data] : [])),
);

/**
 * The kind whose controller takes the Service (`LoadBalancerKind.manages`: CCM `NeedCLB` / `NeedNLB`), or
 * `undefined` for a Service no CCM controller takes (not a LoadBalancer, another controller's class, excluded by
 * the `class` or tunnel-type annotation). The CCM version is not judged here (`ccmControllerFor` says whether the
 * cluster's CCM runs the kind's controller).
 */
export function kindOfService(service: K8sService): LoadBalancerKind | undefined {
  for (const kind of LB_KINDS) if (kind.manages(service)) return kind;
  return undefined;
}

/** The kind of an id. @throws Error on an id no kind has (a programming error: ids come from `LoadBalancerKindId`). */
export function loadBalancerKind(id: LoadBalancerKindId): LoadBalancerKind {
  const kind = LB_KINDS.find((k) => k.id === id);
  if (!kind) throw new Error(`unknown load-balancer kind ${String(id)}`);
  return kind;
}

/** The ids of the kinds the Services are of (`kindOfService`), in `LB_KINDS` order; linear in the Services. */
export function kindsInUse(services: readonly K8sService[]): LoadBalancerKindId[] {
  const found = new Set<LoadBalancerKindId>();
  for (const service of services) {
    const kind = kindOfService(service);
    if (kind) found.add(kind.id);
    if (found.size === LB_KINDS.length) break;
  }
  return LB_KINDS.filter((k) => found.has(k.id)).map((k) => k.id);
}
