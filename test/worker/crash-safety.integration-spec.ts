/**
 * Worker processes (the built `apps/worker` main) and the CLI's distributed scan (the built
 * `runDistributedScan`). Crash safety: a worker SIGKILLed in
 * the middle of a scan leaves jobs whose locks expire; another worker's stalled check retakes them.
 * A worker stopped with SIGTERM drains: jobs it could not finish in its grace period go back to
 * the queue without failing. A worker SIGKILLed in the middle of a shard of the sharded analysis (its store
 * transaction open) leaves nothing behind; the shard is retaken and stored once. Either way the scan ends (never
 * stuck `running`) with the local scan's findings or an explicit coverage gap, and no finding twice.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanSummary } from '@app/audit';
import type { ScanConfig } from '@app/collectors';
import type { CoverageEntry, Finding } from '@app/domain';
import { BullScanJobQueue, DistributedScanClient, QueueName, type PlanScanPayload } from '@app/queue';
import { Store, type StoredScan, SYSTEM_PRINCIPAL } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import {
  requireWorkerBuild,
  coverageShape,
  deletePrefix,
  eventually,
  expectSameOrExplicitGap,
  localScan,
  SHARED_REDIS_URL,
  startTestFleet,
  startWorkerProcess,
  uniquePrefix,
  WORKER_DIST,
  type TestFleet,
  type WorkerProcess,
} from './worker-test.util';

const NOW = new Date('2026-06-01T00:00:00.000Z');

/** An API budget of the scans (the scan config's `collector` settings). */
type Budget = Pick<ScanConfig['collector'], 'qpsPerAccount' | 'maxConcurrentPerAccount'>;
/**
 * Scans whose crawl is not what a test interrupts (the local reference, the mid-shard kill, the CLI): the simulator
 * answers at once, so a budget only makes them wait (the same findings, coverage and summary at any budget).
 */
const FAST: Budget = { qpsPerAccount: 1000, maxConcurrentPerAccount: 10 };
/**
 * The scan a SIGKILL interrupts mid-crawl: about 90 budgeted calls on the larger account, some five seconds at 20 per
 * second (shared by both workers through Redis, paced at 90 %), so the victim is caught holding a crawl job
 * (`untilBusy` checks it before the kill). At 6 per second (before) the crawl took some 16 s, and the local reference
 * scan as long. Three calls in flight per account, as before: a killed worker's budget slots stay taken until they
 * expire (call timeout + 5 s), and with three of them the scan can only end because they do come back.
 */
const PACED: Budget = { qpsPerAccount: 20, maxConcurrentPerAccount: 3 };
/**
 * The scan a SIGTERM interrupts: one worker alone, stopped as soon as two targets are done, holding region crawls past
 * the 200 ms grace. The budget of the kill (20 calls per second, some five seconds of crawl on the larger account, three
 * calls in flight per account); unlike a kill, the stopped worker gives back the Redis slots of the calls it dropped
 * before they started (RedisRateLimiterPool.dropWaiting, test/worker/redis-rate-limiter). Its workers hold job locks of
 * {@link DRAINED_LOCK_MS}, not the file's 2 s: at 50 calls per second with 2 s locks, in a full suite run on the loaded
 * 2-core machine, two crawl jobs ended `failed` (under CPU load both workers log "could not renew lock", and a job
 * that stalls `maxStalledCount` (2) times fails), which kept this scan at 6 calls per second (some 19 s of crawl).
 */
const DRAINED: Budget = { qpsPerAccount: 20, maxConcurrentPerAccount: 3 };
/**
 * Job lock of the SIGTERM test's workers (WORKER_LOCK_DURATION_MS; the product default is 30 s). Nothing there waits
 * for a lock to expire: a drained job is handed back at once (`moveToWait`, apps/worker scan-workers.host), so the lock
 * only has to outlive a renewal delayed by CPU load (renewed every half lock).
 */
const DRAINED_LOCK_MS = '10000';

