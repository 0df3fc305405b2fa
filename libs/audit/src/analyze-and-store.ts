/**
 * Analyze and store: the one step every scan ends with, whichever way its snapshot was read (the local
 * `runScan` of the CLI and the API, and the worker's analyze job after the distributed crawl).
 *
 * snapshot -> index -> every check -> findings, skipped results, quota usage samples, summary -> stored with the
 * coverage, visible at once (`store.scans.complete`); docs/scan-path.md.
 */
import { buildFleetGraphAsync, FleetIndex, QUOTA_USAGE_CHECK_IDS, runAudit, type PartialAuditSettings, type StatusCounts } from '@app/checks';
import {
  assignTeams,
  clustersOf,
  withSampleTeams,
  type OwnerSettings,
  skippedResultsOf,
  type CheckResult,
  type FleetSnapshot,
  type Finding,
  type QuotaUsageSample,
  type Severity,
  type SkippedResult,
} from '@app/domain';
import type { CompleteScanInput, Store } from '@app/store';
import { fleetAuditErrorKind } from '@app/errors';

/** Counts per severity and per check id. */
export interface ScanSummary {
  findings: number;
  bySeverity: Record<Severity, number>;
  byCheck: Record<string, number>;
  /** Evaluated (check, resource) pairs by status. */
  results: { pass: number; fail: number; skipped: number };
  /** The same per check id (every check that produced a result), sorted by id. */
  byCheckStatus: Record<string, { pass: number; fail: number; skipped: number }>;
  /** Coverage entries by status. */
  coverage: { ok: number; failed: number; absent: number };
  accounts: number;
  clusters: number;
  loadBalancers: number;
}

/** A scan that could not complete (nothing usable was read, or an unexpected error). */
export class ScanFailedError extends fleetAuditErrorKind('ScanFailedError', 'SCAN_FAILED', true) {
  // permanent: the scan is stored as failed; the same input fails the same way.
  constructor(
    message: string,
    readonly scanId: string,
  ) {
    super(message);
  }
}

/** What the analysis of one snapshot produced. */
export interface ScanAnalysis {
  /**
   * The evaluated results: every one with `keepResults`; otherwise only the skipped ones (`summary` counts them all;
   * the quota measurements are in `quotaUsage`).
   */
  results: CheckResult[];
  /**
   * The quota usage samples of the quota checks (`QUOTA_USAGE_CHECK_IDS`), taken as the audit ran: what
   * `quotaUsageOf(results)` gives of every result (libs/checks `RunAuditOptions.quotaSamplesOf`). Empty after a
   * threaded analysis without `keepResults` (its threads return findings and counts; such a scan is not stored).
   */
  quotaUsage: QuotaUsageSample[];
  findings: Finding[];
  /** The (check, resource) pairs not evaluated, with the reason. */
  skipped: SkippedResult[];
  summary: ScanSummary;
  /** When the analysis (and the store step) ended: the scan's `finishedAt`. */
  finishedAt: Date;
  /** The settings' owners: the stored quota samples carry their cluster's team (withSampleTeams). */
  owners?: OwnerSettings;
}

/** Inputs of `analyzeAndStore`. */
export interface AnalyzeAndStoreRequest {
  /** The scan's id (its row when `store` is given). */
  scanId: string;
  /** Analysis clock. */
  now: Date;
  settings?: PartialAuditSettings;
  /** When given, the scan is completed in it: findings, coverage, skipped, quota usage, the snapshot and summary, visible at once. */
  store?: Store;
  /** The snapshot's FleetIndex when the caller built it already (reused for the stored fleet graph). */
  index?: FleetIndex;
  /** Called before and after the analysis and the store step (progress bars). */
  onPhase?: (phase: 'analyze' | 'store', done: 0 | 1) => void;
  /** Keep every evaluated result in the returned analysis (`AnalyzeRequest.keepResults`). */
  keepResults?: boolean;
}

/**
 * Summarise findings, results, coverage and snapshot size.
 * @param counts the results counted by status per check id (`AuditOutput.counts`, or `statusCountsOf` of a list)
 */
