import type { NetworkPlugin } from '../snapshot.types';
import { CCM_RAM_REQUIREMENTS, type CcmRamRequirement } from './ram-actions.constants';
import type { LoadBalancerKindId } from '../lb-kinds/kind-id';
import { compareCcmVersions, parseCcmVersion } from './version.model';

/**
 * The RAM actions a CCM version needs in a cluster with the given network plugin (rows of
 * `CCM_RAM_REQUIREMENTS` whose `sinceVersion` <= version; `flannel` rows only for Flannel clusters; a kind's rows
 * (`nlb`) only when the cluster has Services of that kind).
 *
 * @param version CCM version text
 * @param options `kinds`: the load-balancer kinds the cluster has Services of (`LoadBalancerKind.id`; default none)
 * @returns the requirements, or `undefined` when the version does not parse
 */
export function ccmRamRequirements(
  version: string,
  networkPlugin: NetworkPlugin,
  options: { kinds?: readonly LoadBalancerKindId[] } = {},
): CcmRamRequirement[] | undefined {
  const v = parseCcmVersion(version);
  if (!v) return undefined;
  return CCM_RAM_REQUIREMENTS.filter((r) => {
    if (r.appliesTo === 'flannel' && networkPlugin !== 'flannel') return false;
    if (r.appliesTo !== 'all' && r.appliesTo !== 'flannel' && !options.kinds?.includes(r.appliesTo)) return false;
    const since = parseCcmVersion(r.sinceVersion);
    return since !== undefined && compareCcmVersions(since, v) <= 0;
  });
}
