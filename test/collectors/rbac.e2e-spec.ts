/**
 * `fleet-audit rbac` round trip through the simulator, as iam-policy.e2e-spec.ts does for RAM: a live scan of the
 * sample fleet through a simulator whose Kubernetes APIs enforce exactly the printed ClusterRole gets no 403; with
 * one rule's resource removed, the scan completes and every cluster's coverage names the missing verb and resource.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  KUBERNETES_CALLS,
  leastPrivilegeClusterRole,
  loadScanConfig,
  readFleetDirectory,
  scanLive,
  type ClusterRoleDocument,
} from '@app/collectors';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { grantPlanOf } from '../../apps/cli/src/commands/rbac.command';
import { testConfig } from './scan-config.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');

describe('rbac round trip through the simulator', () => {
  let sim: RunningSimulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  const scanWith = async (rbac: ClusterRoleDocument) => {
    sim = await startSimulator({ fleet: readFleetDirectory(SAMPLE), rbac });
    return scanLive(testConfig(loadScanConfig(sim.configPath)));
  };

  it('the ClusterRole is enough: no 403, and the crawl lists only what the role names', async () => {
    const snap = await scanWith(leastPrivilegeClusterRole());
    expect(snap.coverage.filter((c) => c.status === 'failed')).toEqual([]);
    expect(snap.coverage.filter((c) => c.api === 'kubernetes' && c.status === 'ok')).toHaveLength(6);
    const k8sActions = new Set(Object.values(sim!.stats().calls).flatMap((a) => Object.keys(a).filter((k) => k.startsWith('k8s:'))));
    expect(k8sActions).toEqual(new Set(KUBERNETES_CALLS.map((c) => `k8s:${c.verb}:${c.resource}`)));
  });

  it('the ClusterRole is read-only and names each call once', () => {
    const role = leastPrivilegeClusterRole();
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['events', 'nodes', 'pods', 'services'], verbs: ['list'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
    ]);
    expect(role.rules.flatMap((r) => r.resources).sort()).toEqual(KUBERNETES_CALLS.map((c) => c.resource).sort());
  });

  it.each(KUBERNETES_CALLS.map((c) => [c.resource, c] as const))('without list %s, the gap names the verb and the resource', async (resource, call) => {
    const full = leastPrivilegeClusterRole();
    const without: ClusterRoleDocument = {
      ...full,
      rules: full.rules.map((r) => ({ ...r, resources: r.resources.filter((x) => x !== resource) })).filter((r) => r.resources.length > 0),
    };
    const snap = await scanWith(without);
    const failed = snap.coverage.filter((c) => c.status === 'failed');
    expect(failed).toHaveLength(6);
    for (const f of failed) {
      expect(f).toMatchObject({ api: 'kubernetes', errorCode: 'Forbidden' });
      expect(f.message).toContain(`${call.api} `);
      expect(f.message).toContain(`cannot list resource "${resource}" in API group "${call.group}" at the cluster scope`);
      expect(f.message).toContain(`the audit identity lacks "list" on "${resource}" (API group "${call.group}"`);
      expect(f.message).toContain('fleet-audit rbac');
    }
  });

  it('the grant plan binds the role in every selected cluster of each account, adding (mode=patch)', async () => {
    sim = await startSimulator({ fleet: readFleetDirectory(SAMPLE) });
    const config = loadScanConfig(sim.configPath);
    const plan = grantPlanOf(
      config,
      [
        { accountId: '1234567890123456', clusterId: 'cb', selected: true },
        { accountId: '1234567890123456', clusterId: 'ca', selected: true },
        { accountId: '1234567890123456', clusterId: 'cx', selected: false },
      ],
      '300000000000000001',
      'fleet-audit-read',
    );
    expect(plan[0]).toEqual({
      accountId: '1234567890123456',
      method: 'POST',
      path: '/permissions/users/300000000000000001/update?mode=patch',
      body: ['ca', 'cb'].map((cluster) => ({ cluster, role_type: 'cluster', role_name: 'fleet-audit-read', namespace: '', is_custom: true, is_ram_role: true })),
    });
    expect(plan[1]).toMatchObject({ accountId: '1987654321098765', body: [] });
  });
});
