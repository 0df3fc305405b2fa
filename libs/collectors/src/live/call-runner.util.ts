/**
 * Runs every remote call of one account: bounded concurrency (one `bottleneck` limiter per
 * account, `maxConcurrent` calls in flight) and retries of transient failures (throttling, 5xx,
 * connection resets) with exponential backoff and full jitter (`cockatiel` retry policy).
 *
 * Why retries live here and not in the SDK: openapi-core does not retry unless `retryOptions` is
 * set, and then only per its own rules (research/alibaba-cloud-api.md 1.5); the Kubernetes client
 * does not retry at all. One policy for both keeps behaviour and tests in one place.
 *
 * A retry waits outside the limiter, so a backing-off call never holds a concurrency slot. The
 * server's `x-acs-retry-after` hint (milliseconds, as openapi-core reads it) is honoured as a
 * lower bound of the wait. A later issue adds per-account QPS budgets (bottleneck reservoirs).
 */
import Bottleneck from 'bottleneck';
import { DelegateBackoff, handleWhen, retry, type IRetryBackoffContext, type RetryPolicy } from 'cockatiel';
import { CollectError, ScanAbortedError } from './collect-error.util';

/** Tuning of a CallRunner. */
export interface CallRunnerOptions {
  /** Calls in flight at once, count. */
  maxConcurrent: number;
  /** Attempts per call including the first, count (1 = no retry). */
  maxAttempts: number;
  /** Base of the exponential backoff, milliseconds. */
  retryBaseDelayMs: number;
  /** Cap of one backoff wait, milliseconds. */
  retryMaxDelayMs: number;
  /** The caller's cancellation. */
  signal?: AbortSignal;
  /** Random source in [0, 1) for the jitter (tests pass a fixed one). */
  random?: () => number;
}

/** Bounded, retrying executor of remote calls. */
export class CallRunner {
  private readonly limiter: Bottleneck;
  private readonly policy: RetryPolicy;
  /** Retries performed so far, count (for reporting and tests). */
  retries = 0;

  constructor(private readonly options: CallRunnerOptions) {
    this.limiter = new Bottleneck({ maxConcurrent: options.maxConcurrent });
    const random = options.random ?? Math.random;
    const backoff = new DelegateBackoff<IRetryBackoffContext<unknown>>((ctx) => {
      const exp = Math.min(options.retryMaxDelayMs, options.retryBaseDelayMs * 2 ** (ctx.attempt - 1));
      const jittered = Math.floor(random() * exp); // full jitter (AWS architecture blog, "Exponential Backoff And Jitter")
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

  /** Throw ScanAbortedError if the caller cancelled. */
  checkAborted(): void {
    if (this.options.signal?.aborted) throw new ScanAbortedError();
  }

  /**
   * Run one call with the limiter and retry policy.
   * @param fn the call; it must throw a CollectError (with `retryable`) on failure
   * @throws CollectError after the last attempt; ScanAbortedError when cancelled
   */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.checkAborted();
    try {
      return await this.policy.execute(async () => {
        this.checkAborted();
        return this.limiter.schedule(async () => {
          this.checkAborted();
          return fn();
        });
      }, this.options.signal);
    } catch (e) {
      if (this.options.signal?.aborted) throw new ScanAbortedError();
      throw e;
    }
  }

  /** Stop the limiter (drops nothing in flight). */
  async close(): Promise<void> {
    await this.limiter.stop({ dropWaitingJobs: false });
  }
}
