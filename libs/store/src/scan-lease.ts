/**
 * Leases of running scans: the owner renews a heartbeat, a
 * reaper in every long-running process (API, worker) fails scans whose owner stopped renewing.
 */
import type { ScanRepository } from './scan.repository';

/** How often the process running a scan renews its heartbeat, milliseconds. */
export const SCAN_HEARTBEAT_MS = 5_000;

/**
 * How long a running scan may go without a heartbeat before a reaper fails it, milliseconds:
 * six missed heartbeats, longer than the store's retries ride over a PostgreSQL restart.
 */
export const SCAN_LEASE_MS = 30_000;

/**
 * Renew `scanId`'s heartbeat every `intervalMs` until the returned function is called. Errors
 * (database down for a moment) are passed to `onError` and the next beat tries again. The timer
 * does not keep the process alive.
 */
export function startScanHeartbeat(
  scans: Pick<ScanRepository, 'heartbeat'>,
  scanId: string,
  opts: { intervalMs?: number; onError?: (e: unknown) => void } = {},
): () => void {
  const timer = setInterval(() => {
    scans.heartbeat(scanId).catch((e: unknown) => opts.onError?.(e));
  }, opts.intervalMs ?? SCAN_HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Options of {@link startScanReaper}. */
export interface ScanReaperOptions {
  /** How often to look for expired leases, milliseconds (default SCAN_HEARTBEAT_MS). */
  intervalMs?: number;
  /** Lease length, milliseconds (default SCAN_LEASE_MS). */
  leaseMs?: number;
  /** Called with the ids failed by one sweep (non-empty). */
  onReaped?: (ids: string[]) => void;
  /** Called when a sweep fails (database down); the next sweep tries again. */
  onError?: (e: unknown) => void;
}

/**
 * Sweep now and then every `intervalMs`: fail running scans whose lease expired
 * (`ScanRepository.reapExpired`). Returns a function that stops the sweeps. Sweeps of several
 * processes may overlap harmlessly (one UPDATE each; a scan is failed once).
 */
export function startScanReaper(scans: Pick<ScanRepository, 'reapExpired'>, opts: ScanReaperOptions = {}): () => void {
  const leaseMs = opts.leaseMs ?? SCAN_LEASE_MS;
  let busy = false;
  const sweep = () => {
    if (busy) return;
    busy = true;
    scans
      .reapExpired(leaseMs)
      .then((ids) => {
        if (ids.length) opts.onReaped?.(ids);
      })
      .catch((e: unknown) => opts.onError?.(e))
      .finally(() => {
        busy = false;
      });
  };
  sweep();
  const timer = setInterval(sweep, opts.intervalMs ?? SCAN_HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}
