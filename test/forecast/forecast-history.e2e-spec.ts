/**
 * Capacity planning end to end on real PostgreSQL: dated dumps of a growing fleet are backfilled with
 * `fleet-audit scan --fleet DIR --now ISO --database-url URL`, then the trend is read back through
 * `fleet-audit forecast trends` and GET /v1/forecasts/trends; headroom and a what-if run on the latest stored
 * snapshot through the CLI and REST. Needs `npx nest build cli` (the CLI runs from dist/).
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UnavailableScanLauncher, createApiApp } from '@app/api';
import type { TrendEntry } from '@app/forecast';
import { SYSTEM_PRINCIPAL, Store, accountsScope, type Principal } from '@app/store';
import { ExhaustionForecasts } from '../../apps/api/src/metrics/metrics.service';
import { ROOT, runCli } from '../cli/cli-run.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { GROWING_CLUSTER, writeDatedDumps } from './dated-dumps.util';

const TOKEN = 'forecast-e2e-token-0a1b2c3d4e5f';
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
    for (const [i, dir] of dumps.entries()) {
      const at = new Date(DAY0 + i * 86_400_000).toISOString();
      const r = runCli(['scan', '--fleet', dir, '--now', at, '--database-url', db.url, '--format', 'json', '--no-progress']);
      expect(r.status, r.stderr).toBe(0);
    }
    store = await Store.open({ connectionString: db.url });
    app = await createApiApp({ store, token: TOKEN, scanLauncher: new UnavailableScanLauncher() });
    await app.init();
  }, 300_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.drop();
  });

  it('stores each backfilled scan at its observation time', async () => {
    const { items } = await store.scans.list({ limit: 10 }, SYSTEM_PRINCIPAL);
    expect(items.map((s) => s.startedAt).sort()).toEqual(Array.from({ length: 7 }, (_, i) => new Date(DAY0 + i * 86_400_000).toISOString()));
  });

  it('CLI forecast trends reads the growth back: +4 backends a day on the CLB, exhaustion dated', () => {
    const r = runCli(['forecast', 'trends', '--database-url', db.url, '--now', NOW, '--check', 'CLB_BACKEND_QUOTA', '--format', 'json']);
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
    const table = runCli(['forecast', 'trends', '--database-url', db.url, '--now', NOW, '--check', 'CLB_BACKEND_QUOTA']);
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

  it('headroom of the latest stored snapshot (CLI and REST agree)', async () => {
    const r = runCli(['forecast', 'headroom', '--database-url', db.url, '--cluster', GROWING_CLUSTER, '--format', 'json']);
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
    expect(unknown.body.message).toMatch(/unknown cluster "c-nope"/);
  });

  it('CLI whatif on the database and on the fleet directory give byte-identical JSON; errors exit 2', () => {
    const scenario = `${ROOT}/examples/scenarios/black-friday.yaml`;
    const a = runCli(['forecast', 'whatif', '--database-url', db.url, '--scenario', scenario, '--now', NOW, '--format', 'json']);
    expect(a.status, a.stderr).toBe(0);
    const b = runCli(['forecast', 'whatif', '--fleet', `${ROOT}/examples/fleets/sample`, '--scenario', scenario, '--now', NOW, '--format', 'json']);
    expect(b.stdout).toBe(a.stdout);
    const out = JSON.parse(a.stdout);
    expect(Object.keys(out)).toEqual(['scenario', 'steps', 'convergence']);
    expect(Object.keys(out.steps[0])).toEqual(['name', 'quotas', 'firstBreach', 'findings', 'headroom']);
    const missing = runCli(['forecast', 'whatif', '--database-url', db.url, '--scenario', '/nonexistent.yaml']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^fleet-audit: error: --scenario: cannot read \/nonexistent\.yaml: ENOENT\n$/);
  }, 300_000);
});
