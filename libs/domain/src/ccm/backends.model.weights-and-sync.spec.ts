/**
 * The CLB backend model's weights, sync errors and node rules, as CCM has them at tag v2.14.0:
 * pkg/controller/service/clbv1/vgroups.go `buildVGroupForServicePort` (weight / default-weight: "weight must be integer
 * in range [0,100] , got [x]"), `setWeightBackends`, `podNumberAlgorithm`, `podPercentAlgorithm` (Local: ECS weight =
 * W x pods on the node / backends, at least 1; non-ECS W / backends with no floor), `removeDuplicatedECS`,
 * `buildClusterBackends` / `buildLocalBackends` ("normal parse providerid", "NodeName is nil");
 * pkg/controller/service/reconcile/backend/backend.go `needExcludeFromLB`, pkg/controller/helper/node_utils.go
 * `IsNodeExcludeFromLoadBalancer` / `IsExcludedNode`; the version thresholds are `CCM_FEATURES`'.
 */
import { describe, expect, it } from 'vitest';
import { k8sNode, k8sService } from '../../test/k8s-objects.factory';
import type { K8sEndpointSlice, K8sNode, K8sService } from '../snapshot.types';
import { lbAnnotationKey } from './annotations.model';
import {
  applyCcmWeights,
  backendSyncError,
  ccmWeightSettings,
  dedupeByServer,
  eligibleBackendNodes,
  expectedVServerGroups,
  ignoresWeightUpdate,
  localEniHandling,
  nodeSelectionKey,
  parseCcmWeight,
  readyEndpoints,
  schedulableBackendNode,
  uniformClusterVServerGroups,
  type ExpectedBackendsInput,
} from './backends.model';
import type { TrafficPolicy } from './service.model';

/** The Service `default/web` (TCP 80 -> 8080 on NodePort 30080) with these LB annotation suffixes. */
function svc(annotations: Record<string, string> = {}, over: Partial<K8sService> = {}): K8sService {
  const full: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations)) full[lbAnnotationKey(k)] = v;
  return k8sService({ annotations: full, ...over });
}

/** Node `name` on ECS instance `i-{name}`. */
const node = (name: string, over: Partial<K8sNode> = {}) => k8sNode(name, `i-${name}`, over);

/** One EndpointSlice of `web` with ready pods on targetPort 8080 (`node` absent: no nodeName). */
function slice(pods: { ip: string; node?: string }[]): K8sEndpointSlice {
  return {
    namespace: 'default',
    name: 'web-abc',
    serviceName: 'web',
    ports: [{ port: 8080, protocol: 'TCP' }],
    endpoints: pods.map((p) => ({ addresses: [p.ip], ready: true, terminating: false, ...(p.node !== undefined ? { nodeName: p.node } : {}) })),
  };
}

/** The builder input for a Service over nodes and pods in one mode. */
function input(service: K8sService, policy: TrafficPolicy, nodes: K8sNode[], pods: { ip: string; node?: string }[] = [], ccmVersion?: string): ExpectedBackendsInput {
  return {
    service,
    clusterId: 'c1',
    policy,
    eligible: eligibleBackendNodes(nodes, { backendLabel: [], removeUnscheduled: false }),
    endpointSlices: pods.length > 0 ? [slice(pods)] : [],
    ...(ccmVersion !== undefined ? { ccmVersion } : {}),
  };
}

const REUSED = { id: 'lb-reused', 'vgroup-port': 'rsp-1:80' };

