/**
 * SLB DescribeLoadBalancerListeners, DescribeTags and ListTagResources, CS DescribeClusterResources
 * through the generic openapi-core client, and Kubernetes Events paging through
 * `@kubernetes/client-node`.
 */
import * as $Cs from '@alicloud/cs20151215';
import { ClientError } from '@alicloud/openapi-core';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { readFleetDirectory } from '@app/collectors';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRoa, callRpc, csClient } from './sim-clients.util';
import { SIM_FLEET_IDS as IDS, writeSimFleet } from './sim-fleet.factory';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ fleet: readFleetDirectory(writeSimFleet({ events: 7 })) });
});
afterAll(async () => {
  await sim.close();
});

const slb = (action: string, params: Record<string, unknown>) => callRpc(sim, action, '2014-05-15', params);

async function clientError(p: Promise<unknown>): Promise<ClientError> {
  const e: unknown = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof ClientError)) throw new Error(`expected a ClientError, got ${String(e)}`);
  return e;
}

type Listener = Record<string, unknown>;

describe('SLB DescribeLoadBalancerListeners', () => {
  it('pages with MaxResults/NextToken; Listeners is a bare array built from the attribute', async () => {
    const seen: Listener[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const b = await slb('DescribeLoadBalancerListeners', {
        RegionId: IDS.regionId,
        MaxResults: 2,
        ...(token ? { NextToken: token } : {}),
      });
      expect(b).toMatchObject({ MaxResults: 2, TotalCount: 4 });
      expect(Array.isArray(b['Listeners'])).toBe(true);
      seen.push(...(b['Listeners'] as Listener[]));
      token = b['NextToken'] as string | undefined;
      pages++;
    } while (token);
    expect(pages).toBe(2);
    expect(seen.map((l) => [l['LoadBalancerId'], l['ListenerPort'], l['ListenerProtocol']])).toEqual([
      [IDS.lbIds[0], 80, 'tcp'],
      [IDS.lbIds[1], 80, 'tcp'],
      [IDS.lbIds[1], 8080, 'http'],
      [IDS.lbIds[1], 53, 'udp'],
    ]);
    expect(seen[0]).toMatchObject({
      Status: 'running',
      VServerGroupId: IDS.vServerGroupIds[0],
      Scheduler: 'wrr',
      Description: '',
      TCPListenerConfig: expect.objectContaining({ HealthCheckType: 'tcp' }),
    });
    expect(seen[0]).not.toHaveProperty('BackendServerPort');
    expect(seen[2]).toMatchObject({
      BackendServerPort: 8080,
      Description: 'redirect',
      HTTPListenerConfig: expect.objectContaining({ ListenerForward: 'on', ForwardPort: 443 }),
    });
    expect(seen[3]).toMatchObject({ Description: 'dns', UDPListenerConfig: expect.any(Object) });
  });

  it('defaults to 20 per page and filters by LoadBalancerId.N, protocol, port and description', async () => {
    const all = await slb('DescribeLoadBalancerListeners', { RegionId: IDS.regionId });
    expect(all).toMatchObject({ MaxResults: 20, TotalCount: 4 });
    expect(all['NextToken']).toBeUndefined();
    const one = await slb('DescribeLoadBalancerListeners', {
      RegionId: IDS.regionId,
      LoadBalancerId: [IDS.lbIds[1]],
    });
    expect((one['Listeners'] as Listener[]).map((l) => l['ListenerPort'])).toEqual([80, 8080, 53]);
    const http = await slb('DescribeLoadBalancerListeners', {
      RegionId: IDS.regionId,
      ListenerProtocol: 'http',
      ListenerPort: 8080,
    });
    expect((http['Listeners'] as Listener[]).map((l) => l['LoadBalancerId'])).toEqual([IDS.lbIds[1]]);
    const byDescription = await slb('DescribeLoadBalancerListeners', {
      RegionId: IDS.regionId,
      Description: 'dns',
    });
    expect(byDescription['TotalCount']).toBe(1);
  });

  it('omits Listeners when nothing matches; rejects MaxResults over 100 and a token of another query', async () => {
    const none = await slb('DescribeLoadBalancerListeners', { RegionId: 'cn-beijing' });
    expect(none).toMatchObject({ TotalCount: 0 });
    expect(none).not.toHaveProperty('Listeners');
    expect(
      (await clientError(slb('DescribeLoadBalancerListeners', { RegionId: IDS.regionId, MaxResults: 101 })))
        .code,
    ).toBe('InvalidParameter');
    const first = await slb('DescribeLoadBalancerListeners', { RegionId: IDS.regionId, MaxResults: 1 });
    const e = await clientError(
      slb('DescribeLoadBalancerListeners', {
        RegionId: IDS.regionId,
        MaxResults: 1,
        ListenerProtocol: 'udp',
        NextToken: first['NextToken'],
      }),
    );
    expect(e.code).toBe('InvalidParameter');
  });
});

