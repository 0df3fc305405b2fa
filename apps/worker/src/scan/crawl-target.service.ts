import { targetKey, targetLabel, type CoverageEntry } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import {
  crawlTarget,
  failedEntries,
  placeholderDetail,
  slicePartsOf,
  type ClusterEndpointRoute,
  type CrawlTarget,
  type TargetSlice,
} from '@app/collectors';
import { type CrawlDeadlinePayload, type JobName, type JobResults, type ScanJobQueue } from '@app/queue';
import { Store } from '@app/store';
import { payloads, type CrawlDeadlineCommand, type CrawlTargetCommand } from '../jobs/scan-job.commands';
import { SCAN_JOB_QUEUE, SCAN_RATE_LIMITER } from '../worker.constants';
import { CrawlCredentialsProvider } from './crawl-credentials.provider';
import type { RateLimiterFactory } from './rate-limiter.factory';

/**
 * Crawls one target of a scan and upserts its slice (libs/collectors `crawlTarget`). A region's
 * crawl also records the clusters it found as pending targets and adds their crawl jobs to the
 * scan's flow, before its own job completes (so the analysis cannot start without them).
 *
 * Idempotent: a target already read is not read again (its slice stays); a region already read
 * still (re-)adds its clusters' jobs, which are no-ops when they exist (deterministic ids). That
 * makes a re-planned scan (Redis lost its jobs) resume where it stopped.
 */
@Injectable()
export class CrawlTargetService {
  constructor(
    private readonly store: Store,
    @Inject(SCAN_JOB_QUEUE) private readonly queue: ScanJobQueue,
    @Inject(SCAN_RATE_LIMITER) private readonly rateLimiterFor: RateLimiterFactory,
    private readonly credentials: CrawlCredentialsProvider,
  ) {}

  /**
   * Crawl one target.
   * @param signal aborts the crawl (worker shutdown); the promise then rejects
   * @returns `done`, or `skipped` when the scan ended or the target was read already
   * @throws what `crawlTarget` throws (abort, credentials configuration); Redis / Postgres errors
   */
  async crawl(cmd: CrawlTargetCommand, signal?: AbortSignal): Promise<JobResults[JobName.CrawlTarget]> {
    const key = targetKey(cmd.target);
    const scan = await this.store.scans.get(cmd.scanId);
    if (!scan) return { status: 'skipped', reason: `scan ${cmd.scanId} does not exist` };
    if (scan.status !== 'running')
      return { status: 'skipped', reason: `scan ${cmd.scanId} already ${scan.status}` };

    const existing = await this.store.scanTargets.get(cmd.scanId, key);
    if (existing?.status === 'ok') {
      // The slice arrived earlier (retry, duplicate, re-plan): keep it, but make sure the
      // clusters it found have their jobs in this flow.
      if (existing.parts) await this.addClusters(cmd, sliceOf(existing.parts.read(0)));
      return { status: 'skipped', reason: `target ${key} already read` };
    }

    const slice = await crawlTarget(cmd.config, cmd.target, {
      rateLimiter: this.rateLimiterFor(cmd.config),
      credentialsFor: this.credentials.credentialsFor(cmd.config, cmd.baseAccountId, cmd.credentialsSource),
      ...(signal ? { signal } : {}),
    });
    const clusters = await this.addClusters(cmd, slice);
    // In parts (libs/collectors slice-parts.ts): an analysis reads a large region one part at a time.
    await this.store.scanTargets.saveSliceParts(cmd.scanId, key, cmd.target, slicePartsOf(slice));
    return { status: 'done', targetKey: key, ...(cmd.target.kind === 'region' ? { clusters } : {}) };
  }

