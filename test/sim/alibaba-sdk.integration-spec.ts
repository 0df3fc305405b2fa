/**
 * The simulator read through the official Alibaba Cloud SDKs (V3 signatures, the SDKs'
 * default): models populated, paging to the end, errors with the right class and code.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as $Cs from '@alicloud/cs20151215';
import * as $Ecs from '@alicloud/ecs20140526';
import { ClientError, ThrottlingError } from '@alicloud/openapi-core';
import * as $Ram from '@alicloud/ram20150501';
import Vpc, * as $Vpc from '@alicloud/vpc20160428';
import { readFleetDirectory, scanConfigSchema } from '@app/collectors';
import { simulatorReadyLine, startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { load as parse } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRoa, callRpc, csClient, ecsClient, ramClient, simConfig } from './sim-clients.util';
import { nlbIdOf, nlbRegionOf, serverGroupIdOf } from './nlb-fleet.util';
import { SIM_FLEET_IDS as IDS, writeSimFleet } from './sim-fleet.factory';

let sim: RunningSimulator;

/** NLB data of the simulated region: 45 NLBs (3 pages at the default 20), 2 listeners each, 23 servers per group, 3 leaked groups. */
const NLB = nlbRegionOf({ loadBalancers: 45, listenersPerLb: 2, serversPerGroup: 23, leakedGroups: 3 });

/** Quota Center NLB quotas (research/nlb.md section 5), in the region's quotas.json beside the SLB ones. */
const NLB_QUOTAS = [
  { ProductCode: 'nlb', QuotaActionCode: 'nlb_quota_servergroups_num', QuotaName: 'server groups per region', TotalQuota: 3000 },
  { ProductCode: 'nlb', QuotaActionCode: 'nlb_quota_server_added_num', QuotaName: 'server added times', TotalQuota: 200 },
];

/** The simulator's fleet with `WireRegion.nlb` set on its region. */
function simFleetWithNlb() {
  const fleet = readFleetDirectory(writeSimFleet());
  const region = fleet.accounts[0]?.regions.find((r) => r.regionId === IDS.regionId);
  if (!region) throw new Error('sim fleet without its region');
  region.nlb = NLB;
  region.quotas = [...(region.quotas ?? []), ...NLB_QUOTAS];
  return fleet;
}

beforeAll(async () => {
  sim = await startSimulator({ fleet: simFleetWithNlb() });
});
afterAll(async () => {
  await sim.close();
});

describe('startSimulator', () => {
  it('close() removes the scan config it wrote: its own temporary directory whole, only the file in a given one', async () => {
    const fleet = readFleetDirectory(writeSimFleet());
    const own = await startSimulator({ fleet });
    expect(existsSync(own.configPath)).toBe(true);
    await own.close();
    expect(existsSync(own.configPath)).toBe(false);
    expect(existsSync(dirname(own.configPath))).toBe(false);
    own.removeConfig(); // idempotent

    const given = mkdtempSync(join(tmpdir(), 'sim-config-dir-'));
    try {
      const inGiven = await startSimulator({ fleet, configDir: given });
      expect(dirname(inGiven.configPath)).toBe(given);
      await inGiven.close();
      expect(existsSync(inGiven.configPath)).toBe(false);
      expect(existsSync(given)).toBe(true);
    } finally {
      rmSync(given, { recursive: true, force: true });
    }
  });

  it('listens on loopback and writes a valid scan config', () => {
    expect(sim.endpoint).toBe(`127.0.0.1:${sim.port}`);
    expect(sim.accountId).toBe(IDS.accountId);
    const config = scanConfigSchema.parse(JSON.parse(readFileSync(sim.configPath, 'utf8')));
    expect(config.alibabaCloud).toMatchObject({ endpoint: sim.endpoint, protocol: 'http' });
    expect(config.credentials).toEqual({
      accessKeyId: 'sim-access-key',
      accessKeySecret: 'sim-access-secret',
    });
    expect(config.accounts).toEqual([
      {
        accountId: IDS.accountId,
        name: 'sim-prod',
        regions: [IDS.regionId],
        auditRoleArn: `acs:ram::${IDS.accountId}:role/fleet-audit-readonly`,
      },
    ]);
    expect(sim.accountIds).toEqual([IDS.accountId]);
    expect(JSON.parse(simulatorReadyLine(sim))).toEqual({ endpoint: sim.endpoint, config: sim.configPath });
  });
});

