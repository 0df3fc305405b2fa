import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { JobName, JobResults } from '@app/queue';
import { PlanScanService } from '../scan/plan-scan.service';
import { runJob } from './job-error.util';
import { PlanScanCommand } from './scan-job.commands';

/** `plan-scan` jobs: parse the payload, plan the scan (STYLE.md E.19: thin). */
@Injectable()
export class PlanScanProcessor {
  constructor(private readonly service: PlanScanService) {}

  /**
   * @throws UnrecoverableError for an invalid payload or a permanent error (libs/errors: an unset
   *   credentials variable, a scan row that is gone; see job-error.util); Redis / Postgres errors (retried)
   */
  process(job: Job): Promise<JobResults[JobName.PlanScan]> {
    return runJob(() => this.service.plan(PlanScanCommand.create(job.data)));
  }
}
