/**
 * A load-balancer kind's data of one simulated region, indexed once when the fleet is read: the kind's wire lists
 * (`WireRegion[dataset]`, e.g. the four `regions/<regionId>/nlb/` files) and the look-ups its simulator declares
 * (`KindSimulator.index`). The fleet index holds one per kind and region; the kind's product handler
 * (alibaba/kind-product.handler.ts) answers from it. It lives with the fleet, not the handler, so that the fleet
 * index does not import the request layer.
 */
import type { KindWireLists, LoadBalancerKindData } from '@app/domain';

/** A kind's wire lists of one region with the look-ups its simulator built once (`KindSimulator.index`). */
export interface KindRegionEntry {
  wire: KindWireLists;
  index: unknown;
}

/** Index a kind's wire lists of one region (one pass over each list, as the kind's simulator does it). */
export function indexKindRegion(data: LoadBalancerKindData, wire: KindWireLists): KindRegionEntry {
  return { wire, index: data.simulator.index(wire) };
}
