/**
 * CLUSTER_MODE_BLOWUP's NLB part: an NLB Service in Cluster mode puts every eligible node in the server group of each
 * port (CCM pkg/controller/service/nlbv2/server_groups.go `buildClusterBackends`, tag v2.14.0: "add all cluster
 * nodes"), where Local mode (`buildLocalBackends`) puts only the nodes running its ready pods. Starts from the fixture
 * `fail.nlb-cluster-mode-30-nodes` (30 nodes n1..n30, one pod on n1, one port, one server group holding all 30 nodes;
 * default quotas: nlb_quota_server_added_num 200, nlb_quota_servergroup_noeci_servers_num 400).
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult, FleetSnapshot, K8sNode, K8sService, NlbServerGroup, RegionSnapshot } from '@app/domain';
import { P, factory } from '../../test/factories';
import { nlbFixture, runCheck } from '../../test/nlb-fixture.util';
import type { PartialAuditSettings } from '../audit-settings.types';

const ID = 'CLUSTER_MODE_BLOWUP';
const SERVICE = 'default/web';

/** The fixture with the region's quotas set (`code` -> limit) and, optionally, pods on more nodes. */
function fixture(quotas: Record<string, number> = {}, podNodes: string[] = ['n1']) {
  const f = nlbFixture(ID, 'fail.nlb-cluster-mode-30-nodes');
  f.region.quotas = Object.entries(quotas).map(([quotaActionCode, totalQuota]) => ({ quotaActionCode, totalQuota }));
  f.kubernetes.endpointSlices[0]!.endpoints = podNodes.map((nodeName, i) => ({
    addresses: [`172.16.0.${i + 1}`],
    ready: true,
    terminating: false,
    nodeName,
  }));
  return f;
}

/** The one result of the check for the Service. */
function result(f: ReturnType<typeof fixture>, settings: PartialAuditSettings = {}): CheckResult {
  const results = runCheck(ID, f.snapshot, settings).filter((r) => r.resource.id === SERVICE);
  expect(results).toHaveLength(1);
  return results[0]!;
}

/** A server group of another Service holding the nodes `ids` (`i-bp1node0000000000NN`) as `Ecs` servers. */
function otherGroup(n: number, nodes: number[]): NlbServerGroup {
  return {
    serverGroupId: `sgp-other${n}`,
    name: `k8s.3100${n}.TCP.other${n}.default.c0123456789abcdef0123456789abcdef`,
    type: 'Instance',
    relatedLoadBalancerIds: [],
    tags: {},
    servers: nodes.map((i) => ({ serverId: `i-bp1node${String(i).padStart(12, '0')}`, type: 'Ecs' as const, port: 31000 + n, weight: 100 })),
  };
}