describe('ECS DescribeInstances (@alicloud/ecs20140526)', () => {
  it('pages with MaxResults/NextToken to the end and fills the models', async () => {
    const ecs = ecsClient(sim);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const r = await ecs.describeInstances(
        new $Ecs.DescribeInstancesRequest({
          regionId: IDS.regionId,
          maxResults: 10,
          ...(token ? { nextToken: token } : {}),
        }),
      );
      const items = r.body?.instances?.instance ?? [];
      for (const i of items) seen.push(i.instanceId ?? '');
      expect(r.body?.requestId).toMatch(/^[0-9A-F-]{36}$/);
      if (pages === 0) expect(items[0]?.vpcAttributes?.vpcId).toBe(IDS.vpcId);
      token = r.body?.nextToken || undefined;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
  });

  it('clamps MaxResults to 10..100 and filters by InstanceIds and VpcId', async () => {
    const ecs = ecsClient(sim);
    const small = await ecs.describeInstances(
      new $Ecs.DescribeInstancesRequest({ regionId: IDS.regionId, maxResults: 2 }),
    );
    expect(small.body?.instances?.instance).toHaveLength(10);
    const big = await ecs.describeInstances(
      new $Ecs.DescribeInstancesRequest({ regionId: IDS.regionId, maxResults: 500 }),
    );
    expect(big.body?.instances?.instance).toHaveLength(25);
    expect(big.body?.nextToken).toBe('');
    const byIds = await ecs.describeInstances(
      new $Ecs.DescribeInstancesRequest({
        regionId: IDS.regionId,
        instanceIds: JSON.stringify(['i-bp1simtest00000003', 'i-bp1simtest00000007']),
      }),
    );
    expect(byIds.body?.instances?.instance?.map((i) => i.instanceId)).toEqual([
      'i-bp1simtest00000003',
      'i-bp1simtest00000007',
    ]);
    const other = await ecs.describeInstances(
      new $Ecs.DescribeInstancesRequest({ regionId: IDS.regionId, vpcId: IDS.otherVpcId, maxResults: 100 }),
    );
    expect(other.body?.instances?.instance).toHaveLength(3);
    const tagged = await ecs.describeInstances(
      new $Ecs.DescribeInstancesRequest({
        regionId: IDS.regionId,
        maxResults: 100,
        tag: [new $Ecs.DescribeInstancesRequestTag({ key: 'ack.aliyun.com', value: IDS.clusterId })],
      }),
    );
    expect(tagged.body?.instances?.instance).toHaveLength(25);
  });

  it('answers an empty list for a region the account has no data in', async () => {
    const r = await ecsClient(sim).describeInstances(
      new $Ecs.DescribeInstancesRequest({ regionId: 'eu-central-1' }),
    );
    expect(r.body?.instances?.instance).toEqual([]);
    expect(r.body?.totalCount).toBe(0);
  });

  it('rejects a request without RegionId with MissingParameter', async () => {
    const err = await ecsClient(sim)
      .describeInstances(new $Ecs.DescribeInstancesRequest({}))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ClientError);
    expect(err).toMatchObject({ code: 'MissingParameter', statusCode: 400 });
  });
});

