/**
 * Pins of the shared CCM backend logic (backends.model.ts) and the NLB builder on top of it (nlb-backends.model.ts)
 * where the other specs leave a behaviour open: the exact shape of what they return (no key set to `undefined`),
 * the CCM version passed down to the node rules in every mode, the weights of non-ECS servers, and CCM's texts.
 * Sources: CCM tag v2.14.0, pkg/controller/service/clbv1/vgroups.go and nlbv2/server_groups.go
 * (`buildClusterBackends`, `buildLocalBackends`, `buildENIBackends`, `podPercentAlgorithm`, `removeDuplicatedECS`),
 * pkg/controller/helper/node_utils.go (`IsNodeExcludeFromLoadBalancer`), listeners.go `serverGroup`; the version
 * thresholds are `CCM_FEATURES`'.
 */
import { describe, expect, it } from 'vitest';
import { k8sNode, k8sService } from '../../test/k8s-objects.factory';
import type { K8sEndpointSlice, K8sNode, K8sService } from '../snapshot.types';
import { lbAnnotationKey } from './annotations.model';
import {
  backendNodeExclusion,
  ccmWeightSettings,
  eligibleBackendNodes,
  expectedVServerGroups,
  nodeSelectionOptionsOf,
  parseBackendLabel,
  readyEndpoints,
  readyEndpointsByNode,
  uniformClusterVServerGroups,
  type ExpectedBackendsInput,
} from './backends.model';
import { expectedNlbServerGroups, nlbVGroupPortBinding, nlbWeightSettings, uniformNlbClusterServerGroups } from './nlb-backends.model';
import type { TrafficPolicy } from './service.model';

const EXCLUDE_LB = 'node.kubernetes.io/exclude-from-external-load-balancers';
/** Before `CCM_FEATURES.excludeFromExternalLbLabel` (v2.6.0) and `localEniBackendsMerged` (v2.11.2). */
const OLD_CCM = 'v2.5.0';
/** Between v2.11.2 and v2.12.4: ECI / ENI backends have one empty id when CCM deduplicates (`deferred`). */
const DEFERRED_CCM = 'v2.12.0';

/** The Service `default/web` (TCP 80 -> 8080 on NodePort 30080) with these LB annotation suffixes; `nlb`: an NLB Service. */
function svc(annotations: Record<string, string> = {}, nlb = false): K8sService {
  const full: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations)) full[lbAnnotationKey(k)] = v;
  return k8sService({ annotations: full, ...(nlb ? { loadBalancerClass: 'alibabacloud.com/nlb' } : {}) });
}

/** Node `name` on ECS instance `i-{name}`, InternalIP `ip`. */
const node = (name: string, ip: string, over: Partial<K8sNode> = {}) => k8sNode(name, `i-${name}`, { internalIp: ip, ...over });

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

function input(service: K8sService, policy: TrafficPolicy, nodes: K8sNode[], pods: { ip: string; node?: string }[] = [], ccmVersion?: string): ExpectedBackendsInput {
  return {
    service,
    clusterId: 'c1',
    policy,
    eligible: eligibleBackendNodes(nodes, { backendLabel: [], removeUnscheduled: false, ...(ccmVersion !== undefined ? { ccmVersion } : {}) }),
    endpointSlices: pods.length > 0 ? [slice(pods)] : [],
    ...(ccmVersion !== undefined ? { ccmVersion } : {}),
  };
}

describe('node selection (backend-label, exclusions)', () => {
  it('an empty backend-label selects every node; one without "=" fails the sync with CCM\'s text', () => {
    expect(parseBackendLabel('')).toStrictEqual({ selector: [] });
    expect(nodeSelectionOptionsOf(svc({ 'backend-label': 'pool' }))).toStrictEqual({ error: 'parse backend label: pool, [k1=v1,k2=v2]' });
  });

  it('the options carry the CCM version only when it is known', () => {
    expect(nodeSelectionOptionsOf(svc({ 'backend-label': 'pool=a' }), 'v2.14.0')).toStrictEqual({
      options: { backendLabel: [['pool', 'a']], removeUnscheduled: false, ccmVersion: 'v2.14.0' },
    });
    expect(nodeSelectionOptionsOf(svc())).toStrictEqual({ options: { backendLabel: [], removeUnscheduled: false } });
  });

  it('exclude-from-external-load-balancers excludes a node from CCM v2.6.0 on; a node without providerID is not hybrid', () => {
    const labelled = node('a', '10.0.0.1', { labels: { [EXCLUDE_LB]: '' } });
    expect(backendNodeExclusion(labelled)).toBe('exclude-label');
    expect(backendNodeExclusion(labelled, { ccmVersion: 'v2.6.0' })).toBe('exclude-label');
    expect(backendNodeExclusion(labelled, { ccmVersion: OLD_CCM })).toBeUndefined();
    // the older exclude label keys exclude on every version
    expect(backendNodeExclusion(node('e', '10.0.0.4', { labels: { 'service.beta.kubernetes.io/exclude-node': '' } }), { ccmVersion: OLD_CCM })).toBe('exclude-label');
    expect(backendNodeExclusion(node('b', '10.0.0.2', { providerId: undefined }))).toBeUndefined();
    expect(backendNodeExclusion(node('h', '10.0.0.3', { providerId: 'ack-hybrid://h' }))).toBe('hybrid');
  });

  it('only candidates are looked up by name: a master node is neither a backend nor a candidate', () => {
    const master = node('m', '10.0.0.9', { labels: { 'node-role.kubernetes.io/master': '' } });
    const e = eligibleBackendNodes([master, node('a', '10.0.0.1')], { backendLabel: [], removeUnscheduled: false });
    expect([...e.candidatesByName.keys()]).toEqual(['a']);
    expect(e.nodes.map((n) => n.name)).toEqual(['a']);
    expect(e.excluded).toEqual({ master: 1 });
  });
});

