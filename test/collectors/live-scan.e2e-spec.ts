/**
 * Live collectors end to end: the simulator serves a fleet directory, `scanLive` reads it through
 * the official Alibaba Cloud SDKs and @kubernetes/client-node, and the snapshot must equal what
 * the offline loader reads from the same directory, coverage included, and so must the audit's results
 * (NLBs and their quotas included: "a live scan of a fleet directory equals the offline scan").
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectLiveFleet,
  loadFleetDirectory,
  loadScanConfig,
  readFleetDirectory,
  scanLive,
  type ScanConfig,
  REGION_DATASETS,
} from '@app/collectors';
import { runAudit } from '@app/checks';
import type { CoverageEntry, FleetSnapshot } from '@app/domain';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { writeFleet } from './fleet-builder.util';
import { testConfig } from './scan-config.util';
import { expectLiveEqualsOffline } from './snapshot-compare.util';

/** Small page sizes so every listing needs several pages. */
const SMALL_PAGES = { ecs: 10, slb: 7, nlb: 7, vpc: 4, quotas: 3, cs: 2, ram: 3, kubernetes: 50 };

function withCollector(
  config: ScanConfig,
  pageSizes: Partial<ScanConfig['collector']['pageSizes']>,
): ScanConfig {
  return testConfig(config, { pageSizes });
}

const key = (c: CoverageEntry) => [c.accountId, c.regionId ?? '', c.clusterId ?? '', c.api].join('|');

