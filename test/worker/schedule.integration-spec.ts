/**
 * Scheduled scans (@nestjs/schedule cron in every worker): two workers whose registered cron jobs
 * the test fires for a virtual clock (no real one-second waits) enqueue a scan per tick, each tick
 * starts at most one scan, and a source whose scan still runs is not started again (scope lock)
 * until it ended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledScanId } from '@app/queue';
import { Store, type StoredScanListItem, SYSTEM_PRINCIPAL } from '@app/store';
import { SchedulerRegistry } from '@nestjs/schedule';
import { SCAN_SCHEDULE_CRON, ScanSchedulerService, startWorker, type RunningWorker } from '@app/worker';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import {
  deletePrefix,
  eventually,
  SHARED_REDIS_URL,
  startTestFleet,
  uniquePrefix,
  type TestFleet,
} from './worker-test.util';

describe('scan schedule', () => {
  let fleet: TestFleet;
  let db: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    // No throttle: the ticks are fired by the test, a scan need only outlast one tick.
    fleet = await startTestFleet({ seed: 41, accounts: 1, regions: ['cn-hangzhou'], clusters: 2 });
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
  });

  afterAll(async () => {
    await store?.close();
    await fleet?.close();
    await db?.release();
  });

  const scansOf = async (fleetName: string): Promise<StoredScanListItem[]> =>
    (await store.scans.list({ limit: 1000 }, SYSTEM_PRINCIPAL)).items
      .filter((s) => s.fleetName === fleetName)
      .sort((a, b) => (a.startedAt < b.startedAt ? -1 : 1));

  it('enqueues scans on its cron ticks, one per tick, never two of one source at once', async () => {
    const prefix = uniquePrefix('cron');
    const source = { name: fleet.config.name, config: fleet.config };
    // A virtual clock: the test fires the registered cron of both workers itself, one virtual
    // second per tick, instead of waiting on real seconds (the cron expression is never due here).
    let virtualMs = Date.UTC(2026, 0, 5, 10, 0, 0);
    const workers: RunningWorker[] = await Promise.all(
      [0, 1].map(() =>
        startWorker({
          databaseUrl: db.url,
          redisUrl: SHARED_REDIS_URL,
          prefix,
          sources: [source],
          schedule: '0 0 0 1 1 *',
          clock: () => new Date(virtualMs),
          reconcile: false,
          logger: false,
          shutdownGraceMs: 1_000,
        }),
      ),
    );
    const ticks: Date[] = [];
    /** One tick: both workers' registered cron jobs fire for the same virtual second. */
    const fireTick = async (): Promise<void> => {
      virtualMs += 1_000;
      ticks.push(new Date(virtualMs));
      await Promise.all(
        workers.map((w) => w.app.get(SchedulerRegistry).getCronJob(SCAN_SCHEDULE_CRON).fireOnTick()),
      );
    };
    try {
      for (const w of workers) {
        expect(w.app.get(SchedulerRegistry).getCronJob(SCAN_SCHEDULE_CRON).isActive).toBe(true);
      }
      // The first tick starts one scan (both workers fired it); the next tick, while it runs, none.
      await fireTick();
      const first = await scansOf(source.name);
      expect(first).toHaveLength(1);
      expect(first[0].id).toBe(scheduledScanId(source.name, ticks[0]));
      await fireTick();
      expect(await scansOf(source.name)).toHaveLength(1);
      // The first scan ran to its end; the next tick starts the next one.
      await eventually(
        async () => (await scansOf(source.name))[0].status !== 'running',
        30_000,
        'the first scheduled scan to end',
      );
      await fireTick();
      const scans = await scansOf(source.name);
      expect(scans).toHaveLength(2);
      expect(scans[0].status).toBe('succeeded');
      // Fewer scans than ticks: the tick while a scan ran started nothing.
      expect(scans.length).toBeLessThan(ticks.length);
      for (let i = 1; i < scans.length; i += 1) {
        const prev = scans[i - 1];
        expect(prev.finishedAt, `scan ${i - 1} ended before scan ${i} started`).not.toBeNull();
        expect(scans[i].startedAt >= (prev.finishedAt ?? '')).toBe(true);
      }
      // Each id derives from (source, tick second): both workers' ticks collapsed into one scan.
      expect(scans[1].id).toBe(scheduledScanId(source.name, ticks[2]));
      const done = await eventually(
        async () => {
          const s = await store.scans.get(scans[1].id);
          return s && s.status !== 'running' ? s : undefined;
        },
        30_000,
        'the second scheduled scan to end',
      );
      expect(done.status).toBe('succeeded');
    } finally {
      await Promise.all(workers.map((w) => w.close()));
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  });

  it('two workers firing the same tick start one scan; a tick during a running scan starts none', async () => {
    const prefix = uniquePrefix('tick');
    const source = { name: 'manual-scope', config: { ...fleet.config, name: 'manual-scope' } };
    const workers = await Promise.all(
      [0, 1].map(() =>
        startWorker({
          databaseUrl: db.url,
          redisUrl: SHARED_REDIS_URL,
          prefix,
          schedule: false,
          reconcile: false,
          logger: false,
          shutdownGraceMs: 1_000,
          // Known by name (not scheduled): the jobs name the config, the workers hold its AccessKey.
          sources: [source],
        }),
      ),
    );
    try {
      const at = new Date();
      const [a, b] = await Promise.all(workers.map((w) => w.app.get(ScanSchedulerService).tick(source, at)));
      expect([a.status, b.status].sort()).toEqual(['skipped', 'started']);
      const later = await workers[0].app
        .get(ScanSchedulerService)
        .tick(source, new Date(at.getTime() + 5_000));
      expect(later).toMatchObject({ status: 'skipped', reason: expect.stringContaining('still running') });
      const started = a.status === 'started' ? a : b;
      if (started.status !== 'started') throw new Error('unreachable');
      const done = await eventually(
        async () => {
          const s = await store.scans.get(started.scanId);
          return s && s.status !== 'running' ? s : undefined;
        },
        30_000,
        'the manual scan to end',
      );
      expect(done.status).toBe('succeeded');
      // The scope was released at the end: the next tick starts a new scan.
      const next = await workers[1].app
        .get(ScanSchedulerService)
        .tick(source, new Date(at.getTime() + 600_000));
      expect(next.status).toBe('started');
    } finally {
      await Promise.all(workers.map((w) => w.close()));
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  });
});
