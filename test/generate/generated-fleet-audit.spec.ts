/**
 * A generated fleet (libs/collectors `generateFleet`) audited end to end: every problem the generator
 * says it planted is found by its check, exactly as many times, and the console-CLB reuse it plants
 * gives the reuse checks collisions to find. This keeps the generator (benchmarks, crawl tests) and the
 * checks honest with each other.
 */
import { describe, expect, it } from 'vitest';
import { CHECKS, runAudit } from '@app/checks';
import { generateFleet, generateSpecSchema } from '@app/collectors';
import { mapWireFleet } from '@app/domain';

const spec = generateSpecSchema.parse({
  seed: 11,
  accounts: 2,
  regions: ['cn-hangzhou'],
  clusters: 8,
  nodesPerCluster: 6,
  servicesPerCluster: 30,
  // The NLB share: NLB Services on the v2.12.3 clusters, and server groups leaked by deleted ones.
  nlbServicesPerCluster: 4,
  trafficPolicy: { cluster: 0.6, local: 0.2, eni: 0.2 },
  ccmVersions: ['v2.12.3', 'v1.9.3.313-g748f81e-aliyun'],
  shares: { orphaned: 0.1, reused: 0.1, misconfigured: 0.2, consoleReused: 0.2, nlbLeakedServerGroups: 0.25 },
});

describe('generated fleet x check catalogue', () => {
  const g = generateFleet(spec, 'gen');
  const { findings, results } = runAudit(mapWireFleet(g.fleet), { now: new Date('2026-11-22T00:00:00Z') });
  const count = (checkId: string) => findings.filter((f) => f.checkId === checkId).length;

  it.each(Object.keys(g.planted))('finds every planted %s, and no more', (checkId) => {
    expect(g.planted[checkId as keyof typeof g.planted]).toBeGreaterThan(0);
    expect(count(checkId)).toBe(g.planted[checkId as keyof typeof g.planted]);
  });

  it('console CLBs shared by two clusters with the same Service names and ports: collisions are reported', () => {
    expect(count('LB_REUSE_NAME_COLLISION')).toBeGreaterThan(0);
    expect(count('LB_LISTENER_PORT_CONFLICT')).toBeGreaterThan(0);
    // The console-CLB reusers set force-override-listeners and the CLB is internet-facing: only the reusers of
    // CCM-created CLBs (no force-override) can lack a listener, and no reuse crosses a VPC.
    const ccmReusers = new Set(findings.filter((f) => f.checkId === 'LB_REUSE_OF_CCM_CREATED').map((f) => `${f.resource.clusterId}/${f.resource.id}`));
    for (const f of findings.filter((x) => x.checkId === 'LB_REUSE_LISTENERS_NOT_MANAGED'))
      expect(ccmReusers.has(`${f.resource.clusterId}/${f.resource.id}`), f.message).toBe(true);
    expect(count('LB_REUSE_CROSS_VPC')).toBe(0);
    expect(count('LB_ORPHANED')).toBe(g.planted.LB_ORPHANED);
  });

  it('the backends the generator counts are the ones on the CLBs, and the CCM model agrees with them (no drift)', () => {
    expect(count('LB_CONFIG_DRIFT')).toBe(0);
    expect(g.backendEntries).toBeGreaterThan(0);
  });

  it('evaluates most of the catalogue (a benchmark on it exercises the checks, not just the index)', () => {
    const evaluated = new Set(results.map((r) => r.checkId));
    expect(CHECKS.length - evaluated.size).toBeLessThanOrEqual(6);
  });
});
