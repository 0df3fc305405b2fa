import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { WaitingError, Worker, type Job } from 'bullmq';
import { crawlPoolQueueName, JobName, prefixOf, QueueName, type ScanJobQueue } from '@app/queue';
import type { ResolvedWorkerOptions } from '../worker.options';
import { SCAN_JOB_QUEUE, SCAN_RATE_LIMITER_CONTROL, WORKER_OPTIONS } from '../worker.constants';
import { AnalyzeScanProcessor } from './analyze-scan.processor';
import { AnalyzeShardProcessor } from './analyze-shard.processor';
import { CompleteScanProcessor } from './complete-scan.processor';
import { CrawlTargetProcessor } from './crawl-target.processor';
import { PlanScanProcessor } from './plan-scan.processor';

/** How often a worker that reaches any network looks for new pool queues, milliseconds. */
const POOL_DISCOVERY_MS = 2_000;

/**
 * Hosts the BullMQ workers of this process: one per scan queue, each with its concurrency, and
 * routes jobs to the thin processors.
 *
 * Worker pools by network reach: besides the general queues every worker takes, a worker takes the crawl queue
 * of each VPC it declares (`WORKER_REACH`, queue `scan-crawl.<vpc>`: the clusters whose intranet API server
 * endpoint is there); one that reaches `any` network follows every pool queue crawls were queued for.
 *
 * Crash safety: a job's lock is renewed while it runs; if the process dies, the lock expires
 * after `lockDurationMs` and another worker's stalled check retakes the job (at most
 * `maxStalledCount` times, then it fails and the analysis reports the target as a gap).
 *
 * Graceful shutdown (SIGTERM -> app.close()): stop taking jobs, let in-flight jobs finish for
 * `shutdownGraceMs`, then cancel the rest (and drop their calls waiting for API budget, giving
 * their Redis concurrency slots back to the other workers at once); a cancelled job is moved back
 * to `wait` (no attempt used) for another worker to take.
 */
@Injectable()
export class ScanWorkersHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ScanWorkersHost.name);
  private readonly workers: Worker[] = [];
  private readonly pools = new Set<string>();
  private poolTimer?: NodeJS.Timeout;
  private stopping = false;

  constructor(
    @Inject(WORKER_OPTIONS) private readonly options: ResolvedWorkerOptions,
    @Inject(SCAN_RATE_LIMITER_CONTROL) private readonly limiters: { dropWaiting(): Promise<void> },
    private readonly plan: PlanScanProcessor,
    private readonly crawl: CrawlTargetProcessor,
    private readonly analyze: AnalyzeScanProcessor,
    private readonly shard: AnalyzeShardProcessor,
    private readonly completeScan: CompleteScanProcessor,
    // Optional: only `WORKER_REACH=any` reads it, to find the pool queues.
    @Optional() @Inject(SCAN_JOB_QUEUE) private readonly queue?: ScanJobQueue,
  ) {}

  /**
   * Start consuming the four queues. The analyze queue carries analyze-scan and complete-scan jobs (routed by
   * name); shard jobs hold the ordinary job lock: a shard is small, its analysis stays far inside it.
   */
  onApplicationBootstrap(): void {
    const o = this.options;
    this.workers.push(
      this.start(QueueName.ScanPlan, o.concurrency.plan, o.lockDurationMs, (job) => this.plan.process(job)),
      this.start(QueueName.ScanCrawl, o.concurrency.crawl, o.lockDurationMs, (job, signal) =>
        job.name === JobName.CrawlDeadline ? this.crawl.deadline(job) : this.crawl.process(job, signal),
      ),
      this.start(QueueName.ScanAnalyze, o.concurrency.analyze, o.analyzeLockDurationMs, (job) =>
        job.name === JobName.CompleteScan ? this.completeScan.process(job) : this.analyze.process(job),
      ),
      this.start(QueueName.ScanShard, o.concurrency.analyze, o.lockDurationMs, (job) => this.shard.process(job)),
    );
    if (o.reach === 'any') {
      // Every pool queue crawls were queued for, as they appear.
      void this.followPools();
      this.poolTimer = setInterval(() => void this.followPools(), POOL_DISCOVERY_MS);
      this.poolTimer.unref();
    } else for (const vpc of o.reach) this.startPool(vpc);
  }

  /** Take the crawls of pool `vpc` (once per process). */
  private startPool(vpc: string): void {
    if (this.stopping || this.pools.has(vpc)) return;
    this.pools.add(vpc);
    const o = this.options;
    this.workers.push(
      this.start(crawlPoolQueueName(vpc), o.concurrency.crawl, o.lockDurationMs, (job, signal) => this.crawl.process(job, signal)),
    );
  }

  /** Start a worker for each pool queue not yet followed (`WORKER_REACH=any`). */
  private async followPools(): Promise<void> {
    try {
      for (const vpc of (await this.queue?.knownPools()) ?? []) this.startPool(vpc);
    } catch (e) {
      // Redis down: the next round tries again; the general queues' workers report the outage.
      this.logger.warn(`cannot list the crawl pools: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Stop taking jobs; finish or return the in-flight ones (see the class comment). */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.poolTimer) clearInterval(this.poolTimer);
    const closing = Promise.all(this.workers.map((w) => w.close()));
    const grace = new Promise<'timeout'>((resolve) =>
      setTimeout(() => resolve('timeout'), this.options.shutdownGraceMs).unref(),
    );
    if ((await Promise.race([closing.then(() => 'closed' as const), grace])) === 'timeout') {
      this.logger.warn(
        `jobs still running after ${this.options.shutdownGraceMs} ms: returning them to the queue`,
      );
      for (const w of this.workers) w.cancelAllJobs('worker shutting down');
      // A crawl waiting for API budget only notices the cancellation after its call: reject
      // the waiting calls so every cancelled job returns now.
      await this.limiters.dropWaiting();
      await closing;
    }
  }

  private start(
    queue: string,
    concurrency: number,
    lockDuration: number,
    handle: (job: Job, signal?: AbortSignal) => Promise<unknown>,
  ): Worker {
    const o = this.options;
    // Three parameters: BullMQ passes an AbortSignal only to processors that declare it.
    const processor = async (job: Job, token?: string, signal?: AbortSignal): Promise<unknown> => {
      try {
        return await handle(job, signal);
      } catch (e) {
        if (this.stopping && signal?.aborted && token) {
          // Cancelled by shutdown: hand the job back untouched instead of failing an attempt.
          await job.moveToWait(token);
          throw new WaitingError();
        }
        throw e;
      }
    };
    const worker = new Worker(queue, processor, {
      connection: { url: o.redisUrl },
      // The same prefix as every producer (libs/queue default `fleet-audit`, not BullMQ's `bull`).
      prefix: prefixOf({ redisUrl: o.redisUrl, ...(o.prefix !== undefined ? { prefix: o.prefix } : {}) }),
      concurrency,
      lockDuration,
      stalledInterval: o.stalledIntervalMs,
      maxStalledCount: o.maxStalledCount,
      ...(o.name !== undefined ? { name: o.name } : {}),
    });
    worker.on('failed', (job, err) => {
      const attempts = job ? `${job.attemptsMade}/${job.opts.attempts ?? 1}` : '?';
      this.logger.warn(`${queue} job ${job?.id ?? '?'} failed (attempt ${attempts}): ${err.message}`);
    });
    // Redis errors (e.g. restarting) are retried by the client; log, never crash.
    worker.on('error', (err) => this.logger.error(`${queue} worker: ${err.message}`));
    return worker;
  }
}
