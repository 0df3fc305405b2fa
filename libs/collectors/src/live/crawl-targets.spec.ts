import { describe, expect, it } from 'vitest';
import type { WireCluster } from '@app/domain';
import { assembleWireFleet, NOT_CRAWLED, REGION_DATASETS, type TargetSlice } from './crawl-targets';
import { parseScanConfig } from './scan-config.loader';

const config = parseScanConfig(
  JSON.stringify({
    name: 'f',
    accounts: [
      { accountId: '2', name: 'two', regions: ['cn-hangzhou', 'cn-beijing'] },
      { accountId: '1', regions: ['cn-hangzhou'] },
    ],
  }),
  'c.json',
);

const c1 = 'c' + '1'.repeat(32);
const c2 = 'c' + '2'.repeat(32);
const c3 = 'c' + '3'.repeat(32);
const cluster = (id: string, regionId: string): WireCluster => ({
  detail: { cluster_id: id, name: id.slice(0, 4), region_id: regionId, cluster_type: 'ManagedKubernetes' },
});
const ok = (accountId: string, api: string, regionId?: string, clusterId?: string) =>
  ({
    accountId,
    ...(regionId ? { regionId } : {}),
    ...(clusterId ? { clusterId } : {}),
    api,
    status: 'ok',
  }) as TargetSlice['coverage'][number];
const regionOk = (accountId: string, regionId: string) =>
  ['slb', 'nlb', 'ecs', 'vpc', 'quotas', 'cs'].map((api) => ok(accountId, api, regionId));
const clusterOk = (accountId: string, regionId: string, clusterId: string) =>
  ['cluster', 'addons', 'resources', 'kubernetes', 'sysctls'].map((api) =>
    ok(accountId, api, regionId, clusterId),
  );

const slices: TargetSlice[] = [
  {
    target: { kind: 'account', accountId: '2' },
    ram: { roles: [], policies: [], rolePolicies: {} },
    coverage: [ok('2', 'ram')],
  },
  { target: { kind: 'account', accountId: '1' }, coverage: [ok('1', 'ram')] },
  {
    target: { kind: 'region', accountId: '2', regionId: 'cn-hangzhou' },
    region: { regionId: 'cn-hangzhou', loadBalancers: [], vServerGroups: [] },
    clusterIds: [c2, c1, c3],
    coverage: regionOk('2', 'cn-hangzhou'),
  },
  {
    target: { kind: 'region', accountId: '2', regionId: 'cn-beijing' },
    region: { regionId: 'cn-beijing' },
    clusterIds: [],
    coverage: regionOk('2', 'cn-beijing'),
  },
  {
    target: { kind: 'cluster', accountId: '2', regionId: 'cn-hangzhou', clusterId: c1 },
    cluster: cluster(c1, 'cn-hangzhou'),
    coverage: clusterOk('2', 'cn-hangzhou', c1),
  },
  // c2: CS said it no longer exists.
  { target: { kind: 'cluster', accountId: '2', regionId: 'cn-hangzhou', clusterId: c2 }, coverage: [] },
  // c3: no slice at all. Region 1/cn-hangzhou: no slice at all.
];

describe('assembleWireFleet', () => {
  it('is the same whatever the slice order', () => {
    const a = assembleWireFleet(config, slices);
    const b = assembleWireFleet(config, [...slices].reverse());
    const c = assembleWireFleet(config, [slices[4], slices[2], slices[0], slices[5], slices[3], slices[1]]);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it('keeps config account order, sorts regions and clusters, drops vanished clusters', () => {
    const f = assembleWireFleet(config, slices);
    expect(f.accounts.map((a) => a.account.accountId)).toEqual(['2', '1']);
    expect(f.accounts[0].account).toEqual({
      accountId: '2',
      name: 'two',
      regions: ['cn-beijing', 'cn-hangzhou'],
    });
    expect(f.accounts[0].regions.map((r) => r.regionId)).toEqual(['cn-beijing', 'cn-hangzhou']);
    expect(f.accounts[0].regions[1].clusters.map((c) => c.detail.cluster_id)).toEqual([c1, c3]);
    expect(f.accounts[0].ram).toEqual({ roles: [], policies: [], rolePolicies: {} });
  });

  it('reports a listed cluster without a slice as NotCrawled, keeping it with a placeholder detail', () => {
    const f = assembleWireFleet(config, slices);
    const placeholder = f.accounts[0].regions[1].clusters[1];
    expect(placeholder).toEqual({
      detail: { cluster_id: c3, name: '', region_id: 'cn-hangzhou', cluster_type: '' },
    });
    const of3 = f.coverage.filter((c) => c.clusterId === c3);
    expect(of3.map((c) => c.api).sort()).toEqual(['addons', 'cluster', 'kubernetes', 'resources', 'sysctls']);
    expect(of3.every((c) => c.status === 'failed' && c.errorCode === NOT_CRAWLED)).toBe(true);
    expect(f.coverage.filter((c) => c.clusterId === c2)).toEqual([]);
  });

  it('reports a region without a slice as NotCrawled for each region dataset', () => {
    const f = assembleWireFleet(config, slices);
    const region = f.accounts[1].regions[0];
    expect(region).toEqual({ regionId: 'cn-hangzhou', clusters: [] });
    expect(
      f.coverage
        .filter((c) => c.accountId === '1' && c.regionId === 'cn-hangzhou')
        .map((c) => [c.api, c.errorCode]),
    ).toEqual(
      // cs, ecs, nlb (and any other kind's dataset), quota-applications, quotas, slb, vpc: in coverage order
      [...REGION_DATASETS].sort().map((api) => [api, NOT_CRAWLED]),
    );
  });

  it('picks the duplicate slice of a target with fewer failures, whatever the order', () => {
    const failed: TargetSlice = {
      target: { kind: 'account', accountId: '1' },
      coverage: [
        { accountId: '1', api: 'ram', status: 'failed', errorCode: 'Throttling.User', message: 'x' },
      ],
    };
    for (const order of [
      [...slices, failed],
      [failed, ...slices],
    ]) {
      const f = assembleWireFleet(config, order);
      expect(f.coverage.find((c) => c.accountId === '1' && c.api === 'ram')?.status).toBe('ok');
    }
  });

  it('is JSON-serialisable: slices survive a JSON round trip unchanged', () => {
    const round = JSON.parse(JSON.stringify(slices)) as TargetSlice[];
    expect(assembleWireFleet(config, round)).toEqual(assembleWireFleet(config, slices));
  });
});
