/**
 * Security headers on every answer (helmet): REST JSON, errors, /healthz, the Swagger UI at /docs,
 * /openapi.json and GraphQL all carry `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY` and a
 * Content-Security-Policy with `frame-ancestors 'none'` and scripts from this origin only.
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const BOOTSTRAP = 'abuse-headers-bootstrap-token-0123456789';

describe('security headers', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    app = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new UnavailableScanLauncher(), logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it.each([
    ['GET', '/healthz', undefined],
    ['GET', '/docs/', undefined],
    ['GET', '/openapi.json', undefined],
    ['GET', '/v1/scans', BOOTSTRAP],
    ['GET', '/v1/scans', undefined],
    ['GET', '/v1/no-such-route', BOOTSTRAP],
    ['POST', '/graphql', BOOTSTRAP],
  ])('%s %s (token: %s)', async (method, path, token) => {
    const req = method === 'GET' ? request(app.getHttpServer()).get(path) : request(app.getHttpServer()).post(path).send({ query: '{ scans(first: 1) { totalCount } }' });
    const res = await (token ? req.set('Authorization', `Bearer ${token}`) : req);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});
