import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { ResolvedWorkerOptions } from '../worker.options';
import { WORKER_OPTIONS } from '../worker.constants';
import { ScanSchedulerService } from './scan-scheduler.service';
import { startWorkerCron, stopWorkerCron } from './worker-cron.util';

/** Name of the schedule in @nestjs/schedule's registry. */
export const SCAN_SCHEDULE_CRON = 'scan-schedule';

/**
 * The configurable scan schedule: a dynamic cron registered in @nestjs/schedule's
 * `SchedulerRegistry` (the expression comes from configuration, so the static `@Cron()` decorator
 * cannot carry it; NestJS docs "Task scheduling: dynamic cron jobs"). Each tick asks the scheduler
 * service to start the configured sources' scans for the time of `options.clock` (the system clock
 * unless a test passes a virtual one); a tick is skipped while the previous one still runs
 * (`waitForCompletion`).
 */
@Injectable()
export class ScanScheduleCron implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ScanScheduleCron.name);

  constructor(
    @Inject(WORKER_OPTIONS) private readonly options: ResolvedWorkerOptions,
    private readonly registry: SchedulerRegistry,
    private readonly scheduler: ScanSchedulerService,
  ) {}

  /**
   * Register and start the cron when a schedule and at least one source are configured.
   * @throws Error for an invalid cron expression
   */
  onApplicationBootstrap(): void {
    if (this.options.schedule === false || this.options.sources.length === 0) return;
    startWorkerCron(this.registry, {
      name: SCAN_SCHEDULE_CRON,
      cronTime: this.options.schedule,
      onTick: () => this.scheduler.tickAll(this.options.clock()),
      logger: this.logger,
      what: 'scan schedule',
    });
  }

  /** Stop the cron first thing on shutdown (no tick while the workers drain). */
  onModuleDestroy(): void {
    stopWorkerCron(this.registry, SCAN_SCHEDULE_CRON);
  }
}
