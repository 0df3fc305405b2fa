/**
 * Forecast computations (what-if, headroom) off the API's event loop, in a warm pool of
 * `node:worker_threads` threads run by piscina (forecast-worker.ts is the threads' entry):
 *
 * - at most `concurrency` computations run at a time, the rest wait in a bounded FIFO of `maxQueued`; one more is
 *   refused at once (`ForecastBusyError`, the API's 429 + Retry-After). The FIFO is this class's, not piscina's:
 *   a task that carries an AbortSignal waits in piscina's skip queue, which its `maxQueue` does not count, and the
 *   time budget must start when a computation is handed to a thread, which piscina does not report for a queued task;
 *   so piscina is only ever given as many tasks as it has threads (`maxThreads` = `concurrency`).
 * - a time budget per computation, counted from the hand-over (a thread's start included when none is warm): past
 *   it the task's AbortSignal fires, piscina terminates the thread running it, and the call fails with
 *   `ForecastBudgetError` (the API's 422 naming the budget);
 * - a heap budget per thread (`resourceLimits.maxOldGenerationSizeMb`): V8 stops a thread past it, the call fails
 *   with `ForecastBudgetError` naming the memory budget, and the next computation gets a new thread;
 * - the next computation starts only once the thread of a stopped one has exited (its heap is given back first);
 * - threads stay warm between computations (`idleTimeoutMs`, default 60 s; the API's FORECAST_IDLE_TIMEOUT_MS) and none
 *   is kept when idle longer (min threads 0): a warm what-if skips the thread start and module loading (100-300 ms depending on the machine, most of a small
 *   what-if); an API replica that runs none holds no thread. A warm idle thread holds at most the heap its last
 *   computation left (under the heap budget the pod was sized for) until it exits;
 * - a thread keeps no state from one computation to the next that changes an answer: every request arrives as a
 *   fresh structured clone, and the forecast code's module-level memos are keyed by value or by object (WeakMap);
 * - no thread keeps the process alive when idle (piscina unrefs idle threads), and `close()` refuses the waiting
 *   computations and terminates the threads (API shutdown).
 *
 * Threads get plain data only (the snapshot, the parsed scenario, the options; structured clone), never the store.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { PartialAuditSettings } from '@app/checks';
import type { FleetSnapshot } from '@app/domain';
import { fleetAuditErrorKind } from '@app/errors';
import { builtEntryPath } from '@app/config';
import {
  HeadroomOptionError,
  ScenarioError,
  type HeadroomEntry,
  type HeadroomOptions,
  type Scenario,
  type ScenarioIssue,
  type WhatIfOptions,
  type WhatIfResult,
} from '@app/forecast';

/** What the pool hands a thread for one computation (structured clone). */
export type ForecastWorkerRequest =
  | { kind: 'whatIf'; snapshot: FleetSnapshot; scenario: Scenario; options: WhatIfOptions }
  | { kind: 'headroom'; snapshot: FleetSnapshot; options: HeadroomOptions & { now: Date; settings?: PartialAuditSettings } };

/**
 * A thread's answer to one request: the value, or the caller's input error, or an unexpected failure (message only).
 * A `scenario` error carries what the pool rebuilds its ScenarioError from: the message, the first problem's step and
 * field, and every problem (`issues`: `{ message, step?, field? }[]`, see ScenarioError).
 */
export type ForecastWorkerAnswer =
  | { ok: true; value: WhatIfResult | HeadroomEntry[] }
  | {
      ok: false;
      error:
        | { kind: 'scenario'; message: string; step?: number; field?: string; issues: ScenarioIssue[] }
        | { kind: 'headroomOption'; message: string }
        | { kind: 'failed'; message: string };
    };

