/**
 * Scheduled reports on real PostgreSQL: the worker's weekly cron builds exactly one report per
 * period even with two workers firing the same tick (row claimed in Postgres); the cron fires on its
 * schedule; webhook delivery is retried with backoff against a real local HTTP server, and a delivery
 * that fails for good is visible in the report's row, in GET /v1/reports and in /metrics. Reports are
 * served rendered by GET /v1/reports/{id}?format=...
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { WeeklyReportService } from '@app/reports';
import { Store } from '@app/store';
import { ReportScheduleCron, reportPeriodKey } from '../../apps/worker/src/schedule/report-schedule.cron';
import { resolveWorkerOptions } from '../../apps/worker/src/worker.options';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { at, seedThreeWeeks } from './report-fixture.util';

const TOKEN = 'report-schedule-token-7f3a9c1e';

/** A local webhook receiver answering with the given statuses in turn (the last one repeats). */
async function webhook(statuses: number[]): Promise<{ url: string; bodies: Record<string, unknown>[]; close: () => Promise<void>; server: Server }> {
  const bodies: Record<string, unknown>[] = [];
  let i = 0;
  const server = createServer((req: IncomingMessage, res) => {
    let data = '';
    req.on('data', (d: Buffer) => (data += d.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(data) as Record<string, unknown>);
      res.statusCode = statuses[Math.min(i++, statuses.length - 1)];
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, bodies, server, close: () => new Promise((r) => server.close(() => r())) };
}

describe('scheduled weekly reports (integration)', () => {
  let db: TestDatabase;
  let a: Store;
  let b: Store;
  let app: INestApplication;
  const options = (over: Parameters<typeof resolveWorkerOptions>[0]['reports'] = {}) =>
    resolveWorkerOptions({ databaseUrl: 'postgres://unused', redisUrl: 'redis://unused', reports: over, logger: false });

  beforeAll(async () => {
    db = await createTestDatabase();
    a = await Store.open({ connectionString: db.url, migrate: true });
    b = await Store.open({ connectionString: db.url });
    await seedThreeWeeks(a);
    app = await createApiApp({ store: a, token: TOKEN, scanLauncher: new UnavailableScanLauncher() });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await a?.close();
    await b?.close();
    await db?.release();
  });

  it('two workers firing the same tick build exactly one report', async () => {
    expect(options().reports.schedule).toBe('0 0 6 * * 1');
    const tick = at(15);
    const first = new ReportScheduleCron(options(), new SchedulerRegistry(), a);
    const second = new ReportScheduleCron(options(), new SchedulerRegistry(), b);
    const results = await Promise.all([first.runTick(tick), second.runTick(new Date(tick.getTime() + 250))]);
    expect(results.map((r) => r.status).sort()).toEqual(['built', 'skipped']);
    const rows = (await a.reports.list()).items.filter((r) => r.periodKey === reportPeriodKey(tick));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'ready', scopeKey: 'all', delivery: { status: 'none', attempts: 0 } });
    // The next period is another report.
    expect((await second.runTick(at(22))).status).toBe('built');
  });

  it('the cron fires on its schedule (UTC) and builds the report of the tick', async () => {
    const registry = new SchedulerRegistry();
    const cron = new ReportScheduleCron(options({ schedule: '* * * * * *' }), registry, a);
    const before = (await a.reports.list()).total;
    cron.onApplicationBootstrap();
    try {
      const job = registry.getCronJob('weekly-report');
      await new Promise<void>((resolve) => {
        const check = async () => ((await a.reports.list()).total > before ? resolve() : setTimeout(() => void check(), 200));
        void check();
      });
      expect(job.isActive).toBe(true);
    } finally {
      cron.onModuleDestroy();
    }
    expect(registry.doesExist('cron', 'weekly-report')).toBe(false);
  });

  it('webhook: retried with backoff until delivered; the JSON carries the link and the Markdown summary', async () => {
    const hook = await webhook([503, 500, 200]);
    try {
      const service = new WeeklyReportService(a);
      const r = await service.runForPeriod('test:delivered', { now: at(15), webhook: { url: hook.url, linkBase: 'https://audit.example.com/', initialDelayMs: 10, maxDelayMs: 50 } });
      expect(r).toMatchObject({ status: 'built', delivery: 'delivered' });
      const id = (r as { reportId: string }).reportId;
      expect(hook.bodies).toHaveLength(3);
      expect(hook.bodies[2]).toMatchObject({ reportId: id, link: `https://audit.example.com/v1/reports/${id}?format=html`, summary: { new: 1, resolved: 1 } });
      expect(hook.bodies[2].markdown).toContain('| new | 1 |');
      expect((await a.reports.get(id))?.delivery).toMatchObject({ status: 'delivered', attempts: 3, error: null });
    } finally {
      await hook.close();
    }
  });

  it('a delivery failing for good is kept on the row, listed by the API and counted in /metrics', async () => {
    const hook = await webhook([500]);
    let id: string;
    try {
      const r = await new WeeklyReportService(a).runForPeriod('test:failed', { now: at(15), webhook: { url: hook.url, maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 20 } });
      expect(r).toMatchObject({ status: 'built', delivery: 'failed' });
      id = (r as { reportId: string }).reportId;
      expect(hook.bodies).toHaveLength(3);
    } finally {
      await hook.close();
    }
    const row = await a.reports.get(id);
    expect(row?.delivery).toMatchObject({ status: 'failed', attempts: 3, error: 'webhook answered HTTP 500' });
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const list = await request(app.getHttpServer()).get('/v1/reports').set(auth);
    expect(list.status).toBe(200);
    expect(list.body.items.find((x: { id: string }) => x.id === id).delivery.status).toBe('failed');
    const metrics = await request(app.getHttpServer()).get('/metrics').set(auth);
    expect(metrics.text).toContain('fleet_audit_report_deliveries_failed 1');
    expect(metrics.text).toContain('fleet_audit_reports{delivery="failed"} 1');
    for (const [format, type, needle] of [
      ['html', 'text/html', 'data-count="new">1<'],
      ['md', 'text/markdown', '| resolved | 1 |'],
      ['csv', 'text/csv', 'status,severity_changed,check_id'],
      ['json', 'application/json', '"schemaVersion": 1'],
    ] as const) {
      const res = await request(app.getHttpServer()).get(`/v1/reports/${id}?format=${format}`).set(auth).buffer(true).parse((r, cb) => {
        let text = '';
        r.on('data', (d: Buffer) => (text += d.toString()));
        r.on('end', () => cb(null, text));
      });
      expect(res.status, format).toBe(200);
      expect(res.headers['content-type']).toContain(type);
      expect(res.body as string).toContain(needle);
    }
    expect((await request(app.getHttpServer()).get(`/v1/reports/${id}?format=pdf`).set(auth)).status).toBe(400);
    expect((await request(app.getHttpServer()).get('/v1/reports/00000000-0000-4000-8000-000000000000').set(auth)).status).toBe(404);
  });
});
