import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  scheduledScanId,
  type DistributedScanClient,
  type DistributedScanSource,
  type ScanScopeLock,
} from '@app/queue';
import { Store } from '@app/store';
import type { ResolvedWorkerOptions } from '../worker.options';
import { SCAN_CLIENT, SCAN_SCOPE_LOCK, WORKER_OPTIONS } from '../worker.constants';

/** What one scheduled tick did for one source. */
export type ScheduleTickResult =
  { status: 'started'; scanId: string } | { status: 'skipped'; reason: string };

/**
 * Starts scheduled scans (STYLE.md E.22: the cron only enqueues; the plan job fans out per target).
 * Every worker runs the schedule; per source and tick, one scan starts:
 *  - the scan id derives from (source, tick second), so all workers firing a tick agree on it;
 *  - the source's scope lock admits one running scan: a tick while the previous scan of the same
 *    source still runs starts nothing; a lock whose scan is over (its release was lost) is taken over.
 */
@Injectable()
export class ScanSchedulerService {
  private readonly logger = new Logger(ScanSchedulerService.name);

  constructor(
    @Inject(WORKER_OPTIONS) private readonly options: ResolvedWorkerOptions,
    @Inject(SCAN_SCOPE_LOCK) private readonly scopes: ScanScopeLock,
    @Inject(SCAN_CLIENT) private readonly client: DistributedScanClient,
    private readonly store: Store,
  ) {}

  /** One tick for every configured source. Errors are logged per source, never thrown. */
  async tickAll(at: Date): Promise<ScheduleTickResult[]> {
    return Promise.all(
      this.options.sources.map((s) =>
        this.tick(s, at).catch((e: unknown) => {
          const reason = e instanceof Error ? e.message : String(e);
          this.logger.error(`scheduled scan of ${s.name} not started: ${reason}`);
          return { status: 'skipped' as const, reason };
        }),
      ),
    );
  }

  /**
   * Start a scan of `source` for the tick at `at` unless one is running.
   * @throws Redis / Postgres errors
   */
  async tick(source: DistributedScanSource, at: Date): Promise<ScheduleTickResult> {
    const tick = new Date(Math.floor(at.getTime() / 1000) * 1000);
    const scanId = scheduledScanId(source.name, tick);
    const ttl = this.options.scopeLockTtlMs;
    const lock = await this.scopes.acquire(source.name, scanId, ttl);
    if (!lock.acquired) {
      if (lock.holder === scanId) return { status: 'skipped', reason: 'another worker started this tick' };
      const holder = lock.holder ? await this.store.scans.get(lock.holder) : null;
      if (holder?.status === 'running')
        return { status: 'skipped', reason: `scan ${holder.id} of ${source.name} is still running` };
      // The holder ended without releasing (or never got its row): take the scope over.
      if (!(await this.scopes.takeOver(source.name, lock.holder, scanId, ttl))) {
        return { status: 'skipped', reason: 'another worker took the scope' };
      }
    }
    await this.client.submit({
      config: source.config,
      scanId,
      scope: source.name,
      ...(this.options.settings ? { settings: this.options.settings } : {}),
    });
    this.logger.log(`scheduled scan ${scanId} of ${source.name} started`);
    return { status: 'started', scanId };
  }
}
