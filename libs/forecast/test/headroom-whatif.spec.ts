import { describe, expect, it } from 'vitest';
import { QUOTA_USAGE_CHECK_IDS, runAudit } from '@app/checks';
import { quotaUsageOf, type FleetSnapshot } from '@app/domain';
import { HeadroomOptionError, ScenarioError, computeHeadroom, parseScenario, runWhatIf, type HeadroomEntry } from '@app/forecast';
import { CLUSTER, NOW, smallFleet } from './forecast-fleet.util';

/** 5 workers, 2 Cluster-mode Services (one CLB each, 5 backends), backend quota 12, attachment quota 6, 50 CLBs. */
const QUOTAS = { slb_quota_backendservers_num: 12, slb_quota_backendserver_attached_num: 6, slb_quota_instances_num: 50 };

function headroomOf(snapshot: FleetSnapshot, opts: Parameters<typeof computeHeadroom>[2] = {}): HeadroomEntry {
  const samples = quotaUsageOf(runAudit(snapshot, { now: NOW }).results, QUOTA_USAGE_CHECK_IDS);
  return computeHeadroom(snapshot, samples, opts)[0]!;
}

function whatIf(snapshot: FleetSnapshot, step: Record<string, unknown>) {
  return runWhatIf(snapshot, parseScenario({ apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 't', steps: [step] }), { now: NOW });
}

