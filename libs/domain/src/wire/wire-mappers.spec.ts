import { describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { WireEcsInstance, WireLoadBalancerAttribute, WireVServerGroupAttribute } from './wire.schemas';
import { ecsIdFromProviderId, mapLoadBalancers, nodePortRangeOf, parsePolicyDocument, parsePolicyDocumentChecked, parsePortRange, RegionListsMapper } from './wire-mappers';
import { wireClusterDetailSchema, wireLoadBalancerAttributeSchema, wireVServerGroupAttributeSchema } from './wire.schemas';
import { readFileSync } from 'node:fs';

const detail = (extra: Record<string, unknown> = {}) =>
  wireClusterDetailSchema.parse({
    cluster_id: 'c0123456789abcdef0123456789abcdef',
    name: 'prod',
    region_id: 'cn-hangzhou',
    cluster_type: 'Kubernetes',
    ...extra,
  });

describe('parsePortRange', () => {
  it.each([
    ['30000-32767', { from: 30000, to: 32767 }],
    ['32768 60999', { from: 32768, to: 60999 }],
    ['32768\t60999', { from: 32768, to: 60999 }],
    [' 1024 65535\n', { from: 1024, to: 65535 }],
  ])('parses %j', (text, want) => expect(parsePortRange(text)).toEqual(want));
  it.each(['', 'abc', '40000-30000', '0-10', '1-70000'])('rejects %j', (text) => expect(parsePortRange(text)).toBeUndefined());
});

describe('ecsIdFromProviderId (CCM: text after the first ".")', () => {
  it('reads both documented forms', () => {
    expect(ecsIdFromProviderId('cn-hangzhou.i-bp1abc')).toBe('i-bp1abc');
    expect(ecsIdFromProviderId('alicloud://cn-hangzhou.i-bp1abc')).toBe('i-bp1abc');
  });
  it('is undefined without a "."', () => expect(ecsIdFromProviderId('i-bp1abc')).toBeUndefined());
});

describe('nodePortRangeOf (fleet-format.md precedence)', () => {
  const apiserver = (arg: string) => ({
    namespace: 'kube-system',
    name: 'kube-apiserver-master-1',
    labels: {},
    containerArgs: ['kube-apiserver', arg],
  });
  it('prefers control_plane_config.node_port_range', () => {
    const r = nodePortRangeOf(detail({ control_plane_config: { node_port_range: '30000-35000' } }), [apiserver('--service-node-port-range=30000-40000')]);
    expect(r).toEqual({ from: 30000, to: 35000, source: 'control_plane_config' });
  });
  it('then the kube-apiserver flag', () => {
    expect(nodePortRangeOf(detail(), [apiserver('--service-node-port-range=30000-40000')])).toEqual({ from: 30000, to: 40000, source: 'kube-apiserver-flag' });
  });
  it('else the Kubernetes default', () => {
    expect(nodePortRangeOf(detail(), [])).toEqual({ from: 30000, to: 32767, source: 'default' });
  });
});

describe('parsePolicyDocument', () => {
  it('accepts string and array forms', () => {
    const s = parsePolicyDocument(JSON.stringify({ Version: '1', Statement: [{ Effect: 'Allow', Action: 'vpc:*', Resource: '*' }, { Effect: 'Deny', Action: ['slb:Delete*'], Resource: ['*'] }] }));
    expect(s).toEqual([
      { effect: 'Allow', actions: ['vpc:*'], notActions: [], resources: ['*'] },
      { effect: 'Deny', actions: ['slb:Delete*'], notActions: [], resources: ['*'] },
    ]);
  });
  it('yields nothing for a malformed document', () => expect(parsePolicyDocument('{')).toEqual([]));
  it('says why a document cannot be parsed, without its text', () => {
    expect(parsePolicyDocumentChecked('{"Statement": [')).toEqual({ statements: [], error: 'the policy document is not valid JSON' });
    expect(parsePolicyDocumentChecked('[1]').error).toBe('the policy document is not a JSON object');
    expect(parsePolicyDocumentChecked('{"Statement": ["slb:*"]}').error).toBe("the policy document's Statement is not an object or a list of objects");
    expect(parsePolicyDocumentChecked('{"Version": "1", "Statement": []}')).toEqual({ statements: [] });
  });
});

describe('mapLoadBalancers on the documented API samples', () => {
  it('maps DescribeLoadBalancerAttribute and joins vServer groups', () => {
    const fx = (f: string) => JSON.parse(readFileSync(`${__dirname}/../../../../test/fixtures/alibaba-api-samples/${f}`, 'utf8')) as unknown;
    const lb = wireLoadBalancerAttributeSchema.parse(fx('slb-DescribeLoadBalancerAttribute.json'));
    const group = wireVServerGroupAttributeSchema.parse({ ...(fx('slb-DescribeVServerGroupAttribute.json') as object), LoadBalancerId: lb.LoadBalancerId });
    const [clb] = mapLoadBalancers('1234567890', 'cn-hangzhou', [lb], [group]);
    expect(clb.loadBalancerId).toBe('lb-bp1b6c719dfa08ex****');
    expect(clb.tags).toEqual({ test: 'value' });
    expect(clb.listeners).toEqual([{ port: 80, protocol: 'https', description: '监听描述', forwardPort: 443 }]);
    expect(clb.defaultBackendServers).toHaveLength(1);
    expect(clb.vServerGroups[0].backendServers[0]).toMatchObject({ serverId: 'vm-233', port: 90, weight: 100, type: 'ecs' });
  });
});

describe('RegionListsMapper string interning', () => {
  /** A full GC, for reading what the mapped region retains (not what is merely not collected yet). */
  function fullGc(): void {
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
  }

  it('keeps one copy of an id, IP and description repeated over backend entries parsed from JSON', () => {
    // 2,000 vServer groups, each parsed from its own JSON text (as SDK responses are): every backend entry's
    // strings are distinct objects, 2 x 20 KB each, all naming the one ECS instance and the one description.
    const long = 'x'.repeat(10_000);
    const groups = Array.from({ length: 2_000 }, (_, i) =>
      JSON.parse(
        JSON.stringify({
          LoadBalancerId: 'lb-1',
          VServerGroupId: `rsp-${i}`,
          VServerGroupName: `k8s/${i}/svc/ns/c1`,
          BackendServers: { BackendServer: [{ ServerId: `i-${long}`, ServerIp: '10.0.0.1', Port: 30000, Weight: 100, Type: 'ecs', Description: `d-${long}` }] },
        }),
      ) as WireVServerGroupAttribute,
    );
    const lb = { LoadBalancerId: 'lb-1', LoadBalancerName: 'lb', RegionId: 'cn-hangzhou' } as WireLoadBalancerAttribute;
    fullGc();
    const before = process.memoryUsage().heapUsed;
    const mapper = new RegionListsMapper('123', 'cn-hangzhou');
    mapper.add({ loadBalancers: [lb], vServerGroups: groups });
    mapper.add({ ecsInstances: [JSON.parse(JSON.stringify({ InstanceId: `i-${long}` })) as WireEcsInstance] });
    const mapped = mapper.result();
    groups.length = 0;
    fullGc();
    const retained = process.memoryUsage().heapUsed - before;
    const backends = mapped.loadBalancers![0]!.vServerGroups.map((g) => g.backendServers[0]!);
    expect(backends).toHaveLength(2_000);
    // Values are unchanged ...
    for (const b of backends) expect(b).toEqual({ serverId: `i-${long}`, serverIp: '10.0.0.1', port: 30000, weight: 100, type: 'ecs', description: `d-${long}` });
    expect(mapped.ecsInstances![0]!.instanceId).toBe(`i-${long}`);
    // ... and the 2,000 copies of each 10 KB string are one: the heap measured before mapping held the parsed wire
    // (2,000 x 2 x 10 KB = 40 MB of copies); once the wire is dropped, the mapped region keeps one copy of each, so
    // nearly all of it is freed (without interning the mapped entries keep every copy: about +0 MB).
    expect(retained).toBeLessThan(-30 * 2 ** 20);
  });
});
