import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { JobName, JobResults } from '@app/queue';
import { AnalyzeScanService } from '../scan/analyze-scan.service';
import { runJob } from './job-error.util';
import { AnalyzeScanCommand } from './scan-job.commands';

/**
 * `analyze-scan` jobs (the flow parent): parse the payload, collect why children failed, analyze
 * (STYLE.md E.19: thin).
 */
@Injectable()
export class AnalyzeScanProcessor {
  constructor(private readonly service: AnalyzeScanService) {}

  /**
   * @throws UnrecoverableError for an invalid payload or a permanent error (see job-error.util);
   *   Redis / Postgres errors (retried)
   */
  async process(job: Job): Promise<JobResults[JobName.AnalyzeScan]> {
    const cmd = AnalyzeScanCommand.create(job.data);
    return runJob(async () => this.service.analyze(cmd, failuresByJobId(await job.getIgnoredChildrenFailures())));
  }
}

/**
 * BullMQ keys ignored child failures by job key (`<prefix>:<queue>:<jobId>`); our job ids contain
 * no `:` (BullMQ forbids it), so the id is what follows the last one.
 */
export function failuresByJobId(byKey: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(byKey).map(([key, reason]) => [key.slice(key.lastIndexOf(':') + 1), reason]));
}
