/**
 * The stored fleet graph over REST on a real PostgreSQL: `/v1/clusters`,
 * `/v1/load-balancers/{id}` (its Services, server groups and backends, quotas) and
 * `/v1/ecs-instances/{id}` (its CLBs), and the filtered, keyset-paged lists `/v1/load-balancers` and
 * `/v1/ecs-instances`, for a scan of the bundled sample fleet stored by `analyzeAndStore`.
 * The oracle is `buildFleetGraph(snapshot)` (what the scan stores) and the stored quota samples; a token
 * scoped to one account sees only its objects, and another account's object answers 404 exactly like an
 * absent one.
 */
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeAndStore } from '@app/audit';
import { buildFleetGraph } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import type { FleetGraph, QuotaUsageSample } from '@app/domain';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store, SYSTEM_PRINCIPAL } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const BOOTSTRAP = 'fleet-graph-rest-e2e-bootstrap-0123456789';
const KEY = 'fleet-graph-rest-e2e-hash-key-0123456789abcdef-0';

describe('fleet graph REST: clusters, load balancers, ECS instances (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let graph: FleetGraph;
  let scanId: string;
  let samples: QuotaUsageSample[];
  const tokens: Record<string, string> = {};
  const http = () => request(app.getHttpServer());
  const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
  let accounts: string[];

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const snapshot = loadFleetDirectory(SAMPLE);
    const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name });
    scanId = scan.id;
    await analyzeAndStore(snapshot, { scanId, now: new Date('2026-11-20T00:00:00Z'), store });
    // After the analysis: it records each cluster's team on the snapshot (assignTeams), as the stored graph has it.
    graph = buildFleetGraph(snapshot);
    samples = await store.quotaUsage.forScan(scanId, SYSTEM_PRINCIPAL);
    accounts = [...new Set(graph.clusters.map((c) => c.accountId))].sort();
    expect(accounts.length).toBeGreaterThanOrEqual(2);
    for (const a of accounts) tokens[a] = (await store.apiTokens.create({ role: 'viewer', accounts: [a], createdBy: 'test' })).token;
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false, auth: { maxFailures: 1000 } });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  async function allClusters(token: string, query = ''): Promise<{ items: { clusterId: string; accountId: string }[]; total: number }> {
    const items: { clusterId: string; accountId: string }[] = [];
    let after: string | null = null;
    let total: number;
    do {
      const res: request.Response = await http().get(`/v1/clusters?limit=2${query}${after ? `&after=${after}` : ''}`).set(bearer(token));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      items.push(...res.body.items);
      total = res.body.total;
      after = res.body.nextCursor;
    } while (after !== null);
    return { items, total };
  }

  it('/v1/clusters pages every cluster of the latest scan in id order, as stored, over the token accounts', async () => {
    const all = await allClusters(BOOTSTRAP);
    expect(all.items).toEqual([...graph.clusters].sort((a, b) => (a.clusterId < b.clusterId ? -1 : 1)));
    expect(all.total).toBe(graph.clusters.length);
    for (const a of accounts) {
      const mine = await allClusters(tokens[a]);
      expect(mine.items.map((c) => c.clusterId)).toEqual(graph.clusters.filter((c) => c.accountId === a).map((c) => c.clusterId).sort());
      expect(mine.total).toBe(mine.items.length);
      const other = accounts.find((x) => x !== a)!;
      expect((await allClusters(tokens[a], `&accountId=${other}`)).total).toBe(0);
    }
    const region = graph.clusters[0].regionId;
    expect((await allClusters(BOOTSTRAP, `&regionId=${region}`)).items.map((c) => c.clusterId)).toEqual(
      graph.clusters.filter((c) => c.regionId === region).map((c) => c.clusterId).sort(),
    );
    expect((await http().get('/v1/clusters?scanId=00000000-0000-4000-8000-000000000000').set(bearer(BOOTSTRAP))).status).toBe(404);
  });

  /** Every item of a keyset-paged list, following `nextCursor` with pages of 3. */
  async function allOf<T>(path: string, token: string, query = ''): Promise<{ items: T[]; total: number; pages: number }> {
    const items: T[] = [];
    let after: string | null = null;
    let total: number;
    let pages = 0;
    do {
      const res: request.Response = await http().get(`${path}?limit=3${query}${after ? `&after=${after}` : ''}`).set(bearer(token));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.scanId).toBe(scanId);
      items.push(...res.body.items);
      total = res.body.total;
      after = res.body.nextCursor;
      pages++;
    } while (after !== null);
    return { items, total, pages };
  }

  const byId = (key: string) => (a: Record<string, unknown>, b: Record<string, unknown>) => ((a[key] as string) < (b[key] as string) ? -1 : 1);

  it('/v1/load-balancers pages every CLB in id order as stored, filtered by account, region, cluster, owner and address type', async () => {
    const all = await allOf<Record<string, unknown>>('/v1/load-balancers', BOOTSTRAP);
    const expected = [...graph.loadBalancers].sort(byId('loadBalancerId'));
    expect(all.items).toEqual(expected);
    expect(all.total).toBe(expected.length);
    expect(all.pages).toBe(Math.ceil(expected.length / 3));
    const lb = expected.find((l) => l.clusterIds.length > 0)!;
    const cluster = lb.clusterIds[0];
    const cases: [string, (l: (typeof expected)[number]) => boolean][] = [
      [`&accountId=${lb.accountId}`, (l) => l.accountId === lb.accountId],
      [`&regionId=${lb.regionId}`, (l) => l.regionId === lb.regionId],
      [`&clusterId=${cluster}`, (l) => l.clusterIds.includes(cluster)],
      [`&owner=${lb.owner}`, (l) => l.owner === lb.owner],
      [`&addressType=${lb.addressType}&owner=${lb.owner}`, (l) => l.addressType === lb.addressType && l.owner === lb.owner],
    ];
    for (const [query, keep] of cases) {
      const got = await allOf<{ loadBalancerId: string }>('/v1/load-balancers', BOOTSTRAP, query);
      const want = expected.filter(keep).map((l) => l.loadBalancerId);
      expect(got.items.map((l) => l.loadBalancerId), query).toEqual(want);
      expect(got.total, query).toBe(want.length);
    }
    expect(new Set(expected.map((l) => l.owner)).size, 'the sample has CLBs of more than one owner').toBeGreaterThan(1);
  });

  it('/v1/load-balancers and /v1/ecs-instances list only the token\'s accounts and name no cluster or CLB of another', async () => {
    for (const a of accounts) {
      const other = accounts.find((x) => x !== a)!;
      const lbs = await allOf<{ loadBalancerId: string; clusterIds: string[] }>('/v1/load-balancers', tokens[a]);
      expect(lbs.items.map((l) => l.loadBalancerId)).toEqual(graph.loadBalancers.filter((l) => l.accountId === a).map((l) => l.loadBalancerId).sort());
      const foreignClusters = new Set(graph.clusters.filter((c) => c.accountId !== a).map((c) => c.clusterId));
      expect(lbs.items.flatMap((l) => l.clusterIds).filter((c) => foreignClusters.has(c))).toEqual([]);
      const ecs = await allOf<{ instanceId: string; loadBalancerIds: string[] }>('/v1/ecs-instances', tokens[a]);
      expect(ecs.items.map((e) => e.instanceId)).toEqual(graph.ecsInstances.filter((e) => e.accountId === a).map((e) => e.instanceId).sort());
      const foreignLbs = new Set(graph.loadBalancers.filter((l) => l.accountId !== a).map((l) => l.loadBalancerId));
      expect(ecs.items.flatMap((e) => e.loadBalancerIds).filter((l) => foreignLbs.has(l))).toEqual([]);
      expect((await allOf('/v1/load-balancers', tokens[a], `&accountId=${other}`)).total).toBe(0);
      expect((await allOf('/v1/ecs-instances', tokens[a], `&accountId=${other}`)).total).toBe(0);
    }
  });

  it('/v1/ecs-instances pages every instance in id order, filtered by account, region, cluster and CLB count', async () => {
    const expected = [...graph.ecsInstances].sort(byId('instanceId'));
    const all = await allOf<Record<string, unknown>>('/v1/ecs-instances', BOOTSTRAP);
    expect(all.items).toEqual(expected);
    expect(all.total).toBe(expected.length);
    const e = expected.find((x) => x.clusterId !== null && x.loadBalancerIds.length > 0)!;
    const most = Math.max(...expected.map((x) => x.loadBalancerIds.length));
    const cases: [string, (x: (typeof expected)[number]) => boolean][] = [
      [`&accountId=${e.accountId}`, (x) => x.accountId === e.accountId],
      [`&regionId=${e.regionId}`, (x) => x.regionId === e.regionId],
      [`&clusterId=${e.clusterId}`, (x) => x.clusterId === e.clusterId],
      [`&minLoadBalancers=${most}`, (x) => x.loadBalancerIds.length >= most],
      ['&maxLoadBalancers=0', (x) => x.loadBalancerIds.length === 0],
      [`&minLoadBalancers=1&maxLoadBalancers=1&clusterId=${e.clusterId}`, (x) => x.loadBalancerIds.length === 1 && x.clusterId === e.clusterId],
    ];
    for (const [query, keep] of cases) {
      const got = await allOf<{ instanceId: string }>('/v1/ecs-instances', BOOTSTRAP, query);
      const want = expected.filter(keep).map((x) => x.instanceId);
      expect(got.items.map((x) => x.instanceId), query).toEqual(want);
      expect(got.total, query).toBe(want.length);
    }
    expect(most, 'the sample has an instance behind several CLBs').toBeGreaterThan(1);
  });

  it('refuses bad list filters with one line naming the parameter', async () => {
    const bad: [string, string][] = [
      ['/v1/load-balancers?owner=someone', 'query.owner'],
      ['/v1/load-balancers?addressType=public', 'query.addressType'],
      ['/v1/ecs-instances?minLoadBalancers=-1', 'query.minLoadBalancers'],
      ['/v1/ecs-instances?minLoadBalancers=3&maxLoadBalancers=1', 'query.minLoadBalancers'],
      ['/v1/ecs-instances?after=not*a*cursor', 'query.after'],
      ['/v1/load-balancers?zone=x', 'zone'],
    ];
    for (const [url, what] of bad) {
      const res = await http().get(url).set(bearer(BOOTSTRAP));
      expect(res.status, url).toBe(400);
      expect(res.body.message, url).toContain(what);
      expect(res.body.message, url).not.toContain('\n');
    }
    expect((await http().get('/v1/load-balancers?after=WyJ4Il0x').set(bearer(BOOTSTRAP))).status).toBe(400);
    expect((await http().get('/v1/ecs-instances?scanId=00000000-0000-4000-8000-000000000000').set(bearer(BOOTSTRAP))).status).toBe(404);
  });

  it('/v1/load-balancers/{id} returns the CLB with the Services sharing it, server groups, backends and quotas', async () => {
    const shared = [...graph.loadBalancers].sort((a, b) => b.serviceCount - a.serviceCount || b.backendEntries - a.backendEntries)[0];
    const res = await http().get(`/v1/load-balancers/${shared.loadBalancerId}`).set(bearer(BOOTSTRAP));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.scanId).toBe(scanId);
    expect(res.body.loadBalancer).toEqual(shared);
    const services = graph.services.filter((s) => s.loadBalancerId === shared.loadBalancerId);
    expect(res.body.services.map((s: { clusterId: string; namespace: string; name: string }) => `${s.clusterId}/${s.namespace}/${s.name}`).sort()).toEqual(
      services.map((s) => `${s.clusterId}/${s.namespace}/${s.name}`).sort(),
    );
    expect(res.body.services).toHaveLength(shared.serviceCount);
    const groups = graph.serverGroups.filter((g) => g.loadBalancerId === shared.loadBalancerId);
    expect(res.body.serverGroups.map((g: { vServerGroupId: string }) => g.vServerGroupId).sort()).toEqual(groups.map((g) => g.vServerGroupId).sort());
    const entries = res.body.serverGroups.reduce((n: number, g: { backends: unknown[] }) => n + g.backends.length, 0);
    expect(entries).toBe(shared.backendEntries);
    const quotas = samples.filter((q) => q.resource.kind === 'LoadBalancer' && q.resource.id === shared.loadBalancerId);
    expect(res.body.quotas.map((q: { checkId: string; used: number; limit: number }) => `${q.checkId}:${q.used}/${q.limit}`).sort()).toEqual(
      quotas.map((q) => `${q.checkId}:${q.used}/${q.limit}`).sort(),
    );
  });

  it('/v1/ecs-instances/{id} returns the instance and the CLBs listing it as a backend', async () => {
    const ecs = [...graph.ecsInstances].sort((a, b) => b.loadBalancerIds.length - a.loadBalancerIds.length)[0];
    const res = await http().get(`/v1/ecs-instances/${ecs.instanceId}`).set(bearer(BOOTSTRAP));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ecsInstance).toEqual(ecs);
    expect(res.body.loadBalancers.map((l: { loadBalancerId: string }) => l.loadBalancerId).sort()).toEqual([...ecs.loadBalancerIds].sort());
  });

  it('answers 404 for another account\'s CLB or ECS instance exactly as for an absent one', async () => {
    for (const a of accounts) {
      const foreignLb = graph.loadBalancers.find((l) => l.accountId !== a)!;
      const ownLb = graph.loadBalancers.find((l) => l.accountId === a)!;
      const hidden = await http().get(`/v1/load-balancers/${foreignLb.loadBalancerId}`).set(bearer(tokens[a]));
      const absent = await http().get('/v1/load-balancers/lb-doesnotexist').set(bearer(tokens[a]));
      expect([hidden.status, absent.status]).toEqual([404, 404]);
      expect(hidden.body.message.replace(foreignLb.loadBalancerId, 'X')).toBe(absent.body.message.replace('lb-doesnotexist', 'X'));
      expect((await http().get(`/v1/load-balancers/${ownLb.loadBalancerId}`).set(bearer(tokens[a]))).status).toBe(200);
      const foreignEcs = graph.ecsInstances.find((e) => e.accountId !== a);
      if (foreignEcs) expect((await http().get(`/v1/ecs-instances/${foreignEcs.instanceId}`).set(bearer(tokens[a]))).status).toBe(404);
      const own = await http().get(`/v1/ecs-instances/${graph.ecsInstances.find((e) => e.accountId === a)?.instanceId ?? 'i-none'}`).set(bearer(tokens[a]));
      expect(JSON.stringify(own.body)).not.toContain(accounts.find((x) => x !== a)!);
    }
    expect((await http().get('/v1/load-balancers/bad%20id').set(bearer(BOOTSTRAP))).status).toBe(400);
    expect((await http().get('/v1/ecs-instances/i-1')).status).toBe(401);
  });
});
