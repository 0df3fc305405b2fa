/**
 * The distributed implementation of the API's `ScanLauncher` port (apps/api
 * `scan-launcher.port.ts`): `POST /v1/scans` creates the scan row and enqueues its plan job; the
 * worker fleet does the rest. It matches the port structurally (libs never import apps).
 *
 * Security: callers pick one of the sources the operator configured, by name; never a path.
 */
import { UnknownScanSourceError } from '@app/audit';
import type { PartialAuditSettings } from '@app/checks';
import type { ScanConfig } from '@app/collectors';
import type { DistributedScanClient } from './distributed-scan.client';

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
    const chosen = source === undefined ? this.sources[0] : this.sources.find((s) => s.name === source);
    return chosen?.config.accounts.map((a) => a.accountId);
  }

  /**
   * Create the scan (status `running`) and enqueue it; resolves before any crawl ran.
   * @returns the new scan's id
   * @throws UnknownScanSourceError when `request.source` is not configured; ScanQueueUnavailableError when Redis
   *   does not accept the job within API_ENQUEUE_TIMEOUT_MS (the scan row is then deleted: nothing ran)
   */
  async launch(request: { source?: string }): Promise<{ scanId: string }> {
    const chosen =
      request.source === undefined ? this.sources[0] : this.sources.find((s) => s.name === request.source);
    if (!chosen) {
      throw new UnknownScanSourceError(
        `unknown scan source "${request.source ?? ''}"; configured: ${this.sourceNames().join(', ') || 'none'}`,
      );
    }
    const payload = await this.client.submit({
      config: chosen.config,
      enqueueTimeoutMs: API_ENQUEUE_TIMEOUT_MS,
      discardWhenNotEnqueued: true,
      ...(this.settings ? { settings: this.settings } : {}),
    });
    return { scanId: payload.scanId };
  }
}
