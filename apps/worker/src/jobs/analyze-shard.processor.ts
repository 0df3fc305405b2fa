import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { JobName, JobResults } from '@app/queue';
import { AnalyzeShardService } from '../scan/analyze-shard.service';
import { runJob } from './job-error.util';
import { AnalyzeShardCommand } from './scan-job.commands';

/** `analyze-shard` jobs (children of complete-scan): parse the payload, analyze the shard (STYLE.md E.19: thin). */
@Injectable()
export class AnalyzeShardProcessor {
  constructor(private readonly service: AnalyzeShardService) {}

  /**
   * @throws UnrecoverableError for an invalid payload or a permanent error (see job-error.util);
   *   Postgres errors (retried)
   */
  async process(job: Job): Promise<JobResults[JobName.AnalyzeShard]> {
    const cmd = AnalyzeShardCommand.create(job.data);
    return runJob(async () => this.service.analyze(cmd));
  }
}
