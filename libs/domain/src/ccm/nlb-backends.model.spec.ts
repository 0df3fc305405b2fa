/**
 * The servers CCM's NLB controller puts in a Service's server groups, pkg/controller/service/nlbv2/server_groups.go
 * (tag v2.14.0): `setServerGroupAttributeFromAnno` (server-group-type, default-weight), `setServerGroupServers`
 * (vgroup-port binding and `weight` on a reused NLB), `buildClusterBackends`, `buildLocalBackends`,
 * `buildENIBackends`, `setWeightBackends` / `podNumberAlgorithm` / `podPercentAlgorithm`, and listeners.go
 * `serverGroup` (the vgroup-port items).
 */
import { describe, expect, it } from 'vitest';
import { k8sNode, k8sService } from '../../test/k8s-objects.factory';
import type { K8sEndpointSlice, K8sNode, K8sService } from '../snapshot.types';
import { lbAnnotationKey } from './annotations.model';
import { eligibleBackendNodes } from './backends.model';
import {
  expectedNlbServerGroups,
  nlbDefaultWeight,
  nlbServerGroupType,
  nlbVGroupPortBinding,
  nlbVGroupWeight,
  nlbWeightSettings,
  uniformNlbClusterServerGroups,
  type ExpectedNlbInput,
} from './nlb-backends.model';
import type { TrafficPolicy } from './service.model';

const CLUSTER = 'c1';
const REUSED = { [lbAnnotationKey('id')]: 'nlb-reused' };

/** Node `name` on ECS instance `i-{name}` with InternalIP `ip`. */
function node(name: string, ip: string, over: Partial<K8sNode> = {}): K8sNode {
  return k8sNode(name, `i-${name}`, { internalIp: ip, ...over });
}

/** The Service `default/web` (NLB), TCP 80 -> 8080 on NodePort 30080, with these LB annotation suffixes. */
function svc(annotations: Record<string, string> = {}, over: Partial<K8sService> = {}): K8sService {
  const full: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations)) full[k.includes('/') ? k : lbAnnotationKey(k)] = v;
  return k8sService({ annotations: full, loadBalancerClass: 'alibabacloud.com/nlb', ...over });
}

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

/** The builder input for a Service over nodes and pods in one mode (no `backend-label`, cordoned nodes kept). */
function input(service: K8sService, policy: TrafficPolicy, nodes: K8sNode[], pods: { ip: string; node?: string }[] = [], ccmVersion?: string): ExpectedNlbInput {
  return {
    service,
    clusterId: CLUSTER,
    policy,
    eligible: eligibleBackendNodes(nodes, { backendLabel: [], removeUnscheduled: false }),
    endpointSlices: pods.length > 0 ? [slice(pods)] : [],
    ...(ccmVersion !== undefined ? { ccmVersion } : {}),
  };
}

/** The groups of a successful build (fails the test with CCM's error otherwise). */
function groupsOf(i: ExpectedNlbInput) {
  const r = expectedNlbServerGroups(i);
  if ('error' in r) throw new Error(r.error);
  return r.groups;
}

const NODES = [node('a', '10.0.0.1'), node('b', '10.0.0.2'), node('c', '10.0.0.3')];

describe('nlbServerGroupType (setServerGroupAttributeFromAnno: strings.EqualFold with Ip, then Instance)', () => {
  it.each<[string, string | undefined, ReturnType<typeof nlbServerGroupType>]>([
    ['no annotation: Instance', undefined, { type: 'Instance' }],
    ['empty: Instance', '', { type: 'Instance' }],
    ['explicit Instance', 'Instance', { type: 'Instance' }],
    ['instance, any case', 'INSTANCE', { type: 'Instance' }],
    ['Ip', 'Ip', { type: 'Ip' }],
    ['ip, any case', 'IP', { type: 'Ip' }],
    // CCM formats the error with sg.ServerGroupType, still unset at that point: hence the empty brackets.
    ['another value fails with an empty type', 'Eni', { error: 'unsupport server ServerGroupType []' }],
  ])('%s', (_what, value, expected) => {
    expect(nlbServerGroupType(svc(value === undefined ? {} : { 'server-group-type': value }))).toEqual(expected);
  });

  it('an explicit Instance builds Ecs servers on the NodePort, as the default does', () => {
    const explicit = groupsOf(input(svc({ 'server-group-type': 'Instance' }), 'cluster', NODES));
    const implicit = groupsOf(input(svc(), 'cluster', NODES));
    expect(explicit).toEqual(implicit);
    expect(explicit[0]).toMatchObject({ type: 'Instance', name: 'k8s.30080.TCP.web.default.c1' });
    expect(explicit[0]!.servers.map((s) => `${s.type}:${s.serverId}:${s.port}@${s.weight}`)).toEqual([
      'Ecs:i-a:30080@100',
      'Ecs:i-b:30080@100',
      'Ecs:i-c:30080@100',
    ]);
  });
});

