/**
 * Shapes the store reads and writes. Timestamps are ISO 8601 strings in UTC (what the API and the
 * reports print); counts and figures are JS numbers (int8 / numeric normalised, STACK.md pitfall 18).
 */
import type { CoverageEntry, Finding, FleetGraph, FleetSnapshot, QuotaUsageSample, Severity, SkippedResult } from '@app/domain';

/** Lifecycle of a scan: `running` until `complete` (-> `succeeded`) or `fail` (-> `failed`). */
export type ScanStatus = 'running' | 'succeeded' | 'failed';

/**
 * Where a scan read its fleet: an `offline` fleet directory, the `live` APIs from one process, or
 * `distributed` crawl jobs on the worker fleet (docs/architecture.md "Running modes").
 */
export type ScanSource = 'offline' | 'live' | 'distributed';

/**
 * Counts of one scan (stored as jsonb). The analyzer may add more fields (result counts, coverage
 * counts, fleet size); they are stored and returned as given.
 */
export interface ScanSummary {
  /** Number of findings (failed results). */
  findings: number;
  /** Findings per severity (counts; every severity present, 0 when none). */
  bySeverity: Record<Severity, number>;
  /** Findings per check id (counts; only checks with findings). */
  byCheck: Record<string, number>;
}

/** A scan row as listed (no coverage: it grows with the fleet, one entry per target and API). */
export interface StoredScanListItem {
  id: string;
  status: ScanStatus;
  source: ScanSource;
  fleetName: string | null;
  /** When the scan started; also the observation time of its findings (ISO 8601). */
  startedAt: string;
  /** When the scan succeeded or failed; null while running (ISO 8601). */
  finishedAt: string | null;
  /**
   * How long the scan took to process, seconds (wall clock from the creation of its row to `finishedAt`);
   * null while running. Not `finishedAt - startedAt`: a backfilled scan (`scan --now`) has a `startedAt` in
   * the past.
   */
  processingSeconds: number | null;
  /** Why the scan failed; null unless `failed`. Never contains credentials. */
  error: string | null;
  /** Null until the scan succeeded. */
  summary: ScanSummary | null;
}

/** A scan row with its coverage, skipped results and settings. */
export interface StoredScan extends StoredScanListItem {
  /** Which targets were read and which failed and why; null until the scan succeeded. */
  coverage: CoverageEntry[] | null;
  /**
   * The (check, resource) pairs the scan could not evaluate, with the reason; null until the scan
   * succeeded (and for scans stored before skipped results were kept).
   */
  skipped: SkippedResult[] | null;
  /** Effective audit settings the scan ran with (free-form JSON object). */
  settings: Record<string, unknown>;
}

/** Input of `scans.create`. */
export interface CreateScanInput {
  source: ScanSource;
  fleetName?: string;
  /** Observation time of the findings (a backfill sets a past one). Default: now. */
  startedAt?: Date;
  /**
   * When processing really began (wall clock), for a caller that creates the row only after the analysis
   * (a deferred store). Default: the database's now() at creation. `processingSeconds` runs from it.
   */
  processingStartedAt?: Date;
  /** Audit settings to record with the scan (JSON-serialisable). */
  settings?: Record<string, unknown>;
  /**
   * A caller-chosen id (uuid) for idempotent creation: creating the same id again returns the
   * existing scan unchanged (duplicated jobs change nothing). Default: a random uuid.
   */
  id?: string;
}

/** Input of `scans.complete`: everything a succeeded scan stores, visible to readers at once. */
export interface CompleteScanInput {
  findings: readonly Finding[];
  coverage: readonly CoverageEntry[];
  /** Results that were not evaluated, with the reason. Default: none. */
  skipped?: readonly SkippedResult[];
  /** Quota usage samples (results with used and limit). Default: none. */
  quotaUsage?: readonly QuotaUsageSample[];
  /** The fleet snapshot the scan analysed, kept for what-if and headroom forecasts. Default: not kept. */
  snapshot?: FleetSnapshot;
  /**
   * The scan's fleet graph (libs/checks `buildFleetGraph`), served by the API. Default: not stored. A promise (libs/checks
   * `buildFleetGraphAsync`) is awaited by the store: the chunked store writes the findings and quota samples meanwhile.
   */
  graph?: FleetGraph | Promise<FleetGraph>;
  /** Default: computed from `findings` (`summarizeFindings`). */
  summary?: ScanSummary;
  /** Default: now. */
  finishedAt?: Date;
  /**
   * Called after each chunk of a chunked store committed (progress; the chunk is then durable). Default: none.
   * Not called by the single-transaction store (`Store.open({ copy: false })`).
   */
  onChunk?: (chunk: StoredChunk) => void;
  /**
   * Called once the scan is visible to readers (the transaction marking it succeeded committed): with the chunked
   * store before its snapshot is encoded and written, else just before `complete` returns. Default: none.
   */
  onVisible?: () => void;
}

/** A chunk of a chunked store of a scan, committed (scan-store.ts). */
export interface StoredChunk {
  /** The table written (`findings`, `quota_usage`, `graph_*`, `scan_snapshots`). */
  table: string;
  /** Its number within the table's rows, from 0. */
  chunk: number;
  /** Rows it wrote (count). */
  rows: number;
}

/** A page request: `limit` rows (count) after skipping `offset` rows (count). */
export interface PageRequest {
  limit?: number;
  offset?: number;
}

/** A page of rows and the total number of rows matching (count, ignoring limit/offset). */
export interface Page<T> {
  items: T[];
  total: number;
}

/** A finding as stored: the domain Finding plus when its fingerprint was first and last seen. */
export interface StoredFinding extends Finding {
  /** Start of the first succeeded scan that reported this fingerprint (ISO 8601). */
  firstSeenAt: string;
  /** Start of the latest succeeded scan that reported this fingerprint (ISO 8601). */
  lastSeenAt: string;
}

/** Filters and paging of `findings.list`. */
export interface FindingQuery extends PageRequest {
  /** `nextCursor` of the previous page (keyset paging; not with `offset`). */
  cursor?: string;
  /** Default: the latest succeeded scan. */
  scanId?: string;
  checkId?: string;
  severity?: Severity;
  accountId?: string;
  clusterId?: string;
  /** Only findings of this team's clusters (`findings.team`, libs/domain owners.ts). */
  team?: string;
}

/**
 * Result of `findings.list`: the page, which scan it was read from (null: no scan yet), the
 * cursor of the next page, and the count of matching findings on pages read without a cursor.
 */
export interface FindingPage extends Omit<Page<StoredFinding>, 'total'> {
  /** Findings matching the filters over all pages; null on pages read with a cursor (not counted again). */
  total: number | null;
  scanId: string | null;
  /** Opaque cursor of the next page (same filters); null on the last page. */
  nextCursor: string | null;
}

/** A fitted window: which scans it covers and how its fits may be used. */
export interface QuotaTrendWindow {
  id: string;
  /** Digest of the succeeded scans started in the window (`QuotaTrendRepository.scansKey`). */
  scansKey: string;
  scanCount: number;
  series: number;
  /** Series whose samples name different clusters: a `clusterId` filter must refit while there are any. */
  mixedClusterSeries: number;
  /** The Sen interval coverage the fits were made with (libs/forecast TrendSettings.intervalCoverage). */
  intervalCoverage: number;
}
