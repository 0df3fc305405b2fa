/**
 * ECS_LB_ATTACHMENT_QUOTA: for each ECS instance of a region (listed, or found among CLB backends), the CLB instances
 * that list it as a backend (default group or any vServer group) against `slb_quota_backendserver_attached_num`
 * (Quota Center value of the region, else the documented default 50; CCM notes 7, docs/sources.md#ccm-7). Seed 004
 * "Load balancing update policies": Cluster mode attaches every node, which "quickly consumes the quota". A failure
 * names up to five of the CLBs. Starts from the fixture test/fixtures/ECS_LB_ATTACHMENT_QUOTA/pass.few-attachments:
 * ECS i-node0001, a backend of CLBs lb-000..lb-002 (one vServer group each).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SLB_QUOTA_BACKEND_ATTACHED, quotaUsageOf, type CheckResult, type FleetSnapshot, type RegionSnapshot } from '@app/domain';
import { nlbFixture, runCheck } from '../../test/nlb-fixture.util';
import type { PartialAuditSettings } from '../audit-settings.types';
import { QUOTA_CENTER_QUOTA_OF_CHECK, QUOTA_USAGE_CHECK_IDS } from '../check.registry';

const ID = 'ECS_LB_ATTACHMENT_QUOTA';
const ACCOUNT = '1234567890123456';
const ECS = 'i-node0001';
const CODE = 'slb_quota_backendserver_attached_num';

/** A fresh copy of the fixture `file` of the check, with its one region. */
function load(file: string): { snapshot: FleetSnapshot; region: RegionSnapshot } {
  const { snapshot } = JSON.parse(readFileSync(join(__dirname, '../../test/fixtures', ID, `${file}.json`), 'utf8')) as { snapshot: FleetSnapshot };
  return { snapshot, region: snapshot.accounts[0]!.regions[0]! };
}

/**
 * `pass.few-attachments` with `clbs` CLBs lb-000.. each listing `ecs` in `groups` vServer groups (and in its default group
 * when `inDefault`), and the Quota Center value of the quota, when given.
 */
function fixture(clbs: number, { ecs = ECS, groups = 1, inDefault = false, quota }: { ecs?: string; groups?: number; inDefault?: boolean; quota?: number } = {}) {
  const f = load('pass.few-attachments');
  const first = f.region.loadBalancers![0]!;
  const backend = { ...first.vServerGroups[0]!.backendServers[0]!, serverId: ecs };
  f.region.loadBalancers = Array.from({ length: clbs }, (_, i) => {
    const id = `lb-${String(i).padStart(3, '0')}`;
    return {
      ...first,
      loadBalancerId: id,
      name: id,
      defaultBackendServers: inDefault ? [backend] : [],
      vServerGroups: Array.from({ length: groups }, (_, g) => ({ ...first.vServerGroups[0]!, vServerGroupId: `rsp-${i}-${g}`, backendServers: [backend] })),
    };
  });
  if (quota !== undefined) f.region.quotas = [{ quotaActionCode: CODE, totalQuota: quota }];
  return f;
}

/** The one result of the check for ECS `id`. */
function resultOf(f: { snapshot: FleetSnapshot }, id = ECS, settings: PartialAuditSettings = {}): CheckResult {
  const rs = runCheck(ID, f.snapshot, settings).filter((r) => r.resource.id === id);
  expect(rs).toHaveLength(1);
  return rs[0]!;
}

