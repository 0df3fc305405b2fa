/**
 * NLB capacity planning: NLB quota series for trends, what-if `addServices` with
 * `loadBalancerClass: alibabacloud.com/nlb` and `migrateToNlb`, and the NLB API limits in the convergence estimate,
 * on hand-built fleets whose CLBs and NLBs the CCM model itself builds (forecast-fleet.util.ts).
 */
import { describe, expect, it } from 'vitest';
import { QUOTA_USAGE_CHECK_IDS, runAudit } from '@app/checks';
import { quotaUsageOf, type FleetSnapshot } from '@app/domain';
import { ScenarioError, computeHeadroom, estimateConvergence, forecastTrends, parseScenario, runWhatIf, type HeadroomEntry, type QuotaSeries } from '@app/forecast';
import { CLUSTER, NOW, smallFleet } from './forecast-fleet.util';
import { thrownBy } from '../../../test/thrown.util';

const NLB_QUOTA_CHECKS = ['NLB_BACKEND_QUOTA', 'NLB_INSTANCE_QUOTA', 'NLB_LISTENER_QUOTA', 'NLB_SERVER_ADDED_QUOTA', 'NLB_SERVER_GROUP_BACKEND_QUOTA', 'NLB_SERVER_GROUP_QUOTA'];

function whatIf(snapshot: FleetSnapshot, ...steps: Record<string, unknown>[]) {
  return runWhatIf(snapshot, parseScenario({ apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 't', steps }), { now: NOW });
}

function scenarioError(run: () => unknown): ScenarioError {
  return thrownBy(ScenarioError, run);
}

describe('NLB quota series', () => {
  it('every NLB quota check is sampled per scan, so trends forecast its exhaustion', () => {
    const snapshot = smallFleet({ nodes: 4, nlbServices: 2, nlbPorts: [443, 8443] });
    const samples = quotaUsageOf(runAudit(snapshot, { now: NOW }).results, QUOTA_USAGE_CHECK_IDS);
    expect([...new Set(samples.map((s) => s.checkId).filter((id) => id.startsWith('NLB_')))].sort()).toEqual(NLB_QUOTA_CHECKS);
    // 2 Services x 2 ports: every node is in 4 server groups of nlb_quota_server_added_num 200.
    const added = samples.filter((s) => s.checkId === 'NLB_SERVER_ADDED_QUOTA');
    expect(added.map((s) => [s.used, s.limit])).toEqual([[4, 200], [4, 200], [4, 200], [4, 200]]);
    // A daily series growing by 100 server groups a day to 2,000 of the fixed 3,000 runs out in 10 days.
    const DAY = 86_400_000;
    const groups = samples.find((s) => s.checkId === 'NLB_SERVER_GROUP_QUOTA')!;
    const series: QuotaSeries = {
      checkId: groups.checkId,
      resource: { kind: groups.resource.kind, id: groups.resource.id, accountId: groups.resource.accountId, regionId: groups.resource.regionId, clusterId: null },
      observations: Array.from({ length: 8 }, (_, i) => ({ at: NOW.getTime() - (7 - i) * DAY, used: 2_000 + 100 * i - 700, limit: 3_000 })),
    };
    const [t] = forecastTrends([series], NOW.getTime());
    expect(t).toMatchObject({ checkId: 'NLB_SERVER_GROUP_QUOTA', status: 'ok', limit: 3_000, slopePerDay: 100 });
    expect(t!.secondsToExhaustion.p50! / 86_400).toBeCloseTo(10, 0);
  });
});

