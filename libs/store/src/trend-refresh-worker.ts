/**
 * Thread entry of the quota trend-fit refresh after a scan (trend-refresh-thread.ts `refreshTrendsOnThread`): opens a
 * pool of its own on the task's server, runs `QuotaTrendRepository.refresh` (reads on `readers` connections, fits
 * written with COPY), posts the window (or the error) back and closes the pool, which ends the thread. Built by
 * `nest build cli` next to trend-refresh-thread.js.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'pg';
import { QuotaTrendRepository } from './quota-trend.repository';
import { QuotaUsageRepository } from './quota-usage.repository';
import { listenForClientErrors } from './transaction.util';
import type { TrendRefreshAnswer, TrendRefreshTask } from './trend-refresh-thread';

/** The refresh of `task`, answered as data: an error crosses the thread boundary as its message and SQLSTATE. */
async function refreshTask(task: TrendRefreshTask): Promise<TrendRefreshAnswer> {
  const readers = Math.max(1, Math.floor(task.readers));
  const pool = new Pool({ connectionString: task.connectionString, max: readers, application_name: 'ack-fleet-audit' });
  // An idle connection's error (the server restarted) must not end the thread: the refresh's own query fails instead.
  pool.on('error', () => undefined);
  listenForClientErrors(pool);
  try {
    const trends = new QuotaTrendRepository(pool, new QuotaUsageRepository(pool), readers, readers, true);
    return { window: await trends.refresh(new Date(task.now)) };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return { error: { message: e instanceof Error ? e.message : String(e), ...(typeof code === 'string' ? { code } : {}) } };
  } finally {
    await pool.end().catch(() => undefined);
  }
}

void refreshTask(workerData as TrendRefreshTask).then((answer) => parentPort?.postMessage(answer));
