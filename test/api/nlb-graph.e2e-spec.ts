/**
 * NLBs in the stored fleet graph on a real PostgreSQL, for a scan of the bundled sample fleet
 * (which has NLB Services, found by CCM's owner tag) stored by `analyzeAndStore`: REST `GET /v1/nlbs` (keyset-paged
 * `limit` + `after` / `nextCursor`, filters) and `GET /v1/nlbs/{id}` (listeners, server groups with servers, the
 * Services using it, its quotas), GraphQL `nlbs`, `nlb(id)` and `Service.nlb`; ECS instances' NLB server groups
 * and NLBs (`GET /v1/ecs-instances/{id}`, GraphQL `EcsInstance.nlbServerGroupIds` / `nlbs`); the server groups no NLB
 * uses (`GET /v1/nlb-server-groups/unused`, GraphQL `Region.unusedNlbServerGroups`). The oracle is
 * `buildFleetGraph(snapshot)` in its stored form (`storedFleetGraph`: what the scan stores). Scoped like CLBs: a token of another account sees no NLB,
 * gets 404 for one exactly like an absent one, and null over GraphQL. `/metrics` exports the NLB quota checks' samples
 * like the CLB ones (libs/checks QUOTA_USAGE_CHECK_IDS; the alert rules match on the series, not on check ids).
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- GraphQL response bodies are walked as the query shaped them */
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeAndStore } from '@app/audit';
import { buildFleetGraph } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import type { GraphNlb } from '@app/domain';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store, storedFleetGraph, SYSTEM_PRINCIPAL } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const BOOTSTRAP = 'nlb-graph-e2e-bootstrap-0123456789';
const KEY = 'nlb-graph-e2e-hash-key-0123456789abcdef-0123456';

