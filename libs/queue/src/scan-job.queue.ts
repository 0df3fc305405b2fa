/**
 * The producer side of distributed scans: a small port (`ScanJobQueue`) that producers and
 * processors call instead of raw BullMQ queues (STYLE.md E.18, E.23), and its BullMQ adapter.
 */
import { FlowProducer, Queue, type FlowJobNode, type JobState } from 'bullmq';
import IORedis from 'ioredis';
import type { CrawlTarget } from '@app/collectors';
import {
  analyzeJobId,
  completeJobId,
  crawlDeadlineJobId,
  crawlJobId,
  crawlPoolQueueName,
  crawlPoolsKey,
  shardJobId,
  JOB_QUEUE,
  JobName,
  planJobId,
  QueueName,
  type AnalyzeScanPayload,
  type AnalyzeShardPayload,
  type CompleteScanPayload,
  type CrawlTargetPayload,
  type PlanScanPayload,
} from './scan-jobs.constants';
import {
  connectionOptionsOf,
  jobOptionsFor,
  prefixOf,
  type QueueConnectionConfig,
  type ScanJobPolicy,
} from './queue-options';
import { withoutCredentials, withQueuedCredentials } from './queued-credentials';

/** State of one job of a scan: a BullMQ state, or `missing` when Redis holds no such job. */
export interface ScanJobState {
  state: JobState | 'missing';
  /** Why it failed (BullMQ `failedReason`), when `failed`. */
  failedReason?: string;
}

/**
 * States of the jobs that carry a scan forward: its plan job, its analyze job (flow parent) and, for a sharded
 * analysis, its complete-scan job (the second flow's parent; `missing` before analyze-scan added it).
 */
export interface ScanJobsState {
  plan: ScanJobState;
  analyze: ScanJobState;
  complete?: ScanJobState;
}

/** What producers and processors may do with the scan queues. */
export interface ScanJobQueue {
  /** Add the plan job of a scan (a no-op while a job with its id exists). */
  enqueuePlan(payload: PlanScanPayload): Promise<void>;
  /**
   * Add a scan's flow: the analyze job with the crawl jobs as children. Children fail alone
   * (`ignoreDependencyOnFailure`): the analyze job runs when all ended and sees the failures.
   */
  addScanFlow(analyze: AnalyzeScanPayload, crawls: readonly CrawlTargetPayload[]): Promise<void>;
  /**
   * Add crawl jobs as further children of the scan's analyze job (clusters a region crawl found).
   * Must be called while the caller's own crawl job is still a pending child, so the parent cannot
   * have started yet.
   * @throws Error from BullMQ when the parent job does not exist (e.g. Redis lost it)
   */
  addCrawlChildren(scanId: string, crawls: readonly CrawlTargetPayload[]): Promise<void>;
  /** The VPC ids pool crawls were ever queued for (workers that reach any network follow their queues). */
  knownPools(): Promise<string[]>;
  /** Whether a pool crawl still waits for a worker (no worker of its pool has taken it). */
  isWaitingPoolCrawl(pool: string, scanId: string, target: CrawlTarget): Promise<boolean>;
  /**
   * Remove a pool crawl that no worker has taken (still waiting), so its flow parent goes on without it.
   * @returns `removed`, or `taken` when a worker has it (active, finished) or it is gone
   */
  removeWaitingPoolCrawl(pool: string, scanId: string, target: CrawlTarget): Promise<'removed' | 'taken'>;
  /**
   * Add a sharded analysis's flow: the complete-scan job with one analyze-shard job per shard as children
   * (deterministic ids: adding it again, e.g. from a retried analyze-scan, adds nothing). Shards fail alone
   * (`ignoreDependencyOnFailure`): complete-scan runs when every shard ended and sees the failures.
   */
  addShardFlow(complete: CompleteScanPayload, shards: readonly AnalyzeShardPayload[]): Promise<void>;
  /** States of the scan's plan, analyze and complete-scan jobs. */
  scanJobsState(scanId: string): Promise<ScanJobsState>;
}

/** Options of {@link BullScanJobQueue}. */
export interface BullScanJobQueueOptions extends QueueConnectionConfig {
  /** Retries per job kind (defaults: DEFAULT_JOB_POLICIES). */
  policies?: Partial<Record<JobName, ScanJobPolicy>>;
  /** How long a pool crawl may wait for a worker that reaches its VPC before it is a coverage gap, milliseconds (default 300,000). */
  reachWaitMs?: number;
}

/** BullMQ states of a job no worker has taken. */
const WAITING: ReadonlySet<string> = new Set(['waiting', 'delayed', 'prioritized', 'waiting-children']);

