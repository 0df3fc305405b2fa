/**
 * The `distributed` adapter of the launch module (libs/audit scan-launch.ts), which sends it the scan configs when
 * the workers are configured: `POST /v1/scans` creates the scan row and enqueues its plan job; the
 * worker fleet does the rest. It matches the API's `ScanLauncher` port structurally (libs never import apps).
 *
 * Security: callers pick one of the sources the operator configured, by name; never a path.
 */
import { findScanSource, pickScanSource, type DistributedScanLaunch } from '@app/audit';
import type { PartialAuditSettings } from '@app/checks';
import type { ScanConfig } from '@app/collectors';
import type { Store } from '@app/store';
import { DistributedScanClient } from './distributed-scan.client';
import { BullScanJobQueue } from './scan-job.queue';

/**
 * Longest wait of an API launch for Redis to accept its plan job, milliseconds: a client waiting on `POST /v1/scans`
 * gets 503 with `Retry-After` within this, not after the CLI's 10 s.
 */
export const API_ENQUEUE_TIMEOUT_MS = 2_000;

/** A configured source: a name callers may pick and the scan config it stands for. */
export interface DistributedScanSource {
  name: string;
  config: ScanConfig;
}

/** Starts scans on the worker fleet. */
export class DistributedScanLauncher {
  /**
   * @param client submits scans (store + queue of the worker fleet)
   * @param sources the sources a request may pick (first = default)
   * @param settings audit settings of every scan launched here
   */
  constructor(
    private readonly client: DistributedScanClient,
    private readonly sources: readonly DistributedScanSource[],
    private readonly settings?: PartialAuditSettings,
  ) {}

  /** Names of the sources a request may pick. */
  sourceNames(): string[] {
    return this.sources.map((s) => s.name);
  }

  /**
   * The accounts a source reads (its scan config's accounts), for the API's scope check.
   * @param source a source name; default the first
   * @returns the account ids, or undefined for an unknown source
   */
  sourceAccounts(source?: string): string[] | undefined {
    return findScanSource(this.sources, source)?.config.accounts.map((a) => a.accountId);
  }

  /**
   * Create the scan (status `running`) and enqueue it; resolves before any crawl ran.
   * @returns the new scan's id
   * @throws UnknownScanSourceError when `request.source` is not configured; ScanQueueUnavailableError when Redis
   *   does not accept the job within API_ENQUEUE_TIMEOUT_MS (the scan row is then deleted: nothing ran)
   */
  async launch(request: { source?: string }): Promise<{ scanId: string }> {
    const chosen = pickScanSource(this.sources, request.source);
    const payload = await this.client.submit({
      config: chosen.config,
      enqueueTimeoutMs: API_ENQUEUE_TIMEOUT_MS,
      discardWhenNotEnqueued: true,
      ...(this.settings ? { settings: this.settings } : {}),
    });
    return { scanId: payload.scanId };
  }
}

/** Where `openDistributedScanLauncher` enqueues scans. */
export interface DistributedScanLauncherOptions {
  /** Where scan rows are created (the workers' database). */
  store: Store;
  /** The workers' Redis (REDIS_URL). */
  redisUrl: string;
  /** Redis key prefix of the worker fleet (FLEET_AUDIT_QUEUE_PREFIX; default `fleet-audit`). */
  prefix?: string;
  /** The scan configs a request may pick, by name (first = default). */
  configs: readonly DistributedScanSource[];
  /** Audit settings of every scan launched. */
  settings?: PartialAuditSettings;
}

/**
 * The `distributed` adapter over its own connection to the workers' queues (the launch module's `distributed`
 * setting of `serve` with REDIS_URL). Only scan configs can be distributed: workers cannot read a fleet directory
 * on the API host.
 * @returns the launcher and `close`, which closes the queue connections (after the API app, before the store)
 */
export function openDistributedScanLauncher(opts: DistributedScanLauncherOptions): DistributedScanLaunch & { launcher: DistributedScanLauncher } {
  const queue = new BullScanJobQueue({ redisUrl: opts.redisUrl, ...(opts.prefix ? { prefix: opts.prefix } : {}) });
  const launcher = new DistributedScanLauncher(new DistributedScanClient(opts.store, queue), opts.configs, opts.settings);
  return { launcher, close: () => queue.close() };
}
