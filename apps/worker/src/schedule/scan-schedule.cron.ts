import { Inject, Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { ResolvedWorkerOptions } from '../worker.options';
import { SCAN_SCHEDULE_CRON, WORKER_OPTIONS } from '../worker.constants';
import { ScanSchedulerService } from './scan-scheduler.service';
import { WorkerCron, type WorkerCronSchedule } from './worker-cron.util';

/**
 * The configurable scan schedule: a dynamic cron registered in @nestjs/schedule's
 * `SchedulerRegistry` (the expression comes from configuration, so the static `@Cron()` decorator
 * cannot carry it; NestJS docs "Task scheduling: dynamic cron jobs"). Each tick asks the scheduler
 * service to start the configured sources' scans for the time of `options.clock` (the system clock
 * unless a test passes a virtual one); a tick is skipped while the previous one still runs
 * (`waitForCompletion`). Stopped first thing on shutdown (no tick while the workers drain).
 */
@Injectable()
export class ScanScheduleCron extends WorkerCron {
  constructor(@Inject(WORKER_OPTIONS) options: ResolvedWorkerOptions, registry: SchedulerRegistry, private readonly scheduler: ScanSchedulerService) {
    super(options, registry, SCAN_SCHEDULE_CRON);
  }

  /** The configured schedule (the process's time zone), or null without a schedule or without sources. */
  protected schedule(): WorkerCronSchedule | null {
    if (this.options.schedule === false || this.options.sources.length === 0) return null;
    return { cronTime: this.options.schedule, onTick: () => this.scheduler.tickAll(this.options.clock()), what: 'scan schedule' };
  }
}