describe('parseCcmWeight and ccmWeightSettings (strconv.Atoi, then 0..100)', () => {
  it.each<[string, number | undefined]>([
    ['0', 0],
    ['100', 100],
    ['+5', 5],
    ['101', undefined],
    ['-1', undefined],
    ['', undefined],
    [' 5', undefined],
    ['5.0', undefined],
    ['x5', undefined],
    ['5x', undefined],
  ])('%j -> %s', (text, weight) => {
    expect(parseCcmWeight(text)).toBe(weight);
  });

  it('reads weight only on a reused CLB with vgroup-port, with the CLB message', () => {
    expect(ccmWeightSettings(svc({ weight: '50' }))).toEqual({ defaultWeight: 100 });
    expect(ccmWeightSettings(svc({ id: 'lb-reused', weight: '50' }))).toEqual({ defaultWeight: 100 });
    expect(ccmWeightSettings(svc({ ...REUSED, weight: '50' }))).toEqual({ defaultWeight: 100, weight: 50 });
    expect(ccmWeightSettings(svc({ ...REUSED, weight: '' }))).toEqual({ defaultWeight: 100 });
    expect(ccmWeightSettings(svc({ ...REUSED, weight: 'abc' }))).toEqual({ error: 'weight must be integer in range [0,100] , got [abc]' });
  });

  it('reads default-weight from CCM v2.14.0, the parse and range errors alike', () => {
    expect(ccmWeightSettings(svc({ 'default-weight': '100' }))).toEqual({ defaultWeight: 100 });
    expect(ccmWeightSettings(svc({ 'default-weight': '0' }))).toEqual({ defaultWeight: 0 });
    expect(ccmWeightSettings(svc({ 'default-weight': '' }))).toEqual({ defaultWeight: 100 });
    expect(ccmWeightSettings(svc({ 'default-weight': '150' }))).toEqual({ error: 'default weight must be integer in range [0,100] , got [150]' });
    expect(ccmWeightSettings(svc({ 'default-weight': 'abc' }))).toEqual({ error: 'default weight must be integer in range [0,100] , got [abc]' });
    expect(ccmWeightSettings(svc({ 'default-weight': 'abc' }), 'v2.13.1')).toEqual({ defaultWeight: 100 });
    expect(ccmWeightSettings(svc({ 'default-weight': '30' }), 'v2.14.0')).toEqual({ defaultWeight: 30 });
  });
});

describe('applyCcmWeights (setWeightBackends)', () => {
  /** Backends `{serverId, type}` with weight 0, weighed, and their weights. */
  function weigh(
    policy: TrafficPolicy,
    backends: [string, string][],
    weight?: number,
    options: { defaultWeight?: number; localEni?: 'resolved' | 'deferred' | 'separate'; floor?: boolean } = {},
  ): number[] {
    const list = backends.map(([serverId, type]) => ({ serverId, type, weight: -1 }));
    applyCcmWeights(policy, list, weight, options.defaultWeight, options.localEni, options.floor);
    return list.map((b) => b.weight);
  }

  it('Cluster and ENI: the default weight (100 unless default-weight), or W / backends at least 1', () => {
    expect(weigh('cluster', [['i-1', 'ecs'], ['i-2', 'ecs']])).toEqual([100, 100]);
    expect(weigh('eni', [['10.0.0.1', 'eni']], undefined, { defaultWeight: 7 })).toEqual([7]);
    expect(weigh('cluster', [['i-1', 'ecs'], ['i-2', 'ecs'], ['i-3', 'ecs']], 60)).toEqual([20, 20, 20]);
    expect(weigh('cluster', [['i-1', 'ecs'], ['i-2', 'ecs'], ['i-3', 'ecs']], 2)).toEqual([1, 1, 1]);
    expect(weigh('eni', [['10.0.0.1', 'eni'], ['10.0.0.2', 'eni']], 0)).toEqual([0, 0]);
  });

  it('Local: ECS weight = pods on the node; non-ECS 1 each (separate)', () => {
    expect(weigh('local', [['i-1', 'ecs'], ['i-1', 'ecs'], ['i-2', 'ecs'], ['10.0.0.9', 'eni']])).toEqual([2, 2, 1, 1]);
  });

  it('Local with W: ECS W x pods / backends at least 1; non-ECS W / backends, floored at 1 only for NLB', () => {
    const backends: [string, string][] = [['i-1', 'ecs'], ['i-1', 'ecs'], ['i-2', 'ecs'], ['10.0.0.9', 'eni']];
    // 60 x 2 / 4 = 30, 60 x 1 / 4 = 15, 60 / 4 = 15.
    expect(weigh('local', backends, 60)).toEqual([30, 30, 15, 15]);
    // 2 x 1 / 4 = 0 -> 1 for ECS; 2 / 4 = 0 for ENI on a CLB, 1 with the NLB floor.
    expect(weigh('local', backends, 2)).toEqual([1, 1, 1, 0]);
    expect(weigh('local', backends, 2, { floor: true })).toEqual([1, 1, 1, 1]);
    expect(weigh('local', backends, 0)).toEqual([0, 0, 0, 0]);
  });

  it('Local, deferred ENI ids (v2.11.2 to v2.12.4): every ENI backend counts under one empty id', () => {
    const backends: [string, string][] = [['i-1', 'ecs'], ['10.0.0.8', 'eni'], ['10.0.0.9', 'eni']];
    expect(weigh('local', backends, undefined, { localEni: 'deferred' })).toEqual([1, 2, 2]);
    // 90 x 2 / 3 = 60 for each ENI backend.
    expect(weigh('local', backends, 90, { localEni: 'deferred' })).toEqual([30, 60, 60]);
    expect(weigh('local', backends, undefined, { localEni: 'resolved' })).toEqual([1, 1, 1]);
  });

  it('leaves an empty list alone', () => {
    expect(weigh('local', [], 50)).toEqual([]);
  });
});