describe('SLB (generic callApi)', () => {
  it('DescribeLoadBalancers pages with PageNumber/PageSize and reports TotalCount', async () => {
    const p1 = await callRpc(sim, 'DescribeLoadBalancers', '2014-05-15', {
      RegionId: IDS.regionId,
      PageNumber: 1,
      PageSize: 1,
    });
    const p2 = await callRpc(sim, 'DescribeLoadBalancers', '2014-05-15', {
      RegionId: IDS.regionId,
      PageNumber: 2,
      PageSize: 1,
    });
    const p3 = await callRpc(sim, 'DescribeLoadBalancers', '2014-05-15', {
      RegionId: IDS.regionId,
      PageNumber: 3,
      PageSize: 1,
    });
    const ids = (b: Record<string, unknown>) =>
      ((b['LoadBalancers'] as { LoadBalancer: { LoadBalancerId: string }[] }).LoadBalancer ?? []).map(
        (l) => l.LoadBalancerId,
      );
    expect(p1['TotalCount']).toBe(2);
    expect([...ids(p1), ...ids(p2)]).toEqual([...IDS.lbIds]);
    expect(ids(p3)).toEqual([]);
    const item = (p1['LoadBalancers'] as { LoadBalancer: Record<string, unknown>[] })
      .LoadBalancer[0] as Record<string, unknown>;
    expect(item['Tags']).toEqual({
      Tag: expect.arrayContaining([{ TagKey: 'ack.aliyun.com', TagValue: IDS.clusterId }]),
    });
    expect(item['InternetChargeType']).toBe('4');
    expect(item['InternetChargeTypeAlias']).toBe('paybytraffic');
    expect(item).not.toHaveProperty('BackendServers');
    expect(p1).not.toHaveProperty('Code');
  });

  it('DescribeLoadBalancers filters by ServerId and by Tag', async () => {
    const byServer = await callRpc(sim, 'DescribeLoadBalancers', '2014-05-15', {
      RegionId: IDS.regionId,
      ServerId: 'i-bp1simtest00000004',
    });
    expect(byServer['TotalCount']).toBe(1);
    const byTag = await callRpc(sim, 'DescribeLoadBalancers', '2014-05-15', {
      RegionId: IDS.regionId,
      Tag: [{ Key: 'kubernetes.do.not.delete', Value: 'a0000000000000000000000000000002' }],
    });
    expect(byTag['TotalCount']).toBe(1);
  });

  it('DescribeLoadBalancers rejects PageSize over 100', async () => {
    await expect(
      callRpc(sim, 'DescribeLoadBalancers', '2014-05-15', {
        RegionId: IDS.regionId,
        PageNumber: 1,
        PageSize: 101,
      }),
    ).rejects.toMatchObject({ code: 'InvalidParameter', statusCode: 400 });
  });

  it('DescribeLoadBalancerAttribute returns the stored body, and 400 InvalidLoadBalancerId.NotFound for an unknown id', async () => {
    const body = await callRpc(sim, 'DescribeLoadBalancerAttribute', '2014-05-15', {
      RegionId: IDS.regionId,
      LoadBalancerId: IDS.lbIds[0],
    });
    expect(body['LoadBalancerId']).toBe(IDS.lbIds[0]);
    expect(body['RequestId']).toEqual(expect.any(String));
    expect(body['ListenerPortsAndProtocol']).toEqual({
      ListenerPortAndProtocol: [expect.objectContaining({ ListenerPort: 80, ListenerProtocol: 'tcp' })],
    });
    const err = await callRpc(sim, 'DescribeLoadBalancerAttribute', '2014-05-15', {
      RegionId: IDS.regionId,
      LoadBalancerId: 'lb-nope',
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ClientError);
    expect(err).toMatchObject({ code: 'InvalidLoadBalancerId.NotFound', statusCode: 400 });
    expect((err as ClientError).data).toMatchObject({
      Code: 'InvalidLoadBalancerId.NotFound',
      HostId: 'slb.aliyuncs.com',
      RequestId: expect.any(String),
      Recommend: expect.stringContaining('InvalidLoadBalancerId.NotFound'),
    });
  });

  it('DescribeVServerGroups and DescribeVServerGroupAttribute', async () => {
    const groups = await callRpc(sim, 'DescribeVServerGroups', '2014-05-15', {
      RegionId: IDS.regionId,
      LoadBalancerId: IDS.lbIds[0],
      IncludeListener: true,
    });
    const list = (groups['VServerGroups'] as { VServerGroup: Record<string, unknown>[] }).VServerGroup;
    expect(list.map((g) => g['VServerGroupId'])).toEqual([IDS.vServerGroupIds[0], IDS.vServerGroupIds[1]]);
    expect(list[0]).toMatchObject({
      VServerGroupName: expect.stringContaining('k8s/30080'),
      AssociatedObjects: { Listeners: { Listener: [{ Port: 80, Protocol: 'tcp' }] } },
    });
    const attr = await callRpc(sim, 'DescribeVServerGroupAttribute', '2014-05-15', {
      RegionId: IDS.regionId,
      VServerGroupId: IDS.vServerGroupIds[0],
    });
    expect((attr['BackendServers'] as { BackendServer: unknown[] }).BackendServer).toHaveLength(3);
    await expect(
      callRpc(sim, 'DescribeVServerGroupAttribute', '2014-05-15', {
        RegionId: IDS.regionId,
        VServerGroupId: 'rsp-nope',
      }),
    ).rejects.toMatchObject({
      code: 'InvalidParameter',
      statusCode: 400,
    });
  });

  it('unknown action is 404 InvalidAction.NotFound, unknown version 400 InvalidVersion', async () => {
    await expect(
      callRpc(sim, 'DescribeNothing', '2014-05-15', { RegionId: IDS.regionId }),
    ).rejects.toMatchObject({ code: 'InvalidAction.NotFound', statusCode: 404 });
    await expect(
      callRpc(sim, 'DescribeLoadBalancers', '2099-01-01', { RegionId: IDS.regionId }),
    ).rejects.toMatchObject({ code: 'InvalidVersion', statusCode: 400 });
  });
});

describe('NLB 2022-04-30 (generic callApi, RPC)', () => {
  const NLB_VERSION = '2022-04-30';
  const nlb = (action: string, params: Record<string, unknown>, s: RunningSimulator = sim) =>
    callRpc(s, action, NLB_VERSION, { RegionId: IDS.regionId, ...params });
  const errorOf = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e,
    );
  /** Every page of a List* action: items by `listKey`, and the number of calls. */
  async function listAll(action: string, listKey: string, params: Record<string, unknown> = {}) {
    const items: Record<string, unknown>[] = [];
    let token: string | undefined;
    let calls = 0;
    do {
      const body = await nlb(action, { ...params, ...(token ? { NextToken: token } : {}) });
      calls++;
      items.push(...(body[listKey] as Record<string, unknown>[]));
      token = (body['NextToken'] as string | undefined) || undefined;
    } while (token);
    return { items, calls };
  }

  it('ListLoadBalancers pages with NextToken at the default MaxResults 20 and serves the items unchanged', async () => {
    const first = await nlb('ListLoadBalancers', {});
    expect(first).toMatchObject({ MaxResults: 20, TotalCount: 45, NextToken: expect.any(String) });
    expect(first['LoadBalancers']).toHaveLength(20);
    const { items, calls } = await listAll('ListLoadBalancers', 'LoadBalancers');
    expect(calls).toBe(3);
    expect(items).toEqual(NLB.loadBalancers);
    expect(items[0]?.['Tags']).toEqual([
      { Key: 'kubernetes.do.not.delete', Value: expect.stringMatching(/^a/) },
      { Key: 'ack.aliyun.com', Value: expect.any(String) },
    ]);
    const last = await nlb('ListLoadBalancers', { MaxResults: 100 });
    expect(last['LoadBalancers']).toHaveLength(45);
    expect(last['NextToken']).toBeUndefined();
  });

  it('ListLoadBalancers filters by LoadBalancerIds (at most 20), AddressType and Tag', async () => {
    const ids = [nlbIdOf('a0', 3), nlbIdOf('a0', 4), 'nlb-unknown'];
    const byIds = await nlb('ListLoadBalancers', { LoadBalancerIds: ids });
    expect((byIds['LoadBalancers'] as { LoadBalancerId: string }[]).map((l) => l.LoadBalancerId)).toEqual(ids.slice(0, 2));
    const intranet = await nlb('ListLoadBalancers', { AddressType: 'Intranet', MaxResults: 100 });
    expect(intranet['TotalCount']).toBe(22);
    const tagged = await nlb('ListLoadBalancers', { Tag: [{ Key: 'kubernetes.do.not.delete', Value: NLB.loadBalancers[7]?.LoadBalancerName }] });
    expect((tagged['LoadBalancers'] as { LoadBalancerId: string }[]).map((l) => l.LoadBalancerId)).toEqual([nlbIdOf('a0', 7)]);
    const tooMany = Array.from({ length: 21 }, (_, i) => nlbIdOf('a0', i));
    await expect(nlb('ListLoadBalancers', { LoadBalancerIds: tooMany })).rejects.toMatchObject({ code: 'InvalidParameter', statusCode: 400 });
  });

  it('MaxResults outside 1..100 and a foreign NextToken are 400 InvalidParameter', async () => {
    for (const bad of [0, 101])
      await expect(nlb('ListServerGroups', { MaxResults: bad })).rejects.toMatchObject({ code: 'InvalidParameter', statusCode: 400 });
    const page1 = await nlb('ListLoadBalancers', { MaxResults: 5 });
    const token = page1['NextToken'] as string;
    // a token of ListLoadBalancers is refused by ListServerGroups and with other filters
    await expect(nlb('ListServerGroups', { NextToken: token, MaxResults: 5 })).rejects.toMatchObject({ code: 'InvalidParameter' });
    await expect(nlb('ListLoadBalancers', { NextToken: token, MaxResults: 5, AddressType: 'Intranet' })).rejects.toMatchObject({ code: 'InvalidParameter' });
    await expect(nlb('ListLoadBalancers', { NextToken: 'garbage', MaxResults: 5 })).rejects.toMatchObject({ code: 'InvalidParameter' });
  });

  it('ListListeners filters by at most 20 LoadBalancerIds and pages', async () => {
    const ids = NLB.loadBalancers.slice(0, 20).map((l) => l.LoadBalancerId);
    const { items, calls } = await listAll('ListListeners', 'Listeners', { LoadBalancerIds: ids, MaxResults: 15 });
    expect(calls).toBe(3); // 40 listeners
    expect(items).toEqual(NLB.listeners.slice(0, 40));
    await expect(
      nlb('ListListeners', { LoadBalancerIds: NLB.loadBalancers.slice(0, 21).map((l) => l.LoadBalancerId) }),
    ).rejects.toMatchObject({ code: 'InvalidParameter', statusCode: 400 });
  });

  it('ListServerGroups lists every group of the region, leaked ones (no NLB, ServerCount 0) included', async () => {
    const { items, calls } = await listAll('ListServerGroups', 'ServerGroups', { MaxResults: 50 });
    expect(calls).toBe(2); // 93 groups
    expect(items).toEqual(NLB.serverGroups);
    expect(items.filter((g) => g['ServerCount'] === 0)).toHaveLength(3);
    const one = await nlb('ListServerGroups', { ServerGroupIds: [serverGroupIdOf('a0', 5)] });
    expect(one['ServerGroups']).toEqual([NLB.serverGroups[5]]);
  });

  it('ListServerGroupServers pages the servers of one group; an unknown group is ResourceNotFound.serverGroup', async () => {
    const groupId = serverGroupIdOf('a0', 1);
    const { items, calls } = await listAll('ListServerGroupServers', 'Servers', { ServerGroupId: groupId, MaxResults: 10 });
    expect(calls).toBe(3); // 23 servers
    expect(items).toEqual(NLB.servers.filter((x) => x.ServerGroupId === groupId));
    const leaked = await nlb('ListServerGroupServers', { ServerGroupId: serverGroupIdOf('a0', 91) });
    expect(leaked).toMatchObject({ Servers: [], TotalCount: 0 });
    const err = await errorOf(nlb('ListServerGroupServers', { ServerGroupId: 'sgp-nope' }));
    expect(err).toBeInstanceOf(ClientError);
    expect(err).toMatchObject({ code: 'ResourceNotFound.serverGroup', statusCode: 400 });
  });

  it('GetLoadBalancerAttribute answers the fields at the top level with Tags as TagKey/TagValue', async () => {
    const id = nlbIdOf('a0', 2);
    const body = await nlb('GetLoadBalancerAttribute', { LoadBalancerId: id });
    expect(body).toMatchObject({ LoadBalancerId: id, DNSName: NLB.loadBalancers[2]?.DNSName, RequestId: expect.any(String) });
    expect(body['Tags']).toEqual(NLB.loadBalancers[2]?.Tags?.map((t) => ({ TagKey: t.Key, TagValue: t.Value })));
    const err = await errorOf(nlb('GetLoadBalancerAttribute', { LoadBalancerId: 'nlb-nope' }));
    expect(err).toMatchObject({ code: 'ResourceNotFound.loadBalancer', statusCode: 400 });
    expect((err as ClientError).data).toMatchObject({ HostId: 'nlb.aliyuncs.com' });
  });

  it('a region the account has no data in is empty; RegionId is required', async () => {
    expect(await nlb('ListLoadBalancers', { RegionId: 'eu-central-1' })).toMatchObject({ LoadBalancers: [], TotalCount: 0 });
    await expect(callRpc(sim, 'ListLoadBalancers', NLB_VERSION, {})).rejects.toMatchObject({ code: 'MissingParameter', statusCode: 400 });
  });

  it('a region whose nlb/ files the fleet lacks answers 403, as the CLB APIs do for a missing load-balancers.json', async () => {
    const fleet = readFleetDirectory(writeSimFleet());
    for (const r of fleet.accounts[0]?.regions ?? []) delete r.nlb;
    const s = await startSimulator({ fleet });
    try {
      const err = await errorOf(nlb('ListLoadBalancers', {}, s));
      expect(err).toMatchObject({ code: 'Forbidden.RAM', statusCode: 403 });
      expect((err as Error).message).toContain('NLBs of cn-hangzhou');
    } finally {
      await s.close();
    }
  });

  it('enforces a RAM policy with the nlb:* action names', async () => {
    const s = await startSimulator({
      fleet: simFleetWithNlb(),
      ramPolicy: { Version: '1', Statement: [{ Effect: 'Allow', Action: ['nlb:List*'], Resource: '*' }] },
    });
    try {
      expect((await nlb('ListServerGroups', {}, s))['TotalCount']).toBe(93);
      const err = await errorOf(nlb('GetLoadBalancerAttribute', { LoadBalancerId: nlbIdOf('a0', 0) }, s));
      expect(err).toMatchObject({ code: 'Forbidden.RAM', statusCode: 403 });
      expect((err as Error).message).toContain('nlb:GetLoadBalancerAttribute');
    } finally {
      await s.close();
    }
  });

  it('throttles over the per-action QPS limit with Throttling.User, which openapi-core raises as ThrottlingError', async () => {
    const frozen = new Date(Math.floor(Date.now() / 1000) * 1000 + 200);
    const s = await startSimulator({ fleet: simFleetWithNlb(), now: () => frozen, qps: { default: 100, perApi: { ListListeners: 1 } } });
    try {
      await nlb('ListListeners', {}, s);
      const err = await errorOf(nlb('ListListeners', {}, s));
      expect(err).toBeInstanceOf(ThrottlingError);
      expect(err).toMatchObject({ code: 'Throttling.User', retryAfter: 800 });
      await nlb('ListServerGroups', {}, s); // another action has its own window
    } finally {
      await s.close();
    }
  });
});

