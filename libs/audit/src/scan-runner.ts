/**
 * The scan use case, shared by the CLI, the API's POST /v1/scans and the worker, read top-down in `scanSteps`:
 * `collectFleet` (offline directory or live APIs -> FleetSnapshot) -> `analyzeSnapshot` (every check -> findings +
 * coverage) -> the store step (scan-row.ts -> `storeAnalysis`; none without a store, deferred on a store still
 * starting). Each step is a function the next one does not call back (the analyze and store steps live in
 * analyze-and-store.ts and scan-row.ts and call nothing here); progress is reported around the calls, and the outcome
 * is handed out once analyzed (`startScan`'s `analyzed`), not through a callback in the middle of the path.
 *
 * An offline scan without a store loads neither libs/store (pg) nor the thread pool (piscina, loaded by
 * threaded-audit.ts when a pool starts): `fleet-audit scan --fleet DIR` pays only for what it runs.
 *
 * docs/scan-path.md follows one scan through it, from the CLI and from `POST /v1/scans`.
 */
import { randomUUID } from 'node:crypto';
import type { PartialAuditSettings } from '@app/checks';
import { FleetValidationError, loadFleetDirectory, scanLive, type ScanConfig } from '@app/collectors';
import { quotaUsageOf, type CheckResult, type CoverageEntry, type FleetSnapshot, type Finding, type QuotaUsageSample, type SkippedResult } from '@app/domain';
import type { Store } from '@app/store';
import { FleetIndex, QUOTA_USAGE_CHECK_IDS } from '@app/checks';
import { analyzeSnapshot, nothingReadReason, ScanFailedError, type ScanAnalysis, type ScanSummary } from './analyze-and-store';
import type { ScanRow, ScanRowFields } from './scan-row';
import { handOverScanRow, ScanHandOver } from './scan-hand-over';
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
   * Keep every evaluated result in the outcome (`ScanOutcome.results`; JUnit output lists them). Otherwise the
   * outcome's `results` holds, on one thread, only the skipped ones (the quota measurements are its `quotaUsage`
   * samples, what a stored scan uses), and on more threads none, as a distributed scan's; the summary counts every
   * result either way.
   */
  keepResults?: boolean;
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
  /** Every evaluated result with `ScanRequest.keepResults`; otherwise the skipped ones (`ScanAnalysis.results`). */
  results: CheckResult[];
  /**
   * The quota usage samples of the scan (`ScanAnalysis.quotaUsage`); empty on more threads without `keepResults`, and
   * for a distributed scan (the store holds its samples).
   */
  quotaUsage: QuotaUsageSample[];
}

/**
 * Where a scan is stored: a ready store, one still starting (nothing is written before the store step), or another
 * process's (`ScanHandOver`: the store step builds what completing the scan writes and leaves it there).
 */
export type ScanStore = Store | Promise<Store> | ScanHandOver;

/** A started scan: its outcome once analyzed, and once stored. */
export interface StartedScan {
  /**
   * The outcome as soon as the analysis is done, before the store step (so a terminal can show the findings while
   * they are being written); rejects as `stored` does when the scan fails before that.
   */
  analyzed: Promise<ScanOutcome>;
  /** The same outcome once the scan is stored (at once without a store); rejects when the scan fails or is not stored. */
  stored: Promise<ScanOutcome>;
}

/**
 * Run one scan end to end: `startScan(...).stored`.
 * @param request source, clock, settings, progress callback
 * @param store see `startScan`
 * @returns the scan record, findings and all results
 * @throws see `startScan`
 */
export function runScan(request: ScanRequest, store?: ScanStore): Promise<ScanOutcome> {
  return startScan(request, store).stored;
}

/**
 * Run one scan: collect -> analyze -> store (`scanSteps`).
 * @param request source, clock, settings, progress callback
 * @param store when given, the scan and its findings are written (scan row first as `running`,
 *   then findings, fingerprints and the final status in one transaction). A promise of a store
 *   (one still starting, e.g. the demo's embedded PostgreSQL) defers every write until the fleet
 *   is read and analyzed: the row is then created and completed at once (scan-row.ts `deferredScanRow`). A
 *   `ScanHandOver` receives what completing the scan writes, for another process to store (scan-child.ts).
 * @returns the outcome once analyzed and once stored (`StartedScan`); `stored` rejects with
 *   FleetValidationError / ScanConfigError for bad input (nothing is written); ScanFailedError when nothing could be
 *   read (the stored scan is marked failed); the store's error when a deferred store does not start or the scan
 *   cannot be stored
 */
export function startScan(request: ScanRequest, store?: ScanStore): StartedScan {
  let analyzed!: (outcome: ScanOutcome) => void;
  const analysisDone = new Promise<ScanOutcome>((resolve) => (analyzed = resolve));
  const stored = scanSteps(request, store, analyzed);
  const started = { analyzed: Promise.race([analysisDone, stored]), stored };
  // A caller awaiting only `stored` sees the error there.
  started.analyzed.catch(() => undefined);
  return started;
}

/**
 * The one path of every scan, top-down: collect -> analyze -> store. The branches are data, decided before the first
 * step: whether the fleet is read before the row exists (`readsBeforeRow`), whether collect and analyze are one
 * threaded step (`threadedShardsOf`: an offline fleet directory, more than one thread, no store), and the scan's row
 * (`scanRowOf`: none, created now, deferred until the store step, or handed over to another process).
 */