/** The forecast queue is full, or the API is shutting down: retry after `retryAfterSeconds` (transient; the API answers 429 + Retry-After). */
export class ForecastBusyError extends fleetAuditErrorKind('ForecastBusyError', 'FORECAST_BUSY', false) {
  constructor(
    message: string,
    /** Whole seconds after which a retry may find room (about one time budget). */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A forecast went over its time or heap budget (permanent for this input: make the scenario smaller). */
export class ForecastBudgetError extends fleetAuditErrorKind('ForecastBudgetError', 'FORECAST_OVER_BUDGET', true) {}

/** Budgets and bounds of a `ForecastPool`. */
export interface ForecastPoolOptions {
  /** Computations running at once, and threads at most (default 1: the API has other work on a small pod). */
  concurrency?: number;
  /** Computations waiting beyond the running ones (default 2); one more is refused with ForecastBusyError. */
  maxQueued?: number;
  /** Wall time one computation may take from its hand-over to a thread, ms (default 20,000). */
  timeBudgetMs?: number;
  /** Old-generation heap of one thread, MB (default 256; the Helm chart gives the API pod 512 MiB). */
  maxOldGenerationSizeMb?: number;
  /**
   * How long a thread stays warm with nothing to compute before it exits, ms (default
   * DEFAULT_FORECAST_IDLE_TIMEOUT_MS, 60,000; 0: at once, no warm thread). The API reads it from
   * FORECAST_IDLE_TIMEOUT_MS (libs/config).
   */
  idleTimeoutMs?: number;
  /** The built worker entry; default `forecast-worker.js` (see `defaultForecastWorkerEntry`). */
  workerEntry?: string;
  /**
   * Told of a thread that failed while it ran no computation (piscina's `'error'` event: a worker entry that throws
   * while it loads, a thread Node cannot start), with the thread's error (an Error as the thread threw it, structured
   * clone; `unknown` since a thread may throw anything). Piscina has dropped that thread by then. A computation that
   * fails is not reported here: its caller gets the error. Default: nothing. Anything it throws is ignored (it runs
   * inside piscina's event dispatch).
   */
  onThreadError?: (error: unknown) => void;
}

/** How long an idle forecast thread stays warm by default, ms (the default of FORECAST_IDLE_TIMEOUT_MS too). */
export const DEFAULT_FORECAST_IDLE_TIMEOUT_MS = 60_000;

/** What a `ForecastPool` has done with its threads (counts), for tests, benches and diagnostics. */
export interface ForecastPoolStats {
  /** Threads alive now (warm or computing). */
  threads: number;
  /** `threadId` of each of them. */
  threadIds: number[];
  /** Threads started since the pool was made (ready to compute: loaded, counted once each). */
  threadsStarted: number;
  /** Computations that ended (answered, refused by their input, or stopped past a budget). */
  completed: number;
}

/**
 * The built `forecast-worker.js`: next to this module when it runs compiled (`dist/apps/cli/...`); from TypeScript
 * source, the output of `nest build cli` under `distRoot`, else under FLEET_AUDIT_DIST (the build bin/fleet-audit.js
 * runs; the test suite sets it to its `dist-test/apps/cli`), else the repository's `dist/apps/cli`.
 */
export function defaultForecastWorkerEntry(distRoot?: string): string {
  const lib = join('libs', 'audit', 'src');
  return distRoot === undefined ? builtEntryPath(__filename, lib, 'forecast-worker.js') : join(distRoot, lib, 'forecast-worker.js');
}

/** A computation handed to piscina: its budget, and why no thread will run it once that is known (`failStranded`). */
interface HandedOver {
  budget: AbortController;
  /** Set when the pool's last thread ended before it was ready: the thread's error (anything a thread may throw). */
  stranded?: { error: unknown };
}

interface Job {
  request: ForecastWorkerRequest;
  resolve: (value: WhatIfResult | HeadroomEntry[]) => void;
  reject: (e: unknown) => void;
}

/** Seconds a caller refused at shutdown is told to wait (another replica, or this one restarted, may answer). */
const SHUTDOWN_RETRY_SECONDS = 5;

/** Bounded pool of warm forecast threads (see the file comment). */
export class ForecastPool {
  private readonly concurrency: number;
  private readonly maxQueued: number;
  private readonly timeBudgetMs: number;
  private readonly maxOldGenerationSizeMb: number;
  private readonly entry: string;
  private readonly piscina: Piscina<ForecastWorkerRequest, ForecastWorkerAnswer>;
  private readonly queue: Job[] = [];
  /** Every thread seen alive and not yet known to have exited (awaited once piscina drops it). */
  private readonly seen = new Set<Worker>();
  private running = 0;
  /**
   * The computations handed to piscina and not settled yet, with their budget's AbortController; `stranded` is set
   * when the pool's last thread failed before running anything (see the 'error' listener).
   */
  private readonly handedOver = new Set<HandedOver>();
  private threadsStarted = 0;
  private closed = false;

  /**
   * @param opts budgets, bounds, worker entry and thread-error report (see ForecastPoolOptions)
   * @throws TypeError / RangeError from piscina for a concurrency under 1 or a negative idle timeout
   */
  constructor(opts: ForecastPoolOptions = {}) {
    this.concurrency = opts.concurrency ?? 1;
    this.maxQueued = opts.maxQueued ?? 2;
    this.timeBudgetMs = opts.timeBudgetMs ?? 20_000;
    this.maxOldGenerationSizeMb = opts.maxOldGenerationSizeMb ?? 256;
    this.entry = opts.workerEntry ?? defaultForecastWorkerEntry();
    this.piscina = new Piscina<ForecastWorkerRequest, ForecastWorkerAnswer>({
      filename: this.entry,
      minThreads: 0,
      maxThreads: this.concurrency,
      idleTimeout: opts.idleTimeoutMs ?? DEFAULT_FORECAST_IDLE_TIMEOUT_MS,
      resourceLimits: { maxOldGenerationSizeMb: this.maxOldGenerationSizeMb },
      recordTiming: false,
    });
    this.piscina.on('workerCreate', () => {
      this.threadsStarted++;
      for (const t of this.piscina.threads) this.seen.add(t);
    });
    // Piscina emits 'error' for a thread that fails while it runs no task (the task itself is rejected otherwise):
    // with the forecast code loaded inside a task (forecast-worker.ts), only a thread that cannot start Node at all
    // or a worker entry that cannot load. Piscina drops that thread; without a listener the event would throw.
    const onThreadError = opts.onThreadError;
    this.piscina.on('error', (e: unknown) => {
      try {
        onThreadError?.(e);
      } catch {
        // A failing report must not break piscina's dispatch of the event (see ForecastPoolOptions.onThreadError).
      }
      // A thread that fails before it is ready leaves the tasks handed over for it in piscina's queue, and piscina starts
      // no other thread for them (piscina 5.3.2 dist/index.js `_onError`: `workerFailsDuringBootstrap`): with no thread
      // left alive they would wait out their whole time budget and then be reported as too large. They fail now,
      // naming the thread's error; the next computation starts a new thread (piscina's `run` still adds one).
      this.failStranded(e);
    });
    // A thread that exits before it is ready without an 'error' (`process.exit` while its entry loads) strands its
    // tasks the same way, and piscina emits nothing but this (dist/index.js `onWorkerExit` -> `_onError(.., true)`).
    // The event fires while piscina still lists the thread (`_removeWorker` deletes it after `destroy`) and before it
    // rejects the task the thread was running (out of memory, a crash): judged on the next turn of the event loop,
    // once those rejections have settled their computations. A thread stopped for a budget or by close() has no
    // stranded task either (failStranded skips those).
    this.piscina.on('workerDestroy', () => {
      setImmediate(() => this.failStranded(new Error('the thread exited before it was ready')));
    });
  }

  /**
   * Fails at once the computations handed to piscina that no thread will run: when no thread is left alive (none
   * running, none starting), a task in piscina's queue waits until the next `run` starts a thread, that is, until
   * its own time budget. Skips those already stopped (budget, close()).
   */
  private failStranded(error: unknown): void {
    if (this.closed || this.piscina.threads.length > 0) return;
    for (const h of this.handedOver) {
      if (h.budget.signal.aborted) continue;
      h.stranded = { error };
      h.budget.abort();
    }
  }

  /** Computations running and waiting (counts). */
  get load(): { running: number; queued: number } {
    return { running: this.running, queued: this.queue.length };
  }

  /** Threads alive, started and computations completed (see ForecastPoolStats). */
  get stats(): ForecastPoolStats {
    const threads = this.piscina.threads;
    return { threads: threads.length, threadIds: threads.map((t) => t.threadId), threadsStarted: this.threadsStarted, completed: this.piscina.completed };
  }

  /**
   * A what-if in a thread of the pool; same result as `runWhatIf(snapshot, scenario, options)`.
   * @throws ScenarioError as runWhatIf; ForecastBusyError when the queue is full or the pool closed; ForecastBudgetError
   *   past the time or heap budget; Error when the worker entry is not built
   */
  whatIf(snapshot: FleetSnapshot, scenario: Scenario, options: WhatIfOptions): Promise<WhatIfResult> {
    return this.submit({ kind: 'whatIf', snapshot, scenario, options }) as Promise<WhatIfResult>;
  }

  /**
   * Headroom in a thread of the pool; same result as `headroomOfSnapshot(snapshot, options)`.
   * @throws HeadroomOptionError as headroomOfSnapshot; ForecastBusyError; ForecastBudgetError; Error when the worker
   *   entry is not built
   */
  headroom(snapshot: FleetSnapshot, options: HeadroomOptions & { now: Date; settings?: PartialAuditSettings }): Promise<HeadroomEntry[]> {
    return this.submit({ kind: 'headroom', snapshot, options }) as Promise<HeadroomEntry[]>;
  }

  /**
   * API shutdown: refuses the waiting computations and later calls (ForecastBusyError), stops the running ones
   * (ForecastBusyError too) and resolves once every thread has exited.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const j of this.queue.splice(0)) j.reject(this.shuttingDown());
    await this.piscina.destroy();
    await this.reap();
  }

  private shuttingDown(): ForecastBusyError {
    return new ForecastBusyError('the API is shutting down', SHUTDOWN_RETRY_SECONDS);
  }

  private submit(request: ForecastWorkerRequest): Promise<WhatIfResult | HeadroomEntry[]> {
    if (this.closed) return Promise.reject(this.shuttingDown());
    if (this.running >= this.concurrency && this.queue.length >= this.maxQueued) {
      const wait = Math.ceil(this.timeBudgetMs / 1000);
      return Promise.reject(new ForecastBusyError(`forecast queue full (${this.running} running, ${this.queue.length} waiting): retry in ${wait} s`, wait));
    }
    if (!existsSync(this.entry)) return Promise.reject(new Error(`the forecast worker entry ${this.entry} does not exist; build with \`nest build cli\``));
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve: resolve as Job['resolve'], reject });
      this.next();
    });
  }

  private next(): void {
    while (!this.closed && this.running < this.concurrency && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.running++;
      void this.run(job).finally(() => {
        this.running--;
        this.next();
      });
    }
  }

  /** Hands one job to piscina under its time budget; settles the job, then waits for any thread that was stopped. */
  private async run(job: Job): Promise<void> {
    const budget = new AbortController();
    const handed: HandedOver = { budget };
    this.handedOver.add(handed);
    const timer = setTimeout(() => budget.abort(), this.timeBudgetMs);
    const task = this.piscina.run(job.request, { signal: budget.signal });
    // A thread piscina starts for this task exists (not yet ready) once run() returns.
    for (const t of this.piscina.threads) this.seen.add(t);
    try {
      this.settle(job, await task);
    } catch (e) {
      if (handed.stranded) job.reject(threadStartFailure(handed.stranded.error));
      else job.reject(this.failure(e, budget.signal.aborted));
    } finally {
      this.handedOver.delete(handed);
      clearTimeout(timer);
    }
    await this.reap();
  }

  /** Resolves or rejects the job with a thread's answer, its input errors typed as the in-process call throws them. */
  private settle(job: Job, a: ForecastWorkerAnswer): void {
    if (a.ok) return job.resolve(a.value);
    const e = a.error;
    if (e.kind === 'scenario') return job.reject(new ScenarioError(e.message, e.step, e.field, e.issues));
    if (e.kind === 'headroomOption') return job.reject(new HeadroomOptionError('like', e.message));
    job.reject(new Error(`forecast worker failed: ${e.message}`));
  }

  /** The error a caller gets for a task piscina rejected: over a budget, stopped by close(), or the thread's failure. */
  private failure(e: unknown, overTime: boolean): Error {
    if (overTime) return new ForecastBudgetError(`forecast over its time budget of ${this.timeBudgetMs / 1000} s: use fewer or smaller steps`);
    if ((e as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY')
      return new ForecastBudgetError(`forecast over its memory budget of ${this.maxOldGenerationSizeMb} MB: use fewer or smaller steps`);
    if (this.closed) return this.shuttingDown();
    return new Error(`forecast worker failed: ${e instanceof Error ? e.message : String(e)}`);
  }

  /** Waits for the exit of every thread piscina has dropped (stopped past a budget, failed, or idle too long). */
  private async reap(): Promise<void> {
    const alive = new Set(this.piscina.threads);
    const gone = [...this.seen].filter((t) => !alive.has(t));
    for (const t of gone) this.seen.delete(t);
    // terminate() of a thread already stopping or stopped resolves at (or right after) its exit.
    await Promise.all(gone.map((t) => t.terminate()));
  }
}

/**
 * The error of a computation whose thread failed before it ran anything (a worker entry that cannot load, a thread
 * Node cannot start): not the caller's input, not a budget; the API answers 500 and logs the thread's error.
 */
function threadStartFailure(e: unknown): Error {
  return new Error(`forecast thread failed before it ran the computation: ${e instanceof Error ? e.message : String(e)}`);
}
