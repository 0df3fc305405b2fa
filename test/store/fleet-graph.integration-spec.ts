/**
 * The stored fleet graph on real PostgreSQL: a scan of the bundled sample fleet stores
 * exactly the graph `buildFleetGraph` derives (every table read back page by page equals it), in the
 * scan's completing transaction; keyset pages forward and backward visit every row once; batch reads
 * answer per parent in one statement; a scoped principal never reads another account's rows.
 */
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeAndStore, analyzeAndStoreShard } from '@app/audit';
import { buildFleetGraph } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import type { FleetGraph, FleetSnapshot } from '@app/domain';
import { accountsScope, ALL_ACCOUNTS, defaultTemplateCacheDir, startEmbeddedPostgres, Store, StoreError, storedFleetGraph, type GraphPage, type GraphPageArgs, type Scoped } from '@app/store';
import { createTestDatabase, type TestDatabase } from './test-database.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const ALL: Scoped = { accountScope: ALL_ACCOUNTS };

/** Every node of a listing, read with pages of `size` forward (first/after). */
async function readForward<T>(read: (args: GraphPageArgs) => Promise<GraphPage<T>>, size: number): Promise<T[]> {
  const out: T[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await read({ first: size, ...(after ? { after } : {}) });
    out.push(...page.edges.map((e) => e.node));
    expect(page.hasPreviousPage).toBe(after !== undefined);
    if (!page.hasNextPage) return out;
    after = page.edges.at(-1)!.cursor;
  }
}

/** Every node of a listing, read with pages of `size` backward (last/before), returned in key order. */
async function readBackward<T>(read: (args: GraphPageArgs) => Promise<GraphPage<T>>, size: number): Promise<T[]> {
  const chunks: T[][] = [];
  let before: string | undefined;
  for (;;) {
    const page = await read({ last: size, ...(before ? { before } : {}) });
    chunks.unshift(page.edges.map((e) => e.node));
    if (!page.hasPreviousPage) return chunks.flat();
    before = page.edges[0]!.cursor;
  }
}