describe('default-weight (setServerGroupAttributeFromAnno, CCM v2.14.0; server_groups_test.go TestSetServerGroupAttributeFromAnno_*)', () => {
  it.each<[string, string | undefined, ReturnType<typeof nlbDefaultWeight>]>([
    ['absent: DefaultServerWeight 100', undefined, { defaultWeight: 100 }],
    ['empty: 100', '', { defaultWeight: 100 }],
    ['exactly 100 (upper bound, inclusive)', '100', { defaultWeight: 100 }],
    ['exactly 0 (lower bound, inclusive)', '0', { defaultWeight: 0 }],
    ['50', '50', { defaultWeight: 50 }],
    ['a sign is accepted by strconv.Atoi', '+7', { defaultWeight: 7 }],
    ['101', '101', { error: 'default weight must be integer in range [0,100] , got [101]' }],
    ['200', '200', { error: 'default weight must be integer in range [0,100] , got [200]' }],
    ['-1', '-1', { error: 'default weight must be integer in range [0,100] , got [-1]' }],
    ['-5', '-5', { error: 'default weight must be integer in range [0,100] , got [-5]' }],
    ['abc', 'abc', { error: 'default weight parse error: [strconv.Atoi: parsing "abc": invalid syntax]' }],
    ['a trailing letter', '5x', { error: 'default weight parse error: [strconv.Atoi: parsing "5x": invalid syntax]' }],
    ['a leading letter', 'x5', { error: 'default weight parse error: [strconv.Atoi: parsing "x5": invalid syntax]' }],
  ])('%s', (_what, value, expected) => {
    expect(nlbDefaultWeight(svc(value === undefined ? {} : { 'default-weight': value }))).toEqual(expected);
  });

  it('is not read before CCM v2.14.0: every weight is 100 whatever the annotation says', () => {
    expect(nlbDefaultWeight(svc({ 'default-weight': 'abc' }), 'v2.13.0')).toEqual({ defaultWeight: 100 });
    expect(nlbDefaultWeight(svc({ 'default-weight': '20' }), 'v2.13.0')).toEqual({ defaultWeight: 100 });
    expect(nlbDefaultWeight(svc({ 'default-weight': '20' }), 'v2.14.0')).toEqual({ defaultWeight: 20 });
  });

  it('Cluster mode gives every server the default weight (podNumberAlgorithm), a weight of exactly 100 included', () => {
    expect(groupsOf(input(svc({ 'default-weight': '100' }), 'cluster', NODES))[0]!.servers.map((s) => s.weight)).toEqual([100, 100, 100]);
    expect(groupsOf(input(svc({ 'default-weight': '0' }), 'cluster', NODES))[0]!.servers.map((s) => s.weight)).toEqual([0, 0, 0]);
    expect(expectedNlbServerGroups(input(svc({ 'default-weight': '101' }), 'cluster', NODES))).toEqual({
      error: 'default weight must be integer in range [0,100] , got [101]',
    });
  });
});