describe('what-if: NLB Services', () => {
  it('addServices with loadBalancerClass builds one NLB, one listener and one server group per port', () => {
    const r = whatIf(smallFleet({ nodes: 5, nlb: true }), { addServices: { cluster: CLUSTER, namespace: 'edge', count: 3, ports: [443, 8443], loadBalancerClass: 'alibabacloud.com/nlb' } });
    const q = (id: string) => r.steps[0]!.quotas.filter((x) => x.checkId === id);
    expect(q('NLB_INSTANCE_QUOTA').map((x) => [x.before.used, x.after.used])).toEqual([[0, 3]]);
    expect(q('NLB_SERVER_GROUP_QUOTA').map((x) => x.after.used)).toEqual([6]);
    expect(q('NLB_LISTENER_QUOTA').map((x) => x.after.used)).toEqual([2, 2, 2]);
    expect(q('NLB_SERVER_GROUP_BACKEND_QUOTA').map((x) => x.after.used)).toEqual([5, 5, 5, 5, 5, 5]);
    // Cluster mode: every node in every server group of every port.
    expect(q('NLB_SERVER_ADDED_QUOTA').map((x) => x.after.used)).toEqual([6, 6, 6, 6, 5 + 1]);
    // No CLB is created and no finding appears (zone-maps derived from the nodes' zones).
    expect(r.steps[0]!.quotas.some((x) => x.checkId.startsWith('CLB_'))).toBe(false);
    expect(r.steps[0]!.findings.appeared).toEqual([]);
  });

  it('Cluster mode breaches nlb_quota_server_added_num at the 201st port, not before', () => {
    const fleet = () => smallFleet({ nodes: 3, nlbServices: 4, nlbPorts: Array.from({ length: 50 }, (_, i) => 1000 + i) });
    const ok = whatIf(fleet(), { addServices: { cluster: CLUSTER, namespace: 'edge', count: 1, loadBalancerClass: 'alibabacloud.com/nlb', ports: [2000] } });
    expect(ok.steps[0]!.firstBreach).toMatchObject({ checkId: 'NLB_SERVER_ADDED_QUOTA', after: { used: 201, limit: 200 } });
    const before = quotaUsageOf(runAudit(fleet(), { now: NOW }).results, QUOTA_USAGE_CHECK_IDS).filter((s) => s.checkId === 'NLB_SERVER_ADDED_QUOTA');
    expect(before.every((s) => s.used === 200)).toBe(true);
  });

  it('migrateToNlb frees the CLB side, burns the NLB quotas and converges under the NLB write limit', () => {
    const r = whatIf(smallFleet({ nodes: 5, clusterServices: 3, nlb: true }), { migrateToNlb: { cluster: 'small', services: ['shop/base-s1-000001', 'shop/base-s1-000002'] } });
    const step = r.steps[0]!;
    const q = (id: string) => step.quotas.filter((x) => x.checkId === id).map((x) => [x.before.used, x.after.used]);
    expect(q('CLB_INSTANCE_QUOTA')).toEqual([[3, 1]]);
    expect(q('CLB_BACKEND_QUOTA')).toEqual([[5, 0], [5, 0]]);
    expect(q('ECS_LB_ATTACHMENT_QUOTA')).toEqual(Array.from({ length: 5 }, () => [3, 1]));
    expect(q('NLB_INSTANCE_QUOTA')).toEqual([[0, 2]]);
    expect(q('NLB_SERVER_GROUP_QUOTA')).toEqual([[0, 2]]);
    expect(q('NLB_SERVER_ADDED_QUOTA')).toEqual(Array.from({ length: 5 }, () => [0, 2]));
    expect(step.firstBreach).toBeNull();
    expect(step.findings.appeared).toEqual([]);
    expect(r.convergence.callsPerApi).toMatchObject({ DeleteLoadBalancer: 2, 'nlb:CreateLoadBalancer': 2, 'nlb:CreateServerGroup': 2, 'nlb:AddServersToServerGroup': 2, 'nlb:CreateListener': 2 });
    // Two Services, each with two changes (its CLB released, its NLB built): two Services reconciled.
    expect(r.convergence.services).toBe(2);
  });

  it('migrateToNlb names the first breach: the fixed 3,000 server groups of the region', () => {
    const snapshot = smallFleet({ nodes: 2, clusterServices: 2, nlb: true, quotas: { nlb_quota_servergroups_num: 1 } });
    const r = whatIf(snapshot, { migrateToNlb: { cluster: CLUSTER, services: ['shop/base-s1-000001', 'shop/base-s1-000002'] } });
    expect(r.steps[0]!.firstBreach).toMatchObject({ checkId: 'NLB_SERVER_GROUP_QUOTA', after: { used: 2, limit: 1 } });
  });

  it('refuses bad steps naming the step and field, listing the candidates', () => {
    const fleet = smallFleet({ nodes: 2, clusterServices: 2, nlb: true });
    expect(scenarioError(() => whatIf(fleet, { migrateToNlb: { cluster: CLUSTER, services: ['shop/nope'] } })).message).toBe(
      `step 1 (migrateToNlb) field migrateToNlb.services.0: "shop/nope" is not a Service of the cluster; CLB Services of cluster ${CLUSTER}: shop/base-s1-000001, shop/base-s1-000002`,
    );
    expect(scenarioError(() => whatIf(fleet, { migrateToNlb: { cluster: CLUSTER, services: ['base-s1-000001'] } })).message).toBe(
      'step 1 (migrateToNlb) field migrateToNlb.services.0: a Service as namespace/name',
    );
    expect(scenarioError(() => whatIf(fleet, { addServices: { cluster: CLUSTER, namespace: 'a', count: 1, loadBalancerClass: 'alibabacloud.com/alb' } })).message).toMatch(
      /^step 1 \(addServices\) field addServices\.loadBalancerClass: the only class CCM takes is alibabacloud\.com\/nlb/,
    );
    expect(scenarioError(() => whatIf(fleet, { addServices: { cluster: CLUSTER, namespace: 'a', count: 1, loadBalancerClass: 'alibabacloud.com/nlb', reuseLoadBalancer: 'lb-1' } })).field).toBe('addServices.reuseLoadBalancer');
    expect(scenarioError(() => whatIf(fleet, { migrateToNlb: { cluster: CLUSTER, services: Array.from({ length: 1001 }, (_, i) => `a/s${i}`) } })).message).toMatch(/at most 1000 Services per step/);
    const noNlb = smallFleet({ nodes: 2, clusterServices: 1 });
    expect(scenarioError(() => whatIf(noNlb, { migrateToNlb: { cluster: CLUSTER, services: ['shop/base-s1-000001'] } })).message).toMatch(/NLB data of .* was not read \(coverage gap nlb\)/);
  });

  it('a migrated Service is refused a second time: it is no longer a CLB Service', () => {
    const fleet = smallFleet({ nodes: 2, clusterServices: 1, nlb: true });
    const e = scenarioError(() => whatIf(fleet, { migrateToNlb: { cluster: CLUSTER, services: ['shop/base-s1-000001'] } }, { migrateToNlb: { cluster: CLUSTER, services: ['shop/base-s1-000001'] } }));
    expect(e.message).toMatch(/^step 2 \(migrateToNlb\) field migrateToNlb\.services\.0: "shop\/base-s1-000001" is not a CLB Service/);
  });
});

