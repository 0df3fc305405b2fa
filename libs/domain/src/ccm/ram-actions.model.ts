import type { NetworkPlugin } from '../snapshot.types';
import { CCM_RAM_REQUIREMENTS, type CcmRamRequirement } from './ram-actions.constants';
import { compareCcmVersions, parseCcmVersion } from './version.model';

/**
 * The RAM actions a CCM version needs in a cluster with the given network plugin (rows of
 * `CCM_RAM_REQUIREMENTS` whose `sinceVersion` <= version; `flannel` rows only for Flannel clusters; `nlb` rows only
 * when the cluster has NLB Services).
 *
 * @param version CCM version text
 * @param options `nlbServices`: the cluster has Services of class `alibabacloud.com/nlb` (default false)
 * @returns the requirements, or `undefined` when the version does not parse
 */
export function ccmRamRequirements(
  version: string,
  networkPlugin: NetworkPlugin,
  options: { nlbServices?: boolean } = {},
): CcmRamRequirement[] | undefined {
  const v = parseCcmVersion(version);
  if (!v) return undefined;
  return CCM_RAM_REQUIREMENTS.filter((r) => {
    if (r.appliesTo === 'flannel' && networkPlugin !== 'flannel') return false;
    if (r.appliesTo === 'nlb' && !options.nlbServices) return false;
    const since = parseCcmVersion(r.sinceVersion);
    return since !== undefined && compareCcmVersions(since, v) <= 0;
  });
}
