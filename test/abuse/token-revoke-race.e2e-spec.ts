/**
 * Revoking a token while it mints tokens, against the real API on PostgreSQL with real concurrency: 60 concurrent
 * `POST /v1/tokens` with one admin token, `DELETE` of that token once 20 have answered; and the interleaving that
 * loses children, held open on purpose: creations written but not committed when the revocation starts (a session
 * holds a lock on the audit table every creation writes to, then lets go once the revocation waits too). Every child
 * the API answered 201 for must end revoked (401 on use, `revoked_at` set, audit reason `creator-revoked`), and every
 * creation after the revocation is refused (403), never 500.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'pg';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const BOOTSTRAP = 'abuse-revoke-race-bootstrap-token-0123456789';
const KEY = 'abuse-revoke-race-hash-key-0123456789abcdef-0123456789';

describe('revoking a token revokes the children it mints at the same moment', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  const http = () => request(app.getHttpServer());
  const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY, poolMax: 20 });
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false, auth: { maxFailures: 10_000 } });
    await app.init();
    // Listening, so the 60 requests run on real sockets at once.
    await app.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  /** Every child the API created is revoked, unusable and audited; the parent's revocation is recorded once. */
  async function expectAllRevoked(parentId: string, answers: request.Response[]): Promise<void> {
    const created = answers.filter((r) => r.status === 201).map((r) => r.body as { id: string; token: string });
    for (const r of answers.filter((a) => a.status !== 201)) expect([401, 403], JSON.stringify(r.body)).toContain(r.status);
    for (const child of created) {
      expect((await store.apiTokens.get(child.id))?.revokedAt, child.id).not.toBeNull();
      expect((await http().get('/v1/scans').set(bearer(child.token))).status, child.id).toBe(401);
      expect((await store.apiTokens.events(child.id)).find((e) => e.event === 'revoked')).toMatchObject({ reason: 'creator-revoked' });
    }
    expect((await store.apiTokens.events(parentId)).filter((e) => e.event === 'revoked')).toHaveLength(1);
  }

  it('creations written but not committed when the revocation starts are revoked with it', async () => {
    const parent = await http().post('/v1/tokens').set(bearer(BOOTSTRAP)).send({ role: 'admin', name: 'held-parent' });
    expect(parent.status).toBe(201);
    // Authenticated once, so the held requests below wait only on the database.
    expect((await http().get('/v1/tokens').set(bearer(parent.body.token as string))).status).toBe(200);
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    const waiting = async (n: number) => {
      // Until n sessions of this database wait on a lock (polled: PostgreSQL has no event for it). The holder is in a
      // transaction, where pg_stat_activity is read once and kept: the snapshot is cleared before each read.
      for (;;) {
        await holder.query('SELECT pg_stat_clear_snapshot()');
        const r = await holder.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
        if (Number(r.rows[0].n) >= n) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE api_token_events IN SHARE ROW EXCLUSIVE MODE');
      const creations = Array.from({ length: 8 }, (_, i) =>
        http().post('/v1/tokens').set(bearer(parent.body.token as string)).send({ role: 'viewer', accounts: ['1111'], name: `held-${i}` }),
      );
      const answers = Promise.all(creations.map((c) => c.then((r) => r)));
      await waiting(8);
      const revoke = http().delete(`/v1/tokens/${parent.body.id as string}`).set(bearer(BOOTSTRAP)).then((r) => r);
      await waiting(9);
      await holder.query('COMMIT');
      expect((await revoke).status).toBe(200);
      const all = await answers;
      expect(all.filter((r) => r.status === 201)).toHaveLength(8);
      await expectAllRevoked(parent.body.id as string, all);
    } finally {
      await holder.end();
    }
  });

  for (const round of [1, 2]) {
    it(`round ${round}: no child of a revoked admin stays valid`, async () => {
      const parent = await http().post('/v1/tokens').set(bearer(BOOTSTRAP)).send({ role: 'admin', name: `parent-${round}` });
      expect(parent.status).toBe(201);
      const answers: request.Response[] = [];
      let revoke: Promise<request.Response> | undefined;
      await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          http()
            .post('/v1/tokens')
            .set(bearer(parent.body.token as string))
            .send({ role: 'viewer', accounts: ['1111'], name: `child-${round}-${i}` })
            .then((r) => {
              answers.push(r);
              if (answers.length === 20) revoke = http().delete(`/v1/tokens/${parent.body.id as string}`).set(bearer(BOOTSTRAP));
            }),
        ),
      );
      expect((await revoke!).status).toBe(200);
      expect(answers.filter((r) => r.status === 201).length).toBeGreaterThanOrEqual(20);
      await expectAllRevoked(parent.body.id as string, answers);
    });
  }
});
