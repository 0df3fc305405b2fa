import { targetKey } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { isPermanentError } from '@app/errors';
import { type JobName, type JobResults } from '@app/queue';
import { Store } from '@app/store';
import { CrawlTargetService } from '../scan/crawl-target.service';
import { CrawlTargetCommand } from './scan-job.commands';


/**
 * `crawl-target` jobs: parse the payload, crawl the target (STYLE.md E.19: thin). When the last
 * attempt fails, the target is marked `failed` with the reason, so progress shows it at once (the
 * analysis also learns it from BullMQ's ignored child failures).
 */
@Injectable()
export class CrawlTargetProcessor {
  constructor(
    private readonly service: CrawlTargetService,
    private readonly store: Store,
  ) {}

  /** @throws UnrecoverableError for an invalid payload; the crawl's error (retried) */
  async process(job: Job, signal?: AbortSignal): Promise<JobResults[JobName.CrawlTarget]> {
    const cmd = CrawlTargetCommand.create(job.data);
    try {
      return await this.service.crawl(cmd, signal).catch((e: unknown) => {
        // Errors marked permanent (libs/errors: a target the config does not name, an unset
        // credentials variable, ...) do not heal by retrying.
        if (e instanceof Error && isPermanentError(e)) throw new UnrecoverableError(`${e.name}: ${e.message}`);
        throw e;
      });
    } catch (e) {
      const last = e instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (last && !signal?.aborted) {
        const reason = e instanceof Error ? e.message : String(e);
        await this.store.scanTargets
          .markFailed(cmd.scanId, [{ key: targetKey(cmd.target), target: cmd.target, error: reason }])
          .catch(() => undefined);
      }
      throw e;
    }
  }
}
