/**
 * Failed-authentication throttling never blocks a valid token.
 * - The token is verified first: from an address past its failure limit, a valid scoped token and the bootstrap
 *   token are still answered 200; only further failures get 429.
 * - Behind a proxy (`trustProxy`, API_TRUST_PROXY) the address counted is the X-Forwarded-For client, so one
 *   guessing client does not lock out the others behind the same ingress; without it the header is ignored (a
 *   guesser cannot pick a fresh address per request).
 * - Failures are also counted per token id: guesses at one token from 30 addresses (2 each) get 429 once they pass
 *   the limit together (the review's 600 guesses from 30 addresses met no 429).
 * - `Retry-After` and the message give the same number of seconds, over REST and GraphQL.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { composeToken, Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const BOOTSTRAP = 'abuse-auth-bootstrap-token-0123456789';
const KEY = 'abuse-auth-hash-key-0123456789abcdef-0123456789';

describe('authentication throttling', () => {
  let db: TestDatabase;
  let store: Store;
  const apps: INestApplication[] = [];
  let valid: { id: string; token: string };

  async function app(options: { trustProxy?: string | number | boolean; maxFailures: number }): Promise<INestApplication> {
    const a = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false, auth: { maxFailures: options.maxFailures }, ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}) });
    await a.init();
    apps.push(a);
    return a;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    const made = await store.apiTokens.create({ role: 'viewer', createdBy: 'bootstrap', name: 'valid' });
    valid = { id: made.stored.id, token: made.token };
  });

  afterAll(async () => {
    for (const a of apps) await a.close();
    await store?.close();
    await db?.release();
  });

  it('a valid token is never locked out, from an address past its limit or behind the same proxy', async () => {
    const a = await app({ trustProxy: 'loopback', maxFailures: 5 });
    const from = (ip: string) => ({ 'X-Forwarded-For': ip });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await request(a.getHttpServer()).get('/v1/scans').set(from('203.0.113.9')).set('Authorization', 'Bearer not-a-token-at-all-x')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // The same (throttled) client with a valid token: accepted.
    expect((await request(a.getHttpServer()).get('/v1/scans').set(from('203.0.113.9')).set('Authorization', `Bearer ${valid.token}`)).status).toBe(200);
    expect((await request(a.getHttpServer()).get('/v1/scans').set(from('203.0.113.9')).set('Authorization', `Bearer ${BOOTSTRAP}`)).status).toBe(200);
    // Another client behind the same proxy (same socket peer): its failures are its own.
    expect((await request(a.getHttpServer()).get('/v1/scans').set(from('198.51.100.7')).set('Authorization', 'Bearer not-a-token-at-all-x')).status).toBe(401);
  });

  it('without a trusted proxy X-Forwarded-For is ignored: fresh header addresses do not reset the count', async () => {
    const a = await app({ maxFailures: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await request(a.getHttpServer()).get('/v1/scans').set('X-Forwarded-For', `192.0.2.${i + 1}`).set('Authorization', 'Bearer not-a-token-at-all-x')).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    expect((await request(a.getHttpServer()).get('/v1/scans').set('Authorization', `Bearer ${valid.token}`)).status).toBe(200);
  });

  it('distributed guessing: 30 addresses x 2 guesses at one token id meet 429 past the per-token limit; the token still works', async () => {
    const a = await app({ trustProxy: true, maxFailures: 20 });
    const statuses: number[] = [];
    for (let ip = 1; ip <= 30; ip++) {
      for (let g = 0; g < 2; g++) {
        const guess = composeToken(valid.id, `${String(ip).padStart(2, '0')}${g}`.padEnd(32, 'Q')).token;
        statuses.push((await request(a.getHttpServer()).get('/v1/scans').set('X-Forwarded-For', `10.20.${ip}.1`).set('Authorization', `Bearer ${guess}`)).status);
      }
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    const res = await request(a.getHttpServer()).get('/v1/scans').set('X-Forwarded-For', '10.20.99.1').set('Authorization', `Bearer ${composeToken(valid.id, 'Z'.repeat(32)).token}`);
    expect(res.status).toBe(429);
    expect(res.body.message).toContain('against this token id');
    expect((await request(a.getHttpServer()).get('/v1/scans').set('X-Forwarded-For', '10.20.1.1').set('Authorization', `Bearer ${valid.token}`)).status).toBe(200);
  });

  it('Retry-After equals the seconds the message quotes, over REST and GraphQL', async () => {
    const a = await app({ maxFailures: 1 });
    await request(a.getHttpServer()).get('/v1/scans').set('Authorization', 'Bearer not-a-token-at-all-x');
    const rest = await request(a.getHttpServer()).get('/v1/scans').set('Authorization', 'Bearer not-a-token-at-all-x');
    expect(rest.status).toBe(429);
    const seconds = Number(rest.headers['retry-after']);
    expect(seconds).toBeGreaterThan(50);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(rest.body.message).toContain(`retry in ${seconds} s`);
    const gql = await request(a.getHttpServer()).post('/graphql').set('Authorization', 'Bearer not-a-token-at-all-x').send({ query: '{ scans(first: 1) { totalCount } }' });
    expect(gql.status).toBe(429);
    const g = Number(gql.headers['retry-after']);
    expect(gql.body.errors[0].message).toContain(`retry in ${g} s`);
    expect(gql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    const ok = await request(a.getHttpServer()).post('/graphql').set('Authorization', `Bearer ${valid.token}`).send({ query: '{ scans(first: 1) { totalCount } }' });
    expect(ok.status).toBe(200);
  });
});
