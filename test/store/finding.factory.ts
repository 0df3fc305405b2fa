/** Test data factories for findings and coverage (STYLE.md G.37: defaults plus overrides). */
import { createHash } from 'node:crypto';
import type { CoverageEntry, Finding, ResourceRef } from '@app/domain';

/** A fingerprint like the checks make: 32 hex chars of a hash of check id + resource key. */
export function fingerprintOf(checkId: string, resourceId: string): string {
  return createHash('sha256').update(`${checkId}\0${resourceId}`).digest('hex').slice(0, 32);
}

/** A quota finding on a CLB; override anything, the fingerprint follows check id + resource id. */
export function makeFinding(overrides: Partial<Omit<Finding, 'resource'>> & { resource?: Partial<ResourceRef> } = {}): Finding {
  const resource: ResourceRef = {
    kind: 'LoadBalancer',
    id: 'lb-0001',
    accountId: '1000000000000001',
    regionId: 'cn-hangzhou',
    clusterId: 'c-alpha',
    ...overrides.resource,
  };
  const checkId = overrides.checkId ?? 'clb-backend-quota';
  const rest = { ...overrides };
  delete rest.resource;
  return {
    checkId,
    severity: 'warning',
    message: `CLB ${resource.id} uses 170 of 200 backend servers (85 %)`,
    remediation: 'Raise the quota or split Services across CLBs.',
    source: 'seeds/001_clb_quotas.txt',
    fingerprint: fingerprintOf(checkId, resource.id),
    used: 170,
    limit: 200,
    ratio: 0.85,
    ...rest,
    resource,
  };
}

/** `n` distinct findings on CLBs lb-00000 .. lb-<n-1> (optionally varying per index). */
export function makeFindings(n: number, vary: (i: number) => Parameters<typeof makeFinding>[0] = () => ({})): Finding[] {
  return Array.from({ length: n }, (_, i) => {
    const v = vary(i) ?? {};
    return makeFinding({ ...v, resource: { id: `lb-${String(i).padStart(5, '0')}`, ...v.resource } });
  });
}

/** A coverage entry; `ok` for the account's SLB API unless overridden. */
export function makeCoverage(overrides: Partial<CoverageEntry> = {}): CoverageEntry {
  return { accountId: '1000000000000001', regionId: 'cn-hangzhou', api: 'slb', status: 'ok', ...overrides };
}
