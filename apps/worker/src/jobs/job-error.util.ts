/**
 * The worker's one mapping of errors to BullMQ retry decisions, read from the
 * error's libs/errors `permanent` flag, never its name:
 * - permanent (a FleetAuditError marked so: an invalid config, a target the config does not name,
 *   an unset credentials variable, a scan row that is gone, a 4xx answer of a cloud API): wrapped
 *   in BullMQ's `UnrecoverableError`, so the job fails at once without using up its attempts;
 * - anything else (Redis / PostgreSQL / network errors, errors marked transient): rethrown as is,
 *   so BullMQ retries the job with the exponential backoff of its queue
 *   (libs/queue `DEFAULT_JOB_POLICIES`: attempts and base delay per job kind).
 */
import { UnrecoverableError } from 'bullmq';
import { isFleetAuditError, isPermanentError } from '@app/errors';

/**
 * The error a job processor throws for `e`.
 * @returns an UnrecoverableError (message `<name>: <message>`, `cause` = `e`) for permanent errors;
 *   `e` itself otherwise (an UnrecoverableError passes through unchanged)
 */
export function jobErrorOf(e: unknown): unknown {
  if (e instanceof UnrecoverableError || !isPermanentError(e) || !isFleetAuditError(e)) return e;
  // `<name>: <message>`: the reason BullMQ stores and the crawl marks its target failed with.
  const wrapped = new UnrecoverableError(`${e.name}: ${e.message}`);
  (wrapped as Error & { cause?: unknown }).cause = e;
  return wrapped;
}

/**
 * Run a job's work and map its failure with {@link jobErrorOf}.
 * @throws UnrecoverableError for permanent errors; the original error otherwise (retried)
 */
export async function runJob<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw jobErrorOf(e);
  }
}
