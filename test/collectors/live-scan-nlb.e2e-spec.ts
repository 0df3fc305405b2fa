/**
 * The live NLB crawl against the simulator, through openapi-core's generic client:
 * every page of ListLoadBalancers, ListListeners (<= 20 NLB ids per call), ListServerGroups and
 * ListServerGroupServers (only groups with `ServerCount` > 0) read back into `WireRegion.nlb` unchanged,
 * with exactly the calls CALL-PLAN.md predicts; throttled calls retried; an `nlb:*` action the audit role
 * lacks, or NLB data the fleet does not hold, is an `nlb` coverage gap naming the action while the other
 * datasets of the region are read. NLB quotas (`ProductCode=nlb`) are read into the `quotas` dataset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectLiveFleet,
  leastPrivilegePolicy,
  loadScanConfig,
  readFleetDirectory,
  type RamPolicyDocument,
  type ScanConfig,
} from '@app/collectors';
import { KIND_DATA, NLB_DATA, emptyKindWire, type WireFleet, type WireNlbRegion, type WireRegion } from '@app/domain';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { nlbRegionOf } from '../sim/nlb-fleet.util';
import { writeFleet } from './fleet-builder.util';
import { testConfig } from './scan-config.util';

const ACCOUNT = '1000000000000031';
const ceil = (n: number, page: number) => Math.max(1, Math.ceil(n / page));

/** 45 NLBs (3 batches of ListListeners), 2 listeners each, 23 servers per group, 3 leaked groups (ServerCount 0). */
const HANGZHOU_NLB = nlbRegionOf({ loadBalancers: 45, listenersPerLb: 2, serversPerGroup: 23, leakedGroups: 3 });
const NLB_QUOTAS = [
  { ProductCode: 'nlb', QuotaActionCode: 'nlb_quota_servergroups_num', TotalQuota: 3000, Dimensions: { regionId: 'cn-hangzhou' } },
  { ProductCode: 'nlb', QuotaActionCode: 'nlb_quota_server_added_num', TotalQuota: 200, Dimensions: { regionId: 'cn-hangzhou' } },
];
const EMPTY_NLB: WireNlbRegion = { loadBalancers: [], listeners: [], serverGroups: [], servers: [] };

/** How many regions `nlbFleet` has. */
const FLEET_REGIONS = 2;

/** A two-region fleet whose cn-hangzhou has NLBs and NLB quotas, cn-beijing none. */
function nlbFleet(): WireFleet {
  const fleet = readFleetDirectory(
    writeFleet('nlblive', [
      {
        accountId: ACCOUNT,
        name: 'nlb',
        roles: 2,
        regions: [
          {
            regionId: 'cn-hangzhou',
            ecsInstances: 12,
            loadBalancers: 3,
            groupsPerLb: 1,
            quotas: 2,
            clusters: [{ nodes: 3, services: 1, podsPerNode: 1, events: 1 }],
          },
          { regionId: 'cn-beijing', ecsInstances: 2, loadBalancers: 1, groupsPerLb: 1, quotas: 1, clusters: [] },
        ],
      },
    ]),
  );
  const regions = fleet.accounts[0]?.regions ?? [];
  const hz = regions.find((r) => r.regionId === 'cn-hangzhou') as WireRegion;
  hz.nlb = HANGZHOU_NLB;
  hz.quotas = [...(hz.quotas ?? []), ...NLB_QUOTAS];
  (regions.find((r) => r.regionId === 'cn-beijing') as WireRegion).nlb = EMPTY_NLB;
  return fleet;
}

/** The NLB calls CALL-PLAN.md predicts for one region's NLB data at page size `page`. */
function plannedNlbCalls(nlb: WireNlbRegion, page: number): Record<string, number> {
  let listeners = 0;
  for (let i = 0; i < nlb.loadBalancers.length; i += 20) {
    const batch = new Set(nlb.loadBalancers.slice(i, i + 20).map((l) => l.LoadBalancerId));
    listeners += ceil(nlb.listeners.filter((l) => batch.has(l.LoadBalancerId)).length, page);
  }
  const servers = nlb.serverGroups
    .filter((g) => (g.ServerCount ?? 0) > 0)
    .reduce((n, g) => n + ceil(g.ServerCount ?? 0, page), 0);
  return {
    ListLoadBalancers: ceil(nlb.loadBalancers.length, page),
    ...(listeners > 0 ? { ListListeners: listeners } : {}),
    ListServerGroups: ceil(nlb.serverGroups.length, page),
    ...(servers > 0 ? { ListServerGroupServers: servers } : {}),
  };
}

const NLB_ACTIONS = ['ListLoadBalancers', 'ListListeners', 'ListServerGroups', 'ListServerGroupServers'];
/**
 * The NLB crawl's calls of the account: the simulator counts calls by action name, not by product, so the calls the
 * other kinds' crawls make under an NLB action's name (one page of each of their lists per region of `nlbFleet`,
 * which holds none of their resources) are taken off.
 */
const nlbCallsOf = (sim: RunningSimulator): Record<string, number> => {
  const calls = { ...(sim.stats().calls[ACCOUNT] ?? {}) };
  for (const data of KIND_DATA)
    if (data !== NLB_DATA)
      for (const [action, n] of Object.entries(data.plannedCalls(emptyKindWire(data), data.product.maxResults.default)))
        if (calls[action] !== undefined) calls[action] -= n * FLEET_REGIONS;
  return Object.fromEntries(Object.entries(calls).filter(([api]) => NLB_ACTIONS.includes(api)));
};
const regionOf = (w: WireFleet, regionId: string) => w.accounts[0]?.regions.find((r) => r.regionId === regionId);
const coverageOf = (w: WireFleet, regionId: string, api: string) =>
  w.coverage.find((c) => c.regionId === regionId && c.api === api);

