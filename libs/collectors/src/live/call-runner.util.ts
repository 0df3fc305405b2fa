/**
 * Runs remote calls with pacing and retries: each attempt goes through a scheduler (the account's
 * `ApiRateLimiter` for OpenAPI calls, a per-cluster concurrency bound for Kubernetes calls), and
 * transient failures (`Throttling*`, 5xx, timeouts, connection resets, truncated or non-JSON
 * bodies: `CollectError.retryable`) are retried with exponential backoff and full jitter
 * (`cockatiel` retry policy; AWS Architecture Blog "Exponential Backoff And Jitter").
 *
 * Why retries live here and not in the SDK: openapi-core does not retry unless `retryOptions` is
 * set, and then only per its own rules (research/alibaba-cloud-api.md 1.5); the Kubernetes client
 * does not retry at all. One policy for both keeps behaviour and tests in one place.
 *
 * A retry waits outside the scheduler, so a backing-off call never holds a slot or budget. The
 * server's retry hint (`x-acs-retry-after` milliseconds as openapi-core reads it, Kubernetes
 * `Retry-After`) is honoured as a lower bound of the wait, capped at `retryMaxDelayMs`. After the
 * last attempt the CollectError is thrown: the dataset is then `failed` with its code.
 */
import type { IRetryBackoffContext, RetryPolicy } from 'cockatiel';
import { cockatielPackage } from './sdk-modules';
import { CollectError, ScanAbortedError } from './collect-error.util';
import { fleetAuditErrorKind } from '@app/errors';

/** Runs one attempt of a call when the budget allows (`ApiRateLimiter.schedule` bound to an account). */
export type CallScheduler = <T>(api: string, fn: () => Promise<T>) => Promise<T>;

/** Tuning of a CallRunner. */
export interface CallRunnerOptions {
  /** Pacing of each attempt. */
  schedule: CallScheduler;
  /** Attempts per call including the first, count (1 = no retry). */
  maxAttempts: number;
  /** Base of the exponential backoff, milliseconds. */
  retryBaseDelayMs: number;
  /** Cap of one backoff wait, milliseconds. */
  retryMaxDelayMs: number;
  /** The caller's cancellation (the whole scan: ScanAbortedError). */
  signal?: AbortSignal;
  /** Cancellation of one dataset (its first failure): further calls throw DatasetCancelledError. */
  cancelled?: AbortSignal;
  /** Random source in [0, 1) for the jitter (tests pass a fixed one). */
  random?: () => number;
}

/** A call skipped because its dataset already failed (never recorded: the first error is). */
export class DatasetCancelledError extends fleetAuditErrorKind('DatasetCancelledError', 'DATASET_CANCELLED', true) {
  // permanent: the dataset already failed; its first error is what is recorded.
  constructor() {
    super('the dataset was cancelled after an earlier failure');
  }
}

/** Paced, retrying executor of remote calls. */
export class CallRunner {
  private readonly policy: RetryPolicy;
  /** Retries performed so far, count (for reporting and tests). */
  retries = 0;

  constructor(private readonly options: CallRunnerOptions) {
    const random = options.random ?? Math.random;
    const { DelegateBackoff, handleWhen, retry } = cockatielPackage();
    const backoff = new DelegateBackoff<IRetryBackoffContext<unknown>>((ctx) => {
      const exp = Math.min(options.retryMaxDelayMs, options.retryBaseDelayMs * 2 ** (ctx.attempt - 1));
      const jittered = Math.floor(random() * exp); // full jitter
      const err = 'error' in ctx.result ? ctx.result.error : undefined;
      const hint =
        err instanceof CollectError && err.retryAfterMs !== undefined
          ? Math.min(err.retryAfterMs, options.retryMaxDelayMs)
          : 0;
      return Math.max(jittered, hint);
    });
    this.policy = retry(
      handleWhen((e) => e instanceof CollectError && e.retryable),
      { maxAttempts: Math.max(0, options.maxAttempts - 1), backoff },
    );
    this.policy.onRetry(() => {
      this.retries++;
    });
  }

  /** The same runner, whose calls also stop once `cancelled` fires (DatasetCancelledError). */
  withCancel(cancelled: AbortSignal): CallRunner {
    const r = new CallRunner({ ...this.options, cancelled });
    r.retries = 0;
    return r;
  }

  /** Throw ScanAbortedError if the caller cancelled, DatasetCancelledError if the dataset was. */
  checkAborted(): void {
    if (this.options.signal?.aborted) throw new ScanAbortedError();
    if (this.options.cancelled?.aborted) throw new DatasetCancelledError();
  }

  /**
   * Run one call with pacing and the retry policy.
   * @param api the API action, for the scheduler (`DescribeInstances`, `list pods`)
   * @param fn the call; it must throw a CollectError (with `retryable`) on failure
   * @throws CollectError after the last attempt; ScanAbortedError when cancelled
   */
  async run<T>(api: string, fn: () => Promise<T>): Promise<T> {
    this.checkAborted();
    try {
      return await this.policy.execute(async () => {
        this.checkAborted();
        return this.options.schedule(api, async () => {
          this.checkAborted();
          return fn();
        });
      }, this.options.signal);
    } catch (e) {
      if (this.options.signal?.aborted) throw new ScanAbortedError();
      throw e;
    }
  }
}
