/**
 * Connection and job defaults of the scan queues, declared once (STYLE.md E.21: attempts, backoff,
 * retention live in config, not at each call).
 */
import type { ConnectionOptions, JobsOptions } from 'bullmq';
import { JobName } from './scan-jobs.constants';

/** Default Redis key prefix of every queue, lock and limiter of this application. */
export const DEFAULT_QUEUE_PREFIX = 'fleet-audit';

/** Where the queues live. */
export interface QueueConnectionConfig {
  /** `redis://[user:password@]host:port[/db]`. May hold a password: never logged. */
  redisUrl: string;
  /**
   * Prefix of every Redis key (BullMQ's `prefix`, the scope locks, the rate limiters); default
   * `fleet-audit`. Tests use a unique prefix each, so they share one Redis without seeing each other.
   */
  prefix?: string;
}

/** Retries and retention per job kind. */
export interface ScanJobPolicy {
  /** Attempts including the first (count). */
  attempts: number;
  /** Base delay of the exponential backoff between attempts, milliseconds. */
  backoffMs: number;
}

/** Default retries: crawls retry transient failures a few times; plan and analyze ride out a database blip. */
export const DEFAULT_JOB_POLICIES: Readonly<Record<JobName, ScanJobPolicy>> = {
  [JobName.PlanScan]: { attempts: 5, backoffMs: 1_000 },
  [JobName.CrawlTarget]: { attempts: 3, backoffMs: 2_000 },
  [JobName.CrawlDeadline]: { attempts: 3, backoffMs: 2_000 },
  [JobName.AnalyzeScan]: { attempts: 5, backoffMs: 2_000 },
  [JobName.AnalyzeShard]: { attempts: 3, backoffMs: 2_000 },
  [JobName.CompleteScan]: { attempts: 5, backoffMs: 2_000 },
};

/**
 * Completed jobs are kept one hour (seconds), so a duplicate added meanwhile with the same id is a
 * no-op instead of a re-run; failed jobs a week, for inspection.
 */
const KEEP_COMPLETED = { age: 3_600, count: 50_000 };
const KEEP_FAILED = { age: 7 * 24 * 3_600 };

/**
 * BullMQ options of one job: its deterministic id plus the policy's retries and retention.
 * @param name the job kind
 * @param jobId the id from `planJobId` / `crawlJobId` / `analyzeJobId`
 * @param policies overrides of DEFAULT_JOB_POLICIES (tests shorten backoffs)
 */
export function jobOptionsFor(
  name: JobName,
  jobId: string,
  policies: Partial<Record<JobName, ScanJobPolicy>> = {},
): JobsOptions {
  const policy = policies[name] ?? DEFAULT_JOB_POLICIES[name];
  return {
    jobId,
    attempts: policy.attempts,
    backoff: { type: 'exponential', delay: policy.backoffMs },
    removeOnComplete: KEEP_COMPLETED,
    removeOnFail: KEEP_FAILED,
  };
}

/**
 * BullMQ connection options for a Redis URL. BullMQ opens its own clients from these (workers set
 * `maxRetriesPerRequest: null` themselves for their blocking connection) and reconnects with
 * backoff when Redis restarts.
 */
export function connectionOptionsOf(config: QueueConnectionConfig): ConnectionOptions {
  return { url: config.redisUrl };
}

/** The prefix in effect. */
export function prefixOf(config: QueueConnectionConfig): string {
  return config.prefix ?? DEFAULT_QUEUE_PREFIX;
}
