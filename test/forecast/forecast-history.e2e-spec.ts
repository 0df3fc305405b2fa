/**
 * Capacity planning end to end on real PostgreSQL: dated dumps of a growing fleet are backfilled (six through the
 * store with libs/audit runScan, the last with `fleet-audit scan --fleet DIR --now ISO --database-url URL`), then the trend is read back through
 * `fleet-audit forecast trends` and GET /v1/forecasts/trends; headroom and a what-if run on the latest stored
 * snapshot through the CLI (in-process, the suite's build: test/global-setup.ts) and REST. The typed GraphQL
 * fields (quotaTrends, headroom, whatIf) answer the same numbers as REST, under the same scope and role rules.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- GraphQL and REST bodies are walked as the queries shaped them */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UnavailableScanLauncher, createApiApp } from '@app/api';
import { defaultForecastWorkerEntry, runScan } from '@app/audit';
import type { TrendEntry } from '@app/forecast';
import { SYSTEM_PRINCIPAL, Store, accountsScope, type Principal } from '@app/store';
import { ExhaustionForecasts } from '../../apps/api/src/metrics/metrics.service';
import { ROOT, runCliInProcess } from '../cli/cli-run.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { GROWING_CLUSTER, writeDatedDumps } from './dated-dumps.util';

const TOKEN = 'forecast-e2e-token-0a1b2c3d4e5f';
const KEY = 'forecast-e2e-hash-key-0123456789abcdef-0123456789';
const DAY0 = Date.parse('2026-11-10T00:00:00Z');
const NOW = '2026-11-16T12:00:00Z';
// The sample's checkout-gateway CLB: 2 ports x the cluster's nodes; the cluster grows by 2 nodes a day.
const CLB = 'lb-bp1i0hoxo5qje4vllnxj';

