import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Store, startScanReaper } from '@app/store';
import { SCAN_LEASE } from '../api.constants';

/**
 * The API's reaper of running scans whose owner died (SIGKILL of `serve` mid-scan, a crashed
 * worker): every few seconds, running scans whose heartbeat is older than the lease are marked
 * failed with an `interrupted:` reason (libs/store scan-lease). Runs in every API process; sweeps
 * of several processes overlap harmlessly.
 */
@Injectable()
export class ScanReaperService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ScanReaper');
  private stop: (() => void) | undefined;

  constructor(
    private readonly store: Store,
    @Inject(SCAN_LEASE) private readonly lease: { leaseMs?: number; intervalMs?: number },
  ) {}

  /** Start sweeping once the app is up. */
  onApplicationBootstrap(): void {
    this.stop = startScanReaper(this.store.scans, {
      ...this.lease,
      onReaped: (ids) => this.logger.warn(`marked ${ids.length} scan(s) failed: their process stopped (${ids.join(', ')})`),
      onError: () => undefined,
    });
  }

  /** Stop sweeping. */
  onApplicationShutdown(): void {
    this.stop?.();
  }
}