describe('Quota Center ListProductQuotas (form body)', () => {
  it('pages with MaxResults/NextToken and filters by the regionId dimension', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const b = await callRpc(
        sim,
        'ListProductQuotas',
        '2020-05-10',
        {
          ProductCode: 'slb',
          MaxResults: 3,
          Dimensions: [{ Key: 'regionId', Value: IDS.regionId }],
          ...(token ? { NextToken: token } : {}),
        },
        { inBody: true },
      );
      expect(Array.isArray(b['Quotas'])).toBe(true);
      for (const q of b['Quotas'] as { QuotaActionCode: string; Dimensions: Record<string, string> }[]) {
        seen.push(q.QuotaActionCode);
        expect(q.Dimensions['regionId']).toBe(IDS.regionId);
      }
      expect(b['TotalCount']).toBe(4);
      token = b['NextToken'] as string | undefined;
      pages++;
    } while (token);
    expect(pages).toBe(2);
    expect(seen).toContain('slb_quota_backendservers_num');
    expect(seen).toHaveLength(4);
  });

  it('without a regionId dimension returns every region; other products are empty', async () => {
    const all = await callRpc(
      sim,
      'ListProductQuotas',
      '2020-05-10',
      { ProductCode: 'slb' },
      { inBody: true },
    );
    expect(all['Quotas']).toHaveLength(4);
    const ecsQuotas = await callRpc(
      sim,
      'ListProductQuotas',
      '2020-05-10',
      { ProductCode: 'ecs' },
      { inBody: true },
    );
    expect(ecsQuotas['Quotas']).toEqual([]);
    const nlbQuotas = await callRpc(
      sim,
      'ListProductQuotas',
      '2020-05-10',
      { ProductCode: 'nlb', Dimensions: [{ Key: 'regionId', Value: IDS.regionId }] },
      { inBody: true },
    );
    expect((nlbQuotas['Quotas'] as { QuotaActionCode: string }[]).map((q) => q.QuotaActionCode)).toEqual(
      NLB_QUOTAS.map((q) => q.QuotaActionCode),
    );
    expect(JSON.stringify(all['Quotas'])).not.toContain('nlb_quota');
  });
});