describe('weight on a reused NLB with vgroup-port (setServerGroupServers)', () => {
  const reused = (extra: Record<string, string>) => svc({ ...REUSED, 'vgroup-port': 'sgp-1:80', ...extra });

  it.each<[string, K8sService, ReturnType<typeof nlbVGroupWeight>]>([
    ['not reused: not read', svc({ 'vgroup-port': 'sgp-1:80', weight: '50' }), undefined],
    ['reused without vgroup-port: not read', svc({ ...REUSED, weight: '50' }), undefined],
    ['reused with vgroup-port, no weight', reused({}), undefined],
    ['empty weight', reused({ weight: '' }), undefined],
    ['50', reused({ weight: '50' }), 50],
    ['exactly 100', reused({ weight: '100' }), 100],
    ['exactly 0', reused({ weight: '0' }), 0],
    ['101', reused({ weight: '101' }), { error: 'weight must be integer in range [0, 100], got [101]' }],
    ['-1', reused({ weight: '-1' }), { error: 'weight must be integer in range [0, 100], got [-1]' }],
    ['not a number', reused({ weight: 'x1' }), { error: 'weight must be integer in range [0, 100], got [x1]' }],
    ['a trailing letter', reused({ weight: '1x' }), { error: 'weight must be integer in range [0, 100], got [1x]' }],
  ])('%s', (_what, service, expected) => {
    expect(nlbVGroupWeight(service)).toEqual(expected);
  });

  it('nlbWeightSettings carries the weight beside the default weight, and the first error', () => {
    expect(nlbWeightSettings(reused({ weight: '40', 'default-weight': '60' }))).toEqual({ defaultWeight: 60, weight: 40 });
    expect(nlbWeightSettings(reused({ 'default-weight': '60' }))).toEqual({ defaultWeight: 60 });
    expect(nlbWeightSettings(reused({ weight: '400' }))).toEqual({ error: 'weight must be integer in range [0, 100], got [400]' });
    expect(nlbWeightSettings(reused({ weight: '400', 'default-weight': 'x' }))).toEqual({
      error: 'default weight parse error: [strconv.Atoi: parsing "x": invalid syntax]',
    });
  });

  it('spreads the weight over the servers with a floor of 1 (podPercentAlgorithm), 0 for 0', () => {
    const lookup = () => ({ name: 'my-group' });
    const build = (weight: string) =>
      groupsOf({ ...input(reused({ weight }), 'cluster', NODES), serverGroupById: lookup })[0]!.servers.map((s) => s.weight);
    expect(build('60')).toEqual([20, 20, 20]);
    expect(build('2')).toEqual([1, 1, 1]);
    expect(build('0')).toEqual([0, 0, 0]);
    expect(expectedNlbServerGroups(input(reused({ weight: '101' }), 'cluster', NODES))).toEqual({
      error: 'set ServerGroup for port 80 error: weight must be integer in range [0, 100], got [101]',
    });
  });
});

describe('vgroup-port binding (setServerGroupServers, listeners.go serverGroup)', () => {
  it.each<[string, K8sService, number, ReturnType<typeof nlbVGroupPortBinding>]>([
    ['not reused: CCM builds its own group', svc({ 'vgroup-port': 'sgp-1:80' }), 80, {}],
    ['reused without vgroup-port', svc(REUSED), 80, {}],
    ['the item naming the port', svc({ ...REUSED, 'vgroup-port': 'sgp-1:80,sgp-2:443' }), 443, { id: 'sgp-2' }],
    ['the first item naming the port', svc({ ...REUSED, 'vgroup-port': 'sgp-1:80,sgp-2:80' }), 80, { id: 'sgp-1' }],
    ['no item names the port', svc({ ...REUSED, 'vgroup-port': 'sgp-1:80' }), 8080, {}],
    ['items after the match are not read', svc({ ...REUSED, 'vgroup-port': 'sgp-1:80,bad' }), 80, { id: 'sgp-1' }],
    ['an empty id binds nothing', svc({ ...REUSED, 'vgroup-port': ':80' }), 80, {}],
    [
      'an item without a colon before the match fails',
      svc({ ...REUSED, 'vgroup-port': 'sgp-1,sgp-2:80' }),
      80,
      { error: "server group id parse error: server group id and protocol format must be like 'sg-xxx:443' with colon separated. got=[[sgp-1]]" },
    ],
  ])('%s', (_what, service, port, expected) => {
    expect(nlbVGroupPortBinding(service, port)).toEqual(expected);
  });

  it('with the region groups: a missing group or a CCM-named one fails the sync, a user group binds', () => {
    const service = svc({ ...REUSED, 'vgroup-port': 'sgp-1:80' });
    expect(nlbVGroupPortBinding(service, 80, () => undefined)).toEqual({ error: 'cannot find server group id sgp-1 for nlb nlb-reused' });
    expect(nlbVGroupPortBinding(service, 80, () => ({ name: 'k8s.30080.TCP.web.default.c1' }))).toEqual({
      error: 'cannot reuse a ccm created server group sgp-1 for nlb nlb-reused',
    });
    expect(nlbVGroupPortBinding(service, 80, () => ({ name: 'my-group' }))).toEqual({ id: 'sgp-1' });
  });

  it("the bound port's group carries the user group id; its errors fail the build with the port", () => {
    const service = svc({ ...REUSED, 'vgroup-port': 'sgp-1:80' });
    const groups = groupsOf({ ...input(service, 'cluster', NODES), serverGroupById: () => ({ name: 'mine' }) });
    expect(groups[0]).toMatchObject({ userGroupId: 'sgp-1', name: 'k8s.30080.TCP.web.default.c1' });
    expect(groupsOf(input(svc(), 'cluster', NODES))[0]).not.toHaveProperty('userGroupId');
    expect(expectedNlbServerGroups({ ...input(service, 'cluster', NODES), serverGroupById: () => undefined })).toEqual({
      error: 'set ServerGroup for port 80 error: cannot find server group id sgp-1 for nlb nlb-reused',
    });
  });
});