describe('SLB DescribeTags', () => {
  it('counts CLBs per tag with PageNumber/PageSize paging', async () => {
    const b = await slb('DescribeTags', { RegionId: IDS.regionId });
    expect(b).toMatchObject({ PageNumber: 1, PageSize: 50, TotalCount: 4 });
    expect((b['TagSets'] as { TagSet: unknown[] }).TagSet).toEqual([
      { TagKey: 'ack.aliyun.com', TagValue: IDS.clusterId, InstanceCount: 2 },
      { TagKey: 'kubernetes.do.not.delete', TagValue: 'a0000000000000000000000000000001', InstanceCount: 1 },
      { TagKey: 'kubernetes.do.not.delete', TagValue: 'a0000000000000000000000000000002', InstanceCount: 1 },
      { TagKey: 'team', TagValue: 'shop', InstanceCount: 1 },
    ]);
    const page2 = await slb('DescribeTags', { RegionId: IDS.regionId, PageNumber: 2, PageSize: 3 });
    expect((page2['TagSets'] as { TagSet: { TagKey: string }[] }).TagSet.map((t) => t.TagKey)).toEqual([
      'team',
    ]);
  });

  it('filters by LoadBalancerId and Tags, and counts keys with DistinctKey', async () => {
    const one = await slb('DescribeTags', { RegionId: IDS.regionId, LoadBalancerId: IDS.lbIds[1] });
    expect(one['TotalCount']).toBe(3);
    const byTag = await slb('DescribeTags', {
      RegionId: IDS.regionId,
      Tags: JSON.stringify([{ TagKey: 'team' }]),
    });
    expect((byTag['TagSets'] as { TagSet: unknown[] }).TagSet).toEqual([
      { TagKey: 'team', TagValue: 'shop', InstanceCount: 1 },
    ]);
    const keys = await slb('DescribeTags', { RegionId: IDS.regionId, DistinctKey: true });
    expect((keys['TagSets'] as { TagSet: unknown[] }).TagSet).toEqual([
      { TagKey: 'ack.aliyun.com', InstanceCount: 2 },
      { TagKey: 'kubernetes.do.not.delete', InstanceCount: 2 },
      { TagKey: 'team', InstanceCount: 1 },
    ]);
  });
});

describe('SLB ListTagResources', () => {
  type Row = { ResourceId: string; ResourceType: string; TagKey: string; TagValue: string };
  const rows = (b: Record<string, unknown>) => (b['TagResources'] as { TagResource: Row[] }).TagResource;

  it('lists the tags of given CLBs, and the CLBs carrying every given tag', async () => {
    const byId = await slb('ListTagResources', {
      RegionId: IDS.regionId,
      ResourceType: 'instance',
      ResourceId: [IDS.lbIds[0]],
    });
    expect(rows(byId).map((r) => r.TagKey)).toEqual(['kubernetes.do.not.delete', 'ack.aliyun.com']);
    expect(byId['NextToken']).toBeUndefined();
    const byTags = await slb('ListTagResources', {
      RegionId: IDS.regionId,
      ResourceType: 'instance',
      Tag: [{ Key: 'ack.aliyun.com', Value: IDS.clusterId }, { Key: 'team' }],
    });
    expect(rows(byTags)).toEqual([
      {
        ResourceId: IDS.lbIds[1],
        ResourceType: 'instance',
        TagKey: 'ack.aliyun.com',
        TagValue: IDS.clusterId,
      },
      { ResourceId: IDS.lbIds[1], ResourceType: 'instance', TagKey: 'team', TagValue: 'shop' },
    ]);
    const groups = await slb('ListTagResources', {
      RegionId: IDS.regionId,
      ResourceType: 'vservergroup',
      Tag: [{ Key: 'team' }],
    });
    expect(rows(groups).map((r) => r.ResourceId)).toEqual([IDS.vServerGroupIds[2]]);
  });

  it('needs ResourceId.N or Tag.N (MissingParam.TagOrResourceId) and a known ResourceType', async () => {
    const e = await clientError(
      slb('ListTagResources', { RegionId: IDS.regionId, ResourceType: 'instance' }),
    );
    expect([e.statusCode, e.code]).toEqual([400, 'MissingParam.TagOrResourceId']);
    const t = await clientError(
      slb('ListTagResources', { RegionId: IDS.regionId, ResourceType: 'bucket', ResourceId: ['x'] }),
    );
    expect(t.code).toBe('InvalidParameter');
  });
});

describe('CS DescribeClusterResources', () => {
  it('returns resources.json as a bare array (generic ROA call and the CS SDK)', async () => {
    const raw = (await callRoa(
      sim,
      'DescribeClusterResources',
      `/clusters/${IDS.clusterId}/resources`,
    )) as Record<string, unknown>[];
    expect(raw.map((r) => [r['resource_type'], r['instance_id']])).toEqual([
      ['ALIYUN::RAM::Role', 'KubernetesMasterRole-sim'],
      ['ALIYUN::SLB::LoadBalancer', 'lb-bp1simapiserver001'],
    ]);
    const sdk = await csClient(sim).describeClusterResources(
      IDS.clusterId,
      new $Cs.DescribeClusterResourcesRequest({}),
    );
    expect(sdk.body?.map((r) => r.resourceType)).toEqual(['ALIYUN::RAM::Role', 'ALIYUN::SLB::LoadBalancer']);
  });
});

describe('Kubernetes Events paging', () => {
  it('pages events with limit/continue across namespaces, and per namespace', async () => {
    const kc = await csClient(sim).describeClusterUserKubeconfig(
      IDS.clusterId,
      new $Cs.DescribeClusterUserKubeconfigRequest({}),
    );
    const config = new KubeConfig();
    config.loadFromString(kc.body?.config ?? '');
    const core = config.makeApiClient(CoreV1Api);
    const names: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const page = await core.listEventForAllNamespaces({ limit: 3, ...(cont ? { _continue: cont } : {}) });
      expect(page.kind).toBe('EventList');
      names.push(...page.items.map((e) => `${e.metadata.namespace ?? ''}/${e.metadata.name ?? ''}`));
      cont = page.metadata?._continue || undefined;
      if (cont) expect(page.metadata?.remainingItemCount).toBe(7 - names.length);
      pages++;
    } while (cont);
    expect(pages).toBe(3);
    expect(names[0]).toBe('default/web.17a');
    expect(names).toHaveLength(7);
    const shop = await core.listNamespacedEvent({ namespace: 'shop', limit: 4 });
    expect(shop.items).toHaveLength(4);
    expect(shop.metadata?.remainingItemCount).toBe(2);
  });
});
