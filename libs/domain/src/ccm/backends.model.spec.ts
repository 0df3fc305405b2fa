import { describe, expect, it } from 'vitest';
import { k8sNode, k8sService } from '../../test/k8s-objects.factory';
import type { K8sEndpointSlice, K8sNode, K8sService } from '../snapshot.types';
import {
  applyCcmWeights,
  eligibleBackendNodes,
  expectedVServerGroups,
  nodeSelectionOptionsOf,
  parseBackendLabel,
  readyEndpointsByNode,
  type ExpectedBackend,
  type NodeSelectionOptions,
} from './backends.model';

/** Node `name` on ECS instance `i-{name}`. */
function node(name: string, over: Partial<K8sNode> = {}): K8sNode {
  return k8sNode(name, `i-${name}`, over);
}

/** The Service `default/nginx` (uid `u-1`) with one named port, http 80 -> 8080 on NodePort 30080. */
function svc(over: Partial<K8sService> = {}): K8sService {
  return k8sService({
    name: 'nginx',
    uid: 'u-1',
    ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }],
    ...over,
  });
}

function slice(
  endpoints: { ip: string; node?: string; ready?: boolean; terminating?: boolean }[],
): K8sEndpointSlice {
  return {
    namespace: 'default',
    name: 'nginx-abc',
    serviceName: 'nginx',
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      ready: e.ready ?? true,
      terminating: e.terminating ?? false,
      ...(e.node !== undefined ? { nodeName: e.node } : {}),
    })),
  };
}

const noOptions: NodeSelectionOptions = { backendLabel: [], removeUnscheduled: false };

