/**
 * Operability of the API: JSON request logs through nestjs-pino with a request id and the
 * latency, secrets redacted by path, `/readyz` (database, migrations, Redis when configured), and
 * `/metrics` carrying process/runtime metrics and the HTTP request duration histogram (linted by
 * promtool when available, see test/telemetry/promtool.spec.ts).
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';
import { createLogger, REDACTED } from '@app/telemetry';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { freshNestjsPinoLogger } from './nestjs-pino-reset.util';

const TOKEN = 'ops-e2e-token-0f3c9a7b21d4e8c6';

/**
 * A destination that keeps every JSON line. `next(pred)` resolves with the first line matching `pred`, at once when
 * one was written already, else when it is written: pino-http writes a request's line on the response's
 * `finish`/`close`, which may come after the client has read the whole answer.
 */
function memoryStream(): {
  stream: Writable;
  lines: () => Record<string, unknown>[];
  next: (pred: (line: Record<string, unknown>) => boolean, ms?: number) => Promise<Record<string, unknown>>;
} {
  let buf = '';
  const written = new EventEmitter();
  const lines = (): Record<string, unknown>[] => buf.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      buf += chunk.toString();
      written.emit('line');
      cb();
    },
  });
  const next = (pred: (line: Record<string, unknown>) => boolean, ms = 5_000): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const look = (): boolean => {
        const hit = lines().find(pred);
        if (!hit) return false;
        clearTimeout(timer);
        written.off('line', look);
        resolve(hit);
        return true;
      };
      const timer = setTimeout(() => {
        written.off('line', look);
        reject(new Error(`no matching log line within ${ms} ms; lines: ${JSON.stringify(lines())}`));
      }, ms);
      if (!look()) written.on('line', look);
    });
  return { stream, lines, next };
}

describe('API logs, readiness and process metrics (e2e)', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  const logs = memoryStream();
  let redisUp = true;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    // This file reads its app's log lines: its own pino-http instance, not one an earlier file of this fork made.
    await freshNestjsPinoLogger();
    app = await createApiApp({
      store,
      token: TOKEN,
      scanLauncher: new UnavailableScanLauncher(),
      log: { level: 'info', destination: logs.stream },
      readiness: { redis: async () => (redisUp ? 'PONG' : Promise.reject(new Error('ECONNREFUSED'))) },
    });
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
  });

  it('logs one JSON line per request with the request id, status and latency; the token is redacted', async () => {
    const res = await request(app.getHttpServer()).get('/v1/scans').set('Authorization', `Bearer ${TOKEN}`).set('X-Request-Id', 'req-abc.123');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('req-abc.123');
    const line = await logs.next((l) => (l.req as { id?: string } | undefined)?.id === 'req-abc.123');
    expect(line).toMatchObject({ level: 'info', name: 'api', req: { method: 'GET', url: '/v1/scans' }, res: { statusCode: 200 } });
    expect(typeof line.responseTime).toBe('number');
    expect(typeof line.time).toBe('string');
    expect((line.req as { headers: Record<string, unknown> }).headers.authorization).toBe(REDACTED);
    const all = JSON.stringify(logs.lines());
    expect(all).not.toContain(TOKEN);
    // No ANSI colour codes in non-TTY output.
    expect(all).not.toMatch(/\\u001b\[/);
  });

  it('generates a request id when none (or an unsafe one) is given', async () => {
    const res = await request(app.getHttpServer()).get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('redacts secrets by path in application logs (AccessKey secret, password, token, nested)', () => {
    const mem = memoryStream();
    const log = createLogger({ destination: mem.stream, name: 'test' });
    log.info({ credentials: { accessKeyId: 'LTAI-id', accessKeySecret: 'very-secret' }, password: 'pw', db: { connectionString: 'postgres://u:pw@h/db' }, deep: { a: { token: 't0k' } } }, 'configured');
    log.flush();
    const [line] = mem.lines();
    expect(line).toMatchObject({
      msg: 'configured',
      level: 'info',
      credentials: { accessKeyId: 'LTAI-id', accessKeySecret: REDACTED },
      password: REDACTED,
      db: { connectionString: REDACTED },
      deep: { a: { token: REDACTED } },
    });
    expect(JSON.stringify(line)).not.toMatch(/very-secret|t0k|u:pw/);
  });

  it('/readyz: 200 when the database answers, migrations are applied and Redis answers; 503 naming Redis when it does not', async () => {
    const ok = await request(app.getHttpServer()).get('/readyz');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: 'ready', database: 'up', migrations: 'applied', redis: 'up' });
    redisUp = false;
    const down = await request(app.getHttpServer()).get('/readyz');
    redisUp = true;
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ status: 'not_ready', database: 'up', redis: 'down' });
  });

  it('/readyz: 503 with the pending migrations when the database is behind the code', async () => {
    const { Client } = await import('pg');
    const c = new Client({ connectionString: db.url });
    await c.connect();
    await c.query('DELETE FROM pgmigrations WHERE name = (SELECT max(name) FROM pgmigrations)');
    await c.end();
    const res = await request(app.getHttpServer()).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.migrations).toBe('pending');
    expect(res.body.pendingMigrations).toHaveLength(1);
  });

  it('/metrics carries process/runtime metrics and the HTTP request duration histogram by route template', async () => {
    await request(app.getHttpServer()).get('/v1/scans/00000000-0000-4000-8000-000000000000').set('Authorization', `Bearer ${TOKEN}`).set('X-Request-Id', 'req-404');
    // The histogram observes a request on the response's `finish`, as pino-http logs it: once its log line is written,
    // the request is counted (the client may hold the whole answer before that on a loaded machine).
    await logs.next((l) => (l.req as { id?: string } | undefined)?.id === 'req-404');
    const res = await request(app.getHttpServer()).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(res.text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(res.text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/v1\/scans\/:id",status_code="404"\} 1/);
    expect(res.text).not.toMatch(/nodejs_active_handles_total/);
  });

  it('an admission review is logged without its token and counted under its route template, a refused one too', async () => {
    const body = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'uid-ops', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' }, operation: 'CREATE', object: {} } };
    const r = await request(app.getHttpServer()).post('/v1/admission/storefront/enforce?timeout=5s').set('Authorization', `Bearer ${TOKEN}`).set('X-Request-Id', 'req-admission').send(body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'uid-ops', allowed: true } });
    const line = await logs.next((l) => (l.req as { id?: string } | undefined)?.id === 'req-admission');
    expect(line).toMatchObject({ level: 'info', req: { method: 'POST', url: '/v1/admission/storefront/enforce?timeout=5s' }, res: { statusCode: 200 } });
    expect(JSON.stringify(line)).not.toContain(TOKEN);
    const anon = await request(app.getHttpServer()).post('/v1/admission/storefront').set('X-Request-Id', 'req-admission-anon').send(body);
    expect(anon.status).toBe(401);
    await logs.next((l) => (l.req as { id?: string } | undefined)?.id === 'req-admission-anon');
    const res = await request(app.getHttpServer()).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.text).toMatch(/http_request_duration_seconds_count\{method="POST",route="\/v1\/admission\/:cluster\/enforce",status_code="200"\} 1/);
    expect(res.text).toMatch(/http_request_duration_seconds_count\{method="POST",route="\/v1\/admission\/:cluster",status_code="401"\} 1/);
  });
});
