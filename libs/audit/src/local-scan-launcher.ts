/**
 * The `local` adapter of the launch module (scan-launch.ts): `POST /v1/scans` creates the scan row, answers at once,
 * and `runScan` runs the scan in the background of this process (tests, benchmarks; `serve` queues scans in child
 * processes instead).
 *
 * Security: API callers cannot name arbitrary paths; a request may only pick one of the sources
 * the operator configured (by default the first one; scan-source.ts).
 */
import { runScan } from './scan-runner';
import type { PartialAuditSettings } from '@app/checks';
import type { Store } from '@app/store';
import { logScanCompleted, logScanFailed, logScanStarted, type ScanEventSink } from '@app/telemetry';
import { fleetNameOf, pickScanSource, type LaunchRequest, type NamedScanSource } from './scan-source';

/** Starts scans in the background of this process. */
export class LocalScanLauncher {
  private readonly running = new Set<Promise<unknown>>();

  /**
   * @param store where scans are written
   * @param sources named sources a request may choose from (first = default)
   * @param onError called with errors of background scans (they are also stored as failed scans)
   * @param settings audit settings of every scan launched here (default: the built-in defaults)
   * @param events where scan lifecycle events go (libs/telemetry scan-events.ts); none by default
   */
  constructor(
    private readonly store: Store,
    private readonly sources: readonly NamedScanSource[],
    private readonly onError: (e: unknown) => void = () => undefined,
    private readonly settings?: PartialAuditSettings,
    private readonly events?: ScanEventSink,
  ) {}

  /** Names of the sources a request may pick. */
  sourceNames(): string[] {
    return this.sources.map((s) => s.name);
  }

  /**
   * Create the scan row and start the scan in the background.
   * @returns the new scan's id (status `running` until it ends)
   * @throws UnknownScanSourceError when `request.source` is not configured
   */
  async launch(request: LaunchRequest): Promise<{ scanId: string }> {
    const chosen = pickScanSource(this.sources, request.source);
    const src = chosen.source;
    const fleetName = fleetNameOf(chosen);
    const { id } = await this.store.scans.create({ source: src.kind, fleetName, startedAt: new Date() });
    const events = this.events;
    if (events) logScanStarted(events, { scanId: id, fleet: fleetName, source: src.kind });
    const p = runScan({ source: src, scanId: id, ...(this.settings ? { settings: this.settings } : {}) }, this.store)
      .then((o) => {
        if (events)
          logScanCompleted(events, {
            scanId: id,
            fleet: fleetName,
            startedAt: o.scan.startedAt,
            finishedAt: o.scan.finishedAt,
            findings: o.scan.summary.findings,
            bySeverity: o.scan.summary.bySeverity,
            coverage: o.scan.coverage,
          });
      })
      .catch((e: unknown) => {
        if (events) logScanFailed(events, { scanId: id, reason: e instanceof Error ? e.message : String(e) });
        this.onError(e);
      })
      .finally(() => this.running.delete(p));
    this.running.add(p);
    return { scanId: id };
  }

  /** Wait for every background scan to end (graceful shutdown, tests). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