describe('fleet graph: NLBs over REST and GraphQL (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let graph: ReturnType<typeof storedFleetGraph>;
  let scanId: string;
  let nlbAccount: string;
  let otherAccount: string;
  const tokens: Record<string, string> = {};
  const http = () => request(app.getHttpServer());
  const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const snapshot = loadFleetDirectory(SAMPLE);
    graph = storedFleetGraph(buildFleetGraph(snapshot));
    const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name });
    scanId = scan.id;
    await analyzeAndStore(snapshot, { scanId, now: new Date('2026-11-20T00:00:00Z'), store });
    const accounts = [...new Set(graph.clusters.map((c) => c.accountId))].sort();
    nlbAccount = graph.nlbs[0]!.accountId;
    otherAccount = accounts.find((a) => !graph.nlbs.some((n) => n.accountId === a))!;
    for (const a of accounts) tokens[a] = (await store.apiTokens.create({ role: 'viewer', accounts: [a], createdBy: 'test' })).token;
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false, auth: { maxFailures: 1000 } });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it('the sample fleet has NLB Services matched to NLBs (the fixture this file needs), and an account without NLBs', () => {
    expect(graph.nlbs.length).toBeGreaterThanOrEqual(2);
    expect(otherAccount).toBeDefined();
    const users = graph.services.filter((s) => s.nlbId !== null);
    expect(users.length).toBeGreaterThanOrEqual(2);
    for (const s of users) {
      expect(s.loadBalancerKind).toBe('nlb');
      expect(s.loadBalancerId, 'an NLB Service names no CLB').toBeNull();
      expect(graph.nlbs.map((n) => n.nlbId)).toContain(s.nlbId);
    }
    // Each NLB counts the Services using it; its entries are those of its server groups.
    for (const n of graph.nlbs) {
      expect(n.serviceCount).toBe(users.filter((s) => s.nlbId === n.nlbId).length);
      expect(n.serverEntries).toBe(n.serverGroups.reduce((x, g) => x + g.servers.length, 0));
      expect(n.listenerCount).toBe(n.listeners.length);
    }
  });

  /** Every item of `/v1/nlbs`, following `nextCursor` with pages of 1. */
  async function allNlbs(token: string, query = ''): Promise<{ items: GraphNlb[]; total: number; pages: number }> {
    const items: GraphNlb[] = [];
    let after: string | null = null;
    let total: number;
    let pages = 0;
    do {
      const res: request.Response = await http().get(`/v1/nlbs?limit=1${query}${after ? `&after=${after}` : ''}`).set(bearer(token));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.scanId).toBe(scanId);
      items.push(...res.body.items);
      total = res.body.total;
      after = res.body.nextCursor;
      pages++;
    } while (after !== null);
    return { items, total, pages };
  }

  it('GET /v1/nlbs pages every NLB in id order as stored, filtered, within the token accounts', async () => {
    const expected = [...graph.nlbs].sort((a, b) => (a.nlbId < b.nlbId ? -1 : 1));
    const all = await allNlbs(BOOTSTRAP);
    expect(all.items).toEqual(expected);
    expect(all.total).toBe(expected.length);
    expect(all.pages).toBe(expected.length);
    const cluster = expected[0]!.clusterIds[0]!;
    expect((await allNlbs(BOOTSTRAP, `&clusterId=${cluster}`)).items.map((n) => n.nlbId)).toEqual(expected.filter((n) => n.clusterIds.includes(cluster)).map((n) => n.nlbId));
    expect((await allNlbs(BOOTSTRAP, '&owner=console')).total).toBe(expected.filter((n) => n.owner === 'console').length);
    expect((await allNlbs(tokens[nlbAccount]!)).items.map((n) => n.nlbId)).toEqual(expected.filter((n) => n.accountId === nlbAccount).map((n) => n.nlbId));
    expect(await allNlbs(tokens[otherAccount]!)).toEqual({ items: [], total: 0, pages: 1 });
    const bad = await http().get('/v1/nlbs?owner=nobody').set(bearer(BOOTSTRAP));
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('owner');
  });

  it('GET /v1/nlbs/{id}: listeners, server groups with servers, the Services using it, its quotas; 404 outside the scope like an absent one', async () => {
    const n = graph.nlbs[0]!;
    const res = await http().get(`/v1/nlbs/${n.nlbId}`).set(bearer(tokens[nlbAccount]!));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.nlb).toEqual(n);
    expect(res.body.nlb.serverGroups.flatMap((g: { servers: unknown[] }) => g.servers)).toHaveLength(n.serverEntries);
    expect(res.body.services.map((s: { name: string }) => s.name).sort()).toEqual(graph.services.filter((s) => s.nlbId === n.nlbId).map((s) => s.name).sort());
    const stored = (await store.quotaUsage.forScan(scanId, SYSTEM_PRINCIPAL)).filter((q) => q.resource.kind === 'NetworkLoadBalancer' && q.resource.id === n.nlbId);
    expect(res.body.quotas.map((q: { checkId: string }) => q.checkId).sort()).toEqual(stored.map((q) => q.checkId).sort());
    const other = await http().get(`/v1/nlbs/${n.nlbId}`).set(bearer(tokens[otherAccount]!));
    const absent = await http().get(`/v1/nlbs/${n.nlbId}-gone`).set(bearer(tokens[otherAccount]!));
    expect([other.status, absent.status]).toEqual([404, 404]);
    expect(other.body.message).toBe(`NLB ${n.nlbId} not found`);
    expect(JSON.stringify(other.body)).not.toContain(nlbAccount);
  });

  async function gql(token: string, query: string): Promise<{ data: Record<string, any>; errors?: unknown[] }> {
    const res = await http().post('/graphql').set(bearer(token)).send({ query });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  }

  it('GraphQL nlbs, nlb(id) and Service.nlb answer as stored; another account gets an empty connection and null', async () => {
    const n = graph.nlbs[0]!;
    const list = await gql(BOOTSTRAP, '{ nlbs(first: 100) { totalCount nodes { nlbId owner serviceCount listeners { listenerId serverGroupId } serverGroups { serverGroupId servers { serverId type } } } } }');
    expect(list.errors).toBeUndefined();
    expect(list.data.nlbs.totalCount).toBe(graph.nlbs.length);
    expect(list.data.nlbs.nodes.map((x: { nlbId: string }) => x.nlbId)).toEqual(graph.nlbs.map((x) => x.nlbId));
    const one = await gql(tokens[nlbAccount]!, `{ nlb(id: "${n.nlbId}") { nlbId dnsName serverEntries services(first: 10) { totalCount nodes { name loadBalancerKind nlbMatch nlb { nlbId } } } clusters(first: 10) { nodes { clusterId } } } }`);
    expect(one.errors).toBeUndefined();
    expect(one.data.nlb).toMatchObject({ nlbId: n.nlbId, dnsName: n.dnsName, serverEntries: n.serverEntries });
    expect(one.data.nlb.services.totalCount).toBe(n.serviceCount);
    for (const s of one.data.nlb.services.nodes) expect(s).toMatchObject({ loadBalancerKind: 'nlb', nlb: { nlbId: n.nlbId } });
    expect(one.data.nlb.clusters.nodes.map((c: { clusterId: string }) => c.clusterId)).toEqual(n.clusterIds);
    const other = await gql(tokens[otherAccount]!, `{ nlb(id: "${n.nlbId}") { nlbId } nlbs(first: 10) { totalCount } }`);
    expect(other.errors).toBeUndefined();
    expect(other.data).toEqual({ nlb: null, nlbs: { totalCount: 0 } });
  });

  it('ECS instances list the NLB server groups they sit in and their NLBs (the oracle: every Ecs server of every group)', () => {
    const ecsIds = new Set(graph.ecsInstances.map((e) => e.instanceId));
    const want = new Map<string, { groups: Set<string>; nlbs: Set<string> }>();
    for (const n of graph.nlbs)
      for (const g of n.serverGroups)
        for (const sv of g.servers) {
          if (sv.type !== 'Ecs' || !ecsIds.has(sv.serverId)) continue;
          const w = want.get(sv.serverId) ?? { groups: new Set(), nlbs: new Set() };
          w.groups.add(g.serverGroupId);
          w.nlbs.add(n.nlbId);
          want.set(sv.serverId, w);
        }
    expect(want.size, 'the sample fleet has ECS instances in NLB server groups').toBeGreaterThan(0);
    for (const e of graph.ecsInstances) {
      const w = want.get(e.instanceId);
      expect(e.nlbIds, e.instanceId).toEqual(w ? [...w.nlbs].sort() : []);
      // Groups no NLB uses (leaked) may add to nlbServerGroupIds, never to nlbIds.
      for (const g of w?.groups ?? []) expect(e.nlbServerGroupIds, e.instanceId).toContain(g);
    }
  });

  it('GET /v1/ecs-instances/{id} lists the NLBs whose server groups hold it, beside its CLBs; 404 outside the scope', async () => {
    const e = graph.ecsInstances.find((x) => x.nlbIds.length > 0)!;
    const res = await http().get(`/v1/ecs-instances/${e.instanceId}`).set(bearer(tokens[e.accountId]!));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ecsInstance.nlbServerGroupIds).toEqual(e.nlbServerGroupIds);
    expect(res.body.ecsInstance.nlbIds).toEqual(e.nlbIds);
    expect(res.body.nlbs.map((n: GraphNlb) => n.nlbId)).toEqual(e.nlbIds);
    for (const n of res.body.nlbs as GraphNlb[]) expect(n.serverGroups.some((g) => e.nlbServerGroupIds.includes(g.serverGroupId))).toBe(true);
    const other = await http().get(`/v1/ecs-instances/${e.instanceId}`).set(bearer(tokens[otherAccount]!));
    expect(other.status).toBe(404);
  });

  it('GraphQL EcsInstance.nlbServerGroupIds and EcsInstance.nlbs answer as stored', async () => {
    const e = graph.ecsInstances.find((x) => x.nlbIds.length > 0)!;
    const res = await gql(tokens[e.accountId]!, `{ ecsInstances(first: 100, accountId: "${e.accountId}", clusterId: "${e.clusterId}") { nodes { instanceId nlbServerGroupIds nlbs(first: 5) { totalCount nodes { nlbId } } } } }`);
    expect(res.errors).toBeUndefined();
    const node = res.data.ecsInstances.nodes.find((x: { instanceId: string }) => x.instanceId === e.instanceId);
    expect(node).toEqual({ instanceId: e.instanceId, nlbServerGroupIds: e.nlbServerGroupIds, nlbs: { totalCount: e.nlbIds.length, nodes: e.nlbIds.map((nlbId) => ({ nlbId })) } });
  });

  it('GET /v1/nlb-server-groups/unused and GraphQL Region.unusedNlbServerGroups show the server groups no NLB uses, scoped', async () => {
    const holding = graph.regions.filter((r) => r.unusedNlbServerGroups.length > 0);
    expect(holding.length, 'the sample fleet has a leaked NLB server group').toBeGreaterThan(0);
    const used = new Set(graph.nlbs.flatMap((n) => n.serverGroups.map((g) => g.serverGroupId)));
    for (const r of graph.regions) for (const g of r.unusedNlbServerGroups) expect(used.has(g.serverGroupId), g.serverGroupId).toBe(false);
    const all = await http().get('/v1/nlb-server-groups/unused').set(bearer(BOOTSTRAP));
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body).toEqual({ scanId, regions: holding, total: holding.reduce((n, r) => n + r.unusedNlbServerGroups.length, 0) });
    const owner = holding[0]!.accountId;
    const mine = await http().get(`/v1/nlb-server-groups/unused?regionId=${holding[0]!.regionId}`).set(bearer(tokens[owner]!));
    expect(mine.body.regions.map((r: { accountId: string; regionId: string }) => `${r.accountId}/${r.regionId}`)).toEqual([`${owner}/${holding[0]!.regionId}`]);
    const stranger = Object.keys(tokens).find((a) => !holding.some((r) => r.accountId === a))!;
    expect((await http().get('/v1/nlb-server-groups/unused').set(bearer(tokens[stranger]!))).body).toEqual({ scanId, regions: [], total: 0 });
    const bad = await http().get('/v1/nlb-server-groups/unused?limit=5').set(bearer(BOOTSTRAP));
    expect(bad.status).toBe(400);
    const res = await gql(tokens[owner]!, '{ accounts(first: 10) { nodes { regions(first: 10) { nodes { regionId nlbServerGroupCount unusedNlbServerGroups { serverGroupId ownerTag serverCount } } } } } }');
    expect(res.errors).toBeUndefined();
    const regions = res.data.accounts.nodes.flatMap((a: any) => a.regions.nodes);
    const want = graph.regions.filter((r) => r.accountId === owner);
    expect(regions).toEqual(
      want.map((r) => ({
        regionId: r.regionId,
        nlbServerGroupCount: r.nlbServerGroupCount,
        unusedNlbServerGroups: r.unusedNlbServerGroups.map((g) => ({ serverGroupId: g.serverGroupId, ownerTag: g.ownerTag, serverCount: g.serverCount })),
      })),
    );
  });

  it('/metrics exports the NLB quota samples of the scan (per-check maxima and resource counts, per-resource gauges from 50 %)', async () => {
    const samples = (await store.quotaUsage.forScan(scanId, SYSTEM_PRINCIPAL)).filter((q) => q.checkId.startsWith('NLB_'));
    const checks = [...new Set(samples.map((q) => q.checkId))].sort();
    expect(checks, 'the sample fleet measures the NLB quotas').toEqual(
      expect.arrayContaining(['NLB_BACKEND_QUOTA', 'NLB_LISTENER_QUOTA', 'NLB_SERVER_GROUP_QUOTA', 'NLB_INSTANCE_QUOTA', 'NLB_SERVER_ADDED_QUOTA', 'NLB_SERVER_GROUP_BACKEND_QUOTA']),
    );
    const res = await http().get('/metrics').set(bearer(BOOTSTRAP));
    expect(res.status).toBe(200);
    for (const c of checks) {
      const mine = samples.filter((q) => q.checkId === c);
      expect(res.text).toContain(`fleet_audit_quota_resources{check_id="${c}"} ${mine.length}`);
      expect(res.text).toContain(`fleet_audit_quota_max_usage_ratio{check_id="${c}"} ${Math.max(...mine.map((q) => q.ratio))}`);
    }
    const hot = samples.filter((q) => q.ratio >= 0.5);
    for (const q of hot) expect(res.text).toContain(`fleet_audit_quota_usage_ratio{check_id="${q.checkId}",resource_kind="${q.resource.kind}",resource_id="${q.resource.id}"`);
  });
});