describe('convergence with the NLB API limits', () => {
  it('NLB writes (200 per 60 s per API and region) bound a large migration, not CCM concurrency', () => {
    // 30 Services of 10 ports, 200 nodes each: 5 AddServersToServerGroup per group, 1,500 in all.
    const change = (i: number, product: 'clb' | 'nlb') => ({
      service: `edge/s${i}`,
      product,
      createsLoadBalancer: true,
      groupsCreated: 10,
      groupsUpdated: 0,
      listenersCreated: 10,
      backendsAdded: new Array<number>(10).fill(200),
      backendsRemoved: new Array<number>(10).fill(0),
      backendsUpdated: new Array<number>(10).fill(0),
    });
    const e = estimateConvergence(Array.from({ length: 30 }, (_, i) => change(i, 'nlb')));
    expect(e.boundBy).toBe('rate-limits');
    expect(e.callsPerApi).toMatchObject({ 'nlb:CreateLoadBalancer': 30, 'nlb:AddServersToServerGroup': 1_500, 'nlb:GetJobStatus': 1_530, 'nlb:ListAsynJobs': 30 });
    // 1,500 calls at 200 / 60 s = 450 s (GetJobStatus: 1,530 at 20/s = 76.5 s), plus the requeue allowance.
    expect(e.wallSeconds.p50).toBeCloseTo(450 * 1.05 + 10, 3);
    // The same work on CLBs at the CLB budget (20/s per API) takes 75 s.
    const clb = estimateConvergence(Array.from({ length: 30 }, (_, i) => change(i, 'clb')));
    expect(clb.callsPerApi['AddVServerGroupBackendServers']).toBe(1_500);
    expect(clb.wallSeconds.p50).toBeCloseTo(75 * 1.05 + 10, 3);
  });
});

