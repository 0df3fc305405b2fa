/**
 * Public entry of apps/worker (`@app/worker`): start a worker in-process (`startWorker`), its
 * options and environment config, and the services tests reach through the app context.
 */
export { startWorker, type RunningWorker } from './worker-app.factory';
export {
  DEFAULT_SCAN_SCHEDULE,
  resolveWorkerOptions,
  type WorkerOptions,
  type ResolvedWorkerOptions,
} from './worker.options';
export {
  loadWorkerConfig,
  workerOptionsFromConfig,
  type WorkerConfig,
  type WorkerConfigOverrides,
} from './worker-config';
export { WorkerModule, type WorkerModuleAdapters } from './worker.module';
export { ScanSchedulerService, type ScheduleTickResult } from './schedule/scan-scheduler.service';
export { ScanReconcilerService, type ReconcileAction } from './schedule/scan-reconciler.service';
export { SCAN_SCHEDULE_CRON } from './worker.constants';
export { CRAWL_FAILED_CODE } from './scan/analyze-scan.service';
export { PlanScanService, planTargets } from './scan/plan-scan.service';
export { CrawlTargetService } from './scan/crawl-target.service';
export { AnalyzeScanService } from './scan/analyze-scan.service';
export { AnalyzeShardService } from './scan/analyze-shard.service';
export { CompleteScanService, SHARD_FAILED_CODE } from './scan/complete-scan.service';
export { configOfShard, shardsOf, snapshotOfTargets, splitTargets, type SplitTargets } from './scan/scan-slices.util';
export { PlanScanCommand, CrawlTargetCommand, AnalyzeScanCommand, AnalyzeShardCommand, CompleteScanCommand } from './jobs/scan-job.commands';