describe('expectedNlbServerGroups (buildClusterBackends, buildLocalBackends, buildENIBackends)', () => {
  it('Cluster mode, Ip group: each node by its InternalIP on the NodePort', () => {
    const [g] = groupsOf(input(svc({ 'server-group-type': 'Ip' }), 'cluster', NODES));
    expect(g!.type).toBe('Ip');
    expect(g!.servers).toEqual([
      { serverId: '10.0.0.1', serverIp: '10.0.0.1', type: 'Ip', port: 30080, weight: 100, nodeName: 'a' },
      { serverId: '10.0.0.2', serverIp: '10.0.0.2', type: 'Ip', port: 30080, weight: 100, nodeName: 'b' },
      { serverId: '10.0.0.3', serverIp: '10.0.0.3', type: 'Ip', port: 30080, weight: 100, nodeName: 'c' },
    ]);
  });

  it('Cluster mode fails on a node CCM cannot resolve: no InternalIP (Ip group), no ECS id (Instance group)', () => {
    const noIp = [node('a', '10.0.0.1'), k8sNode('b', 'i-b')];
    expect(expectedNlbServerGroups(input(svc({ 'server-group-type': 'Ip' }), 'cluster', noIp))).toEqual({
      error: 'set ServerGroup for port 80 error: build cluster backends error: get node address err: node b can not find InternalIP in node addresses',
    });
    const noEcs = [node('a', '10.0.0.1'), node('b', '10.0.0.2', { providerId: 'bogus', ecsInstanceId: undefined })];
    expect(expectedNlbServerGroups(input(svc(), 'cluster', noEcs))).toEqual({
      error:
        'set ServerGroup for port 80 error: build cluster backends error: normal parse providerid: bogus. expected: ${regionid}.${nodeid}, ' +
        'alicloud: unable to split instanceid and region from providerID, error unexpected providerID=bogus',
    });
  });

  it('Cluster mode skips excluded nodes and adds pods of virtual-kubelet nodes after the nodes', () => {
    const vk = k8sNode('vk', 'i-vk', { labels: { type: 'virtual-kubelet' } });
    const excluded = node('x', '10.0.0.9', { labels: { 'service.alibabacloud.com/exclude-node': 'true' } });
    const [g] = groupsOf(input(svc(), 'cluster', [node('a', '10.0.0.1'), excluded, vk], [{ ip: '172.16.0.5', node: 'vk' }, { ip: '172.16.0.6', node: 'a' }]));
    expect(g!.servers).toEqual([
      { serverId: 'i-a', type: 'Ecs', port: 30080, weight: 100, nodeName: 'a' },
      { serverId: '172.16.0.5', serverIp: '172.16.0.5', type: 'Eni', port: 8080, weight: 100, nodeName: 'vk' },
    ]);
  });

  it('Cluster and Local modes fail on a ready endpoint without nodeName, with the mode in the message', () => {
    for (const policy of ['cluster', 'local'] as const)
      expect(expectedNlbServerGroups(input(svc(), policy, NODES, [{ ip: '172.16.0.5' }]))).toEqual({
        error: `set ServerGroup for port 80 error: build ${policy} backends error: add ecs backends for service[default/web] error, NodeName is nil for ip 172.16.0.5 `,
      });
  });

  it('Local mode: the nodes running ready pods, one Ecs server each weighted by its pods; unknown nodes skipped', () => {
    const pods = [
      { ip: '172.16.0.1', node: 'a' },
      { ip: '172.16.0.2', node: 'a' },
      { ip: '172.16.0.3', node: 'b' },
      { ip: '172.16.0.4', node: 'gone' },
    ];
    const [g] = groupsOf(input(svc(), 'local', NODES, pods));
    expect(g!.servers).toEqual([
      { serverId: 'i-a', type: 'Ecs', port: 30080, weight: 2, nodeName: 'a' },
      { serverId: 'i-b', type: 'Ecs', port: 30080, weight: 1, nodeName: 'b' },
    ]);
  });

  it('Local mode, Ip group: the node IP once per pod (not deduplicated from v2.12.4), weight 1 each', () => {
    const pods = [
      { ip: '172.16.0.1', node: 'a' },
      { ip: '172.16.0.2', node: 'a' },
    ];
    const [g] = groupsOf(input(svc({ 'server-group-type': 'Ip' }), 'local', NODES, pods));
    expect(g!.servers.map((s) => `${s.type}:${s.serverId}:${s.port}@${s.weight}`)).toEqual(['Ip:10.0.0.1:30080@1', 'Ip:10.0.0.1:30080@1']);
  });

  it('Local mode fails on a pod node without ECS id, without the "normal " prefix of Cluster mode', () => {
    const bad = node('a', '10.0.0.1', { providerId: 'bogus', ecsInstanceId: undefined });
    const r = expectedNlbServerGroups(input(svc(), 'local', [bad], [{ ip: '172.16.0.1', node: 'a' }]));
    expect(r).toEqual({
      error:
        'set ServerGroup for port 80 error: build local backends error: parse providerid: bogus. expected: ${regionid}.${nodeid}, ' +
        'alicloud: unable to split instanceid and region from providerID, error unexpected providerID=bogus',
    });
  });

  it('Local mode leaves out a pod node with an exclude label', () => {
    const excluded = node('a', '10.0.0.1', { labels: { 'service.beta.kubernetes.io/exclude-node': '' } });
    expect(groupsOf(input(svc(), 'local', [excluded, node('b', '10.0.0.2')], [{ ip: '172.16.0.1', node: 'a' }]))[0]!.servers).toEqual([]);
  });

  it('ENI mode: every ready pod on the targetPort, the group named by the targetPort', () => {
    const [g] = groupsOf(input(svc(), 'eni', NODES, [{ ip: '172.16.0.1' }, { ip: '172.16.0.2', node: 'a' }]));
    expect(g!.name).toBe('k8s.8080.TCP.web.default.c1');
    expect(g!.servers).toEqual([
      { serverId: '172.16.0.1', serverIp: '172.16.0.1', type: 'Eni', port: 8080, weight: 100 },
      { serverId: '172.16.0.2', serverIp: '172.16.0.2', type: 'Eni', port: 8080, weight: 100 },
    ]);
    const [ip] = groupsOf(input(svc({ 'server-group-type': 'ip' }), 'eni', NODES, [{ ip: '172.16.0.1' }]));
    expect(ip!.servers).toEqual([{ serverId: '172.16.0.1', serverIp: '172.16.0.1', type: 'Ip', port: 8080, weight: 100 }]);
  });

  it('ENI mode with a listener port range: an any-port group named start_end, servers on port 0', () => {
    const [g] = groupsOf(input(svc({ 'listener-port-range': '8000-9000:80' }), 'eni', NODES, [{ ip: '172.16.0.1' }]));
    expect(g!.name).toBe('k8s.8000_9000.TCP.web.default.c1');
    expect(g!.servers.map((s) => s.port)).toEqual([0]);
  });

  it('a Service port without NodePort gives NodePort 0 in the name and the servers', () => {
    const service = svc({}, { ports: [{ protocol: 'TCP', port: 80, targetPort: 8080 }] });
    const [g] = groupsOf(input(service, 'cluster', [node('a', '10.0.0.1')]));
    expect(g!.name).toBe('k8s.0.TCP.web.default.c1');
    expect(g!.servers[0]!.port).toBe(0);
  });

  it('fails with the listener or server-group-type error before building any server', () => {
    expect(expectedNlbServerGroups(input(svc({ 'server-group-type': 'Eni' }), 'cluster', NODES))).toEqual({ error: 'unsupport server ServerGroupType []' });
    expect(expectedNlbServerGroups(input(svc({ 'listener-port-range': '8000-9000:80' }), 'cluster', NODES))).toEqual({
      error: 'build listener from servicePort 80 error: listener port range can only be used for eni backend type service',
    });
  });

  it('one group per Service port', () => {
    const service = svc({}, { ports: [{ protocol: 'TCP', port: 80, nodePort: 30080 }, { protocol: 'UDP', port: 53, nodePort: 30053 }] });
    expect(groupsOf(input(service, 'cluster', NODES)).map((g) => g.name)).toEqual(['k8s.30080.TCP.web.default.c1', 'k8s.30053.UDP.web.default.c1']);
  });
});