describe('node eligibility (backend.go GetNodes/needExcludeFromLB, node_utils.go)', () => {
  it.each<[string, K8sNode, NodeSelectionOptions, string | undefined]>([
    ['a Ready worker', node('a'), noOptions, undefined],
    ['master label', node('a', { labels: { 'node-role.kubernetes.io/master': '' } }), noOptions, 'master'],
    // research 2.2: control-plane label is NOT checked by CCM.
    [
      'control-plane label only',
      node('a', { labels: { 'node-role.kubernetes.io/control-plane': '' } }),
      noOptions,
      undefined,
    ],
    [
      'ToBeDeletedByClusterAutoscaler taint',
      node('a', { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }] }),
      noOptions,
      'to-be-deleted',
    ],
    ['NotReady', node('a', { ready: false }), noOptions, 'not-ready'],
    ['no conditions', node('a', { ready: undefined }), noOptions, 'not-ready'],
    ['cordoned, default (seed 004: kept)', node('a', { unschedulable: true }), noOptions, undefined],
    [
      'cordoned with remove-unscheduled-backend on',
      node('a', { unschedulable: true }),
      { backendLabel: [], removeUnscheduled: true },
      'unschedulable',
    ],
    ...[
      'node.kubernetes.io/exclude-from-external-load-balancers',
      'alpha.service-controller.kubernetes.io/exclude-balancer',
      'service.beta.kubernetes.io/exclude-node',
      'service.alibabacloud.com/exclude-node',
    ].map((key): [string, K8sNode, NodeSelectionOptions, string] => [
      `label ${key}`,
      node('a', { labels: { [key]: 'x' } }),
      noOptions,
      'exclude-label',
    ]),
    ['hybrid node', node('a', { providerId: 'ack-hybrid://idc-1' }), noOptions, 'hybrid'],
    [
      'backend-label mismatch',
      node('a', { labels: { app: 'other' } }),
      { backendLabel: [['app', 'nginx']], removeUnscheduled: false },
      'backend-label',
    ],
    [
      'backend-label match',
      node('a', { labels: { app: 'nginx' } }),
      { backendLabel: [['app', 'nginx']], removeUnscheduled: false },
      undefined,
    ],
    [
      'virtual-kubelet node (pods join as ENI)',
      node('vk', { labels: { type: 'virtual-kubelet' }, ready: false }),
      noOptions,
      'virtual-kubelet',
    ],
  ])('%s', (_name, n, options, reason) => {
    const result = eligibleBackendNodes([n], options);
    if (reason === undefined) expect(result.nodes).toEqual([n]);
    else expect(result.excluded).toEqual({ [reason]: 1 });
  });

  it('parses backend-label like filterOutByLabel, rejecting elements without "="', () => {
    expect(parseBackendLabel('app=nginx,tier=web')).toEqual({
      selector: [
        ['app', 'nginx'],
        ['tier', 'web'],
      ],
    });
    expect(parseBackendLabel('app')).toEqual({ error: 'parse backend label: app, [k1=v1,k2=v2]' });
    expect(
      nodeSelectionOptionsOf({
        annotations: {
          'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-backend-label': 'app=nginx',
          'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-remove-unscheduled-backend': 'on',
        },
      }),
    ).toEqual({ options: { backendLabel: [['app', 'nginx']], removeUnscheduled: true } });
  });

  it('cordoned nodes: kept by default since v1.9.3.164-g2105d2e-aliyun, dropped by default before (research 2 step 4; seed 004)', () => {
    const plain = { annotations: {} };
    const on = { annotations: { 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-remove-unscheduled-backend': 'on' } };
    const removes = (svc: { annotations: Record<string, string> }, v?: string) => {
      const r = nodeSelectionOptionsOf(svc, v);
      return 'options' in r ? r.options.removeUnscheduled : undefined;
    };
    expect(removes(plain, 'v1.9.3.59-ge3bc999-aliyun')).toBe(true);
    expect(removes(plain, 'v1.9.3.164-g2105d2e-aliyun')).toBe(false);
    expect(removes(plain, 'v2.12.3')).toBe(false);
    // Unknown version: the current behaviour (keep), never a guess that drops nodes.
    expect(removes(plain, undefined)).toBe(false);
    expect(removes(on, 'v2.12.3')).toBe(true);
    // "off" or any other value is not "on".
    expect(removes({ annotations: { 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-remove-unscheduled-backend': 'true' } }, 'v2.12.3')).toBe(false);
  });
});

describe('weights (vgroups.go setWeightBackends; seeds 000/001 Local-mode weights)', () => {
  const b = (serverId: string): ExpectedBackend => ({ serverId, type: 'ecs', port: 30080, weight: 0 });

  it('Local mode: weight = pods on the node, 1:2:3 for 1, 2 and 3 pods (seed 000 "How are node weights automatically set in Local mode?")', () => {
    const backends = [b('i-1'), b('i-2'), b('i-2'), b('i-3'), b('i-3'), b('i-3')];
    applyCcmWeights('local', backends, undefined);
    expect(backends.map((x) => x.weight)).toEqual([1, 2, 2, 3, 3, 3]);
  });

  it('Local mode pod-count weights (2,2,1) from vgroups_test.go podNumberAlgorithm', () => {
    const backends = [b('i-1'), b('i-1'), b('i-2'), b('i-2'), b('i-3')];
    applyCcmWeights('local', backends, undefined);
    expect([...new Map(backends.map((x) => [x.serverId, x.weight])).values()]).toEqual([2, 2, 1]);
  });

  it('Cluster and ENI default to 100, or to default-weight', () => {
    const cluster = [b('i-1'), b('i-2')];
    applyCcmWeights('cluster', cluster, undefined);
    expect(cluster.map((x) => x.weight)).toEqual([100, 100]);
    const eni = [b('10.0.0.1')];
    applyCcmWeights('eni', eni, undefined, 40);
    expect(eni[0]?.weight).toBe(40);
  });

  it('weight 60 over 2 backends = 30 each; weight 0 = all 0 (podPercentAlgorithm)', () => {
    const two = [b('i-1'), b('i-2')];
    applyCcmWeights('cluster', two, 60);
    expect(two.map((x) => x.weight)).toEqual([30, 30]);
    const zero = [b('i-1'), b('i-2')];
    applyCcmWeights('local', zero, 0);
    expect(zero.map((x) => x.weight)).toEqual([0, 0]);
    const many = Array.from({ length: 150 }, (_, i) => b(`i-${i}`));
    applyCcmWeights('eni', many, 100);
    expect(many.every((x) => x.weight === 1)).toBe(true);
  });
});

describe('expectedVServerGroups', () => {
  const nodes = [
    node('a'),
    node('b'),
    node('c'),
    node('m', { labels: { 'node-role.kubernetes.io/master': '' } }),
  ];
  const eligible = eligibleBackendNodes(nodes, noOptions);
  const slices = [
    slice([
      { ip: '10.0.0.1', node: 'a' },
      { ip: '10.0.0.2', node: 'a' },
      { ip: '10.0.0.3', node: 'b' },
      { ip: '10.0.0.4', node: 'b', ready: false },
      { ip: '10.0.0.5', node: 'c', terminating: true },
      { ip: '10.0.0.1', node: 'a' }, // duplicate across slices is deduplicated
    ]),
  ];

  it('Cluster mode attaches every eligible node on the NodePort', () => {
    const out = expectedVServerGroups({
      service: svc(),
      clusterId: 'c1',
      policy: 'cluster',
      eligible,
      endpointSlices: slices,
    });
    expect('groups' in out && out.groups).toEqual([
      {
        name: 'k8s/30080/nginx/default/c1',
        servicePort: svc().ports[0],
        backends: ['a', 'b', 'c'].map((n) => ({
          serverId: `i-${n}`,
          type: 'ecs',
          port: 30080,
          weight: 100,
          nodeName: n,
        })),
      },
    ]);
  });

  it('Local mode attaches nodes with ready endpoints, weight = pods', () => {
    const out = expectedVServerGroups({
      service: svc({ externalTrafficPolicy: 'Local' }),
      clusterId: 'c1',
      policy: 'local',
      eligible,
      endpointSlices: slices,
    });
    expect('groups' in out && out.groups[0]?.backends).toEqual([
      { serverId: 'i-a', type: 'ecs', port: 30080, weight: 2, nodeName: 'a' },
      { serverId: 'i-b', type: 'ecs', port: 30080, weight: 1, nodeName: 'b' },
    ]);
  });

  it('ENI mode attaches pod IPs on the target port and names the group by targetPort', () => {
    const out = expectedVServerGroups({
      service: svc(),
      clusterId: 'c1',
      policy: 'eni',
      eligible,
      endpointSlices: slices,
    });
    expect('groups' in out && out.groups[0]).toMatchObject({
      name: 'k8s/8080/nginx/default/c1',
      backends: [
        { serverId: '10.0.0.1', type: 'eni', port: 8080, weight: 100 },
        { serverId: '10.0.0.2', type: 'eni', port: 8080, weight: 100 },
        { serverId: '10.0.0.3', type: 'eni', port: 8080, weight: 100 },
      ],
    });
  });

  it('ENI mode with a named targetPort resolves the port from the EndpointSlice (k8s/tcp/... name)', () => {
    const named = svc({
      ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 'tcp', nodePort: 30080 }],
    });
    const out = expectedVServerGroups({
      service: named,
      clusterId: 'clusterid',
      policy: 'eni',
      eligible,
      endpointSlices: slices,
    });
    expect('groups' in out && out.groups[0]?.name).toBe('k8s/tcp/nginx/default/clusterid');
    expect('groups' in out && out.groups[0]?.backends[0]?.port).toBe(8080);
  });

  // CCM clbv1/vgroups.go setBackendsFromEndpointSlices: a named targetPort is resolved from the slice port
  // with `*p.Name == ServicePort.Name`; the EndpointSlice controller writes name "" for an unnamed Service
  // port, so an unnamed Service port with a named targetPort resolves (the snapshot stores "" as absent).
  it.each(['eni', 'local'] as const)(
    '%s mode resolves a named targetPort of an unnamed Service port (vgroups.go: "" == "")',
    (policy) => {
      const unnamed = svc({ ports: [{ protocol: 'TCP', port: 80, targetPort: 'web', nodePort: 30080 }] });
      const unnamedSlice: K8sEndpointSlice = {
        ...slice([{ ip: '10.0.0.1', node: 'a' }]),
        ports: [{ port: 8080, protocol: 'TCP' }],
      };
      const out = expectedVServerGroups({
        service: unnamed,
        clusterId: 'c1',
        policy,
        eligible,
        endpointSlices: [unnamedSlice],
      });
      const backends = 'groups' in out ? (out.groups[0]?.backends ?? []) : [];
      expect(backends).toHaveLength(1);
      expect(backends[0]?.port).toBe(policy === 'eni' ? 8080 : 30080);
    },
  );

  it("a named targetPort still needs a slice port of the Service port's name (vgroups.go: skipped otherwise)", () => {
    const named = svc({
      ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 'web', nodePort: 30080 }],
    });
    const otherSlice: K8sEndpointSlice = {
      ...slice([{ ip: '10.0.0.1', node: 'a' }]),
      ports: [{ port: 8080, protocol: 'TCP' }],
    };
    const out = expectedVServerGroups({
      service: named,
      clusterId: 'c1',
      policy: 'eni',
      eligible,
      endpointSlices: [otherSlice],
    });
    expect('groups' in out && out.groups[0]?.backends).toEqual([]);
  });

  it('Local mode fails like CCM when an endpoint has no nodeName', () => {
    const out = expectedVServerGroups({
      service: svc(),
      clusterId: 'c1',
      policy: 'local',
      eligible,
      endpointSlices: [slice([{ ip: '10.0.0.9' }])],
    });
    expect(out).toEqual({ error: expect.stringContaining('NodeName is nil for ip 10.0.0.9') });
  });

  it('Cluster mode adds pods on virtual-kubelet nodes as ENI backends', () => {
    const vk = node('vk', { labels: { type: 'virtual-kubelet' }, ready: false });
    const withVk = eligibleBackendNodes([...nodes, vk], noOptions);
    const out = expectedVServerGroups({
      service: svc(),
      clusterId: 'c1',
      policy: 'cluster',
      eligible: withVk,
      endpointSlices: [slice([{ ip: '10.1.0.1', node: 'vk' }])],
    });
    const backends = 'groups' in out ? (out.groups[0]?.backends ?? []) : [];
    expect(backends.filter((x) => x.type === 'eni')).toEqual([
      { serverId: '10.1.0.1', serverIp: '10.1.0.1', type: 'eni', port: 8080, weight: 100, nodeName: 'vk' },
    ]);
    expect(backends.filter((x) => x.type === 'ecs')).toHaveLength(3);
  });

  it('counts ready endpoints per node', () => {
    expect(readyEndpointsByNode(slices)).toEqual(
      new Map([
        ['a', 2],
        ['b', 1],
      ]),
    );
  });
});

