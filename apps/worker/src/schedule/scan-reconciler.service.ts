import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { judgeScanJobs, runOptionsOfScanRow, type ScanJobQueue, type ScanScopeLock } from '@app/queue';
import { Store, StoreError, type RunningScanRef } from '@app/store';
import type { ResolvedWorkerOptions } from '../worker.options';
import { SCAN_JOB_QUEUE, SCAN_RECONCILE_INTERVAL, SCAN_SCOPE_LOCK, WORKER_OPTIONS } from '../worker.constants';

/** What one pass did per scan (for logs and tests). */
export interface ReconcileAction {
  scanId: string;
  action: 'failed' | 'replanned' | 'lost' | 'alive';
  reason?: string;
}

/**
 * No scan stays `running` for ever. Periodically, for every distributed scan still running:
 *  - its analyze job (or its plan job, before the flow existed) failed for good, or stalled out
 *    with its worker -> the scan is marked failed with that reason;
 *  - Redis holds none of its jobs (Redis restarted empty, keys flushed) -> when this worker knows
 *    the scan's source (by fleet name) it enqueues the plan job again (same id: workers elsewhere
 *    may do the same, harmlessly); crawls skip targets already read. A scan of a source nobody
 *    here knows (started ad hoc from a CLI that is watching it itself) is failed once it stayed
 *    lost for `failLostAfterMs`.
 * Every worker runs it; all its actions are idempotent.
 */
@Injectable()
export class ScanReconcilerService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ScanReconcilerService.name);
  /** First time each scan was seen lost (ms since epoch). */
  private readonly lostSince = new Map<string, number>();
  private running: Promise<unknown> | undefined;

  constructor(
    @Inject(WORKER_OPTIONS) private readonly options: ResolvedWorkerOptions,
    @Inject(SCAN_JOB_QUEUE) private readonly queue: ScanJobQueue,
    @Inject(SCAN_SCOPE_LOCK) private readonly scopes: ScanScopeLock,
    private readonly store: Store,
    private readonly registry: SchedulerRegistry,
  ) {}

  /** Start the periodic pass (when enabled). */
  onApplicationBootstrap(): void {
    const r = this.options.reconcile;
    if (r === false) return;
    const handle = setInterval(() => {
      if (this.running) return;
      this.running = this.reconcileOnce()
        .catch((e: unknown) =>
          this.logger.warn(`reconcile pass failed: ${e instanceof Error ? e.message : String(e)}`),
        )
        .finally(() => (this.running = undefined));
    }, r.intervalMs);
    handle.unref();
    this.registry.addInterval(SCAN_RECONCILE_INTERVAL, handle);
  }

  /** Stop the interval and wait for a pass in progress. */
  async onModuleDestroy(): Promise<void> {
    if (this.registry.doesExist('interval', SCAN_RECONCILE_INTERVAL))
      this.registry.deleteInterval(SCAN_RECONCILE_INTERVAL);
    await this.running;
  }

  /**
   * One pass over the running distributed scans older than the grace period.
   * @throws Postgres errors; Redis errors of one scan skip that scan
   */
  async reconcileOnce(now: Date = new Date()): Promise<ReconcileAction[]> {
    const r = this.options.reconcile === false ? { graceMs: 0, failLostAfterMs: 0 } : this.options.reconcile;
    const scans = await this.store.scanTargets.listRunningDistributed(new Date(now.getTime() - r.graceMs));
    const actions: ReconcileAction[] = [];
    for (const scan of scans) {
      const action = await this.reconcileScan(scan, now.getTime(), r.failLostAfterMs).catch((e: unknown) => {
        // One scan's failure (Redis or PostgreSQL unreachable) must not stop the others; the next pass retries it.
        this.logger.warn(`reconcile of scan ${scan.id} failed (retried next pass): ${e instanceof Error ? e.message : String(e)}`);
        return undefined;
      });
      if (action) actions.push(action);
    }
    const seen = new Set(scans.map((s) => s.id));
    for (const id of this.lostSince.keys()) if (!seen.has(id)) this.lostSince.delete(id);
    return actions;
  }

  private async reconcileScan(
    scan: RunningScanRef,
    now: number,
    failLostAfterMs: number,
  ): Promise<ReconcileAction> {
    const verdict = judgeScanJobs(await this.queue.scanJobsState(scan.id));
    if (verdict.kind === 'alive') {
      this.lostSince.delete(scan.id);
      return { scanId: scan.id, action: 'alive' };
    }
    if (verdict.kind === 'failed') return this.fail(scan, verdict.reason);

    const source = this.options.sources.find((s) => s.name === scan.fleetName);
    if (source) {
      // Redis lost the scope lock too (if it held one): take it again for this scan when free.
      const lock = await this.scopes.acquire(source.name, scan.id, this.options.scopeLockTtlMs);
      const holdsScope = lock.acquired || lock.holder === scan.id;
      await this.queue.enqueuePlan({
        scanId: scan.id,
        config: source.config,
        // The clock and audit settings the scan was started with (kept in its row).
        ...runOptionsOfScanRow(scan.settings),
        ...(holdsScope ? { scope: source.name } : {}),
      });
      this.lostSince.delete(scan.id);
      this.logger.warn(`scan ${scan.id} of ${source.name} had no jobs left in Redis: planned again`);
      return { scanId: scan.id, action: 'replanned' };
    }
    const since = this.lostSince.get(scan.id) ?? now;
    this.lostSince.set(scan.id, since);
    if (now - since < failLostAfterMs) return { scanId: scan.id, action: 'lost' };
    return this.fail(
      scan,
      `the queue lost this scan's jobs (Redis restarted or was flushed) and no worker has the scan config of "${scan.fleetName ?? ''}"; start the scan again`,
    );
  }

  private async fail(scan: RunningScanRef, reason: string): Promise<ReconcileAction> {
    try {
      await this.store.scans.fail(scan.id, reason);
    } catch (e) {
      // Completed meanwhile: nothing to do.
      if (!(e instanceof StoreError && e.code === 'CONFLICT')) throw e;
    }
    if (scan.fleetName)
      await this.scopes.release(scan.fleetName, scan.id).catch((e: unknown) =>
        this.logger.warn(`scan ${scan.id}: scope lock ${scan.fleetName ?? ''} not released (it expires with its TTL): ${e instanceof Error ? e.message : String(e)}`),
      );
    this.lostSince.delete(scan.id);
    this.logger.warn(`scan ${scan.id} failed: ${reason}`);
    return { scanId: scan.id, action: 'failed', reason };
  }
}
