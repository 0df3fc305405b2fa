/**
 * The what-if and the audit make the same CCM decisions: a what-if whose steps change nothing (every
 * cluster "upgraded" to the CCM version it runs: the Kubernetes objects stay, the CCM model is re-run on every
 * CLB Service, libs/domain `findServiceClb` / `schedulableBackendNode`) reproduces the audit's quota figures, on
 * the bundled sample fleet and on fleets of the benchmark generator's shape (bench/bench-support.ts
 * `millionBackendSpec`, scaled down): no quota use changes, no finding appears or resolves, and each step's
 * headroom equals the headroom computed from the audit of the whole fleet.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUOTA_USAGE_CHECK_IDS, runAudit } from '@app/checks';
import { generateFleet, generateSpecSchema, loadFleetDirectory } from '@app/collectors';
import { mapWireFleet, quotaUsageOf, type FleetSnapshot } from '@app/domain';
import { SCENARIO_API_VERSION, computeHeadroom, parseScenario, runWhatIf } from '@app/forecast';

const NOW = new Date('2026-11-22T00:00:00Z');
const SAMPLE_FLEET = join(__dirname, '..', '..', '..', 'examples', 'fleets', 'sample');

/** The benchmark generator's fleet shape (95 % Cluster mode, reuse, orphans, two CCM versions), `clusters` clusters. */
function benchShapeFleet(clusters: number, seed: number): FleetSnapshot {
  const spec = generateSpecSchema.parse({
    seed,
    accounts: 3,
    regions: ['cn-hangzhou'],
    clusters,
    nodesPerCluster: 20,
    servicesPerCluster: 11,
    podsPerService: 3,
    trafficPolicy: { cluster: 0.95, local: 0.05, eni: 0 },
    ccmVersions: ['v2.12.3', 'v1.9.3.313-g748f81e-aliyun'],
    shares: { orphaned: 0.02, reused: 0.02, misconfigured: 0.05, consoleReused: 0.05 },
  });
  return mapWireFleet(generateFleet(spec, 'bench-shape').fleet);
}

const fleets: [string, () => FleetSnapshot][] = [
  ['the sample fleet', () => loadFleetDirectory(SAMPLE_FLEET)],
  ['a fleet of the benchmark generator (seed 42)', () => benchShapeFleet(12, 42)],
  ['a fleet of the benchmark generator (seed 7)', () => benchShapeFleet(12, 7)],
];

describe.each(fleets)('a what-if that changes nothing reproduces the audit on %s', (_name, load) => {
  it('no quota use changes, no finding changes, and the headroom is the audit-based one', () => {
    const snapshot = load();
    const clusters = snapshot.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters)).filter((c) => c.kubernetes && /^v\d+\.\d+\.\d+/.test(c.ccmVersion ?? ''));
    expect(clusters.length).toBeGreaterThan(1);
    const scenario = parseScenario({
      apiVersion: SCENARIO_API_VERSION,
      kind: 'Scenario',
      name: 'no-op',
      steps: clusters.map((c) => ({ upgradeCcm: { cluster: c.clusterId, version: c.ccmVersion } })),
    });
    const samples = quotaUsageOf(runAudit(snapshot, { now: NOW }).results, QUOTA_USAGE_CHECK_IDS);
    expect(samples.length).toBeGreaterThan(0);
    const r = runWhatIf(snapshot, scenario, { now: NOW });
    expect(r.steps).toHaveLength(clusters.length);
    r.steps.forEach((step, i) => {
      expect(step.quotas).toEqual([]);
      expect(step.firstBreach).toBeNull();
      expect(step.findings).toEqual({ appeared: [], resolved: [], severityChanged: [] });
      const expected = computeHeadroom(snapshot, samples, { clusterIds: [clusters[i]!.clusterId] });
      expect(expected).toHaveLength(1);
      expect(step.headroom).toEqual(expected);
    });
    expect(r.convergence.services).toBe(0);
  });
});