describe('ready endpoints', () => {
  it('carry nodeName and port only when known', () => {
    const s = slice([{ ip: '172.16.0.1' }, { ip: '172.16.0.2', node: 'a' }]);
    expect(readyEndpoints([s])).toStrictEqual([{ address: '172.16.0.1' }, { address: '172.16.0.2', nodeName: 'a' }]);
    expect(readyEndpoints([s], k8sService().ports[0])).toStrictEqual([
      { address: '172.16.0.1', port: 8080 },
      { address: '172.16.0.2', nodeName: 'a', port: 8080 },
    ]);
  });

  it('are counted per node, an endpoint without node in no entry', () => {
    const counts = readyEndpointsByNode([slice([{ ip: '172.16.0.1' }, { ip: '172.16.0.2', node: 'a' }, { ip: '172.16.0.3', node: 'a' }])]);
    expect([...counts]).toEqual([['a', 2]]);
  });
});

describe('CLB vServer groups (clbv1/vgroups.go)', () => {
  it('weights: a vgroup-port without weight on a reused CLB keeps the default weight', () => {
    expect(ccmWeightSettings(svc({ id: 'lb-reused', 'vgroup-port': 'rsp-1:80' }))).toStrictEqual({ defaultWeight: 100 });
  });

  it('Cluster mode: a node without providerID fails the sync with an empty id in the text', () => {
    const bare = k8sNode('a', '', { providerId: undefined, ecsInstanceId: undefined });
    expect(expectedVServerGroups(input(svc(), 'cluster', [bare]))).toEqual({
      error:
        'normal parse providerid: . expected: ${regionid}.${nodeid}, alicloud: unable to split instanceid and region from providerID, ' +
        'error unexpected providerID=',
    });
  });

  it('a ready endpoint without nodeName fails the sync with CCM\'s text and nothing after it', () => {
    expect(expectedVServerGroups(input(svc(), 'local', [node('a', '10.0.0.1')], [{ ip: '172.16.0.5' }]))).toStrictEqual({
      error: 'add ecs backends for service[default/web] error, NodeName is nil for ip 172.16.0.5',
    });
  });

  it('ENI mode: one backend per pod, none merged, even where Local mode would merge ENI backends (v2.11.2 up to v2.12.4)', () => {
    const pods = [{ ip: '172.16.0.1' }, { ip: '172.16.0.2', node: 'a' }];
    const r = expectedVServerGroups(input(svc(), 'eni', [node('a', '10.0.0.1')], pods, DEFERRED_CCM));
    expect(r).toStrictEqual({
      groups: [
        {
          name: 'k8s/8080/web/default/c1',
          servicePort: k8sService().ports[0],
          backends: [
            { serverId: '172.16.0.1', serverIp: '172.16.0.1', type: 'eni', port: 8080, weight: 100 },
            { serverId: '172.16.0.2', serverIp: '172.16.0.2', type: 'eni', port: 8080, weight: 100 },
          ],
        },
      ],
    });
  });

  it('Local mode asks the node rules at the cluster\'s CCM version: before v2.6.0 exclude-from-external-load-balancers does not exclude', () => {
    const labelled = node('a', '10.0.0.1', { labels: { [EXCLUDE_LB]: '' } });
    const pods = [{ ip: '172.16.0.1', node: 'a' }];
    const servers = (v?: string) => {
      const r = expectedVServerGroups(input(svc(), 'local', [labelled], pods, v));
      return 'error' in r ? r.error : r.groups[0]!.backends.map((b) => b.serverId);
    };
    expect(servers(OLD_CCM)).toEqual(['i-a']);
    expect(servers()).toEqual([]);
  });

  it('the uniform Cluster-mode shape holds with ready endpoints that name their node', () => {
    const r = uniformClusterVServerGroups(input(svc(), 'cluster', [node('a', '10.0.0.1'), node('b', '10.0.0.2')], [{ ip: '172.16.0.1', node: 'a' }]));
    expect(r).toEqual([{ name: 'k8s/30080/web/default/c1', servicePort: k8sService().ports[0], port: 30080, weight: 100 }]);
  });
});

