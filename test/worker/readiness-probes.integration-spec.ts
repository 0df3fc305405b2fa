/**
 * Readiness on the real servers: the Redis probe behind the API's `/readyz` when
 * Redis is configured (`fleet-audit serve` with REDIS_URL) and the worker's health endpoint
 * (`fleet-audit worker --health-port`, probed by docker-compose.yml and the Helm chart), each
 * against the shared PostgreSQL and Redis, and against a Redis that is down: a private loopback port
 * with nothing listening (the shared Redis on 6379 is never stopped).
 */
import { createServer } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { createRedisProbe, type RedisProbe } from '@app/queue';
import { Store } from '@app/store';
import { startWorkerHealthServer, type WorkerHealthServer } from '../../apps/worker/src/worker-health.server';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const TOKEN = 'readiness-probe-token-5d1e7c3a9b';

/** A loopback port nothing listens on (bound once to pick it, then released). */
async function deadPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('readiness probes on real PostgreSQL and Redis', () => {
  let db: TestDatabase;
  let store: Store;
  let redisUp: RedisProbe;
  let redisDown: RedisProbe;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    redisUp = createRedisProbe(REDIS_URL);
    redisDown = createRedisProbe(`redis://127.0.0.1:${await deadPort()}`);
  });

  afterAll(async () => {
    await redisUp?.close();
    await redisDown?.close();
    await store?.close();
    await db?.release();
  });

  it('the Redis probe answers for a running Redis and fails at once for a dead port', async () => {
    // The connection is opened in the background: the first probe may come before it is up.
    await expect.poll(() => redisUp.ping().then(() => 'up', () => 'down'), { timeout: 10_000 }).toBe('up');
    const t0 = Date.now();
    await expect(redisDown.ping()).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(2_500);
  });

  describe('API /readyz with Redis configured', () => {
    const apps: INestApplication[] = [];
    const api = async (probe: RedisProbe) => {
      const app = await createApiApp({ store, token: TOKEN, scanLauncher: new UnavailableScanLauncher(), readiness: { redis: () => probe.ping() } });
      await app.init();
      apps.push(app);
      return app;
    };
    afterAll(async () => {
      for (const a of apps) await a.close();
    });

    it('200 ready when Redis answers, 503 naming Redis when it is down', async () => {
      await expect.poll(() => redisUp.ping().then(() => 'up', () => 'down'), { timeout: 10_000 }).toBe('up');
      const ok = await request((await api(redisUp)).getHttpServer()).get('/readyz');
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ status: 'ready', database: 'up', migrations: 'applied', redis: 'up' });
      const down = await request((await api(redisDown)).getHttpServer()).get('/readyz');
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ status: 'not_ready', database: 'up', redis: 'down' });
    });
  });

  describe('worker health endpoint', () => {
    const servers: WorkerHealthServer[] = [];
    afterAll(async () => {
      for (const s of servers) await s.close();
    });
    const serve = async (database: () => Promise<unknown>, redis: RedisProbe) => {
      const s = await startWorkerHealthServer({ port: 0, database, redis: () => redis.ping() });
      servers.push(s);
      return s;
    };

    it('/readyz is 200 when PostgreSQL and Redis answer; /healthz is 200; other paths 404', async () => {
      await expect.poll(() => redisUp.ping().then(() => 'up', () => 'down'), { timeout: 10_000 }).toBe('up');
      const s = await serve(() => store.ping(), redisUp);
      expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await getJson(`${s.url}/readyz`)).toEqual({ status: 200, body: { status: 'ready', database: 'up', redis: 'up' } });
      expect(await getJson(`${s.url}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
      expect((await fetch(`${s.url}/metrics`)).status).toBe(404);
    });

    it('/readyz is 503 naming Redis when Redis is down', async () => {
      const s = await serve(() => store.ping(), redisDown);
      expect(await getJson(`${s.url}/readyz`)).toEqual({ status: 503, body: { status: 'not_ready', database: 'up', redis: 'down' } });
      // Liveness does not depend on the dependencies.
      expect((await getJson(`${s.url}/healthz`)).status).toBe(200);
    });

    it('/readyz is 503 naming the database when PostgreSQL is unreachable', async () => {
      const unreachable = await Store.open({ connectionString: db.url });
      await unreachable.close();
      const s = await serve(() => unreachable.ping(), redisUp);
      expect(await getJson(`${s.url}/readyz`)).toEqual({ status: 503, body: { status: 'not_ready', database: 'down', redis: 'up' } });
    });

    it('refuses a port that is taken with the bind error', async () => {
      const taken = await serve(() => store.ping(), redisUp);
      const port = Number(new URL(taken.url).port);
      await expect(startWorkerHealthServer({ port, database: () => store.ping(), redis: () => redisUp.ping() })).rejects.toThrow(/EADDRINUSE/);
    });
  });
});
