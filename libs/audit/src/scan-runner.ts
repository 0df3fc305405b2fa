/**
 * The scan use case, shared by the CLI, the API's POST /v1/scans and the worker, top-down:
 * `collectFleet` (offline directory or live APIs -> FleetSnapshot) -> `analyzeSnapshot` (every check -> findings +
 * coverage) -> `onAnalyzed` -> `storeAnalysis` (optional; visible at once). Each step is a function the next one does
 * not call back (the analyze and store steps live in analyze-and-store.ts and call nothing here); progress is
 * reported around the calls.
 *
 * docs/scan-path.md follows one scan through it, from the CLI and from `POST /v1/scans`.
 */
import { refreshQuotaApplicationsOf } from './quota-request-runner';
import { randomUUID } from 'node:crypto';
import type { PartialAuditSettings } from '@app/checks';
import { FleetValidationError, loadFleetDirectory, scanLive, type ScanConfig } from '@app/collectors';
import type { CheckResult, CoverageEntry, FleetSnapshot, Finding, SkippedResult } from '@app/domain';
import { startScanHeartbeat, type Store } from '@app/store';
import { FleetIndex } from '@app/checks';
import { analyzeSnapshot, nothingReadReason, ScanFailedError, storeAnalysis, type ScanAnalysis, type ScanSummary } from './analyze-and-store';
import { fleetDirectoryAuditShards, runThreadedAudit, threadedResults, type AuditShard } from './threaded-audit';

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
  /**
   * Threads of the analysis of an offline fleet directory (`runThreadedAudit`: each thread reads and analyzes one
   * shard's files, an account and region at a time; the same output). Absent or 1: one thread over the whole
   * snapshot. A generated fleet directory (`generate:`) and a live scan always use one thread.
   */
  threads?: number;
  /**
   * With more than one thread: keep every evaluated result in the outcome (`ScanOutcome.results`; JUnit output
   * lists them). Otherwise the outcome's `results` is empty (the summary still counts them), as a distributed
   * scan's. A stored scan keeps them (its quota usage samples come from them).
   */
  keepResults?: boolean;
  /** Id of a scan row the caller already created (`store.scans.create`), e.g. to answer 202 first. */
  scanId?: string;
  /**
   * Called with the outcome once the analysis is done and before the store step (so a terminal
   * can show the findings while they are being written). The scan is stored afterwards all the
   * same, and `runScan` resolves only once it is (or rejects when storing fails).
   */
  onAnalyzed?: (outcome: ScanOutcome) => void | Promise<void>;
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
 *   then findings, fingerprints and the final status in one transaction). A promise of a store
 *   (one still starting, e.g. the demo's embedded PostgreSQL) defers every write until the fleet
 *   is read and analyzed: the row is then created and completed at once (see `runScanDeferredStore`).
 * @returns the scan record, findings and all results
 * @throws FleetValidationError / ScanConfigError for bad input (nothing is written);
 *   ScanFailedError when nothing could be read (the stored scan is marked failed); the store's
 *   error when a deferred store does not start or the scan cannot be stored
 */
export async function runScan(request: ScanRequest, store?: Store | Promise<Store>): Promise<ScanOutcome> {
  if (store instanceof Promise) return runScanDeferredStore(request, store);
  const startedAt = request.observedAt ?? new Date();
  const sourceKind = request.source.kind;
  // Offline input is validated before a scan row exists: a malformed fleet writes nothing. When the
  // caller already created the row (POST /v1/scans), loading happens inside the error handling
  // below, so a fleet that became invalid fails that row instead of leaving it running.
  // Threads only without a store: a threaded analysis reads the fleet shard by shard, in its threads (the shards' files
  // are validated there: a malformed one fails the analysis, with nothing written). A stored scan holds the whole
  // snapshot anyway (stored with its fleet graph), so it analyzes that snapshot with the index it builds once, instead
  // of having the threads read every file a second time.
  const shards = store ? undefined : threadedShardsOf(request);
  const threadedOnly = shards !== undefined;
  let snapshot =
    request.source.kind === 'offline' && request.scanId === undefined && !threadedOnly ? await collectFleet(request.source, request.onProgress) : undefined;
  const fleetName = snapshot?.name ?? (request.source.kind === 'live' ? request.source.config.name : 'fleet');
  const scanId =
    request.scanId ?? (store ? (await store.scans.create({ source: sourceKind, fleetName, startedAt })).id : randomUUID());
  // The lease: while this process runs the scan it renews the heartbeat; if it dies, a reaper in
  // the API or worker fails the row (libs/store scan-lease).
  const stopHeartbeat = store ? startScanHeartbeat(store.scans, scanId) : () => undefined;
  try {
    if (shards && threadedOnly) {
      // Nothing to store: the fleet is read only shard by shard, in the threads.
      const { analysis, fleetName: name, coverage } = await analyzeThreadedStep(shards, request, scanId);
      const outcome = outcomeOf(scanId, sourceKind, startedAt, { name, coverage }, analysis);
      await request.onAnalyzed?.(outcome);
      return outcome;
    }
    snapshot ??= await collectFleet(request.source, request.onProgress);
    // One index for the audit and the stored fleet graph.
    const index = store ? FleetIndex.build(snapshot) : undefined;
    const analysis = analyzeStep(snapshot, request, scanId, index);
    const outcome = outcomeOf(scanId, sourceKind, startedAt, snapshot, analysis);
    await request.onAnalyzed?.(outcome);
    if (store) await storeStep(store, scanId, snapshot, analysis, request, index);
    // A live scan also records what Quota Center decided on the stored applications since the last one. Best effort:
    // the scan is stored already, and the next scan or `quota request` run refreshes them again.
    if (store && request.source.kind === 'live') await refreshQuotaApplicationsOf(store, request.source.config).catch(() => undefined);
    return outcome;
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
 * `runScan` on a store that is still starting: read and analyze the fleet without touching the
 * database, hand the outcome to `onAnalyzed`, then wait for the store, create the scan row
 * (`startedAt` = when the scan started) and complete it in one transaction. A scan that fails after
 * its input was validated is recorded as a failed row once the store is up (best effort); a store
 * that never starts rejects the scan, so a caller cannot miss that nothing was stored.
 */
async function runScanDeferredStore(request: ScanRequest, storeReady: Promise<Store>): Promise<ScanOutcome> {
  // Handled where awaited; this keeps an early rejection from being reported as unhandled.
  storeReady.catch(() => undefined);
  // The row is created after the analysis: its processing time starts here, not at creation.
  const processingStartedAt = new Date();
  const startedAt = request.observedAt ?? processingStartedAt;
  const sourceKind = request.source.kind;
  const scanId = request.scanId ?? randomUUID();
  // Bad offline input: nothing is written (as in runScan).
  let snapshot = request.source.kind === 'offline' ? await collectFleet(request.source, request.onProgress) : undefined;
  let analysis: ScanAnalysis;
  let index: FleetIndex;
  try {
    snapshot ??= await collectFleet(request.source, request.onProgress);
    index = FleetIndex.build(snapshot);
    analysis = analyzeStep(snapshot, request, scanId, index);
  } catch (e) {
    // Error path: a store that failed to start has nothing to record; the scan's own error is thrown.
    const store = await storeReady.catch(() => undefined);
    if (store) {
      const fleetName = snapshot?.name ?? (request.source.kind === 'live' ? request.source.config.name : 'fleet');
      await store.scans
        .create({ id: scanId, source: sourceKind, fleetName, startedAt, processingStartedAt })
        .then(() => store.scans.fail(scanId, oneLineReason(e)))
        // Error path, best effort (see above): the scan's own error is what the caller sees.
        .catch(() => undefined);
    }
    throw e;
  }
  const outcome = outcomeOf(scanId, sourceKind, startedAt, snapshot, analysis);
  await request.onAnalyzed?.(outcome);
  const store = await storeReady;
  await store.scans.create({ id: scanId, source: sourceKind, fleetName: snapshot.name, startedAt, processingStartedAt });
  const stopHeartbeat = startScanHeartbeat(store.scans, scanId);
  try {
    await storeStep(store, scanId, snapshot, analysis, request, index);
  } catch (e) {
    // Error path: the lease expires and a reaper fails the row if this cannot; `e` is thrown either way.
    await store.scans.fail(scanId, oneLineReason(e)).catch(() => undefined);
    throw e;
  } finally {
    stopHeartbeat();
  }
  if (request.source.kind === 'live') await refreshQuotaApplicationsOf(store, request.source.config).catch(() => undefined);
  return outcome;
}

/**
 * The collect step of a scan: read the fleet of `source` into a snapshot, reporting progress (phase `collect`): an
 * offline fleet directory as one target, a live fleet by targets (account, region, cluster) done of total.
 * @throws FleetValidationError for a malformed fleet directory; ScanConfigError / collector errors of a live scan
 *   (a dataset that cannot be read is a coverage gap in the snapshot, not an error)
 */
export async function collectFleet(source: ScanSource, onProgress?: ScanRequest['onProgress']): Promise<FleetSnapshot> {
  if (source.kind === 'offline') return loadOfflineSnapshot(source.fleetDir, onProgress);
  return collectLive(source.config, onProgress);
}

/** Read an offline fleet directory, reporting it as one collect target. */
function loadOfflineSnapshot(fleetDir: string, onProgress: ScanRequest['onProgress']): FleetSnapshot {
  onProgress?.({ phase: 'collect', done: 0, total: 1, target: fleetDir });
  const snapshot = loadFleetDirectory(fleetDir);
  onProgress?.({ phase: 'collect', done: 1, total: 1, target: fleetDir });
  return snapshot;
}

/** Read a fleet through the cloud APIs, reporting targets done / total. */
function collectLive(config: ScanConfig, onProgress: ScanRequest['onProgress']): Promise<FleetSnapshot> {
  return scanLive(config, {
    ...(onProgress ? { onProgress: (e: { done: number; total: number; target: string }) => onProgress({ phase: 'collect', ...e }) } : {}),
  });
}

/** The analyze step (`analyzeSnapshot`), with its progress reported around it. */
function analyzeStep(snapshot: FleetSnapshot, request: ScanRequest, scanId: string, index: FleetIndex | undefined): ScanAnalysis {
  request.onProgress?.({ phase: 'analyze', done: 0, total: 1 });
  const analysis = analyzeSnapshot(snapshot, {
    scanId,
    now: request.now ?? new Date(),
    ...(request.settings ? { settings: request.settings } : {}),
    ...(index ? { index } : {}),
  });
  request.onProgress?.({ phase: 'analyze', done: 1, total: 1 });
  return analysis;
}

/**
 * The shards of a threaded analysis of the request's source: an offline fleet directory with more than one thread
 * asked; `undefined` (one thread over the whole snapshot) otherwise, and for a generated fleet directory.
 * @throws FleetValidationError for a missing or invalid fleet.yaml / account.yaml
 */
function threadedShardsOf(request: ScanRequest): AuditShard[] | undefined {
  if (request.source.kind !== 'offline' || (request.threads ?? 1) <= 1) return undefined;
  const shards = fleetDirectoryAuditShards(request.source.fleetDir);
  return shards && shards.length > 0 ? shards : undefined;
}

/**
 * The analyze step on threads (`runThreadedAudit`), collect included (each thread reads its shard), with its
 * progress reported by shard: the same analysis as `analyzeStep` over the whole snapshot.
 * @throws FleetValidationError for an invalid file of a shard (as the one-thread read); ShardAnalysisError naming the
 *   shard for any other failure of its thread; ScanFailedError when the scan read nothing
 */
async function analyzeThreadedStep(
  shards: AuditShard[],
  request: ScanRequest,
  scanId: string,
): Promise<{ analysis: ScanAnalysis; fleetName: string; coverage: CoverageEntry[] }> {
  // The threads read the fleet as they analyze it: collect and analyze are reported as one step.
  const target = request.source.kind === 'offline' ? request.source.fleetDir : undefined;
  request.onProgress?.({ phase: 'collect', done: 0, total: 1, ...(target ? { target } : {}) });
  request.onProgress?.({ phase: 'analyze', done: 0, total: 1 });
  const keep = request.keepResults === true;
  const audit = await runThreadedAudit(shards, {
    ...(request.threads !== undefined ? { threads: request.threads } : {}),
    now: request.now ?? new Date(),
    ...(request.settings ? { settings: request.settings } : {}),
    resultsJson: keep,
  });
  const nothing = nothingReadReason({ name: audit.fleetName, accounts: [], coverage: audit.coverage });
  if (nothing !== undefined) throw new ScanFailedError(nothing, scanId);
  request.onProgress?.({ phase: 'collect', done: 1, total: 1, ...(target ? { target } : {}) });
  request.onProgress?.({ phase: 'analyze', done: 1, total: 1 });
  const analysis: ScanAnalysis = {
    results: keep ? threadedResults(audit) : [],
    findings: audit.findings,
    skipped: audit.skipped,
    summary: audit.summary,
    finishedAt: new Date(),
    ...(request.settings?.owners ? { owners: request.settings.owners } : {}),
  };
  return { analysis, fleetName: audit.fleetName, coverage: audit.coverage };
}

/** The store step (`storeAnalysis`), with its progress reported around it. */
async function storeStep(store: Store, scanId: string, snapshot: FleetSnapshot, analysis: ScanAnalysis, request: ScanRequest, index: FleetIndex | undefined): Promise<void> {
  request.onProgress?.({ phase: 'store', done: 0, total: 1 });
  await storeAnalysis(store, scanId, snapshot, analysis, index ? { index } : {});
  request.onProgress?.({ phase: 'store', done: 1, total: 1 });
}

/** The scan record, findings and results of an analyzed snapshot. */
function outcomeOf(scanId: string, source: ScanSource['kind'], startedAt: Date, snapshot: Pick<FleetSnapshot, 'name' | 'coverage'>, a: ScanAnalysis): ScanOutcome {
  return {
    scan: {
      id: scanId,
      status: 'succeeded',
      source,
      fleetName: snapshot.name,
      startedAt: startedAt.toISOString(),
      finishedAt: a.finishedAt.toISOString(),
      summary: a.summary,
      coverage: snapshot.coverage,
      skipped: a.skipped,
    },
    findings: a.findings,
    results: a.results,
  };
}

/**
 * The first line of an error's message, prefixed with the file for fleet validation errors: what a
 * failed scan stores as its reason (never a stack trace).
 */
export function oneLineReason(e: unknown): string {
  if (e instanceof Error) {
    const first = e.message.split('\n')[0];
    return e instanceof FleetValidationError && !first.includes(e.file) ? `${e.file}: ${first}` : first;
  }
  return String(e);
}