/** Default of {@link BullScanJobQueueOptions.reachWaitMs}: five minutes, milliseconds. */
export const DEFAULT_REACH_WAIT_MS = 300_000;

/**
 * The BullMQ adapter of {@link ScanJobQueue}: one Queue per scan queue and one FlowProducer.
 * Every payload passes through queued-credentials.ts on its way in: a literal AccessKey never
 * reaches Redis, whoever the producer is.
 */
export class BullScanJobQueue implements ScanJobQueue {
  private readonly queues: Record<QueueName, Queue>;
  private readonly flows: FlowProducer;
  private readonly prefix: string;
  private readonly policies: Partial<Record<JobName, ScanJobPolicy>>;
  private readonly pools = new Map<string, Queue>();
  private readonly connection: ReturnType<typeof connectionOptionsOf>;
  private readonly reachWaitMs: number;
  private readonly redisUrl: string;
  private poolSetClient?: IORedis;

  /** Opens the Redis connections lazily (BullMQ connects on first use). */
  constructor(options: BullScanJobQueueOptions) {
    this.prefix = prefixOf(options);
    this.policies = options.policies ?? {};
    this.reachWaitMs = options.reachWaitMs ?? DEFAULT_REACH_WAIT_MS;
    this.redisUrl = options.redisUrl;
    const connection = connectionOptionsOf(options);
    this.connection = connection;
    const queue = (name: QueueName) => new Queue(name, { connection, prefix: this.prefix });
    this.queues = {
      [QueueName.ScanPlan]: queue(QueueName.ScanPlan),
      [QueueName.ScanCrawl]: queue(QueueName.ScanCrawl),
      [QueueName.ScanAnalyze]: queue(QueueName.ScanAnalyze),
      [QueueName.ScanShard]: queue(QueueName.ScanShard),
    };
    this.flows = new FlowProducer({ connection, prefix: this.prefix });
    // Connection errors are retried by ioredis; callers see failed commands. Without a listener
    // an 'error' event would crash the process.
    for (const q of Object.values(this.queues)) q.on('error', () => undefined);
    this.flows.on('error', () => undefined);
  }

  async enqueuePlan(payload: PlanScanPayload): Promise<void> {
    await this.queues[QueueName.ScanPlan].add(
      JobName.PlanScan,
      withQueuedCredentials(payload),
      jobOptionsFor(JobName.PlanScan, planJobId(payload.scanId), this.policies),
    );
  }

  async addScanFlow(analyze: AnalyzeScanPayload, crawls: readonly CrawlTargetPayload[]): Promise<void> {
    await this.flows.add({
      ...this.flowNode(JobName.AnalyzeScan, analyzeJobId(analyze.scanId), { ...analyze, config: withoutCredentials(analyze.config) }),
      children: crawls.map((c) => this.crawlChild(c)),
    });
  }

  async addShardFlow(complete: CompleteScanPayload, shards: readonly AnalyzeShardPayload[]): Promise<void> {
    await this.flows.add({
      ...this.flowNode(JobName.CompleteScan, completeJobId(complete.scanId), { ...complete, config: withoutCredentials(complete.config) }),
      // A shard that fails for good must not block the scan: complete-scan still runs and reports the shard's
      // regions as failed coverage (getIgnoredChildrenFailures).
      children: shards.map((s) =>
        this.flowNode(JobName.AnalyzeShard, shardJobId(s.scanId, s.shard), { ...s, config: withoutCredentials(s.config) }, true),
      ),
    });
  }

  async addCrawlChildren(scanId: string, crawls: readonly CrawlTargetPayload[]): Promise<void> {
    if (crawls.length === 0) return;
    const parent = { id: analyzeJobId(scanId), queue: `${this.prefix}:${QueueName.ScanAnalyze}` };
    const byPool = new Map<string | undefined, CrawlTargetPayload[]>();
    for (const c of crawls) byPool.set(c.pool, [...(byPool.get(c.pool) ?? []), c]);
    for (const [pool, group] of byPool) {
      const queue = pool === undefined ? this.queues[QueueName.ScanCrawl] : this.poolQueue(pool);
      if (pool !== undefined) await this.redis().sadd(crawlPoolsKey(this.prefix), pool);
      await queue.addBulk(
        group.map((c) => ({
          name: JobName.CrawlTarget,
          data: withQueuedCredentials(c),
          opts: { ...this.crawlOptions(c.scanId, c.target), parent },
        })),
      );
      if (pool === undefined) continue;
      // The bounded wait: a job on the general queue, which every worker takes.
      await this.queues[QueueName.ScanCrawl].addBulk(
        group.map((c) => ({
          name: JobName.CrawlDeadline,
          data: { scanId: c.scanId, target: c.target, pool, ...(c.endpoint ? { endpoint: c.endpoint } : {}), waitedMs: this.reachWaitMs },
          opts: { ...jobOptionsFor(JobName.CrawlDeadline, crawlDeadlineJobId(c.scanId, c.target), this.policies), delay: this.reachWaitMs },
        })),
      );
    }
  }

