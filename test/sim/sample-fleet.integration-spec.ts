/**
 * Round trip on the bundled sample fleet: what the simulator serves through the SDK wire format
 * equals what `readFleetDirectory` read (the bodies are served back unchanged), and plain HTTP
 * (SDKs) and HTTPS (kubectl-style Kubernetes clients) share the port under concurrent load.
 */
import { join } from 'node:path';
import * as $Cs from '@alicloud/cs20151215';
import * as $Ecs from '@alicloud/ecs20140526';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { readFleetDirectory } from '@app/collectors';
import type { WireAccount, WireFleet } from '@app/domain';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRoa, callRpc, csClient, ecsClient } from './sim-clients.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
let fleet: WireFleet;
let account: WireAccount;
let sim: RunningSimulator;

beforeAll(async () => {
  fleet = readFleetDirectory(SAMPLE);
  sim = await startSimulator({ fleet });
  const served = fleet.accounts.find((a) => a.account.accountId === sim.accountId);
  if (!served) throw new Error('served account not in the fleet');
  account = served;
});
afterAll(async () => {
  await sim.close();
});

const strip = (b: Record<string, unknown>): Record<string, unknown> => {
  const rest = { ...b };
  delete rest['RequestId'];
  return rest;
};

describe('sample fleet round trip', () => {
  it('serves the management account (else the first one)', () => {
    const expected = fleet.accounts.find((a) => a.account.management === true) ?? fleet.accounts[0];
    expect(sim.accountId).toBe(expected?.account.accountId);
  });

  it('CLBs and vServer groups come back exactly as stored', async () => {
    for (const region of account.regions) {
      const ids: string[] = [];
      for (let page = 1; ; page++) {
        const b = await callRpc(sim, 'DescribeLoadBalancers', '2014-05-15', {
          RegionId: region.regionId,
          PageNumber: page,
          PageSize: 2,
        });
        const items = (b['LoadBalancers'] as { LoadBalancer: { LoadBalancerId: string }[] }).LoadBalancer;
        ids.push(...items.map((l) => l.LoadBalancerId));
        if (page * 2 >= (b['TotalCount'] as number)) break;
      }
      expect(ids).toEqual((region.loadBalancers ?? []).map((l) => l.LoadBalancerId));
      for (const lb of region.loadBalancers ?? []) {
        const attr = await callRpc(sim, 'DescribeLoadBalancerAttribute', '2014-05-15', {
          RegionId: region.regionId,
          LoadBalancerId: lb.LoadBalancerId,
        });
        expect(strip(attr)).toEqual(JSON.parse(JSON.stringify(lb)));
        const groups = await callRpc(sim, 'DescribeVServerGroups', '2014-05-15', {
          RegionId: region.regionId,
          LoadBalancerId: lb.LoadBalancerId,
        });
        const groupIds = (
          groups['VServerGroups'] as { VServerGroup: { VServerGroupId: string }[] }
        ).VServerGroup.map((g) => g.VServerGroupId);
        expect(groupIds).toEqual(
          (region.vServerGroups ?? [])
            .filter((g) => g.LoadBalancerId === lb.LoadBalancerId)
            .map((g) => g.VServerGroupId),
        );
        for (const id of groupIds) {
          const g = await callRpc(sim, 'DescribeVServerGroupAttribute', '2014-05-15', {
            RegionId: region.regionId,
            VServerGroupId: id,
          });
          expect(strip(g)).toEqual(
            JSON.parse(JSON.stringify((region.vServerGroups ?? []).find((x) => x.VServerGroupId === id))),
          );
        }
      }
    }
  });

  it('ECS instances and ACK clusters come back exactly as stored', async () => {
    for (const region of account.regions) {
      const got: unknown[] = [];
      let token: string | undefined;
      do {
        const b = await callRpc(sim, 'DescribeInstances', '2014-05-26', {
          RegionId: region.regionId,
          MaxResults: 10,
          ...(token ? { NextToken: token } : {}),
        });
        got.push(...(b['Instances'] as { Instance: unknown[] }).Instance);
        token = (b['NextToken'] as string) || undefined;
      } while (token);
      expect(got).toEqual(JSON.parse(JSON.stringify(region.ecsInstances ?? [])));
      for (const c of region.clusters) {
        const detail = await callRoa(sim, 'DescribeClusterDetail', `/clusters/${c.detail.cluster_id}`);
        expect(detail).toEqual(JSON.parse(JSON.stringify(c.detail)));
      }
    }
    const listed = await csClient(sim).describeClustersV1(
      new $Cs.DescribeClustersV1Request({ pageSize: 100 }),
    );
    expect(listed.body?.clusters?.map((c) => c.clusterId)).toEqual(
      account.regions.flatMap((r) => r.clusters.map((c) => c.detail.cluster_id)),
    );
  });

  it('a region without quotas.json answers an empty Quotas list, as the real Quota Center does', async () => {
    const withoutQuotas = account.regions.find((r) => r.quotas === undefined);
    if (!withoutQuotas) throw new Error('the sample fleet is expected to have a region without quotas.json');
    const body = await callRpc(
      sim,
      'ListProductQuotas',
      '2020-05-10',
      { ProductCode: 'slb', Dimensions: [{ Key: 'regionId', Value: withoutQuotas.regionId }] },
      { inBody: true },
    );
    expect(body).toMatchObject({ TotalCount: 0, Quotas: [] });
    expect(body['NextToken']).toBeUndefined();
  });

  it('HTTP and HTTPS share the port under 120 concurrent requests', async () => {
    const cluster = account.regions.flatMap((r) => r.clusters).find((c) => c.kubernetes !== undefined);
    if (!cluster) throw new Error('sample fleet has no cluster with Kubernetes objects');
    // The sample's clusters have only an intranet endpoint: the simulator's second port, which serves every API
    // too. The ECS calls go to that port as well, so both protocols share it.
    const kc = await csClient(sim).describeClusterUserKubeconfig(
      cluster.detail.cluster_id,
      new $Cs.DescribeClusterUserKubeconfigRequest({ privateIpAddress: true }),
    );
    const config = new KubeConfig();
    config.loadFromString(kc.body?.config ?? '');
    expect(config.getCurrentCluster()?.server).toContain(sim.intranetEndpoint);
    const core = config.makeApiClient(CoreV1Api);
    const ecs = ecsClient(sim, { endpoint: sim.intranetEndpoint });
    const region = account.regions[0]?.regionId ?? 'cn-hangzhou';
    const nodes = cluster.kubernetes?.nodes.length ?? 0;
    const calls = Array.from({ length: 120 }, (_, i) =>
      i % 2 === 0
        ? core.listNode().then((l) => expect(l.items).toHaveLength(nodes))
        : ecs
            .describeInstances(new $Ecs.DescribeInstancesRequest({ regionId: region, maxResults: 10 }))
            .then((r) => expect(r.body?.requestId).toBeTruthy()),
    );
    await Promise.all(calls);
  });
});
