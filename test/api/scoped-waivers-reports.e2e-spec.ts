/**
 * Waivers and stored reports on the one policy layer, end to end on a real PostgreSQL:
 * reads filtered by the token's account scope in SQL (an out-of-scope waiver or report answers 404,
 * never 403), `/metrics` waiver and report series computed over the scope, and waiver management:
 * operators change or revoke only the waivers their own token created, admins anyone's (in scope).
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';
import { makeCoverage, makeFindings } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const BOOTSTRAP = 'scoped-waivers-e2e-bootstrap-0123456789';
const KEY = 'scoped-waivers-e2e-hash-key-0123456789abcdef-01';
const A = '1111';
const B = '2222';

describe('waivers and reports filtered by account scope; waiver ownership (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  const http = () => request(app.getHttpServer());
  const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
  const tokens: Record<string, { id: string; token: string }> = {};
  const reportIds: Record<string, string> = {};
  let waiverOfB: string;

  const waiverBody = (accountId: string, resource: string) => ({
    checkId: 'CLB_BACKEND_QUOTA',
    accountId,
    resource,
    owner: `team-${accountId}`,
    reason: 'accepted until the Q3 migration of this load balancer',
    category: 'accepted-risk',
  });
  const metric = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const scan = await store.scans.create({ source: 'offline', startedAt: new Date(Date.now() - 60_000) });
    await store.scans.complete(scan.id, {
      // lb-00000..lb-00005 in account A, lb-00006..lb-00009 in account B.
      findings: makeFindings(10, (i) => ({ checkId: 'CLB_BACKEND_QUOTA', resource: { accountId: i < 6 ? A : B } })),
      coverage: [makeCoverage({ accountId: A }), makeCoverage({ accountId: B })],
    });
    for (const [name, role, accounts] of [
      ['viewerA', 'viewer', [A]],
      ['operatorA', 'operator', [A]],
      ['operatorA2', 'operator', [A]],
      ['adminA', 'admin', [A]],
      ['viewerAB', 'viewer', [A, B]],
      ['viewerAll', 'viewer', null],
    ] as const) {
      const made = await store.apiTokens.create({ role, accounts, createdBy: 'test' });
      tokens[name] = { id: made.stored.id, token: made.token };
    }
    // Reports of four scopes, built the way the worker stores them (claim + complete).
    for (const scopeKey of ['all', A, B, `${A},${B}`]) {
      const id = (await store.reports.claim('2026-11-23T00:00', scopeKey))!;
      await store.reports.complete(id, {
        document: { title: `report ${scopeKey}`, scope: { accounts: scopeKey === 'all' ? 'all' : scopeKey.split(',') } },
        summary: { findings: 1 },
        periodStart: '2026-11-16T00:00:00.000Z',
        periodEnd: '2026-11-23T00:00:00.000Z',
        scanId: null,
      });
      reportIds[scopeKey] = id;
    }
    await store.reports.setDelivery(reportIds[B], { status: 'failed', attempts: 5, error: 'webhook answered HTTP 500' });
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false, auth: { maxFailures: 1000 } });
    await app.init();
    const made = await http().post('/v1/waivers').set(bearer(BOOTSTRAP)).send(waiverBody(B, 'lb-00006'));
    expect(made.status).toBe(201);
    expect(made.body.createdByToken).toBeNull();
    waiverOfB = made.body.id as string;
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it('creates waivers only for accounts in scope, with the operator role, recording the creating token', async () => {
    expect((await http().post('/v1/waivers').set(bearer(tokens.viewerA.token)).send(waiverBody(A, 'lb-00001'))).status).toBe(403);
    const outside = await http().post('/v1/waivers').set(bearer(tokens.operatorA.token)).send(waiverBody(B, 'lb-00007'));
    expect(outside.status).toBe(403);
    expect(outside.body.message).toContain('outside the token');
    const made = await http().post('/v1/waivers').set(bearer(tokens.operatorA.token)).send(waiverBody(A, 'lb-00001'));
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ accountId: A, createdByToken: tokens.operatorA.id, createdBy: `token:${tokens.operatorA.id}`, state: 'active' });
    expect(made.body.matches[0].findings).toBe(1);
  });

  it('lists and reads only waivers of the token accounts; another account answers 404', async () => {
    const listA = await http().get('/v1/waivers').set(bearer(tokens.viewerA.token));
    expect(listA.status).toBe(200);
    expect(listA.body.items.length).toBeGreaterThan(0);
    expect(listA.body.items.every((w: { accountId: string }) => w.accountId === A)).toBe(true);
    expect(listA.body.total).toBe(listA.body.items.length);
    const listAll = await http().get('/v1/waivers').set(bearer(tokens.viewerAll.token));
    expect(new Set(listAll.body.items.map((w: { accountId: string }) => w.accountId))).toEqual(new Set([A, B]));
    expect(listAll.body.total).toBe(listA.body.total + 1);

    const hidden = await http().get(`/v1/waivers/${waiverOfB}`).set(bearer(tokens.viewerA.token));
    expect(hidden.status).toBe(404);
    const absent = await http().get('/v1/waivers/00000000-0000-4000-8000-000000000000').set(bearer(tokens.viewerA.token));
    expect(absent.status).toBe(404);
    // Same answer whether the waiver exists elsewhere or not at all (existence does not leak).
    expect(hidden.body.message.replace(waiverOfB, 'ID')).toBe(absent.body.message.replace('00000000-0000-4000-8000-000000000000', 'ID'));
    expect((await http().get(`/v1/waivers/${waiverOfB}`).set(bearer(tokens.viewerAB.token))).status).toBe(200);
    // Changing another account's waiver: 404 too, even for an admin scoped to A.
    expect((await http().patch(`/v1/waivers/${waiverOfB}`).set(bearer(tokens.adminA.token)).send({ owner: 'x' })).status).toBe(404);
    expect((await http().delete(`/v1/waivers/${waiverOfB}`).set(bearer(tokens.adminA.token))).status).toBe(404);
    expect(JSON.stringify(listA.body)).not.toContain(B);
  });

  it('lets operators manage only their own waivers; admins manage anyone\'s in their scope', async () => {
    const mine = (await http().post('/v1/waivers').set(bearer(tokens.operatorA.token)).send(waiverBody(A, 'lb-00002'))).body as { id: string };
    const byBootstrap = (await http().post('/v1/waivers').set(bearer(BOOTSTRAP)).send(waiverBody(A, 'lb-00003'))).body as { id: string };

    const other = await http().patch(`/v1/waivers/${mine.id}`).set(bearer(tokens.operatorA2.token)).send({ owner: 'team-other' });
    expect(other.status).toBe(403);
    expect(other.body.message).toContain('only an admin');
    expect((await http().delete(`/v1/waivers/${mine.id}`).set(bearer(tokens.operatorA2.token))).status).toBe(403);
    expect((await http().patch(`/v1/waivers/${byBootstrap.id}`).set(bearer(tokens.operatorA.token)).send({ owner: 'team-other' })).status).toBe(403);
    expect((await http().patch(`/v1/waivers/${mine.id}`).set(bearer(tokens.viewerA.token)).send({ owner: 'team-other' })).status).toBe(403);

    const own = await http().patch(`/v1/waivers/${mine.id}`).set(bearer(tokens.operatorA.token)).send({ owner: 'team-a2' });
    expect(own.status).toBe(200);
    expect(own.body.owner).toBe('team-a2');
    const admin = await http().patch(`/v1/waivers/${byBootstrap.id}`).set(bearer(tokens.adminA.token)).send({ owner: 'team-a3' });
    expect(admin.status).toBe(200);
    expect((await http().delete(`/v1/waivers/${mine.id}`).set(bearer(tokens.adminA.token))).status).toBe(200);
    // The refused attempts changed nothing: history is created, updated (own), revoked (admin).
    const detail = await http().get(`/v1/waivers/${mine.id}`).set(bearer(tokens.viewerA.token));
    expect(detail.body.history.map((h: { action: string; actor: string }) => [h.action, h.actor])).toEqual([
      ['created', `token:${tokens.operatorA.id}`],
      ['updated', `token:${tokens.operatorA.id}`],
      ['revoked', `token:${tokens.adminA.id}`],
    ]);
  });

  it('lists and renders only reports whose accounts all lie in the token scope', async () => {
    const seen = async (name: string) => {
      const res = await http().get('/v1/reports').set(bearer(tokens[name].token));
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(res.body.items.length);
      return res.body.items.map((r: { scopeKey: string }) => r.scopeKey).sort();
    };
    expect(await seen('viewerA')).toEqual([A]);
    expect(await seen('viewerAB')).toEqual([A, `${A},${B}`, B].sort());
    expect(await seen('viewerAll')).toEqual([A, `${A},${B}`, B, 'all'].sort());

    expect((await http().get(`/v1/reports/${reportIds[A]}`).set(bearer(tokens.viewerA.token))).body.title).toBe(`report ${A}`);
    for (const key of ['all', B, `${A},${B}`]) {
      const res = await http().get(`/v1/reports/${reportIds[key]}`).set(bearer(tokens.viewerA.token));
      expect(res.status, key).toBe(404);
      expect(res.body.message).toBe(`report ${reportIds[key]} not found`);
    }
    expect((await http().get(`/v1/reports/${reportIds.all}`).set(bearer(tokens.viewerAll.token))).status).toBe(200);
  });

  it('/metrics counts waivers and reports over the scope (all-accounts numbers unchanged)', async () => {
    const scoped = (await http().get('/metrics').set(bearer(tokens.viewerA.token))).text;
    const all = (await http().get('/metrics').set(bearer(BOOTSTRAP))).text;
    const waiversA = (await http().get('/v1/waivers').set(bearer(tokens.viewerA.token))).body.items as { state: string }[];
    const waiversAll = (await http().get('/v1/waivers').set(bearer(BOOTSTRAP))).body.items as { state: string }[];
    expect(metric(scoped, 'fleet_audit_waivers{state="active"}')).toBe(waiversA.filter((w) => w.state === 'active').length);
    expect(metric(all, 'fleet_audit_waivers{state="active"}')).toBe(waiversAll.filter((w) => w.state === 'active').length);
    expect(metric(all, 'fleet_audit_waivers{state="active"}')).toBe((metric(scoped, 'fleet_audit_waivers{state="active"}') ?? 0) + 1);
    // Reports: A sees its one (delivery none); all-accounts sees four, one of them failed (B's).
    expect(metric(scoped, 'fleet_audit_reports{delivery="none"}')).toBe(1);
    expect(metric(scoped, 'fleet_audit_reports{delivery="failed"}')).toBe(0);
    expect(metric(scoped, 'fleet_audit_report_deliveries_failed')).toBe(0);
    expect(metric(all, 'fleet_audit_reports{delivery="none"}')).toBe(3);
    expect(metric(all, 'fleet_audit_reports{delivery="failed"}')).toBe(1);
    expect(metric(all, 'fleet_audit_report_deliveries_failed')).toBe(1);
  });
});
