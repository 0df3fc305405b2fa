import { describe, expect, it } from 'vitest';
import { ecsIdFromProviderId, mapLoadBalancers, nodePortRangeOf, parsePolicyDocument, parsePolicyDocumentChecked, parsePortRange } from './wire-mappers';
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
