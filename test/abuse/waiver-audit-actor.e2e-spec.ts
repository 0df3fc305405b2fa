/**
 * The waiver audit trail cannot be forged. An operator token sending `createdBy: "alice"`,
 * `updatedBy: "bob"` and `?by=carol` is recorded as itself (`token:<id>`, its id and name) in every history row and
 * in `createdBy` / `revokedBy`; the names it sent are kept only as `statedBy`. The CLI (no token) still records its
 * local user.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const BOOTSTRAP = 'abuse-waiver-bootstrap-token-0123456789';
const KEY = 'abuse-waiver-hash-key-0123456789abcdef-0123456789';

describe('waiver audit actor', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let operator: { id: string; token: string };

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const made = await store.apiTokens.create({ role: 'operator', accounts: ['1111'], createdBy: 'bootstrap', name: 'ci-robot' });
    operator = { id: made.stored.id, token: made.token };
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false, auth: { maxFailures: 1000 } });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it('names the authenticated token, never the client-given name, in every history row', async () => {
    const auth = { Authorization: `Bearer ${operator.token}` };
    const http = () => request(app.getHttpServer());
    const created = await http()
      .post('/v1/waivers')
      .set(auth)
      .send({ checkId: 'CLB_BACKEND_QUOTA', accountId: '1111', resource: 'lb-1', owner: 'team', reason: 'forged audit probe (SEC-1)', category: 'accepted-risk', createdBy: 'alice' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.createdBy).toBe(`token:${operator.id}`);
    const id = created.body.id as string;
    expect((await http().patch(`/v1/waivers/${id}`).set(auth).send({ owner: 'team-2', updatedBy: 'bob' })).status).toBe(200);
    const revoked = await http().delete(`/v1/waivers/${id}?by=carol`).set(auth);
    expect(revoked.body.revokedBy).toBe(`token:${operator.id}`);
    const detail = await http().get(`/v1/waivers/${id}`).set(auth);
    expect(detail.body.history.map((h: Record<string, unknown>) => [h.action, h.actor, h.actorTokenId, h.actorTokenName, h.statedBy])).toEqual([
      ['created', `token:${operator.id}`, operator.id, 'ci-robot', 'alice'],
      ['updated', `token:${operator.id}`, operator.id, 'ci-robot', 'bob'],
      ['revoked', `token:${operator.id}`, operator.id, 'ci-robot', 'carol'],
    ]);
    // Without a client-given name there is no statedBy.
    const plain = await http()
      .post('/v1/waivers')
      .set(auth)
      .send({ checkId: 'CLB_BACKEND_QUOTA', accountId: '1111', resource: 'lb-2', owner: 'team', reason: 'plain audit probe (SEC-2)', category: 'accepted-risk' });
    const history = (await http().get(`/v1/waivers/${plain.body.id}`).set(auth)).body.history as Record<string, unknown>[];
    expect(history[0]).toMatchObject({ actor: `token:${operator.id}`, statedBy: null });
  });

  it('in-process callers (CLI) name their user as the actor', async () => {
    const w = await store.waiverService.create({ checkId: 'CLB_BACKEND_QUOTA', accountId: '1111', resource: 'lb-3', owner: 'team', reason: 'cli audit probe (SEC-3)', category: 'accepted-risk' }, 'dave');
    expect(await store.waiverService.history(w.id)).toEqual([expect.objectContaining({ actor: 'dave', actorTokenId: null, statedBy: null })]);
  });
});
