/**
 * Waivers through the REST API on real PostgreSQL: CRUD on /v1/waivers, and read-time
 * application in GET /v1/findings and GET /metrics (no rescan: creating or revoking a waiver changes
 * the very next read).
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher, type FindingDto } from '@app/api';
import { Store } from '@app/store';
import { makeCoverage, makeFindings } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const TOKEN = 'waivers-e2e-token-0c9d8e7f6a5b';
const auth = { Authorization: `Bearer ${TOKEN}` };
const ACCOUNT = '1000000000000001';

describe('REST /v1/waivers and read-time application (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    const now = Date.now();
    for (const days of [14, 7, 0]) {
      const scan = await store.scans.create({ source: 'offline', fleetName: 'prod', startedAt: new Date(now - days * 86_400_000 - 60_000) });
      await store.scans.complete(scan.id, {
        // lb-00000..lb-00009: 4 critical, 6 warning, all CLB_BACKEND_QUOTA in one account.
        findings: makeFindings(10, (j) => ({ checkId: 'CLB_BACKEND_QUOTA', severity: j < 4 ? 'critical' : 'warning' })),
        coverage: [makeCoverage()],
      });
    }
    app = await createApiApp({ store, token: TOKEN, scanLauncher: new UnavailableScanLauncher() });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  const metric = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  it('needs the bearer token', async () => {
    expect((await http().get('/v1/waivers')).status).toBe(401);
    expect((await http().post('/v1/waivers').send({})).status).toBe(401);
  });

  it('rejects invalid waivers with the field and the rule', async () => {
    const res = await http()
      .post('/v1/waivers')
      .set(auth)
      .send({ checkId: 'CLB_BACKEND_QUOTA', accountId: ACCOUNT, resource: 'lb-*', owner: 'team-net', reason: 'short', category: 'accepted-risk' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('reason');
    const tooLong = await http()
      .post('/v1/waivers')
      .set(auth)
      .send({ checkId: 'CLB_BACKEND_QUOTA', accountId: ACCOUNT, resource: 'lb-*', owner: 'o', reason: 'a long enough reason', category: 'mitigated', expiresAt: new Date(Date.now() + 200 * 86_400_000).toISOString() });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.issues[0].path).toBe('body.expiresAt');
  });

  it('creating a waiver marks findings waived in /v1/findings and /metrics at once; revoking undoes it', async () => {
    const before = await http().get('/metrics').set(auth);
    expect(metric(before.text, 'fleet_audit_findings{check_id="CLB_BACKEND_QUOTA",severity="critical"}')).toBe(4);

    const created = await http()
      .post('/v1/waivers')
      .set(auth)
      .send({ checkId: 'CLB_BACKEND_QUOTA', accountId: ACCOUNT, resource: 'lb-0000?', owner: 'team-net', reason: 'NLB migration in Q3 (NET-7)', category: 'accepted-risk', ticket: 'NET-7', createdBy: 'alice' });
    expect(created.status).toBe(201);
    // The actor is the authenticated principal (the bootstrap token here); 'alice' is only a stated name.
    expect(created.body).toMatchObject({ owner: 'team-net', createdBy: 'bootstrap', state: 'active', ticket: 'NET-7', regionId: null });
    const id = created.body.id as string;

    const findings = await http().get('/v1/findings').set(auth);
    const items = findings.body.items as FindingDto[];
    const waived = items.filter((f) => f.status === 'waived');
    // lb-00000..lb-00009 all match `lb-0000?`; severities are kept.
    expect(waived).toHaveLength(10);
    expect(waived.filter((f) => f.severity === 'critical')).toHaveLength(4);
    expect(waived[0].waiver).toMatchObject({ id, owner: 'team-net', category: 'accepted-risk', ticket: 'NET-7' });

    const after = await http().get('/metrics').set(auth);
    expect(metric(after.text, 'fleet_audit_findings{check_id="CLB_BACKEND_QUOTA",severity="critical"}')).toBe(0);
    expect(metric(after.text, 'fleet_audit_findings_waived{check_id="CLB_BACKEND_QUOTA",severity="critical"}')).toBe(4);
    expect(metric(after.text, 'fleet_audit_waivers{state="active"}')).toBe(1);
    expect(metric(after.text, 'fleet_audit_waivers{state="stale"}')).toBe(0);

    const list = await http().get('/v1/waivers').set(auth);
    expect(list.body.total).toBe(1);
    expect(list.body.items[0].matches.map((m: { findings: number }) => m.findings)).toEqual([10, 10]);

    const patched = await http().patch(`/v1/waivers/${id}`).set(auth).send({ owner: 'team-edge', updatedBy: 'bob' });
    expect(patched.status).toBe(200);
    expect(patched.body.owner).toBe('team-edge');

    const revoked = await http().delete(`/v1/waivers/${id}?by=carol`).set(auth);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ state: 'revoked', revokedBy: 'bootstrap' });
    expect((await http().delete(`/v1/waivers/${id}`).set(auth)).status).toBe(409);

    const reopened = await http().get('/v1/findings').set(auth);
    expect((reopened.body.items as FindingDto[]).every((f) => f.status === 'open')).toBe(true);
    const last = await http().get('/metrics').set(auth);
    expect(metric(last.text, 'fleet_audit_findings{check_id="CLB_BACKEND_QUOTA",severity="critical"}')).toBe(4);
    expect(metric(last.text, 'fleet_audit_waivers{state="active"}')).toBe(0);

    const detail = await http().get(`/v1/waivers/${id}`).set(auth);
    expect(detail.body.history.map((h: { action: string; actor: string; statedBy: string | null }) => `${h.action}:${h.actor}:${h.statedBy}`)).toEqual([
      'created:bootstrap:alice',
      'updated:bootstrap:bob',
      'revoked:bootstrap:carol',
    ]);
    expect((await http().get('/v1/waivers').set(auth)).body.total).toBe(0);
    expect((await http().get('/v1/waivers?includeRevoked=true').set(auth)).body.total).toBe(1);
    expect((await http().get('/v1/waivers/00000000-0000-4000-8000-000000000000').set(auth)).status).toBe(404);
  });
});
