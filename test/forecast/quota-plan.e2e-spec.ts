/**
 * `fleet-audit quota plan` end to end on real PostgreSQL: seven dated dumps of the sample fleet (one cluster grows by
 * two nodes a day, so the checkout-gateway CLB gains four backends a day) are stored, then the plan is read through
 * the CLI (in-process, the suite's build): the CLB backend quota is planned from the stored trend, a scenario raises
 * the value, and the formats and bad input behave.
 */
import { writeFileSync } from 'node:fs';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { UnavailableScanLauncher, createApiApp } from '@app/api';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScan } from '@app/audit';
import { fitTrendWindow, forecastTrend, resolveTrendSettings, type QuotaPlan } from '@app/forecast';
import { Store } from '@app/store';
import { runCliInProcess } from '../cli/cli-run.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { GROWING_CLUSTER, writeDatedDumps } from './dated-dumps.util';

const DAY0 = Date.parse('2026-11-10T00:00:00Z');
const NOW = '2026-11-16T12:00:00Z';
const CLB = 'lb-bp1i0hoxo5qje4vllnxj';

describe('quota plan (stored history -> CLI)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  const TOKEN = 'quota-plan-e2e-token-0a1b2c3d4e5f';

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, tokenHashKey: 'quota-plan-e2e-hash-key-0123456789abcdef-01234' });
    for (const [i, dir] of writeDatedDumps(7, 2).entries()) {
      const at = new Date(DAY0 + i * 86_400_000);
      await runScan({ source: { kind: 'offline', fleetDir: dir }, now: at, observedAt: at }, store);
    }
    app = await createApiApp({ store, token: TOKEN, scanLauncher: new UnavailableScanLauncher() });
    await app.init();
  }, 300_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  async function plan(...args: string[]): Promise<QuotaPlan> {
    const r = await runCliInProcess(['quota', 'plan', '--database-url', db.url, '--now', NOW, '--format', 'json', ...args]);
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as QuotaPlan;
  }

  it('the CLB backend quota: asked for the p10 use of the busiest CLB in 30 days plus 10 %, the same as the stored trend gives', async () => {
    const p = await plan();
    const row = p.rows.find((r) => r.quotaActionCode === 'slb_quota_backendservers_num')!;
    expect(row).toMatchObject({ action: 'request', productCode: 'slb', limit: 200, used: 168, adjustable: true, firstToReach: { resource: { id: CLB } } });
    // The forecast itself, from the stored samples of that CLB: with the planned value as its limit the early exhaustion is
    // at least 30 days away; with one unit less than the need, it is sooner.
    const history = await store.quotaUsage.history({ since: new Date(DAY0 - 86_400_000), until: new Date(NOW), checkId: 'CLB_BACKEND_QUOTA' });
    const obs = history.find((h) => h.resource.id === CLB)!.observations;
    const at = Date.parse(NOW);
    expect(forecastTrend(obs.map((o) => ({ ...o, limit: row.requestValue! })), at).secondsToExhaustion.p10!).toBeGreaterThanOrEqual(30 * 86_400);
    expect(forecastTrend(obs.map((o) => ({ ...o, limit: row.need - 1 })), at).secondsToExhaustion.p10!).toBeLessThan(30 * 86_400);
    expect(fitTrendWindow(obs, at, resolveTrendSettings({})).fit!.slope).toBe(4);
    expect(row.requestValue).toBe(Math.ceil((row.need * 110) / 100));
    // Rows to act on first; every row names a Quota Center code of the quota checks.
    expect(p.rows[0]!.action).toBe('request');
    expect(p.rows.every((r) => /^(slb|nlb)_quota_/.test(r.quotaActionCode))).toBe(true);
  }, 120_000);

  it('a scenario adding nodes to the growing cluster raises the value; horizon and margin change it', async () => {
    const base = (await plan()).rows.find((r) => r.quotaActionCode === 'slb_quota_backendservers_num')!;
    const file = join(tmpdir(), `quota-plan-scenario-${process.pid}.yaml`);
    writeFileSync(file, `apiVersion: fleet-audit/v1\nkind: Scenario\nname: big-launch\nsteps:\n  - addNodes: {cluster: ${GROWING_CLUSTER}, count: 60}\n`);
    const withLaunch = (await plan('--scenario', file)).rows.find((r) => r.quotaActionCode === 'slb_quota_backendservers_num')!;
    expect(withLaunch.scenarioNeed).toMatchObject({ scenario: 'big-launch' });
    expect(withLaunch.need).toBeGreaterThan(base.need);
    expect(withLaunch.requestValue!).toBeGreaterThan(base.requestValue!);
    const longer = (await plan('--horizon', '60', '--margin', '25')).rows.find((r) => r.quotaActionCode === 'slb_quota_backendservers_num')!;
    expect(longer.requestValue!).toBeGreaterThan(base.requestValue!);
  }, 120_000);

  it('table and markdown name the action, the value and the quota; bad input is a usage error naming the flag', async () => {
    const table = await runCliInProcess(['quota', 'plan', '--database-url', db.url, '--now', NOW]);
    expect(table.status, table.stderr).toBe(0);
    // The first row (cells wrap at the terminal's width): the action, the use, the value to ask for.
    const first = table.stdout.split('\n').slice(3, 6).join(' ');
    expect(first).toMatch(/REQUEST .*168\/200 .*ask/);
    expect(table.stdout).toContain('need = the early (p10) trend');
    const md = await runCliInProcess(['quota', 'plan', '--database-url', db.url, '--now', NOW, '--format', 'markdown']);
    expect(md.stdout).toContain('| REQUEST |');
    expect(md.stdout).toContain('`slb_quota_backendservers_num`');
    for (const [args, msg] of [
      [['--horizon', '0'], /--horizon: expected a whole number of days/],
      [['--margin', '-3'], /--margin: expected a percentage/],
      [['--scenario', '/nonexistent.yaml'], /--scenario: cannot read \/nonexistent\.yaml/],
    ] as const) {
      const r = await runCliInProcess(['quota', 'plan', '--database-url', db.url, ...args]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  }, 120_000);

  it('GET /v1/quota-plan answers the CLI\'s rows; an account-scoped token sees only its accounts; a bad query is a 400 naming the field', async () => {
    const cli = await plan();
    const rest = await request(app.getHttpServer()).get(`/v1/quota-plan?now=${NOW}`).set('Authorization', `Bearer ${TOKEN}`);
    expect(rest.status).toBe(200);
    expect(rest.body.rows).toEqual(cli.rows);
    expect(rest.body.scanId).toMatch(/^[0-9a-f-]{36}$/);
    const other = await store.apiTokens.create({ role: 'viewer', accounts: ['9999999999999999'], createdBy: 'test', name: 'other-account' });
    const scoped = await request(app.getHttpServer()).get(`/v1/quota-plan?now=${NOW}`).set('Authorization', `Bearer ${other.token}`);
    expect(scoped.status).toBe(200);
    expect(scoped.body.rows).toEqual([]);
    const bad = await request(app.getHttpServer()).get('/v1/quota-plan?horizonDays=0').set('Authorization', `Bearer ${TOKEN}`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('horizonDays');
    const anonymous = await request(app.getHttpServer()).get('/v1/quota-plan');
    expect(anonymous.status).toBe(401);
  }, 120_000);
});