describe('FleetGraphRepository', () => {
  let db: TestDatabase;
  let store: Store;
  let snapshot: FleetSnapshot;
  let graph: ReturnType<typeof storedFleetGraph>;
  let scanId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    snapshot = loadFleetDirectory(SAMPLE);
    const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name });
    scanId = scan.id;
    await analyzeAndStore(snapshot, { scanId, now: new Date('2026-11-20T00:00:00Z'), store });
    // After the analysis: it records each cluster's team on the snapshot (assignTeams), as the stored graph has it. The
    // built graph's backends and NLB servers are the snapshot's entries: compared in their stored form.
    graph = storedFleetGraph(buildFleetGraph(snapshot));
  });

  afterAll(async () => {
    await store?.close();
    await db?.release();
  });

  it('derives a non-trivial graph from the sample fleet', () => {
    expect(graph.clusters.length).toBeGreaterThan(1);
    expect(graph.services.filter((s) => s.loadBalancerId !== null).length).toBeGreaterThan(3);
    expect(new Set(graph.loadBalancers.map((l) => l.owner))).toEqual(new Set(['ccm', 'reused', 'console']));
    expect(graph.ecsInstances.some((e) => e.loadBalancerIds.length > 0)).toBe(true);
    expect(new Set(graph.regions.map((r) => r.accountId)).size).toBeGreaterThan(1);
    // Every CLB's entry count is the sum over its stored server groups.
    for (const lb of graph.loadBalancers) {
      const entries = graph.serverGroups.filter((g) => g.loadBalancerId === lb.loadBalancerId).reduce((n, g) => n + g.backends.length, 0);
      expect(entries).toBe(lb.backendEntries);
    }
  });

  it('stores exactly the derived graph: every table read back in pages equals it', async () => {
    const g = store.graph;
    expect(await g.hasGraph(scanId)).toBe(true);
    expect(await readForward((a) => g.clustersPage(scanId, ALL, a), 2)).toEqual(graph.clusters);
    expect(await readForward((a) => g.servicesPage(scanId, ALL, a), 3)).toEqual(graph.services);
    expect(await readForward((a) => g.loadBalancersPage(scanId, ALL, a), 4)).toEqual(graph.loadBalancers);
    expect(await readForward((a) => g.ecsInstancesPage(scanId, ALL, a), 7)).toEqual(graph.ecsInstances);
    const lbIds = graph.loadBalancers.map((l) => l.loadBalancerId);
    const groups = await g.serverGroupsByLoadBalancerIds(scanId, lbIds, ALL);
    expect([...groups.values()].flat()).toEqual(graph.serverGroups);
    const accounts = await readForward((a) => g.accountsPage(scanId, ALL, a), 1);
    expect(accounts.map((a) => a.accountId)).toEqual([...new Set(graph.regions.map((r) => r.accountId))]);
    const regionPages = await g.regionPagesByAccountIds(scanId, accounts.map((a) => a.accountId), { first: 100 }, ALL);
    expect([...regionPages.values()].flatMap((p) => p.edges.map((e) => e.node))).toEqual(graph.regions);
  });

  it('pages backward (last/before) over the same rows in the same order', async () => {
    const g = store.graph;
    expect(await readBackward((a) => g.servicesPage(scanId, ALL, a), 3)).toEqual(graph.services);
    expect(await readBackward((a) => g.ecsInstancesPage(scanId, ALL, a), 5)).toEqual(graph.ecsInstances);
    const quotas = await readForward((a) => g.quotasPage(scanId, ALL, a), 10);
    expect(quotas.length).toBe(await g.countQuotas(scanId, ALL));
    expect(await readBackward((a) => g.quotasPage(scanId, ALL, a), 10)).toEqual(quotas);
  });

  it('batch reads answer per parent, in the input order, with the same paging for each parent', async () => {
    const g = store.graph;
    const clusterIds = graph.clusters.map((c) => c.clusterId).reverse();
    const pages = await g.servicePagesByClusterIds(scanId, [...clusterIds, 'c-missing'], { first: 2 }, ALL);
    expect(pages).toHaveLength(clusterIds.length + 1);
    clusterIds.forEach((id, i) => {
      const all = graph.services.filter((s) => s.clusterId === id);
      expect(pages[i]!.edges.map((e) => e.node)).toEqual(all.slice(0, 2));
      expect(pages[i]!.hasNextPage).toBe(all.length > 2);
    });
    expect(pages.at(-1)!.edges).toEqual([]);

    const shared = graph.loadBalancers.filter((l) => l.serviceCount > 0).map((l) => l.loadBalancerId);
    const byLb = await g.servicesByLoadBalancerIds(scanId, shared, ALL);
    for (const id of shared) expect(byLb.get(id)).toEqual(graph.services.filter((s) => s.loadBalancerId === id));

    const ecs = graph.ecsInstances.filter((e) => e.loadBalancerIds.length > 0);
    const lbsOfEcs = await g.loadBalancersByEcsIds(scanId, ecs.map((e) => e.instanceId), ALL);
    for (const e of ecs) expect(lbsOfEcs.get(e.instanceId)!.map((l) => l.loadBalancerId)).toEqual(e.loadBalancerIds);

    const some = graph.clusters.slice(0, 2).map((c) => c.clusterId);
    expect((await g.clustersByIds(scanId, some, ALL)).map((c) => c.clusterId)).toEqual(some);
    const regions = graph.regions.map((r) => ({ accountId: r.accountId, regionId: r.regionId }));
    const perRegion = await g.clusterPagesByRegions(scanId, regions, { first: 100 }, ALL);
    expect(perRegion.flatMap((p) => p.edges.map((e) => e.node.clusterId)).sort()).toEqual(graph.clusters.map((c) => c.clusterId));

    const quotaLb = (await g.quotasPage(scanId, ALL, { first: 100 }, { resourceKind: 'LoadBalancer' })).edges[0]?.node;
    if (quotaLb) {
      const byRes = await g.quotasByResources(scanId, [{ kind: 'LoadBalancer', id: quotaLb.resource.id }], ALL);
      expect(byRes.get(`LoadBalancer/${quotaLb.resource.id}`)).toContainEqual(quotaLb);
    }
  });

  it('a scoped principal reads only its accounts, also by id and through batch reads', async () => {
    const g = store.graph;
    const mine = graph.regions[0]!.accountId;
    const scoped: Scoped = { accountScope: accountsScope([mine]) };
    expect(await readForward((a) => g.clustersPage(scanId, scoped, a), 100)).toEqual(graph.clusters.filter((c) => c.accountId === mine));
    expect(await g.countLoadBalancers(scanId, scoped)).toBe(graph.loadBalancers.filter((l) => l.accountId === mine).length);
    const others = graph.loadBalancers.filter((l) => l.accountId !== mine);
    expect(others.length).toBeGreaterThan(0);
    expect(await g.loadBalancersByIds(scanId, others.map((l) => l.loadBalancerId), scoped)).toEqual([]);
    const groups = await g.serverGroupsByLoadBalancerIds(scanId, others.map((l) => l.loadBalancerId), scoped);
    expect([...groups.values()].flat()).toEqual([]);
    const otherEcs = graph.ecsInstances.filter((e) => e.accountId !== mine).map((e) => e.instanceId);
    expect(await g.ecsInstancesByIds(scanId, otherEcs, scoped)).toEqual([]);
    const quotas = await readForward((a) => g.quotasPage(scanId, scoped, a), 100);
    expect(quotas.every((q) => q.resource.accountId === mine)).toBe(true);
    const nobody: Scoped = { accountScope: accountsScope([]) };
    expect((await g.accountsPage(scanId, nobody, { first: 10 })).edges).toEqual([]);
    expect(await g.countClusters(scanId, nobody)).toBe(0);
  });

  it('refuses bad paging with one clear error', async () => {
    const g = store.graph;
    await expect(g.clustersPage(scanId, ALL, {})).rejects.toThrow(/exactly one of `first` and `last`/);
    await expect(g.clustersPage(scanId, ALL, { first: 1, last: 1 })).rejects.toThrow(StoreError);
    await expect(g.clustersPage(scanId, ALL, { first: 0 })).rejects.toThrow(/`first` must be an integer from 1 to 1000, got 0/);
    await expect(g.clustersPage(scanId, ALL, { first: 5, after: 'not-a-cursor' })).rejects.toThrow(/cursor "not-a-cursor" is malformed/);
    expect((await g.clustersPage('not-a-uuid', ALL, { first: 5 })).edges).toEqual([]);
  });

  it('completing the scan again replaces the graph; a failed store leaves none (one transaction)', async () => {
    const again = await store.scans.create({ source: 'offline', fleetName: 'again' });
    const small: FleetGraph = { ...graph, clusters: graph.clusters.slice(0, 1) };
    await store.scans.complete(again.id, { findings: [], coverage: [], graph });
    await store.scans.complete(again.id, { findings: [], coverage: [], graph: small });
    expect(await store.graph.countClusters(again.id, ALL)).toBe(1);

    const broken = await store.scans.create({ source: 'offline', fleetName: 'broken' });
    // A duplicate-free graph whose ECS row violates NOT NULL: the whole completion rolls back.
    const bad = { ...graph, ecsInstances: [{ ...graph.ecsInstances[0]!, privateIps: null as unknown as string[] }] };
    await expect(store.scans.complete(broken.id, { findings: [], coverage: [], graph: bad })).rejects.toThrow();
    expect(await store.graph.hasGraph(broken.id)).toBe(false);
    expect(await store.graph.countLoadBalancers(broken.id, ALL)).toBe(0);
    expect((await store.scans.get(broken.id))!.status).toBe('running');
  });

  it('caches listing counts under the findings generation: a change of the scan row is seen, one behind the store is not', async () => {
    const scan = await store.scans.create({ source: 'offline', fleetName: 'counted' });
    await store.scans.complete(scan.id, { findings: [], coverage: [], graph });
    const n = await store.graph.countEcsInstances(scan.id, ALL);
    expect(n).toBe(graph.ecsInstances.length);
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      // Rows deleted behind the store's back (no generation bump): the cached count answers.
      await sql.query('DELETE FROM graph_ecs_instances WHERE scan_id = $1', [scan.id]);
      expect(await store.graph.countEcsInstances(scan.id, ALL)).toBe(n);
      // Any update of a succeeded scan's row bumps the findings generation (retention marks a pruned scan so): read again.
      await sql.query('UPDATE scans SET pruned_at = now() WHERE id = $1', [scan.id]);
      expect(await store.graph.countEcsInstances(scan.id, ALL)).toBe(0);
    } finally {
      await sql.end();
    }
  });

  it('keeps no listing count of a running scan: rows its shards add are counted at once', async () => {
    const running = await store.scans.create({ source: 'live', fleetName: 'sharded' });
    // A snapshot as a shard reads it (no team recorded on its clusters yet: the shard's analysis records them).
    const fresh = loadFleetDirectory(SAMPLE);
    const account = fresh.accounts[0]!;
    const region = account.regions[0]!;
    expect(region.clusters.every((c) => c.team === undefined)).toBe(true);
    expect(await store.graph.countClusters(running.id, ALL)).toBe(0);
    const shard: FleetSnapshot = {
      name: fresh.name,
      accounts: [{ ...account, regions: [region] }],
      coverage: fresh.coverage.filter((c) => c.accountId === account.accountId && (!c.regionId || c.regionId === region.regionId)),
    };
    const place = { shardKey: `region/${account.accountId}/${region.regionId}`, accountId: account.accountId, regionId: region.regionId, lead: true };
    const { outcome } = await analyzeAndStoreShard(shard, { scanId: running.id, now: new Date('2026-11-20T00:00:00Z'), place, store });
    expect(outcome).toBe('stored');
    expect(region.clusters.length).toBeGreaterThan(0);
    expect(await store.graph.countClusters(running.id, ALL)).toBe(region.clusters.length);
    // Each stored cluster carries its team (the sample fleet's `team` tag), as a whole scan's graph does.
    const stored = (await store.graph.clustersPage(running.id, ALL, { first: 100 })).edges.map((e) => e.node);
    expect(stored.map((c) => c.team)).toEqual(stored.map((c) => graph.clusters.find((g) => g.clusterId === c.clusterId)!.team));
    expect(stored.every((c) => typeof c.team === 'string')).toBe(true);
    await store.scans.fail(running.id, 'test: not completed');
  });

  it('stores and reads the same graph on embedded PGlite (demo), over its single connection', async () => {
    // As `demo` starts it: from the migrated template in the user's cache (initdb, seconds of CPU in WASM, only when
    // there is none yet for this PGlite version and these migrations, which then leaves one).
    const pg = await startEmbeddedPostgres({ templateCacheDir: defaultTemplateCacheDir(process.env) });
    const embedded = await Store.open({ connectionString: pg.connectionString, migrate: true, poolMax: pg.poolMax });
    try {
      await pg.saveTemplate();
      const scan = await embedded.scans.create({ source: 'offline', fleetName: snapshot.name });
      await embedded.scans.complete(scan.id, { findings: [], coverage: [], graph });
      expect(await readForward((a) => embedded.graph.loadBalancersPage(scan.id, ALL, a), 25)).toEqual(graph.loadBalancers);
      expect(await readBackward((a) => embedded.graph.servicesPage(scan.id, ALL, a), 25)).toEqual(graph.services);
      const groups = await embedded.graph.serverGroupsByLoadBalancerIds(scan.id, graph.loadBalancers.map((l) => l.loadBalancerId), ALL);
      expect([...groups.values()].flat()).toEqual(graph.serverGroups);
      const ecs = graph.ecsInstances.find((e) => e.loadBalancerIds.length > 0)!;
      expect((await embedded.graph.loadBalancersByEcsIds(scan.id, [ecs.instanceId], ALL)).get(ecs.instanceId)!.map((l) => l.loadBalancerId)).toEqual(ecs.loadBalancerIds);
    } finally {
      await embedded.close();
      await pg.close();
    }
  });
});