describe('three places where CCM differs from a naive reading', () => {
  const pm = (annotations: Record<string, string>, ccmVersion?: string) =>
    expectedVServerGroups({
      service: svc({ annotations }),
      clusterId: 'c1',
      policy: 'cluster',
      eligible: eligibleBackendNodes([node('a')], noOptions),
      endpointSlices: [],
      ...(ccmVersion ? { ccmVersion } : {}),
    });
  const DW = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-default-weight';

  // CCM vgroups_test.go TestBuildVGroupForServicePort_InvalidDefaultWeight_{NotInteger,TooLarge,Negative} (v2.14.0).
  it.each(['abc', '150', '-1', ' 50'])('an invalid default-weight %j fails the sync (no weight change)', (v) => {
    expect(pm({ [DW]: v })).toEqual({ error: `default weight must be integer in range [0,100] , got [${v}]` });
  });

  // research/ccm-behaviour.md 3a: default-weight first appears in tag v2.14.0.
  it('applies default-weight only from CCM v2.14.0', () => {
    const weightOf = (r: ReturnType<typeof pm>) => ('groups' in r ? r.groups[0]!.backends[0]!.weight : r.error);
    expect(weightOf(pm({ [DW]: '30' }, 'v2.14.0'))).toBe(30);
    expect(weightOf(pm({ [DW]: '30' }, 'v2.13.0'))).toBe(100);
    expect(weightOf(pm({ [DW]: 'abc' }, 'v2.13.0'))).toBe(100);
  });

  // CCM reconcile/backend/backend.go needExcludeFromLB: only no conditions or Ready != True drop a node.
  it('keeps a node whose conditions include none of type Ready; drops one with no conditions', () => {
    const kept = node('k', { readyConditionMissing: true });
    delete (kept as { ready?: boolean }).ready;
    const none = node('n');
    delete (none as { ready?: boolean }).ready;
    const e = eligibleBackendNodes([kept, none], noOptions);
    expect(e.nodes.map((n) => n.name)).toEqual(['k']);
    expect(e.excluded['not-ready']).toBe(1);
  });
});
