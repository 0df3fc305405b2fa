import { Inject, Injectable } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { WeeklyReportService, type WeeklyReportResult } from '@app/reports';
import { Store } from '@app/store';
import type { ResolvedWorkerOptions } from '../worker.options';
import { REPORT_SCHEDULE_CRON, WORKER_OPTIONS } from '../worker.constants';
import { WorkerCron, type WorkerCronSchedule } from './worker-cron.util';

/** The period key of a tick: its time truncated to the minute (every worker firing the tick agrees on it). */
export function reportPeriodKey(tick: Date): string {
  return new Date(Math.floor(tick.getTime() / 60_000) * 60_000).toISOString();
}

/**
 * The weekly compliance report: a dynamic cron in @nestjs/schedule's registry (the expression
 * comes from configuration; default Monday 06:00, in UTC). Every worker runs it; the report row of the
 * tick's period is claimed in PostgreSQL first, so exactly one worker builds, stores and delivers it.
 */
@Injectable()
export class ReportScheduleCron extends WorkerCron {
  private readonly service: WeeklyReportService;

  constructor(@Inject(WORKER_OPTIONS) options: ResolvedWorkerOptions, registry: SchedulerRegistry, store: Store) {
    super(options, registry, REPORT_SCHEDULE_CRON);
    this.service = new WeeklyReportService(store, (m) => this.logger.warn(m));
  }

  /** REPORT_SCHEDULE in UTC, ticking at the system time; null when disabled. */
  protected schedule(): WorkerCronSchedule | null {
    const cronTime = this.options.reports.schedule;
    return cronTime === false ? null : { cronTime, timeZone: 'UTC', onTick: () => this.runTick(new Date()), what: 'weekly report' };
  }

  /** One tick: build (if this worker claims the period), store and deliver. */
  async runTick(at: Date): Promise<WeeklyReportResult> {
    const r = this.options.reports;
    const result = await this.service.runForPeriod(reportPeriodKey(at), {
      now: at,
      ...(r.accounts ? { accounts: r.accounts } : {}),
      ...(r.webhook ? { webhook: r.webhook } : {}),
      ...(r.chats ? { chats: r.chats } : {}),
    });
    if (result.status === 'built') this.logger.log(`weekly report ${result.reportId} built (delivery: ${result.delivery})`);
    return result;
  }
}
