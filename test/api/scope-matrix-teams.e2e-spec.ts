/**
 * The scope matrix for team-scoped tokens (owners, libs/domain owners.ts), on a real PostgreSQL: the bundled sample
 * fleet analysed and stored as a scan does (each cluster's team from its `team` tag), then one token per team and
 * account pair. For a token scoped to team `payments` in account 1234567890123456 (whose region cn-hangzhou also holds
 * `batch-legacy` of team `data`, and cn-beijing `storefront` of team `web`), it asserts:
 *  - REST `GET /v1/findings` and GraphQL `findings` list and count exactly the findings of `payments-legacy`, the
 *    same set an all-accounts token gets with `team=payments`;
 *  - headroom (REST and GraphQL) answers for its cluster only, and a what-if on its cluster runs (200), while a
 *    what-if on another team's cluster of the same account is refused exactly as one on a cluster that does not exist;
 *  - the endpoints that do not filter by team (the fleet graph, quotas, `/metrics`, reports, waivers, scans) refuse it
 *    with 403 on REST and FORBIDDEN on GraphQL, so no other team's cluster shows (fail closed);
 *  - tokens: a team-scoped admin mints tokens only within its teams and accounts, a team needs accounts, and the
 *    token listing shows only tokens within its teams.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, type ScanLauncher } from '@app/api';
import { analyzeAndStore, defaultForecastWorkerEntry } from '@app/audit';
import { chatMessage, teamChatSummary, type ReportDocument } from '@app/reports';
import { loadFleetDirectory } from '@app/collectors';
import type { Finding } from '@app/domain';
import { Store } from '@app/store';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const BOOTSTRAP = 'scope-matrix-teams-bootstrap-0123456789';
const KEY = 'scope-matrix-teams-hash-key-0123456789abcdef-0123';
const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const ACCOUNT = '1234567890123456';
const OTHER_ACCOUNT = '1987654321098765';
const PAYMENTS = 'c1e64668d4e11407d7227bc187533f952';
const BATCH_SAME_ACCOUNT = 'c34d43b2609c95a255da22974d24d9288';
const NOW = new Date('2026-11-22T00:00:00Z');

const launcher: ScanLauncher = {
  launch: () => Promise.reject(new Error('no scans in this test')),
} as unknown as ScanLauncher;

describe('scope matrix: a token scoped to one team', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let findings: Finding[] = [];
  let scanId = '';
  const tokens: Record<string, string> = {};

  const get = (path: string, token: string) => request(app.getHttpServer()).get(path).set('Authorization', `Bearer ${token}`);
  const post = (path: string, token: string, body: unknown) => request(app.getHttpServer()).post(path).set('Authorization', `Bearer ${token}`).send(body as object);
  const gql = (token: string, query: string, variables?: Record<string, unknown>) => post('/graphql', token, { query, ...(variables ? { variables } : {}) });

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const scan = await store.scans.create({ source: 'offline', startedAt: NOW });
    scanId = scan.id;
    findings = (await analyzeAndStore(loadFleetDirectory(SAMPLE), { scanId: scan.id, now: NOW, store })).findings;
    const mint = async (label: string, role: 'viewer' | 'operator' | 'admin', accounts: string[] | null, teams: string[] | null) => {
      tokens[label] = (await store.apiTokens.create({ role, accounts, teams, createdBy: 'test', name: label })).token;
    };
    await mint('payments', 'operator', [ACCOUNT], ['payments']);
    await mint('payments-admin', 'admin', [ACCOUNT], ['payments']);
    await mint('all', 'admin', null, null);
    app = await createApiApp({
      store,
      token: BOOTSTRAP,
      scanLauncher: launcher,
      logger: false,
      forecasts: { workerEntry: defaultForecastWorkerEntry(process.env.FLEET_AUDIT_DIST) },
    });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.drop();
  });

  it('the stored findings carry each cluster its team (sample fleet: cluster tag `team`)', () => {
    const teams = new Map(findings.filter((f) => f.resource.clusterId).map((f) => [f.resource.clusterId!, f.resource.team]));
    expect(teams.get(PAYMENTS)).toBe('payments');
    expect(teams.get(BATCH_SAME_ACCOUNT)).toBe('data');
    expect(findings.filter((f) => f.resource.team === 'payments').length).toBeGreaterThan(0);
  });

  it('REST findings: only its team, the same set as team=payments for an all-accounts token', async () => {
    const expected = findings.filter((f) => f.resource.team === 'payments').map((f) => f.fingerprint).sort();
    const mine = await get('/v1/findings?limit=1000', tokens.payments!).expect(200);
    expect(mine.body.total).toBe(expected.length);
    expect(mine.body.items.map((f: Finding) => f.fingerprint).sort()).toEqual(expected);
    for (const f of mine.body.items) expect(f.resource).toMatchObject({ accountId: ACCOUNT, clusterId: PAYMENTS, team: 'payments' });
    const filtered = await get('/v1/findings?limit=1000&team=payments', tokens.all!).expect(200);
    expect(filtered.body.items.map((f: Finding) => f.fingerprint).sort()).toEqual(expected);
    // Another team as a filter narrows within the scope: nothing of `data` is visible to `payments`.
    expect((await get('/v1/findings?team=data', tokens.payments!).expect(200)).body.total).toBe(0);
    expect((await get('/v1/findings?team=data', tokens.all!).expect(200)).body.total).toBe(findings.filter((f) => f.resource.team === 'data').length);
    expect((await get('/v1/findings?team=not%20a%20team', tokens.all!).expect(400)).body.message).toMatch(/team/);
  });

  it('GraphQL findings: only its team, counted in SQL', async () => {
    const r = await gql(tokens.payments!, '{ findings(first: 100) { totalCount nodes { fingerprint resource { clusterId team } } } }').expect(200);
    expect(r.body.errors).toBeUndefined();
    const expected = findings.filter((f) => f.resource.team === 'payments');
    expect(expected.length).toBeLessThanOrEqual(100);
    expect(r.body.data.findings.totalCount).toBe(expected.length);
    expect(r.body.data.findings.nodes).toHaveLength(expected.length);
    expect(new Set(r.body.data.findings.nodes.map((n: { resource: { team: string } }) => n.resource.team))).toEqual(new Set(['payments']));
  });

  it('headroom answers for its clusters only (REST and GraphQL), computed over the whole account', async () => {
    const rest = await get('/v1/forecasts/headroom', tokens.payments!).expect(200);
    expect(rest.body.headroom.map((e: { clusterId: string }) => e.clusterId)).toEqual([PAYMENTS]);
    expect(rest.body.headroom[0]).toMatchObject({ team: 'payments' });
    const other = await get(`/v1/forecasts/headroom?clusterId=${BATCH_SAME_ACCOUNT}`, tokens.payments!).expect(200);
    expect(other.body.headroom).toEqual([]);
    const all = await get('/v1/forecasts/headroom', tokens.all!).expect(200);
    expect(all.body.headroom.find((e: { clusterId: string }) => e.clusterId === PAYMENTS)).toEqual(rest.body.headroom[0]);
    const g = await gql(tokens.payments!, '{ headroom { clusters(first: 50) { totalCount nodes { clusterId } } } }').expect(200);
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.headroom.clusters.nodes).toEqual([{ clusterId: PAYMENTS }]);
  });

  it("what-if runs on its cluster, and another team's cluster is refused as a missing one is", async () => {
    const scenario = (cluster: string) => ({ apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'team', steps: [{ addNodes: { cluster, count: 2 } }] });
    const ok = await post('/v1/forecasts/whatif', tokens.payments!, scenario('payments-legacy')).expect(200);
    expect(ok.body.steps[0].headroom.map((e: { clusterId: string }) => e.clusterId)).toEqual([PAYMENTS]);
    for (const s of ok.body.steps)
      for (const q of s.quotas) expect(q.resource.clusterId === undefined || q.resource.clusterId === PAYMENTS).toBe(true);
    const foreign = await post('/v1/forecasts/whatif', tokens.payments!, scenario(BATCH_SAME_ACCOUNT)).expect(403);
    const missing = await post('/v1/forecasts/whatif', tokens.payments!, scenario('c00000000000000000000000000000000')).expect(403);
    expect(foreign.body.message.replace(BATCH_SAME_ACCOUNT, 'X')).toBe(missing.body.message.replace('c00000000000000000000000000000000', 'X'));
    expect(foreign.body.message).not.toMatch(/batch-legacy|storefront|data-platform/);
  });

  it('endpoints that do not filter by team refuse it (REST 403, GraphQL FORBIDDEN): no other cluster shows', async () => {
    for (const path of ['/v1/clusters', '/v1/quotas', '/metrics', '/v1/reports', '/v1/waivers', '/v1/scans']) {
      const r = await get(path, tokens.payments!);
      expect(r.status, path).toBe(403);
      expect(r.text, path).not.toMatch(/batch-legacy|storefront|arena|data-platform|preview-envs/);
    }
    const g = await gql(tokens.payments!, '{ clusters(first: 10) { nodes { clusterId } } }');
    expect(g.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(g.body.data ?? null).toBeNull();
    expect(JSON.stringify(g.body)).not.toMatch(new RegExp(BATCH_SAME_ACCOUNT));
    // The same root is open to the all-accounts token.
    expect((await gql(tokens.all!, '{ clusters(first: 10) { totalCount } }').expect(200)).body.data.clusters.totalCount).toBe(6);
  });

  it('tokens: a team-scoped admin mints only within its teams and accounts; a team needs accounts', async () => {
    const admin = tokens['payments-admin']!;
    await post('/v1/tokens', admin, { role: 'viewer', accounts: [ACCOUNT], teams: ['payments'] }).expect(201);
    expect((await post('/v1/tokens', admin, { role: 'viewer', accounts: [ACCOUNT], teams: ['data'] }).expect(403)).body.message).toMatch(/teams data are outside/);
    expect((await post('/v1/tokens', admin, { role: 'viewer', accounts: [ACCOUNT] }).expect(403)).body.message).toMatch(/every team/);
    expect((await post('/v1/tokens', admin, { role: 'viewer', accounts: [OTHER_ACCOUNT], teams: ['payments'] }).expect(403)).body.message).toMatch(/outside/);
    expect((await post('/v1/tokens', tokens.all!, { role: 'viewer', teams: ['payments'] }).expect(400)).body.message).toMatch(/lists its accounts too/);
    const listed = await get('/v1/tokens', admin).expect(200);
    const items = (listed.body.items ?? listed.body) as { teams: string[] | null }[];
    expect(items.length).toBeGreaterThan(0);
    for (const t of items) expect(t.teams).toEqual(['payments']);
  });

  it("reports: a team's chat message counts only its clusters' findings (the report's scan, team-scoped read)", async () => {
    const doc = { title: 'Weekly audit', period: { start: '2026-11-15T00:00:00Z', end: NOW.toISOString() }, scan: { id: scanId }, previousScan: null } as unknown as ReportDocument;
    const link = 'https://audit.example.com/v1/reports/r?format=html';
    const mine = findings.filter((f) => f.resource.team === 'payments');
    const summary = await teamChatSummary(store, doc, 'payments', link);
    expect(summary).toMatchObject({ team: 'payments', open: mine.length, new: mine.length, resolved: 0, link });
    expect(summary.bySeverity.critical).toBe(mine.filter((f) => f.severity === 'critical').length);
    const slack = JSON.stringify(chatMessage('slack', summary));
    expect(slack).toContain('team payments');
    for (const other of findings.filter((f) => f.resource.team !== 'payments')) expect(slack).not.toContain(other.fingerprint);
  });
});
