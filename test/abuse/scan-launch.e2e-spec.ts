/**
 * Scan launches through the real API with the distributed launcher on real Redis and PostgreSQL (no worker runs, so
 * a launched scan stays `running`):
 * - an operator scoped to one account cannot start a source reading two (403 naming the other), REST and GraphQL;
 * - 20 concurrent launches of one source make one scan: every 202 carries its id (`joined` for all but one), and
 *   past 10 a minute the token gets 429 with `Retry-After`;
 * - a scoped token's `progress` counts its own accounts' targets only;
 * - Redis down: 503 with `Retry-After` within a bound (not the 10 s enqueue wait), GraphQL SERVICE_UNAVAILABLE, and
 *   no scan row is left behind (no failed scan, no scan-failed alert).
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '@app/api';
import type { ScanConfig } from '@app/collectors';
import { BullScanJobQueue, DistributedScanClient, DistributedScanLauncher } from '@app/queue';
import { Store, SYSTEM_PRINCIPAL } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { deletePrefix, SHARED_REDIS_URL, uniquePrefix } from '../worker/worker-test.util';

const BOOTSTRAP = 'abuse-scan-launch-bootstrap-token-0123456789';
const KEY = 'abuse-scan-launch-hash-key-0123456789abcdef-0123456789';
const CONFIG = {
  name: 'sample',
  accounts: [
    { accountId: '1111', regions: ['cn-hangzhou'] },
    { accountId: '2222', regions: ['cn-hangzhou'] },
  ],
} as unknown as ScanConfig;

describe('scan launches: scope, one per source, rate, Redis down', () => {
  let db: TestDatabase;
  let store: Store;
  const prefix = uniquePrefix('scan-launch');
  const queues: BullScanJobQueue[] = [];
  const apps: INestApplication[] = [];
  let app: INestApplication;
  let scoped: string;
  let wide: string;

  async function apiOn(redisUrl: string): Promise<INestApplication> {
    const queue = new BullScanJobQueue({ redisUrl, prefix });
    queues.push(queue);
    const a = await createApiApp({ store, token: BOOTSTRAP, scanLauncher: new DistributedScanLauncher(new DistributedScanClient(store, queue), [{ name: 'sample', config: CONFIG }]), logger: false });
    await a.init();
    apps.push(a);
    return a;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true, tokenHashKey: KEY });
    scoped = (await store.apiTokens.create({ role: 'operator', accounts: ['1111'], createdBy: 'bootstrap' })).token;
    wide = (await store.apiTokens.create({ role: 'operator', createdBy: 'bootstrap' })).token;
    app = await apiOn(SHARED_REDIS_URL);
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    for (const q of queues) await q.close().catch(() => undefined);
    await deletePrefix(SHARED_REDIS_URL, prefix);
    await store?.close();
    await db?.release();
  });

  it('a token scoped to one account cannot start a source reading two (REST 403 and GraphQL FORBIDDEN, naming the account)', async () => {
    const r = await request(app.getHttpServer()).post('/v1/scans').set({ Authorization: `Bearer ${scoped}` }).send({ source: 'sample' });
    expect(r.status, JSON.stringify(r.body)).toBe(403);
    expect(r.body.message).toContain('2222');
    const g = await request(app.getHttpServer()).post('/graphql').set({ Authorization: `Bearer ${scoped}` }).send({ query: 'mutation { startScan(source: "sample") { scanId } }' });
    expect(g.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(g.body.errors[0].message).toContain('2222');
    expect((await store.scans.list({ limit: 10, offset: 0 }, SYSTEM_PRINCIPAL)).total).toBe(0);
  });

  it('20 concurrent launches make one scan; past 10 a minute the token gets 429 with Retry-After', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => request(app.getHttpServer()).post('/v1/scans').set({ Authorization: `Bearer ${wide}` }).send({ source: 'sample' })));
    const accepted = answers.filter((r) => r.status === 202);
    const limited = answers.filter((r) => r.status === 429);
    expect(accepted).toHaveLength(10);
    expect(limited).toHaveLength(10);
    expect(new Set(accepted.map((r) => r.body.scanId)).size).toBe(1);
    expect(accepted.filter((r) => r.body.joined === false)).toHaveLength(1);
    for (const r of accepted) expect(r.headers.location).toBe(`/v1/scans/${accepted[0].body.scanId as string}`);
    for (const r of limited) {
      expect(r.body.error).toBe('RATE_LIMITED');
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect((await store.scans.list({ limit: 10, offset: 0 }, SYSTEM_PRINCIPAL)).total).toBe(1);
    // A scoped token's progress counts its own account's targets only.
    const scanId = accepted[0].body.scanId as string;
    await store.scanTargets.ensurePending(scanId, [
      { key: 'account/1111', target: { kind: 'account', accountId: '1111' } },
      { key: 'account/2222', target: { kind: 'account', accountId: '2222' } },
      { key: 'region/2222/cn-hangzhou', target: { kind: 'region', accountId: '2222', regionId: 'cn-hangzhou' } },
    ]);
    const viewer = (await store.apiTokens.create({ role: 'viewer', accounts: ['1111'], createdBy: 'bootstrap' })).token;
    const seen = await request(app.getHttpServer()).get(`/v1/scans/${scanId}`).set({ Authorization: `Bearer ${viewer}` });
    expect(seen.body.progress).toMatchObject({ total: 1, pending: 1 });
    const all = await request(app.getHttpServer()).get(`/v1/scans/${scanId}`).set({ Authorization: `Bearer ${BOOTSTRAP}` });
    expect(all.body.progress).toMatchObject({ total: 3, pending: 3 });
    await store.scans.fail(scanId, 'test over');
  });

  it('bound: Redis down answers 503 with Retry-After within 5 s (REST and GraphQL) and leaves no scan row', async () => {
    const down = await apiOn('redis://127.0.0.1:1');
    const before = (await store.scans.list({ limit: 100, offset: 0 }, SYSTEM_PRINCIPAL)).total;
    const t0 = performance.now();
    const r = await request(down.getHttpServer()).post('/v1/scans').set({ Authorization: `Bearer ${BOOTSTRAP}` }).send({ source: 'sample' });
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(r.status, JSON.stringify(r.body)).toBe(503);
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    expect(r.body.message).toContain('scan queue is unavailable');
    const g = await request(down.getHttpServer()).post('/graphql').set({ Authorization: `Bearer ${BOOTSTRAP}` }).send({ query: 'mutation { startScan(source: "sample") { scanId } }' });
    expect(g.status).toBe(503);
    expect(g.headers['retry-after']).toBeDefined();
    expect(g.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect((await store.scans.list({ limit: 100, offset: 0 }, SYSTEM_PRINCIPAL)).total).toBe(before);
  });
});
