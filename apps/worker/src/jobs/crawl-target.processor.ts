import { targetKey } from '@app/domain';
import { Injectable, Logger } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { type JobName, type JobResults } from '@app/queue';
import { Store } from '@app/store';
import { CrawlTargetService } from '../scan/crawl-target.service';
import { runJob } from './job-error.util';
import { CrawlDeadlineCommand, CrawlTargetCommand } from './scan-job.commands';

/**
 * `crawl-target` jobs: parse the payload, crawl the target (STYLE.md E.19: thin). When the last
 * attempt fails, the target is marked `failed` with the reason, so progress shows it at once (the
 * analysis also learns it from BullMQ's ignored child failures).
 */
@Injectable()
export class CrawlTargetProcessor {
  private readonly logger = new Logger(CrawlTargetProcessor.name);

  constructor(
    private readonly service: CrawlTargetService,
    private readonly store: Store,
  ) {}

  /**
   * @throws UnrecoverableError for an invalid payload or a permanent error (libs/errors: a target
   *   the config does not name, an unset credentials variable, ...; see job-error.util); the
   *   crawl's other errors (retried)
   */
  async process(job: Job, signal?: AbortSignal): Promise<JobResults[JobName.CrawlTarget]> {
    const cmd = CrawlTargetCommand.create(job.data);
    try {
      return await runJob(() => this.service.crawl(cmd, signal));
    } catch (e) {
      const last = e instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (last && !signal?.aborted) {
        const reason = e instanceof Error ? e.message : String(e);
        await this.store.scanTargets
          .markFailed(cmd.scanId, [{ key: targetKey(cmd.target), target: cmd.target, error: reason }])
          .catch((markError: unknown) =>
            // The job's failure is what BullMQ records; the analysis learns it from the ignored
            // child failures even without the target row.
            this.logger.warn(`scan ${cmd.scanId}: target ${targetKey(cmd.target)} not marked failed: ${markError instanceof Error ? markError.message : String(markError)}`),
          );
      }
      throw e;
    }
  }

  /**
   * `crawl-deadline` jobs: a pool crawl's bounded wait (CrawlTargetService.deadline).
   * @throws UnrecoverableError for an invalid payload; Redis / Postgres errors (retried)
   */
  async deadline(job: Job): Promise<JobResults[JobName.CrawlDeadline]> {
    const cmd = CrawlDeadlineCommand.create(job.data);
    return runJob(() => this.service.deadline(cmd));
  }
}