describe('CS (@alicloud/cs20151215)', () => {
  it('describeClustersV1 pages and filters by region', async () => {
    const cs = csClient(sim);
    const r = await cs.describeClustersV1(
      new $Cs.DescribeClustersV1Request({ regionId: IDS.regionId, pageNumber: 1, pageSize: 10 }),
    );
    expect(r.body?.clusters?.[0]?.clusterId).toBe(IDS.clusterId);
    expect(r.body?.clusters?.[0]?.tags?.[0]?.key).toBe('team');
    expect(r.body?.pageInfo?.totalCount).toBe(1);
    const none = await cs.describeClustersV1(new $Cs.DescribeClustersV1Request({ regionId: 'cn-beijing' }));
    expect(none.body?.clusters).toEqual([]);
  });

  it('describeClusterDetail, and 404 ErrorClusterNotFound for an unknown cluster', async () => {
    const cs = csClient(sim);
    const d = await cs.describeClusterDetail(IDS.clusterId);
    expect(d.body?.controlPlaneConfig?.nodePortRange).toBe('30000-32767');
    expect(d.body?.currentVersion).toBe('1.30.1-aliyun.1');
    const err = await cs.describeClusterDetail('c00000000000000000000000000000000').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ClientError);
    expect(err).toMatchObject({ code: 'ErrorClusterNotFound', statusCode: 404 });
  });

  it('describeClusterUserKubeconfig returns a kubeconfig for the simulated API server', async () => {
    const r = await csClient(sim).describeClusterUserKubeconfig(
      IDS.clusterId,
      new $Cs.DescribeClusterUserKubeconfigRequest({ temporaryDurationMinutes: 60 }),
    );
    const kc = parse(r.body?.config ?? '') as {
      clusters: { cluster: Record<string, unknown> }[];
      users: { user: { token: string } }[];
    };
    expect(kc.clusters[0]?.cluster).toEqual({
      server: `https://${sim.endpoint}/k8s/${IDS.clusterId}`,
      'insecure-skip-tls-verify': true,
    });
    expect(kc.users[0]?.user.token).toMatch(/^sim-/);
    expect(Date.parse(r.body?.expiration ?? '')).toBeGreaterThan(Date.now());
  });

  it('listClusterAddonInstances gives the CCM version', async () => {
    const r = await csClient(sim).listClusterAddonInstances(IDS.clusterId);
    expect(r.body?.addons?.find((a) => a.name === 'cloud-controller-manager')?.version).toBe('v2.10.0');
  });

  it('generic ROA call answers lowercase error bodies', async () => {
    const err = await callRoa(
      sim,
      'DescribeClusterDetail',
      '/clusters/c00000000000000000000000000000000',
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as ClientError).data).toMatchObject({
      code: 'ErrorClusterNotFound',
      requestId: expect.any(String),
      message: expect.any(String),
    });
  });
});

