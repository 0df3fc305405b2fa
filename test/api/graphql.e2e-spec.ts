/**
 * GraphQL at /graphql on real PostgreSQL, over a generated fleet of 100 clusters scanned through
 * `analyzeAndStore` (findings, quotas and the stored fleet graph): Relay paging (first/last bounds, cursors forward
 * and backward), cost and depth refusal before execution, request-scoped DataLoaders (a nested query over 100
 * clusters x Services x CLBs in a constant number of SQL statements, counted on the real pool's client), the
 * committed schema snapshot, account scope (a scoped token never sees another account's nodes), the operator role
 * of startScan, authentication and the sandbox page being off by default.
 *
 * Schema changes: review, then `GRAPHQL_SCHEMA_UPDATE=1 npx vitest run test/api/graphql.e2e-spec.ts` rewrites
 * apps/api/schema.gql.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are walked as the query shaped them */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import { lexicographicSortSchema, printSchema } from 'graphql/index.js';
import { Client } from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiApp, type LaunchScanRequest, type ScanLauncher } from '@app/api';
import { analyzeAndStore } from '@app/audit';
import { buildFleetGraph } from '@app/checks';
import { generateFleet, generateSpecSchema } from '@app/collectors';
import { mapWireFleet, type FleetGraph, type FleetSnapshot } from '@app/domain';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { graphqlLandingPageHtml } from '../../apps/api/src/graphql/graphql-landing-page.plugin';

const BOOTSTRAP = 'graphql-e2e-bootstrap-token-0123456789';
const KEY = 'graphql-e2e-hash-key-0123456789abcdef-0123456789';
const SCHEMA_FILE = join(__dirname, '..', '..', 'apps', 'api', 'schema.gql');

class RecordingLauncher implements ScanLauncher {
  readonly requests: LaunchScanRequest[] = [];
  constructor(private readonly store: Store) {}
  async launch(r: LaunchScanRequest): Promise<{ scanId: string }> {
    this.requests.push(r);
    return { scanId: (await this.store.scans.create({ source: 'offline' })).id };
  }
}

