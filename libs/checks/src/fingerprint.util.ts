import { createHash } from 'node:crypto';
import type { ResourceRef } from '@app/domain';

/**
 * The stable key of a resource: kind, account, region, cluster (or empty) and id, `|`-separated.
 * Two results about the same resource in two scans have the same key.
 */
export function resourceKeyOf(resource: ResourceRef): string {
  return [resource.kind, resource.accountId, resource.regionId, resource.clusterId ?? '', resource.id].join(
    '|',
  );
}

/**
 * Fingerprint of a finding: the first 32 hex characters of sha256(`checkId` + NUL + resource key).
 * Stable across scans, so scans diff into new / resolved / persisting and waivers can name it
 * (ARCHITECTURE.md "Findings carry a fingerprint").
 */
export function fingerprintOf(checkId: string, resource: ResourceRef): string {
  return createHash('sha256')
    .update(`${checkId}\u0000${resourceKeyOf(resource)}`)
    .digest('hex')
    .slice(0, 32);
}