describe('uniformNlbClusterServerGroups (the Cluster-mode shape, checked against expectedNlbServerGroups)', () => {
  /** The uniform shape of an input, and what the full builder gives for it, as `Ecs:<id>:<port>@<weight>` per group. */
  function both(i: ExpectedNlbInput) {
    const u = uniformNlbClusterServerGroups(i);
    const full = expectedNlbServerGroups(i);
    return {
      uniform: u?.groups.map((g) => ({ name: g.name, servers: u.ids.map((id) => `Ecs:${id}:${g.port}@${g.weight}`) })),
      full: 'error' in full ? full : full.groups.map((g) => ({ name: g.name, servers: g.servers.map((s) => `${s.type}:${s.serverId}:${s.port}@${s.weight}`).sort() })),
    };
  }

  it('every eligible node, sorted by ECS id, on the NodePort with the default weight 100', () => {
    const nodes = [node('c', '10.0.0.3'), node('a', '10.0.0.1'), node('b', '10.0.0.2')];
    const { uniform, full } = both(input(svc(), 'cluster', nodes));
    expect(uniform).toEqual([{ name: 'k8s.30080.TCP.web.default.c1', servers: ['Ecs:i-a:30080@100', 'Ecs:i-b:30080@100', 'Ecs:i-c:30080@100'] }]);
    expect(uniform).toEqual(full);
  });

  it('explicit server-group-type Instance and default-weight 100 keep the shape', () => {
    const { uniform, full } = both(input(svc({ 'server-group-type': 'Instance', 'default-weight': '100' }), 'cluster', NODES));
    expect(uniform![0]!.servers).toEqual(['Ecs:i-a:30080@100', 'Ecs:i-b:30080@100', 'Ecs:i-c:30080@100']);
    expect(uniform).toEqual(full);
  });

  it.each([
    ['default-weight 30', { 'default-weight': '30' }, 30],
    ['default-weight 0', { 'default-weight': '0' }, 0],
  ])('%s', (_what, annotations, weight) => {
    const { uniform, full } = both(input(svc(annotations), 'cluster', NODES));
    expect(uniform![0]!.servers.every((s) => s.endsWith(`@${weight}`))).toBe(true);
    expect(uniform).toEqual(full);
  });

  it('one group per port, sharing the ids; excluded nodes are not servers', () => {
    const service = svc({}, { ports: [{ protocol: 'TCP', port: 80, nodePort: 30080 }, { protocol: 'TCP', port: 443, nodePort: 30443 }] });
    const nodes = [...NODES, node('x', '10.0.0.9', { labels: { 'service.alibabacloud.com/exclude-node': '' } })];
    const u = uniformNlbClusterServerGroups(input(service, 'cluster', nodes))!;
    expect(u.ids).toEqual(['i-a', 'i-b', 'i-c']);
    expect(u.groups).toEqual([
      { name: 'k8s.30080.TCP.web.default.c1', port: 30080, weight: 100 },
      { name: 'k8s.30443.TCP.web.default.c1', port: 30443, weight: 100 },
    ]);
    expect(both(input(service, 'cluster', nodes)).full).toEqual(both(input(service, 'cluster', nodes)).uniform);
  });

  it('a port without NodePort is on port 0', () => {
    const service = svc({}, { ports: [{ protocol: 'TCP', port: 80 }] });
    expect(uniformNlbClusterServerGroups(input(service, 'cluster', NODES))!.groups).toEqual([{ name: 'k8s.0.TCP.web.default.c1', port: 0, weight: 100 }]);
  });

  it('no eligible node: no ids, the default weight', () => {
    expect(uniformNlbClusterServerGroups(input(svc(), 'cluster', []))).toEqual({
      ids: [],
      groups: [{ name: 'k8s.30080.TCP.web.default.c1', port: 30080, weight: 100 }],
    });
  });

  it.each<[string, () => ExpectedNlbInput]>([
    ['Local mode', () => input(svc(), 'local', NODES)],
    ['ENI mode', () => input(svc(), 'eni', NODES)],
    ['an Ip server group', () => input(svc({ 'server-group-type': 'Ip' }), 'cluster', NODES)],
    ['an unsupported server-group-type', () => input(svc({ 'server-group-type': 'Eni' }), 'cluster', NODES)],
    ['a listener error', () => input(svc({ 'listener-port-range': '8000-9000:80' }), 'cluster', NODES)],
    ['a default-weight error', () => input(svc({ 'default-weight': '101' }), 'cluster', NODES)],
    ['a reused NLB with vgroup-port', () => input(svc({ ...REUSED, 'vgroup-port': 'sgp-1:80' }), 'cluster', NODES)],
    ['a virtual-kubelet candidate', () => input(svc(), 'cluster', [...NODES, k8sNode('vk', 'i-vk', { labels: { type: 'virtual-kubelet' } })])],
    ['a candidate without ECS id', () => input(svc(), 'cluster', [...NODES, node('d', '10.0.0.4', { providerId: 'bogus', ecsInstanceId: undefined })])],
    ['an ECS id twice', () => input(svc(), 'cluster', [...NODES, k8sNode('a2', 'i-a')])],
    ['a ready endpoint without node', () => input(svc(), 'cluster', NODES, [{ ip: '172.16.0.1' }])],
  ])('not certain with %s', (_what, make) => {
    expect(uniformNlbClusterServerGroups(make())).toBeUndefined();
  });

  it('a reused NLB without vgroup-port keeps the shape; the weight annotation then does not apply', () => {
    const i = input(svc({ ...REUSED, weight: '50' }), 'cluster', NODES);
    expect(uniformNlbClusterServerGroups(i)!.groups[0]!.weight).toBe(100);
    expect(both(i).uniform).toEqual(both(i).full);
  });

  it('a not-ready, terminating or address-less endpoint without node keeps the shape', () => {
    const endpoints = [
      { addresses: ['172.16.0.1'], ready: false, terminating: false },
      { addresses: ['172.16.0.2'], ready: true, terminating: true },
      { addresses: ['172.16.0.3'], ready: true, terminating: false, readyUnset: true as const },
      { addresses: [], ready: true, terminating: false },
    ];
    const i: ExpectedNlbInput = { ...input(svc(), 'cluster', NODES), endpointSlices: [{ ...slice([]), endpoints }] };
    expect(uniformNlbClusterServerGroups(i)?.ids).toEqual(['i-a', 'i-b', 'i-c']);
    expect(both(i).uniform).toEqual(both(i).full);
  });

  it('answers per CCM version for one node set (the exclude-from-external-load-balancers label arrived later)', () => {
    const nodes = [...NODES, node('x', '10.0.0.9', { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '' } })];
    const eligible = eligibleBackendNodes(nodes, { backendLabel: [], removeUnscheduled: false });
    const base = { service: svc(), clusterId: CLUSTER, policy: 'cluster' as const, eligible, endpointSlices: [] };
    expect(uniformNlbClusterServerGroups(base)!.ids).toEqual(['i-a', 'i-b', 'i-c']);
    expect(uniformNlbClusterServerGroups({ ...base, ccmVersion: 'v1.9.3.100-gabc-aliyun' })!.ids).toEqual(['i-a', 'i-b', 'i-c', 'i-x']);
    expect(uniformNlbClusterServerGroups(base)!.ids).toEqual(['i-a', 'i-b', 'i-c']);
  });
});