async function scanSteps(request: ScanRequest, store: ScanStore | undefined, analyzed: (outcome: ScanOutcome) => void): Promise<ScanOutcome> {
  // The row of a deferred store is created after the analysis: its processing time starts here, not at creation.
  const processingStartedAt = new Date();
  const startedAt = request.observedAt ?? processingStartedAt;
  const shards = store === undefined ? threadedShardsOf(request) : undefined;
  // Offline input is validated before a scan row exists: a malformed fleet writes nothing.
  const early = readsBeforeRow(request, store, shards) ? await collectFleet(request.source, request.onProgress) : undefined;
  const row = await scanRowOf(request, store, { source: request.source.kind, fleetName: fleetNameOf(request, early), startedAt, processingStartedAt });
  try {
    // collect -> analyze (one threaded step, or the whole snapshot then every check on it)
    const scan = shards ? await analyzeThreadedStep(shards, request, row.id) : await collectAndAnalyze(request, early, row.id, store !== undefined);
    const outcome = outcomeOf(row.id, request.source.kind, startedAt, scan.fleet, scan.analysis);
    analyzed(outcome);
    // -> store (nothing without a store, nor after a threaded analysis: the fleet was read only in its threads)
    if (scan.snapshot) await row.store(scan.snapshot, scan.analysis, scan.index, (done) => request.onProgress?.({ phase: 'store', done, total: 1 }));
    // -> after the store, best effort: statistics and quota trend fits for the stored scan (readers refit without them)
    await row.refreshAfterStore();
    // A live scan also records what Quota Center decided on the stored applications since the last one. Best effort:
    // the scan is stored already, and the next scan or `quota request` run refreshes them again.
    if (request.source.kind === 'live') await row.refreshQuotaApplications(request.source.config);
    return outcome;
  } catch (e) {
    await row.fail(oneLineReason(e));
    throw e;
  } finally {
    row.close();
  }
}

/**
 * Whether the collect step runs before the scan's row exists: an offline fleet (a malformed one writes nothing), unless
 * the caller created the row already (POST /v1/scans: a fleet that became invalid then fails that row instead of
 * leaving it running) or the analysis is threaded (each thread reads its shard's files).
 */
function readsBeforeRow(request: ScanRequest, store: ScanStore | undefined, shards: AuditShard[] | undefined): boolean {
  const callerRow = request.scanId !== undefined && store !== undefined && !(store instanceof Promise) && !(store instanceof ScanHandOver);
  return request.source.kind === 'offline' && !callerRow && shards === undefined;
}

/** The name a scan's row records before its fleet is read: the snapshot's when read, the live config's, else `fleet`. */
function fleetNameOf(request: ScanRequest, snapshot: FleetSnapshot | undefined): string {
  return snapshot?.name ?? (request.source.kind === 'live' ? request.source.config.name : 'fleet');
}

/**
 * The row a scan writes: none without a store (an id only), created now on a ready store, deferred on a store still
 * starting, another process's for a handed-over scan. scan-row.ts is loaded here, only for a scan with a store: it
 * brings libs/store (pg) in, which an offline `fleet-audit scan --fleet DIR` must not load.
 */
async function scanRowOf(
  request: ScanRequest,
  store: ScanStore | undefined,
  fields: ScanRowFields & { processingStartedAt: Date },
): Promise<ScanRow> {
  if (store === undefined) return noScanRow(request.scanId ?? randomUUID());
  if (store instanceof ScanHandOver) return handOverScanRow(store, request.scanId ?? randomUUID());
  const { deferredScanRow, openScanRow } = await import('./scan-row.js');
  if (store instanceof Promise) return deferredScanRow(store, fields, request.scanId ?? randomUUID());
  return openScanRow(store, { source: fields.source, fleetName: fields.fleetName, startedAt: fields.startedAt }, request.scanId);
}

/** The row of a scan without a store: nothing is written. */
function noScanRow(id: string): ScanRow {
  return { id, store: async () => undefined, refreshAfterStore: async () => undefined, refreshQuotaApplications: async () => undefined, fail: async () => undefined, close: () => undefined };
}

/** What collect -> analyze produced: the analysis, the fleet's name and coverage, and what the store step needs. */
interface CollectedScan {
  analysis: ScanAnalysis;
  fleet: Pick<FleetSnapshot, 'name' | 'coverage'>;
  /** The snapshot to store (absent after a threaded analysis, which read the fleet only in its threads). */
  snapshot?: FleetSnapshot;
  /** The index the audit used, reused for the stored fleet graph. */
  index?: FleetIndex;
}

/** The collect step (unless done before the row existed: `early`), then the analyze step on the whole snapshot. */
async function collectAndAnalyze(request: ScanRequest, early: FleetSnapshot | undefined, scanId: string, stored: boolean): Promise<CollectedScan> {
  const snapshot = early ?? (await collectFleet(request.source, request.onProgress));
  // One index for the audit and the stored fleet graph.
  const index = stored ? FleetIndex.build(snapshot) : undefined;
  const analysis = analyzeStep(snapshot, request, scanId, index);
  return { analysis, fleet: snapshot, snapshot, ...(index ? { index } : {}) };
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
    ...(request.keepResults ? { keepResults: true } : {}),
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
): Promise<CollectedScan> {
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
  const results = keep ? threadedResults(audit) : [];
  const analysis: ScanAnalysis = {
    results,
    quotaUsage: keep ? quotaUsageOf(results, QUOTA_USAGE_CHECK_IDS) : [],
    findings: audit.findings,
    skipped: audit.skipped,
    summary: audit.summary,
    finishedAt: new Date(),
    ...(request.settings?.owners ? { owners: request.settings.owners } : {}),
  };
  return { analysis, fleet: { name: audit.fleetName, coverage: audit.coverage } };
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
    quotaUsage: a.quotaUsage,
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
