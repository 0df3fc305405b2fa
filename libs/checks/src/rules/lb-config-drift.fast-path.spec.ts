/**
 * LB_CONFIG_DRIFT's Cluster-mode fast path (`clusterModeMatch`) against the full comparison it
 * skips: on a generated fleet whose CLBs are edited at random the way the SLB console edits them (a weight, a
 * description, a backend removed or added, a port, the order of a group, a stale CCM-named group, a changed name, and
 * the Service's weight, default-weight and ignore-weight-update annotations; for NLB Services, a server's weight,
 * port or type, a server removed, the order of a group),
 * the check's results are the same with the fast path and without it, and the fast path is taken for most
 * Cluster-mode Services (the test would prove nothing otherwise).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateFleet, generateSpecSchema } from '@app/collectors';
import { mapWireFleet, type FleetSnapshot } from '@app/domain';

const LB_ANNOTATION_PREFIX = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-';
import { runAudit } from '../audit.engine';
import { CHECKS } from '../check.registry';
import type { FastPathSwitch } from '../check.types';

const spec = generateSpecSchema.parse({
  seed: 7,
  accounts: 2,
  regions: ['cn-hangzhou'],
  clusters: 6,
  nodesPerCluster: 5,
  servicesPerCluster: 12,
  nlbServicesPerCluster: 4,
  trafficPolicy: { cluster: 0.7, local: 0.2, eni: 0.1 },
  ccmVersions: ['v2.12.3', 'v1.9.3.313-g748f81e-aliyun'],
  shares: { orphaned: 0.05, reused: 0.1, misconfigured: 0.1, consoleReused: 0.1, nlbLeakedServerGroups: 0.2 },
});

const onlyDrift = Object.fromEntries(CHECKS.filter((c) => c.id !== 'LB_CONFIG_DRIFT').map((c) => [c.id, { enabled: false }]));
const now = new Date('2026-11-22T00:00:00Z');

function driftResults(snapshot: FleetSnapshot, fast: boolean, fastPaths: FastPathSwitch = { enabled: fast, taken: 0 }) {
  return runAudit(snapshot, { now, settings: { checks: onlyDrift }, fastPaths });
}

/**
 * One console-like edit: which (`kind`, 0..16; 9-11 edit a Service's weight annotations instead, 12-16 the servers
 * of an NLB server group, 17 swaps an NLB server's id, 18 a CLB backend's), to which group (`pick`) and backend (`at`), both taken modulo the count. */
interface Edit {
  kind: number;
  pick: number;
  at: number;
}

/** Applies one console-like edit (`Edit`) to a CLB's vServer groups. */
function edit(snapshot: FleetSnapshot, { kind, pick, at }: Edit): void {
  if (kind >= 12 && kind <= 17) {
    const nlbGroups = snapshot.accounts.flatMap((a) => a.regions.flatMap((r) => r.nlbServerGroups ?? [])).filter((g) => g.servers.length > 0);
    const sv = nlbGroups[pick % nlbGroups.length]!.servers;
    const i = at % sv.length;
    if (kind === 12) sv[i] = { ...sv[i]!, weight: (sv[i]!.weight ?? 0) + 1 };
    else if (kind === 13) sv[i] = { ...sv[i]!, port: (sv[i]!.port ?? 0) + 1 };
    else if (kind === 14) sv.splice(i, 1);
    else if (kind === 15) sv.reverse();
    else if (kind === 16) sv[i] = { ...sv[i]!, type: 'Eni', serverIp: '10.9.9.8' };
    else sv[i] = { ...sv[i]!, serverId: `${sv[i]!.serverId}-swapped` };
    return;
  }
  if (kind >= 9 && kind <= 11) {
    const services = snapshot.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters.flatMap((c) => c.kubernetes?.services ?? [])));
    const svc = services[pick % services.length]!;
    const key = `${LB_ANNOTATION_PREFIX}${kind === 11 ? 'ignore-weight-update' : kind === 10 ? 'weight' : 'default-weight'}`;
    svc.annotations = { ...svc.annotations, [key]: kind === 11 ? 'on' : ['0', '30', '100', 'abc', '150'][at % 5]! };
    return;
  }
  const clbs = snapshot.accounts.flatMap((a) => a.regions.flatMap((r) => r.loadBalancers ?? []));
  const groups = clbs.flatMap((clb) => clb.vServerGroups.map((g) => ({ clb, g }))).filter(({ g }) => g.backendServers.length > 0);
  const { clb, g } = groups[pick % groups.length]!;
  const b = g.backendServers;
  const i = at % b.length;
  if (kind === 0) b[i] = { ...b[i]!, weight: (b[i]!.weight ?? 0) + 1 };
  else if (kind === 1) b[i] = { ...b[i]!, description: 'edited in the console' };
  else if (kind === 2) b.splice(i, 1);
  else if (kind === 3) b.push({ ...b[i]!, serverId: 'i-zzzz-added' });
  else if (kind === 4) b[i] = { ...b[i]!, port: (b[i]!.port ?? 0) + 1 };
  else if (kind === 5) b.reverse();
  else if (kind === 6) clb.vServerGroups.push({ ...g, vServerGroupId: `${g.vServerGroupId}-stale`, name: g.name.replace(/^k8s\/\d+\//, 'k8s/1/') });
  else if (kind === 7) g.name = `${g.name}-renamed`;
  else if (kind === 8) b[i] = { ...b[i]!, type: 'eni', serverIp: '10.9.9.9' };
  else b[i] = { ...b[i]!, serverId: `${b[i]!.serverId}-swapped` };
}

describe('LB_CONFIG_DRIFT Cluster-mode fast path', () => {
  it('gives the results of the full comparison on an unedited fleet, and is taken for most Cluster-mode Services', () => {
    const snapshot = mapWireFleet(generateFleet(spec, 'gen').fleet);
    const fastPaths: FastPathSwitch = { enabled: true, taken: 0 };
    const fast = driftResults(snapshot, true, fastPaths);
    const taken = fastPaths.taken;
    const full = driftResults(snapshot, false);
    expect(fast).toEqual(full);
    expect(taken).toBeGreaterThan(20);
    const nlbPasses = fast.results.filter((r) => r.status === 'pass' && r.figures?.['kind'] === 'NLB');
    expect(nlbPasses.length).toBeGreaterThan(5);
    const clusterPasses = fast.results.filter((r) => r.status === 'pass' && r.figures?.['mode'] === 'cluster');
    expect(clusterPasses.length).toBeGreaterThan(20);
  });

  it('gives the results of the full comparison after random console edits', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ kind: fc.integer({ min: 0, max: 18 }), pick: fc.nat(), at: fc.nat() }), { minLength: 1, maxLength: 6 }), (edits) => {
        const snapshot = mapWireFleet(generateFleet(spec, 'gen').fleet);
        for (const e of edits) edit(snapshot, e);
        const fast = driftResults(snapshot, true);
        const full = driftResults(snapshot, false);
        expect(fast).toEqual(full);
      }),
      { numRuns: 300 },
    );
  });
});
