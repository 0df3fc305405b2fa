/**
 * Forecast computations (what-if, headroom) off the API's event loop (issue 23 item 1): each runs in its own
 * `node:worker_threads` Worker (forecast-worker.ts) with a time budget (the worker is terminated past it) and a
 * heap budget (`resourceLimits.maxOldGenerationSizeMb`; V8 stops the worker past it), at most `concurrency` at a
 * time, the rest waiting in a bounded FIFO. A full queue refuses at once (`ForecastBusyError`, the API's 429),
 * a run past its budget fails with `ForecastBudgetError` (the API's 422 naming the budget). The worker gets plain
 * data only (the snapshot, the parsed scenario, the options; structured clone), never the store.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PartialAuditSettings } from '@app/checks';
import type { FleetSnapshot } from '@app/domain';
import { fleetAuditErrorKind } from '@app/errors';
import { processEnvironment } from '@app/config';
import { HeadroomOptionError, ScenarioError, type HeadroomEntry, type HeadroomOptions, type Scenario, type WhatIfOptions, type WhatIfResult } from '@app/forecast';

/** What the pool sends a worker (`workerData`). */
export type ForecastWorkerRequest =
  | { kind: 'whatIf'; snapshot: FleetSnapshot; scenario: Scenario; options: WhatIfOptions }
  | { kind: 'headroom'; snapshot: FleetSnapshot; options: HeadroomOptions & { now: Date; settings?: PartialAuditSettings } };

/** A worker's one answer: the value, or the caller's input error, or an unexpected failure (message only). */
export type ForecastWorkerAnswer =
  | { ok: true; value: WhatIfResult | HeadroomEntry[] }
  | {
      ok: false;
      error: { kind: 'scenario'; message: string; step?: number; field?: string } | { kind: 'headroomOption'; message: string } | { kind: 'failed'; message: string };
    };

/** The forecast queue is full: retry after `retryAfterSeconds` (transient; the API answers 429 + Retry-After). */
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
  /** Computations running at once (default 1: the API has other work on a small pod). */
  concurrency?: number;
  /** Computations waiting beyond the running ones (default 2); one more is refused with ForecastBusyError. */
  maxQueued?: number;
  /** Wall time one computation may take, ms (default 20,000). */
  timeBudgetMs?: number;
  /** Old-generation heap of one worker, MB (default 256; the Helm chart gives the API pod 512 MiB). */
  maxOldGenerationSizeMb?: number;
  /** The built worker entry; default `forecast-worker.js` (see `defaultForecastWorkerEntry`). */
  workerEntry?: string;
}

/**
 * The built `forecast-worker.js`: next to this module when it runs compiled (`dist/apps/cli/...`); from TypeScript
 * source, the output of `nest build cli` under `distRoot`, else under FLEET_AUDIT_DIST (the build bin/fleet-audit.js
 * runs; the test suite sets it to its `dist-test/apps/cli`), else the repository's `dist/apps/cli`.
 */
export function defaultForecastWorkerEntry(distRoot?: string): string {
  if (__filename.endsWith('.js') && distRoot === undefined) return join(__dirname, 'forecast-worker.js');
  const root = distRoot ?? (processEnvironment().FLEET_AUDIT_DIST || join(__dirname, '..', '..', '..', 'dist', 'apps', 'cli'));
  return join(root, 'libs', 'audit', 'src', 'forecast-worker.js');
}

interface Job {
  request: ForecastWorkerRequest;
  resolve: (value: WhatIfResult | HeadroomEntry[]) => void;
  reject: (e: unknown) => void;
}

/** Bounded pool of forecast worker threads (see the file comment). */
export class ForecastPool {
  private readonly concurrency: number;
  private readonly maxQueued: number;
  private readonly timeBudgetMs: number;
  private readonly maxOldGenerationSizeMb: number;
  private readonly entry: string;
  private readonly queue: Job[] = [];
  private readonly workers = new Set<Worker>();
  private running = 0;

  constructor(opts: ForecastPoolOptions = {}) {
    this.concurrency = opts.concurrency ?? 1;
    this.maxQueued = opts.maxQueued ?? 2;
    this.timeBudgetMs = opts.timeBudgetMs ?? 20_000;
    this.maxOldGenerationSizeMb = opts.maxOldGenerationSizeMb ?? 256;
    this.entry = opts.workerEntry ?? defaultForecastWorkerEntry();
  }

  /** Computations running and waiting (counts). */
  get load(): { running: number; queued: number } {
    return { running: this.running, queued: this.queue.length };
  }

  /**
   * A what-if in a worker; same result as `runWhatIf(snapshot, scenario, options)`.
   * @throws ScenarioError as runWhatIf; ForecastBusyError when the queue is full; ForecastBudgetError past a budget
   */
  whatIf(snapshot: FleetSnapshot, scenario: Scenario, options: WhatIfOptions): Promise<WhatIfResult> {
    return this.submit({ kind: 'whatIf', snapshot, scenario, options }) as Promise<WhatIfResult>;
  }

  /**
   * Headroom in a worker; same result as `headroomOfSnapshot(snapshot, options)`.
   * @throws HeadroomOptionError as headroomOfSnapshot; ForecastBusyError; ForecastBudgetError
   */
  headroom(snapshot: FleetSnapshot, options: HeadroomOptions & { now: Date; settings?: PartialAuditSettings }): Promise<HeadroomEntry[]> {
    return this.submit({ kind: 'headroom', snapshot, options }) as Promise<HeadroomEntry[]>;
  }

  /** Terminates running workers and refuses the waiting jobs (API shutdown). */
  async close(): Promise<void> {
    for (const j of this.queue.splice(0)) j.reject(new ForecastBusyError('the API is shutting down', 5));
    await Promise.all([...this.workers].map((w) => w.terminate()));
  }

  private submit(request: ForecastWorkerRequest): Promise<WhatIfResult | HeadroomEntry[]> {
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
    while (this.running < this.concurrency && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.running++;
      this.run(job).finally(() => {
        this.running--;
        this.next();
      });
    }
  }

  private run(job: Job): Promise<void> {
    return new Promise<void>((done) => {
      let settled = false;
      const worker = new Worker(this.entry, {
        workerData: job.request,
        resourceLimits: { maxOldGenerationSizeMb: this.maxOldGenerationSizeMb },
      });
      this.workers.add(worker);
      const finish = (f: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        f();
        void worker.terminate().finally(() => {
          this.workers.delete(worker);
          done();
        });
      };
      const timer = setTimeout(
        () => finish(() => job.reject(new ForecastBudgetError(`forecast over its time budget of ${this.timeBudgetMs / 1000} s: use fewer or smaller steps`))),
        this.timeBudgetMs,
      );
      worker.once('message', (a: ForecastWorkerAnswer) =>
        finish(() => {
          if (a.ok) return job.resolve(a.value);
          const e = a.error;
          if (e.kind === 'scenario') return job.reject(new ScenarioError(e.message, e.step, e.field));
          if (e.kind === 'headroomOption') return job.reject(new HeadroomOptionError('like', e.message));
          job.reject(new Error(`forecast worker failed: ${e.message}`));
        }),
      );
      worker.once('error', (err: Error & { code?: string }) =>
        finish(() =>
          job.reject(
            err.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new ForecastBudgetError(`forecast over its memory budget of ${this.maxOldGenerationSizeMb} MB: use fewer or smaller steps`)
              : new Error(`forecast worker failed: ${err.message}`),
          ),
        ),
      );
      worker.once('exit', (code) => finish(() => job.reject(new Error(`forecast worker stopped (exit code ${code}) before it answered`))));
    });
  }
}