describe('computeHeadroom on a hand-built fleet', () => {
  const fleet = () => smallFleet({ nodes: 5, clusterServices: 2, quotas: QUOTAS });

  it('refuses a `like` node the cluster lacks with a typed, permanent error (the API answers 400 query.like)', () => {
    let caught: unknown;
    try {
      headroomOf(fleet(), { like: 'node-99' });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(HeadroomOptionError);
    expect(caught).toMatchObject({ code: 'HEADROOM_OPTION_INVALID', permanent: true, option: 'like' });
    expect((caught as Error).message).toMatch(/^--like: unknown node "node-99" in cluster /);
  });

  it('gives exact counts and names the limiting quota', () => {
    const h = headroomOf(fleet());
    // A node joins both CLBs: 12 - 5 = 7 more per CLB.
    expect(h.nodes).toMatchObject({ headroom: 7, limitedBy: { checkId: 'CLB_BACKEND_QUOTA' } });
    // A Cluster-mode Service attaches every node: 6 - 2 = 4 more attachments per node.
    expect(h.clusterModeServices).toMatchObject({ headroom: 4, limitedBy: { checkId: 'ECS_LB_ATTACHMENT_QUOTA' } });
    // A Local Service with 2 pods attaches 2 nodes: 5 nodes x 4 free = 20 attachments / 2 = 10.
    expect(h.localServices).toMatchObject({ headroom: 10, limitedBy: { checkId: 'ECS_LB_ATTACHMENT_QUOTA' } });
  });

  it.each([
    ['nodes', { addNodes: { cluster: CLUSTER, count: 7 } }, { addNodes: { cluster: CLUSTER, count: 8 } }, 'CLB_BACKEND_QUOTA'],
    ['Cluster-mode Services', { addServices: { cluster: CLUSTER, namespace: 'shop', count: 4 } }, { addServices: { cluster: CLUSTER, namespace: 'shop', count: 5 } }, 'ECS_LB_ATTACHMENT_QUOTA'],
    [
      'Local Services',
      { addServices: { cluster: CLUSTER, namespace: 'shop', count: 10, externalTrafficPolicy: 'Local', podsPerService: 2 } },
      { addServices: { cluster: CLUSTER, namespace: 'shop', count: 11, externalTrafficPolicy: 'Local', podsPerService: 2 } },
      'ECS_LB_ATTACHMENT_QUOTA',
    ],
  ])('%s: adding the headroom does not breach, one more does', (_, fits, breaks, checkId) => {
    const ok = whatIf(fleet(), fits);
    expect(ok.steps[0]!.firstBreach).toBeNull();
    const over = whatIf(fleet(), breaks);
    expect(over.steps[0]!.firstBreach).toMatchObject({ checkId });
    expect(over.steps[0]!.firstBreach!.after.used).toBe(over.steps[0]!.firstBreach!.after.limit + 1);
  });

  it('the vSwitch limits nodes when it has fewer free IPs', () => {
    const h = headroomOf(smallFleet({ nodes: 5, clusterServices: 2, quotas: QUOTAS, freeIps: 3 }));
    expect(h.nodes).toMatchObject({ headroom: 3, limitedBy: { checkId: 'VSWITCH_IP_EXHAUSTION', resource: { id: 'vsw-1' } } });
  });

  it('resources already over a limit are reported as such, not as a headroom of 0', () => {
    const snapshot = smallFleet({ nodes: 5, clusterServices: 2, quotas: { ...QUOTAS, slb_quota_backendservers_num: 4 } });
    const h = headroomOf(snapshot);
    expect('alreadyOver' in h.nodes).toBe(true);
    if ('alreadyOver' in h.nodes) {
      expect(h.nodes.alreadyOver).toHaveLength(2);
      expect(h.nodes.alreadyOver[0]).toMatchObject({ checkId: 'CLB_BACKEND_QUOTA', used: 5, limit: 4 });
    }
  });

  it('a cluster without Cluster-mode Services has no node limit but its vSwitch', () => {
    const h = headroomOf(smallFleet({ nodes: 3, quotas: QUOTAS }));
    expect(h.nodes).toMatchObject({ limitedBy: { checkId: 'VSWITCH_IP_EXHAUSTION' } });
  });
});

describe('runWhatIf', () => {
  const scenario = parseScenario({
    apiVersion: 'fleet-audit/v1',
    kind: 'Scenario',
    name: 'black-friday',
    steps: [
      { addNodes: { cluster: CLUSTER, count: 3, labels: { pool: 'big' } } },
      { addServices: { cluster: CLUSTER, namespace: 'shop', count: 3, ports: [80, 443] } },
      { setTrafficPolicy: { cluster: CLUSTER, services: ['shop/base-*'], policy: 'Local' } },
      { upgradeCcm: { cluster: CLUSTER, version: 'v2.12.1' } },
      { scalePods: { cluster: CLUSTER, service: 'shop/base-s1-000001', replicas: 4 } },
      { removeNodes: { cluster: CLUSTER, names: ['node-0'] } },
    ],
  });

  it('reports quotas before/after, breaches, finding diffs and headroom per step', () => {
    const r = runWhatIf(smallFleet({ nodes: 5, clusterServices: 2, quotas: QUOTAS }), scenario, { now: NOW });
    expect(r.scenario).toBe('black-friday');
    expect(r.steps).toHaveLength(6);
    const [add, svc, local] = r.steps;
    // 3 nodes join 2 CLBs: 5 -> 8 backends each.
    const clbs = add!.quotas.filter((q) => q.checkId === 'CLB_BACKEND_QUOTA');
    expect(clbs.map((q) => [q.before.used, q.after.used])).toEqual([
      [5, 8],
      [5, 8],
    ]);
    expect(add!.firstBreach).toBeNull();
    expect(add!.headroom[0]!.nodes).toMatchObject({ headroom: 4 });
    // 3 two-port Services: 8 nodes x 2 ports = 16 > 12 on each new CLB: breach, critical findings appear.
    expect(svc!.firstBreach).toMatchObject({ checkId: 'CLB_BACKEND_QUOTA', after: { used: 16, limit: 12 } });
    expect(svc!.findings.appeared.filter((f) => f.checkId === 'CLB_BACKEND_QUOTA')).toHaveLength(3);
    expect(svc!.findings.appeared[0]!.severity).toBe('critical');
    // Switching the first two to Local shrinks their CLBs to the nodes with pods.
    const shrunk = local!.quotas.filter((q) => q.checkId === 'CLB_BACKEND_QUOTA');
    expect(shrunk.every((q) => q.after.used < q.before.used)).toBe(true);
    expect(r.convergence.services).toBeGreaterThan(0);
    expect(r.convergence.callsPerApi.CreateLoadBalancer).toBe(3);
  });

  it('is byte-identical for the same inputs and leaves the input snapshot alone', () => {
    const snapshot = smallFleet({ nodes: 5, clusterServices: 2, quotas: QUOTAS });
    const before = JSON.stringify(snapshot);
    const a = JSON.stringify(runWhatIf(snapshot, scenario, { now: NOW }));
    const b = JSON.stringify(runWhatIf(smallFleet({ nodes: 5, clusterServices: 2, quotas: QUOTAS }), scenario, { now: NOW }));
    expect(a).toBe(b);
    expect(JSON.stringify(snapshot)).toBe(before);
  });

  it('a step names its cluster by id or by name, with the same answer', () => {
    const byId = whatIf(smallFleet({ nodes: 5, clusterServices: 2, quotas: QUOTAS }), { addNodes: { cluster: CLUSTER, count: 3 } });
    const byName = whatIf(smallFleet({ nodes: 5, clusterServices: 2, quotas: QUOTAS }), { addNodes: { cluster: 'small', count: 3 } });
    expect(byName).toEqual(byId);
    expect(byId.steps[0]!.quotas.length).toBeGreaterThan(0);
    expect(byId.steps[0]!.headroom.map((h) => [h.clusterId, h.clusterName])).toEqual([[CLUSTER, 'small']]);
  });

  it('an unknown cluster lists the valid ones; a name two clusters share is refused listing both ids', () => {
    expect(() => whatIf(smallFleet({ nodes: 5, quotas: QUOTAS }), { addNodes: { cluster: 'smal', count: 1 } })).toThrow(
      `step 1 (addNodes) field addNodes.cluster: unknown cluster 'smal'; clusters: small (${CLUSTER.slice(0, 8)}…)`,
    );
    const twin = smallFleet({ nodes: 5, quotas: QUOTAS });
    const region = twin.accounts[0]!.regions[0]!;
    region.clusters.push({ ...structuredClone(region.clusters[0]!), clusterId: 'c-twin-of-small' });
    expect(() => whatIf(twin, { addNodes: { cluster: 'small', count: 1 } })).toThrow(
      `step 1 (addNodes) field addNodes.cluster: ambiguous cluster name 'small': 2 clusters have it (${CLUSTER}, c-twin-of-small); name one by id`,
    );
    // By id, each of the twins is still reachable.
    expect(whatIf(twin, { addNodes: { cluster: 'c-twin-of-small', count: 1 } }).steps).toHaveLength(1);
  });

  it.each([
    [{ addNodes: { cluster: 'c-nope', count: 1 } }, /step 1 \(addNodes\) field addNodes\.cluster: unknown cluster 'c-nope'; clusters: /],
    [{ addNodes: { cluster: CLUSTER, count: 1, like: 'node-99' } }, /step 1 \(addNodes\) field addNodes\.like: unknown node "node-99"/],
    [{ removeNodes: { cluster: CLUSTER, names: ['node-1', 'ghost'] } }, /step 1 \(removeNodes\) field removeNodes\.names\.1: unknown node "ghost"/],
    [{ scalePods: { cluster: CLUSTER, service: 'shop/ghost', replicas: 2 } }, /field scalePods\.service: unknown Service "shop\/ghost"/],
    [{ setTrafficPolicy: { cluster: CLUSTER, services: ['x/*'], policy: 'Local' } }, /field setTrafficPolicy\.services\.0: no LoadBalancer Service matches "x\/\*"/],
    [{ addServices: { cluster: CLUSTER, namespace: 'a', count: 1, reuseLoadBalancer: 'lb-ghost' } }, /field addServices\.reuseLoadBalancer: unknown CLB "lb-ghost"/],
  ])('unknown names are errors naming the step and field: %j', (step, pattern) => {
    const run = () => whatIf(smallFleet({ nodes: 5, clusterServices: 2, quotas: QUOTAS }), step);
    expect(run).toThrow(ScenarioError);
    expect(run).toThrow(pattern);
  });
});

describe('the what-if makes the CCM decisions of the audit (libs/domain findServiceClb, schedulableBackendNode)', () => {
  it("writes a Service's backends to the CLB CCM finds (tag), not to one a stale loadbalancer-id label names", () => {
    const snapshot = smallFleet({ nodes: 5, clusterServices: 2, quotas: QUOTAS });
    const region = snapshot.accounts[0]!.regions[0]!;
    const [first, second] = region.loadBalancers!;
    const svc = region.clusters[0]!.kubernetes!.services.find((s) => `a${s.uid.replace(/-/g, '')}`.slice(0, 32) === first!.tags['kubernetes.do.not.delete'])!;
    // CCM v2.4.0+ writes this label after a sync; it goes stale, and CCM never reads it (research/ccm-behaviour.md §1.1).
    svc.labels['service.k8s.alibaba/loadbalancer-id'] = second!.loadBalancerId;
    const r = whatIf(snapshot, { addNodes: { cluster: CLUSTER, count: 1 } });
    const changed = r.steps[0]!.quotas.filter((q) => q.checkId === 'CLB_BACKEND_QUOTA');
    // Both CLBs gain the new node once (each Service on its own CLB), as the audit attributes them; before, the
    // labelled Service's groups were written to the second CLB as well.
    expect(changed.map((q) => [q.resource.id, q.before.used, q.after.used])).toEqual([
      [first!.loadBalancerId, 5, 6],
      [second!.loadBalancerId, 5, 6],
    ]);
  });

  it('places no new pod on a node CCM excludes from load balancers (the audit excludes it too)', () => {
    const snapshot = smallFleet({ nodes: 5, quotas: QUOTAS });
    const nodes = snapshot.accounts[0]!.regions[0]!.clusters[0]!.kubernetes!.nodes;
    for (const n of nodes.slice(0, 4)) n.labels['node.kubernetes.io/exclude-from-external-load-balancers'] = 'true';
    const r = whatIf(snapshot, { addServices: { cluster: CLUSTER, namespace: 'shop', count: 1, externalTrafficPolicy: 'Local', podsPerService: 2 } });
    // Both pods go to the one node CCM attaches, so the Local-mode CLB has one backend, not two.
    const clb = r.steps[0]!.quotas.find((q) => q.checkId === 'CLB_BACKEND_QUOTA')!;
    expect(clb.after.used).toBe(1);
  });
});
