/**
 * Test data factories (STYLE.md G.37): each builds one snapshot object with sensible defaults and takes
 * partial overrides, e.g. `factory.cluster({ networkPlugin: 'terway' })`. No shared mutable stubs: every
 * call returns fresh objects.
 */
import type {
  AccountSnapshot,
  BackendServer,
  Clb,
  ClusterSnapshot,
  EcsInstance,
  FleetSnapshot,
  K8sEndpointSlice,
  K8sNode,
  K8sService,
  KubernetesSnapshot,
  RamPolicy,
  RamSnapshot,
  RegionSnapshot,
  VServerGroup,
} from '@app/domain';
import { k8sNode, k8sService } from '../../domain/test/k8s-objects.factory';

export const ACCOUNT_ID = '1234567890123456';
export const REGION_ID = 'cn-hangzhou';
export const CLUSTER_ID = 'c0123456789abcdef0123456789abcdef';
/** CCM fixture UID (annotations_test.go TestGetDefaultLoadBalancerName) and its default LB name. */
export const FIXTURE_UID = '5e4dbfc9-c2ae-4642-b033-5607860aef6a';
export const FIXTURE_DEFAULT_LB_NAME = 'a5e4dbfc9c2ae4642b0335607860aef6';
/** LB annotation prefix. */
export const P = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-';

