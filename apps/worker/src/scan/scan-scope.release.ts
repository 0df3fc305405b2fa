import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ScanScopeLock } from '@app/queue';
import { SCAN_SCOPE_LOCK } from '../worker.constants';

/**
 * Releases the scope lock of a scan that ended (the job that ends a scan: analyze-scan, or complete-scan of a
 * sharded analysis). Never throws: the scan is ended either way, and a lock not released expires with its TTL.
 */
@Injectable()
export class ScanScopeRelease {
  private readonly logger = new Logger(ScanScopeRelease.name);

  constructor(@Inject(SCAN_SCOPE_LOCK) private readonly scopes: ScanScopeLock) {}

  /** Release `run.scope` held by `run.scanId` (nothing when the run holds no scope). */
  async release(run: { scanId: string; scope: string | undefined }): Promise<void> {
    if (!run.scope) return;
    await this.scopes.release(run.scope, run.scanId).catch((e: unknown) =>
      this.logger.warn(
        `scan ${run.scanId}: scope lock ${run.scope} not released (it expires with its TTL): ${e instanceof Error ? e.message : String(e)}`,
      ),
    );
  }
}
