import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { JobName, JobResults } from '@app/queue';
import { CompleteScanService } from '../scan/complete-scan.service';
import { failuresByJobId } from './analyze-scan.processor';
import { runJob } from './job-error.util';
import { CompleteScanCommand } from './scan-job.commands';

/**
 * `complete-scan` jobs (the parent of a sharded analysis's flow): parse the payload, collect why shards
 * failed, complete the scan (STYLE.md E.19: thin).
 */
@Injectable()
export class CompleteScanProcessor {
  constructor(private readonly service: CompleteScanService) {}

  /**
   * @throws UnrecoverableError for an invalid payload or a permanent error (see job-error.util);
   *   Redis / Postgres errors (retried)
   */
  async process(job: Job): Promise<JobResults[JobName.CompleteScan]> {
    const cmd = CompleteScanCommand.create(job.data);
    return runJob(async () => this.service.complete(cmd, failuresByJobId(await job.getIgnoredChildrenFailures())));
  }
}