let seq = 0;
/** A fresh UID-shaped string (deterministic per test file run). */
export function uid(): string {
  seq++;
  const hex = seq.toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${hex}`;
}

/** Node `node-{i}` on ECS instance `i-node{i, 4 digits}` of REGION_ID. */
function node(i: number, over: Partial<K8sNode> = {}): K8sNode {
  return k8sNode(`node-${i}`, `i-node${String(i).padStart(4, '0')}`, over);
}

/** The CLB Service `default/web` (FIXTURE_UID) with CCM's finalizer and one named port, http 80 -> 8080 on 30080. */
function service(over: Partial<K8sService> = {}): K8sService {
  return k8sService({
    finalizers: ['service.k8s.alibaba/resources'],
    ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }],
    ...over,
  });
}

/** An EndpointSlice of a Service with ready endpoints `[ip, nodeName]`. */
function endpointSlice(
  serviceName: string,
  endpoints: [string, string][],
  over: Partial<K8sEndpointSlice> = {},
): K8sEndpointSlice {
  return {
    namespace: 'default',
    name: `${serviceName}-x1`,
    serviceName,
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: endpoints.map(([ip, nodeName]) => ({
      addresses: [ip],
      ready: true,
      terminating: false,
      nodeName,
    })),
    ...over,
  };
}

function kubernetes(over: Partial<KubernetesSnapshot> = {}): KubernetesSnapshot {
  return { nodes: [], services: [], pods: [], endpointSlices: [], events: [], ...over };
}

function cluster(over: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  const ccmVersion = over.ccmVersion ?? 'v2.12.3';
  const networkPlugin = over.networkPlugin ?? 'flannel';
  return {
    clusterId: CLUSTER_ID,
    name: 'prod',
    accountId: ACCOUNT_ID,
    regionId: REGION_ID,
    clusterType: 'ManagedKubernetes',
    created: '2023-05-01T00:00:00Z',
    vpcId: 'vpc-main',
    addons: [
      { name: 'cloud-controller-manager', version: ccmVersion },
      { name: networkPlugin === 'terway' ? 'terway-eniip' : 'flannel', version: 'v1' },
    ],
    networkPlugin,
    ccmVersion,
    nodePortRange: { from: 30000, to: 32767, source: 'default' },
    ...over,
  };
}

function backend(serverId: string, over: Partial<BackendServer> = {}): BackendServer {
  return { serverId, port: 30080, weight: 100, type: 'ecs', ...over };
}

/** `n` backends `i-b0000..` on one port. */
function backends(n: number, prefix = 'i-b', port = 30080): BackendServer[] {
  return Array.from({ length: n }, (_, i) => backend(`${prefix}${String(i).padStart(4, '0')}`, { port }));
}

function vServerGroup(over: Partial<VServerGroup> = {}): VServerGroup {
  return {
    vServerGroupId: 'rsp-1',
    name: `k8s/30080/web/default/${CLUSTER_ID}`,
    backendServers: [],
    ...over,
  };
}

function clb(over: Partial<Clb> = {}): Clb {
  return {
    loadBalancerId: 'lb-1',
    name: 'lb-1',
    accountId: ACCOUNT_ID,
    regionId: REGION_ID,
    addressType: 'internet',
    vpcId: 'vpc-main',
    tags: {},
    listeners: [],
    defaultBackendServers: [],
    vServerGroups: [],
    ...over,
  };
}

/** A CLB carrying CCM's creation tags for a default LB name and cluster. */
function ccmClb(over: Partial<Clb> & { ownerName?: string; clusterId?: string } = {}): Clb {
  const { ownerName = FIXTURE_DEFAULT_LB_NAME, clusterId = CLUSTER_ID, ...rest } = over;
  return clb({ tags: { 'kubernetes.do.not.delete': ownerName, 'ack.aliyun.com': clusterId }, ...rest });
}

function ecs(i: number, over: Partial<EcsInstance> = {}): EcsInstance {
  return {
    instanceId: `i-node${String(i).padStart(4, '0')}`,
    regionId: REGION_ID,
    privateIps: [],
    tags: {},
    ...over,
  };
}

function region(over: Partial<RegionSnapshot> = {}): RegionSnapshot {
  return { accountId: ACCOUNT_ID, regionId: REGION_ID, clusters: [], ...over };
}

function account(over: Partial<AccountSnapshot> = {}): AccountSnapshot {
  return { accountId: ACCOUNT_ID, name: 'acme-prod', regions: [], ...over };
}

function snapshot(over: Partial<FleetSnapshot> = {}): FleetSnapshot {
  return { name: 'test', accounts: [], coverage: [], ...over };
}

/** A snapshot of one account with the given regions (default: one region). */
function fleet(
  regions: RegionSnapshot[],
  opts: { ram?: RamSnapshot; coverage?: FleetSnapshot['coverage'] } = {},
): FleetSnapshot {
  return snapshot({
    accounts: [account({ regions, ...(opts.ram ? { ram: opts.ram } : {}) })],
    coverage: opts.coverage ?? [],
  });
}

function ramPolicy(name: string, allow: string[], deny: string[] = []): RamPolicy {
  return {
    policyName: name,
    policyType: 'Custom',
    defaultVersion: 'v1',
    statements: [
      { effect: 'Allow', actions: allow, notActions: [], resources: ['*'] },
      ...(deny.length ? [{ effect: 'Deny' as const, actions: deny, notActions: [], resources: ['*'] }] : []),
    ],
  };
}

/** RAM data with one master role `KubernetesMasterRole-0a1b` holding the given policies. */
function ram(policies: RamPolicy[], roleName = 'KubernetesMasterRole-0a1b'): RamSnapshot {
  return {
    roles: [{ roleName }],
    policies,
    rolePolicies: {
      [roleName]: policies.map((p) => ({ policyName: p.policyName, policyType: p.policyType })),
    },
  };
}

export const factory = {
  node,
  nodes: (n: number, over: Partial<K8sNode> = {}) => Array.from({ length: n }, (_, i) => node(i, over)),
  service,
  endpointSlice,
  kubernetes,
  cluster,
  backend,
  backends,
  vServerGroup,
  clb,
  ccmClb,
  ecs,
  region,
  account,
  snapshot,
  fleet,
  ramPolicy,
  ram,
};

/** The frozen analysis clock used by every test (STYLE.md G.35). */
export const FROZEN_NOW = new Date('2026-01-15T08:00:00Z');

/** A small deterministic PRNG (mulberry32, public domain algorithm) for property tests: the same cases on every run. */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
