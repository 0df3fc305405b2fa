/**
 * The scan use case, shared by the CLI, the API's POST /v1/scans and the worker:
 * read a fleet (offline directory or live APIs) -> FleetSnapshot -> `analyzeAndStore` (every check ->
 * findings + coverage -> optionally stored in one transaction, the same step as the worker's analyze job).
 *
 * ARCHITECTURE.md "The one data flow": one analysis path for every source.
 */
import { randomUUID } from 'node:crypto';
import type { PartialAuditSettings } from '@app/checks';
import { loadFleetDirectory, scanLive, type ScanConfig } from '@app/collectors';
import type { CheckResult, CoverageEntry, FleetSnapshot, Finding, SkippedResult } from '@app/domain';
import { startScanHeartbeat, type Store } from '@app/store';
import { analyzeAndStore, type ScanSummary } from './analyze-and-store';

/** Where a scan reads its fleet from. */
export type ScanSource =
  | { kind: 'offline'; fleetDir: string }
  | { kind: 'live'; config: ScanConfig; configPath?: string };

/** Progress of a scan, for progress bars: `done` of `total` targets (counts). */
export interface ScanProgress {
  phase: 'collect' | 'analyze' | 'store';
  done: number;
  total: number;
  target?: string;
}

/** Inputs of one scan. */
export interface ScanRequest {
  source: ScanSource;
  /** Clock for the analysis (frozen in tests). Default: now. */
  now?: Date;
  /**
   * When the fleet was observed: the stored scan's start time and so the time of its findings and quota
   * samples (`scan --now` on a dated dump backfills history for forecasts). Default: now.
   */
  observedAt?: Date;
  settings?: PartialAuditSettings;
  onProgress?: (p: ScanProgress) => void;
  /** Id of a scan row the caller already created (`store.scans.create`), e.g. to answer 202 first. */
  scanId?: string;
}

/** The scan record as printed by `scan --format json` and served by the API. */
export interface ScanRecord {
  id: string;
  status: 'succeeded' | 'failed';
  source: 'offline' | 'live';
  fleetName: string;
  startedAt: string;
  finishedAt: string;
  summary: ScanSummary;
  coverage: CoverageEntry[];
  /** The (check, resource) pairs not evaluated, with the reason: what the scan makes no claim about. */
  skipped: SkippedResult[];
  error?: string;
}

/** Result of a scan: the record, its findings and every evaluated result. */
export interface ScanOutcome {
  scan: ScanRecord;
  findings: Finding[];
  results: CheckResult[];
}

/**
 * Run one scan end to end.
 * @param request source, clock, settings, progress callback
 * @param store when given, the scan and its findings are written (scan row first as `running`,
 *   then findings, fingerprints and the final status in one transaction)
 * @returns the scan record, findings and all results
 * @throws FleetValidationError / ScanConfigError for bad input (nothing is written);
 *   ScanFailedError when nothing could be read (the stored scan is marked failed)
 */
export async function runScan(request: ScanRequest, store?: Store): Promise<ScanOutcome> {
  const startedAt = request.observedAt ?? new Date();
  const sourceKind = request.source.kind;
  // Offline input is validated before a scan row exists: a malformed fleet writes nothing. When the
  // caller already created the row (POST /v1/scans), loading happens inside the error handling
  // below, so a fleet that became invalid fails that row instead of leaving it running.
  let snapshot: FleetSnapshot | undefined;
  const loadOffline = (fleetDir: string) => {
    request.onProgress?.({ phase: 'collect', done: 0, total: 1, target: fleetDir });
    snapshot = loadFleetDirectory(fleetDir);
    request.onProgress?.({ phase: 'collect', done: 1, total: 1, target: fleetDir });
  };
  if (request.source.kind === 'offline' && request.scanId === undefined) loadOffline(request.source.fleetDir);
  const fleetName = snapshot?.name ?? (request.source.kind === 'live' ? request.source.config.name : 'fleet');
  const scanId =
    request.scanId ?? (store ? (await store.scans.create({ source: sourceKind, fleetName, startedAt })).id : randomUUID());
  // The lease: while this process runs the scan it renews the heartbeat; if it dies, a reaper in
  // the API or worker fails the row (libs/store scan-lease).
  const stopHeartbeat = store ? startScanHeartbeat(store.scans, scanId) : () => undefined;
  try {
    if (!snapshot && request.source.kind === 'offline') loadOffline(request.source.fleetDir);
    if (!snapshot && request.source.kind === 'live') {
      const onProgress = request.onProgress;
      snapshot = await scanLive(request.source.config, {
        ...(onProgress
          ? { onProgress: (e: { done: number; total: number; target: string }) => onProgress({ phase: 'collect', ...e }) }
          : {}),
      });
    }
    if (!snapshot) throw new Error('no fleet source');
    const onProgress = request.onProgress;
    const { results, findings, skipped, summary, finishedAt } = await analyzeAndStore(snapshot, {
      scanId,
      now: request.now ?? new Date(),
      ...(request.settings ? { settings: request.settings } : {}),
      ...(store ? { store } : {}),
      ...(onProgress ? { onPhase: (phase: 'analyze' | 'store', done: 0 | 1) => onProgress({ phase, done, total: 1 }) } : {}),
    });
    return {
      scan: {
        id: scanId,
        status: 'succeeded',
        source: sourceKind,
        fleetName: snapshot.name,
        startedAt: startedAt.toISOString(),
        finishedAt: finishedAt.toISOString(),
        summary,
        coverage: snapshot.coverage,
        skipped,
      },
      findings,
      results,
    };
  } catch (e) {
    if (store) {
      // Retried while the connection is lost; if it stays lost the lease expires and a reaper
      // fails the row. The scan's own error is what the caller needs to see either way.
      await store.scans.fail(scanId, oneLineReason(e)).catch(() => undefined);
    }
    throw e;
  } finally {
    stopHeartbeat();
  }
}

/**
 * The first line of an error's message, prefixed with the file for fleet validation errors: what a
 * failed scan stores as its reason (never a stack trace).
 */
export function oneLineReason(e: unknown): string {
  if (e instanceof Error) {
    const file = (e as { file?: unknown }).file;
    const first = e.message.split('\n')[0];
    return e.name === 'FleetValidationError' && typeof file === 'string' && !first.includes(file) ? `${file}: ${first}` : first;
  }
  return String(e);
}
