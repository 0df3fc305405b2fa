import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { WeeklyReportService, type WeeklyReportResult } from '@app/reports';
import { Store } from '@app/store';
import type { ResolvedWorkerOptions } from '../worker.options';
import { WORKER_OPTIONS } from '../worker.constants';
import { startWorkerCron, stopWorkerCron } from './worker-cron.util';

/** Name of the weekly report cron in @nestjs/schedule's registry. */
export const REPORT_SCHEDULE_CRON = 'weekly-report';

/** The period key of a tick: its time truncated to the minute (every worker firing the tick agrees on it). */
export function reportPeriodKey(tick: Date): string {
  return new Date(Math.floor(tick.getTime() / 60_000) * 60_000).toISOString();
}

/**
 * The weekly compliance report (issue 12): a dynamic cron in @nestjs/schedule's registry (the expression
 * comes from configuration; default Monday 06:00, in UTC). Every worker runs it; the report row of the
 * tick's period is claimed in PostgreSQL first, so exactly one worker builds, stores and delivers it.
 */
@Injectable()
export class ReportScheduleCron implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ReportScheduleCron.name);
  private readonly service: WeeklyReportService;

  constructor(
    @Inject(WORKER_OPTIONS) private readonly options: ResolvedWorkerOptions,
    private readonly registry: SchedulerRegistry,
    store: Store,
  ) {
    this.service = new WeeklyReportService(store, (m) => this.logger.warn(m));
  }

  /** Register and start the cron unless disabled. @throws Error for an invalid cron expression */
  onApplicationBootstrap(): void {
    const schedule = this.options.reports.schedule;
    if (schedule === false) return;
    startWorkerCron(this.registry, {
      name: REPORT_SCHEDULE_CRON,
      cronTime: schedule,
      timeZone: 'UTC',
      onTick: () => this.runTick(new Date()),
      logger: this.logger,
      what: 'weekly report',
    });
  }

  /** One tick: build (if this worker claims the period), store and deliver. */
  async runTick(at: Date): Promise<WeeklyReportResult> {
    const r = this.options.reports;
    const result = await this.service.runForPeriod(reportPeriodKey(at), {
      now: at,
      ...(r.accounts ? { accounts: r.accounts } : {}),
      ...(r.webhook ? { webhook: r.webhook } : {}),
    });
    if (result.status === 'built') this.logger.log(`weekly report ${result.reportId} built (delivery: ${result.delivery})`);
    return result;
  }

  /** Stop the cron on shutdown. */
  onModuleDestroy(): void {
    stopWorkerCron(this.registry, REPORT_SCHEDULE_CRON);
  }
}
