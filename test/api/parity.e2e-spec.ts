/**
 * Parity contract: for every resource served both ways, REST and GraphQL return the same
 * numbers for the same token. On a real PostgreSQL with two scans of the bundled sample fleet (stored by
 * `analyzeAndStore`, so the fleet graph is stored too), for the bootstrap token and a viewer token scoped
 * to each account, it reads every page of: findings (total + fingerprints + severities), quotas (used /
 * limit / ratio per check and resource + total), clusters (counts per cluster + total), one CLB (backend
 * and Service counts, its quotas; absent for other accounts both ways) and the scan diff counts, and
 * compares the two transports field by field; and the forecasts both transports serve: quota trends (every
 * series of the token's accounts with its status, used / limit, slope and sample count) and headroom (equal
 * JSON for an all-accounts token; refused as FORBIDDEN both ways for an account-scoped one).
 *
 * Each REST side is also checked against the stored data (so the two cannot agree on a wrong number by
 * both returning nothing).
 */
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeAndStore } from '@app/audit';
import { buildFleetGraph } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import type { FleetGraph } from '@app/domain';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const BOOTSTRAP = 'parity-e2e-bootstrap-token-0123456789';
const KEY = 'parity-e2e-hash-key-0123456789abcdef-0123456789';

type Json = Record<string, unknown>;