describe('dedupeByServer (removeDuplicatedECS) and localEniHandling', () => {
  const list = [
    { serverId: 'i-1', type: 'ecs' },
    { serverId: 'i-1', type: 'ecs' },
    { serverId: '10.0.0.8', type: 'eni' },
    { serverId: '10.0.0.8', type: 'eni' },
    { serverId: '10.0.0.9', type: 'eni' },
  ];

  it('keeps the first backend of each server id; from v2.12.4 only ECS ones are deduplicated', () => {
    expect(dedupeByServer(list, 'separate').map((b) => b.serverId)).toEqual(['i-1', '10.0.0.8', '10.0.0.8', '10.0.0.9']);
    expect(dedupeByServer(list, 'resolved').map((b) => b.serverId)).toEqual(['i-1', '10.0.0.8', '10.0.0.9']);
    expect(dedupeByServer(list, 'deferred').map((b) => b.serverId)).toEqual(['i-1', '10.0.0.8']);
  });

  it.each<[string | undefined, string]>([
    [undefined, 'separate'],
    ['v2.12.4', 'separate'],
    ['v2.12.3', 'deferred'],
    ['v2.11.2', 'deferred'],
    ['v2.11.1', 'resolved'],
  ])('CCM %s: %s', (version, handling) => {
    expect(localEniHandling(version)).toBe(handling);
  });
});

describe('ignoresWeightUpdate, nodeSelectionKey, schedulableBackendNode', () => {
  it('ignore-weight-update "on" in any case, from CCM v2.11.1', () => {
    expect(ignoresWeightUpdate(svc({ 'ignore-weight-update': 'on' }), undefined)).toBe(true);
    expect(ignoresWeightUpdate(svc({ 'ignore-weight-update': 'ON' }), 'v2.11.1')).toBe(true);
    expect(ignoresWeightUpdate(svc({ 'ignore-weight-update': 'on' }), 'v2.10.0')).toBe(false);
    expect(ignoresWeightUpdate(svc({ 'ignore-weight-update': 'off' }), undefined)).toBe(false);
    expect(ignoresWeightUpdate(svc(), undefined)).toBe(false);
  });

  it('a cache key that tells every option apart', () => {
    expect(nodeSelectionKey({ backendLabel: [], removeUnscheduled: false })).toBe('-||');
    expect(
      nodeSelectionKey({
        backendLabel: [
          ['app', 'web'],
          ['tier', 'a'],
        ],
        removeUnscheduled: true,
        ccmVersion: 'v2.12.4',
      }),
    ).toBe('u|v2.12.4|app=web,tier=a');
  });

  it('a new pod makes a node an ECS backend only if it is schedulable and CCM attaches it', () => {
    expect(schedulableBackendNode(node('a'))).toBe(true);
    expect(schedulableBackendNode(node('a', { unschedulable: true }))).toBe(false);
    expect(schedulableBackendNode(node('a', { labels: { 'node-role.kubernetes.io/master': '' } }))).toBe(false);
    expect(schedulableBackendNode(node('a', { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '' } }))).toBe(false);
    // That label is read from CCM v2.6.0.
    expect(schedulableBackendNode(node('a', { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '' } }), 'v2.5.0')).toBe(true);
    expect(schedulableBackendNode(node('a', { ecsInstanceId: undefined, providerId: 'bogus' }))).toBe(false);
  });
});