describe('RAM (@alicloud/ram20150501)', () => {
  it('listRoles pages with Marker/MaxItems', async () => {
    const ram = ramClient(sim);
    const first = await ram.listRoles(new $Ram.ListRolesRequest({ maxItems: 2 }));
    expect(first.body?.isTruncated).toBe(true);
    expect(first.body?.roles?.role).toHaveLength(2);
    const second = await ram.listRoles(
      new $Ram.ListRolesRequest({ maxItems: 2, marker: first.body?.marker }),
    );
    expect(second.body?.isTruncated).toBe(false);
    expect(second.body?.roles?.role?.map((r) => r.roleName)).toEqual(['sim-role-2']);
  });

  it('listPoliciesForRole, getPolicy, getPolicyVersion', async () => {
    const ram = ramClient(sim);
    const refs = await ram.listPoliciesForRole(
      new $Ram.ListPoliciesForRoleRequest({ roleName: IDS.roleName }),
    );
    expect(refs.body?.policies?.policy?.[0]?.policyName).toBe(IDS.policyName);
    const pol = await ram.getPolicy(
      new $Ram.GetPolicyRequest({ policyName: IDS.policyName, policyType: 'Custom' }),
    );
    expect(pol.body?.defaultPolicyVersion?.versionId).toBe('v2');
    expect(JSON.parse(pol.body?.defaultPolicyVersion?.policyDocument ?? '{}')).toMatchObject({
      Version: '1',
    });
    const ver = await ram.getPolicyVersion(
      new $Ram.GetPolicyVersionRequest({ policyName: IDS.policyName, policyType: 'Custom', versionId: 'v2' }),
    );
    expect(ver.body?.policyVersion?.isDefaultVersion).toBe(true);
    await expect(
      ram.listPoliciesForRole(new $Ram.ListPoliciesForRoleRequest({ roleName: 'nope' })),
    ).rejects.toMatchObject({ code: 'EntityNotExist.Role', statusCode: 404 });
  });
});