describe('NLB server groups (nlbv2/server_groups.go)', () => {
  it('weight settings carry `weight` only when the annotation applies; "+50" is 50 (strconv.Atoi)', () => {
    expect(nlbWeightSettings(svc({}, true))).toStrictEqual({ defaultWeight: 100 });
    expect(nlbWeightSettings(svc({ id: 'nlb-reused', 'vgroup-port': 'sgp-1:80', weight: '+50' }, true))).toStrictEqual({ defaultWeight: 100, weight: 50 });
  });

  it('a vgroup-port item with an empty id binds nothing: CCM builds its own group for the port', () => {
    const s = svc({ id: 'nlb-reused', 'vgroup-port': ':80' }, true);
    expect(nlbVGroupPortBinding(s, 80)).toStrictEqual({});
    expect(nlbVGroupPortBinding(s, 80, () => undefined)).toStrictEqual({});
    // a port the annotation does not name binds nothing either
    const other = svc({ id: 'nlb-reused', 'vgroup-port': 'sgp-1:443' }, true);
    expect(nlbVGroupPortBinding(other, 80)).toStrictEqual({});
    expect(nlbVGroupPortBinding(other, 80, () => undefined)).toStrictEqual({});
  });

  it('Ip group, Cluster mode: excluded and virtual-kubelet nodes are not node servers; the VK pod joins as an Ip', () => {
    const vk = k8sNode('vk', 'i-vk', { internalIp: '10.0.0.8', labels: { type: 'virtual-kubelet' } });
    const excluded = node('x', '10.0.0.9', { labels: { 'service.beta.kubernetes.io/exclude-node': '' } });
    const r = expectedNlbServerGroups(input(svc({ 'server-group-type': 'Ip' }, true), 'cluster', [node('a', '10.0.0.1'), excluded, vk], [{ ip: '172.16.0.5', node: 'vk' }]));
    if ('error' in r) throw new Error(r.error);
    expect(r.groups[0]!.servers.map((s) => `${s.type}:${s.serverId}:${s.port}`)).toEqual(['Ip:10.0.0.1:30080', 'Ip:172.16.0.5:8080']);
  });

  it('Ip group, Cluster mode: before v2.6.0 a node labelled exclude-from-external-load-balancers is a server', () => {
    const labelled = node('a', '10.0.0.1', { labels: { [EXCLUDE_LB]: '' } });
    const ids = (v?: string) => {
      const r = expectedNlbServerGroups(input(svc({ 'server-group-type': 'Ip' }, true), 'cluster', [labelled], [], v));
      return 'error' in r ? r.error : r.groups[0]!.servers.map((s) => s.serverId);
    };
    expect(ids(OLD_CCM)).toEqual(['10.0.0.1']);
    expect(ids()).toEqual([]);
  });

  it('Local mode with weight 1 on a reused NLB: each Ip entry keeps the floor of 1 (podPercentAlgorithm, NLB)', () => {
    const pods = [{ ip: '172.16.0.1', node: 'a' }, { ip: '172.16.0.2', node: 'a' }, { ip: '172.16.0.3', node: 'a' }];
    const s = svc({ id: 'nlb-reused', 'vgroup-port': 'sgp-1:80', weight: '1', 'server-group-type': 'Ip' }, true);
    const r = expectedNlbServerGroups(input(s, 'local', [node('a', '10.0.0.1')], pods));
    if ('error' in r) throw new Error(r.error);
    expect(r.groups[0]!.userGroupId).toBe('sgp-1');
    expect(r.groups[0]!.servers.map((x) => x.weight)).toEqual([1, 1, 1]);
  });

  it('ENI mode: one Eni server per pod, none merged, also on v2.11.2 up to v2.12.4', () => {
    const r = expectedNlbServerGroups(input(svc({}, true), 'eni', [node('a', '10.0.0.1')], [{ ip: '172.16.0.1' }, { ip: '172.16.0.2', node: 'a' }], DEFERRED_CCM));
    if ('error' in r) throw new Error(r.error);
    expect(r.groups[0]!.servers).toStrictEqual([
      { serverId: '172.16.0.1', serverIp: '172.16.0.1', type: 'Eni', port: 8080, weight: 100 },
      { serverId: '172.16.0.2', serverIp: '172.16.0.2', type: 'Eni', port: 8080, weight: 100 },
    ]);
  });

  it('the uniform Cluster-mode shape holds with ready endpoints that name their node', () => {
    const r = uniformNlbClusterServerGroups(input(svc({}, true), 'cluster', [node('a', '10.0.0.1')], [{ ip: '172.16.0.1', node: 'a' }]));
    expect(r).toEqual({ ids: ['i-a'], groups: [{ name: 'k8s.30080.TCP.web.default.c1', port: 30080, weight: 100 }] });
  });
});