describe('scanLive against the simulator (synthetic fleet with paging edge cases)', () => {
  let root: string;
  let sim: RunningSimulator;
  let config: ScanConfig;
  /**
   * The one `scanLive` of `config` (small pages) that the snapshot and the audit comparisons both read: the same call
   * on the same unchanged simulator, and neither test changes the snapshot (runAudit and expectLiveEqualsOffline only
   * read it). Crawling it twice took a fifth of the file.
   */
  let liveSmallPages: Promise<FleetSnapshot> | undefined;
  const scanSmallPages = () => (liveSmallPages ??= scanLive(config));

  beforeAll(async () => {
    root = writeFleet('paging', [
      {
        accountId: '1000000000000001',
        name: 'paging-account',
        roles: 10,
        regions: [
          {
            regionId: 'cn-hangzhou',
            ecsInstances: 560,
            loadBalancers: 130,
            groupsPerLb: 2,
            quotas: 10,
            // 45 NLBs: 3 ListListeners batches of <= 20; 93 server groups (3 leaked, ServerCount 0); 23 servers each
            nlb: { loadBalancers: 45, listenersPerLb: 2, serversPerGroup: 23, leakedGroups: 3 },
            nlbQuotas: 4,
            clusters: [
              { nodes: 520, services: 30, podsPerNode: 1, events: 60, nodePortRange: '30000-32767' },
              { nodes: 12, services: 3, podsPerNode: 2, events: 3 },
              { nodes: 3, services: 1, podsPerNode: 1, events: 1 },
            ],
          },
          {
            regionId: 'cn-beijing',
            ecsInstances: 101,
            loadBalancers: 101,
            groupsPerLb: 1,
            quotas: 4,
            // 101 servers per group: 2 pages at the default MaxResults 100
            nlb: { loadBalancers: 3, listenersPerLb: 1, serversPerGroup: 101 },
            clusters: [{ nodes: 5, services: 2, podsPerNode: 1, events: 2 }],
          },
          {
            regionId: 'cn-shanghai',
            ecsInstances: 0,
            loadBalancers: 0,
            groupsPerLb: 0,
            quotas: 1,
            clusters: [],
          },
        ],
      },
    ]);
    sim = await startSimulator({ fleet: readFleetDirectory(root) });
    config = withCollector(loadScanConfig(sim.configPath), SMALL_PAGES);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('reads every page of every listing', async () => {
    const wire = await collectLiveFleet(config);
    const region = wire.accounts[0].regions.find((r) => r.regionId === 'cn-hangzhou');
    expect(region?.ecsInstances).toHaveLength(560);
    expect(region?.loadBalancers).toHaveLength(130);
    expect(region?.vServerGroups).toHaveLength(260);
    expect(region?.quotas).toHaveLength(14);
    expect(region?.nlb?.loadBalancers).toHaveLength(45);
    expect(region?.nlb?.listeners).toHaveLength(90);
    expect(region?.nlb?.serverGroups).toHaveLength(93);
    expect(region?.nlb?.servers).toHaveLength(90 * 23);
    expect(region?.clusters).toHaveLength(3);
    const big = region?.clusters.find((c) => c.kubernetes?.nodes.length === 520);
    expect(big?.kubernetes?.pods).toHaveLength(521);
    expect(big?.kubernetes?.events).toHaveLength(60);
    // Cloud Assistant: 520 nodes, of which the 520 first region instances exist; every 17th is Stopped.
    expect(Object.keys(big?.nodeSysctls ?? {})).toHaveLength(520 - Math.ceil(520 / 17));
    expect(wire.accounts[0].ram?.roles).toHaveLength(10);
    const beijing = wire.accounts[0].regions.find((r) => r.regionId === 'cn-beijing');
    expect(beijing?.ecsInstances).toHaveLength(101);
    expect(beijing?.loadBalancers).toHaveLength(101);
    expect(beijing?.nlb?.servers).toHaveLength(303);
    const shanghai = wire.accounts[0].regions.find((r) => r.regionId === 'cn-shanghai');
    expect(shanghai?.nlb).toEqual({ loadBalancers: [], listeners: [], serverGroups: [], servers: [] });
  });

  it('reads the same fleet with the default (maximum) page sizes: 560 ECS and 130 CLBs need 6 and 2 pages', async () => {
    const defaults = testConfig(loadScanConfig(sim.configPath));
    expect(defaults.collector.pageSizes).toMatchObject({ ecs: 100, slb: 100, kubernetes: 500 });
    expectLiveEqualsOffline(await scanLive(defaults), loadFleetDirectory(root));
  });

  it('produces the same snapshot as the offline loader, coverage included', async () => {
    expectLiveEqualsOffline(await scanSmallPages(), loadFleetDirectory(root));
  });

  it('gives the same audit results as the offline scan, NLB checks included', async () => {
    const now = new Date('2026-11-26T00:00:00Z');
    const live = runAudit(await scanSmallPages(), { now });
    const offline = runAudit(loadFleetDirectory(root), { now });
    expect(live.results).toEqual(offline.results);
    expect(live.findings).toEqual(offline.findings);
    expect(live.results.length).toBeGreaterThan(0);
  });
});

describe('scanLive with an unknown AccessKey', () => {
  let sim: RunningSimulator;
  let config: ScanConfig;

  beforeAll(async () => {
    const root = writeFleet('badkey', [
      {
        accountId: '1000000000000002',
        name: 'a',
        roles: 2,
        regions: [
          {
            regionId: 'cn-hangzhou',
            ecsInstances: 3,
            loadBalancers: 2,
            groupsPerLb: 1,
            quotas: 2,
            clusters: [{ nodes: 2, services: 1, podsPerNode: 1, events: 1 }],
          },
        ],
      },
    ]);
    sim = await startSimulator({ fleet: readFleetDirectory(root) });
    const raw = JSON.parse(readFileSync(sim.configPath, 'utf8')) as {
      credentials: { accessKeyId: string; accessKeySecret: string };
    };
    raw.credentials = { accessKeyId: 'LTAI-unknown-key-0001', accessKeySecret: 'wrong-secret-0001' };
    writeFileSync(sim.configPath, JSON.stringify(raw));
    config = withCollector(loadScanConfig(sim.configPath), {});
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('records every dataset as failed with InvalidAccessKeyId.NotFound and does not crash', async () => {
    const snap = await scanLive(config);
    expect(snap.coverage.map((c) => c.api).sort()).toEqual(['ram', ...REGION_DATASETS].sort()); // cs, ecs, nlb, quota-applications, quotas, ram, slb, vpc
    for (const c of snap.coverage) {
      expect(c.status, key(c)).toBe('failed');
      expect(c.errorCode, key(c)).toBe('InvalidAccessKeyId.NotFound');
      expect(c.message).not.toContain('LTAI-unknown-key-0001');
      expect(c.message).not.toContain('wrong-secret-0001');
    }
    expect(snap.accounts[0].ram).toBeUndefined();
    expect(snap.accounts[0].regions[0].loadBalancers).toBeUndefined();
    expect(snap.accounts[0].regions[0].clusters).toEqual([]);
  });
});
