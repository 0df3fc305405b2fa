/**
 * End-to-end oracle of the CCM model: every acceptance case is written as a fleet whose CLB holds
 * exactly what CCM sets (the case's expected vServer groups, backends and weights, named as CCM names them),
 * and LB_CONFIG_DRIFT, run through the audit engine, must find nothing. Negative controls (one backend
 * removed, one added, one re-weighted) must be found. Cases where CCM fails the sync must be reported as
 * `skipped` with CCM's message by LB_CONFIG_DRIFT (and, for Cluster-mode Services, CLUSTER_MODE_BLOWUP),
 * never as a predicted change.
 */
import { describe, expect, it } from 'vitest';
import { CHECKS, runAudit, type PartialAuditSettings } from '@app/checks';
import { CCM_FEATURES, ccmVersionAtLeast } from '@app/domain';
import type { BackendServer, CheckResult, Clb, FleetSnapshot, VServerGroup } from '@app/domain';
import { FIXTURE_DEFAULT_LB_NAME, FROZEN_NOW, factory } from '../../libs/checks/test/factories';
import {
  CASE_CLUSTER_ID,
  annotationKey,
  caseKubernetes,
  loadCases,
  parseCaseBackend,
  type CcmCase,
} from './ccm-cases';

const cases = loadCases();
const ok = cases.filter((c) => 'groups' in c.expect);
const failing = cases.filter((c) => 'syncError' in c.expect);

/** CCM's name of the vServer group of one Service port (listeners.go getVGroupNamedKey). */
function groupName(c: CcmCase, i: number): string {
  const p = c.service.ports[i]!;
  const port = c.service.policy === 'ENI' ? (p.targetPort ?? p.port) : (p.nodePort ?? 0);
  return `k8s/${port}/${c.service.name}/default/${CASE_CLUSTER_ID}`;
}

/** The user vServer group id `vgroup-port` binds a Service port to, on a reused CLB. */
function userGroupId(c: CcmCase, port: number): string | undefined {
  if (!c.service.reused) return undefined;
  const text = c.service.annotations['vgroup-port'] ?? c.service.annotations[annotationKey('vgroup-port')];
  for (const part of (text ?? '').split(',')) {
    const [id, p] = part.split(':');
    if (id && Number(p) === port) return id;
  }
  return undefined;
}

type Edit = (groups: VServerGroup[]) => void;

/** The fleet of a case: its cluster, and a CLB whose groups hold the expected backends (after `edit`). */
function fleetOf(c: CcmCase, edit?: Edit): FleetSnapshot {
  const groups: VServerGroup[] = c.service.ports.map((p, i) => {
    const name = groupName(c, i);
    const expected = 'groups' in c.expect ? (c.expect.groups[i]?.backends ?? []) : [];
    const backendServers: BackendServer[] = expected.map(parseCaseBackend).map((b) => ({
      serverId: b.type === 'eni' ? `eni-${b.serverId}` : b.serverId,
      ...(b.type === 'eni' ? { serverIp: b.serverId } : {}),
      port: b.port,
      weight: b.weight,
      type: b.type,
      description: name,
    }));
    const userId = userGroupId(c, p.port);
    return { vServerGroupId: userId ?? `rsp-${i}`, name: userId ? 'user-group' : name, backendServers };
  });
  edit?.(groups);
  const listeners = c.service.ports.map((p, i) => ({
    port: p.port,
    protocol: 'tcp',
    description: `k8s/${p.port}/${c.service.name}/default/${CASE_CLUSTER_ID}`,
    vServerGroupId: groups[i]!.vServerGroupId,
  }));
  const clb: Clb = c.service.reused
    ? factory.clb({ loadBalancerId: 'lb-reused', listeners, vServerGroups: groups })
    : factory.ccmClb({
        ownerName: FIXTURE_DEFAULT_LB_NAME,
        clusterId: CASE_CLUSTER_ID,
        listeners,
        vServerGroups: groups,
      });
  return factory.fleet([
    factory.region({
      loadBalancers: [clb],
      clusters: [
        factory.cluster({
          clusterId: CASE_CLUSTER_ID,
          ccmVersion: c.ccmVersion ?? 'v2.14.0',
          kubernetes: caseKubernetes(c),
        }),
      ],
    }),
  ]);
}

function run(checkId: string, snapshot: FleetSnapshot): CheckResult {
  const checks: NonNullable<PartialAuditSettings['checks']> = {};
  for (const c of CHECKS) if (c.id !== checkId) checks[c.id] = { enabled: false };
  const results = runAudit(snapshot, { now: FROZEN_NOW, settings: { checks } }).results.filter(
    (r) => r.resource.kind === 'Service',
  );
  expect(results).toHaveLength(1);
  return results[0]!;
}