interface GqlResponse {
  status: number;
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

describe('GraphQL /graphql (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let snapshot: FleetSnapshot;
  let graph: FleetGraph;
  let scanId: string;
  let baselineId: string;
  let launcher: RecordingLauncher;
  const tokens: Record<string, string> = {};

  async function gql(query: string, token = BOOTSTRAP, variables?: Record<string, unknown>): Promise<GqlResponse> {
    const res = await request(app.getHttpServer())
      .post('/graphql')
      .set({ Authorization: `Bearer ${token}`, 'content-type': 'application/json' })
      .send({ query, ...(variables ? { variables } : {}) });
    return { status: res.status, ...(res.body as object) };
  }

  async function ok(query: string, token = BOOTSTRAP, variables?: Record<string, unknown>): Promise<Record<string, any>> {
    const r = await gql(query, token, variables);
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    return r.data as Record<string, any>;
  }

  async function token(role: string, accounts?: string[]): Promise<string> {
    const res = await request(app.getHttpServer())
      .post('/v1/tokens')
      .set({ Authorization: `Bearer ${BOOTSTRAP}` })
      .send({ role, ...(accounts ? { accounts } : {}), name: `gql-${role}` });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return (res.body as { token: string }).token;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const spec = generateSpecSchema.parse({ seed: 7, accounts: 4, clusters: 100, nodesPerCluster: 3, servicesPerCluster: 2, podsPerService: 1, shares: { orphaned: 0.1, reused: 0.1, misconfigured: 0.1, consoleReused: 0.1 } });
    snapshot = mapWireFleet(generateFleet(spec, 'gql').fleet);
    graph = buildFleetGraph(snapshot);
    const base = await store.scans.create({ source: 'offline', fleetName: snapshot.name, startedAt: new Date('2026-11-01T00:00:00Z') });
    baselineId = base.id;
    await analyzeAndStore(snapshot, { scanId: base.id, now: new Date('2026-11-01T00:00:00Z'), store });
    const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name, startedAt: new Date('2026-11-08T00:00:00Z') });
    scanId = scan.id;
    await analyzeAndStore(snapshot, { scanId, now: new Date('2026-11-08T00:00:00Z'), store });
    launcher = new RecordingLauncher(store);
    // 100 clusters x 100 Services in one query cost 10,101 (every node costs at least 1): this
    // suite raises the cost and node limits to test loading and scoping at that size.
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: launcher, logger: false, auth: { maxFailures: 1000 }, graphql: { maxCost: 20_000, maxNodes: 50_000 } });
    await app.init();
    const firstAccount = graph.regions[0]!.accountId;
    tokens.viewerA = await token('viewer', [firstAccount]);
    tokens.viewer = await token('viewer');
    tokens.operator = await token('operator');
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it('the generated fleet has 100 clusters with Services on shared and own CLBs', () => {
    expect(graph.clusters).toHaveLength(100);
    expect(graph.services.filter((s) => s.loadBalancerId).length).toBeGreaterThan(100);
  });

  it('answers the nested graph accounts -> regions -> clusters -> services -> loadBalancer -> vServerGroups -> backends -> ecsInstance (depth 8)', async () => {
    const data = await ok(`{
      accounts(first: 2) { totalCount nodes { accountId regions(first: 2) { nodes { regionId clusters(first: 2) { nodes { clusterId
        services(first: 3) { nodes { namespace name mode loadBalancer { loadBalancerId owner backendEntries
          vServerGroups(first: 2) { nodes { vServerGroupId backendCount backends(first: 3) { nodes { serverId type ecsInstance { instanceId clusterId } } } } } } } } } } } } } } }`);
    const accounts = data.accounts.nodes as any[];
    expect(data.accounts.totalCount).toBe(new Set(graph.regions.map((r) => r.accountId)).size);
    expect(accounts.map((a) => a.accountId)).toEqual([...new Set(graph.regions.map((r) => r.accountId))].sort().slice(0, 2));
    let checkedBackends = 0;
    for (const a of accounts)
      for (const r of a.regions.nodes)
        for (const c of r.clusters.nodes) {
          const expected = graph.services.filter((s) => s.clusterId === c.clusterId).slice(0, 3);
          expect(c.services.nodes.map((s: any) => s.name)).toEqual(expected.map((s) => s.name));
          for (const s of c.services.nodes) {
            const want = expected.find((e) => e.name === s.name)!;
            expect(s.loadBalancer?.loadBalancerId ?? null).toBe(want.loadBalancerId);
            for (const g of s.loadBalancer?.vServerGroups.nodes ?? [])
              for (const b of g.backends.nodes) {
                checkedBackends++;
                if (b.type === 'ecs') expect(b.ecsInstance?.instanceId ?? b.serverId).toBe(b.serverId);
              }
          }
        }
    expect(checkedBackends).toBeGreaterThan(0);
  });

  it('pages with cursors forward and backward; first/last are required and bounded 1..100', async () => {
    const all: string[] = [];
    let after: string | null = null;
    for (;;) {
      const data = await ok(`query($after: String) { clusters(first: 17, after: $after) { pageInfo { hasNextPage endCursor } edges { cursor node { clusterId } } } }`, BOOTSTRAP, { after });
      all.push(...data.clusters.edges.map((e: any) => e.node.clusterId));
      if (!data.clusters.pageInfo.hasNextPage) break;
      after = data.clusters.pageInfo.endCursor;
    }
    expect(all).toEqual(graph.clusters.map((c) => c.clusterId));
    const back: string[][] = [];
    let before: string | null = null;
    for (;;) {
      const data = await ok(`query($before: String) { clusters(last: 30, before: $before) { pageInfo { hasPreviousPage startCursor } nodes { clusterId } } }`, BOOTSTRAP, { before });
      back.unshift(data.clusters.nodes.map((n: any) => n.clusterId));
      if (!data.clusters.pageInfo.hasPreviousPage) break;
      before = data.clusters.pageInfo.startCursor;
    }
    expect(back.flat()).toEqual(all);

    for (const [args, message] of [
      ['', /exactly one of `first` or `last`/],
      ['first: 101', /`first` must be from 1 to 100, got 101/],
      ['last: 0', /`last` must be from 1 to 100, got 0/],
      ['first: 5, last: 5', /exactly one of `first` or `last`/],
      ['first: 5, after: "nope"', /cursor "nope" is malformed/],
    ] as const) {
      const r = await gql(`{ loadBalancers${args ? `(${args})` : ''} { nodes { loadBalancerId } } }`);
      expect(r.errors?.[0]?.message, args).toMatch(message);
      expect(r.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });

  it('refuses an over-cost query before execution with the cost in the error, and an over-deep one', async () => {
    const spy = vi.spyOn(Client.prototype, 'query');
    try {
      const r = await gql(`{ clusters(first: 100) { nodes { services(first: 100) { nodes { loadBalancer { services(first: 100) { nodes { name } } } } } } } }`);
      expect(r.status).toBe(400);
      expect(r.data).toBeUndefined();
      // 1 + 100 x (1 + 100 x (1 + 100 x 1)): each connection costs 1 + first x max(1, one node's cost) (a node of
      // scalars costs 1, not 0).
      expect(r.errors?.[0]?.message).toMatch(/^Query cost 1010101 exceeds the maximum of 20000/);
      expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY', cost: 1010101, maxCost: 20_000 });
      // Nothing ran: the bootstrap token needs no database read and no resolver was called.
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
    const deep = await gql(`{ ecsInstances(first: 1) { nodes { loadBalancers(first: 1) { nodes { services(first: 1) { nodes { cluster { services(first: 1) { nodes {
      loadBalancer { vServerGroups(first: 1) { nodes { backends(first: 1) { nodes { ecsInstance { instanceId } } } } } } } } } } } } } } } }`);
    expect(deep.status).toBe(400);
    expect(deep.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_DEEP', depth: 9, maxDepth: 8 });
  });

  it('loads 100 clusters x their Services x CLBs in a constant number of SQL statements (DataLoaders)', async () => {
    // Cost 1 + 100 x (1 + 100 x 0) = 101.
    const query = `{ clusters(first: 100) { nodes { clusterId services(first: 100) { nodes { name cluster { clusterId } loadBalancer { loadBalancerId owner serviceCount } } } } } }`;
    const spy = vi.spyOn(Client.prototype, 'query');
    let data: Record<string, any>;
    try {
      data = await ok(query);
    } finally {
      spy.mockRestore();
    }
    const clusters = data.clusters.nodes as any[];
    expect(clusters).toHaveLength(100);
    const lbs = clusters.flatMap((c) => c.services.nodes.map((s: any) => s.loadBalancer).filter(Boolean));
    expect(lbs.length).toBeGreaterThan(100);
    for (const c of clusters) for (const s of c.services.nodes) expect(s.cluster.clusterId).toBe(c.clusterId);
    // The latest scan id, the clusters page, the Services of all 100 clusters, the Services' clusters, the CLBs.
    expect(spy.mock.calls.length).toBeLessThanOrEqual(5);
  });

  it('writes the committed schema.gql (a change needs review: GRAPHQL_SCHEMA_UPDATE=1)', () => {
    const { schema } = app.get(GraphQLSchemaHost);
    const sdl = `${printSchema(lexicographicSortSchema(schema))}\n`;
    if (process.env.GRAPHQL_SCHEMA_UPDATE === '1') writeFileSync(SCHEMA_FILE, sdl);
    expect(sdl, 'the GraphQL schema changed: review it and run GRAPHQL_SCHEMA_UPDATE=1 npx vitest run test/api/graphql.e2e-spec.ts').toBe(readFileSync(SCHEMA_FILE, 'utf8'));
  });

  it('a token scoped to one account never sees another account’s nodes', async () => {
    const mine = graph.regions[0]!.accountId;
    const data = await ok(`{ accounts(first: 10) { nodes { accountId } }
      loadBalancers(first: 100) { totalCount nodes { accountId services(first: 10) { nodes { accountId } } } }
      ecsInstances(first: 100) { nodes { accountId loadBalancers(first: 10) { nodes { accountId } } } }
      quotas(first: 100) { nodes { resource { accountId } } }
      findings(first: 100) { totalCount nodes { resource { accountId } } } }`, tokens.viewerA);
    expect(data.accounts.nodes).toEqual([{ accountId: mine }]);
    expect(data.loadBalancers.totalCount).toBe(graph.loadBalancers.filter((l) => l.accountId === mine).length);
    const ids = JSON.stringify(data).match(/"accountId":"(\d+)"/g) ?? [];
    expect(ids.length).toBeGreaterThan(10);
    expect(new Set(ids)).toEqual(new Set([`"accountId":"${mine}"`]));
    const other = graph.loadBalancers.find((l) => l.accountId !== mine)!;
    const direct = await ok(`query($id: ID!) { loadBalancer(id: $id) { loadBalancerId } }`, tokens.viewerA, { id: other.loadBalancerId });
    expect(direct.loadBalancer).toBeNull();
    const seen = await ok(`query($id: ID!) { loadBalancer(id: $id) { loadBalancerId } }`, tokens.viewer, { id: other.loadBalancerId });
    expect(seen.loadBalancer).toEqual({ loadBalancerId: other.loadBalancerId });
  });

  it('startScan needs the operator role; scans, scan and scanDiff read the store', async () => {
    const denied = await gql(`mutation { startScan { scanId } }`, tokens.viewer);
    expect(denied.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(denied.errors?.[0]?.message).toMatch(/needs the operator role; the token has viewer/);
    expect(launcher.requests).toHaveLength(0);
    const started = await ok(`mutation { startScan { scanId } }`, tokens.operator);
    expect(started.startScan.scanId).toMatch(/^[0-9a-f-]{36}$/);
    expect(launcher.requests).toHaveLength(1);

    const scans = await ok(`{ scans(first: 2) { totalCount nodes { id status } pageInfo { hasNextPage } } }`);
    expect(scans.scans.nodes.map((s: any) => s.id)[0]).toBe(started.startScan.scanId);
    expect(scans.scans.totalCount).toBe(3);
    const one = await ok(`query($id: ID!) { scan(id: $id) { id status } }`, BOOTSTRAP, { id: scanId });
    expect(one.scan).toEqual({ id: scanId, status: 'succeeded' });
    const diff = await ok(`query($s: ID!, $a: ID!) { scanDiff(scanId: $s, against: $a) { counts { new resolved persisting severityChanged } items(first: 3) { totalCount nodes { change fingerprint } } } }`, BOOTSTRAP, { s: scanId, a: baselineId });
    expect(diff.scanDiff.counts.new).toBe(0);
    expect(diff.scanDiff.counts.persisting).toBeGreaterThan(0);
    expect(diff.scanDiff.items.nodes.every((n: any) => n.change === 'persisting')).toBe(true);
  });

  it('scanDiff takes either order and refuses a scan not succeeded or of another fleet, as REST does', async () => {
    const DIFF = `query($s: ID!, $a: ID!) { scanDiff(scanId: $s, against: $a) { scanId againstScanId counts { new resolved persisting severityChanged } } }`;
    const forward = await ok(DIFF, BOOTSTRAP, { s: scanId, a: baselineId });
    const backward = await ok(DIFF, BOOTSTRAP, { s: baselineId, a: scanId });
    const f = forward.scanDiff.counts;
    expect(backward.scanDiff).toEqual({ scanId: baselineId, againstScanId: scanId, counts: { ...f, new: f.resolved, resolved: f.new } });
    const rest = await request(app.getHttpServer()).get(`/v1/scans/${baselineId}/diff?against=${scanId}&limit=1`).set({ Authorization: `Bearer ${BOOTSTRAP}` });
    expect(rest.body.counts).toEqual(backward.scanDiff.counts);
    const running = await store.scans.create({ source: 'offline', fleetName: snapshot.name, startedAt: new Date('2026-10-01T00:00:00Z') });
    const notDone = await gql(DIFF, BOOTSTRAP, { s: scanId, a: running.id });
    expect(notDone.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect(notDone.errors?.[0]?.message).toContain(`scan ${running.id} is running`);
    const other = await store.scans.create({ source: 'offline', fleetName: 'another-fleet', startedAt: new Date('2026-10-01T00:00:00Z') });
    await store.scans.complete(other.id, { findings: [], coverage: [], quotaUsage: [] });
    const otherFleet = await gql(DIFF, BOOTSTRAP, { s: other.id, a: scanId });
    expect(otherFleet.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    for (const text of [other.id, scanId, 'another-fleet', snapshot.name]) expect(otherFleet.errors?.[0]?.message).toContain(text);
  });

  it('refuses a missing or wrong token (UNAUTHENTICATED, 401) and serves no sandbox page unless enabled', async () => {
    const r = await gql(`{ scans(first: 1) { nodes { id } } }`, 'wrong-token-wrong-token-wrong');
    expect(r.status).toBe(401);
    expect(r.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const page = await request(app.getHttpServer()).get('/graphql').set('accept', 'text/html');
    expect(page.text ?? '').not.toMatch(/sandbox/i);
  });

  it('GET /graphql in a browser is a page of its own that needs no network: no script, no CDN, how to query', async () => {
    const page = await request(app.getHttpServer()).get('/graphql').set('accept', 'text/html');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('fleet-audit GraphQL API');
    expect(page.text).toContain('POST /graphql');
    // Nothing the browser would fetch from elsewhere (Apollo's pages load their application from its CDN).
    expect(page.text).not.toMatch(/<script|<link|<iframe|src=|cdn\.apollographql\.com/i);
    for (const sandbox of [false, true]) {
      const html = graphqlLandingPageHtml({ sandbox });
      expect(html).not.toMatch(/<script|<link|<iframe|src=|cdn\.apollographql\.com/i);
      expect(/Apollo Sandbox/.test(html)).toBe(sandbox);
    }
  });
});
