import { Injectable } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { isPermanentError } from '@app/errors';
import type { JobName, JobResults } from '@app/queue';
import { PlanScanService } from '../scan/plan-scan.service';
import { PlanScanCommand } from './scan-job.commands';

/** `plan-scan` jobs: parse the payload, plan the scan (STYLE.md E.19: thin). */
@Injectable()
export class PlanScanProcessor {
  constructor(private readonly service: PlanScanService) {}

  /**
   * @throws UnrecoverableError for an invalid payload or an unset credentials env variable (no
   *   retry can fix either); Redis / Postgres errors (retried)
   */
  process(job: Job): Promise<JobResults[JobName.PlanScan]> {
    return this.service.plan(PlanScanCommand.create(job.data)).catch((e: unknown) => {
      // Permanent errors (libs/errors: an unset credentials variable, a scan row that is gone) fail at once.
      if (e instanceof Error && isPermanentError(e))
        throw new UnrecoverableError(`${e.name}: ${e.message}`);
      throw e;
    });
  }
}
