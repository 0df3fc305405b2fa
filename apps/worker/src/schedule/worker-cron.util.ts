import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { SchedulerRegistry } from '@nestjs/schedule';
import { CronJob } from 'cron';
import type { ResolvedWorkerOptions } from '../worker.options';

/** One configurable worker cron: its registry name, its expression and what a tick does. */
export interface WorkerCronSpec {
  /** Name in @nestjs/schedule's `SchedulerRegistry` (unique per worker). */
  name: string;
  /** Cron expression with seconds (six fields), as validated by libs/config. */
  cronTime: string;
  /** IANA time zone of the expression; undefined: the process's own (the scan schedule's historical default). */
  timeZone?: string;
  /** What one tick does; a tick is skipped while the previous one still runs (`waitForCompletion`). */
  onTick: () => Promise<unknown>;
  /** Logs a failed tick as `<what> tick failed: <message>`; the cron keeps running. */
  logger: Logger;
  /** What the cron does, for the failure line (e.g. `retention`). */
  what: string;
}

/**
 * Registers and starts a dynamic cron in @nestjs/schedule's registry: the expression comes from configuration, so
 * the static `@Cron()` decorator cannot carry it (NestJS docs "Task scheduling: dynamic cron jobs"). Used by the
 * scan schedule, the weekly report and retention, which each decide themselves whether they are enabled.
 * @throws Error for an invalid cron expression (from `cron`)
 */
export function startWorkerCron(registry: SchedulerRegistry, spec: WorkerCronSpec): void {
  const job = CronJob.from({
    cronTime: spec.cronTime,
    ...(spec.timeZone !== undefined ? { timeZone: spec.timeZone } : {}),
    onTick: async () => {
      await spec.onTick();
    },
    waitForCompletion: true,
    errorHandler: (e: unknown) =>
      spec.logger.error(`${spec.what} tick failed: ${e instanceof Error ? e.message : String(e)}`),
    start: false,
  });
  registry.addCronJob(spec.name, job);
  job.start();
}

/** Stops and removes the cron `name` if it was registered (shutdown: no tick while the worker drains). */
export function stopWorkerCron(registry: SchedulerRegistry, name: string): void {
  if (registry.doesExist('cron', name)) registry.deleteCronJob(name);
}

/** What a `WorkerCron` subclass configures: the expression, its time zone, the tick and its name in failure lines. */
export type WorkerCronSchedule = Omit<WorkerCronSpec, 'name' | 'logger'>;

/**
 * A configurable worker cron as a Nest provider (the scan schedule, the weekly report, retention): registered and
 * started at bootstrap when configured, stopped first thing on shutdown (no tick while the worker drains). A subclass
 * says whether it is enabled and what a tick does (`schedule`); its logger is named after the subclass.
 */
export abstract class WorkerCron implements OnApplicationBootstrap, OnModuleDestroy {
  protected readonly logger = new Logger(this.constructor.name);

  /**
   * @param options the worker's resolved options (each cron reads its own settings)
   * @param registry @nestjs/schedule's registry the cron is added to
   * @param cronName the cron's name in that registry (unique per worker)
   */
  protected constructor(
    protected readonly options: ResolvedWorkerOptions,
    private readonly registry: SchedulerRegistry,
    private readonly cronName: string,
  ) {}

  /** The cron to run, or null when configuration disables it. */
  protected abstract schedule(): WorkerCronSchedule | null;

  /** Register and start the cron unless disabled. @throws Error for an invalid cron expression */
  onApplicationBootstrap(): void {
    const schedule = this.schedule();
    if (schedule) startWorkerCron(this.registry, { name: this.cronName, ...schedule, logger: this.logger });
  }

  /** Stop the cron on shutdown. */
  onModuleDestroy(): void {
    stopWorkerCron(this.registry, this.cronName);
  }
}