describe('worker processes: SIGKILL and SIGTERM mid-scan', () => {
  let fleet: TestFleet;
  let db: TestDatabase;
  let store: Store;
  let local: Awaited<ReturnType<typeof localScan>>;
  let localSummary: ScanSummary;
  const processes: WorkerProcess[] = [];

  beforeAll(async () => {
    requireWorkerBuild();
    // Each scan sets its own budget (distributedConfig): PACED or DRAINED where a signal must land mid-crawl.
    fleet = await startTestFleet({ seed: 23, accounts: 2, regions: ['cn-hangzhou', 'cn-shanghai'], clusters: 6 }, FAST);
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    local = await localScan(fleet.config, NOW);
    localSummary = local.summary;
  }, 900_000);

  afterAll(async () => {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await store?.close();
    await fleet?.close();
    await db?.release();
  });

  /**
   * The config the distributed scans submit: the simulator's AccessKey named by env variables
   * (the jobs carry the names; each worker process reads the values from its own environment).
   * @param budget the scan's API budget (PACED or DRAINED where a test interrupts the crawl)
   */
  function distributedConfig(budget: Budget): ScanConfig {
    return {
      ...fleet.config,
      collector: { ...fleet.config.collector, ...budget },
      credentials: { accessKeyIdEnv: 'FA_TEST_ACCESS_KEY_ID', accessKeySecretEnv: 'FA_TEST_ACCESS_KEY_SECRET' },
    };
  }

  function envFor(prefix: string, extra: Record<string, string> = {}): Record<string, string> {
    return {
      FA_TEST_ACCESS_KEY_ID: fleet.config.credentials?.accessKeyId ?? '',
      FA_TEST_ACCESS_KEY_SECRET: fleet.config.credentials?.accessKeySecret ?? '',
      REDIS_URL: SHARED_REDIS_URL,
      DATABASE_URL: db.url,
      FLEET_AUDIT_QUEUE_PREFIX: prefix,
      WORKER_CONCURRENCY: '3',
      WORKER_LOCK_DURATION_MS: '2000',
      WORKER_STALLED_INTERVAL_MS: '1000',
      SCAN_RECONCILE_INTERVAL_MS: '1000',
      ...extra,
    };
  }

  async function start(prefix: string, extra?: Record<string, string>): Promise<WorkerProcess> {
    const p = await startWorkerProcess(envFor(prefix, extra));
    processes.push(p);
    return p;
  }

  /** Wait until `worker` holds an active crawl job and some targets are read. */
  async function untilBusy(queue: BullScanJobQueue, scanId: string, worker: WorkerProcess): Promise<void> {
    await eventually(
      async () => {
        const active = await queue.queue(QueueName.ScanCrawl).getActive();
        const progress = await store.scanTargets.progress(scanId);
        return (
          active.some((j) => j.processedBy === `worker-${worker.pid}`) &&
          progress.done >= 2 &&
          progress.pending > 0
        );
      },
      60_000,
      `worker ${worker.pid} busy mid-scan`,
    );
  }

  /** The scan ended; the same result as the local scan or an explicit gap; no finding twice. */
  async function expectEnded(client: DistributedScanClient, scan: StoredScan, label: string): Promise<void> {
    expect(scan.status).toBe('succeeded');
    const stored = await store.findings.forScan(scan.id, SYSTEM_PRINCIPAL);
    expect(new Set(stored.map((f) => f.fingerprint)).size).toBe(stored.length);
    expect((await store.scanTargets.progress(scan.id)).pending).toBe(0);
    const outcome = await client.outcomeOf(scan);
    const extra = expectSameOrExplicitGap(
      { findings: outcome.findings, coverage: outcome.scan.coverage },
      local,
      expect,
    );
    process.stderr.write(
      `${label}: ${extra} extra coverage gaps, ${outcome.findings.length}/${local.findings.length} findings\n`,
    );
  }

  function clientOf(queue: BullScanJobQueue): DistributedScanClient {
    return new DistributedScanClient(store, queue);
  }

  /** How often a test polls the scan row for its end (the client's default is 500 ms). */
  const POLL_MS = 200;

  async function scanWith(
    prefix: string,
    budget: Budget,
    during: (queue: BullScanJobQueue, payload: PlanScanPayload) => Promise<void>,
  ): Promise<void> {
    const queue = new BullScanJobQueue({ redisUrl: SHARED_REDIS_URL, prefix });
    try {
      const client = clientOf(queue);
      const payload = await client.submit({ config: distributedConfig(budget), now: NOW });
      await during(queue, payload);
      const scan = await client.waitFor(payload, { timeoutMs: 150_000, pollIntervalMs: POLL_MS });
      await expectEnded(client, scan, prefix);
    } finally {
      await queue.close();
    }
  }

  it("SIGKILL: the dead worker's jobs are retaken after their lock expires; the scan ends complete", async () => {
    const prefix = uniquePrefix('kill');
    // Both boot at once (neither has work before the scan is submitted); both settle before a failure is thrown, so
    // afterAll stops whichever did start.
    const [v, s] = await Promise.allSettled([start(prefix), start(prefix)]);
    if (v.status === 'rejected') throw v.reason;
    if (s.status === 'rejected') throw s.reason;
    const [victim, survivor] = [v.value, s.value];
    try {
      await scanWith(prefix, PACED, async (queue, payload) => {
        await untilBusy(queue, payload.scanId, victim);
        victim.child.kill('SIGKILL');
        expect(await victim.exited).toBe('SIGKILL');
      });
      // The survivor drains and exits cleanly on SIGTERM.
      survivor.child.kill('SIGTERM');
      expect(await survivor.exited).toBe(0);
    } finally {
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  }, 480_000);

  it('SIGKILL mid-shard (its store transaction half written): another worker retakes the shard; no finding twice', async () => {
    const prefix = uniquePrefix('killshard');
    // The victim holds each shard's transaction open for a minute after writing its findings (test preload).
    const victim = await start(prefix, {
      NODE_OPTIONS: `--import ${join(__dirname, 'shard-delay.preload.mjs')}`,
      SHARD_DELAY_DIST: WORKER_DIST,
      SHARD_DELAY_MS: '60000',
    });
    let survivor: WorkerProcess | undefined;
    try {
      await scanWith(prefix, FAST, async (queue, payload) => {
        await eventually(() => Promise.resolve(victim.output().includes('"shardDelay"')), 120_000, `worker ${victim.pid} mid-shard`);
        survivor = await start(prefix);
        victim.child.kill('SIGKILL');
        expect(await victim.exited).toBe('SIGKILL');
        // The killed shard ran again on the survivor: every shard stored once, none failed.
        const scan = await clientOf(queue).waitFor(payload, { timeoutMs: 150_000, pollIntervalMs: POLL_MS });
        const shards = await store.scanShards.listForScan(scan.id);
        expect(shards.map((r) => r.status)).toEqual(shards.map(() => 'done'));
        expect(shards.length).toBe(2 * 2);
        expect(await queue.queue(QueueName.ScanShard).getJobCountByTypes('failed')).toBe(0);
        expect(scan.summary?.findings).toBe(localSummary.findings);
      });
    } finally {
      survivor?.child.kill('SIGTERM');
      if (survivor) await survivor.exited;
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  }, 480_000);

  it('SIGTERM: jobs past the grace period go back to the queue (none fails) and another worker finishes', async () => {
    const prefix = uniquePrefix('term');
    const leaving = await start(prefix, { WORKER_SHUTDOWN_GRACE_MS: '200', WORKER_LOCK_DURATION_MS: DRAINED_LOCK_MS });
    let staying: WorkerProcess | undefined;
    try {
      await scanWith(prefix, DRAINED, async (queue, payload) => {
        await untilBusy(queue, payload.scanId, leaving);
        leaving.child.kill('SIGTERM');
        expect(await leaving.exited).toBe(0);
        expect(leaving.output()).toContain('returning them to the queue');
        staying = await start(prefix, { WORKER_LOCK_DURATION_MS: DRAINED_LOCK_MS });
      });
      const queue = new BullScanJobQueue({ redisUrl: SHARED_REDIS_URL, prefix });
      try {
        expect(await queue.queue(QueueName.ScanCrawl).getJobCountByTypes('failed')).toBe(0);
      } finally {
        await queue.close();
      }
    } finally {
      staying?.child.kill('SIGTERM');
      if (staying) await staying.exited;
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  }, 480_000);

  it('fleet-audit scan --distributed (runDistributedScan, built): the same JSON as a local scan', async () => {
    const prefix = uniquePrefix('cli');
    const worker = await start(prefix);
    try {
      const script = `
        const { runDistributedScan } = require(${JSON.stringify(join(WORKER_DIST, 'apps/cli/src/commands/distributed-scan.util.js'))});
        const { renderJson } = require(${JSON.stringify(join(WORKER_DIST, 'apps/cli/src/output/scan-output.renderer.js'))});
        runDistributedScan({
          config: JSON.parse(process.env.SCAN_CONFIG_JSON),
          redisUrl: process.env.REDIS_URL,
          databaseUrl: process.env.DATABASE_URL,
          prefix: process.env.FLEET_AUDIT_QUEUE_PREFIX,
          now: new Date(process.env.SCAN_NOW),
          timeoutMs: 150000,
        }).then((o) => { process.stdout.write(renderJson(o)); process.exit(0); }, (e) => { process.stderr.write(String(e)); process.exit(2); });`;
      // Asynchronously: the simulator runs in this process and must keep answering.
      const child = spawn(process.execPath, ['-e', script], {
        env: {
          PATH: process.env.PATH ?? '',
          ...envFor(prefix),
          SCAN_CONFIG_JSON: JSON.stringify(distributedConfig(FAST)),
          SCAN_NOW: NOW.toISOString(),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const run = { stdout: '', stderr: '', status: null as number | null };
      child.stdout.on('data', (d: Buffer) => (run.stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (run.stderr += d.toString()));
      run.status = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const printed = JSON.parse(run.stdout) as {
        scan: { status: string; summary: unknown; coverage: CoverageEntry[]; skipped: unknown[] };
        findings: Finding[];
      };
      expect(printed.scan.status).toBe('succeeded');
      expect(printed.findings).toEqual(local.findings);
      expect(coverageShape(printed.scan.coverage)).toEqual(coverageShape(local.coverage));
      expect(printed.scan.summary).toEqual(localSummary);
      expect(printed.scan.skipped).toEqual(local.skipped);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  }, 480_000);
});