describe('live NLB crawl through the simulator', () => {
  let sim: RunningSimulator;
  let config: ScanConfig;

  beforeAll(async () => {
    sim = await startSimulator({ fleet: nlbFleet() });
    config = testConfig(loadScanConfig(sim.configPath), { pageSizes: { nlb: 7 } });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('reads every page of the four NLB lists back unchanged, with exactly the planned calls', async () => {
    sim.resetStats();
    const wire = await collectLiveFleet(config);
    expect(wire.coverage.filter((c) => c.status === 'failed')).toEqual([]);
    expect(coverageOf(wire, 'cn-hangzhou', 'nlb')?.status).toBe('ok');
    expect(regionOf(wire, 'cn-hangzhou')?.nlb).toEqual(HANGZHOU_NLB);
    expect(regionOf(wire, 'cn-beijing')?.nlb).toEqual(EMPTY_NLB);
    // cn-hangzhou at 7 per page: 7 + (6 + 6 + 2) + 14 + 90 x 4; cn-beijing: the two empty lists
    const hz = plannedNlbCalls(HANGZHOU_NLB, 7);
    expect(hz).toEqual({ ListLoadBalancers: 7, ListListeners: 14, ListServerGroups: 14, ListServerGroupServers: 360 });
    expect(nlbCallsOf(sim)).toEqual({ ...hz, ListLoadBalancers: 8, ListServerGroups: 15 });
  });

  it('reads the NLB quotas (ProductCode nlb) into the quotas dataset after the SLB ones', async () => {
    const wire = await collectLiveFleet(config);
    const codes = (regionOf(wire, 'cn-hangzhou')?.quotas ?? []).map((q) => `${q.ProductCode ?? 'slb'}:${q.QuotaActionCode}`);
    expect(codes.slice(-2)).toEqual(NLB_QUOTAS.map((q) => `nlb:${q.QuotaActionCode}`));
    expect(codes.filter((c) => c.startsWith('nlb:'))).toHaveLength(2);
    expect(coverageOf(wire, 'cn-hangzhou', 'quotas')?.status).toBe('ok');
  });
});

describe('live NLB crawl when calls are throttled or refused', () => {
  let sim: RunningSimulator | undefined;
  afterAll(async () => {
    await sim?.close();
  });
  const start = async (o: Parameters<typeof startSimulator>[0]) => {
    await sim?.close();
    sim = await startSimulator(o);
    return sim;
  };

  it('retries throttled NLB calls (Throttling.User) and still reads everything', async () => {
    const s = await start({ fleet: nlbFleet(), faults: 'throttle=0.25', seed: 7 });
    const wire = await collectLiveFleet(
      testConfig(loadScanConfig(s.configPath), { pageSizes: { nlb: 10 }, collector: { maxAttempts: 10 } }),
    );
    const stats = s.stats();
    expect(stats.throttled).toBeGreaterThan(0);
    expect(wire.coverage.filter((c) => c.status === 'failed')).toEqual([]);
    expect(regionOf(wire, 'cn-hangzhou')?.nlb).toEqual(HANGZHOU_NLB);
  });

  it.each(['nlb:ListServerGroupServers', 'nlb:ListLoadBalancers'])(
    'without %s the nlb dataset is a coverage gap naming the action; the other datasets are read',
    async (missing) => {
      const policy = leastPrivilegePolicy(undefined, { nodeSysctls: true });
      const actions = policy.Statement[0]?.Action as string[];
      expect(actions).toContain(missing);
      const without: RamPolicyDocument = {
        Version: '1',
        Statement: [{ Effect: 'Allow', Action: actions.filter((a) => a !== missing), Resource: '*' }],
      };
      const s = await start({ fleet: nlbFleet(), ramPolicy: without });
      const wire = await collectLiveFleet(testConfig(loadScanConfig(s.configPath)));
      const refused = wire.coverage.filter((c) => c.status === 'failed');
      // cn-beijing has no server group, so ListServerGroupServers is never called there
      expect(refused.map((c) => `${c.regionId}/${c.api}`).sort()).toEqual(
        missing === 'nlb:ListServerGroupServers' ? ['cn-hangzhou/nlb'] : ['cn-beijing/nlb', 'cn-hangzhou/nlb'],
      );
      for (const r of refused) {
        expect(r.errorCode).toBe('Forbidden.RAM');
        expect(r.message).toContain(missing);
      }
      expect(regionOf(wire, 'cn-hangzhou')?.nlb).toBeUndefined();
      expect(regionOf(wire, 'cn-hangzhou')?.loadBalancers).toHaveLength(3);
      expect(coverageOf(wire, 'cn-hangzhou', 'slb')?.status).toBe('ok');
    },
  );

  it('a region whose NLB data the fleet does not hold is an nlb gap (403), the CLBs of it are read', async () => {
    const fleet = nlbFleet();
    delete (regionOf(fleet, 'cn-beijing') as WireRegion).nlb;
    const s = await start({ fleet });
    const wire = await collectLiveFleet(testConfig(loadScanConfig(s.configPath)));
    expect(coverageOf(wire, 'cn-beijing', 'nlb')).toMatchObject({ status: 'failed', errorCode: 'Forbidden.RAM' });
    expect(coverageOf(wire, 'cn-beijing', 'nlb')?.message).toContain('ListLoadBalancers');
    expect(coverageOf(wire, 'cn-beijing', 'slb')?.status).toBe('ok');
    expect(coverageOf(wire, 'cn-hangzhou', 'nlb')?.status).toBe('ok');
    expect(regionOf(wire, 'cn-beijing')?.nlb).toBeUndefined();
  });
});
