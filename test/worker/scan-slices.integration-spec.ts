/**
 * A target slice stored in parts (scan_targets.slice_parts, libs/collectors slice-parts.ts) reads
 * back, through the worker's snapshot loader (splitTargets, snapshotOfTargets), to the same snapshot as the same
 * slice stored whole: for a shard (listForPlace, the config reduced to the shard) and for the whole scan.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFleet, generateSpecSchema, scanConfigSchema, slicePartsOf, type ScanConfig, type TargetSlice } from '@app/collectors';
import { targetKey, type WireFleet } from '@app/domain';
import { Store } from '@app/store';
import { configOfShard, shardsOf, snapshotOfTargets, splitTargets } from '@app/worker';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

/** The slices crawl jobs write for a fleet: one per account, (account, region) and cluster. */
function slicesOf(fleet: WireFleet): TargetSlice[] {
  const out: TargetSlice[] = [];
  for (const a of fleet.accounts) {
    const accountId = a.account.accountId;
    out.push({ target: { kind: 'account', accountId }, ...(a.ram ? { ram: a.ram } : {}), coverage: [] });
    for (const { clusters, ...region } of a.regions) {
      const regionId = region.regionId;
      out.push({ target: { kind: 'region', accountId, regionId }, region, clusterIds: clusters.map((c) => c.detail.cluster_id), coverage: [] });
      for (const cluster of clusters)
        out.push({ target: { kind: 'cluster', accountId, regionId, clusterId: cluster.detail.cluster_id }, cluster, coverage: [] });
    }
  }
  return out;
}

describe('target slices stored in parts', () => {
  let db: TestDatabase;
  let store: Store;
  let config: ScanConfig;
  let whole: string;
  let inParts: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    const fleet = generateFleet(
      generateSpecSchema.parse({
        seed: 23,
        accounts: 2,
        regions: ['cn-hangzhou', 'cn-beijing'],
        clusters: 8,
        nodesPerCluster: 6,
        servicesPerCluster: 8,
        nlbServicesPerCluster: 3,
        shares: { orphaned: 0.2, reused: 0.1, misconfigured: 0.2, nlbLeakedServerGroups: 0.3 },
      }),
    ).fleet;
    config = scanConfigSchema.parse({
      name: fleet.name,
      accounts: fleet.accounts.map((a) => ({ accountId: a.account.accountId, name: a.account.name, regions: a.regions.map((r) => r.regionId) })),
    });
    whole = (await store.scans.create({ source: 'distributed', fleetName: fleet.name })).id;
    inParts = (await store.scans.create({ source: 'distributed', fleetName: fleet.name })).id;
    for (const slice of slicesOf(fleet)) {
      const key = targetKey(slice.target);
      await store.scanTargets.saveSlice(whole, key, slice.target, slice);
      await store.scanTargets.saveSliceParts(inParts, key, slice.target, slicePartsOf(slice, 4));
    }
  });

  afterAll(async () => {
    await store?.close();
    await db?.release();
  });

  it("reads each shard's slices to the snapshot of the slices stored whole, a region's lists one part at a time", async () => {
    const shards = shardsOf(config);
    expect(shards.length).toBe(4);
    for (const shard of shards) {
      const reasonOf = () => 'not crawled';
      const wholeRows = await store.scanTargets.listForPlace(whole, shard.accountId, shard.regionId);
      const partRows = await store.scanTargets.listForPlace(inParts, shard.accountId, shard.regionId);
      // The region's slice is in several parts (its CLB, ECS and NLB lists are longer than 4), the others whole.
      const region = partRows.find((r) => r.target.kind === 'region')!;
      expect(region.parts!.length).toBeGreaterThan(4);
      expect(partRows.filter((r) => r.target.kind !== 'region').every((r) => r.parts!.length === 1)).toBe(true);
      const shardConfig = configOfShard(config, shard);
      const fromWhole = snapshotOfTargets(shardConfig, splitTargets(wholeRows, reasonOf));
      const fromParts = snapshotOfTargets(shardConfig, splitTargets(partRows, reasonOf));
      expect(fromParts.accounts[0]!.regions[0]!.loadBalancers!.length).toBeGreaterThan(4);
      // Field order included (the snapshot part a shard stores is this JSON).
      expect(JSON.stringify(fromParts)).toBe(JSON.stringify(fromWhole));
    }
  });

  it('reads the whole scan (ANALYZE_SHARDS=false) to the same snapshot either way', async () => {
    const reasonOf = () => 'not crawled';
    const fromWhole = snapshotOfTargets(config, splitTargets(await store.scanTargets.listForScan(whole), reasonOf));
    const fromParts = snapshotOfTargets(config, splitTargets(await store.scanTargets.listForScan(inParts), reasonOf));
    expect(fromParts.accounts.flatMap((a) => a.regions).every((r) => (r.nlbServerGroups?.length ?? 0) > 0)).toBe(true);
    expect(JSON.stringify(fromParts)).toBe(JSON.stringify(fromWhole));
  });
});
