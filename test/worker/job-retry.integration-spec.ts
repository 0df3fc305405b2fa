/**
 * The worker's retry decisions read libs/errors' `permanent` flag, on the shared
 * Redis under a unique prefix: the real ScanWorkersHost and PlanScanProcessor consume plan jobs
 * enqueued with the production job options (attempts + exponential backoff, shortened here); only
 * the planning itself is a stand-in that throws the error under test.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialsConfigError, loadScanConfig } from '@app/collectors';
import { JobName, jobOptionsFor, QueueName } from '@app/queue';
import { StoreError } from '@app/store';
import { AnalyzeScanProcessor } from '../../apps/worker/src/jobs/analyze-scan.processor';
import { AnalyzeShardProcessor } from '../../apps/worker/src/jobs/analyze-shard.processor';
import { CompleteScanProcessor } from '../../apps/worker/src/jobs/complete-scan.processor';
import { CrawlTargetProcessor } from '../../apps/worker/src/jobs/crawl-target.processor';
import { PlanScanProcessor } from '../../apps/worker/src/jobs/plan-scan.processor';
import { ScanWorkersHost } from '../../apps/worker/src/jobs/scan-workers.host';
import type { PlanScanCommand } from '../../apps/worker/src/jobs/scan-job.commands';
import type { PlanScanService } from '../../apps/worker/src/scan/plan-scan.service';
import { resolveWorkerOptions } from '../../apps/worker/src/worker.options';
import { deletePrefix, ROOT, SHARED_REDIS_URL, uniquePrefix } from './worker-test.util';

const ATTEMPTS = 3;

describe('worker retries by the error permanent flag (real Redis)', () => {
  const prefix = uniquePrefix('job-retry');
  /** Calls of the stand-in planner per scan id. */
  const calls = new Map<string, number>();
  /** What the planner throws per scan id, by call number (1-based); past the list it succeeds. */
  const failures = new Map<string, Error[]>();
  let host: ScanWorkersHost;
  let queue: Queue;
  let events: QueueEvents;
  const config = loadScanConfig(join(ROOT, 'examples', 'config', 'scan.yaml'));

  beforeAll(async () => {
    const planner = {
      plan: (cmd: PlanScanCommand) => {
        const n = (calls.get(cmd.scanId) ?? 0) + 1;
        calls.set(cmd.scanId, n);
        const e = failures.get(cmd.scanId)?.[n - 1];
        return e ? Promise.reject(e) : Promise.resolve({ status: 'planned', targets: 0 });
      },
    } as unknown as PlanScanService;
    const options = resolveWorkerOptions({
      databaseUrl: 'postgres://unused.invalid/none',
      redisUrl: SHARED_REDIS_URL,
      prefix,
      concurrency: { plan: 1, crawl: 1, analyze: 1 },
      shutdownGraceMs: 5_000,
    });
    host = new ScanWorkersHost(
      options,
      { dropWaiting: () => Promise.resolve() },
      new PlanScanProcessor(planner),
      // No crawl or analyze job is enqueued here.
      {} as CrawlTargetProcessor,
      {} as AnalyzeScanProcessor,
      {} as AnalyzeShardProcessor,
      {} as CompleteScanProcessor,
    );
    host.onApplicationBootstrap();
    queue = new Queue(QueueName.ScanPlan, { connection: { url: SHARED_REDIS_URL }, prefix });
    events = new QueueEvents(QueueName.ScanPlan, { connection: { url: SHARED_REDIS_URL }, prefix });
    await events.waitUntilReady();
  });

  afterAll(async () => {
    await host?.beforeApplicationShutdown();
    await events?.close();
    await queue?.close();
    await deletePrefix(SHARED_REDIS_URL, prefix);
  });

  /** Enqueue a plan job failing with `errors` (in order) and wait until it completes or fails for good. */
  async function run(errors: Error[]): Promise<{ state: string; attemptsMade: number; failedReason?: string; calls: number }> {
    const scanId = randomUUID();
    failures.set(scanId, errors);
    const job = await queue.add(
      JobName.PlanScan,
      { scanId, config },
      jobOptionsFor(JobName.PlanScan, `plan-${scanId}`, { [JobName.PlanScan]: { attempts: ATTEMPTS, backoffMs: 20 } }),
    );
    await job.waitUntilFinished(events, 60_000).catch(() => undefined); // a failed job rejects; its state is read below
    const done = await queue.getJob(job.id as string);
    return {
      state: (await done?.getState()) ?? 'missing',
      attemptsMade: done?.attemptsMade ?? -1,
      ...(done?.failedReason ? { failedReason: done.failedReason } : {}),
      calls: calls.get(scanId) ?? 0,
    };
  }

  it('a permanent error (CredentialsConfigError, permanent: true) fails the job at once: one attempt, no retry', async () => {
    const r = await run([new CredentialsConfigError('ALIBABA_CLOUD_ACCESS_KEY_ID is not set')]);
    expect(r.state).toBe('failed');
    expect(r.calls).toBe(1);
    expect(r.attemptsMade).toBe(1);
    expect(r.failedReason).toBe('CredentialsConfigError: ALIBABA_CLOUD_ACCESS_KEY_ID is not set');
  });

  it('a transient error (StoreError UNAVAILABLE, permanent: false) is retried with backoff until it succeeds', async () => {
    const down = new StoreError('UNAVAILABLE', 'PostgreSQL is unreachable');
    const r = await run([down, down]);
    expect(r.state).toBe('completed');
    expect(r.calls).toBe(3);
  });

  it('a transient error that persists uses up every attempt, then the job fails with it', async () => {
    const down = new StoreError('UNAVAILABLE', 'PostgreSQL is unreachable');
    const r = await run(Array.from({ length: ATTEMPTS }, () => down));
    expect(r.state).toBe('failed');
    expect(r.calls).toBe(ATTEMPTS);
    expect(r.attemptsMade).toBe(ATTEMPTS);
    expect(r.failedReason).toBe('PostgreSQL is unreachable');
  });
});