describe('node rules by CCM version (needExcludeFromLB, IsNodeExcludeFromLoadBalancer)', () => {
  const options = (ccmVersion?: string) => ({ backendLabel: [], removeUnscheduled: false, ...(ccmVersion ? { ccmVersion } : {}) });

  it('the ToBeDeletedByClusterAutoscaler taint drops a node from CCM v2.4.0', () => {
    const tainted = node('a', { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }] });
    expect(eligibleBackendNodes([tainted], options()).excluded).toEqual({ 'to-be-deleted': 1 });
    expect(eligibleBackendNodes([tainted], options('v2.3.0')).nodes).toEqual([tainted]);
    expect(eligibleBackendNodes([node('b', { taints: [{ key: 'other', effect: 'NoSchedule' }] })], options()).nodes).toHaveLength(1);
  });

  it('a hybrid node (ack-hybrid:// providerID) is dropped from CCM v2.12.1', () => {
    const hybrid = node('a', { providerId: 'ack-hybrid://idc-1' });
    expect(eligibleBackendNodes([hybrid], options()).excluded).toEqual({ hybrid: 1 });
    expect(eligibleBackendNodes([hybrid], options('v2.12.0')).nodes).toEqual([hybrid]);
  });

  it('a node without ECS id is listed as unparsable; a node with two backend-label keys needs both', () => {
    const bad = node('a', { ecsInstanceId: undefined, providerId: 'bogus' });
    const e = eligibleBackendNodes([bad, node('b')], options());
    expect(e.excluded).toEqual({ 'no-ecs-id': 1 });
    expect(e.unparsableProviderIds).toEqual([bad]);
    expect([...e.candidatesByName.keys()]).toEqual(['a', 'b']);
    const two = { backendLabel: [['app', 'web'] as const, ['tier', 'a'] as const], removeUnscheduled: false };
    expect(eligibleBackendNodes([node('c', { labels: { app: 'web' } })], two).excluded).toEqual({ 'backend-label': 1 });
    expect(eligibleBackendNodes([node('c', { labels: { app: 'web', tier: 'a' } })], two).nodes).toHaveLength(1);
  });

  it('a not-ready virtual-kubelet node stays a candidate (its pods join), not an ECS backend', () => {
    const vk = node('vk', { labels: { type: 'virtual-kubelet' }, ready: false });
    const e = eligibleBackendNodes([vk], options());
    expect(e.excluded).toEqual({ 'virtual-kubelet': 1 });
    expect(e.candidatesByName.get('vk')).toBe(vk);
  });
});

describe('backendSyncError (what fails the sync before any backend is built)', () => {
  it('an invalid weight annotation', () => {
    expect(backendSyncError(input(svc({ 'default-weight': '101' }), 'cluster', [node('a')]))).toBe(
      'default weight must be integer in range [0,100] , got [101]',
    );
  });

  it('Cluster mode: a candidate node whose providerID does not parse ("normal parse providerid")', () => {
    const bad = node('b', { ecsInstanceId: undefined, providerId: 'bogus' });
    expect(backendSyncError(input(svc(), 'cluster', [node('a'), bad]))).toBe(
      'normal parse providerid: bogus. expected: ${regionid}.${nodeid}, alicloud: unable to split instanceid and region from providerID, error unexpected providerID=bogus',
    );
    // Local mode fails only where its pods run (expectedVServerGroups).
    expect(backendSyncError(input(svc(), 'local', [node('a'), bad]))).toBeUndefined();
    expect(backendSyncError(input(svc({}, { ports: [] }), 'cluster', [node('a'), bad]))).toBeUndefined();
  });

  it('Cluster and Local modes: a ready endpoint without nodeName; ENI mode does not need it', () => {
    const pods = [{ ip: '172.16.0.1', node: 'a' }, { ip: '172.16.0.2' }];
    for (const policy of ['cluster', 'local'] as const)
      expect(backendSyncError(input(svc(), policy, [node('a')], pods))).toBe(
        'add ecs backends for service[default/web] error, NodeName is nil for ip 172.16.0.2',
      );
    expect(backendSyncError(input(svc(), 'eni', [node('a')], pods))).toBeUndefined();
    expect(backendSyncError(input(svc({}, { ports: [] }), 'local', [node('a')], pods))).toBeUndefined();
    expect(backendSyncError(input(svc(), 'local', [node('a')], [{ ip: '172.16.0.1', node: 'a' }]))).toBeUndefined();
  });
});

