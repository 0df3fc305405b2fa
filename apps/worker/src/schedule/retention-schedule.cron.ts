import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Store, type RetentionRunResult } from '@app/store';
import type { ResolvedWorkerOptions } from '../worker.options';
import { WORKER_OPTIONS } from '../worker.constants';
import { startWorkerCron, stopWorkerCron } from './worker-cron.util';

/** Name of the retention cron in @nestjs/schedule's registry. */
export const RETENTION_SCHEDULE_CRON = 'retention';

/**
 * Retention (issue 22 item 1): a dynamic cron in @nestjs/schedule's registry (RETENTION_SCHEDULE, UTC; off unless
 * configured). Every worker runs the tick; the store's advisory lock lets one of them thin the store at a time, the
 * others return `skipped`. The run removes scans one at a time in bounded DELETE batches (libs/store RetentionService).
 */
@Injectable()
export class RetentionScheduleCron implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RetentionScheduleCron.name);

  constructor(
    @Inject(WORKER_OPTIONS) private readonly options: ResolvedWorkerOptions,
    private readonly registry: SchedulerRegistry,
    private readonly store: Store,
  ) {}

  /** Register and start the cron unless disabled. @throws Error for an invalid cron expression */
  onApplicationBootstrap(): void {
    const schedule = this.options.retention.schedule;
    if (schedule === false) return;
    startWorkerCron(this.registry, {
      name: RETENTION_SCHEDULE_CRON,
      cronTime: schedule,
      timeZone: 'UTC',
      onTick: () => this.runTick(this.options.clock()),
      logger: this.logger,
      what: 'retention',
    });
  }

  /** One tick at `at` (the clock scan ages are measured from). */
  async runTick(at: Date): Promise<RetentionRunResult> {
    const r = this.options.retention;
    const result = await this.store.retention.run({ now: at, policy: r.policy, batchRows: r.batchRows });
    if (result.status === 'done' && (result.scansPruned > 0 || result.scansDeleted > 0)) {
      this.logger.log(`retention: ${result.scansPruned} scans pruned, ${result.scansDeleted} deleted, database ${result.databaseBytesBefore} -> ${result.databaseBytesAfter} bytes`);
    }
    return result;
  }

  /** Stop the cron on shutdown. */
  onModuleDestroy(): void {
    stopWorkerCron(this.registry, RETENTION_SCHEDULE_CRON);
  }
}
