/**
 * What the queue says about a running scan: still carried by a job, failed for good, or lost
 * (Redis holds none of its jobs any more: Redis restarted empty, or its keys were flushed).
 * Shared by the worker's reconciler and the CLI's waiter, which re-plan lost scans.
 */
import type { ScanJobsState } from './scan-job.queue';

/** Verdict on a running scan's jobs. */
export type ScanJobsVerdict =
  /** A plan, analyze or complete-scan job exists and has not failed: the scan moves on by itself. */
  | { kind: 'alive' }
  /** The complete-scan job, else the analyze job (or the plan job, before any analyze job existed) failed after all attempts. */
  | { kind: 'failed'; reason: string }
  /** No job carries the scan any more: it must be planned again (or failed). */
  | { kind: 'lost' };

/** Judge a running scan by the states of its plan and analyze jobs. */
export function judgeScanJobs(state: ScanJobsState): ScanJobsVerdict {
  const { plan, analyze, complete } = state;
  // A sharded analysis: once analyze-scan added the complete-scan job, that job carries the scan.
  if (complete && complete.state !== 'missing')
    return complete.state === 'failed'
      ? { kind: 'failed', reason: `analysis failed: ${complete.failedReason ?? 'unknown error'}` }
      : { kind: 'alive' };
  if (analyze.state === 'failed')
    return { kind: 'failed', reason: `analysis failed: ${analyze.failedReason ?? 'unknown error'}` };
  if (analyze.state !== 'missing') return { kind: 'alive' };
  if (plan.state === 'failed')
    return { kind: 'failed', reason: `planning failed: ${plan.failedReason ?? 'unknown error'}` };
  // A completed plan job without its analyze job means the flow was lost after planning.
  if (plan.state !== 'missing' && plan.state !== 'completed') return { kind: 'alive' };
  return { kind: 'lost' };
}
