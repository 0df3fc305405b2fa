/**
 * The collectors follow the minimal call plan of `libs/collectors/src/live/CALL-PLAN.md`: a clean
 * live scan makes exactly the documented calls per account, region, CLB and cluster (counted by
 * the simulator, `sim.stats()`; the NLB lists of each region included), and keeps to its QPS budget per account: under the simulator's
 * per-account per-API limits it is never throttled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectLiveFleet, createInMemoryRateLimiter, loadScanConfig, rateLimiterOptionsOf, readFleetDirectory, type ScanConfig } from '@app/collectors';
import { KIND_DATA, LB_KINDS, NLB_DATA, emptyKindWire, kindWireOf, setKindWire, type WireFleet, type WireNlbRegion } from '@app/domain';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { nlbRegionOf } from '../sim/nlb-fleet.util';
import { writeFleet } from './fleet-builder.util';
import { testConfig } from './scan-config.util';

const ACCOUNT = '1000000000000021';
const ceil = (n: number, page: number) => Math.max(1, Math.ceil(n / page));
/** The Quota Center products the crawl asks for quotas and applications: each load-balancer kind's. */
const QUOTA_PRODUCTS = [...new Set(LB_KINDS.map((k) => k.quotaProductCode))];

/**
 * Set each region's NLB data (`WireRegion.nlb`): `byRegion[regionId]`, else none (four empty lists); every other
 * kind with a data path holds empty lists too, so the scan is clean.
 */
function withNlb(fleet: WireFleet, byRegion: Record<string, WireNlbRegion> = {}): WireFleet {
  for (const a of fleet.accounts)
    for (const r of a.regions) {
      for (const data of KIND_DATA) setKindWire(r, data, emptyKindWire(data));
      if (byRegion[r.regionId]) setKindWire(r, NLB_DATA, byRegion[r.regionId]);
    }
  return fleet;
}

/** The calls CALL-PLAN.md predicts for a fleet (default page sizes, one account). */
function plannedCalls(fleet: WireFleet, accountId: string): Record<string, number> {
  const a = fleet.accounts.find((x) => x.account.accountId === accountId);
  if (!a) throw new Error(`no account ${accountId}`);
  const out: Record<string, number> = {};
  const add = (api: string, n: number) => {
    if (n > 0) out[api] = (out[api] ?? 0) + n;
  };
  const roles = a.ram?.roles ?? [];
  const custom = new Set(
    Object.values(a.ram?.rolePolicies ?? {})
      .flat()
      .filter((p) => p.PolicyType === 'Custom')
      .map((p) => p.PolicyName),
  );
  add('AssumeRole', 1);
  add('ListRoles', ceil(roles.length, 100));
  add('ListPoliciesForRole', roles.length);
  add('GetPolicy', custom.size);
  for (const r of a.regions) {
    const lbs = r.loadBalancers ?? [];
    add('DescribeLoadBalancers', ceil(lbs.length, 100));
    add('DescribeLoadBalancerAttribute', lbs.length);
    add('DescribeVServerGroups', lbs.length);
    add('DescribeVServerGroupAttribute', (r.vServerGroups ?? []).length);
    add('DescribeInstances', ceil((r.ecsInstances ?? []).length, 100));
    add('DescribeVSwitches', ceil((r.vSwitches ?? []).length, 50));
    const quotas = r.quotas ?? [];
    for (const product of QUOTA_PRODUCTS)
      add('ListProductQuotas', ceil(quotas.filter((q) => (q.ProductCode ?? 'slb') === product).length, 100));
    const applications = r.quotaApplications ?? [];
    for (const product of QUOTA_PRODUCTS)
      add('ListQuotaApplications', ceil(applications.filter((q) => (q.ProductCode ?? 'slb') === product).length, 200));
    // Each kind's own plan (NLB: CALL-PLAN.md "Per NLB region"), at the largest page its product allows (the default).
    for (const data of KIND_DATA)
      for (const [api, n] of Object.entries(data.plannedCalls(kindWireOf(r, data) ?? emptyKindWire(data), data.product.maxResults.max))) add(api, n);
    add('DescribeClustersV1', ceil(r.clusters.length, 100));
    for (const c of r.clusters) {
      const k = c.kubernetes;
      const nodes = k?.nodes.length ?? 0;
      for (const api of [
        'DescribeClusterDetail',
        'ListClusterAddonInstances',
        'DescribeClusterResources',
        'DescribeClusterUserKubeconfig',
      ])
        add(api, 1);
      add('RunCommand', Math.ceil(nodes / 100));
      add('DescribeInvocationResults', Math.ceil(nodes / 50));
      if (k) {
        add('k8s:list:nodes', ceil(k.nodes.length, 500));
        add('k8s:list:services', ceil(k.services.length, 500));
        add('k8s:list:pods', ceil(k.pods.length, 500));
        add('k8s:list:endpointslices', ceil(k.endpointSlices.length, 500));
        add('k8s:list:events', ceil(k.events.length, 500));
      }
    }
  }
  return out;
}