describe('VPC DescribeVSwitches (@alicloud/vpc20160428)', () => {
  it('pages and filters by VpcId', async () => {
    const vpc = new Vpc(simConfig(sim));
    const all = await vpc.describeVSwitches(
      new $Vpc.DescribeVSwitchesRequest({ regionId: IDS.regionId, pageNumber: 1, pageSize: 50 }),
    );
    expect(all.body?.totalCount).toBe(2);
    expect(all.body?.vSwitches?.vSwitch?.[0]?.vSwitchId).toBe('vsw-bp1simtest0001');
    const other = await vpc.describeVSwitches(
      new $Vpc.DescribeVSwitchesRequest({ regionId: IDS.regionId, vpcId: IDS.otherVpcId }),
    );
    expect(other.body?.vSwitches?.vSwitch?.map((v) => v.availableIpAddressCount)).toEqual([3]);
    await expect(
      vpc.describeVSwitches(new $Vpc.DescribeVSwitchesRequest({ regionId: IDS.regionId, pageSize: 51 })),
    ).rejects.toMatchObject({ code: 'InvalidParameter' });
  });
});

describe('ECS Cloud Assistant (RunCommand / DescribeInvocationResults)', () => {
  it('answers sysctl reads from node-sysctls.json; unknown nodes fail', async () => {
    const ecs = ecsClient(sim);
    const ids = ['i-bp1simtest00000000', 'i-bp1simtest00000001', 'i-bp1simtest00000020'];
    const run = await ecs.runCommand(
      new $Ecs.RunCommandRequest({
        regionId: IDS.regionId,
        type: 'RunShellScript',
        commandContent: 'sysctl -n net.ipv4.ip_local_port_range',
        contentEncoding: 'PlainText',
        instanceId: ids,
      }),
    );
    expect(run.body?.invokeId).toMatch(/^t-/);
    const plain = await ecs.describeInvocationResults(
      new $Ecs.DescribeInvocationResultsRequest({
        regionId: IDS.regionId,
        invokeId: run.body?.invokeId,
        contentEncoding: 'PlainText',
        maxResults: 2,
      }),
    );
    const page1 = plain.body?.invocation?.invocationResults?.invocationResult ?? [];
    expect(page1.map((r) => [r.instanceId, r.invocationStatus, r.output])).toEqual([
      ['i-bp1simtest00000000', 'Success', '1024 65000\n'],
      ['i-bp1simtest00000001', 'Success', '32768 60999\n'],
    ]);
    const page2 = await ecs.describeInvocationResults(
      new $Ecs.DescribeInvocationResultsRequest({
        regionId: IDS.regionId,
        invokeId: run.body?.invokeId,
        contentEncoding: 'PlainText',
        maxResults: 2,
        nextToken: plain.body?.invocation?.nextToken,
      }),
    );
    expect(
      page2.body?.invocation?.invocationResults?.invocationResult?.map((r) => [
        r.instanceId,
        r.invocationStatus,
      ]),
    ).toEqual([['i-bp1simtest00000020', 'Failed']]);
    expect(page2.body?.invocation?.nextToken).toBe('');
    const b64 = await ecs.describeInvocationResults(
      new $Ecs.DescribeInvocationResultsRequest({
        regionId: IDS.regionId,
        invokeId: run.body?.invokeId,
        instanceId: ids[0],
      }),
    );
    expect(
      Buffer.from(
        b64.body?.invocation?.invocationResults?.invocationResult?.[0]?.output ?? '',
        'base64',
      ).toString(),
    ).toBe('1024 65000\n');
    await expect(
      ecs.runCommand(
        new $Ecs.RunCommandRequest({
          regionId: IDS.regionId,
          type: 'RunShellScript',
          commandContent: 'true',
          instanceId: ['i-nope'],
        }),
      ),
    ).rejects.toMatchObject({ code: 'InvalidInstance.NotFound' });
  });
});
