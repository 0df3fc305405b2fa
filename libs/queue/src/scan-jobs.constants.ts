/**
 * The ONE place that names the queues and jobs of distributed scans and types their payloads and
 * results (STYLE.md E.18, after immich `JobName`/`QueueName`/`JOBS_TO_QUEUE`). Producers and
 * processors import these; nobody spells a queue or job name anywhere else.
 *
 * Flow of one scan (docs/architecture.md "The one data flow"):
 *
 * ```
 * plan-scan (scan-plan)                     enumerates accounts and regions from the config
 *   -> analyze-scan (scan-analyze)          flow parent; runs when every child ended, failed ones included
 *        <- crawl-target (scan-crawl)       one per account (RAM), per (account, region), per cluster;
 *                                           region crawls add their clusters' crawls as further children
 *
 * sharded analysis (worker setting ANALYZE_SHARDS, default on): analyze-scan marks the failed targets and adds
 * complete-scan (scan-analyze)              flow parent; sums the shards, completes the scan, exactly once
 *   <- analyze-shard (scan-shard)           one per (account, region), or per account without regions: reads
 *                                           only its slices, runs the checks, stores its part
 * ```
 *
 * Job ids derive from (scan id, target) (STYLE.md E.21), so a duplicated add is a no-op and a retried
 * job rewrites the same rows. BullMQ forbids `:` in custom ids; ours use `.` and `/`.
 */
import type { PartialAuditSettings } from '@app/checks';
import type { ScanConfig } from '@app/collectors';
import { targetKey, type CrawlTarget, type TargetPlace } from '@app/domain';

/** BullMQ queues of distributed scans (separate queues: separate concurrency per kind of work). */
export enum QueueName {
  /** Short jobs that create the scan row and its flow. */
  ScanPlan = 'scan-plan',
  /** Network-bound crawls of one target each; scaled by worker count and concurrency. */
  ScanCrawl = 'scan-crawl',
  /** CPU-bound analysis of a whole scan (and the final job of a sharded one); one at a time per worker by default. */
  ScanAnalyze = 'scan-analyze',
  /** CPU-bound analysis of one shard of a scan (an account and region); as many at a time as analyze jobs. */
  ScanShard = 'scan-shard',
}

/**
 * The crawl queue of a worker pool: the crawls of clusters whose API server endpoint is in VPC `vpcId`
 * (`scan-crawl.vpc-x`), taken only by workers that declare they reach it (`WORKER_REACH`) or reach any
 * network. BullMQ routes a job to a set of workers only by queue (research/reach.md 5).
 */
export function crawlPoolQueueName(vpcId: string): string {
  return `${QueueName.ScanCrawl}.${vpcId}`;
}

/** Redis key (under the queue prefix) of the set of pool VPC ids crawl jobs were queued for: `any` workers follow it. */
export function crawlPoolsKey(prefix: string): string {
  return `${prefix}:crawl-pools`;
}

/** Job names (the name says what the job does in dashboards; the crawl queue carries two). */
export enum JobName {
  PlanScan = 'plan-scan',
  CrawlTarget = 'crawl-target',
  /** On the general crawl queue, after `WORKER_REACH_WAIT_MS`: a pool crawl no worker took becomes a coverage gap. */
  CrawlDeadline = 'crawl-deadline',
  AnalyzeScan = 'analyze-scan',
  AnalyzeShard = 'analyze-shard',
  CompleteScan = 'complete-scan',
}

/** The queue each job runs on. */
export const JOB_QUEUE = {
  [JobName.PlanScan]: QueueName.ScanPlan,
  [JobName.CrawlTarget]: QueueName.ScanCrawl,
  [JobName.CrawlDeadline]: QueueName.ScanCrawl,
  [JobName.AnalyzeScan]: QueueName.ScanAnalyze,
  [JobName.AnalyzeShard]: QueueName.ScanShard,
  [JobName.CompleteScan]: QueueName.ScanAnalyze,
} as const satisfies Record<JobName, QueueName>;

/** Options of one scan that travel from the trigger to the analysis. */
export interface ScanRunOptions {
  /** Analysis clock (ISO 8601); default: the scan's start time, so a retried analysis is identical. */
  now?: string;
  /** Audit settings merged over the defaults (libs/checks). */
  settings?: PartialAuditSettings;
  /**
   * Scope lock held for this scan (schedules: one running scan per scope), released when the scan
   * ends. Absent for scans started by hand.
   */
  scope?: string;
}

/**
 * `plan-scan`: create the scan row (idempotent by id), record its account and region targets as
 * pending, and add the flow. Carries the scan config without secret material: env variable names
 * stay, a literal AccessKey is replaced by `credentialsSource` (queued-credentials.ts). Neither
 * goes to Postgres or logs.
 */
export interface PlanScanPayload extends ScanRunOptions {
  /** The scan (uuid), chosen by the producer. */
  scanId: string;
  /** A validated scan config (libs/collectors `ScanConfig`); on the queue never with a literal AccessKey. */
  config: ScanConfig;
  /**
   * The worker takes the `credentials` block of its own scan config of this name (set when the
   * submitted config held a literal AccessKey; queued-credentials.ts).
   */
  credentialsSource?: string;
}

