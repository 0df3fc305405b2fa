/**
 * `fleet-audit scan --config FILE --distributed`: the scan runs on the worker fleet (REDIS_URL +
 * DATABASE_URL, the same the workers use) instead of in this process. The CLI enqueues it, waits
 * for it (showing targets done / total), and returns the same `ScanOutcome` as a local scan, so
 * `--format json|table` and `--fail-on` behave the same. If Redis restarts empty meanwhile, the
 * scan is planned again from this process's config (the workers skip targets already read).
 *
 * Differences from a local scan's outcome: `results` is empty (the store keeps findings and the
 * per-status counts in `summary.results`, not every passing result) and `scan.source` is `live`
 * while the stored row says `distributed`.
 */
import { loadQueue, loadStore } from '../lazy';
import type { ScanOutcome, ScanProgress } from '@app/audit';
import type { PartialAuditSettings } from '@app/checks';
import type { ScanConfig } from '@app/collectors';
import { CliUsageError } from '../cli-error';

/** Options of {@link runDistributedScan}. */
export interface DistributedScanOptions {
  /** The validated scan config (`loadScanConfig(--config)`). */
  config: ScanConfig;
  /** Redis of the worker fleet (`REDIS_URL`). Required. */
  redisUrl: string | undefined;
  /** PostgreSQL of the worker fleet (`DATABASE_URL` / `--database-url`). Required. */
  databaseUrl: string | undefined;
  /** Redis key prefix of the fleet (`FLEET_AUDIT_QUEUE_PREFIX`; default `fleet-audit`). */
  prefix?: string;
  /** Analysis clock (`--now`). */
  now?: Date;
  settings?: PartialAuditSettings;
  /** Progress (phase `collect`: targets done of total) for the progress bar. */
  onProgress?: (p: ScanProgress) => void;
  /** Give up waiting after this long, milliseconds (default: wait until the scan ends). */
  timeoutMs?: number;
  /** Stop waiting (SIGINT); the scan goes on on the workers. */
  signal?: AbortSignal;
}

/**
 * Enqueue a scan on the worker fleet, wait for it, and return its outcome.
 * @throws CliUsageError when REDIS_URL or DATABASE_URL is missing; ScanFailedError when the scan
 *   failed (exit 2, like a local scan); ScanWaitError on timeout / abort; StoreError when
 *   PostgreSQL is unreachable
 */
export async function runDistributedScan(opts: DistributedScanOptions): Promise<ScanOutcome> {
  if (!opts.redisUrl) throw new CliUsageError("--distributed needs REDIS_URL (the worker fleet's Redis)");
  if (!opts.databaseUrl)
    throw new CliUsageError(
      "--distributed needs DATABASE_URL or --database-url (the worker fleet's PostgreSQL)",
    );
  const { BullScanJobQueue, DistributedScanClient } = loadQueue();
  const { Store } = loadStore();
  const store = await Store.open({ connectionString: opts.databaseUrl, migrate: true });
  const queue = new BullScanJobQueue({
    redisUrl: opts.redisUrl,
    ...(opts.prefix ? { prefix: opts.prefix } : {}),
  });
  try {
    const client = new DistributedScanClient(store, queue);
    return await client.run(
      {
        config: opts.config,
        ...(opts.now ? { now: opts.now } : {}),
        ...(opts.settings ? { settings: opts.settings } : {}),
      },
      {
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
        ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
    );
  } finally {
    // Close path: the scan's outcome (or its error) is what the command reports.
    await queue.close().catch(() => undefined);
    await store.close();
  }
}
