/**
 * Waiver resource globs and API text fields, against the real API on PostgreSQL:
 * - a glob of many stars (`************#`) is refused at creation with 400 naming `resource`, and one already stored
 *   (written before the bound) is matched in linear time: findings, waivers and metrics reads answer at once and
 *   `/healthz` stays fast meanwhile, with ids 10x longer too;
 * - terminal control sequences (OSC title, clear screen, OSC 52 clipboard, C1, DEL) in a waiver's owner, reason,
 *   ticket and a token's name are refused with 400 naming the field; a reason keeps its tabs and line feeds.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '@app/domain';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';
import { makeCoverage, makeFinding } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const BOOTSTRAP = 'abuse-glob-bootstrap-token-0123456789';
const KEY = 'abuse-glob-hash-key-0123456789abcdef-0123456789';
const SHORT = '1111';
const LONG = '2222';
const STARS = '************#';

/** `count` findings of CLB_BACKEND_QUOTA in `account`, each on a resource id `length` characters long. */
function findings(account: string, count: number, length: number): Finding[] {
  return Array.from({ length: count }, (_, i) =>
    makeFinding({ checkId: 'CLB_BACKEND_QUOTA', severity: 'warning', resource: { id: `lb-${account}-${i}-`.padEnd(length, 'x'), accountId: account } }),
  );
}

