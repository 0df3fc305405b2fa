/**
 * Retention on the worker's schedule, on real PostgreSQL with no real waits: the cron registered
 * in @nestjs/schedule's registry is fired by the test for a virtual clock; two workers firing the same tick thin
 * the store once (advisory lock); the API's /metrics then exports the database size and what was removed.
 */
import type { INestApplication } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';
import { RetentionScheduleCron } from '../../apps/worker/src/schedule/retention-schedule.cron';
import { RETENTION_SCHEDULE_CRON } from '../../apps/worker/src/worker.constants';
import { resolveWorkerOptions } from '../../apps/worker/src/worker.options';
import { makeCoverage, makeFinding } from '../store/finding.factory';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const TOKEN = 'retention-schedule-token-2b9d41';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The virtual clock: 2026-05-04 03:17 UTC; scans every 6 hours over the 30 days before it. */
const NOW = Date.UTC(2026, 4, 4, 3, 17);

describe('retention schedule (integration)', () => {
  let db: TestDatabase;
  let a: Store;
  let b: Store;
  let app: INestApplication;
  let virtualMs = NOW;
  const options = () =>
    resolveWorkerOptions({ databaseUrl: 'postgres://unused', redisUrl: 'redis://unused', logger: false, clock: () => new Date(virtualMs), retention: { schedule: '0 17 3 * * *', batchRows: 2 } });

  beforeAll(async () => {
    db = await createTestDatabase();
    a = await Store.open({ connectionString: db.url, migrate: true });
    b = await Store.open({ connectionString: db.url });
    for (let t = NOW - 30 * DAY; t < NOW; t += 6 * HOUR) {
      const scan = await a.scans.create({ source: 'offline', fleetName: 'prod', startedAt: new Date(t) });
      await a.scans.complete(scan.id, { findings: [makeFinding(), makeFinding({ resource: { id: 'lb-2' } })], coverage: [makeCoverage()] });
    }
    app = await createApiApp({ store: a, token: TOKEN, scanLauncher: new UnavailableScanLauncher() });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await a?.close();
    await b?.close();
    await db?.release();
  });

  it('is on by default (daily 03:17 UTC) and two workers firing the same tick thin the store once', async () => {
    expect(resolveWorkerOptions({ databaseUrl: 'postgres://unused', redisUrl: 'redis://unused' }).retention.schedule).toBe('0 17 3 * * *');
    const registries = [new SchedulerRegistry(), new SchedulerRegistry()];
    const crons = [new RetentionScheduleCron(options(), registries[0]!, a), new RetentionScheduleCron(options(), registries[1]!, b)];
    for (const c of crons) c.onApplicationBootstrap();
    try {
      const ticks = await Promise.all(crons.map((c) => c.runTick(new Date(virtualMs))));
      // Either one ran while the other found the lock taken, or one ran to the end before the other began (nothing left).
      expect(ticks.every((t) => t.status === 'done' || t.status === 'skipped')).toBe(true);
      // 120 scans: 7 younger than 48 h and the 28 days' last (21:17) scans older stay whole; the other 85 are thinned once.
      expect(ticks.reduce((n, t) => n + t.scansDeleted + t.scansPruned, 0)).toBe(120 - 7 - 28);
      // The registered cron fires the same handler with the virtual clock: a day later, one more day is thinned.
      virtualMs += DAY;
      const before = await a.scans.count();
      for (const r of registries) await r.getCronJob(RETENTION_SCHEDULE_CRON).fireOnTick();
      expect(await a.scans.count()).toBeLessThan(before);
    } finally {
      for (const c of crons) c.onModuleDestroy();
    }
    expect(registries[0]!.doesExist('cron', RETENTION_SCHEDULE_CRON)).toBe(false);

    const metrics = await request(app.getHttpServer()).get('/metrics').set({ Authorization: `Bearer ${TOKEN}` });
    expect(metrics.status).toBe(200);
    expect(Number(/^fleet_audit_database_size_bytes (\d+)$/m.exec(metrics.text)?.[1])).toBeGreaterThan(1_000_000);
    expect(Number(/^fleet_audit_retention_removed_rows_total\{table="findings"\} (\d+)$/m.exec(metrics.text)?.[1])).toBeGreaterThan(0);
    expect(metrics.text).toMatch(/^fleet_audit_retention_scans_removed_total\{kind="deleted"\} \d+$/m);
    expect(Number(/^fleet_audit_retention_last_run_timestamp_seconds (\d+)$/m.exec(metrics.text)?.[1])).toBe((NOW + DAY) / 1000);
  });
});