describe('CLUSTER_MODE_BLOWUP, NLB part', () => {
  it('fails as a warning with the blowup figures: 30 nodes x 1 port where Local mode would put 1', () => {
    const r = result(fixture());
    expect(r.status).toBe('fail');
    expect(r.severity).toBe('warning');
    expect(r.figures).toEqual({
      used: 1,
      limit: 200,
      ratio: 0.005,
      kind: 'NLB',
      mode: 'cluster',
      ports: 1,
      eligibleNodes: 30,
      localNodes: 1,
      localModeBackends: 1,
      extraBackends: 29,
      blowupFactor: 30,
    });
    expect(r.message).toBe(
      'default/web (NLB, Cluster mode) puts 30 nodes x 1 port = 30 server entries in its server groups where Local mode would put 1 (30x); ' +
        'the busiest node it adds only for Cluster mode is in 1 server group: 0.5 % of nlb_quota_server_added_num 200',
    );
  });

  it('is critical when the server group is at the critical ratio of nlb_quota_servergroup_noeci_servers_num', () => {
    const r = result(fixture({ nlb_quota_servergroup_noeci_servers_num: 31 }));
    expect(r).toMatchObject({ status: 'fail', severity: 'critical' });
    // 30 / 32 = 93.75 %: at the warning ratio, under the critical one.
    expect(result(fixture({ nlb_quota_servergroup_noeci_servers_num: 32 }))).toMatchObject({ status: 'fail', severity: 'warning' });
  });

  it('is critical when a node it adds only for Cluster mode is in server groups at the critical ratio of nlb_quota_server_added_num', () => {
    const f = fixture({ nlb_quota_server_added_num: 3 });
    // n2 is in three groups (this Service's and two others), n1 (it runs the pod) in more: n1 is not counted.
    f.region.nlbServerGroups!.push(otherGroup(1, [1, 2]), otherGroup(2, [1, 2]), otherGroup(3, [1]));
    const r = result(f);
    expect(r).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(r.figures).toMatchObject({ used: 3, limit: 3, ratio: 1 });
    expect(r.message).toContain('the busiest node it adds only for Cluster mode is in 3 server groups: 100 % of nlb_quota_server_added_num 3');
  });

  it('fails on the quota burn alone when the factor is under minFactor, and passes without it', () => {
    const settings = { clusterModeBlowup: { minFactor: 40 } };
    expect(result(fixture(), settings)).toMatchObject({ status: 'pass' });
    // 30 / 36 = 83 %: the server group is at the warning ratio.
    expect(result(fixture({ nlb_quota_servergroup_noeci_servers_num: 36 }), settings)).toMatchObject({ status: 'fail', severity: 'warning' });
    // 30 / 38 = 78.9 %: under it.
    expect(result(fixture({ nlb_quota_servergroup_noeci_servers_num: 38 }), settings)).toMatchObject({ status: 'pass' });
  });

  it('passes with no extra entry, whatever the quota burn (pods on every node)', () => {
    const every = Array.from({ length: 30 }, (_, i) => `n${i + 1}`);
    const r = result(fixture({ nlb_quota_servergroup_noeci_servers_num: 30 }, every));
    expect(r.status).toBe('pass');
    expect(r.figures).toMatchObject({ localNodes: 30, extraBackends: 0, blowupFactor: 1, used: 0 });
  });

  it('needs minExtraBackends extra entries, scaled down with the quotas', () => {
    expect(result(fixture(), { clusterModeBlowup: { minExtraBackends: 29 } }).status).toBe('fail');
    expect(result(fixture(), { clusterModeBlowup: { minExtraBackends: 30 } }).status).toBe('pass');
    // nlb_quota_server_added_num 100 of its default 200: the floor is ceil(30 x 0.5) = 15.
    expect(result(fixture({ nlb_quota_server_added_num: 100 }), { clusterModeBlowup: { minExtraBackends: 30 } }).status).toBe('fail');
    // nlb_quota_servergroup_noeci_servers_num 200 of 400: the same scale.
    expect(result(fixture({ nlb_quota_servergroup_noeci_servers_num: 200 }), { clusterModeBlowup: { minExtraBackends: 30 } }).status).toBe('fail');
    expect(result(fixture({ nlb_quota_servergroup_noeci_servers_num: 200 }), { clusterModeBlowup: { minExtraBackends: 60 } }).status).toBe('pass');
    // A floor of 0 counts any extra entry.
    expect(result(fixture(), { clusterModeBlowup: { minExtraBackends: 0, minFactor: 30 } }).status).toBe('fail');
  });

  it('rounds the factor to one decimal and counts only Local-mode nodes that would be servers', () => {
    const f = fixture({}, ['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'gone']);
    const r = result(f);
    // 30 / 7 = 4.2857.
    expect(r.figures).toMatchObject({ eligibleNodes: 30, localNodes: 7, localModeBackends: 7, extraBackends: 23, blowupFactor: 4.3 });
    expect(r.message).toContain('where Local mode would put 7 (4.3x)');
  });

  it('does not count a pod node Local mode would leave out (exclude label)', () => {
    const f = fixture({}, ['n1', 'n2']);
    f.kubernetes.nodes.find((n) => n.name === 'n2')!.labels['service.alibabacloud.com/exclude-node'] = 'true';
    expect(result(f).figures).toMatchObject({ eligibleNodes: 29, localNodes: 1, extraBackends: 28 });
  });

  it('multiplies by the NodePorts', () => {
    const f = fixture();
    f.kubernetes.services[0]!.ports.push({ name: 'https', protocol: 'TCP', port: 443, targetPort: 8443, nodePort: 30443 });
    const r = result(f);
    expect(r.figures).toMatchObject({ ports: 2, localModeBackends: 2, extraBackends: 58 });
    expect(r.message).toContain('puts 30 nodes x 2 ports = 60 server entries');
  });

  it('passes a Local-mode or ENI-mode NLB Service, naming the mode', () => {
    const local = fixture();
    local.kubernetes.services[0]!.externalTrafficPolicy = 'Local';
    expect(result(local)).toMatchObject({
      status: 'pass',
      message: 'default/web (NLB) uses Local mode: only pods or nodes with pods are servers',
      figures: { mode: 'local', kind: 'NLB' },
    });
    const eni = fixture();
    eni.kubernetes.services[0]!.annotations['service.beta.kubernetes.io/backend-type'] = 'eni';
    expect(result(eni)).toMatchObject({
      status: 'pass',
      message: 'default/web (NLB) uses ENI mode: only pods or nodes with pods are servers',
      figures: { mode: 'eni', kind: 'NLB' },
    });
  });

  it('is skipped when the region NLBs were not read', () => {
    const f = fixture();
    delete f.region.nlbs;
    delete f.region.nlbServerGroups;
    const r = result(f);
    expect(r.status).toBe('skipped');
    expect(r.reason ?? r.message).toContain('NLB instances and server groups of cn-hangzhou');
  });
});

/**
 * The CLB part (CCM pkg/controller/service/clbv1/vgroups.go `buildClusterBackends` / `buildLocalBackends`): built with
 * the test factories, the CLB Service `default/web` on nodes node-0..node-29 with ready pods where a test puts them.
 */
describe('CLUSTER_MODE_BLOWUP, CLB part', () => {
  /** A fleet of one cluster (CCM `ccmVersion`) running `svc` on `nodes` with pods on `podNodes`, and `region`'s objects. */
  function fleet(opts: { svc?: K8sService; nodes?: K8sNode[]; podNodes?: string[]; region?: Partial<RegionSnapshot>; ccmVersion?: string } = {}) {
    const svc = opts.svc ?? factory.service();
    const pods = (opts.podNodes ?? ['node-1']).map((n, i): [string, string] => [`172.20.0.${i + 1}`, n]);
    return factory.fleet([
      factory.region({
        ...opts.region,
        clusters: [
          factory.cluster({
            ...(opts.ccmVersion ? { ccmVersion: opts.ccmVersion } : {}),
            kubernetes: factory.kubernetes({ nodes: opts.nodes ?? factory.nodes(30), services: [svc], endpointSlices: [factory.endpointSlice(svc.name, pods)] }),
          }),
        ],
      }),
    ]);
  }

  /** The one result for `default/web`. */
  function clbResult(snapshot: FleetSnapshot, settings: PartialAuditSettings = {}): CheckResult {
    const r = runCheck(ID, snapshot, settings).filter((x) => x.resource.id === SERVICE);
    expect(r).toHaveLength(1);
    return r[0]!;
  }

  it('passes a Local-mode or ENI-mode Service, naming the mode', () => {
    expect(clbResult(fleet({ svc: factory.service({ externalTrafficPolicy: 'Local' }) }))).toMatchObject({
      status: 'pass',
      message: 'default/web uses Local mode: only pods or nodes with pods are attached',
      figures: { mode: 'local' },
    });
    expect(clbResult(fleet({ svc: factory.service({ annotations: { 'service.beta.kubernetes.io/backend-type': 'eni' } }) }))).toMatchObject({
      status: 'pass',
      message: 'default/web uses ENI mode: only pods or nodes with pods are attached',
      figures: { mode: 'eni' },
    });
  });

  it('passes a Service without NodePorts: nothing is attached', () => {
    const svc = factory.service({ ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 }] });
    expect(clbResult(fleet({ svc }))).toMatchObject({
      status: 'pass',
      message: 'default/web has no NodePorts: no ECS backends are attached',
      figures: { mode: 'cluster', ports: 0 },
    });
  });

  it("reads the weight annotations at the cluster's CCM version: default-weight fails the sync only from v2.14.0", () => {
    const svc = factory.service({ annotations: { [`${P}default-weight`]: 'abc' } });
    expect(clbResult(fleet({ svc })).status).toBe('fail');
    const r = clbResult(fleet({ svc, ccmVersion: 'v2.14.0' }));
    expect(r.status).toBe('skipped');
    expect(r.reason ?? r.message).toContain('default weight must be integer in range [0,100] , got [abc]');
  });

  it('counts as Local-mode nodes only pod nodes Local mode would attach', () => {
    const nodes = [
      ...factory.nodes(30),
      factory.node(90, { labels: { type: 'virtual-kubelet' } }),
      factory.node(91, { labels: { 'service.alibabacloud.com/exclude-node': 'true' } }),
    ];
    const r = clbResult(fleet({ nodes, podNodes: ['node-1', 'node-2', 'node-90', 'node-91', 'gone'] }));
    expect(r.figures).toMatchObject({ eligibleNodes: 30, localNodes: 2, localModeBackends: 2, extraBackends: 28, blowupFactor: 15 });
    expect(clbResult(fleet({ nodes: factory.nodes(30), podNodes: ['node-1', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6', 'node-7'] })).figures).toMatchObject({
      blowupFactor: 4.29,
    });
  });

  it('fails on the CLB quota alone at exactly the warning ratio, naming it; not without an extra entry', () => {
    const region = {
      loadBalancers: [factory.ccmClb({ vServerGroups: [factory.vServerGroup({ backendServers: factory.backends(160) })] })],
    };
    const r = clbResult(fleet({ region }), { clusterModeBlowup: { minFactor: 100 } });
    expect(r).toMatchObject({ status: 'fail', severity: 'warning', figures: { ratio: 0.8, extraBackends: 29, loadBalancerId: 'lb-1' } });
    expect(r.message).toBe(
      'default/web in Cluster mode attaches 30 backends (30 eligible nodes x 1 port) where Local mode would attach 1 (1 node with ready pods): ' +
        '29 extra, factor 30; CLB lb-1 at 80 % of the backend quota 200, busiest node at 0 % of the attachment quota 50; ' +
        'the extra entries count toward the CLB backend quota (80 %)',
    );
    const every = Array.from({ length: 30 }, (_, i) => `node-${i}`);
    expect(clbResult(fleet({ region, podNodes: every }), { clusterModeBlowup: { minFactor: 100 } })).toMatchObject({ status: 'pass', figures: { extraBackends: 0 } });
  });

  it('fails at exactly minFactor and exactly minExtraBackends extra entries (both inclusive), in Cluster mode', () => {
    // 30 nodes, pods on one: factor 30, 29 extra entries
    const r = clbResult(fleet(), { clusterModeBlowup: { minFactor: 30, minExtraBackends: 29 } });
    expect(r).toMatchObject({ status: 'fail', severity: 'warning', figures: { mode: 'cluster', blowupFactor: 30, extraBackends: 29, minExtraBackends: 29 } });
    // no quota at the warning ratio: the message names none
    expect(r.message).toBe(
      'default/web in Cluster mode attaches 30 backends (30 eligible nodes x 1 port) where Local mode would attach 1 (1 node with ready pods): ' +
        '29 extra, factor 30; 15 % of the backend quota 200, busiest node at 0 % of the attachment quota 50',
    );
    expect(clbResult(fleet(), { clusterModeBlowup: { minFactor: 30.5, minExtraBackends: 29 } }).status).toBe('pass');
    expect(clbResult(fleet(), { clusterModeBlowup: { minFactor: 30, minExtraBackends: 30 } }).status).toBe('pass');
    // minExtraBackends 0 sets no floor at all (not the floor of 1 a scaled-down one keeps)
    expect(clbResult(fleet(), { clusterModeBlowup: { minExtraBackends: 0 } }).figures).toMatchObject({ minExtraBackends: 0 });
  });

  it('scales the floor down with a lowered CLB backend quota: 40 of 200 backends -> 10 x 0.2 = 2', () => {
    const region = { quotas: [{ quotaActionCode: 'slb_quota_backendservers_num', totalQuota: 40 }] };
    const r = clbResult(fleet({ region, nodes: factory.nodes(4), podNodes: ['node-1'] }), { clusterModeBlowup: { minFactor: 100 } });
    expect(r.figures).toMatchObject({ limit: 40, minExtraBackends: 2, extraBackends: 3 });
  });

  it('is critical at exactly the critical ratio of the CLB backend quota, naming it', () => {
    const region = {
      loadBalancers: [factory.ccmClb({ vServerGroups: [factory.vServerGroup({ backendServers: factory.backends(190) })] })],
    };
    const r = clbResult(fleet({ region }));
    expect(r).toMatchObject({ status: 'fail', severity: 'critical', figures: { ratio: 0.95 } });
    expect(r.message).toMatch(/; the extra entries count toward the CLB backend quota \(95 %\)$/);
  });

  it('is skipped when a Cluster-mode node has a providerID CCM cannot parse (the sync fails before attaching)', () => {
    const nodes = [...factory.nodes(3), factory.node(9, { providerId: 'bogus', ecsInstanceId: undefined })];
    const r = clbResult(fleet({ nodes }));
    expect(r.status).toBe('skipped');
    expect(r.reason ?? r.message).toContain('normal parse providerid: bogus.');
  });

  it('without a CLB, the quota ratio is the backends it would attach', () => {
    const r = clbResult(fleet());
    expect(r.figures).toMatchObject({ used: 30, limit: 200, ratio: 0.15 });
    expect(r.figures).not.toHaveProperty('loadBalancerId');
    expect(r.message).toContain('factor 30; 15 % of the backend quota 200');
  });
});