  async knownPools(): Promise<string[]> {
    return (await this.redis().smembers(crawlPoolsKey(this.prefix))).sort();
  }

  async isWaitingPoolCrawl(pool: string, scanId: string, target: CrawlTarget): Promise<boolean> {
    const job = await this.poolQueue(pool).getJob(crawlJobId(scanId, target));
    return job !== undefined && WAITING.has(await job.getState());
  }

  async removeWaitingPoolCrawl(pool: string, scanId: string, target: CrawlTarget): Promise<'removed' | 'taken'> {
    const job = await this.poolQueue(pool).getJob(crawlJobId(scanId, target));
    if (!job || !WAITING.has(await job.getState())) return 'taken';
    try {
      await job.remove();
      return 'removed';
    } catch {
      // Locked: a worker took it between the state check and the removal.
      return 'taken';
    }
  }

  /** The connection of the pool set (opened on first use: most producers never queue a pool crawl). */
  private redis(): IORedis {
    if (!this.poolSetClient) {
      this.poolSetClient = new IORedis(this.redisUrl, { maxRetriesPerRequest: 20 });
      this.poolSetClient.on('error', () => undefined);
    }
    return this.poolSetClient;
  }

  /** The queue of a worker pool (created on first use). */
  poolQueue(pool: string): Queue {
    let q = this.pools.get(pool);
    if (!q) {
      q = new Queue(crawlPoolQueueName(pool), { connection: this.connection, prefix: this.prefix });
      q.on('error', () => undefined);
      this.pools.set(pool, q);
    }
    return q;
  }

  async scanJobsState(scanId: string): Promise<ScanJobsState> {
    const [plan, analyze, complete] = await Promise.all([
      this.jobState(QueueName.ScanPlan, planJobId(scanId)),
      this.jobState(QueueName.ScanAnalyze, analyzeJobId(scanId)),
      this.jobState(QueueName.ScanAnalyze, completeJobId(scanId)),
    ]);
    return { plan, analyze, complete };
  }

  /** The queue of a name (workers' tests and dashboards). */
  queue(name: QueueName): Queue {
    return this.queues[name];
  }

  /** Close every connection. */
  async close(): Promise<void> {
    await Promise.all(
      [...Object.values(this.queues), ...this.pools.values()]
        .map((q) => q.close())
        .concat(this.flows.close(), this.poolSetClient ? this.poolSetClient.quit().then(() => undefined) : Promise.resolve()),
    );
  }

  private async jobState(queue: QueueName, jobId: string): Promise<ScanJobState> {
    const job = await this.queues[queue].getJob(jobId);
    if (!job) return { state: 'missing' };
    const state = await job.getState();
    if (state === 'unknown') return { state: 'missing' };
    return state === 'failed' ? { state, failedReason: job.failedReason } : { state };
  }

  /**
   * A flow node of job `name`: its queue, deterministic id and the policy's retries and retention.
   * @param failsAlone a child whose failure for good must not fail its parent (`ignoreDependencyOnFailure`): the
   *   parent still runs and reports the gap (getIgnoredChildrenFailures)
   */
  private flowNode(name: JobName, jobId: string, data: object, failsAlone = false): FlowJobNode {
    return { name, queueName: JOB_QUEUE[name], data, opts: this.jobOptions(name, jobId, failsAlone) };
  }

  private jobOptions(name: JobName, jobId: string, failsAlone: boolean) {
    return { ...jobOptionsFor(name, jobId, this.policies), ...(failsAlone ? { ignoreDependencyOnFailure: true } : {}) };
  }

  /** A crawl that fails for good must not fail the scan: the analyze job still runs and reports the target as a coverage gap. */
  private crawlChild(c: CrawlTargetPayload): FlowJobNode {
    return this.flowNode(JobName.CrawlTarget, crawlJobId(c.scanId, c.target), withQueuedCredentials(c), true);
  }

  private crawlOptions(scanId: string, target: CrawlTarget) {
    return this.jobOptions(JobName.CrawlTarget, crawlJobId(scanId, target), true);
  }
}