describe('headroom with the NLB quotas', () => {
  function headroomOf(snapshot: FleetSnapshot): HeadroomEntry {
    return computeHeadroom(snapshot, quotaUsageOf(runAudit(snapshot, { now: NOW }).results, QUOTA_USAGE_CHECK_IDS))[0]!;
  }

  it('nodes: the per-server-group quota of Cluster-mode NLB Services limits them', () => {
    // 3 nodes in each of 2 server groups of 5 servers at most: 2 more nodes.
    const fleet = () => smallFleet({ nodes: 3, nlbServices: 2, quotas: { nlb_quota_servergroup_noeci_servers_num: 5 } });
    expect(headroomOf(fleet()).nodes).toMatchObject({ headroom: 2, limitedBy: { checkId: 'NLB_SERVER_GROUP_BACKEND_QUOTA', resource: { kind: 'NlbServerGroup' } } });
    expect(whatIf(fleet(), { addNodes: { cluster: CLUSTER, count: 2 } }).steps[0]!.firstBreach).toBeNull();
    expect(whatIf(fleet(), { addNodes: { cluster: CLUSTER, count: 3 } }).steps[0]!.firstBreach).toMatchObject({ checkId: 'NLB_SERVER_GROUP_BACKEND_QUOTA', after: { used: 6, limit: 5 } });
  });

  it.each([
    ['Cluster-mode', 'nlbClusterModeServices', 'Cluster', 10],
    // 3 workers with 10 free each, 2 pods per Service: 15.
    ['Local', 'nlbLocalServices', 'Local', 15],
  ] as const)('%s NLB Services: nlb_quota_server_added_num limits them, and the what-if agrees', (_, field, policy, expected) => {
    // 2 Services x 50 ports: every node is in 100 server groups of 110.
    const fleet = () => smallFleet({ nodes: 3, nlbServices: 2, nlbPorts: Array.from({ length: 50 }, (_, i) => 1000 + i), quotas: { nlb_quota_server_added_num: 110 } });
    const h = headroomOf(fleet());
    expect(h[field]).toMatchObject({ headroom: expected, limitedBy: { checkId: 'NLB_SERVER_ADDED_QUOTA', resource: { kind: 'EcsInstance' } } });
    const add = (count: number) => ({ addServices: { cluster: CLUSTER, namespace: 'edge', count, externalTrafficPolicy: policy, loadBalancerClass: 'alibabacloud.com/nlb', ports: [2000] } });
    expect(whatIf(fleet(), add(expected)).steps[0]!.firstBreach).toBeNull();
    expect(whatIf(fleet(), add(expected + 1)).steps[0]!.firstBreach).toMatchObject({ checkId: 'NLB_SERVER_ADDED_QUOTA', after: { used: 111, limit: 110 } });
  });

  it('the server groups per region (3,000, fixed) limit NLB Services of many ports', () => {
    const h = headroomOf(smallFleet({ nodes: 2, nlbServices: 1, nlbPorts: [443, 8443], quotas: { nlb_quota_servergroups_num: 12 } }));
    // 12 - 2 = 10 groups free, 1 port per new Service.
    expect(h.nlbClusterModeServices).toMatchObject({ headroom: 10, limitedBy: { checkId: 'NLB_SERVER_GROUP_QUOTA', resource: { kind: 'Region' } } });
  });

  it('NLB Services are not planned where the NLB data was not read', () => {
    const h = headroomOf(smallFleet({ nodes: 2 }));
    expect(h.nlbClusterModeServices).toBeNull();
    expect(h.nlbLocalServices).toBeNull();
  });
});
