/**
 * Distributed scans end to end on real Redis (unique prefix), real PostgreSQL (own database) and
 * the simulator serving a generated multi-account fleet: 1 and 3 in-process workers (each with its
 * own connections) give the same findings as a local scan, the per-account API budget holds across
 * workers, and duplicated or retried jobs change nothing.
 */
import { Job, QueueEvents, type Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInMemoryRateLimiter, type ClosableApiRateLimiter } from '@app/collectors';
import { targetKey, type CoverageEntry, type Finding } from '@app/domain';
import { BullScanJobQueue, completeJobId, DistributedScanClient, QueueName } from '@app/queue';
import { Store, SYSTEM_PRINCIPAL } from '@app/store';
import {
  AnalyzeScanCommand,
  AnalyzeScanService,
  CrawlTargetCommand,
  CrawlTargetService,
  PlanScanCommand,
  PlanScanService,
  planTargets,
  startWorker,
  type RunningWorker,
} from '@app/worker';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import {
  coverageShape,
  deletePrefix,
  fingerprintsOf,
  localScan,
  SHARED_REDIS_URL,
  startInProcessWorkers,
  startTestFleet,
  uniquePrefix,
  type TestFleet,
} from './worker-test.util';

const NOW = new Date('2026-06-01T00:00:00.000Z');
/** Per-account OpenAPI budget of the scans, calls per second. */
const QPS = 10;
/**
 * Calls one arrival second of the simulator may hold beyond QPS. The shared limiter spaces an account's calls
 * 1/(0.9 QPS) apart, which absorbs about 0.1 s of delay between a call's slot and its arrival; on the loaded 2-core CI
 * machine a worker starved of CPU for longer sends two slots' calls together, and the simulator, counting by arrival,
 * sees QPS + 1 in one second. The control below (a limiter per process) overruns by far more than this.
 */
const ARRIVAL_JITTER_CALLS = 1;


/** Resolves once job `jobId` of `queue` has finished (at once when it already has); throws when it failed. */
async function untilFinished(queue: Queue, jobId: string): Promise<void> {
  const events = new QueueEvents(queue.name, { connection: queue.opts.connection, prefix: queue.opts.prefix });
  try {
    await events.waitUntilReady();
    const job = await Job.fromId(queue, jobId);
    if (!job) throw new Error(`no job ${jobId} on ${queue.name}`);
    await job.waitUntilFinished(events, 60_000);
  } finally {
    await events.close();
  }
}