describe('expectedVServerGroups errors and Local-mode exclusions', () => {
  it('fails on a Local-mode pod node without ECS id, without the "normal " prefix', () => {
    const bad = node('a', { ecsInstanceId: undefined, providerId: 'bogus' });
    expect(expectedVServerGroups(input(svc(), 'local', [bad], [{ ip: '172.16.0.1', node: 'a' }]))).toEqual({
      error: 'parse providerid: bogus. expected: ${regionid}.${nodeid}, alicloud: unable to split instanceid and region from providerID, error unexpected providerID=bogus',
    });
  });

  it('fails with the weight error, and on an unparsable candidate in Cluster mode', () => {
    expect(expectedVServerGroups(input(svc({ 'default-weight': 'x' }), 'cluster', [node('a')]))).toEqual({
      error: 'default weight must be integer in range [0,100] , got [x]',
    });
    const bad = node('b', { ecsInstanceId: undefined, providerId: 'bogus' });
    expect(expectedVServerGroups(input(svc(), 'cluster', [node('a'), bad]))).toHaveProperty('error');
  });

  it('Local mode leaves out a pod node with an exclude label, and weighs by pods', () => {
    const excluded = node('x', { labels: { 'service.beta.kubernetes.io/exclude-node': '' } });
    const r = expectedVServerGroups(input(svc(), 'local', [excluded, node('a')], [{ ip: '172.16.0.1', node: 'x' }, { ip: '172.16.0.2', node: 'a' }, { ip: '172.16.0.3', node: 'a' }]));
    expect(r).toEqual({
      groups: [
        {
          name: 'k8s/30080/web/default/c1',
          servicePort: svc().ports[0],
          backends: [{ serverId: 'i-a', type: 'ecs', port: 30080, weight: 2, nodeName: 'a' }],
        },
      ],
    });
  });

  it('weight on a reused CLB with vgroup-port is spread over the Cluster-mode backends', () => {
    const r = expectedVServerGroups(input(svc({ ...REUSED, weight: '50' }), 'cluster', [node('a'), node('b')]));
    expect('groups' in r && r.groups[0]!.backends.map((b) => b.weight)).toEqual([25, 25]);
  });
});