/**
 * `crawl-target`: read one target and upsert its slice. The config is narrowed to the target's
 * account, so a fleet of a thousand accounts does not copy the whole config into every job.
 */
export interface CrawlTargetPayload {
  scanId: string;
  target: CrawlTarget;
  /** The scan config with `accounts` = [the target's account]; never with a literal AccessKey. */
  config: ScanConfig;
  /** As in {@link PlanScanPayload.credentialsSource}. */
  credentialsSource?: string;
  /**
   * The account the config's base credentials belong to (STS GetCallerIdentity, asked once by the
   * plan job): AssumeRole calls draw from its API budget. Absent when it could not be told.
   */
  baseAccountId?: string;
  /** Cluster targets on an intranet endpoint: its VPC, whose pool queue carries the job (`crawlPoolQueueName`). */
  pool?: string;
  /** The endpoint address (`master_url`) of a pool crawl, for the coverage gap when no worker reaches it. */
  endpoint?: string;
}

/**
 * `crawl-deadline`: a pool crawl's bounded wait. When it runs and the crawl job still waits in its pool queue
 * (no running worker reaches the VPC), the crawl is removed from the flow and the cluster's datasets become a
 * coverage gap naming the VPC and the fix.
 */
export interface CrawlDeadlinePayload {
  scanId: string;
  target: CrawlTarget;
  pool: string;
  endpoint?: string;
  /** How long the crawl waited, milliseconds (for the message). */
  waitedMs: number;
}

/**
 * `analyze-scan`: assemble the slices, run every check, complete the scan. The config has no
 * credentials block (the analysis calls no API).
 */
export interface AnalyzeScanPayload extends ScanRunOptions {
  scanId: string;
  config: ScanConfig;
}

/** The shard of a sharded analysis: an account and one of its regions, or the account alone (`regionId` null). */
export interface ShardRef {
  accountId: string;
  regionId: string | null;
}

/**
 * `analyze-shard`: read the shard's slices, run every check on them, store the shard's part. The config is
 * narrowed to the shard's account (no credentials block).
 */
export interface AnalyzeShardPayload extends ScanRunOptions {
  scanId: string;
  config: ScanConfig;
  shard: ShardRef;
}

/**
 * `complete-scan`: once every shard ended, sum them and complete the scan (the analyze payload: the config
 * names the shards and accounts).
 */
export type CompleteScanPayload = AnalyzeScanPayload;

/**
 * Explicit outcome of a job (STYLE.md E.20): `done`, or `skipped` with a reason ("scan already
 * finished", "target already read"). Jobs throw only for failures worth a retry.
 */
export type JobOutcome<T extends object = Record<never, never>> =
  ({ status: 'done' } & T) | { status: 'skipped'; reason: string };

/** Result type of each job (stored by BullMQ as the job's return value). */
export interface JobResults {
  [JobName.PlanScan]: JobOutcome<{ targets: number }>;
  [JobName.CrawlTarget]: JobOutcome<{ targetKey: string; clusters?: number }>;
  /** `done`: the crawl was still waiting and is now a coverage gap. */
  [JobName.CrawlDeadline]: JobOutcome<{ targetKey: string }>;
  /** `shards`: the shard jobs added (sharded analysis; then `findings` is 0: complete-scan counts them). */
  [JobName.AnalyzeScan]: JobOutcome<{ findings: number; failedTargets: number; shards?: number }>;
  [JobName.AnalyzeShard]: JobOutcome<{ shardKey: string; findings: number }>;
  [JobName.CompleteScan]: JobOutcome<{ findings: number; failedShards: number }>;
}

/** Id of a scan's plan job. */
export function planJobId(scanId: string): string {
  return `plan.${scanId}`;
}

/** Id of a scan's analyze job (the flow parent). */
export function analyzeJobId(scanId: string): string {
  return `analyze.${scanId}`;
}

/** Key of a shard: the `targetKey` of its region target, or of its account target for an account-only shard. */
export function shardKey(shard: ShardRef): string {
  return shard.regionId === null
    ? targetKey({ accountId: shard.accountId })
    : targetKey({ accountId: shard.accountId, regionId: shard.regionId });
}

/** Id of the complete-scan job of a sharded analysis (the second flow's parent). */
export function completeJobId(scanId: string): string {
  return `complete.${scanId}`;
}

/** Id of the analyze-shard job of one shard of a scan. */
export function shardJobId(scanId: string, shard: ShardRef): string {
  return `shard.${scanId}.${shardKey(shard)}`;
}

/** Id of the deadline job of a pool crawl. */
export function crawlDeadlineJobId(scanId: string, target: TargetPlace): string {
  return `deadline.${scanId}.${targetKey(target)}`;
}

/** Id of the crawl job of one target of a scan. */
export function crawlJobId(scanId: string, target: TargetPlace): string {
  return `crawl.${scanId}.${targetKey(target)}`;
}