export function summarize(snapshot: FleetSnapshot, counts: ReadonlyMap<string, StatusCounts>, findings: Finding[]): ScanSummary {
  const bySeverity: Record<Severity, number> = { info: 0, warning: 0, critical: 0 };
  const byCheck: Record<string, number> = {};
  for (const f of findings) {
    bySeverity[f.severity] += 1;
    byCheck[f.checkId] = (byCheck[f.checkId] ?? 0) + 1;
  }
  const res = { pass: 0, fail: 0, skipped: 0 };
  for (const c of counts.values()) {
    res.pass += c.pass;
    res.fail += c.fail;
    res.skipped += c.skipped;
  }
  const cov = { ok: 0, failed: 0, absent: 0 };
  for (const c of snapshot.coverage) cov[c.status] += 1;
  let clusters = 0;
  let lbs = 0;
  for (const a of snapshot.accounts)
    for (const r of a.regions) {
      clusters += r.clusters.length;
      lbs += r.loadBalancers?.length ?? 0;
    }
  return {
    findings: findings.length,
    bySeverity,
    byCheck: Object.fromEntries(Object.entries(byCheck).sort(([a], [b]) => (a < b ? -1 : 1))),
    results: res,
    byCheckStatus: Object.fromEntries([...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, c]) => [id, { ...c }])),
    coverage: cov,
    accounts: snapshot.accounts.length,
    clusters,
    loadBalancers: lbs,
  };
}

/**
 * Why a snapshot cannot be analyzed: every coverage entry failed (the scan read nothing), naming the
 * first failure; `undefined` when something was read. A scan that read nothing is failed, never
 * reported as a healthy empty fleet.
 */
export function nothingReadReason(snapshot: FleetSnapshot): string | undefined {
  if (snapshot.coverage.length === 0 || !snapshot.coverage.every((c) => c.status === 'failed')) return undefined;
  const first = snapshot.coverage[0];
  return `nothing could be read: ${first.api} on account ${first.accountId}${first.regionId ? `/${first.regionId}` : ''} failed with ${first.errorCode ?? 'an error'}: ${first.message ?? ''}`.trim();
}

/** `RunAuditOptions.keepResultsOf` of a scan that keeps no pass or fail result: only the skipped ones are kept. */
export const KEEP_SKIPPED_ONLY: ReadonlySet<string> = new Set();

/** Inputs of `analyzeSnapshot`. */
export interface AnalyzeRequest {
  /** The scan's id (named by a ScanFailedError). */
  scanId: string;
  /** Analysis clock. */
  now: Date;
  settings?: PartialAuditSettings;
  /** The snapshot's FleetIndex when the caller built it already (reused later for the stored fleet graph). */
  index?: FleetIndex;
  /**
   * Keep every evaluated result in `ScanAnalysis.results` (JUnit output lists them). Otherwise only the skipped ones
   * are kept (the quota checks' measurements as samples, `ScanAnalysis.quotaUsage`): on a 10M-entry fleet 2.5M results
   * are evaluated, and the memory of the passes and fails is not held.
   */
  keepResults?: boolean;
}

/**
 * The analyze step of a scan on its own: every enabled check on the snapshot, its summary and skipped results. It
 * calls nothing of its caller's: the scan runner reads the fleet, calls this, then `storeAnalysis`, in that order.
 * @returns results, findings, skipped results, the summary and the finish time
 * @throws ScanFailedError when the scan read nothing (`nothingReadReason`)
 */
export function analyzeSnapshot(snapshot: FleetSnapshot, req: AnalyzeRequest): ScanAnalysis {
  const nothing = nothingReadReason(snapshot);
  if (nothing !== undefined) throw new ScanFailedError(nothing, req.scanId);
  const { results, findings, counts, quotaUsage } = runAudit(snapshot, {
    now: req.now,
    ...(req.settings ? { settings: req.settings } : {}),
    ...(req.index ? { index: req.index } : {}),
    ...(req.keepResults === true ? {} : { keepResultsOf: KEEP_SKIPPED_ONLY }),
    quotaSamplesOf: QUOTA_USAGE_CHECK_IDS,
  });
  const summary = summarize(snapshot, counts, findings);
  const skipped = skippedResultsOf(results);
  const finishedAt = new Date();
  return {
    results,
    quotaUsage: quotaUsage ?? [],
    findings,
    skipped,
    summary,
    finishedAt,
    ...(req.settings?.owners ? { owners: req.settings.owners } : {}),
  };
}

