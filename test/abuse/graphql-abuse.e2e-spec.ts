/**
 * Over GraphQL, on a private PostgreSQL (stopped in the last test):
 * - cost model: every returned node costs at least 1 (`first: 100` costs 101), object fields cost 1, aliases are
 *   counted and capped (999 aliases of `ecsInstances(first: 100)` are refused before anything runs; the review saw
 *   them accepted at cost 999), and the nodes one operation may return are capped;
 * - errors mapped like REST: database down 503 + Retry-After, NUL in a string argument 400 BAD_USER_INPUT, no 500 for
 *   client mistakes (two anonymous operations without operationName, a deeply nested unused variable);
 * - introspection and field suggestions off in production unless enabled.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';
import { startPrivatePostgres, type PrivatePostgres } from '../../bench/chaos/private-servers';

const BOOTSTRAP = 'abuse-graphql-bootstrap-token-0123456789';

describe('GraphQL abuse', () => {
  let pg: PrivatePostgres;
  let store: Store;
  const apps: INestApplication[] = [];
  let app: INestApplication;

  async function makeApp(graphql: Record<string, unknown> = {}): Promise<INestApplication> {
    const a = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false, graphql });
    await a.init();
    apps.push(a);
    return a;
  }
  async function gql(a: INestApplication, body: Record<string, unknown>) {
    return request(a.getHttpServer()).post('/graphql').set({ Authorization: `Bearer ${BOOTSTRAP}` }).send(body);
  }

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    store = await Store.open({ connectionString: pg.url, migrate: true });
    // A succeeded scan, so graph reads reach PostgreSQL with their arguments.
    const scan = await store.scans.create({ source: 'offline' });
    await store.scans.complete(scan.id, { findings: [], coverage: [], quotaUsage: [] });
    app = await makeApp();
  }, 60_000);
  afterAll(async () => {
    for (const a of apps) await a.close();
    await store?.close();
    pg?.destroy();
  });

  it('first: 100 of scalar nodes costs 101; totalCount alone costs 1; an object field costs 1', async () => {
    const strict = await makeApp({ maxCost: 100 });
    const r = await gql(strict, { query: '{ ecsInstances(first: 100) { nodes { instanceId } } }' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY', cost: 101, maxCost: 100 });
    expect((await gql(strict, { query: '{ ecsInstances(first: 100) { totalCount } }' })).status).toBe(200);
    const objects = Array.from({ length: 60 }, (_, i) => `l${i}: loadBalancer(id: "lb-${i}") { loadBalancerId }`).join(' ');
    const o = await gql(await makeApp({ maxCost: 50 }), { query: `{ ${objects} }` });
    expect(o.body.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY', cost: 60 });
  });

  it("the review's 999 aliases of ecsInstances(first: 100) are refused before anything runs", async () => {
    const aliases = Array.from({ length: 999 }, (_, i) => `a${i}: ecsInstances(first: 100) { nodes { instanceId } }`).join(' ');
    // 56 KB of text: the default 32 KiB limit refuses it before parsing; with a larger limit the alias cap does.
    const byDefault = await gql(app, { query: `{ ${aliases} }` });
    expect(byDefault.status).toBe(413);
    expect(byDefault.body.errors[0].extensions.code).toBe('QUERY_TOO_LARGE');
    const r = await gql(await makeApp({ maxQueryBytes: 128 * 1024 }), { query: `{ ${aliases} }` });
    expect(r.status).toBe(400);
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY', aliases: 999, maxAliases: 100, cost: 999 * 101 });
    // Under the alias cap, the cost still refuses them: 9 x 101 > ... no, 9 x 101 = 909 fits; 10 x 101 = 1010 does not.
    const ten = Array.from({ length: 10 }, (_, i) => `a${i}: ecsInstances(first: 100) { nodes { instanceId } }`).join(' ');
    expect((await gql(app, { query: `{ ${ten} }` })).body.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY', cost: 1010 });
    const zeroCost = Array.from({ length: 101 }, (_, i) => `d${i}: scans(first: 1) { totalCount }`).join(' ');
    expect((await gql(app, { query: `{ ${zeroCost} }` })).body.errors[0].extensions).toMatchObject({ aliases: 101 });
  });

  it('caps the nodes one operation may return', async () => {
    const wide = await makeApp({ maxCost: 100_000 });
    const r = await gql(wide, { query: '{ clusters(first: 100) { nodes { clusterId services(first: 100) { nodes { name } } } } }' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY', nodes: 10_100, maxNodes: 10_000 });
  });

  it('client mistakes are 400, never 500: two anonymous operations, a deeply nested unused variable, NUL in an argument', async () => {
    const two = await gql(app, { query: 'query { scans(first: 1) { totalCount } } query { scans(first: 2) { totalCount } }' });
    expect(two.status, JSON.stringify(two.body)).toBe(400);
    const deep = `${'{"d":'.repeat(5000)}"x"${'}'.repeat(5000)}`;
    const nested = await request(app.getHttpServer())
      .post('/graphql')
      .set({ Authorization: `Bearer ${BOOTSTRAP}`, 'content-type': 'application/json' })
      .send(`{"query":"{ scans(first: 1) { totalCount } }","variables":{"unused":${deep}}}`);
    expect(nested.status, JSON.stringify(nested.body).slice(0, 300)).toBeLessThan(500);
    const nul = await gql(app, { query: '{ findings(first: 1, accountId: "a\\u0000b") { totalCount } }' });
    expect(nul.status, JSON.stringify(nul.body)).toBe(400);
    expect(nul.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('introspection and suggestions are off in production unless enabled', async () => {
    const before = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    let prod: INestApplication;
    try {
      prod = await makeApp();
    } finally {
      process.env.NODE_ENV = before;
    }
    const intro = await gql(prod, { query: '{ __schema { types { name } } }' });
    expect(intro.body.data?.__schema).toBeUndefined();
    expect(JSON.stringify(intro.body.errors)).toMatch(/introspection/i);
    const typo = await gql(prod, { query: '{ scanz { id } }' });
    expect(JSON.stringify(typo.body.errors)).not.toMatch(/Did you mean/);
    const enabled = await makeApp({ introspection: true });
    expect((await gql(enabled, { query: '{ __schema { queryType { name } } }' })).body.data.__schema.queryType.name).toBe('Query');
    expect(JSON.stringify((await gql(enabled, { query: '{ scanz { id } }' })).body.errors)).toMatch(/Did you mean/);
  });

  it('the database down: 503 with Retry-After, as REST', async () => {
    pg.stop();
    try {
      const r = await gql(app, { query: '{ scans(first: 1) { totalCount } }' });
      expect(r.status, JSON.stringify(r.headers)).toBe(503);
      expect(r.headers['retry-after']).toBe('5');
      expect(r.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      const rest = await request(app.getHttpServer()).get('/v1/scans').set({ Authorization: `Bearer ${BOOTSTRAP}` });
      expect(rest.status).toBe(503);
    } finally {
      pg.start();
    }
  }, 60_000);
});
