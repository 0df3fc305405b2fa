/**
 * Comparison of a live snapshot (collectors reading the simulator) with the offline snapshot of
 * the same fleet directory.
 *
 * Everything must be deep-equal, coverage included, with two documented exceptions:
 *  - `absent` entries carry a source-specific reason (`not in the fleet directory` offline, the
 *    API's answer live), so their `message` is not compared;
 *  - where the directory lacks a file, the simulator answers 403 as a live API does for a missing
 *    permission (`apps/fleet-sim/src/alibaba/acs-error.exception.ts` `forbidden`, RAM
 *    `NoPermission`, CS `StatusForbidden`, Kubernetes `Forbidden`), which the collectors rightly
 *    record as `failed`; such an entry must match an offline `absent` entry, or an offline `failed`
 *    one with `ENOENT` (a required file missing: docs/fleet-format.md). Likewise a cluster without
 *    `node-sysctls.json`: the simulated `sysctl` fails on every node (`CommandFailed`).
 */
import { expect } from 'vitest';
import type { CoverageEntry, FleetSnapshot } from '@app/domain';

/** Error codes the simulator uses for data the fleet directory does not hold. */
export const SIMULATED_MISSING_DATA_CODES = [
  'Forbidden.RAM',
  'NoPermission',
  'StatusForbidden',
  'Forbidden',
  'CommandFailed',
];

/** Stable key of a coverage entry. */
export const coverageKeyOf = (c: CoverageEntry) =>
  [c.accountId, c.regionId ?? '', c.clusterId ?? '', c.api].join('|');

/** The offline snapshot restricted to some accounts (the simulator serves one account per AccessKey). */
export function onlyAccounts(s: FleetSnapshot, accountIds: readonly string[]): FleetSnapshot {
  const keep = new Set(accountIds);
  return {
    ...s,
    accounts: s.accounts.filter((a) => keep.has(a.accountId)),
    coverage: s.coverage.filter((c) => keep.has(c.accountId)),
  };
}

/** Assert `live` equals `offline` (see the module comment for the two exceptions). */
export function expectLiveEqualsOffline(live: FleetSnapshot, offline: FleetSnapshot): void {
  const liveByKey = new Map(live.coverage.map((c) => [coverageKeyOf(c), c]));
  expect([...liveByKey.keys()].sort()).toEqual(offline.coverage.map(coverageKeyOf).sort());
  const expectedCoverage = offline.coverage.map((o) => {
    const l = liveByKey.get(coverageKeyOf(o));
    if (o.status === 'absent' && l?.status === 'absent') return l;
    if (
      (o.status === 'absent' || (o.status === 'failed' && o.errorCode === 'ENOENT')) &&
      l?.status === 'failed' &&
      SIMULATED_MISSING_DATA_CODES.includes(l.errorCode ?? '')
    )
      return l;
    return o;
  });
  expect(live).toEqual({ ...offline, coverage: expectedCoverage });
}
