/**
 * The quota trend-fit refresh a scan runs after its store (`QuotaTrendRepository.refreshAfterScan`), on a worker
 * thread of its own with connections of its own: the thread's entry (trend-refresh-worker.ts, built by `nest build
 * cli` next to this module) runs `QuotaTrendRepository.refresh` and posts the kept window back.
 *
 * Why a thread: the refresh allocates per series (rows, sample arrays, fits, COPY lines), and in the scan's process
 * that garbage is collected beside everything the scan still holds: its findings and results, at 5,000 clusters a
 * heap of about 4 GB, which every full collection marks again. In a thread of its own the refresh's garbage is
 * collected in a heap of tens of MB (bench:store-step at 5,000 clusters: 51.9 CPU s in the process for the refresh
 * where a process of its own, bench:trend-refresh at 1,000,000 series, spends 15-19).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { builtEntryPath } from '@app/config';
import type { QuotaTrendWindow } from './store.types';

/** What the refresh thread is given (structured clone). */
export interface TrendRefreshTask {
  /** The store's `postgres://` URL: the thread opens connections of its own. Never logged. */
  connectionString: string;
  /** Connections the thread reads on, and its pool's size (count, at least 1): `QuotaTrendRepository` readers. */
  readers: number;
  /** The end of the trend window (epoch ms). */
  now: number;
}

/** The thread's answer: the kept window, or the refresh's error (its message and SQLSTATE, when it has one). */
export type TrendRefreshAnswer = { window: QuotaTrendWindow } | { error: { message: string; code?: string } };

/**
 * The built `trend-refresh-worker.js`: next to this module when it runs compiled; from TypeScript source (vitest), under
 * FLEET_AUDIT_DIST, else the repository's `dist/apps/cli` (`builtEntryPath`).
 */
export function defaultTrendRefreshEntry(): string {
  return builtEntryPath(__filename, join('libs', 'store', 'src'), 'trend-refresh-worker.js');
}

/** Whether the refresh thread's entry is built at `entry` (TypeScript source without a build has none). */
export function trendRefreshThreadBuilt(entry: string = defaultTrendRefreshEntry()): boolean {
  return existsSync(entry);
}

/**
 * Run one refresh on a new worker thread and wait for its window; the thread ends with it.
 * @param entry the built thread entry (default `defaultTrendRefreshEntry()`)
 * @returns the kept window (new or already there), as `QuotaTrendRepository.refresh` returns it
 * @throws Error with the refresh's message and `code` (SQLSTATE) when it failed in the thread; the thread's error when
 *   it could not start or crashed; Error when it exited without answering
 */
export function refreshTrendsOnThread(task: TrendRefreshTask, entry: string = defaultTrendRefreshEntry()): Promise<QuotaTrendWindow> {
  return new Promise<QuotaTrendWindow>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      fn();
    };
    const worker = new Worker(entry, { workerData: task });
    worker.once('message', (answer: TrendRefreshAnswer) =>
      settle(() => {
        if ('window' in answer) resolve(answer.window);
        else reject(Object.assign(new Error(answer.error.message), answer.error.code ? { code: answer.error.code } : {}));
      }),
    );
    worker.once('error', (e) => settle(() => reject(e)));
    worker.once('exit', (code) => settle(() => reject(new Error(`the quota trend refresh thread exited (code ${code}) without an answer`))));
  });
}