describe('the live crawl follows the minimal call plan (CALL-PLAN.md)', () => {
  let sim: RunningSimulator;
  let fleet: WireFleet;
  let config: ScanConfig;
  let limited: RunningSimulator;

  beforeAll(async () => {
    const root = writeFleet('callplan', [
      {
        accountId: ACCOUNT,
        name: 'plan',
        roles: 4,
        regions: [
          {
            regionId: 'cn-hangzhou',
            ecsInstances: 130,
            loadBalancers: 120,
            groupsPerLb: 2,
            quotas: 3,
            clusters: [
              { nodes: 120, services: 4, podsPerNode: 1, events: 7 },
              { nodes: 6, services: 2, podsPerNode: 2, events: 1 },
            ],
          },
          {
            regionId: 'cn-beijing',
            ecsInstances: 5,
            loadBalancers: 1,
            groupsPerLb: 3,
            quotas: 0,
            clusters: [],
          },
        ],
      },
    ]);
    // cn-hangzhou: 25 NLBs (2 ListListeners batches), 2 listeners each, 120 servers per group (2 pages), 2 leaked groups
    fleet = withNlb(readFleetDirectory(root), {
      'cn-hangzhou': nlbRegionOf({ loadBalancers: 25, listenersPerLb: 2, serversPerGroup: 120, leakedGroups: 2 }),
    });
    sim = await startSimulator({ fleet });
    config = loadScanConfig(sim.configPath);
    const small = writeFleet('budget', [
      {
        accountId: ACCOUNT,
        name: 'budget',
        roles: 2,
        regions: [
          {
            regionId: 'cn-hangzhou',
            ecsInstances: 12,
            loadBalancers: 40,
            groupsPerLb: 1,
            quotas: 2,
            clusters: [{ nodes: 6, services: 2, podsPerNode: 1, events: 1 }],
          },
        ],
      },
    ]);
    limited = await startSimulator({ fleet: withNlb(readFleetDirectory(small)), qps: { default: 20 } });
  });
  afterAll(async () => {
    await sim?.close();
    await limited?.close();
  });

  it('makes exactly the planned calls with the default page sizes', async () => {
    sim.resetStats();
    const wire = await collectLiveFleet(testConfig(config, { collector: { qpsPerAccount: 1000 } }));
    expect(wire.coverage.filter((c) => c.status === 'failed')).toEqual([]);
    const stats = sim.stats();
    expect(stats.calls[ACCOUNT]).toEqual(plannedCalls(fleet, ACCOUNT));
    // 120 CLBs with 2 groups each: 2 + 2 calls per CLB.
    expect(stats.calls[ACCOUNT]?.['DescribeVServerGroupAttribute']).toBe(120 * 2 + 3);
    // 50 NLB server groups with 120 servers each: 2 pages each; the 2 leaked ones (ServerCount 0) are not asked.
    expect(stats.calls[ACCOUNT]?.['ListServerGroupServers']).toBe(50 * 2);
    expect(stats.calls[ACCOUNT]?.['ListListeners']).toBe(2);
    // Each kind's quotas (SLB, NLB) in each of the 2 regions
    expect(stats.calls[ACCOUNT]?.['ListProductQuotas']).toBe(QUOTA_PRODUCTS.length * 2);
    // and their applications (none filed): one empty page per product and region
    expect(stats.calls[ACCOUNT]?.['ListQuotaApplications']).toBe(QUOTA_PRODUCTS.length * 2);
  });

  it('keeps to qpsPerAccount: never throttled by per-API limits of twice the budget', async () => {
    const base = loadScanConfig(limited.configPath);
    const budget: ScanConfig = {
      ...base,
      collector: { ...base.collector, qpsPerAccount: 10, retryBaseDelayMs: 1, retryMaxDelayMs: 5 },
    };
    // The crawl's own limiter, with the time each call of the account starts (its request is sent from there).
    const limiter = createInMemoryRateLimiter(rateLimiterOptionsOf(budget.collector));
    const starts: number[] = [];
    const wire = await collectLiveFleet(budget, {
      rateLimiter: {
        schedule: (accountId, api, fn) =>
          limiter.schedule(accountId, api, () => {
            if (accountId === ACCOUNT) starts.push(Date.now());
            return fn();
          }),
      },
    }).finally(() => limiter.close());
    expect(wire.coverage.filter((c) => c.status === 'failed')).toEqual([]);
    const stats = limited.stats();
    expect(stats.calls[ACCOUNT]?.['DescribeLoadBalancerAttribute']).toBe(40);
    expect(starts.length).toBeGreaterThan(40);
    // The contract: the simulator's per-API limits of twice the budget never throttle the crawl.
    expect(stats.throttled).toBe(0);
    // The pacing the limiter controls: at most qpsPerAccount calls start in any 1,000 ms (the limiter's clock; a start
    // is recorded as its gate admits it, a millisecond late at most, so one window can hold one more). The simulator's
    // own count (by arrival, in this process) is not asserted this tight: when the 2-core machine deschedules this
    // process, the requests of calls that started on time arrive together once it runs again.
    let most = 0;
    for (let i = 0, j = 0; i < starts.length; i++) {
      while (starts[i]! - starts[j]! >= 1000) j++;
      most = Math.max(most, i - j + 1);
    }
    expect(most).toBeLessThanOrEqual(11);
    expect(stats.maxObservedQps[ACCOUNT]).toBeLessThan(20);
  });
});
