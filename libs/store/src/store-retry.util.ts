/**
 * Connection loss and retries of store writes.
 *
 * A PostgreSQL restart closes every connection: queries in flight fail with a socket error or
 * SQLSTATE 57P01 `admin_shutdown`, and new connections fail with ECONNREFUSED or 57P03
 * `cannot_connect_now` until the server accepts again. These are transient: the operation may be
 * retried once the server is back. Every other error (constraint, syntax, CONFLICT...) is not.
 *
 * Sources: PostgreSQL "Appendix A. Error Codes" (class 08 connection exception, 57P01..57P03);
 * node-postgres emits "Connection terminated unexpectedly" / "Connection terminated" on a dead
 * socket (pg/lib/client.js).
 */
import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import { hasConnectionLossShape } from '@app/errors';
import { StoreError } from './store.exception';

/**
 * Whether `e` (or its `cause`) says the database connection was lost or refused: a transient
 * fault worth a retry, answered 503 by the API. StoreError UNAVAILABLE counts as one.
 */
export function isConnectionLoss(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur && depth < 5; depth += 1) {
    if (cur instanceof StoreError) {
      if (cur.code === 'UNAVAILABLE') return true;
      if (cur.code !== undefined) return false;
    }
    if (typeof cur !== 'object') return false;
    if (hasConnectionLossShape(cur)) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

/** Options of {@link withStoreRetry}. */
export interface StoreRetryOptions {
  /** Attempts in all, including the first (default 7: about 12 s of backoff in total). */
  attempts?: number;
  /** First backoff delay, milliseconds (default 200; doubled each time, with jitter, at most 4000). */
  initialDelayMs?: number;
}

/**
 * Run a store operation, retrying it with exponential backoff while the failure is a lost or
 * refused connection ({@link isConnectionLoss}). The operation must be idempotent
 * (`scans.complete`, `scans.fail`, `scans.heartbeat` are). Other errors are thrown at once.
 * @throws StoreError UNAVAILABLE when every attempt lost its connection (message says how many)
 */
export async function withStoreRetry<T>(what: string, fn: () => Promise<T>, opts: StoreRetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? 7;
  const policy = retry(handleWhen(isConnectionLoss), {
    maxAttempts: attempts - 1,
    backoff: new ExponentialBackoff({ initialDelay: opts.initialDelayMs ?? 200, maxDelay: 4000 }),
  });
  try {
    return await policy.execute(() => fn());
  } catch (e) {
    if (!isConnectionLoss(e) || (e instanceof StoreError && e.code === 'UNAVAILABLE')) throw e;
    const reason = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new StoreError('UNAVAILABLE', `${what}: PostgreSQL connection lost (${attempts} attempts): ${reason}`, { cause: e });
  }
}
