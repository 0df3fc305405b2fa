import type { NetworkPlugin } from '../snapshot.types';
import { CCM_RAM_REQUIREMENTS, type CcmRamRequirement } from './ram-actions.constants';
import { compareCcmVersions, parseCcmVersion } from './version.model';

/**
 * The RAM actions a CCM version needs in a cluster with the given network plugin (rows of
 * `CCM_RAM_REQUIREMENTS` whose `sinceVersion` <= version; `flannel` rows only for Flannel clusters).
 *
 * @param version CCM version text
 * @returns the requirements, or `undefined` when the version does not parse
 */
export function ccmRamRequirements(
  version: string,
  networkPlugin: NetworkPlugin,
): CcmRamRequirement[] | undefined {
  const v = parseCcmVersion(version);
  if (!v) return undefined;
  return CCM_RAM_REQUIREMENTS.filter((r) => {
    if (r.appliesTo === 'flannel' && networkPlugin !== 'flannel') return false;
    const since = parseCcmVersion(r.sinceVersion);
    return since !== undefined && compareCcmVersions(since, v) <= 0;
  });
}