describe('uniformClusterVServerGroups (the Cluster-mode shape of expectedVServerGroups)', () => {
  /** The uniform shape and the full build, each as `<id>:<port>@<weight>` per group. */
  function both(i: ExpectedBackendsInput) {
    const u = uniformClusterVServerGroups(i);
    const full = expectedVServerGroups(i);
    return {
      uniform: u?.map((g) => ({ name: g.name, backends: i.eligible.nodes.map((n) => `${n.ecsInstanceId}:${g.port}@${g.weight}`) })),
      full: 'error' in full ? full : full.groups.map((g) => ({ name: g.name, backends: g.backends.map((b) => `${b.serverId}:${b.port}@${b.weight}`) })),
    };
  }

  it.each<[string, Record<string, string>, string]>([
    ['the default weight', {}, '@100'],
    ['default-weight 100', { 'default-weight': '100' }, '@100'],
    ['default-weight 0', { 'default-weight': '0' }, '@0'],
    ['weight 50 over 2 nodes', { ...REUSED, weight: '50' }, '@25'],
    ['weight 1 over 2 nodes (floor 1)', { ...REUSED, weight: '1' }, '@1'],
    ['weight 0', { ...REUSED, weight: '0' }, '@0'],
  ])('%s: every eligible node on the NodePort, as the full build', (_what, annotations, suffix) => {
    const { uniform, full } = both(input(svc(annotations), 'cluster', [node('a'), node('b')]));
    expect(uniform).toEqual(full);
    expect(uniform![0]!.backends.every((b) => b.endsWith(suffix))).toBe(true);
  });

  it('one group per port; a port without NodePort is on port 0; no node still has the default weight', () => {
    const service = svc({}, { ports: [{ protocol: 'TCP', port: 80, nodePort: 30080 }, { protocol: 'TCP', port: 443 }] });
    const groups = uniformClusterVServerGroups(input(service, 'cluster', []))!;
    expect(groups.map((g) => [g.name, g.port, g.weight, g.servicePort.port])).toEqual([
      ['k8s/30080/web/default/c1', 30080, 100, 80],
      ['k8s/0/web/default/c1', 0, 100, 443],
    ]);
    expect(uniformClusterVServerGroups(input(svc({ ...REUSED, weight: '50' }), 'cluster', []))![0]!.weight).toBe(50);
  });

  it.each<[string, () => ExpectedBackendsInput]>([
    ['Local mode', () => input(svc(), 'local', [node('a')])],
    ['ENI mode', () => input(svc(), 'eni', [node('a')])],
    ['a node whose providerID does not parse', () => input(svc(), 'cluster', [node('a'), node('b', { ecsInstanceId: undefined, providerId: 'bogus' })])],
    ['a weight error', () => input(svc({ 'default-weight': '101' }), 'cluster', [node('a')])],
    ['a virtual-kubelet candidate', () => input(svc(), 'cluster', [node('a'), node('vk', { labels: { type: 'virtual-kubelet' } })])],
    ['a ready endpoint without node', () => input(svc(), 'cluster', [node('a')], [{ ip: '172.16.0.1' }])],
  ])('not certain with %s', (_what, make) => {
    expect(uniformClusterVServerGroups(make())).toBeUndefined();
  });

  it('endpoints without node that CCM does not read keep the shape', () => {
    const i = input(svc(), 'cluster', [node('a')]);
    const endpoints = [
      { addresses: ['172.16.0.1'], ready: false, terminating: false },
      { addresses: ['172.16.0.2'], ready: true, terminating: true },
      { addresses: ['172.16.0.3'], ready: true, terminating: false, readyUnset: true as const },
      { addresses: [], ready: true, terminating: false },
    ];
    expect(uniformClusterVServerGroups({ ...i, endpointSlices: [{ ...slice([]), endpoints }] })).toHaveLength(1);
  });
});

describe('readyEndpoints (setBackendsFromEndpointSlices)', () => {
  it('drops terminating, not-ready and unset-ready endpoints, and lists an IP once across slices', () => {
    const s: K8sEndpointSlice = {
      ...slice([]),
      endpoints: [
        { addresses: ['10.0.0.1'], ready: true, terminating: false, nodeName: 'a' },
        { addresses: ['10.0.0.2'], ready: false, terminating: false, nodeName: 'a' },
        { addresses: ['10.0.0.3'], ready: true, terminating: true, nodeName: 'a' },
        { addresses: ['10.0.0.4'], ready: true, terminating: false, readyUnset: true, nodeName: 'a' },
        { addresses: ['10.0.0.5'], ready: true, terminating: false },
      ],
    };
    expect(readyEndpoints([s, s])).toEqual([{ address: '10.0.0.1', nodeName: 'a' }, { address: '10.0.0.5' }]);
  });

  it('resolves the backend port: an int targetPort, the Service port without one, a named one by slice port name', () => {
    const s = slice([{ ip: '10.0.0.1', node: 'a' }]);
    expect(readyEndpoints([s], { protocol: 'TCP', port: 80, targetPort: 8080 })[0]!.port).toBe(8080);
    expect(readyEndpoints([s], { protocol: 'TCP', port: 80 })[0]!.port).toBe(80);
    const named: K8sEndpointSlice = { ...s, ports: [{ name: 'http', port: 9090, protocol: 'TCP' }] };
    expect(readyEndpoints([named], { name: 'http', protocol: 'TCP', port: 80, targetPort: 'web' })[0]!.port).toBe(9090);
    expect(readyEndpoints([named], { name: 'other', protocol: 'TCP', port: 80, targetPort: 'web' })).toEqual([]);
    // An unnamed Service port matches the slice port named "" (or unnamed).
    expect(readyEndpoints([s], { protocol: 'TCP', port: 80, targetPort: 'web' })[0]!.port).toBe(8080);
  });
});
