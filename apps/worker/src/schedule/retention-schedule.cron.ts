import { Inject, Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Store, type RetentionRunResult } from '@app/store';
import type { ResolvedWorkerOptions } from '../worker.options';
import { RETENTION_SCHEDULE_CRON, WORKER_OPTIONS } from '../worker.constants';
import { WorkerCron, type WorkerCronSchedule } from './worker-cron.util';

/**
 * Retention: a dynamic cron in @nestjs/schedule's registry (RETENTION_SCHEDULE, UTC; off unless
 * configured). Every worker runs the tick; the store's advisory lock lets one of them thin the store at a time, the
 * others return `skipped`. The run removes scans one at a time in bounded DELETE batches (libs/store RetentionService).
 */
@Injectable()
export class RetentionScheduleCron extends WorkerCron {
  constructor(@Inject(WORKER_OPTIONS) options: ResolvedWorkerOptions, registry: SchedulerRegistry, private readonly store: Store) {
    super(options, registry, RETENTION_SCHEDULE_CRON);
  }

  /** RETENTION_SCHEDULE in UTC, ticking at the options' clock; null when not configured. */
  protected schedule(): WorkerCronSchedule | null {
    const cronTime = this.options.retention.schedule;
    return cronTime === false ? null : { cronTime, timeZone: 'UTC', onTick: () => this.runTick(this.options.clock()), what: 'retention' };
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
}