/**
 * Analyze a snapshot (every enabled check) and, with a store, complete the scan with the outcome: `analyzeSnapshot`
 * then `storeAnalysis` (the worker's analyze job, benchmarks and tests; the scan runner calls the two itself).
 * @returns results, findings, skipped results and the summary
 * @throws ScanFailedError when the scan read nothing (`nothingReadReason`; nothing is written: the
 *   caller fails the scan row); Postgres errors from the store
 */
export async function analyzeAndStore(snapshot: FleetSnapshot, req: AnalyzeAndStoreRequest): Promise<ScanAnalysis> {
  const nothing = nothingReadReason(snapshot);
  if (nothing !== undefined) throw new ScanFailedError(nothing, req.scanId);
  req.onPhase?.('analyze', 0);
  // One index for the audit and the stored fleet graph (its lazy backend statistics are computed once).
  const index = req.index ?? (req.store ? FleetIndex.build(snapshot) : undefined);
  const analysis = analyzeSnapshot(snapshot, {
    scanId: req.scanId,
    now: req.now,
    ...(req.settings ? { settings: req.settings } : {}),
    ...(index ? { index } : {}),
    ...(req.keepResults ? { keepResults: true } : {}),
  });
  req.onPhase?.('analyze', 1);
  if (req.store) await storeAnalysis(req.store, req.scanId, snapshot, analysis, { ...(req.onPhase ? { onPhase: req.onPhase } : {}), ...(index ? { index } : {}) });
  return analysis;
}

/** Options of `storeAnalysis`. */
export interface StoreAnalysisOptions {
  /** Called before and after the store step (progress bars). */
  onPhase?: (phase: 'store', done: 0 | 1) => void;
  /** The FleetIndex the audit used (built again when omitted). */
  index?: FleetIndex;
  /** Called once the scan is visible to readers (its last transaction committed), as `store.scans.complete` returns. */
  onVisible?: () => void;
}

/**
 * What completing a scan writes for an analysis of `snapshot` (`store.scans.complete`'s input without the fleet
 * graph): findings, coverage, skipped results, quota usage samples carrying their cluster's team, the snapshot, the
 * summary and the finish time. The stored snapshot carries each cluster's team too: `snapshot` is changed in place
 * (`assignTeams`), so the API's headroom and what-if read teams without audit settings.
 */
export function completeScanInputOf(snapshot: FleetSnapshot, analysis: ScanAnalysis): CompleteScanInput {
  assignTeams(snapshot, analysis.owners);
  return {
    findings: analysis.findings,
    coverage: snapshot.coverage,
    skipped: analysis.skipped,
    quotaUsage: withSampleTeams(analysis.quotaUsage, clustersOf(snapshot), analysis.owners),
    // Kept for what-if and headroom forecasts on the database (libs/forecast).
    snapshot,
    summary: analysis.summary,
    finishedAt: analysis.finishedAt,
  };
}

/**
 * The store step of `analyzeAndStore` on its own: complete the scan row `scanId` with an analysis
 * of `snapshot` (`completeScanInputOf` and the fleet graph: `store.scans.complete`, which makes them visible at once).
 * It ends when the scan is visible; the table statistics and quota trend fits are the caller's next step
 * (`store.scans.refreshAfterStore`).
 * @throws StoreError NOT_FOUND when the row does not exist, CONFLICT when it failed, UNAVAILABLE
 *   when PostgreSQL stays unreachable
 */
export async function storeAnalysis(
  store: Store,
  scanId: string,
  snapshot: FleetSnapshot,
  analysis: ScanAnalysis,
  { onPhase, index, onVisible }: StoreAnalysisOptions = {},
): Promise<void> {
  onPhase?.('store', 0);
  const complete = completeScanInputOf(snapshot, analysis);
  await store.scans.complete(scanId, {
    ...complete,
    // What the API serves as a graph (GraphQL, /v1/clusters, /v1/load-balancers/{id}, ...), built in slices while the
    // store writes the findings and quota samples.
    graph: buildFleetGraphAsync(snapshot, index),
    ...(onVisible ? { onVisible } : {}),
  });
  onPhase?.('store', 1);
}
