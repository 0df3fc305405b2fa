import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lbAnnotationKey, mapWireFleet, unsupportedAnnotations } from '@app/domain';
import { runAudit } from '@app/checks';
import { generateFleet, generateSpecSchema } from './fleet.generator';
import { writeFleetDirectory } from '../offline/fleet-directory.writer';
import { loadFleetDirectory } from '../offline/fleet-directory.loader';

const spec = generateSpecSchema.parse({
  seed: 7,
  accounts: 3,
  regions: ['cn-hangzhou', 'cn-beijing'],
  clusters: 8,
  nodesPerCluster: 12,
  servicesPerCluster: 20,
  shares: { orphaned: 0.1, reused: 0.1, misconfigured: 0.2 },
});

describe('generateFleet', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const a = generateFleet(spec);
    const b = generateFleet(spec);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const c = generateFleet({ ...spec, seed: 8 });
    expect(JSON.stringify(c.fleet)).not.toBe(JSON.stringify(a.fleet));
  });

  it('plants the requested problems and sizes', () => {
    const g = generateFleet(spec);
    const snap = mapWireFleet(g.fleet);
    const clusters = snap.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters));
    expect(clusters).toHaveLength(8);
    expect(clusters.every((c) => c.kubernetes?.nodes.length === 12)).toBe(true);
    expect(clusters.every((c) => c.kubernetes?.services.length === 20)).toBe(true);
    expect(g.planted.LB_ORPHANED).toBe(8 * 2);
    expect(g.planted.LB_REUSE_OF_CCM_CREATED).toBeGreaterThan(0);
    expect(g.planted.CCM_ANNOTATION_UNSUPPORTED).toBeGreaterThan(0);
    const entries = snap.accounts.flatMap((a) => a.regions.flatMap((r) => r.loadBalancers ?? [])).reduce((n, lb) => n + lb.vServerGroups.reduce((m, g2) => m + g2.backendServers.length, 0), 0);
    expect(entries).toBe(g.backendEntries);
    // Every dataset of a generated fleet is there (resources.json included), so live crawls of it read everything;
    // only quota applications are absent (none is generated, as none is filed at the simulator's Quota Center).
    expect(snap.coverage.filter((c) => c.status !== 'ok' && !(c.api === 'quota-applications' && c.status === 'absent'))).toEqual([]);
    expect(snap.coverage.filter((c) => c.api === 'quota-applications')).toHaveLength(snap.accounts.reduce((n, a) => n + a.regions.length, 0));
    expect(clusters.every((c) => c.ramRoleNames !== undefined)).toBe(true);
  });

  it("plants, per CCM version, the first annotation the domain's minimum-version table says it lacks", () => {
    const planted = (ccmVersion: string): string[] => {
      const g = generateFleet(generateSpecSchema.parse({ seed: 5, clusters: 1, servicesPerCluster: 40, ccmVersions: [ccmVersion], trafficPolicy: { cluster: 1, local: 0, eni: 0 }, shares: { reused: 0, orphaned: 0, misconfigured: 1 } }));
      const services = g.fleet.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters.flatMap((c) => c.kubernetes?.services ?? [])));
      const keys = new Set<string>();
      for (const svc of services) {
        // Whatever was planted is exactly what the audit's rule reports as unsupported for this CCM.
        const annotations = svc.metadata.annotations ?? {};
        for (const u of unsupportedAnnotations(annotations, ccmVersion, 'clb') ?? []) keys.add(u.key);
      }
      return [...keys];
    };
    expect(planted('v1.9.3.313-g748f81e-aliyun')).toEqual([lbAnnotationKey('connection-drain')]);
    expect(planted('v2.10.0')).toEqual([lbAnnotationKey('ignore-weight-update')]);
    expect(planted('v2.12.3')).toEqual([lbAnnotationKey('domain-extensions')]);
    expect(planted('v2.13.0')).toEqual([]);
  });

  it('round-trips through a fleet directory, and fleet.yaml `generate:` loads the same fleet', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gen-'));
    try {
      const g = generateFleet(spec, 'gen');
      writeFleetDirectory(g.fleet, join(dir, 'written'));
      const fromDisk = loadFleetDirectory(join(dir, 'written'));
      expect(fromDisk).toEqual(mapWireFleet(g.fleet));
      mkdirSync(join(dir, 'spec'));
      writeFileSync(join(dir, 'spec', 'fleet.yaml'), `name: gen\ngenerate:\n  seed: 7\n  accounts: 3\n  regions: [cn-hangzhou, cn-beijing]\n  clusters: 8\n  nodesPerCluster: 12\n  servicesPerCluster: 20\n  shares: {orphaned: 0.1, reused: 0.1, misconfigured: 0.2}\n`);
      expect(loadFleetDirectory(join(dir, 'spec'))).toEqual(fromDisk);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a bad generate block with file and path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gen-'));
    try {
      writeFileSync(join(dir, 'fleet.yaml'), 'name: bad\ngenerate:\n  clusters: many\n');
      expect(() => loadFleetDirectory(dir)).toThrow(/fleet\.yaml: \$\.generate\.clusters: expected number/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('adds an NLB share from its own PRNG stream: the CLB part is unchanged, the NLBs are what CCM builds, leaks are planted', () => {
    const withNlb = generateSpecSchema.parse({ ...spec, nlbServicesPerCluster: 3, shares: { ...spec.shares, nlbLeakedServerGroups: 1 / 3 } });
    const a = generateFleet(spec);
    const b = generateFleet(withNlb);
    const clbPart = (g: ReturnType<typeof generateFleet>) =>
      JSON.stringify(g.fleet.accounts.map((x) => x.regions.map((r) => [r.loadBalancers, r.vServerGroups, r.ecsInstances])));
    expect(clbPart(b)).toBe(clbPart(a));
    const regions = b.fleet.accounts.flatMap((x) => x.regions);
    // Clusters on CCM v1.9.3 (every third) get none: no NLB controller before v2.5.0.
    const nlbClusters = regions.flatMap((r) => r.clusters).filter((c) => !c.addons?.addons.some((x) => x.name === 'cloud-controller-manager' && x.version.startsWith('v1.'))).length;
    expect(nlbClusters).toBeGreaterThan(0);
    expect(regions.reduce((n, r) => n + (r.nlb?.loadBalancers.length ?? 0), 0)).toBe(nlbClusters * 3);
    expect(b.planted.NLB_SERVER_GROUP_ORPHANED).toBe(nlbClusters);
    const out = runAudit(mapWireFleet(b.fleet), { now: new Date('2026-11-22T00:00:00Z') });
    const failed = (id: string) => out.findings.filter((f) => f.checkId === id).length;
    expect(failed('NLB_SERVER_GROUP_ORPHANED')).toBe(nlbClusters);
    for (const id of ['NLB_ORPHANED', 'NLB_ZONE_MAPS_MISSING', 'NLB_CCM_UNSUPPORTED', 'LB_NOT_FOUND_FOR_SERVICE', 'LB_REUSE_OF_CCM_CREATED']) {
      const nlbFindings = out.findings.filter((f) => f.checkId === id && (f.resource.kind === 'NetworkLoadBalancer' || /^team-\d\/nlb-svc-/.test(f.resource.id)));
      expect(nlbFindings, id).toEqual([]);
    }
    expect(out.results.filter((r) => r.status === 'skipped' && r.checkId.startsWith('NLB_'))).toEqual([]);
  });
});