describe('forecast history (CLI backfill -> Postgres -> CLI and REST)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;

  beforeAll(async () => {
    db = await createTestDatabase();
    const dumps = writeDatedDumps(7, 2);
    store = await Store.open({ connectionString: db.url, tokenHashKey: KEY });
    // Six days stored through the store with the call `scan --fleet DIR --now ISO --database-url` makes (libs/audit
    // runScan, observed at --now); the last one through the CLI itself (in-process), so the backfill command is covered.
    for (const [i, dir] of dumps.entries()) {
      const at = new Date(DAY0 + i * 86_400_000);
      if (i < dumps.length - 1) {
        await runScan({ source: { kind: 'offline', fleetDir: dir }, now: at, observedAt: at }, store);
        continue;
      }
      const r = await runCliInProcess(['scan', '--fleet', dir, '--now', at.toISOString(), '--database-url', db.url, '--format', 'json', '--no-progress']);
      expect(r.status, r.stderr).toBe(0);
    }
    // The forecast worker of the suite's build (test/global-setup.ts): the sources under test, not a stale dist/.
    app = await createApiApp({ store, token: TOKEN, scanLauncher: new UnavailableScanLauncher(), forecasts: { workerEntry: defaultForecastWorkerEntry(process.env.FLEET_AUDIT_DIST) } });
    await app.init();
  }, 300_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it('stores each backfilled scan at its observation time', async () => {
    const { items } = await store.scans.list({ limit: 10 }, SYSTEM_PRINCIPAL);
    expect(items.map((s) => s.startedAt).sort()).toEqual(Array.from({ length: 7 }, (_, i) => new Date(DAY0 + i * 86_400_000).toISOString()));
  });

  it('CLI forecast trends reads the growth back: +4 backends a day on the CLB, exhaustion dated', async () => {
    const r = await runCliInProcess(['forecast', 'trends', '--database-url', db.url, '--now', NOW, '--check', 'CLB_BACKEND_QUOTA', '--format', 'json']);
    expect(r.status, r.stderr).toBe(0);
    const { trends } = JSON.parse(r.stdout) as { trends: TrendEntry[] };
    const clb = trends.find((t) => t.resource.id === CLB)!;
    expect(clb).toMatchObject({ checkId: 'CLB_BACKEND_QUOTA', status: 'ok', slopePerDay: 4, samples: 7, limit: 200 });
    expect(Object.keys(clb)).toEqual(['checkId', 'resource', 'status', 'used', 'limit', 'slopePerDay', 'samples', 'secondsToExhaustion', 'exhaustsAt']);
    expect(Object.keys(clb.resource)).toEqual(['kind', 'id', 'accountId', 'regionId', 'clusterId']);
    // used 168 at the last scan (day 6 = 2026-11-16T00:00Z); (200 - 168) / 4 = 8 days later, counted from NOW (12 h after).
    expect(clb.used).toBe(168);
    expect(clb.secondsToExhaustion.p50).toBe(8 * 86_400 - 12 * 3_600);
    expect(clb.exhaustsAt.p50).toBe('2026-11-24T00:00:00.000Z');
    const table = await runCliInProcess(['forecast', 'trends', '--database-url', db.url, '--now', NOW, '--check', 'CLB_BACKEND_QUOTA']);
    expect(table.stdout).toContain(CLB);
  }, 120_000);

  it('/metrics exhaustion forecasts: fitted once per scan, seconds re-derived per scrape, filtered by scope', async () => {
    const forecasts = new ExhaustionForecasts(store);
    const history = vi.spyOn(store.quotaUsage, 'history');
    const first = await forecasts.at(new Date(NOW), SYSTEM_PRINCIPAL);
    const clb = first.find((e) => e.checkId === 'CLB_BACKEND_QUOTA' && e.resource.id === CLB)!;
    expect(clb.secondsToExhaustion.p50).toBe(8 * 86_400 - 12 * 3_600);
    // An hour later, same scan: no refit, every quantile one hour closer.
    const later = await forecasts.at(new Date(Date.parse(NOW) + 3_600_000), SYSTEM_PRINCIPAL);
    const clbLater = later.find((e) => e.checkId === 'CLB_BACKEND_QUOTA' && e.resource.id === CLB)!;
    expect(clbLater.secondsToExhaustion.p50).toBe(clb.secondsToExhaustion.p50! - 3_600);
    expect(clbLater.secondsToExhaustion.p10).toBe(clb.secondsToExhaustion.p10! - 3_600);
    expect(history).toHaveBeenCalledTimes(1);
    // A token scoped to another account sees none of them.
    const other: Principal = { role: 'viewer', kind: 'token', tokenId: 't', accountScope: accountsScope(['999999']) };
    expect(await forecasts.at(new Date(NOW), other)).toEqual([]);
    history.mockRestore();
  });

  it('GET /v1/forecasts/trends returns the same entries, with filters', async () => {
    const res = await request(app.getHttpServer())
      .get('/v1/forecasts/trends')
      .query({ checkId: 'CLB_BACKEND_QUOTA', now: NOW, status: 'ok' })
      .set('Authorization', `Bearer ${TOKEN}`)
      .expect(200);
    const clb = (res.body.trends as TrendEntry[]).find((t) => t.resource.id === CLB);
    expect(clb).toMatchObject({ status: 'ok', slopePerDay: 4, exhaustsAt: { p50: '2026-11-24T00:00:00.000Z' } });
    expect((res.body.trends as TrendEntry[]).every((t) => t.status === 'ok' && t.checkId === 'CLB_BACKEND_QUOTA')).toBe(true);
    await request(app.getHttpServer()).get('/v1/forecasts/trends').query({ status: 'soon' }).set('Authorization', `Bearer ${TOKEN}`).expect(400);
    await request(app.getHttpServer()).get('/v1/forecasts/trends').expect(401);
  });

  it('GET /v1/forecasts/trends?limit= pages every entry once in series key order, with nextCursor', async () => {
    const get = (query: Record<string, string | number>) => request(app.getHttpServer()).get('/v1/forecasts/trends').query({ now: NOW, ...query }).set('Authorization', `Bearer ${TOKEN}`);
    const all = (await get({}).expect(200)).body as { trends: TrendEntry[]; nextCursor?: unknown };
    expect(all).not.toHaveProperty('nextCursor');
    const key = (t: TrendEntry) => [t.checkId, t.resource.accountId, t.resource.regionId, t.resource.kind, t.resource.id].join('\u0000');
    const paged: TrendEntry[] = [];
    let after: string | null = null;
    do {
      const body = (await get({ limit: 2, ...(after ? { after } : {}) }).expect(200)).body as { trends: TrendEntry[]; nextCursor: string | null };
      expect(body.trends.length).toBeLessThanOrEqual(2);
      paged.push(...body.trends);
      after = body.nextCursor;
    } while (after);
    expect(paged.map(key)).toEqual(all.trends.map(key).sort());
    expect(paged).toEqual(expect.arrayContaining(all.trends));
    await get({ limit: 0 }).expect(400);
    await get({ after: 'bm90LWEtY3Vyc29y' }).expect(400);
  });

  it('headroom of the latest stored snapshot (CLI and REST agree)', async () => {
    const r = await runCliInProcess(['forecast', 'headroom', '--database-url', db.url, '--cluster', GROWING_CLUSTER, '--format', 'json']);
    expect(r.status, r.stderr).toBe(0);
    const cli = JSON.parse(r.stdout) as { headroom: unknown[] };
    // 168 of 200 on the CLB, +2 per node: 16 more nodes.
    expect(cli.headroom).toEqual([expect.objectContaining({ clusterId: GROWING_CLUSTER, nodes: { headroom: 16, limitedBy: { checkId: 'CLB_BACKEND_QUOTA', resource: expect.objectContaining({ id: CLB }) } } })]);
    const res = await request(app.getHttpServer()).get('/v1/forecasts/headroom').query({ clusterId: GROWING_CLUSTER }).set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(res.body.headroom).toEqual(cli.headroom);
  }, 120_000);

  it('POST /v1/forecasts/whatif runs a scenario on the latest scan; a bad step is a 400 naming it', async () => {
    const scenario = {
      apiVersion: 'fleet-audit/v1',
      kind: 'Scenario',
      name: 'peak',
      steps: [{ addNodes: { cluster: GROWING_CLUSTER, count: 17 } }],
    };
    const res = await request(app.getHttpServer()).post('/v1/forecasts/whatif').send(scenario).set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(res.body.steps[0].firstBreach).toMatchObject({ checkId: 'CLB_BACKEND_QUOTA', resource: { id: CLB }, after: { used: 202, limit: 200 } });
    const bad = await request(app.getHttpServer())
      .post('/v1/forecasts/whatif')
      .send({ ...scenario, steps: [{ addNodes: { cluster: GROWING_CLUSTER, count: 'many' } }] })
      .set('Authorization', `Bearer ${TOKEN}`)
      .expect(400);
    expect(bad.body.message).toMatch(/step 1 \(addNodes\) field addNodes\.count/);
    const unknown = await request(app.getHttpServer())
      .post('/v1/forecasts/whatif')
      .send({ ...scenario, steps: [{ addNodes: { cluster: 'c-nope', count: 1 } }] })
      .set('Authorization', `Bearer ${TOKEN}`)
      .expect(400);
    expect(unknown.body.message).toMatch(/unknown cluster 'c-nope'; clusters: /);
  });

  it('CLI whatif on the database and on the fleet directory give byte-identical JSON; errors exit 2', async () => {
    const scenario = `${ROOT}/examples/scenarios/black-friday.yaml`;
    const a = await runCliInProcess(['forecast', 'whatif', '--database-url', db.url, '--scenario', scenario, '--now', NOW, '--format', 'json']);
    expect(a.status, a.stderr).toBe(0);
    const b = await runCliInProcess(['forecast', 'whatif', '--fleet', `${ROOT}/examples/fleets/sample`, '--scenario', scenario, '--now', NOW, '--format', 'json']);
    expect(b.stdout).toBe(a.stdout);
    const out = JSON.parse(a.stdout);
    expect(Object.keys(out)).toEqual(['scenario', 'steps', 'convergence']);
    expect(Object.keys(out.steps[0])).toEqual(['name', 'quotas', 'firstBreach', 'findings', 'headroom']);
    const missing = await runCliInProcess(['forecast', 'whatif', '--database-url', db.url, '--scenario', '/nonexistent.yaml']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^fleet-audit: error: --scenario: cannot read \/nonexistent\.yaml: ENOENT\n$/);
  }, 300_000);

  describe('typed GraphQL forecasts (same numbers, scope and roles as REST)', () => {
    interface Gql {
      data?: Record<string, any> | null;
      errors?: { message: string; extensions?: { code?: string; cost?: number } }[];
    }
    const gql = async (query: string, token = TOKEN, variables?: Record<string, unknown>): Promise<Gql> =>
      (await request(app.getHttpServer()).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query, ...(variables ? { variables } : {}) })).body as Gql;
    const token = async (role: 'viewer' | 'operator', accounts?: string[]) => (await store.apiTokens.create({ role, ...(accounts ? { accounts } : {}), createdBy: 'test' })).token;
    /** A REST ResourceRef with the GraphQL nulls for absent optional fields. */
    const ref = (r: Record<string, unknown>) => ({ clusterId: null, clusterName: null, namespace: null, name: null, ...r });
    const REF = 'resource { kind id accountId regionId clusterId clusterName namespace name }';
    const TRENDS = `query($after: String, $before: String, $first: Int, $last: Int, $scoped: String) {
      quotaTrends(first: $first, after: $after, last: $last, before: $before, now: "${NOW}", accountId: $scoped) {
        totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        edges { cursor node { checkId resource { kind id accountId regionId clusterId } status used limit slopePerDay samples
          secondsToExhaustion { p10 p50 p90 } exhaustsAt { p10 p50 p90 } } } } }`;

    it('quotaTrends: every REST entry, typed, in the same order, through opaque cursors both ways; a scoped token sees its accounts only', async () => {
      const rest = (await request(app.getHttpServer()).get('/v1/forecasts/trends').query({ now: NOW }).set('Authorization', `Bearer ${TOKEN}`).expect(200)).body.trends as TrendEntry[];
      expect(rest.length).toBeGreaterThan(5);
      const seen: unknown[] = [];
      let after: string | null = null;
      for (let pages = 0; pages < 100; pages++) {
        const r = await gql(TRENDS, TOKEN, { first: 4, after });
        expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
        const c = r.data!.quotaTrends;
        expect(c.totalCount).toBe(rest.length);
        seen.push(...c.edges.map((e: { node: unknown }) => e.node));
        if (!c.pageInfo.hasNextPage) break;
        after = c.pageInfo.endCursor;
      }
      expect(seen).toEqual(rest);
      const tail = await gql(TRENDS, TOKEN, { last: 2 });
      expect(tail.data!.quotaTrends.edges.map((e: { node: unknown }) => e.node)).toEqual(rest.slice(-2));
      const before = await gql(TRENDS, TOKEN, { last: 1, before: tail.data!.quotaTrends.pageInfo.startCursor });
      expect(before.data!.quotaTrends.edges.map((e: { node: unknown }) => e.node)).toEqual(rest.slice(-3, -2));
      // Scope: a token of the fleet's account sees its series; a token of another account sees none.
      const account = rest.find((t) => t.resource.id === CLB)!.resource.accountId;
      const mine = await gql(TRENDS, await token('viewer', [account]), { first: 100 });
      expect(mine.data!.quotaTrends.totalCount).toBe(rest.filter((t) => t.resource.accountId === account).length);
      const none = await gql(TRENDS, await token('viewer', ['999999']), { first: 100 });
      expect(none.data!.quotaTrends).toMatchObject({ totalCount: 0, edges: [] });
      const asked = await gql(TRENDS, await token('viewer', ['999999']), { first: 100, scoped: account });
      expect(asked.data!.quotaTrends.totalCount).toBe(0);
      // Arguments validated by the REST schema; paging bounds as every connection.
      expect((await gql(`{ quotaTrends(first: 5, windowDays: -1) { totalCount } }`)).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect((await gql(`{ quotaTrends(first: 101) { totalCount } }`)).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect((await gql(`{ quotaTrends(first: 1, after: "bm90LWEtY3Vyc29y") { totalCount } }`)).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    });

    it('headroom: the REST entries, typed (answers flattened); a scoped token gets the clusters of its scope, as REST', async () => {
      const rest = (await request(app.getHttpServer()).get('/v1/forecasts/headroom').set('Authorization', `Bearer ${TOKEN}`).expect(200)).body as { scanId: string; headroom: any[] };
      const ANSWER = `{ headroom limitedBy { checkId ${REF} } alreadyOver { checkId used limit ${REF} } }`;
      const r = await gql(`{ headroom { scanId clusters(first: 100) { totalCount nodes { clusterId nodes ${ANSWER} clusterModeServices ${ANSWER} localServices ${ANSWER} } } } }`);
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      const flat = (a: any) =>
        'alreadyOver' in a
          ? { headroom: null, limitedBy: null, alreadyOver: a.alreadyOver.map((o: any) => ({ ...o, resource: ref(o.resource) })) }
          : { headroom: a.headroom, limitedBy: a.limitedBy ? { checkId: a.limitedBy.checkId, resource: ref(a.limitedBy.resource) } : null, alreadyOver: [] };
      expect(r.data!.headroom.scanId).toBe(rest.scanId);
      expect(r.data!.headroom.clusters.totalCount).toBe(rest.headroom.length);
      expect(r.data!.headroom.clusters.nodes).toEqual(
        rest.headroom.map((e) => ({ clusterId: e.clusterId, nodes: flat(e.nodes), clusterModeServices: flat(e.clusterModeServices), localServices: flat(e.localServices) })),
      );
      const growing = r.data!.headroom.clusters.nodes.find((e: any) => e.clusterId === GROWING_CLUSTER);
      expect(growing.nodes).toMatchObject({ headroom: 16, limitedBy: { checkId: 'CLB_BACKEND_QUOTA', resource: { id: CLB } } });
      const scoped = await gql(`{ headroom { scanId clusters(first: 10) { totalCount } } }`, await token('viewer', ['999999']));
      expect(scoped.errors, JSON.stringify(scoped.errors)).toBeUndefined();
      expect(scoped.data!.headroom.clusters.totalCount).toBe(0);
    });

    it('whatIf: typed input checked by the scenario schema, typed result equal to REST; an operator on clusters of its scope; cost per step', async () => {
      const scenario = { apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'peak', steps: [{ addNodes: { cluster: GROWING_CLUSTER, count: 17 } }] };
      const rest = (await request(app.getHttpServer()).post('/v1/forecasts/whatif').send(scenario).set('Authorization', `Bearer ${TOKEN}`).expect(200)).body;
      const QUOTA = `checkId ${REF} before { used limit ratio } after { used limit ratio }`;
      const FINDING = `fingerprint checkId severity message ${REF}`;
      const WHATIF = `mutation($input: ScenarioInput!) { whatIf(input: $input) { scanId scenario
        steps { name firstBreach { ${QUOTA} } quotas(first: 100) { totalCount nodes { ${QUOTA} } }
          findings { appeared(first: 100) { totalCount nodes { ${FINDING} } } resolved(first: 100) { nodes { ${FINDING} } }
            severityChanged(first: 100) { nodes { fingerprint before after } } }
          headroom { clusterId nodes { headroom } } }
        convergence { services calls callsPerApi { action calls } wallSeconds { p50 p95 } boundBy } } }`;
      const r = await gql(WHATIF, TOKEN, { input: scenario });
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      const w = r.data!.whatIf;
      const step = rest.steps[0];
      const quota = (q: any) => ({ ...q, resource: ref(q.resource) });
      expect(w).toMatchObject({ scanId: rest.scanId, scenario: 'peak' });
      expect(w.steps[0].firstBreach).toEqual(quota(step.firstBreach));
      expect(w.steps[0].firstBreach).toMatchObject({ checkId: 'CLB_BACKEND_QUOTA', resource: { id: CLB }, after: { used: 202, limit: 200 } });
      expect(w.steps[0].quotas.totalCount).toBe(step.quotas.length);
      expect(w.steps[0].quotas.nodes).toEqual(step.quotas.slice(0, 100).map(quota));
      expect(w.steps[0].findings.appeared.totalCount).toBe(step.findings.appeared.length);
      expect(w.steps[0].findings.appeared.nodes).toEqual(step.findings.appeared.slice(0, 100).map(quota));
      expect(w.steps[0].headroom.map((h: any) => h.clusterId)).toEqual(step.headroom.map((h: any) => h.clusterId));
      expect(w.convergence).toEqual({ ...rest.convergence, callsPerApi: Object.entries(rest.convergence.callsPerApi).map(([action, calls]) => ({ action, calls })) });
      // Labels as a list of key/value; errors name the step and field, like REST.
      const labelled = await gql(`mutation($input: ScenarioInput!) { whatIf(input: $input) { steps { name } } }`, TOKEN, {
        input: { ...scenario, steps: [{ addNodes: { cluster: GROWING_CLUSTER, count: 1, labels: [{ key: 'pool', value: 'spot' }] } }] },
      });
      expect(labelled.errors, JSON.stringify(labelled.errors)).toBeUndefined();
      for (const [steps, message] of [
        [[{ addNodes: { cluster: GROWING_CLUSTER, count: 0 } }], /step 1 \(addNodes\) field addNodes\.count/],
        [[{ addNodes: { cluster: GROWING_CLUSTER, count: 1 }, upgradeCcm: { cluster: GROWING_CLUSTER, version: 'v2.12.1' } }], /exactly one key/],
        [[{}], /exactly one key/],
        [[{ addNodes: { cluster: 'c-nope', count: 1 } }], /unknown cluster 'c-nope'; clusters: /],
      ] as const) {
        const bad = await gql(`mutation($input: ScenarioInput!) { whatIf(input: $input) { scanId } }`, TOKEN, { input: { ...scenario, steps } });
        expect(bad.errors?.[0]?.extensions?.code, JSON.stringify(steps)).toBe('BAD_USER_INPUT');
        expect(bad.errors?.[0]?.message).toMatch(message);
      }
      const wrongVersion = await gql(`mutation($input: ScenarioInput!) { whatIf(input: $input) { scanId } }`, TOKEN, { input: { ...scenario, apiVersion: 'v2' } });
      expect(wrongVersion.errors?.[0]?.message).toMatch(/apiVersion/);
      // Roles and scope as REST: viewer refused; an operator scoped to the cluster's account runs it, one scoped to
      // another account is refused (the cluster is outside its scope).
      const query = `mutation($input: ScenarioInput!) { whatIf(input: $input) { scanId } }`;
      expect((await gql(query, await token('viewer'), { input: scenario })).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const account = rest.steps[0].firstBreach.resource.accountId as string;
      expect((await gql(query, await token('operator', [account]), { input: scenario })).errors).toBeUndefined();
      expect((await gql(query, await token('operator', ['999999']), { input: scenario })).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      // Cost: 10 + steps x (1 + selection); the selection: quotas (1 + 100 nodes x 1) + findings.appeared (1:
      // totalCount only, no node) = 102, so 400 steps cost 10 + 400 x 103 = 41,210, refused before anything runs;
      // one step costs 113 (every returned node costs at least 1).
      const costly = `mutation($input: ScenarioInput!) { whatIf(input: $input) { steps { quotas(first: 100) { nodes { checkId } } findings { appeared(first: 100) { totalCount } } } } }`;
      const many = await gql(costly, TOKEN, { input: { ...scenario, steps: Array.from({ length: 400 }, () => scenario.steps[0]) } });
      expect(many.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY', cost: 10 + 400 * 103 });
      expect((await gql(costly, TOKEN, { input: scenario })).errors).toBeUndefined();
    });
  });
});