describe('REST / GraphQL parity: same numbers for the same token (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let graph: FleetGraph;
  let older: string;
  let latest: string;
  const tokens: { label: string; token: string; account: string | null }[] = [];
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const snapshot = loadFleetDirectory(SAMPLE);
    graph = buildFleetGraph(snapshot);
    for (const [i, at] of ['2026-11-13T00:00:00Z', '2026-11-20T00:00:00Z'].entries()) {
      const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name, startedAt: new Date(at) });
      await analyzeAndStore(snapshot, { scanId: scan.id, now: new Date(at), store });
      if (i === 0) older = scan.id;
      else latest = scan.id;
    }
    tokens.push({ label: 'bootstrap', token: BOOTSTRAP, account: null });
    for (const a of [...new Set(graph.clusters.map((c) => c.accountId))].sort()) {
      tokens.push({ label: `viewer:${a}`, token: (await store.apiTokens.create({ role: 'viewer', accounts: [a], createdBy: 'test' })).token, account: a });
    }
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false, auth: { maxFailures: 1000 } });
    await app.init();
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  /** Every item of a REST keyset listing (`after` = `nextCursor`), and the first page's total. */
  async function rest(path: string, token: string): Promise<{ items: Json[]; total: number }> {
    const items: Json[] = [];
    let cursor: string | null = null;
    let total = -1;
    for (let pages = 0; pages < 200; pages++) {
      const sep = path.includes('?') ? '&' : '?';
      const res: request.Response = await http().get(`${path}${cursor ? `${sep}after=${cursor}` : ''}`).set('Authorization', `Bearer ${token}`);
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(200);
      if (pages === 0) total = res.body.total as number;
      items.push(...(res.body.items as Json[]));
      cursor = res.body.nextCursor as string | null;
      if (cursor === null) break;
    }
    return { items, total };
  }

  /** One GraphQL request; fails on errors. */
  async function gql(query: string, token: string, variables: Json = {}): Promise<Json> {
    const res = await http().post('/graphql').set('Authorization', `Bearer ${token}`).send({ query, variables });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data as Json;
  }

  /** Every node of a top-level GraphQL connection `field(first: 100, after: $after, ...args)`, and its totalCount. */
  async function gqlAll(field: string, selection: string, token: string, args = ''): Promise<{ nodes: Json[]; total: number }> {
    const nodes: Json[] = [];
    let after: string | null = null;
    let total = -1;
    for (let pages = 0; pages < 200; pages++) {
      const data = await gql(
        `query($after: String) { ${field}(first: 100, after: $after${args ? `, ${args}` : ''}) { totalCount pageInfo { hasNextPage endCursor } nodes { ${selection} } } }`,
        token,
        { after },
      );
      const conn = data[field] as { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Json[] };
      if (pages === 0) total = conn.totalCount;
      nodes.push(...conn.nodes);
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    return { nodes, total };
  }

  const byKey = <T>(xs: T[], key: (x: T) => string) => [...xs].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

  it("scans: every scan with its summary counts (over the token's accounts), and scan(id)", async () => {
    for (const t of tokens) {
      const r = await http().get('/v1/scans?limit=100').set('Authorization', `Bearer ${t.token}`);
      expect(r.status, t.label).toBe(200);
      const restScans = (r.body.items as Json[]).map((s) => `${String(s.id)}:${String(s.status)}:${JSON.stringify(s.summary)}`).sort();
      const g = await gqlAll('scans', 'id status summary', t.token);
      expect(g.nodes.map((s) => `${String(s.id)}:${String(s.status)}:${JSON.stringify(s.summary)}`).sort(), t.label).toEqual(restScans);
      expect(g.total, t.label).toBe(r.body.total);
      const one = await gql('query($id: ID!) { scan(id: $id) { id status summary } }', t.token, { id: latest });
      const restOne = await http().get(`/v1/scans/${latest}`).set('Authorization', `Bearer ${t.token}`);
      expect(restOne.status, t.label).toBe(200);
      expect((one.scan as Json).summary, t.label).toEqual(restOne.body.summary);
      // The summary is computed over the token's accounts: it counts exactly the findings the token can list.
      const findings = await rest('/v1/findings?limit=1000', t.token);
      expect((restOne.body.summary as { findings: number }).findings, t.label).toBe(findings.total);
    }
  });

  it('findings: total and every fingerprint with its severity', async () => {
    for (const t of tokens) {
      const r = await rest('/v1/findings?limit=1000', t.token);
      expect(r.items.length, t.label).toBe(r.total);
      expect(r.total, t.label).toBeGreaterThan(0);
      if (t.account !== null) expect(r.items.every((f) => (f.resource as Json).accountId === t.account)).toBe(true);
      const g = await gqlAll('findings', 'fingerprint severity status', t.token);
      expect(g.total, t.label).toBe(r.total);
      const fig = (f: Json) => `${String(f.fingerprint)}:${String(f.severity)}:${String(f.status)}`;
      expect(byKey(g.nodes, (f) => String(f.fingerprint)).map(fig), t.label).toEqual(byKey(r.items, (f) => String(f.fingerprint)).map(fig));
    }
  });

  it('quotas: used / limit / ratio per check and resource, and the total', async () => {
    const key = (q: Json) => {
      const r = q.resource as Json;
      return `${String(q.checkId)}/${String(r.accountId)}/${String(r.regionId)}/${String(r.kind)}/${String(r.id)}`;
    };
    const fig = (q: Json) => `${key(q)}=${String(q.used)}/${String(q.limit)}/${String(q.ratio)}`;
    for (const t of tokens) {
      const r = await rest('/v1/quotas?limit=1000', t.token);
      expect(r.items.length, t.label).toBe(r.total);
      expect(r.total).toBeGreaterThan(0);
      if (t.account !== null) expect(r.items.every((q) => (q.resource as Json).accountId === t.account)).toBe(true);
      const g = await gqlAll('quotas', 'checkId used limit ratio resource { kind id accountId regionId }', t.token);
      expect(g.total, t.label).toBe(r.total);
      expect(byKey(g.nodes, key).map(fig), t.label).toEqual(byKey(r.items, key).map(fig));
    }
  });

  it('clusters: node and Service counts per cluster, and the total', async () => {
    const fig = (c: Json) => `${String(c.clusterId)}:${String(c.accountId)}:${String(c.nodeCount)}:${String(c.serviceCount)}`;
    for (const t of tokens) {
      const r = await rest('/v1/clusters?limit=1000', t.token);
      expect(r.total, t.label).toBe(graph.clusters.filter((c) => t.account === null || c.accountId === t.account).length);
      const g = await gqlAll('clusters', 'clusterId accountId nodeCount serviceCount', t.token);
      expect(g.total, t.label).toBe(r.total);
      expect(g.nodes.map(fig), t.label).toEqual(r.items.map(fig));
    }
  });

  it('one CLB: counts, its Services, server groups with backends, its quotas; absent for other accounts both ways', async () => {
    const lb = byKey(graph.loadBalancers, (l) => `${String(1e6 - l.serviceCount).padStart(8, '0')}${l.loadBalancerId}`)[0];
    expect(lb.serviceCount).toBeGreaterThan(0);
    const lbGroups = graph.serverGroups.filter((x) => x.loadBalancerId === lb.loadBalancerId).map((x) => ({ backends: x.backends.length }));
    for (const t of tokens) {
      const res = await http().get(`/v1/load-balancers/${lb.loadBalancerId}`).set('Authorization', `Bearer ${t.token}`);
      expect(res.status, t.label).toBe(t.account === null || t.account === lb.accountId ? 200 : 404);
      // Page sizes from what the CLB holds (the graph), so the query stays within the GraphQL cost limit
      // (1,000: a connection costs 1 + first x its node cost) and still asks for every item.
      const groups = Math.max(1, lbGroups.length);
      const backends = Math.max(1, ...lbGroups.map((x) => x.backends));
      const data = await gql(
        `query($id: ID!) { loadBalancer(id: $id) { backendEntries distinctBackends serviceCount listenerCount
          services(first: ${Math.max(1, lb.serviceCount)}) { totalCount nodes { clusterId namespace name } }
          vServerGroups(first: ${groups}) { totalCount nodes { vServerGroupId isDefault backendCount backends(first: ${backends}) { nodes { serverId port weight type } } } }
          quotas(first: 50) { nodes { checkId used limit ratio } } } }`,
        t.token,
        { id: lb.loadBalancerId },
      );
      const g = data.loadBalancer as Json | null;
      if (res.status === 404) {
        expect(g, t.label).toBeNull();
        continue;
      }
      const r = res.body as { loadBalancer: Json; services: Json[]; serverGroups: { vServerGroupId: string; isDefault: boolean; backends: Json[] }[]; quotas: Json[] };
      for (const f of ['backendEntries', 'distinctBackends', 'serviceCount', 'listenerCount']) expect(g![f], `${t.label} ${f}`).toBe(r.loadBalancer[f]);
      const svc = (s: Json) => `${String(s.clusterId)}/${String(s.namespace)}/${String(s.name)}`;
      expect((g!.services as Json).totalCount, t.label).toBe(r.services.length);
      expect(((g!.services as Json).nodes as Json[]).map(svc).sort(), t.label).toEqual(r.services.map(svc).sort());
      const backend = (b: Json) => `${String(b.serverId)}:${String(b.port)}:${String(b.weight)}:${String(b.type)}`;
      const gGroups = ((g!.vServerGroups as Json).nodes as Json[]).map(
        (x) => `${String(x.vServerGroupId)}:${String(x.isDefault)}:${String(x.backendCount)}=${((x.backends as Json).nodes as Json[]).map(backend).join(',')}`,
      );
      const rGroups = r.serverGroups.map((x) => `${x.vServerGroupId}:${String(x.isDefault)}:${x.backends.length}=${x.backends.map(backend).join(',')}`);
      expect(gGroups.sort(), t.label).toEqual(rGroups.sort());
      const fig = (q: Json) => `${String(q.checkId)}=${String(q.used)}/${String(q.limit)}/${String(q.ratio)}`;
      expect(((g!.quotas as Json).nodes as Json[]).map(fig).sort(), t.label).toEqual(r.quotas.map(fig).sort());
    }
  });

  it('one ECS instance: its CLBs; absent for other accounts both ways', async () => {
    const ecs = byKey(graph.ecsInstances, (e) => `${String(1e6 - e.loadBalancerIds.length).padStart(8, '0')}${e.instanceId}`)[0];
    expect(ecs.loadBalancerIds.length).toBeGreaterThan(0);
    for (const t of tokens) {
      const res = await http().get(`/v1/ecs-instances/${ecs.instanceId}`).set('Authorization', `Bearer ${t.token}`);
      expect(res.status, t.label).toBe(t.account === null || t.account === ecs.accountId ? 200 : 404);
      // Page sizes from the graph (instances of that cluster, CLBs of that instance): within the cost limit.
      const instances = graph.ecsInstances.filter((e) => e.accountId === ecs.accountId && e.clusterId === ecs.clusterId).length;
      const data = await gql(
        `query($a: String!, $c: String) { ecsInstances(first: ${instances}, accountId: $a, clusterId: $c) { nodes { instanceId serverGroupCount loadBalancers(first: ${ecs.loadBalancerIds.length}) { totalCount nodes { loadBalancerId } } } } }`,
        t.token,
        { a: ecs.accountId, c: ecs.clusterId },
      );
      const g = ((data.ecsInstances as Json).nodes as Json[]).find((e) => e.instanceId === ecs.instanceId);
      if (res.status === 404) {
        expect(g, t.label).toBeUndefined();
        continue;
      }
      const r = res.body as { ecsInstance: Json; loadBalancers: Json[] };
      expect(g!.serverGroupCount, t.label).toBe(r.ecsInstance.serverGroupCount);
      expect((g!.loadBalancers as Json).totalCount, t.label).toBe(r.loadBalancers.length);
      expect(((g!.loadBalancers as Json).nodes as Json[]).map((l) => l.loadBalancerId).sort(), t.label).toEqual(r.loadBalancers.map((l) => l.loadBalancerId).sort());
    }
  });

  it('scan diff: counts of new, resolved, persisting and severity changed, and the items', async () => {
    for (const t of tokens) {
      const res = await http().get(`/v1/scans/${latest}/diff?against=${older}&limit=1000`).set('Authorization', `Bearer ${t.token}`);
      expect(res.status, t.label).toBe(200);
      const now = (await rest('/v1/findings?limit=1000', t.token)).total;
      const before = (await rest(`/v1/findings?limit=1000&scanId=${older}`, t.token)).total;
      // Every finding of the scan is new, persisting or changed; every one of the baseline persisting, changed or resolved.
      const c = res.body.counts as Record<string, number>;
      expect(c.new + c.persisting + c.severityChanged, t.label).toBe(now);
      expect(c.resolved + c.persisting + c.severityChanged, t.label).toBe(before);
      const data = await gql(
        `query($s: ID!, $a: ID!) { scanDiff(scanId: $s, against: $a) { counts { new resolved persisting severityChanged } items(first: 100) { totalCount nodes { fingerprint change } } } }`,
        t.token,
        { s: latest, a: older },
      );
      const d = data.scanDiff as { counts: Json; items: { totalCount: number; nodes: Json[] } };
      expect(d.counts, t.label).toEqual(res.body.counts);
      expect(d.items.totalCount, t.label).toBe(Object.values(c).reduce((x, y) => x + y, 0));
      // The first page of items, in fingerprint order both ways.
      const fig = (i: Json) => `${String(i.fingerprint)}:${String(i.change)}`;
      expect(d.items.nodes.map(fig), t.label).toEqual((res.body.items as Json[]).slice(0, 100).map(fig));
    }
  });

  it('forecast trends: the same series with the same status, usage, slope and samples', async () => {
    const fig = (e: Json) => {
      const r = e.resource as Json;
      return `${String(e.checkId)}/${String(r.accountId)}/${String(r.kind)}/${String(r.id)}:${String(e.status)}:${String(e.used)}/${String(e.limit)}:${String(e.slopePerDay)}:${String(e.samples)}`;
    };
    // A window reaching back past the stored scans whenever this runs.
    const windowDays = 36_500;
    for (const t of tokens) {
      const res = await http().get(`/v1/forecasts/trends?windowDays=${windowDays}`).set('Authorization', `Bearer ${t.token}`);
      expect(res.status, t.label).toBe(200);
      const r = res.body.trends as Json[];
      expect(r.length, t.label).toBeGreaterThan(0);
      if (t.account !== null) expect(r.every((e) => (e.resource as Json).accountId === t.account), t.label).toBe(true);
      const g = await gqlAll('quotaTrends', 'checkId status used limit slopePerDay samples resource { kind id accountId }', t.token, `windowDays: ${windowDays}`);
      expect(g.total, t.label).toBe(r.length);
      expect(g.nodes.map(fig), t.label).toEqual(r.map(fig));
    }
  });

  it('forecast headroom: equal on both transports for every token (an account-scoped one gets the clusters of its accounts)', async () => {
    for (const t of tokens) {
      const res = await http().get('/v1/forecasts/headroom').set('Authorization', `Bearer ${t.token}`);
      const answer = '{ headroom limitedBy { checkId resource { id } } alreadyOver { checkId used limit resource { id } } }';
      const g = await http()
        .post('/graphql')
        .set('Authorization', `Bearer ${t.token}`)
        .send({ query: `{ headroom { scanId clusters(first: 100) { nodes { clusterId nodes ${answer} clusterModeServices ${answer} localServices ${answer} } } } }` });
      expect(g.status, t.label).toBe(200);
      expect(res.status, t.label).toBe(200);
      expect(g.body.errors, JSON.stringify(g.body.errors)).toBeUndefined();
      if (t.account === null) expect((res.body.headroom as Json[]).length).toBeGreaterThan(0);
      // The typed answer is REST's, flattened: {headroom, limitedBy} or {alreadyOver} -> all three fields.
      const flat = (a: Json) => {
        const over = a.alreadyOver as Json[] | undefined;
        const limitedBy = a.limitedBy as Json | null | undefined;
        return over
          ? { headroom: null, limitedBy: null, alreadyOver: over.map((o) => ({ checkId: o.checkId, used: o.used, limit: o.limit, resource: { id: (o.resource as Json).id } })) }
          : { headroom: a.headroom, limitedBy: limitedBy ? { checkId: limitedBy.checkId, resource: { id: (limitedBy.resource as Json).id } } : null, alreadyOver: [] };
      };
      expect(g.body.data.headroom.scanId, t.label).toBe(res.body.scanId);
      expect(g.body.data.headroom.clusters.nodes, t.label).toEqual(
        (res.body.headroom as Json[]).map((e) => ({ clusterId: e.clusterId, nodes: flat(e.nodes as Json), clusterModeServices: flat(e.clusterModeServices as Json), localServices: flat(e.localServices as Json) })),
      );
    }
  });

  it('forecast headroom with an unknown like node: the same refusal, each transport naming its own parameter (query.like / like)', async () => {
    const all = tokens.find((t) => t.account === null)!;
    const res = await http().get('/v1/forecasts/headroom').query({ like: 'node-nowhere' }).set('Authorization', `Bearer ${all.token}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', issues: [{ path: 'query.like' }] });
    expect(res.body.message).toMatch(/^query\.like: unknown node "node-nowhere" in cluster \S+$/);
    const g = await http().post('/graphql').set('Authorization', `Bearer ${all.token}`).send({ query: '{ headroom(like: "node-nowhere") { scanId } }' });
    const [err] = g.body.errors as { message: string; extensions: { code: string; issues: { path: string }[] } }[];
    expect(err!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ path: 'like' }] });
    expect(err!.message).toBe((res.body.message as string).replace(/^query\.like: /, 'like: '));
  });
});