describe('waiver globs in linear time; control characters refused in API text', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  let operator: string;
  let admin: string;
  const http = () => request(app.getHttpServer());
  const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
  const waiver = (over: Record<string, unknown>) => ({
    checkId: 'CLB_BACKEND_QUOTA',
    accountId: SHORT,
    resource: 'lb-1*',
    owner: 'team-network',
    reason: 'accepted while the NLB migration runs',
    category: 'accepted-risk',
    ...over,
  });

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    operator = (await store.apiTokens.create({ role: 'operator', accounts: [SHORT], createdBy: 'bootstrap', name: 'team-op' })).token;
    admin = (await store.apiTokens.create({ role: 'admin', createdBy: 'bootstrap', name: 'admin' })).token;
    // 200 findings on 40-character ids in one account, and on 400-character ids (10x) in the other.
    const scan = await store.scans.create({ source: 'offline' });
    await store.scans.complete(scan.id, {
      findings: [...findings(SHORT, 200, 40), ...findings(LONG, 200, 400)],
      coverage: [makeCoverage({ accountId: SHORT }), makeCoverage({ accountId: LONG })],
      quotaUsage: [],
    });
    // Waivers stored before the wildcard bound existed: written past the validation, as the store holds them.
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    for (const accountId of [SHORT, LONG]) {
      await store.waivers.create({ checkId: 'CLB_BACKEND_QUOTA', accountId, resource: STARS, owner: 'legacy', reason: 'stored before the bound', category: 'accepted-risk', expiresAt, createdBy: 'cli' });
    }
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false, auth: { maxFailures: 1000 } });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  /** Run `read` while /healthz is polled; resolves to the read's answer, its time and the slowest health answer. */
  async function underHealthProbe<T>(read: () => Promise<T>): Promise<{ answer: T; ms: number; slowestHealthMs: number }> {
    let done = false;
    let slowest = 0;
    const probe = (async () => {
      while (!done) {
        const t0 = performance.now();
        const r = await http().get('/healthz');
        expect(r.status).toBe(200);
        slowest = Math.max(slowest, performance.now() - t0);
      }
    })();
    const t0 = performance.now();
    const answer = await read();
    const ms = performance.now() - t0;
    done = true;
    await probe;
    return { answer, ms, slowestHealthMs: slowest };
  }

  it('refuses a many-star resource glob with 400 naming the field, in no time (API)', async () => {
    const t0 = performance.now();
    const r = await http().post('/v1/waivers').set(bearer(operator)).send(waiver({ resource: STARS }));
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.issues).toEqual([{ path: 'body.resource', message: expect.stringContaining('at most 10 wildcards (* and ?), has 12') }]);
    expect(r.body.message).toContain('resource');
    // Within the bound: accepted.
    expect((await http().post('/v1/waivers').set(bearer(operator)).send(waiver({ resource: '*-canary-*' }))).status).toBe(201);
  });

  it('reads over a stored many-star waiver answer at once, ids 10x longer too, and /healthz stays under 0.5 s', async () => {
    for (const account of [SHORT, LONG]) {
      const { answer, ms, slowestHealthMs } = await underHealthProbe(() => http().get(`/v1/findings?accountId=${account}&limit=200`).set(bearer(admin)));
      expect(answer.status).toBe(200);
      expect(answer.body.total).toBe(200);
      // No id ends with '#': nothing is waived, every finding is open.
      expect(answer.body.items.every((f: { status: string }) => f.status === 'open')).toBe(true);
      expect(ms, `findings of ${account}`).toBeLessThan(2000);
      expect(slowestHealthMs, `healthz during findings of ${account}`).toBeLessThan(500);
    }
    for (const path of ['/v1/waivers', '/metrics']) {
      const { answer, slowestHealthMs } = await underHealthProbe(() => http().get(path).set(bearer(admin)));
      expect(answer.status, path).toBe(200);
      expect(slowestHealthMs, `healthz during ${path}`).toBeLessThan(500);
    }
  });

  it('refuses terminal control sequences in waiver owner, reason, ticket and in token names, naming the field', async () => {
    const sequences = { title: '\u001b]0;pwned\u0007', clear: '\u001b[2J', clipboard: '\u001b]52;c;cm0gLXJmIH4=\u0007', c1: 'csi\u009b31m', del: 'rub\u007fout', cr: 'ok\rforged' };
    for (const [what, seq] of Object.entries(sequences)) {
      for (const field of ['owner', 'reason', 'ticket']) {
        const value = field === 'reason' ? `a long enough reason ${seq}` : `team ${seq}`;
        const r = await http().post('/v1/waivers').set(bearer(operator)).send(waiver({ [field]: value }));
        expect(r.status, `${what} in ${field}: ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.issues[0].path).toBe(`body.${field}`);
        expect(r.body.issues[0].message).toMatch(/must not contain control characters \(U\+00[0-9A-F]{2} at character \d+/);
      }
      const patch = await http().post('/v1/waivers').set(bearer(operator)).send(waiver({ resource: `lb-${what}` }));
      expect(patch.status).toBe(201);
      const changed = await http().patch(`/v1/waivers/${patch.body.id}`).set(bearer(operator)).send({ owner: `x${seq}` });
      expect(changed.status).toBe(400);
      expect(changed.body.issues[0].path).toBe('body.owner');
      const token = await http().post('/v1/tokens').set(bearer(BOOTSTRAP)).send({ role: 'viewer', accounts: [SHORT], name: `ci ${seq}` });
      expect(token.status, `${what} in a token name`).toBe(400);
      expect(token.body.issues[0].path).toBe('body.name');
      const gql = await http()
        .post('/graphql')
        .set(bearer(BOOTSTRAP))
        .send({ query: 'mutation($n: String) { createToken(input: { role: viewer, accounts: ["1111"], name: $n }) { token } }', variables: { n: `ci ${seq}` } });
      expect(gql.body.errors?.[0]?.extensions?.code, `${what} in a GraphQL token name`).toBe('BAD_USER_INPUT');
      expect(gql.body.errors[0].message).toContain('name');
    }
    // A reason over several lines keeps its tabs and line feeds.
    const multi = await http().post('/v1/waivers').set(bearer(operator)).send(waiver({ resource: 'lb-multi', reason: 'first line\n\tsecond line' }));
    expect(multi.status, JSON.stringify(multi.body)).toBe(201);
    expect(multi.body.reason).toBe('first line\n\tsecond line');
  });
});