describe('ECS_LB_ATTACHMENT_QUOTA', () => {
  it('a backend of 3 CLBs passes: the instance, the count and the share of the default 50, without the CLB list', () => {
    const r = resultOf(load('pass.few-attachments'));
    expect(r.status).toBe('pass');
    expect(r.resource).toEqual({ kind: 'EcsInstance', id: ECS, accountId: ACCOUNT, regionId: 'cn-hangzhou' });
    expect(r.message).toBe(`ECS ${ECS} is a backend of 3 CLB instances: 6 % of the attachment quota 50 (documented default)`);
    expect(r.figures).toEqual({ used: 3, limit: 50, ratio: 0.06, vServerGroups: 3, limitSource: 'default' });
  });

  it('a failure names the groups and up to five of the CLBs, in the message and as loadBalancerIds', () => {
    const r = resultOf(load('fail.node-on-41-clbs'));
    expect(r).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(r.message).toBe(
      `ECS ${ECS} is a backend of 41 CLB instances (41 server groups; e.g. lb-000, lb-001, lb-002, lb-003, lb-004): 82 % of the attachment quota 50 (documented default)`,
    );
    expect(r.figures).toEqual({
      used: 41,
      limit: 50,
      ratio: 0.82,
      vServerGroups: 41,
      limitSource: 'default',
      loadBalancerIds: ['lb-000', 'lb-001', 'lb-002', 'lb-003', 'lb-004'],
    });
    // The other listed instance is a backend of none: 0 %, no group.
    expect(resultOf(load('fail.node-on-41-clbs'), 'i-node0002')).toMatchObject({ status: 'pass', figures: { used: 0, vServerGroups: 0 } });
    expect(resultOf(load('fail.node-on-41-clbs'), 'i-node0002').message).toBe(
      'ECS i-node0002 is a backend of 0 CLB instances: 0 % of the attachment quota 50 (documented default)',
    );
  });

  it('counts CLBs, not groups: two vServer groups and the default group of one CLB are one attachment', () => {
    const r = resultOf(fixture(8, { groups: 2, inDefault: true, quota: 10 }));
    expect(r).toMatchObject({ status: 'fail', severity: 'warning', figures: { used: 8, limit: 10, ratio: 0.8, vServerGroups: 24, limitSource: 'quota-center' } });
    expect(r.message).toBe(
      `ECS ${ECS} is a backend of 8 CLB instances (24 server groups; e.g. lb-000, lb-001, lb-002, lb-003, lb-004): 80 % of the attachment quota 10 (Quota Center)`,
    );
  });

  it('warning from 80 %, critical from 95 % of the quota, or at the configured ratios; singular texts', () => {
    expect(resultOf(fixture(7, { quota: 10 })).status).toBe('pass');
    expect(resultOf(fixture(19, { quota: 20 }))).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(resultOf(fixture(18, { quota: 20 }))).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(resultOf(load('fail.node-on-48-clbs'))).toMatchObject({ status: 'fail', severity: 'critical', figures: { used: 48 } });
    const one = resultOf(fixture(1), ECS, { quota: { warningRatio: 0.02, criticalRatio: 0.5 } });
    expect(one).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(one.message).toBe(`ECS ${ECS} is a backend of 1 CLB instance (1 server group; e.g. lb-000): 2 % of the attachment quota 50 (documented default)`);
    expect(resultOf(fixture(1)).message).toBe(`ECS ${ECS} is a backend of 1 CLB instance: 2 % of the attachment quota 50 (documented default)`);
  });

  it('a Kubernetes node: its name in the message and the ref, with its cluster; the ECS name comes first', () => {
    const node = 'i-bp1node000000000001';
    const f = fixture(41, { ecs: node });
    const cluster = nlbFixture('NLB_SERVER_ADDED_QUOTA', 'pass.two-groups').cluster;
    f.region.clusters = [cluster];
    f.region.ecsInstances = [{ ...f.region.ecsInstances![0]!, instanceId: node }];
    const r = resultOf(f, node);
    expect(r.resource).toEqual({ kind: 'EcsInstance', id: node, accountId: ACCOUNT, regionId: 'cn-hangzhou', clusterId: cluster.clusterId, name: 'n1' });
    expect(r.message).toMatch(new RegExp(`^ECS ${node} \\(node n1\\) is a backend of 41 CLB instances \\(41 server groups; e\\.g\\. lb-000`));
    const passing = fixture(2, { ecs: node });
    passing.region.clusters = [cluster];
    expect(resultOf(passing, node).message).toBe(`ECS ${node} (node n1) is a backend of 2 CLB instances: 4 % of the attachment quota 50 (documented default)`);
    f.region.ecsInstances![0]!.name = 'worker-1';
    expect(resultOf(f, node).resource).toMatchObject({ name: 'worker-1', clusterId: cluster.clusterId });
  });

  it('a region whose CLBs were not read is skipped, naming the gap', () => {
    const rs = runCheck(ID, load('skipped.slb-not-read').snapshot);
    expect(rs).toHaveLength(1);
    expect(rs[0]).toMatchObject({ status: 'skipped', resource: { kind: 'Region', id: 'cn-hangzhou', accountId: ACCOUNT } });
    expect(rs[0]!.message).toBe('Not evaluated: CLB instances of cn-hangzhou were not read');
  });

  it('is sampled as the use of slb_quota_backendserver_attached_num (metrics, forecasts, quota plans)', () => {
    expect(QUOTA_CENTER_QUOTA_OF_CHECK.get(ID)).toBe(SLB_QUOTA_BACKEND_ATTACHED);
    expect(quotaUsageOf(runCheck(ID, fixture(3).snapshot), QUOTA_USAGE_CHECK_IDS)).toEqual([
      expect.objectContaining({ checkId: ID, used: 3, limit: 50 }),
    ]);
  });
});
