/**
 * Scheduled scans (@nestjs/schedule cron in every worker): with a one-second schedule and two
 * workers, scans get enqueued on schedule, each tick starts at most one scan, and a source whose
 * scan still runs is not started again (scope lock) until it ended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledScanId } from '@app/queue';
import { Store, type StoredScanListItem, SYSTEM_PRINCIPAL } from '@app/store';
import { ScanSchedulerService, startWorker, type RunningWorker } from '@app/worker';
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
    // Slow enough (low budget) that a scan spans several one-second ticks.
    fleet = await startTestFleet(
      { seed: 41, accounts: 1, regions: ['cn-hangzhou'], clusters: 2 },
      { qpsPerAccount: 5 },
    );
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
  });

  afterAll(async () => {
    await store?.close();
    await fleet?.close();
    await db?.drop();
  });

  const scansOf = async (fleetName: string): Promise<StoredScanListItem[]> =>
    (await store.scans.list({ limit: 1000 }, SYSTEM_PRINCIPAL)).items
      .filter((s) => s.fleetName === fleetName)
      .sort((a, b) => (a.startedAt < b.startedAt ? -1 : 1));

  it('enqueues scans every second, one per tick, never two of one source at once', async () => {
    const prefix = uniquePrefix('cron');
    const source = { name: fleet.config.name, config: fleet.config };
    const workers: RunningWorker[] = await Promise.all(
      [0, 1].map(() =>
        startWorker({
          databaseUrl: db.url,
          redisUrl: SHARED_REDIS_URL,
          prefix,
          sources: [source],
          schedule: '* * * * * *',
          reconcile: false,
          logger: false,
          shutdownGraceMs: 1_000,
        }),
      ),
    );
    const began = Date.now();
    try {
      // A first scan ran to its end and the schedule started the next one.
      const scans = await eventually(
        async () => {
          const s = await scansOf(source.name);
          return s.length >= 2 && s[0].status === 'succeeded' ? s : undefined;
        },
        120_000,
        'two scheduled scans',
      );
      const seconds = (Date.now() - began) / 1000;
      // Far fewer scans than ticks: ticks while a scan ran started nothing.
      expect(scans.length).toBeLessThan(seconds);
      for (let i = 1; i < scans.length; i += 1) {
        const prev = scans[i - 1];
        expect(prev.finishedAt, `scan ${i - 1} ended before scan ${i} started`).not.toBeNull();
        expect(scans[i].startedAt >= (prev.finishedAt ?? '')).toBe(true);
      }
      // Each id derives from (source, tick second): both workers' ticks collapsed into one scan.
      for (const s of scans) {
        const tick = new Date(Math.floor(new Date(s.startedAt).getTime() / 1000) * 1000);
        const candidates = [-1, 0].map((d) =>
          scheduledScanId(source.name, new Date(tick.getTime() + d * 1000)),
        );
        expect(candidates).toContain(s.id);
      }
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
        120_000,
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