/**
 * Whether LB_CONFIG_DRIFT compares weights for a case: not before v1.9.3.276 (Local-mode weights differed, seeds
 * 000/001), not with `ignore-weight-update: on` from v2.11.1 (CCM_FEATURES.ignoreWeightUpdate).
 */
function weightsCompared(c: CcmCase): boolean {
  const v = c.ccmVersion ?? 'v2.14.0';
  if (ccmVersionAtLeast(v, CCM_FEATURES.podCountWeights.sinceVersion) === false) return false;
  const ignore = (c.service.annotations['ignore-weight-update'] ?? '').toLowerCase() === 'on';
  return !(ignore && ccmVersionAtLeast(v, CCM_FEATURES.ignoreWeightUpdate.sinceVersion) !== false);
}

describe('LB_CONFIG_DRIFT finds nothing where the CLB holds exactly what CCM sets', () => {
  it.each(ok.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const r = run('LB_CONFIG_DRIFT', fleetOf(c));
    expect(r.message).toContain('matches what CCM would set');
    expect(r.status).toBe('pass');
  });
});

describe('negative controls: LB_CONFIG_DRIFT finds one backend removed, added or re-weighted', () => {
  const withBackends = ok.filter((c) => 'groups' in c.expect && c.expect.groups[0]!.backends.length > 0);

  it.each(withBackends.map((c) => [c.id, c] as const))('%s: one backend removed', (_id, c) => {
    const r = run(
      'LB_CONFIG_DRIFT',
      fleetOf(c, (g) => void g[0]!.backendServers.shift()),
    );
    expect(r).toMatchObject({ status: 'fail', figures: { backendsToAdd: 1, backendsToRemove: 0 } });
  });

  it.each(ok.map((c) => [c.id, c] as const))('%s: one backend added', (_id, c) => {
    const name = groupName(c, 0);
    const port = c.service.policy === 'ENI' ? 8080 : (c.service.ports[0]!.nodePort ?? 30080);
    const r = run(
      'LB_CONFIG_DRIFT',
      fleetOf(c, (g) => {
        g[0]!.backendServers.push({ serverId: 'i-extra', port, weight: 100, type: 'ecs', description: name });
      }),
    );
    expect(r).toMatchObject({ status: 'fail', figures: { backendsToRemove: 1, backendsToAdd: 0 } });
  });

  it.each(withBackends.map((c) => [c.id, c] as const))('%s: one backend re-weighted', (_id, c) => {
    const r = run(
      'LB_CONFIG_DRIFT',
      fleetOf(c, (g) => {
        const b = g[0]!.backendServers[0]!;
        b.weight = b.weight >= 100 ? 99 : b.weight + 1;
      }),
    );
    if (weightsCompared(c)) expect(r).toMatchObject({ status: 'fail', figures: { backendsToRewrite: 1 } });
    else expect(r.status).toBe('pass');
  });
});

describe("sync failures: reported as skipped with CCM's message, never as a predicted change", () => {
  it.each(failing.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    if (!('syncError' in c.expect)) return;
    // The CLB holds a backend CCM would remove if it could sync: no change may be predicted.
    const snapshot = fleetOf(c, (g) => {
      g[0]!.backendServers.push({
        serverId: 'i-stale',
        port: 30080,
        weight: 100,
        type: 'ecs',
        description: g[0]!.name,
      });
    });
    const drift = run('LB_CONFIG_DRIFT', snapshot);
    expect(drift.status).toBe('skipped');
    expect(drift.message).toContain('CCM fails the sync');
    expect(drift.message).toContain(c.expect.syncError);
    if (c.service.policy === 'Cluster') {
      const blowup = run('CLUSTER_MODE_BLOWUP', snapshot);
      expect(blowup.status).toBe('skipped');
      expect(blowup.message).toContain(c.expect.syncError);
    }
  });
});

describe('vgroup-port that CCM cannot use: skipped with CCM\'s message (clbv1/vgroups.go buildVGroupForServicePort)', () => {
  const base = cases.find((c) => c.id === 'weight-cluster-four-nodes')!;

  it('a vgroup-port id the CLB does not have: "can not find vgroupId"', () => {
    const r = run('LB_CONFIG_DRIFT', fleetOf(base, (g) => (g[0]!.vServerGroupId = 'rsp-other')));
    expect(r.status).toBe('skipped');
    expect(r.message).toContain('can not find vgroupId rsp-user in lb lb-reused');
  });

  it('a vgroup-port id of a CCM-named group: "cannot reuse a ccm created vgroup"', () => {
    const r = run('LB_CONFIG_DRIFT', fleetOf(base, (g) => (g[0]!.name = groupName(base, 0))));
    expect(r.status).toBe('skipped');
    expect(r.message).toContain('cannot reuse a ccm created vgroup rsp-user for slb lb-reused');
  });
});
