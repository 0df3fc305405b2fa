/**
 * Scoped API tokens end to end on a real PostgreSQL: format and checksum, hash-only storage,
 * roles, account scope on every read (findings, scans, /metrics), expiry, revocation (also across
 * replicas within the cache TTL), audit rows, failed-auth logging and rate limiting, the CLI.
 */
import type { INestApplication } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiApp, TokenAuthenticator, type LaunchScanRequest, type ScanLauncher } from '@app/api';
import { composeToken, generateToken, parseToken, Store, type StoredScan } from '@app/store';
import { makeCoverage, makeFindings } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { runCliInProcess } from '../cli/cli-run.util';

const BOOTSTRAP = 'tokens-e2e-bootstrap-token-0123456789';
const KEY = 'tokens-e2e-hash-key-0123456789abcdef-0123456789';

class RecordingLauncher implements ScanLauncher {
  readonly requests: LaunchScanRequest[] = [];
  constructor(private readonly store: Store) {}
  async launch(r: LaunchScanRequest): Promise<{ scanId: string }> {
    this.requests.push(r);
    return { scanId: (await this.store.scans.create({ source: 'offline' })).id };
  }
}

describe('scoped API tokens (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let scan: StoredScan;
  const http = () => request(app.getHttpServer());
  const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

  async function create(body: Record<string, unknown>, as = BOOTSTRAP): Promise<{ id: string; token: string; expiresAt: string }> {
    const res = await http().post('/v1/tokens').set(bearer(as)).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; token: string; expiresAt: string };
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    scan = await store.scans.create({ source: 'offline', startedAt: new Date('2026-05-01T00:00:00Z') });
    scan = await store.scans.complete(scan.id, {
      // 12 findings of account 1111 (4 critical), 8 of account 2222.
      findings: makeFindings(20, (i) => ({
        checkId: i % 2 === 0 ? 'CLB_BACKEND_QUOTA' : 'NODEPORT_OVERLAP',
        severity: i < 12 && i % 3 === 0 ? 'critical' : 'warning',
        resource: { accountId: i < 12 ? '1111' : '2222' },
      })),
      coverage: [makeCoverage({ accountId: '1111' }), makeCoverage({ accountId: '2222', status: 'failed', errorCode: 'Forbidden.RAM', message: 'no permission on 2222' })],
      quotaUsage: [
        { checkId: 'CLB_BACKEND_QUOTA', resource: { kind: 'LoadBalancer', id: 'lb-a', accountId: '1111', regionId: 'cn-hangzhou' }, used: 190, limit: 200, ratio: 0.95 },
        { checkId: 'CLB_BACKEND_QUOTA', resource: { kind: 'LoadBalancer', id: 'lb-b', accountId: '2222', regionId: 'cn-hangzhou' }, used: 199, limit: 200, ratio: 0.995 },
      ],
    });
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new RecordingLauncher(store), logger: false, auth: { maxFailures: 1000 } });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it('creates a token shown once; the database holds only a keyed hash of its secret', async () => {
    const created = await create({ role: 'viewer', accounts: ['1111'], name: 'team-a' });
    expect(created.token).toMatch(/^fa_[0-9a-z]{12}_[0-9A-Za-z]{38}$/);
    expect(parseToken(created.token)?.id).toBe(created.id);
    const secret = created.token.split('_')[2];
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      const dump = await c.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM api_tokens t UNION ALL SELECT row_to_json(e)::text FROM api_token_events e`);
      const text = dump.rows.map((r) => r.row).join('\n');
      expect(text).toContain(created.id);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(0, 16));
      const hash = await c.query<{ h: Buffer }>('SELECT secret_hash AS h FROM api_tokens WHERE id = $1', [created.id]);
      expect(hash.rows[0].h).toHaveLength(32);
      expect(hash.rows[0].h.toString('latin1')).not.toContain(secret);
    } finally {
      await c.end();
    }
    const listed = await http().get('/v1/tokens').set(bearer(BOOTSTRAP));
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(listed.body.items[0]).toMatchObject({ id: created.id, role: 'viewer', accounts: ['1111'], name: 'team-a', createdBy: 'bootstrap', revokedAt: null });
  });

  it('defaults the expiry to 90 days and refuses more than 365', async () => {
    const created = await create({ role: 'viewer' });
    const days = (new Date(created.expiresAt).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);
    const res = await http().post('/v1/tokens').set(bearer(BOOTSTRAP)).send({ role: 'viewer', expiresInDays: 366 });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('body.expiresInDays');
    expect((await http().post('/v1/tokens').set(bearer(BOOTSTRAP)).send({ role: 'root' })).status).toBe(400);
    expect((await http().post('/v1/tokens').set(bearer(BOOTSTRAP)).send({ role: 'viewer', accounts: [] })).status).toBe(400);
  });

  it('refuses a malformed or mistyped token without reading the database', async () => {
    // A second replica on a closed store: any database read would fail with a 5xx.
    const closed = await Store.open({ connectionString: db.url, tokenHashKey: KEY });
    const replica = await createApiApp({ store: closed, token: BOOTSTRAP, scanLauncher: new RecordingLauncher(closed), logger: false });
    await replica.init();
    await closed.close();
    try {
      const good = generateToken().token;
      const flipped = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');
      for (const bad of [flipped, 'fa_short_x', `${good}x`, good.replace('fa_', 'fa_X')]) {
        const res = await request(replica.getHttpServer()).get('/v1/findings').set(bearer(bad));
        expect(res.status, bad).toBe(401);
        expect(res.body.message).toMatch(/not a well-formed fa_ token/);
      }
      // A well-formed token needs the database: the closed store answers 503, proving the others never got there.
      expect((await request(replica.getHttpServer()).get('/v1/findings').set(bearer(good))).status).toBe(503);
    } finally {
      await replica.close();
    }
  });

  it('scopes every read to the token accounts: findings, counts, scan summary and coverage, metrics', async () => {
    const { token } = await create({ role: 'viewer', accounts: ['1111'] });
    const findings = await http().get('/v1/findings?limit=1000').set(bearer(token));
    expect(findings.status).toBe(200);
    expect(findings.body.total).toBe(12);
    expect(new Set(findings.body.items.map((f: { resource: { accountId: string } }) => f.resource.accountId))).toEqual(new Set(['1111']));
    expect((await http().get('/v1/findings?accountId=2222').set(bearer(token))).body.total).toBe(0);

    const one = await http().get(`/v1/scans/${scan.id}`).set(bearer(token));
    expect(one.body.summary).toEqual({ findings: 12, bySeverity: { info: 0, warning: 8, critical: 4 }, byCheck: { CLB_BACKEND_QUOTA: 6, NODEPORT_OVERLAP: 6 } });
    expect(one.body.coverage.map((c: { accountId: string }) => c.accountId)).toEqual(['1111']);
    expect(JSON.stringify(one.body)).not.toContain('2222');
    const list = await http().get('/v1/scans').set(bearer(token));
    expect(list.body.items[0].summary.findings).toBe(12);

    const metrics = await http().get('/metrics').set(bearer(token));
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('lb-a');
    expect(metrics.text).not.toContain('lb-b');
    // No label names the other account (sample values are numbers: a heap size may contain the digits 2222).
    const labels = metrics.text.split('\n').filter((l) => !l.startsWith('#')).map((l) => /\{[^}]*\}/.exec(l)?.[0] ?? '');
    expect(labels.filter((l) => l.includes('2222'))).toEqual([]);

    // The bootstrap token sees everything.
    expect((await http().get('/v1/findings').set(bearer(BOOTSTRAP))).body.total).toBe(20);
    expect((await http().get(`/v1/scans/${scan.id}`).set(bearer(BOOTSTRAP))).body.summary.findings).toBe(20);
  });

  it('enforces roles: viewer reads, operator starts scans, admin manages tokens; refusals are audited', async () => {
    const viewer = await create({ role: 'viewer' });
    const operator = await create({ role: 'operator' });
    const admin = await create({ role: 'admin' });
    expect((await http().post('/v1/scans').set(bearer(viewer.token)).send({})).status).toBe(403);
    expect((await http().post('/v1/scans').set(bearer(operator.token)).send({})).status).toBe(202);
    expect((await http().get('/v1/tokens').set(bearer(operator.token))).status).toBe(403);
    expect((await http().post('/v1/tokens').set(bearer(viewer.token)).send({ role: 'admin' })).status).toBe(403);
    const made = await create({ role: 'viewer' }, admin.token);
    expect((await store.apiTokens.get(made.id))?.createdBy).toBe(admin.id);
    const events = await store.apiTokens.events(viewer.id);
    expect(events.filter((e) => e.event === 'denied').map((e) => e.reason)).toEqual(['forbidden', 'forbidden']);
    expect(events.some((e) => e.event === 'created')).toBe(true);
  });

  it('waiver changes need operator; waivers and reports answer scoped tokens over their accounts only (see scoped-waivers-reports)', async () => {
    const scoped = await create({ role: 'operator', accounts: ['1111'] });
    const viewerAll = await create({ role: 'viewer' });
    for (const path of ['/v1/waivers', '/v1/reports']) {
      expect((await http().get(path).set(bearer(scoped.token))).status, path).toBe(200);
      expect((await http().get(path).set(bearer(viewerAll.token))).status, path).toBe(200);
    }
    const waiver = { checkId: 'CLB_BACKEND_QUOTA', accountId: '1111', resource: 'lb-a', owner: 'team-a', reason: 'accepted until the Q3 migration' };
    expect((await http().post('/v1/waivers').set(bearer(viewerAll.token)).send(waiver)).status).toBe(403);
    const metrics = await http().get('/metrics').set(bearer(scoped.token));
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^fleet_audit_waivers\{state="active"\} 0$/m);
    expect(metrics.text).toMatch(/^fleet_audit_reports\{delivery="none"\} 0$/m);
  });

  it('refuses expired and revoked tokens, records last use, and audits each event', async () => {
    const expired = await store.apiTokens.create({ role: 'viewer', ttlMs: 60_000, createdBy: 'test', now: new Date(Date.now() - 120_000) });
    const res = await http().get('/v1/findings').set(bearer(expired.token));
    expect(res.status).toBe(401);
    expect(res.body.message).toContain('token expired');

    const live = await create({ role: 'viewer' });
    expect((await http().get('/v1/findings').set(bearer(live.token))).status).toBe(200);
    await vi.waitFor(async () => expect((await store.apiTokens.get(live.id))?.lastUsedAt).not.toBeNull());
    const revoked = await http().delete(`/v1/tokens/${live.id}`).set(bearer(BOOTSTRAP));
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).not.toBeNull();
    const after = await http().get('/v1/findings').set(bearer(live.token));
    expect(after.status).toBe(401);
    expect(after.body.message).toContain('token revoked');
    expect((await http().delete('/v1/tokens/zzzzzzzzzzzz').set(bearer(BOOTSTRAP))).status).toBe(404);

    const events = await store.apiTokens.events(live.id);
    expect(events.map((e) => [e.event, e.reason, e.actor])).toEqual([
      ['denied', 'revoked', null],
      ['revoked', null, 'bootstrap'],
      ['created', null, 'bootstrap'],
    ]);
    expect(events[0].clientAddress).toMatch(/127\.0\.0\.1|::1/);
    expect((await store.apiTokens.events(expired.stored.id))[0]).toMatchObject({ event: 'denied', reason: 'expired' });
  });

  it('a revocation through another replica holds once the cache TTL (2 s, under 5 s) has passed', async () => {
    let clock = Date.now();
    const replica = new TokenAuthenticator(BOOTSTRAP, store.apiTokens, {}, () => clock);
    const { token, id } = await create({ role: 'viewer' });
    expect((await replica.authenticate(`Bearer ${token}`, '10.0.0.1')).tokenId).toBe(id);
    await store.apiTokens.revoke(id, 'cli');
    clock += 1_000;
    expect((await replica.authenticate(`Bearer ${token}`, '10.0.0.1')).tokenId).toBe(id); // still cached
    clock += 1_100;
    await expect(replica.authenticate(`Bearer ${token}`, '10.0.0.1')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('logs failed authentications without the secret and rate-limits failures of the client address, never a valid token', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn');
    try {
      const limited = new TokenAuthenticator(BOOTSTRAP, store.apiTokens, { maxFailures: 3, failureWindowMs: 60_000 });
      const { token, id } = await create({ role: 'viewer' });
      // The right id with a guessed secret and a valid checksum: reaches the database, fails the hash.
      const guess = composeToken(id, 'A'.repeat(32)).token;
      for (let i = 0; i < 3; i++) await expect(limited.authenticate(`Bearer ${guess}`, '10.9.9.9')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      await expect(limited.authenticate(`Bearer ${guess}`, '10.9.9.9')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      // Verified first: the valid token is accepted from the throttled address too.
      expect((await limited.authenticate(`Bearer ${token}`, '10.9.9.9')).tokenId).toBe(id);
      expect((await limited.authenticate(`Bearer ${token}`, '10.9.9.10')).tokenId).toBe(id);
      const logged = warn.mock.calls.map((c) => String(c[0])).join('\n');
      expect(logged).toContain('auth denied');
      expect(logged).toContain('10.9.9.9');
      expect(logged).not.toContain(token.split('_')[2]);
      expect(logged).not.toContain(guess.split('_')[2]);
      expect((await store.apiTokens.events(id)).filter((e) => e.event === 'denied').map((e) => [e.reason, e.clientAddress])).toEqual([
        ['bad-secret', '10.9.9.9'],
        ['bad-secret', '10.9.9.9'],
        ['bad-secret', '10.9.9.9'],
        ['bad-secret', '10.9.9.9'],
      ]);
    } finally {
      warn.mockRestore();
    }
    // Through HTTP: 429 after the limit, as JSON.
    const strict = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new RecordingLauncher(store), logger: false, auth: { maxFailures: 2 } });
    await strict.init();
    try {
      for (let i = 0; i < 2; i++) expect((await request(strict.getHttpServer()).get('/v1/scans').set(bearer('wrong-token-wrong-token'))).status).toBe(401);
      const res = await request(strict.getHttpServer()).get('/v1/scans').set(bearer('wrong-token-wrong-token'));
      expect(res.status).toBe(429);
      expect(res.body.error).toBe('RATE_LIMITED');
      expect(res.body.message).toContain(`retry in ${res.headers['retry-after']} s`);
      expect((await request(strict.getHttpServer()).get('/v1/scans').set(bearer(BOOTSTRAP))).status).toBe(200);
    } finally {
      await strict.close();
    }
  });

  it('fleet-audit token create|list|revoke work against DATABASE_URL (create --format json)', async () => {
    const env = { DATABASE_URL: db.url, TOKEN_HASH_KEY: KEY };
    const made = await runCliInProcess(['token', 'create', '--role', 'operator', '--accounts', '1111,3333', '--expires-in', '30d', '--name', 'cli-made', '--format', 'json'], env);
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    const body = JSON.parse(made.stdout) as { id: string; token: string; role: string; accounts: string[]; teams: string[] | null; expiresAt: string };
    expect(Object.keys(body).sort()).toEqual(['accounts', 'expiresAt', 'id', 'role', 'teams', 'token']);
    expect(body).toMatchObject({ role: 'operator', accounts: ['1111', '3333'], teams: null });
    // A team-scoped token lists its accounts too; a team name is bounded; the CLI says which option is wrong.
    const noAccounts = await runCliInProcess(['token', 'create', '--role', 'viewer', '--teams', 'payments'], env);
    expect(noAccounts.status).toBe(2);
    expect(noAccounts.stderr).toMatch(/--teams needs --accounts/);
    const badTeam = await runCliInProcess(['token', 'create', '--role', 'viewer', '--accounts', '1111', '--teams', 'no such team'], env);
    expect(badTeam.status).toBe(2);
    expect(badTeam.stderr).toMatch(/--teams: "no such team" is not a team name/);
    expect((await http().get('/v1/findings').set(bearer(body.token))).body.total).toBe(12);
    const listed = await runCliInProcess(['token', 'list'], env);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${body.id}\\s+operator\\s+active`));
    expect(listed.stdout).not.toContain(body.token);
    expect((await runCliInProcess(['token', 'revoke', body.id], env)).status).toBe(0);
    expect((await runCliInProcess(['token', 'list'], env)).stdout).toMatch(new RegExp(`${body.id}\\s+operator\\s+revoked`));
    const noKey = await runCliInProcess(['token', 'create', '--role', 'viewer'], { DATABASE_URL: db.url });
    expect(noKey.status).toBe(2);
    expect(noKey.stderr).toMatch(/TOKEN_HASH_KEY must be set/);
    const badTtl = await runCliInProcess(['token', 'create', '--role', 'viewer', '--expires-in', '400d'], env);
    expect(badTtl.status).toBe(2);
    expect(badTtl.stderr).toMatch(/--expires-in: .*maximum of 365d/);
    expect((await runCliInProcess(['token', 'revoke', 'nope'], env)).status).toBe(2);
  });

  describe('token management in GraphQL and REST: one service, one scoped-admin rule, the same audit rows', () => {
    interface Gql {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- walked as the query shaped it
      data?: Record<string, any> | null;
      errors?: { message: string; extensions?: { code?: string } }[];
    }
    const gql = async (query: string, token: string, variables?: Record<string, unknown>): Promise<Gql> =>
      (await http().post('/graphql').set(bearer(token)).send({ query, ...(variables ? { variables } : {}) })).body as Gql;
    const CREATE = `mutation($input: CreateTokenInput!) { createToken(input: $input) { token apiToken { id role accounts expiresAt createdBy revokedAt } } }`;
    const REVOKE = `mutation($id: ID!) { revokeToken(id: $id) { id revokedAt } }`;
    const LIST = `query($after: String) { tokens(first: 2, after: $after) { totalCount edges { cursor node { id accounts } } pageInfo { hasNextPage endCursor } } }`;

    /** The outcome of a create through REST or GraphQL: the created id, or the refusal's code. */
    async function createVia(channel: 'rest' | 'graphql', as: string, input: { role: string; accounts?: string[] }): Promise<{ id?: string; code?: string; message?: string }> {
      if (channel === 'rest') {
        const res = await http().post('/v1/tokens').set(bearer(as)).send(input);
        return res.status === 201 ? { id: res.body.id } : { code: res.body.error, message: res.body.message };
      }
      const r = await gql(CREATE, as, { input });
      return r.errors ? { code: r.errors[0]!.extensions?.code, message: r.errors[0]!.message } : { id: r.data!.createToken.apiToken.id };
    }

    /** Every token id listed through GraphQL, following cursors two at a time. */
    async function listedViaGraphql(as: string): Promise<string[]> {
      const ids: string[] = [];
      let after: string | null = null;
      for (let pages = 0; pages < 100; pages++) {
        const r = await gql(LIST, as, { after });
        expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
        const conn = r.data!.tokens;
        ids.push(...(conn.edges as { node: { id: string } }[]).map((e) => e.node.id));
        if (!conn.pageInfo.hasNextPage) break;
        after = conn.pageInfo.endCursor as string;
      }
      return ids;
    }

    it('a scoped admin creates only within its accounts, lists and revokes only within them; both channels agree', async () => {
      const scopedAdmin = await create({ role: 'admin', accounts: ['1111', '3333'] });
      const other = await create({ role: 'viewer', accounts: ['2222'] });
      for (const channel of ['rest', 'graphql'] as const) {
        const inside = await createVia(channel, scopedAdmin.token, { role: 'operator', accounts: ['1111'] });
        expect(inside.id, channel).toBeDefined();
        expect((await store.apiTokens.get(inside.id!))?.createdBy).toBe(scopedAdmin.id);
        expect((await store.apiTokens.events(inside.id!)).map((e) => [e.event, e.actor])).toEqual([['created', scopedAdmin.id]]);
        const partly = await createVia(channel, scopedAdmin.token, { role: 'viewer', accounts: ['1111', '2222'] });
        expect(partly, channel).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('2222') });
        const everyAccount = await createVia(channel, scopedAdmin.token, { role: 'viewer' });
        expect(everyAccount, channel).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('all-accounts') });
      }
      // Listing: REST and GraphQL show the same tokens in the same order, all within {1111, 3333}.
      const rest = (await http().get('/v1/tokens').set(bearer(scopedAdmin.token))).body.items as { id: string; accounts: string[] | null }[];
      expect(rest.length).toBeGreaterThanOrEqual(3);
      for (const t of rest) expect(t.accounts !== null && t.accounts.every((a) => ['1111', '3333'].includes(a)), JSON.stringify(t)).toBe(true);
      expect(await listedViaGraphql(scopedAdmin.token)).toEqual(rest.map((t) => t.id));
      expect(rest.map((t) => t.id)).not.toContain(other.id);
      // Revoking a token outside the scope: absent both ways, and not revoked.
      expect((await http().delete(`/v1/tokens/${other.id}`).set(bearer(scopedAdmin.token))).status).toBe(404);
      const outside = await gql(REVOKE, scopedAdmin.token, { id: other.id });
      expect(outside.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      expect((await store.apiTokens.get(other.id))?.revokedAt).toBeNull();
      // Within the scope: revoked through GraphQL, audited with the actor, refused at once on this replica.
      const mine = rest.find((t) => t.id !== scopedAdmin.id)!;
      const done = await gql(REVOKE, scopedAdmin.token, { id: mine.id });
      expect(done.errors, JSON.stringify(done.errors)).toBeUndefined();
      expect(done.data!.revokeToken.revokedAt).not.toBeNull();
      expect((await store.apiTokens.events(mine.id))[0]).toMatchObject({ event: 'revoked', actor: scopedAdmin.id });
    });

    it('an all-accounts admin may do everything: createToken returns the plaintext once, usable at once; expiresIn like the CLI', async () => {
      const admin = await create({ role: 'admin' });
      const before = Date.now();
      const r = await gql(CREATE, admin.token, { input: { role: 'viewer', expiresIn: '12h', name: 'gql-made' } });
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      const made = r.data!.createToken;
      expect(made.token).toMatch(/^fa_[0-9a-z]{12}_[0-9A-Za-z]{38}$/);
      expect(made.apiToken).toMatchObject({ role: 'viewer', accounts: null, createdBy: admin.id, revokedAt: null });
      const ttl = Date.parse(made.apiToken.expiresAt) - before;
      expect(ttl).toBeGreaterThan(12 * 3_600_000 - 60_000);
      expect(ttl).toBeLessThanOrEqual(12 * 3_600_000 + 60_000);
      expect((await http().get('/v1/findings').set(bearer(made.token))).body.total).toBe(20);
      // The plaintext is never listed again.
      const listed = await gql(`{ tokens(first: 100) { nodes { id name } } }`, admin.token);
      expect(JSON.stringify(listed)).not.toContain(made.token.split('_')[2]);
      expect((listed.data!.tokens.nodes as { id: string }[]).map((t) => t.id)).toContain(made.apiToken.id);
      // Validation by the same rules as REST and the CLI.
      for (const [input, what] of [
        [{ role: 'viewer', expiresIn: '400d' }, 'maximum of 365d'],
        [{ role: 'viewer', accounts: [] }, 'at least one account'],
        [{ role: 'viewer', accounts: ['no spaces'] }, 'account id'],
      ] as const) {
        const bad = await gql(CREATE, admin.token, { input });
        expect(bad.errors?.[0]?.extensions?.code, JSON.stringify(input)).toBe('BAD_USER_INPUT');
        expect(bad.errors?.[0]?.message).toContain(what);
      }
      const badId = await gql(REVOKE, admin.token, { id: 'NOPE' });
      expect(badId.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    });

    it('viewer and operator tokens reach none of tokens / createToken / revokeToken; each refusal is audited', async () => {
      for (const role of ['viewer', 'operator']) {
        const t = await create({ role });
        const results = [
          await gql(`{ tokens(first: 1) { totalCount } }`, t.token),
          await gql(CREATE, t.token, { input: { role: 'viewer' } }),
          await gql(REVOKE, t.token, { id: t.id }),
        ];
        for (const r of results) {
          expect(r.errors?.[0]?.extensions?.code, role).toBe('FORBIDDEN');
          expect(r.data ?? null).toBeNull();
        }
        expect((await store.apiTokens.get(t.id))?.revokedAt).toBeNull();
        const denied = (await store.apiTokens.events(t.id)).filter((e) => e.event === 'denied').map((e) => e.reason);
        expect(denied).toEqual(['forbidden', 'forbidden', 'forbidden']);
      }
    });
  });
});