describe('distributed scan (BullMQ flow, Redis budgets, PostgreSQL slices)', () => {
  let fleet: TestFleet;
  let db: TestDatabase;
  let store: Store;
  let expected: Finding[];
  let expectedCoverage: CoverageEntry[];

  beforeAll(async () => {
    fleet = await startTestFleet(
      { seed: 11, accounts: 3, regions: ['cn-hangzhou', 'cn-beijing'], clusters: 6 },
      { qpsPerAccount: QPS, maxConcurrentPerAccount: 4 },
    );
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    ({ findings: expected, coverage: expectedCoverage } = await localScan(fleet.config, NOW));
    // The fleet must exercise the checks, or equality would prove little.
    expect(expected.length).toBeGreaterThan(5);
    expect(new Set(expected.map((f) => f.resource.accountId)).size).toBeGreaterThan(1);
  });

  afterAll(async () => {
    await store?.close();
    await fleet?.close();
    await db?.release();
  });

  /** Start `n` workers on a fresh prefix, each with its own Redis and PostgreSQL connections. */
  function workers(n: number, prefix: string): Promise<RunningWorker[]> {
    return startInProcessWorkers(n, { databaseUrl: db.url, prefix, config: fleet.config });
  }

  async function withClient<T>(
    prefix: string,
    fn: (client: DistributedScanClient, queue: BullScanJobQueue) => Promise<T>,
  ): Promise<T> {
    const queue = new BullScanJobQueue({ redisUrl: SHARED_REDIS_URL, prefix });
    try {
      return await fn(new DistributedScanClient(store, queue), queue);
    } finally {
      await queue.close();
    }
  }

  async function expectNoDuplicateFindings(scanId: string): Promise<void> {
    const stored = await store.findings.forScan(scanId, SYSTEM_PRINCIPAL);
    expect(new Set(stored.map((f) => f.fingerprint)).size).toBe(stored.length);
  }

  it.each([1, 3])(
    '%i worker(s): the same findings as a local scan, every target read, budgets held',
    async (n) => {
      const prefix = uniquePrefix(`dist${n}`);
      const running = await workers(n, prefix);
      fleet.sim.resetStats();
      try {
        const outcome = await withClient(prefix, (client) =>
          client.run({ config: fleet.config, now: NOW }, { timeoutMs: 180_000 }),
        );
        expect(outcome.scan.status).toBe('succeeded');
        expect(fingerprintsOf(outcome.findings)).toEqual(fingerprintsOf(expected));
        expect(outcome.findings).toEqual(expected);
        // The same coverage, the simulated fleet's own gaps (403 where it has no data) included.
        expect(coverageShape(outcome.scan.coverage)).toEqual(coverageShape(expectedCoverage));
        await expectNoDuplicateFindings(outcome.scan.id);

        const progress = await store.scanTargets.progress(outcome.scan.id);
        expect(progress.pending + progress.failed).toBe(0);
        // accounts + (account, region) pairs + clusters
        expect(progress.total).toBe(3 + 3 * 2 + outcome.scan.summary.clusters);

        const stats = fleet.sim.stats();
        for (const account of fleet.config.accounts) {
          expect(stats.calls[account.accountId], `calls of ${account.accountId}`).toBeDefined();
          expect(
            stats.maxObservedQps[account.accountId] ?? 0,
            `busiest second of ${account.accountId}`,
          ).toBeLessThanOrEqual(QPS + ARRIVAL_JITTER_CALLS);
        }
        expect(stats.throttled).toBe(0);
      } finally {
        await Promise.all(running.map((w) => w.close()));
        await deletePrefix(SHARED_REDIS_URL, prefix);
      }
    },
  );

  it('control: with a limiter per process instead of the shared one, 3 workers overrun the budget', async () => {
    const prefix = uniquePrefix('ctrl');
    const own: ClosableApiRateLimiter[] = [];
    const running = await Promise.all(
      [0, 1, 2].map(() =>
        startWorker({
          databaseUrl: db.url,
          redisUrl: SHARED_REDIS_URL,
          prefix,
          concurrency: { crawl: 3 },
          schedule: false,
          reconcile: false,
          logger: false,
          shutdownGraceMs: 1_000,
          sources: [{ name: fleet.config.name, config: fleet.config }],
          rateLimiterFor: (budget) => {
            const l = createInMemoryRateLimiter(budget);
            own.push(l);
            return l;
          },
        }),
      ),
    );
    fleet.sim.resetStats();
    try {
      const outcome = await withClient(prefix, (client) =>
        client.run({ config: fleet.config, now: NOW }, { timeoutMs: 180_000 }),
      );
      expect(outcome.findings).toEqual(expected);
      const peaks = Object.values(fleet.sim.stats().maxObservedQps);
      // What the shared limiter prevents in the tests above.
      expect(Math.max(...peaks)).toBeGreaterThan(QPS + ARRIVAL_JITTER_CALLS);
    } finally {
      await Promise.all(running.map((w) => w.close()));
      await Promise.all(own.map((l) => l.close()));
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  });

  it('duplicated plan and crawl jobs, and retried jobs after the end, change nothing', async () => {
    const prefix = uniquePrefix('dup');
    const [worker] = await workers(1, prefix);
    try {
      await withClient(prefix, async (client, queue) => {
        const payload = await client.submit({ config: fleet.config, now: NOW });
        // Duplicates while the scan runs: the same ids, so BullMQ adds nothing new.
        await queue.enqueuePlan(payload);
        await queue.enqueuePlan(payload);
        const first = await client.waitFor(payload, { timeoutMs: 180_000 });
        const outcome = await client.outcomeOf(first);
        expect(outcome.findings).toEqual(expected);
        const targetsBefore = await store.scanTargets.listForScan(payload.scanId);
        expect(new Set(targetsBefore.map((t) => t.targetKey)).size).toBe(targetsBefore.length);

        // Retries of every kind of job after the scan ended: explicit `skipped`, no write.
        const app = worker.app;
        expect(await app.get(PlanScanService).plan(PlanScanCommand.create(payload))).toMatchObject({
          status: 'skipped',
        });
        const target = planTargets({ config: fleet.config })[1];
        expect(targetsBefore.find((t) => t.targetKey === targetKey(target))?.status).toBe('ok');
        const crawl = CrawlTargetCommand.create({ scanId: payload.scanId, target, config: fleet.config });
        expect(await app.get(CrawlTargetService).crawl(crawl)).toMatchObject({ status: 'skipped' });
        const analyze = AnalyzeScanCommand.create({
          scanId: payload.scanId,
          config: fleet.config,
          now: NOW.toISOString(),
        });
        expect(await app.get(AnalyzeScanService).analyze(analyze, new Map())).toMatchObject({
          status: 'skipped',
        });
        // And a duplicated flow: the analyze job id exists (completed), the crawls are no-ops.
        await queue
          .addCrawlChildren(payload.scanId, [{ scanId: payload.scanId, target, config: fleet.config }])
          .catch(() => undefined);

        const after = await store.scans.get(payload.scanId);
        expect(after).toEqual(first);
        expect(await store.scanTargets.listForScan(payload.scanId)).toEqual(targetsBefore);
        const stored = await store.findings.forScan(payload.scanId, SYSTEM_PRINCIPAL);
        expect(fingerprintsOf(stored)).toEqual(fingerprintsOf(expected));
        // analyze-scan and complete-scan (sharded analysis, the default), one analyze-shard job per (account, region).
        // The scan row reads `succeeded` once complete-scan's transaction commits, a moment before BullMQ marks the job
        // completed: wait for that event before counting (counting at once saw `completed: 1` under load).
        await untilFinished(queue.queue(QueueName.ScanAnalyze), completeJobId(payload.scanId));
        expect(
          await queue.queue(QueueName.ScanAnalyze).getJobCounts('completed', 'failed', 'waiting'),
        ).toEqual({
          completed: 2,
          failed: 0,
          waiting: 0,
        });
        expect(await queue.queue(QueueName.ScanShard).getJobCounts('completed', 'failed', 'waiting')).toEqual({
          completed: 3 * 2,
          failed: 0,
          waiting: 0,
        });
      });
    } finally {
      await worker.close();
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  });
});
