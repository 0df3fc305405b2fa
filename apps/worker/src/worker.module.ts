import { type DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import type { DistributedScanClient, ScanJobQueue, ScanScopeLock } from '@app/queue';
import { Store } from '@app/store';
import { AnalyzeScanProcessor } from './jobs/analyze-scan.processor';
import { CrawlTargetProcessor } from './jobs/crawl-target.processor';
import { PlanScanProcessor } from './jobs/plan-scan.processor';
import { ScanWorkersHost } from './jobs/scan-workers.host';
import { AnalyzeScanService } from './scan/analyze-scan.service';
import { AnalyzeShardService } from './scan/analyze-shard.service';
import { CompleteScanService } from './scan/complete-scan.service';
import { ScanScopeRelease } from './scan/scan-scope.release';
import { AnalyzeShardProcessor } from './jobs/analyze-shard.processor';
import { CompleteScanProcessor } from './jobs/complete-scan.processor';
import { CrawlCredentialsProvider } from './scan/crawl-credentials.provider';
import { CrawlTargetService } from './scan/crawl-target.service';
import { PlanScanService } from './scan/plan-scan.service';
import type { RateLimiterFactory } from './scan/rate-limiter.factory';
import { ScanReconcilerService } from './schedule/scan-reconciler.service';
import { ScanScheduleCron } from './schedule/scan-schedule.cron';
import { ReportScheduleCron } from './schedule/report-schedule.cron';
import { RetentionScheduleCron } from './schedule/retention-schedule.cron';
import { ScanSchedulerService } from './schedule/scan-scheduler.service';
import {
  SCAN_CLIENT,
  SCAN_JOB_QUEUE,
  SCAN_RATE_LIMITER,
  SCAN_RATE_LIMITER_CONTROL,
  SCAN_SCOPE_LOCK,
  WORKER_OPTIONS,
} from './worker.constants';
import type { ResolvedWorkerOptions } from './worker.options';

/** The adapters a worker module is built around (created and closed by `startWorker`). */
export interface WorkerModuleAdapters {
  options: ResolvedWorkerOptions;
  store: Store;
  queue: ScanJobQueue;
  rateLimiterFor: RateLimiterFactory;
  /**
   * Rejects calls waiting for API budget and gives back the Redis concurrency slots they held, so
   * other workers get them at once (used when a shutdown outlasts its grace period).
   */
  rateLimiterControl: { dropWaiting(): Promise<void> };
  scopes: ScanScopeLock;
  client: DistributedScanClient;
}

/**
 * The worker: BullMQ processors of the plan, crawl, analyze and shard queues, the scan schedule
 * (@nestjs/schedule) and the lost-job reconciler. A dynamic module: the composition root hands in
 * the adapters (store, queue, limiter, locks), so tests build it around real ones.
 */
@Module({})
export class WorkerModule {
  /** The module around the given adapters. */
  static register(adapters: WorkerModuleAdapters): DynamicModule {
    return {
      module: WorkerModule,
      imports: [ScheduleModule.forRoot()],
      providers: [
        { provide: WORKER_OPTIONS, useValue: adapters.options },
        { provide: Store, useValue: adapters.store },
        { provide: SCAN_JOB_QUEUE, useValue: adapters.queue },
        { provide: SCAN_RATE_LIMITER, useValue: adapters.rateLimiterFor },
        { provide: SCAN_RATE_LIMITER_CONTROL, useValue: adapters.rateLimiterControl },
        { provide: SCAN_SCOPE_LOCK, useValue: adapters.scopes },
        { provide: SCAN_CLIENT, useValue: adapters.client },
        CrawlCredentialsProvider,
        PlanScanService,
        CrawlTargetService,
        AnalyzeScanService,
        AnalyzeShardService,
        CompleteScanService,
        ScanScopeRelease,
        PlanScanProcessor,
        CrawlTargetProcessor,
        AnalyzeScanProcessor,
        AnalyzeShardProcessor,
        CompleteScanProcessor,
        ScanWorkersHost,
        ScanSchedulerService,
        ScanScheduleCron,
        ReportScheduleCron,
        RetentionScheduleCron,
        ScanReconcilerService,
      ],
    };
  }
}