  /** Record a region's clusters as pending targets and add their crawl jobs; returns how many. */
  private async addClusters(cmd: CrawlTargetCommand, slice: TargetSlice): Promise<number> {
    const { scanId, config, target } = cmd;
    if (target.kind !== 'region') return 0;
    const clusters: CrawlTarget[] = (slice.clusterIds ?? []).map((clusterId) => ({
      kind: 'cluster',
      accountId: target.accountId,
      regionId: target.regionId,
      clusterId,
    }));
    if (clusters.length === 0) return 0;
    await this.store.scanTargets.ensurePending(
      scanId,
      clusters.map((t) => ({ key: targetKey(t), target: t })),
    );
    await this.queue.addCrawlChildren(
      scanId,
      clusters.map((t) =>
        payloads.crawl(scanId, t, config, cmd.baseAccountId, cmd.credentialsSource, poolRoute(slice.clusterEndpoints?.[t.kind === 'cluster' ? t.clusterId : ''])),
      ),
    );
    return clusters.length;
  }

  /**
   * The bounded wait of a pool crawl: when it still waits in its pool queue (no running worker reaches the VPC),
   * record the cluster's datasets as a coverage gap naming the VPC and the fix, then take the crawl out of the
   * flow so the analysis runs without it. The gap is stored first: the flow parent may run as soon as the crawl
   * is removed.
   * @returns `done` when the crawl became a gap; `skipped` when the scan ended or a worker took the crawl
   */
  async deadline(cmd: CrawlDeadlineCommand): Promise<JobResults[JobName.CrawlDeadline]> {
    const { scanId, target, pool } = cmd.payload;
    const key = targetKey(target);
    const scan = await this.store.scans.get(scanId);
    if (!scan || scan.status !== 'running') return { status: 'skipped', reason: `scan ${scanId} is not running` };
    const existing = await this.store.scanTargets.get(scanId, key);
    if (existing?.status === 'ok') return { status: 'skipped', reason: `target ${key} already read` };
    if (!(await this.queue.isWaitingPoolCrawl(pool, scanId, target)))
      return { status: 'skipped', reason: `a worker of pool ${pool} took ${key}` };
    const slice: TargetSlice = { target, coverage: noWorkerEntries(cmd.payload) };
    if (target.kind === 'cluster') slice.cluster = { detail: placeholderDetail(target.clusterId, target.regionId) };
    await this.store.scanTargets.saveSliceParts(scanId, key, target, [slice]);
    if ((await this.queue.removeWaitingPoolCrawl(pool, scanId, target)) === 'taken')
      return { status: 'skipped', reason: `a worker of pool ${pool} took ${key} at the deadline` };
    return { status: 'done', targetKey: key };
  }
}

/** The pool of a cluster's crawl: the VPC of an intranet endpoint; public endpoints (or unknown VPCs) go to any worker. */
function poolRoute(route: ClusterEndpointRoute | undefined): { pool: string; endpoint?: string } | undefined {
  if (!route || route.kind !== 'intranet' || route.vpcId === undefined) return undefined;
  return { pool: route.vpcId, ...(route.address ? { endpoint: route.address } : {}) };
}

/** Error code of the datasets of a cluster no running worker reaches. */
export const NO_WORKER_REACHES = 'NoWorkerReaches';

/** The coverage gap of a pool crawl no worker took within the wait (README "Worker pools by network reach"). */
function noWorkerEntries(p: CrawlDeadlinePayload): CoverageEntry[] {
  const where = p.endpoint ? `its intranet endpoint ${p.endpoint}` : 'its intranet endpoint';
  const message =
    `no worker reaches ${p.pool}: ${targetLabel(p.target)} was not read (${where} is in ${p.pool}; no running worker took the crawl within ` +
    `${Math.round(p.waitedMs / 1000)} s); fix: run a worker pool in or routed to ${p.pool} with WORKER_REACH=${p.pool} (Helm: values-remote-pool.yaml), ` +
    `or set kubernetesEndpoint: public for this cluster after binding an EIP to its API server`;
  return failedEntries(p.target, NO_WORKER_REACHES, message);
}

/**
 * A stored slice's head (its first part) as the collectors' type: the slice itself, or for a region stored in
 * parts the slice with its long lists empty, which still has the cluster ids (libs/collectors slice-parts.ts).
 * The store keeps it as JSON exactly as this service wrote it (`saveSliceParts` above), so it is trusted rather
 * than re-validated (a cluster slice can hold thousands of Kubernetes objects).
 */
function sliceOf(stored: unknown): TargetSlice {
  return stored as TargetSlice;
}
