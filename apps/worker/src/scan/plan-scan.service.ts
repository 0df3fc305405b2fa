import { targetKey } from '@app/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { logScanStarted, nestScanEventSink } from '@app/telemetry';
import type { CrawlTarget } from '@app/collectors';
import { scanRowSettings, type JobResults, type JobName, type ScanJobQueue } from '@app/queue';
import { Store } from '@app/store';
import { payloads, type PlanScanCommand } from '../jobs/scan-job.commands';
import { SCAN_JOB_QUEUE } from '../worker.constants';
import { CrawlCredentialsProvider } from './crawl-credentials.provider';

/**
 * Plans a scan: creates its row (idempotent by id), records its account and (account, region)
 * targets as pending, and adds the flow (analyze job + one crawl job per target). Clusters are
 * found by the region crawls, which add their own crawl jobs to the same flow.
 *
 * Idempotent: the row, the target rows and every job id derive from the scan id, so a retried or
 * duplicated plan job adds nothing new.
 */
@Injectable()
export class PlanScanService {
  private readonly logger = new Logger(PlanScanService.name);

  constructor(
    private readonly store: Store,
    @Inject(SCAN_JOB_QUEUE) private readonly queue: ScanJobQueue,
    private readonly credentials: CrawlCredentialsProvider,
  ) {}

  /**
   * Plan one scan; `skipped` when the scan already ended.
   * @throws CredentialsConfigError when a credentials env variable is unset or the job names a
   *   credentials source this worker does not have (the processor makes it unrecoverable);
   *   Redis / Postgres errors (retried)
   */
  async plan(cmd: PlanScanCommand): Promise<JobResults[JobName.PlanScan]> {
    const scan = await this.store.scans.create({
      id: cmd.scanId,
      source: 'distributed',
      fleetName: cmd.config.name,
      settings: scanRowSettings(cmd.settings, cmd.now),
    });
    if (scan.status !== 'running')
      return { status: 'skipped', reason: `scan ${cmd.scanId} already ${scan.status}` };
    const targets = planTargets(cmd);
    await this.store.scanTargets.ensurePending(
      cmd.scanId,
      targets.map((target) => ({ key: targetKey(target), target })),
    );
    const baseAccountId = await this.credentials.baseAccountOf(cmd.config, cmd.credentialsSource);
    await this.queue.addScanFlow(
      payloads.analyze(cmd),
      targets.map((t) => payloads.crawl(cmd.scanId, t, cmd.config, baseAccountId, cmd.credentialsSource)),
    );
    logScanStarted(nestScanEventSink(this.logger), { scanId: cmd.scanId, fleet: cmd.config.name, source: 'distributed' });
    return { status: 'done', targets: targets.length };
  }
}

/** Every account (its RAM) and every configured (account, region), in config order, regions sorted and unique. */
export function planTargets(cmd: Pick<PlanScanCommand, 'config'>): CrawlTarget[] {
  // Keyed: an account listed twice yields its targets once (one job id, one row each).
  const out = new Map<string, CrawlTarget>();
  const add = (t: CrawlTarget) => {
    if (!out.has(targetKey(t))) out.set(targetKey(t), t);
  };
  for (const a of cmd.config.accounts) {
    add({ kind: 'account', accountId: a.accountId });
    for (const regionId of [...new Set(a.regions)].sort())
      add({ kind: 'region', accountId: a.accountId, regionId });
  }
  return [...out.values()];
}
