/**
 * Tokens cannot outlive the token that minted them. A 1 h scoped admin asking for a 365-day admin
 * gets one that expires with it; revoking a token revokes every token it minted, transitively, at once on the
 * replica that revoked (audit: `revoked` with reason `creator-revoked`), and from the CLI too.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { runCli } from '../cli/cli-run.util';

const BOOTSTRAP = 'abuse-lineage-bootstrap-token-0123456789';
const KEY = 'abuse-lineage-hash-key-0123456789abcdef-0123456789';

describe('token lineage', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  const http = () => request(app.getHttpServer());
  const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false, auth: { maxFailures: 1000 } });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  async function mint(as: string, body: Record<string, unknown>): Promise<{ id: string; token: string; expiresAt: string }> {
    const res = await http().post('/v1/tokens').set(bearer(as)).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; token: string; expiresAt: string };
  }

  it('a 1 h scoped admin mints a "365-day" admin that expires with it; revoking the parent revokes children and grandchildren', async () => {
    const gql = await http()
      .post('/graphql')
      .set(bearer(BOOTSTRAP))
      .send({ query: 'mutation { createToken(input: { role: admin, accounts: ["1111"], expiresIn: "1h", name: "short" }) { token apiToken { id expiresAt } } }' });
    expect(gql.body.errors, JSON.stringify(gql.body.errors)).toBeUndefined();
    const made = gql.body.data.createToken as { token: string; apiToken: { id: string; expiresAt: string } };
    const parent = { token: made.token, ...made.apiToken };
    const child = await mint(parent.token, { role: 'admin', accounts: ['1111'], expiresInDays: 365, name: 'long' });
    expect(new Date(child.expiresAt).getTime()).toBeLessThanOrEqual(new Date(parent.expiresAt).getTime());
    const grandchild = await mint(child.token, { role: 'viewer', accounts: ['1111'], expiresInDays: 30 });
    expect(new Date(grandchild.expiresAt).getTime()).toBeLessThanOrEqual(new Date(parent.expiresAt).getTime());
    // A sibling minted by the bootstrap token is not part of the lineage.
    const other = await mint(BOOTSTRAP, { role: 'viewer', accounts: ['1111'] });
    for (const t of [child, grandchild, other]) expect((await http().get('/v1/scans').set(bearer(t.token))).status).toBe(200);

    expect((await http().delete(`/v1/tokens/${parent.id}`).set(bearer(BOOTSTRAP))).status).toBe(200);
    for (const t of [parent, child, grandchild]) expect((await http().get('/v1/scans').set(bearer(t.token))).status, t.id).toBe(401);
    expect((await http().get('/v1/scans').set(bearer(other.token))).status).toBe(200);
    const events = await store.apiTokens.events(grandchild.id);
    expect(events.find((e) => e.event === 'revoked')).toMatchObject({ actor: 'bootstrap', reason: 'creator-revoked' });
  });

  it('fleet-audit token revoke revokes the minted tokens too and says so', async () => {
    const parent = await mint(BOOTSTRAP, { role: 'admin', accounts: ['2222'] });
    const child = await mint(parent.token, { role: 'viewer', accounts: ['2222'] });
    const out = runCli(['token', 'revoke', parent.id], { DATABASE_URL: db.url, TOKEN_HASH_KEY: KEY });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toContain(child.id);
    expect((await store.apiTokens.get(child.id))?.revokedAt).not.toBeNull();
  });
});
