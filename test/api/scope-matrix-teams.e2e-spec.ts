/**
 * The scope matrix for team-scoped tokens (owners, libs/domain owners.ts; what they see: libs/store team-scope.util.ts),
 * on a real PostgreSQL: the bundled sample fleet analysed and stored twice as scans do (each cluster's team from its
 * `team` tag), waivers of both teams, a stored weekly report, then one token per team and account pair. Team
 * `payments` owns one cluster (`payments-legacy`) in account 1234567890123456, whose region cn-hangzhou also holds
 * `batch-legacy` (team `data`) and whose region cn-beijing holds `arena` (`games`) and `storefront` (`web`); the other
 * account holds `data-platform` and `preview-envs`. For the `payments` token it asserts, on EVERY REST route of the
 * served OpenAPI document and EVERY GraphQL root field of the served schema (the run fails when one has no entry
 * here):
 *  - no answer names another team's cluster (its id or name), whatever the route;
 *  - the fleet graph (REST and GraphQL) lists its cluster (with its team), the CLBs / NLBs / ECS instances serving only
 *    its cluster, the regions and accounts where it owns a cluster, and the same totals on both transports;
 *  - quotas: the samples of its cluster (CLB quotas attributed to it: CCM's `ack.aliyun.com` tag) and the account /
 *    region quotas of the region it draws on, nothing else;
 *  - `/metrics` is its scrape (its cluster's series, CLB series with its cluster id);
 *  - scans, a scan's coverage and skipped results, and the diff of two scans count its findings only;
 *  - waivers: those of its cluster and of its accounts' regions where it owns a cluster; it creates waivers of its
 *    cluster only; another team's waiver answers as a missing one;
 *  - reports: each report reads as its team's rendition (`scope.teams`), the listing carries no fleet summary;
 *  - findings, headroom and what-if within its cluster; another team's cluster refused exactly as a missing one;
 *  - tokens: a team-scoped admin mints only within its teams and accounts;
 *  - a team's chat message counts findings after waivers, waived ones apart.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are walked as the routes shaped them */
import type { INestApplication } from '@nestjs/common';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import type { GraphQLSchema } from 'graphql/index.js';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, type ScanLauncher } from '@app/api';
import { analyzeAndStore, defaultForecastWorkerEntry } from '@app/audit';
import { chatMessage, teamChatSummary, WeeklyReportService, type ReportDocument } from '@app/reports';
import { loadFleetDirectory } from '@app/collectors';
import type { Finding } from '@app/domain';
import { Store, SYSTEM_PRINCIPAL } from '@app/store';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { fullSelection, rootFields } from './graphql-coverage.util';

const BOOTSTRAP = 'scope-matrix-teams-bootstrap-0123456789';
const KEY = 'scope-matrix-teams-hash-key-0123456789abcdef-0123';
const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const ACCOUNT = '1234567890123456';
const OTHER_ACCOUNT = '1987654321098765';
const PAYMENTS = 'c1e64668d4e11407d7227bc187533f952';
const PAYMENTS_REGION = 'cn-hangzhou';
const BATCH_SAME_ACCOUNT = 'c34d43b2609c95a255da22974d24d9288';
/** Every other team's cluster of the sample fleet: id and name. */
const FOREIGN: [id: string, name: string][] = [
  [BATCH_SAME_ACCOUNT, 'batch-legacy'],
  ['c8f7e8e97309874d0dac47c9c955643a5', 'arena'],
  ['c81faa03ae9366a2df0093610b2aca766', 'storefront'],
  ['c75849719d4432e7378507410f099fa74', 'data-platform'],
  ['cf2781b2a1cfd954dddfdbe0be9ab915b', 'preview-envs'],
];
const FOREIGN_RE = new RegExp(FOREIGN.flat().join('|'));
const MISSING_UUID = '00000000-0000-4000-8000-00000000dead';
const BEFORE = new Date('2026-11-21T00:00:00Z');
const NOW = new Date('2026-11-22T00:00:00Z');

/** Launches nothing: a team token is refused before the launcher is asked. */
const launcher: ScanLauncher = {
  launch: () => Promise.reject(new Error('no scans in this test')),
  sourceNames: () => ['sample'],
  sourceAccounts: () => [ACCOUNT],
} as unknown as ScanLauncher;

/** The text of an answer never names another team's cluster. */
function expectNoForeign(text: string, what: string): void {
  const hit = FOREIGN_RE.exec(text);
  expect(hit?.[0] ?? null, `${what} names another team's cluster`).toBeNull();
}

