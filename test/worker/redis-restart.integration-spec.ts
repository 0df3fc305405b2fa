/**
 * Redis restarting empty in the middle of a scan (`redis-cli shutdown nosave` on a redis-server
 * of this test's own, never the shared one): every job, lock and limiter state is gone. The
 * workers reconnect, the scan is planned again (by the waiting client and by the workers'
 * reconciler, which know its config), crawls skip the targets already read (their slices are in
 * PostgreSQL), and the scan ends with the local scan's findings or an explicit coverage gap: never
 * stuck `running`, no finding twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoverageEntry, Finding } from '@app/domain';
import { BullScanJobQueue, DistributedScanClient } from '@app/queue';
import { Store, SYSTEM_PRINCIPAL } from '@app/store';
import { startWorker, type RunningWorker } from '@app/worker';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import {
  eventually,
  expectSameOrExplicitGap,
  localScan,
  startPrivateRedis,
  startTestFleet,
  type PrivateRedis,
  type TestFleet,
} from './worker-test.util';

const NOW = new Date('2026-06-01T00:00:00.000Z');

describe('Redis restarts empty mid-scan', () => {
  let fleet: TestFleet;
  let db: TestDatabase;
  let store: Store;
  let redis: PrivateRedis;
  let local: { findings: Finding[]; coverage: CoverageEntry[] };

  beforeAll(async () => {
    fleet = await startTestFleet(
      { seed: 31, accounts: 2, regions: ['cn-hangzhou', 'cn-shanghai'], clusters: 6 },
      { qpsPerAccount: 6, maxConcurrentPerAccount: 3 },
    );
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    redis = await startPrivateRedis();
    local = await localScan(fleet.config, NOW);
  });

  afterAll(async () => {
    await redis?.stop();
    await store?.close();
    await fleet?.close();
    await db?.release();
  });

  it('ends with the same findings or an explicit gap; targets read before the restart are not read again', async () => {
    const workers: RunningWorker[] = await Promise.all(
      [0, 1].map((i) =>
        startWorker({
          databaseUrl: db.url,
          redisUrl: redis.url,
          concurrency: { crawl: 3 },
          lockDurationMs: 2_000,
          stalledIntervalMs: 1_000,
          schedule: false,
          sources: [{ name: fleet.config.name, config: fleet.config }],
          reconcile: { intervalMs: 1_000, graceMs: 1_000, failLostAfterMs: 60_000 },
          logger: false,
          shutdownGraceMs: 1_000,
          name: `restart-w${i}`,
        }),
      ),
    );
    const queue = new BullScanJobQueue({ redisUrl: redis.url });
    try {
      const client = new DistributedScanClient(store, queue);
      const payload = await client.submit({ config: fleet.config, now: NOW });
      const before = await eventually(
        async () => {
          const p = await store.scanTargets.progress(payload.scanId);
          return p.done >= 2 && p.pending > 0 ? p : undefined;
        },
        60_000,
        'a scan half done',
      );
      const readBefore = (await store.scanTargets.listForScan(payload.scanId)).filter(
        (t) => t.status === 'ok',
      );

      redis.shutdownNoSave();
      await new Promise((r) => setTimeout(r, 1_000));
      await redis.start();

      const scan = await client.waitFor(payload, { timeoutMs: 150_000, lostAfterMs: 1_000 });
      expect(scan.status).toBe('succeeded');
      expect(before.done).toBeGreaterThanOrEqual(2);

      const stored = await store.findings.forScan(scan.id, SYSTEM_PRINCIPAL);
      expect(new Set(stored.map((f) => f.fingerprint)).size).toBe(stored.length);
      const after = await store.scanTargets.listForScan(payload.scanId);
      expect(after.filter((t) => t.status === 'pending')).toEqual([]);
      // Slices read before the restart were kept, not read again (their row did not change).
      for (const t of readBefore) expect(after.find((a) => a.targetKey === t.targetKey)).toEqual(t);

      const outcome = await client.outcomeOf(scan);
      const extraGaps = expectSameOrExplicitGap(
        { findings: outcome.findings, coverage: outcome.scan.coverage },
        local,
        expect,
      );
      process.stderr.write(
        `redis restart: ${extraGaps} extra coverage gaps, ${outcome.findings.length}/${local.findings.length} findings\n`,
      );
    } finally {
      await queue.close();
      await Promise.all(workers.map((w) => w.close()));
    }
  }, 240_000);
});
