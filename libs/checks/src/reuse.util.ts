import { reusedLoadBalancerId } from '@app/domain';
import type { ClbEntry, FleetIndex, ServiceEntry } from './fleet-index';
import { notReadReason } from './result.util';

/** The CLB a Service reuses, or why it cannot be judged. */
export type ReusedClb =
  { lbId: string; entry: ClbEntry } | { lbId: string; entry?: undefined; skipReason: string };

/**
 * The CLB named by a Service's `loadbalancer-id` annotation within the Service's account and region (CCM only
 * looks there), or the reason it cannot be judged: the region's CLBs were not read, or the CLB does not exist
 * (reported by LB_NOT_FOUND_FOR_SERVICE). `undefined` when the Service does not reuse a CLB.
 */
export function reusedClbOf(index: FleetIndex, se: ServiceEntry): ReusedClb | undefined {
  const lbId = reusedLoadBalancerId(se.service);
  if (!lbId) return undefined;
  const { account, region } = se.cluster;
  if (!region.loadBalancers) {
    return {
      lbId,
      skipReason: notReadReason(
        index,
        `CLB instances of ${region.regionId}`,
        'slb',
        account.accountId,
        region.regionId,
      ),
    };
  }
  const entry = index.clbById.get(lbId);
  if (!entry || entry.account.accountId !== account.accountId || entry.region.regionId !== region.regionId) {
    return {
      lbId,
      skipReason: `CLB ${lbId} is not among the CLB instances of ${region.regionId} (see LB_NOT_FOUND_FOR_SERVICE)`,
    };
  }
  return { lbId, entry };
}