describe('scope matrix: a token scoped to one team', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let schema: GraphQLSchema;
  let findings: Finding[] = [];
  let scanId = '';
  let previousScanId = '';
  let reportId = '';
  const waivers: Record<string, string> = {};
  const tokens: Record<string, string> = {};

  const get = (path: string, token: string) => request(app.getHttpServer()).get(path).set('Authorization', `Bearer ${token}`);
  const send = (method: 'post' | 'patch' | 'delete', path: string, token: string, body?: unknown) =>
    request(app.getHttpServer())[method](path).set('Authorization', `Bearer ${token}`).send(body as object);
  const post = (path: string, token: string, body: unknown) => send('post', path, token, body);
  const gql = (token: string, query: string, variables?: Record<string, unknown>) => post('/graphql', token, { query, ...(variables ? { variables } : {}) });
  const mine = () => findings.filter((f) => f.resource.team === 'payments');

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const snapshot = loadFleetDirectory(SAMPLE);
    const first = await store.scans.create({ source: 'offline', fleetName: snapshot.name, startedAt: BEFORE });
    previousScanId = first.id;
    await analyzeAndStore(loadFleetDirectory(SAMPLE), { scanId: first.id, now: BEFORE, store });
    const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name, startedAt: NOW });
    scanId = scan.id;
    findings = (await analyzeAndStore(loadFleetDirectory(SAMPLE), { scanId: scan.id, now: NOW, store })).findings;
    const mint = async (label: string, role: 'viewer' | 'operator' | 'admin', accounts: string[] | null, teams: string[] | null) => {
      tokens[label] = (await store.apiTokens.create({ role, accounts, teams, createdBy: 'test', name: label })).token;
    };
    await mint('payments', 'operator', [ACCOUNT], ['payments']);
    await mint('payments-admin', 'admin', [ACCOUNT], ['payments']);
    await mint('all', 'admin', null, null);
    // Waivers: one of the payments cluster (a finding of it), one of batch-legacy (team data, same account and region),
    // one over the payments cluster's region, one over the account's other region (no payments cluster there).
    const ofCluster = (cluster: string) => findings.find((f) => f.resource.clusterId === cluster)!;
    const waive = async (label: string, scope: Record<string, string>) => {
      const input = { owner: 'someone', reason: `waiver ${label} for the team matrix`, category: 'accepted-risk', expiresAt: '2027-01-15T00:00:00Z', ...scope };
      waivers[label] = (await store.waiverService.create(input, 'test', NOW)).id;
    };
    const p = ofCluster(PAYMENTS);
    const b = ofCluster(BATCH_SAME_ACCOUNT);
    await waive('payments', { checkId: p.checkId, accountId: ACCOUNT, clusterId: PAYMENTS, resource: p.resource.id });
    await waive('data', { checkId: b.checkId, accountId: ACCOUNT, clusterId: BATCH_SAME_ACCOUNT, resource: b.resource.id });
    await waive('region', { checkId: 'CLB_INSTANCE_QUOTA', accountId: ACCOUNT, regionId: PAYMENTS_REGION, resource: '*' });
    await waive('other-region', { checkId: 'CLB_INSTANCE_QUOTA', accountId: ACCOUNT, regionId: 'cn-beijing', resource: '*' });
    const built = await new WeeklyReportService(store).runForPeriod('team-matrix', { now: NOW });
    if (built.status !== 'built') throw new Error(`report not built: ${JSON.stringify(built)}`);
    reportId = built.reportId;
    app = await createApiApp({
      store,
      token: BOOTSTRAP,
      scanLauncher: launcher,
      logger: false,
      // Whole nested selections of a small fleet: the static cost of a deep selection is far above what it reads.
      graphql: { maxCost: Number.MAX_SAFE_INTEGER, maxNodes: Number.MAX_SAFE_INTEGER, maxDepth: 100 },
      forecasts: { workerEntry: defaultForecastWorkerEntry(process.env.FLEET_AUDIT_DIST) },
    });
    await app.init();
    schema = app.get(GraphQLSchemaHost).schema;
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it('the stored findings and fleet graph carry each cluster its team (sample fleet: cluster tag `team`)', async () => {
    const teams = new Map(findings.filter((f) => f.resource.clusterId).map((f) => [f.resource.clusterId!, f.resource.team]));
    expect(teams.get(PAYMENTS)).toBe('payments');
    expect(teams.get(BATCH_SAME_ACCOUNT)).toBe('data');
    expect(mine().length).toBeGreaterThan(0);
    const all = await get('/v1/clusters', tokens.all!).expect(200);
    expect(Object.fromEntries(all.body.items.map((c: any) => [c.name, c.team]))).toEqual({
      'payments-legacy': 'payments',
      'batch-legacy': 'data',
      arena: 'games',
      storefront: 'web',
      'data-platform': 'data',
      'preview-envs': 'web',
    });
  });

  it('CLB results carry the cluster that owns the CLB (ack.aliyun.com tag), so quota samples and findings have its team', async () => {
    const clb = findings.filter((f) => f.resource.kind === 'LoadBalancer');
    expect(clb.length).toBeGreaterThan(0);
    expect(clb.filter((f) => f.resource.clusterId !== undefined).length).toBeGreaterThan(0);
    for (const f of clb.filter((x) => x.resource.clusterId !== undefined)) expect(f.resource.team, f.resource.id).toBeDefined();
    const samples = await store.quotaUsage.forScan(scanId, SYSTEM_PRINCIPAL);
    const clbSamples = samples.filter((s) => s.resource.kind === 'LoadBalancer');
    expect(clbSamples.filter((s) => s.resource.clusterId === PAYMENTS && s.resource.team === 'payments').length).toBeGreaterThan(0);
    expect(clbSamples.filter((s) => s.resource.clusterId !== undefined).length).toBeGreaterThan(clbSamples.length / 2);
  });

  // ---- REST: every route of the OpenAPI document ------------------------------------------------------------------

  /** What the payments token gets on each REST route (method and OpenAPI path), and the checks of its answer. */
  const REST: Record<string, () => Promise<void>> = {
    'get /healthz': async () => void (await request(app.getHttpServer()).get('/healthz').expect(200)),
    'get /readyz': async () => expectNoForeign((await request(app.getHttpServer()).get('/readyz')).text, '/readyz'),
    'get /metrics': async () => {
      const r = await get('/metrics', tokens.payments!).expect(200);
      expectNoForeign(r.text, '/metrics');
      expect(r.text).toContain(`cluster_id="${PAYMENTS}"`);
      // CLB quota series carry the cluster owning the CLB; the account's own quotas stay account-level.
      const clbLines = r.text.split('\n').filter((l) => l.startsWith('fleet_audit_quota_usage_ratio{') && l.includes('resource_kind="LoadBalancer"'));
      for (const l of clbLines) expect(l).toContain(`cluster_id="${PAYMENTS}"`);
      const all = await get('/metrics', tokens.all!).expect(200);
      expect(all.text).toContain('cluster_id="c34d43b2609c95a255da22974d24d9288"');
    },
    'get /v1/scans': async () => {
      const r = await get('/v1/scans', tokens.payments!).expect(200);
      expectNoForeign(r.text, '/v1/scans');
      const latest = r.body.items.find((s: any) => s.id === scanId);
      expect(latest.summary.findings).toBe(mine().length);
    },
    'get /v1/scans/{id}': async () => {
      const r = await get(`/v1/scans/${scanId}`, tokens.payments!).expect(200);
      expectNoForeign(r.text, `/v1/scans/${scanId}`);
      expect(r.body.summary.findings).toBe(mine().length);
      const whole = await get(`/v1/scans/${scanId}`, tokens.all!).expect(200);
      // Coverage: its cluster's entries and those of its account's region, not the other region's.
      for (const c of r.body.coverage) {
        expect(c.accountId).toBe(ACCOUNT);
        if (c.clusterId) expect(c.clusterId).toBe(PAYMENTS);
        else if (c.regionId) expect(c.regionId).toBe(PAYMENTS_REGION);
      }
      expect(r.body.coverage.length).toBeGreaterThan(0);
      expect(r.body.coverage.length).toBeLessThan(whole.body.coverage.length);
    },
    'get /v1/scans/{id}/diff': async () => {
      const r = await get(`/v1/scans/${scanId}/diff`, tokens.payments!).expect(200);
      expectNoForeign(r.text, 'diff');
      expect(r.body.againstScanId).toBe(previousScanId);
      expect(r.body.counts.persisting).toBe(mine().length);
      const all = await get(`/v1/scans/${scanId}/diff?limit=1000`, tokens.all!).expect(200);
      expect(all.body.counts.persisting).toBe(findings.length);
    },
    'post /v1/scans': async () => {
      const r = await post('/v1/scans', tokens.payments!, {}).expect(403);
      expect(r.body.message).toMatch(/may not start one/);
    },
    'get /v1/findings': async () => {
      const expected = mine().map((f) => f.fingerprint).sort();
      const r = await get('/v1/findings?limit=1000', tokens.payments!).expect(200);
      expect(r.body.total).toBe(expected.length);
      expect(r.body.items.map((f: Finding) => f.fingerprint).sort()).toEqual(expected);
      for (const f of r.body.items) expect(f.resource).toMatchObject({ accountId: ACCOUNT, clusterId: PAYMENTS, team: 'payments' });
      expect((await get('/v1/findings?limit=1000&team=payments', tokens.all!).expect(200)).body.items.map((f: Finding) => f.fingerprint).sort()).toEqual(expected);
      expect((await get('/v1/findings?team=data', tokens.payments!).expect(200)).body.total).toBe(0);
      expect((await get('/v1/findings?team=not%20a%20team', tokens.all!).expect(400)).body.message).toMatch(/team/);
    },
    'get /v1/quotas': async () => {
      const r = await get('/v1/quotas?limit=1000', tokens.payments!).expect(200);
      expectNoForeign(r.text, '/v1/quotas');
      const all = (await get('/v1/quotas?limit=1000', tokens.all!).expect(200)).body.items as any[];
      // The rule: its cluster's samples, and the quotas of an account or region where it owns a cluster.
      const expected = all.filter(
        (q) => q.resource.clusterId === PAYMENTS || ((q.resource.kind === 'Region' || q.resource.kind === 'Account') && q.resource.accountId === ACCOUNT && (q.resource.regionId === '' || q.resource.regionId === PAYMENTS_REGION)),
      );
      expect(r.body.items).toEqual(expected);
      expect(r.body.total).toBe(expected.length);
      expect(r.body.items.some((q: any) => q.resource.kind === 'LoadBalancer' && q.resource.clusterId === PAYMENTS)).toBe(true);
      expect(r.body.items.some((q: any) => q.resource.kind === 'Region')).toBe(true);
    },
    'get /v1/clusters': async () => {
      const r = await get('/v1/clusters', tokens.payments!).expect(200);
      expect(r.body.items.map((c: any) => [c.clusterId, c.team])).toEqual([[PAYMENTS, 'payments']]);
      expect(r.body.total).toBe(1);
      expect((await get(`/v1/clusters?regionId=cn-beijing`, tokens.payments!).expect(200)).body.total).toBe(0);
    },
    'get /v1/load-balancers': async () => {
      const r = await get('/v1/load-balancers?limit=1000', tokens.payments!).expect(200);
      expectNoForeign(r.text, '/v1/load-balancers');
      const all = (await get('/v1/load-balancers?limit=1000', tokens.all!).expect(200)).body.items as any[];
      const served = (lb: any) => [...lb.clusterIds, ...(lb.apiServerClusterId ? [lb.apiServerClusterId] : [])];
      const expected = all.filter((lb) => served(lb).length > 0 && served(lb).every((c: string) => c === PAYMENTS)).map((lb) => lb.loadBalancerId);
      expect(expected.length).toBeGreaterThan(0);
      expect(r.body.items.map((lb: any) => lb.loadBalancerId)).toEqual(expected);
      expect(r.body.total).toBe(expected.length);
    },
    'get /v1/load-balancers/{id}': async () => {
      const list = (await get('/v1/load-balancers?limit=1000', tokens.all!).expect(200)).body.items as any[];
      const own = list.find((lb) => lb.clusterIds.length > 0 && lb.clusterIds.every((c: string) => c === PAYMENTS))!;
      const foreign = list.find((lb) => lb.clusterIds.includes(BATCH_SAME_ACCOUNT))!;
      const r = await get(`/v1/load-balancers/${own.loadBalancerId}`, tokens.payments!).expect(200);
      expectNoForeign(r.text, 'own CLB');
      const other = await get(`/v1/load-balancers/${foreign.loadBalancerId}`, tokens.payments!).expect(404);
      const missing = await get('/v1/load-balancers/lb-doesnotexist', tokens.payments!).expect(404);
      expect(other.body.message.replace(foreign.loadBalancerId, 'X')).toBe(missing.body.message.replace('lb-doesnotexist', 'X'));
    },
    'get /v1/nlbs': async () => {
      const r = await get('/v1/nlbs?limit=1000', tokens.payments!).expect(200);
      expectNoForeign(r.text, '/v1/nlbs');
      for (const n of r.body.items) expect(n.clusterIds.every((c: string) => c === PAYMENTS)).toBe(true);
    },
    'get /v1/nlbs/{id}': async () => {
      const all = (await get('/v1/nlbs?limit=1000', tokens.all!).expect(200)).body.items as any[];
      for (const n of all) {
        const r = await get(`/v1/nlbs/${n.nlbId}`, tokens.payments!);
        expectNoForeign(r.text, `/v1/nlbs/${n.nlbId}`);
        expect(r.status).toBe(n.clusterIds.length > 0 && n.clusterIds.every((c: string) => c === PAYMENTS) ? 200 : 404);
      }
    },
    'get /v1/nlb-server-groups/unused': async () => {
      const r = await get('/v1/nlb-server-groups/unused', tokens.payments!).expect(200);
      expectNoForeign(r.text, 'unused NLB server groups');
    },
    'get /v1/ecs-instances': async () => {
      const r = await get('/v1/ecs-instances?limit=1000', tokens.payments!).expect(200);
      expectNoForeign(r.text, '/v1/ecs-instances');
      const all = (await get('/v1/ecs-instances?limit=1000', tokens.all!).expect(200)).body.items as any[];
      const expected = all.filter((e) => e.clusterId === PAYMENTS).map((e) => e.instanceId);
      expect(expected.length).toBeGreaterThan(0);
      expect(r.body.items.map((e: any) => e.instanceId)).toEqual(expected);
    },
    'get /v1/ecs-instances/{id}': async () => {
      const all = (await get('/v1/ecs-instances?limit=1000', tokens.all!).expect(200)).body.items as any[];
      const own = all.find((e) => e.clusterId === PAYMENTS)!;
      const foreign = all.find((e) => e.clusterId === BATCH_SAME_ACCOUNT)!;
      expectNoForeign((await get(`/v1/ecs-instances/${own.instanceId}`, tokens.payments!).expect(200)).text, 'own ECS instance');
      await get(`/v1/ecs-instances/${foreign.instanceId}`, tokens.payments!).expect(404);
    },
    'get /v1/quota-plan': async () => {
      const r = await get('/v1/quota-plan', tokens.payments!);
      expect(r.status, r.text).toBe(200);
      expectNoForeign(r.text, '/v1/quota-plan');
    },
    'get /v1/forecasts/trends': async () => expectNoForeign((await get('/v1/forecasts/trends', tokens.payments!).expect(200)).text, 'trends'),
    'get /v1/forecasts/headroom': async () => {
      const rest = await get('/v1/forecasts/headroom', tokens.payments!).expect(200);
      expect(rest.body.headroom.map((e: { clusterId: string }) => e.clusterId)).toEqual([PAYMENTS]);
      expect(rest.body.headroom[0]).toMatchObject({ team: 'payments' });
      expect((await get(`/v1/forecasts/headroom?clusterId=${BATCH_SAME_ACCOUNT}`, tokens.payments!).expect(200)).body.headroom).toEqual([]);
      const all = await get('/v1/forecasts/headroom', tokens.all!).expect(200);
      expect(all.body.headroom.find((e: { clusterId: string }) => e.clusterId === PAYMENTS)).toEqual(rest.body.headroom[0]);
    },
    'post /v1/forecasts/whatif': async () => {
      const scenario = (cluster: string) => ({ apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'team', steps: [{ addNodes: { cluster, count: 2 } }] });
      const ok = await post('/v1/forecasts/whatif', tokens.payments!, scenario('payments-legacy')).expect(200);
      expectNoForeign(ok.text, 'what-if');
      expect(ok.body.steps[0].headroom.map((e: { clusterId: string }) => e.clusterId)).toEqual([PAYMENTS]);
      const foreign = await post('/v1/forecasts/whatif', tokens.payments!, scenario(BATCH_SAME_ACCOUNT)).expect(403);
      const missing = await post('/v1/forecasts/whatif', tokens.payments!, scenario('c00000000000000000000000000000000')).expect(403);
      expect(foreign.body.message.replace(BATCH_SAME_ACCOUNT, 'X')).toBe(missing.body.message.replace('c00000000000000000000000000000000', 'X'));
    },
    'post /v1/plans': async () => {
      const manifests = 'apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\nspec: {type: LoadBalancer, ports: [{port: 80}]}\n';
      expectNoForeign((await post('/v1/plans', tokens.payments!, { cluster: 'payments-legacy', manifests })).text, 'plan of its cluster');
      const other = await post('/v1/plans', tokens.payments!, { cluster: 'batch-legacy', manifests });
      expect(other.status).toBeGreaterThanOrEqual(400);
    },
    'post /v1/admission/{cluster}': async () => {
      const r = await post(`/v1/admission/${BATCH_SAME_ACCOUNT}`, tokens.payments!, {});
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.text).not.toMatch(/batch-legacy/);
    },
    'post /v1/admission/{cluster}/enforce': async () => {
      const r = await post(`/v1/admission/${BATCH_SAME_ACCOUNT}/enforce`, tokens.payments!, {});
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.text).not.toMatch(/batch-legacy/);
    },
    'get /v1/waivers': async () => {
      const r = await get('/v1/waivers', tokens.payments!).expect(200);
      expectNoForeign(r.text, '/v1/waivers');
      expect(r.body.items.map((w: any) => w.id).sort()).toEqual([waivers.payments, waivers.region].sort());
      expect((await get('/v1/waivers', tokens.all!).expect(200)).body.items).toHaveLength(4);
    },
    'get /v1/waivers/{id}': async () => {
      await get(`/v1/waivers/${waivers.payments}`, tokens.payments!).expect(200);
      const other = await get(`/v1/waivers/${waivers.data}`, tokens.payments!).expect(404);
      const missing = await get(`/v1/waivers/${MISSING_UUID}`, tokens.payments!).expect(404);
      expect(other.body.message.replace(waivers.data!, 'X')).toBe(missing.body.message.replace(MISSING_UUID, 'X'));
      await get(`/v1/waivers/${waivers['other-region']}`, tokens.payments!).expect(404);
    },
    'post /v1/waivers': async () => {
      const base = { checkId: 'CLB_BACKEND_QUOTA', accountId: ACCOUNT, resource: 'lb-*', owner: 'payments', reason: 'accepted until the migration is done', category: 'accepted-risk' };
      expect((await post('/v1/waivers', tokens.payments!, base).expect(403)).body.message).toMatch(/its own clusters only/);
      const foreign = await post('/v1/waivers', tokens.payments!, { ...base, clusterId: BATCH_SAME_ACCOUNT }).expect(403);
      const missing = await post('/v1/waivers', tokens.payments!, { ...base, clusterId: 'c00000000000000000000000000000000' }).expect(403);
      expect(foreign.body.message.replace(BATCH_SAME_ACCOUNT, 'X')).toBe(missing.body.message.replace('c00000000000000000000000000000000', 'X'));
      const created = await post('/v1/waivers', tokens.payments!, { ...base, clusterId: PAYMENTS }).expect(201);
      await send('delete', `/v1/waivers/${created.body.id}`, tokens.payments!).expect(200);
    },
    'patch /v1/waivers/{id}': async () => {
      await send('patch', `/v1/waivers/${waivers.data}`, tokens.payments!, { reason: 'changed by another team, never allowed' }).expect(404);
    },
    'delete /v1/waivers/{id}': async () => {
      await send('delete', `/v1/waivers/${waivers.data}`, tokens.payments!).expect(404);
    },
    'get /v1/reports': async () => {
      const r = await get('/v1/reports', tokens.payments!).expect(200);
      expect(r.body.items.map((i: any) => i.id)).toContain(reportId);
      expectNoForeign(r.text, '/v1/reports');
      // The report of every account: its scope key names the token's account only, never the other account.
      expect(r.body.items.find((i: any) => i.id === reportId).scopeKey).toBe(ACCOUNT);
      expect(r.text).not.toContain(OTHER_ACCOUNT);
      for (const i of r.body.items) expect(i.summary).toBeNull();
    },
    'get /v1/reports/{id}': async () => {
      const r = await get(`/v1/reports/${reportId}`, tokens.payments!).expect(200);
      expectNoForeign(r.text, 'report json');
      const doc = r.body as ReportDocument;
      expect(doc.scope).toEqual({ accounts: [ACCOUNT], teams: ['payments'] });
      expect(r.text).not.toContain(OTHER_ACCOUNT);
      expect(doc.summary.findings).toBe(mine().length);
      expect(doc.summary.waived).toBe(1);
      for (const format of ['html', 'md', 'csv']) expectNoForeign((await get(`/v1/reports/${reportId}?format=${format}`, tokens.payments!).expect(200)).text, `report ${format}`);
      const whole = (await get(`/v1/reports/${reportId}`, tokens.all!).expect(200)).body as ReportDocument;
      expect(whole.summary.findings).toBe(findings.length);
      expect(whole.scope.teams).toBeUndefined();
    },
    'post /v1/reports': async () => {
      const r = await post('/v1/reports', tokens.payments!, {}).expect(201);
      expectNoForeign(r.text, 'POST /v1/reports');
      expect(r.body.summary.findings).toBe(mine().length);
    },
    'get /v1/tokens': async () => {
      const listed = await get('/v1/tokens', tokens['payments-admin']!).expect(200);
      const items = (listed.body.items ?? listed.body) as { teams: string[] | null }[];
      expect(items.length).toBeGreaterThan(0);
      for (const t of items) expect(t.teams).toEqual(['payments']);
    },
    'post /v1/tokens': async () => {
      const admin = tokens['payments-admin']!;
      await post('/v1/tokens', admin, { role: 'viewer', accounts: [ACCOUNT], teams: ['payments'] }).expect(201);
      expect((await post('/v1/tokens', admin, { role: 'viewer', accounts: [ACCOUNT], teams: ['data'] }).expect(403)).body.message).toMatch(/teams data are outside/);
      expect((await post('/v1/tokens', admin, { role: 'viewer', accounts: [ACCOUNT] }).expect(403)).body.message).toMatch(/every team/);
      expect((await post('/v1/tokens', admin, { role: 'viewer', accounts: [OTHER_ACCOUNT], teams: ['payments'] }).expect(403)).body.message).toMatch(/outside/);
      expect((await post('/v1/tokens', tokens.all!, { role: 'viewer', teams: ['payments'] }).expect(400)).body.message).toMatch(/lists its accounts too/);
    },
    'get /v1/whoami': async () => {
      // The team-scoped token's own scope, teams included (the console hides what it may not do from it).
      expect((await get('/v1/whoami', tokens.payments!).expect(200)).body).toEqual({ role: 'operator', kind: 'token', tokenId: expect.any(String), tokenName: 'payments', accounts: [ACCOUNT], teams: ['payments'] });
    },
    'delete /v1/tokens/{id}': async () => {
      const t = await post('/v1/tokens', tokens['payments-admin']!, { role: 'viewer', accounts: [ACCOUNT], teams: ['payments'] }).expect(201);
      await send('delete', `/v1/tokens/${t.body.id}`, tokens['payments-admin']!).expect(200);
    },
  };

  it('every REST route of the OpenAPI document has an entry here', async () => {
    const doc = (await request(app.getHttpServer()).get('/openapi.json').expect(200)).body as { paths: Record<string, Record<string, unknown>> };
    const served = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((m) => ['get', 'post', 'patch', 'delete', 'put'].includes(m)).map((m) => `${m} ${path}`));
    expect(served.filter((r) => !(r in REST)).sort()).toEqual([]);
  });

  for (const route of Object.keys(REST)) it(`REST ${route}: its clusters only`, () => REST[route]!());

  // ---- GraphQL: every root field of the schema ----------------------------------------------------------------

  /** The query of each root field for the payments token; `check` gets its data (errors are checked first unless `refused`). */
  const GQL: Record<string, { query: () => string; variables?: () => Record<string, unknown>; refused?: RegExp; check?: (data: any) => Promise<void> | void }> = {
    'Query.accounts': {
      query: () => `{ accounts(first: 10) { totalCount nodes { ${fullSelection(schema, 'Account', 'first: 50')} } } }`,
      check: (d) => {
        expect(d.accounts.nodes.map((a: any) => a.accountId)).toEqual([ACCOUNT]);
        expect(d.accounts.nodes[0].regions.nodes.map((r: any) => r.regionId)).toEqual([PAYMENTS_REGION]);
      },
    },
    'Query.clusters': {
      query: () => `{ clusters(first: 50) { totalCount nodes { ${fullSelection(schema, 'Cluster', 'first: 50')} } } }`,
      check: async (d) => {
        expect(d.clusters.nodes.map((c: any) => [c.clusterId, c.team])).toEqual([[PAYMENTS, 'payments']]);
        expect(d.clusters.totalCount).toBe((await get('/v1/clusters', tokens.payments!)).body.total);
      },
    },
    'Query.loadBalancers': {
      query: () => `{ loadBalancers(first: 100) { totalCount nodes { ${fullSelection(schema, 'LoadBalancer', 'first: 20')} } } }`,
      check: async (d) => expect(d.loadBalancers.totalCount).toBe((await get('/v1/load-balancers', tokens.payments!)).body.total),
    },
    'Query.loadBalancer': {
      query: () => `query($id: ID!) { loadBalancer(id: $id) { loadBalancerId } }`,
      variables: () => ({ id: 'lb-doesnotexist' }),
      check: (d) => expect(d.loadBalancer).toBeNull(),
    },
    'Query.nlbs': {
      query: () => `{ nlbs(first: 100) { totalCount nodes { ${fullSelection(schema, 'Nlb', 'first: 20')} } } }`,
      check: async (d) => expect(d.nlbs.totalCount).toBe((await get('/v1/nlbs', tokens.payments!)).body.total),
    },
    'Query.nlb': { query: () => `{ nlb(id: "nlb-doesnotexist") { nlbId } }`, check: (d) => expect(d.nlb).toBeNull() },
    'Query.ecsInstances': {
      query: () => `{ ecsInstances(first: 100) { totalCount nodes { ${fullSelection(schema, 'EcsInstance', 'first: 20')} } } }`,
      check: async (d) => expect(d.ecsInstances.totalCount).toBe((await get('/v1/ecs-instances', tokens.payments!)).body.total),
    },
    'Query.quotas': {
      query: () => `{ quotas(first: 100) { totalCount nodes { checkId resource { kind id accountId regionId clusterId } used limit } } }`,
      check: async (d) => {
        const rest = (await get('/v1/quotas?limit=100', tokens.payments!)).body;
        expect(d.quotas.totalCount).toBe(rest.total);
        expect(d.quotas.nodes.map((q: any) => `${q.checkId}/${q.resource.kind}/${q.resource.id}`)).toEqual(rest.items.map((q: any) => `${q.checkId}/${q.resource.kind}/${q.resource.id}`));
      },
    },
    'Query.scans': {
      query: () => `{ scans(first: 10) { totalCount nodes { ${fullSelection(schema, 'Scan', 'first: 50')} } } }`,
      check: (d) => expect(d.scans.nodes.find((s: any) => s.id === scanId).summary.findings).toBe(mine().length),
    },
    'Query.scan': {
      query: () => `query($id: ID!) { scan(id: $id) { ${fullSelection(schema, 'Scan', 'first: 50')} } }`,
      variables: () => ({ id: scanId }),
      check: (d) => expect(d.scan.summary.findings).toBe(mine().length),
    },
    'Query.scanDiff': {
      query: () => `query($id: ID!) { scanDiff(scanId: $id) { counts { new resolved persisting } items(first: 100) { nodes { fingerprint resource { clusterId } } } } }`,
      variables: () => ({ id: scanId }),
      check: (d) => {
        expect(d.scanDiff.counts.persisting).toBe(mine().length);
        for (const n of d.scanDiff.items.nodes) expect(n.resource.clusterId).toBe(PAYMENTS);
      },
    },
    'Query.findings': {
      query: () => '{ findings(first: 100) { totalCount nodes { fingerprint resource { clusterId team } } } }',
      check: (d) => {
        expect(d.findings.totalCount).toBe(mine().length);
        expect(new Set(d.findings.nodes.map((n: any) => n.resource.team))).toEqual(new Set(['payments']));
      },
    },
    'Query.quotaTrends': { query: () => '{ quotaTrends(first: 50) { totalCount nodes { checkId resource { clusterId } } } }' },
    'Query.headroom': {
      query: () => '{ headroom { clusters(first: 50) { totalCount nodes { clusterId } } } }',
      check: (d) => expect(d.headroom.clusters.nodes).toEqual([{ clusterId: PAYMENTS }]),
    },
    'Query.quotaPlan': {
      query: () => '{ quotaPlan { rows { accountId regionId } } }',
      check: (d) => {
        for (const row of d.quotaPlan.rows) expect(`${row.accountId}/${row.regionId}`, 'a quota row where the team owns a cluster').toBe(`${ACCOUNT}/${PAYMENTS_REGION}`);
      },
    },
    'Query.tokens': { query: () => '{ tokens(first: 50) { nodes { teams } } }', refused: /admin role/ },
    'Mutation.startScan': { query: () => 'mutation { startScan { scanId } }', refused: /may not start one/ },
    'Mutation.whatIf': {
      query: () => 'mutation($i: ScenarioInput!) { whatIf(input: $i) { steps { headroom { clusterId } } } }',
      variables: () => ({ i: { apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'team', steps: [{ addNodes: { cluster: 'payments-legacy', count: 1 } }] } }),
      check: (d) => expect(d.whatIf.steps[0].headroom.map((h: any) => h.clusterId)).toEqual([PAYMENTS]),
    },
    'Mutation.plan': {
      query: () => 'mutation($m: String!) { plan(cluster: "batch-legacy", manifests: $m) { __typename } }',
      variables: () => ({ m: 'apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\nspec: {type: LoadBalancer, ports: [{port: 80}]}\n' }),
      refused: /./,
    },
    'Mutation.createToken': { query: () => 'mutation { createToken(input: { role: viewer }) { token } }', refused: /admin role/ },
    'Mutation.revokeToken': { query: () => `mutation { revokeToken(id: "${MISSING_UUID}") { id } }`, refused: /admin role/ },
  };

  it('every GraphQL root field of the schema has an entry here', () => {
    expect(rootFields(schema).filter((f) => !(f in GQL))).toEqual([]);
  });

  for (const field of Object.keys(GQL)) {
    it(`GraphQL ${field}: its clusters only`, async () => {
      const e = GQL[field]!;
      const r = await gql(tokens.payments!, e.query(), e.variables?.());
      // A refusal may echo the cluster the request named (`batch-legacy`); nothing else of another team.
      expectNoForeign(e.refused ? r.text.replaceAll('"batch-legacy"', '').replaceAll('\\"batch-legacy\\"', '') : r.text, field);
      if (e.refused) {
        expect(r.body.errors?.[0]?.message ?? '', JSON.stringify(r.body.errors)).toMatch(e.refused);
        return;
      }
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      await e.check?.(r.body.data);
    });
  }

  // ---- chat ------------------------------------------------------------------------------------------------------

  it("a team's chat message counts its clusters' findings after waivers, waived ones apart", async () => {
    const stored = await store.reports.get(reportId);
    const doc = stored!.document as unknown as ReportDocument;
    const link = 'https://audit.example.com/v1/reports/r?format=html';
    const own = mine();
    const summary = await teamChatSummary(store, doc, 'payments', link);
    expect(summary).toMatchObject({ team: 'payments', open: own.length - 1, waived: 1, link });
    const waivedFinding = own.find((f) => f.resource.clusterId === PAYMENTS)!;
    const bySeverity = (s: Finding['severity']) => own.filter((f) => f.severity === s).length - (waivedFinding.severity === s ? 1 : 0);
    expect(summary.bySeverity).toEqual({ info: bySeverity('info'), warning: bySeverity('warning'), critical: bySeverity('critical') });
    const slack = JSON.stringify(chatMessage('slack', summary));
    expect(slack).toContain('team payments');
    expect(slack).toContain('*waived*: 1');
    expectNoForeign(slack, 'the chat message');
  });
});
