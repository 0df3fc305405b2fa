import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import type { CoverageEntry, FleetSnapshot, Severity, SkippedResult } from '@app/domain';
import { dedupeByFingerprint, type FindingRepository } from './finding.repository';
import type { QuotaTrendRepository } from './quota-trend.repository';
import { QUOTA_COPY_COLUMNS, quotaSampleKey, type QuotaUsageRepository } from './quota-usage.repository';
import { encodeSnapshotParts, type ScanSnapshotRepository } from './scan-snapshot.repository';
import type { FleetGraphRepository } from './fleet-graph.repository';
import { pagingSql, toPage, type GraphPage, type GraphPageArgs } from './keyset-page.util';
import { isUuid, resolvePage } from './page.util';
import type { Scoped } from './principal';
import { teamRowCondition, type TeamRowColumns } from './team-scope.util';
import { storableJson, storableText, toIso, toIsoOrNull, toNumber } from './sql.util';
import { ColumnProbe } from './schema-probe.util';
import { StoreError } from './store.exception';
import { isConnectionLoss, withStoreRetry } from './store-retry.util';
import { withTransaction } from './transaction.util';
import type {
  CompleteScanInput,
  CreateScanInput,
  Page,
  PageRequest,
  ScanSource,
  ScanStatus,
  ScanSummary,
  StoredScan,
  StoredScanListItem,
} from './store.types';
import { summarizeFindings } from './summary.util';
import { copyPart, dedupeRows } from './copy.util';
import type { ChunkedScanStore, ScanRows } from './scan-store';
import type { ScanPartitions } from './scan-partition.util';

/** Most rows per chunk of a chunked store (one transaction each) for findings and quota samples. */
const CHUNK_ROWS = 50_000;

/** A timestamptz column as a Date. */
function toDate(v: Date | string): Date {
  return v instanceof Date ? v : new Date(v);
}

/** Longest stored error message (characters); longer ones are cut, the start says what failed. */
const MAX_ERROR_LENGTH = 4000;

interface ScanListRow extends QueryResultRow {
  id: string;
  status: ScanStatus;
  source: ScanSource;
  fleet_name: string | null;
  started_at: Date | string;
  finished_at: Date | string | null;
  processing_started_at: Date | string | null;
  error: string | null;
  summary: ScanSummary | null;
}

interface ScanRow extends ScanListRow {
  coverage: CoverageEntry[] | null;
  skipped: SkippedResult[] | null;
  settings: Record<string, unknown>;
}

const BASE_LIST_COLUMNS = ['id', 'status', 'source', 'fleet_name', 'started_at', 'finished_at', 'error', 'summary'];

/**
 * `processing_started_at` of the scans row `row` (alias or table name): the column where the schema has it
 * (migration 1798400000000), NULL before (the duration then falls back to `started_at`). Named, not read through
 * `to_jsonb` of the row, which would convert the whole row, coverage and skipped results included (megabytes at
 * 5,000 clusters).
 * @param hasColumn whether `scans.processing_started_at` exists (`ScanRepository.processingProbe`)
 */
function processingColumn(row: string, hasColumn: boolean): string {
  return hasColumn ? `${row}.processing_started_at` : 'NULL::timestamptz AS processing_started_at';
}

/** The list columns of the scans row `row` (alias or table name; see `processingColumn`). */
function listColumns(row: string, hasProcessing: boolean): string {
  return `${BASE_LIST_COLUMNS.map((c) => `${row}.${c}`).join(', ')}, ${processingColumn(row, hasProcessing)}`;
}

/** Every column a StoredScan reads of the scans row `row`. */
function allColumns(row: string, hasProcessing: boolean): string {
  return `${listColumns(row, hasProcessing)}, ${row}.coverage, ${row}.skipped, ${row}.settings`;
}

/** What a principal scoped to some accounts reads instead of a failed scan's reason (it may name other accounts). */
export const SCOPED_ERROR_TEXT = 'scan failed (the reason is shown to tokens of every account)';

/**
 * The scan columns as a principal scoped to some accounts (or teams) sees them, computed in SQL: coverage and skipped
 * results of its accounts (and, for a team-scoped principal, of its teams: team-scope.util.ts) only, the failure
 * reason hidden. The summary reads as an empty object where the scan has one (NULL where it has none): its counts are
 * the principal's findings only, which `scopedSummaries` counts for the rows read.
 * @param add registers a bind parameter and returns its placeholder
 */
function scopedColumns(scope: Scoped, add: (value: unknown) => string, withDetail: boolean, hasProcessing: boolean): string {
  const summary = `CASE WHEN s.summary IS NULL THEN NULL ELSE '{}'::jsonb END AS summary`;
  const list = `s.id, s.status, s.source, s.fleet_name, s.started_at, s.finished_at, ${processingColumn('s', hasProcessing)},
      CASE WHEN s.error IS NULL THEN NULL ELSE '${SCOPED_ERROR_TEXT}' END AS error, ${summary}`;
  if (!withDetail) return list;
  // Registered only where it is used: PostgreSQL cannot type a parameter no expression names.
  const accounts = scope.accountScope.all ? null : `${add([...scope.accountScope.accountIds])}::text[]`;
  const filtered = (column: string, cols: TeamRowColumns) => {
    const inAccounts = accounts ? `${cols.account} = ANY(${accounts})` : 'TRUE';
    return `CASE WHEN s.${column} IS NULL THEN NULL ELSE COALESCE((SELECT jsonb_agg(e ORDER BY o) FROM jsonb_array_elements(s.${column}) WITH ORDINALITY AS x(e, o)
        WHERE ${inAccounts} AND ${teamRowCondition(cols, scope, add)}), '[]'::jsonb) END AS ${column}`;
  };
  const coverage = filtered('coverage', { scan: 's.id', account: "(e->>'accountId')", region: "(e->>'regionId')", cluster: "(e->>'clusterId')" });
  const skipped = filtered('skipped', {
    scan: 's.id',
    account: "(e->'resource'->>'accountId')",
    region: "(e->'resource'->>'regionId')",
    cluster: "(e->'resource'->>'clusterId')",
    team: "(e->'resource'->>'team')",
    shared: "(e->'resource'->>'kind') IN ('Account', 'Region')",
  });
  return `${list}, ${coverage}, ${skipped}, s.settings`;
}

/** Whether a principal reads scans through `scopedColumns` (a scope narrower than every account and team). */
function isScoped(scope: Scoped): boolean {
  return !scope.accountScope.all || scope.teamScope !== undefined;
}

/** A scan's summary as a scoped principal reads it: counts over its own findings only. */
interface ScopedSummary {
  findings: number;
  bySeverity: Record<Severity, number>;
  byCheck: Record<string, number>;
}

/**
 * Fill in the summaries `scopedColumns` left empty: each row whose scan has a summary gets the counts of the
 * principal's findings of that scan (in total, per severity, per check id in check id order; zero where it has none).
 * One statement for every row read, naming the scans by a bind parameter, so PostgreSQL plans those scans' partitions
 * of `findings` only (migration 1800800000000); counted per row in a subquery of the scans row, the scan id would be a
 * value known only at run time and every query would plan and lock every scan's partition (2.1-3.2 s for a page of
 * 50 scans with 500 stored, measured on this VM).
 * @param rows the rows read through `scopedColumns` (changed in place)
 */
async function scopedSummaries<R extends { id: string; summary: unknown }>(pool: Pool, rows: R[], scope: Scoped): Promise<R[]> {
  const wanted = rows.filter((r) => r.summary !== null).map((r) => r.id);
  if (wanted.length === 0) return rows;
  const params: unknown[] = [wanted];
  const where = ['f.scan_id = ANY($1::uuid[])'];
  if (!scope.accountScope.all) where.push(`f.account_id = ANY($${params.push([...scope.accountScope.accountIds])}::text[])`);
  if (scope.teamScope !== undefined) where.push(`f.team = ANY($${params.push([...scope.teamScope])}::text[])`);
  const counts = await pool.query<{ scan_id: string; check_id: string; severity: Severity; n: string | number }>(
    `SELECT f.scan_id, f.check_id, f.severity, count(*) AS n FROM findings f WHERE ${where.join(' AND ')} GROUP BY f.scan_id, f.check_id, f.severity ORDER BY f.check_id COLLATE "C"`,
    params,
  );
  const byScan = new Map<string, ScopedSummary>(wanted.map((id) => [id.toLowerCase(), { findings: 0, bySeverity: { info: 0, warning: 0, critical: 0 }, byCheck: {} }]));
  for (const c of counts.rows) {
    const summary = byScan.get(c.scan_id.toLowerCase());
    if (!summary) continue;
    const n = toNumber(c.n);
    summary.findings += n;
    summary.bySeverity[c.severity] += n;
    summary.byCheck[c.check_id] = (summary.byCheck[c.check_id] ?? 0) + n;
  }
  for (const r of rows) if (r.summary !== null) r.summary = byScan.get(r.id.toLowerCase());
  return rows;
}

/** One attempt of a chunked store (`ScanRepository.completeChunked`): the store, the scan, the attempt and what it writes. */
interface ChunkedAttempt {
  chunked: ChunkedScanStore;
  id: string;
  attempt: string;
  rows: ScanRows;
  input: CompleteScanInput;
  summary: ScanSummary;
}

/**
 * Scans: create (running), complete (succeeded, with findings, visible at once), fail, read.
 *
 * State rules: `complete` is allowed on a running scan and again on a succeeded one (idempotent:
 * it replaces the stored result); `fail` is allowed on a running or failed scan. Completing a
 * failed scan or failing a succeeded one is a CONFLICT, so a late duplicate job can never flip
 * a finished scan.
 */
export class ScanRepository {
  /**
   * @param pool the store's connection pool
   * @param findings writes a scan's findings inside `complete`'s transaction
   * @param quotaUsage writes a scan's quota usage samples inside `complete`'s transaction
   * @param snapshots writes a scan's fleet snapshot inside `complete`'s transaction
   * @param graph writes a scan's fleet graph (tables `graph_*`) inside `complete`'s transaction
   * @param trends refreshes the quota trend fits (`refreshAfterStore`)
   * @param chunked with it, `complete` stores a running scan with COPY in committed chunks and makes it visible in
   *   one last transaction (scan-store.ts); without it, in one transaction (the embedded PGlite back end)
   * @param partitions the tables partitioned per scan (scan-partition.util.ts): a write through their parents needs the
   *   scan's partitions first; the statistics after a store are taken of the new partitions
   */
  constructor(
    private readonly pool: Pool,
    private readonly findings: FindingRepository,
    private readonly quotaUsage: QuotaUsageRepository,
    private readonly snapshots?: ScanSnapshotRepository,
    private readonly graph?: FleetGraphRepository,
    private readonly trends?: QuotaTrendRepository,
    private readonly chunked?: ChunkedScanStore,
    private readonly partitions?: ScanPartitions,
  ) {
    this.processingProbe = new ColumnProbe(pool, 'scans', 'processing_started_at');
  }

  /** Whether `scans.processing_started_at` exists (migration 1798400000000). */
  private readonly processingProbe: ColumnProbe;

  /** Every column a StoredScan reads of `scans`, for this database's schema (`allColumns`). */
  private async scanColumns(db: Pool | PoolClient): Promise<string> {
    return allColumns('scans', await this.processingProbe.exists(db));
  }

  /**
   * Create a running scan. Idempotent for a caller-chosen `id`: the existing scan is returned.
   * @throws StoreError INVALID_ARGUMENT when `id` is not a uuid
   */
  async create(input: CreateScanInput): Promise<StoredScan> {
    const id = input.id ?? randomUUID();
    if (!isUuid(id)) throw new StoreError('INVALID_ARGUMENT', `scan id must be a uuid, got "${id}"`);
    const inserted = await this.pool.query<ScanRow>(
      `INSERT INTO scans (id, status, source, fleet_name, started_at, settings, heartbeat_at)
       VALUES ($1, 'running', $2, $3, $4, $5::jsonb, CASE WHEN $2 = 'distributed' THEN NULL ELSE now() END)
       ON CONFLICT (id) DO NOTHING
       RETURNING ${await this.scanColumns(this.pool)}`,
      [id, input.source, storableText(input.fleetName), input.startedAt ?? new Date(), storableJson(input.settings ?? {})],
    );
    // The column's default (now()) is the processing start; a caller that created the row late gives the real one.
    if (inserted.rows[0] && input.processingStartedAt)
      await this.pool.query('UPDATE scans SET processing_started_at = $2 WHERE id = $1', [id, input.processingStartedAt]);
    const row = (input.processingStartedAt ? undefined : inserted.rows[0]) ?? (await this.getRow(this.pool, id));
    if (!row) throw new StoreError('NOT_FOUND', `scan ${id} not found after create`);
    return toStoredScan(row);
  }

  /**
   * Mark a scan succeeded and store its findings, fingerprint sightings, coverage, skipped results, quota samples,
   * fleet graph and summary, visible to readers at once: they see either the running scan without a result or the
   * whole result, never a half-written one; and store its snapshot. With the chunked store (scan-store.ts) the rows go in with COPY
   * in chunks committed as they go and one last transaction marks the scan succeeded; then the snapshot (the what-if
   * forecasts' input, read only as the latest one stored) is encoded and written in a transaction of its own, so its
   * 20 CPU s at 5,000 clusters never keep the findings from readers: until it commits, forecasts run on the previous
   * scan's snapshot. Without the chunked store (PGlite) it is all one transaction, the snapshot included. It returns
   * once the scan is visible and its snapshot stored: the table statistics and the quota trend fits that serve
   * readers of the new rows are the caller's next step (`refreshAfterStore`), so they never hold the store.
   * @param id the scan
   * @param input findings (any number; deduplicated by fingerprint, the most severe kept), coverage, summary
   *   (default: counted from findings), finishedAt (default: now), `onChunk` / `onVisible` progress hooks
   * @returns the succeeded scan
   * Retried with backoff while the connection is lost (a PostgreSQL restart): committed chunks are kept and the
   * store resumes after them; the last transaction is all-or-nothing, and completing a succeeded scan again
   * replaces its result, so a retry is safe.
   * @throws StoreError NOT_FOUND (no such scan), CONFLICT (the scan failed, or another attempt took the store
   *   over), UNAVAILABLE (the connection stayed lost through every retry); the driver's error for rows PostgreSQL
   *   refuses (nothing of this attempt is left behind); StoreError whose message says the scan is stored when it is
   *   visible but its snapshot could not be written (the scan stays succeeded)
   */
  async complete(id: string, input: CompleteScanInput): Promise<StoredScan> {
    // A graph still being built may fail before the store awaits it: observed now, its error reaches the caller from
    // where the store awaits it.
    if (input.graph instanceof Promise) input.graph.catch(() => undefined);
    const summary = input.summary ?? summarizeFindings(input.findings);
    if (this.chunked && (await this.chunked.available())) {
      const done = await this.completeChunked(this.chunked, id, input, summary);
      input.onVisible?.();
      if (input.snapshot && this.snapshots) await this.storeSnapshotOfVisible(this.chunked, id, input.snapshot);
      return done;
    }
    const done = await withStoreRetry(`cannot store scan ${id}`, () => this.completeOnce(id, input, summary));
    input.onVisible?.();
    return done;
  }

  /**
   * The snapshot of a scan `completeChunked` made visible: encoded and compressed once, then written in its own
   * transaction, retried with backoff while the connection is lost.
   * @throws StoreError saying the scan is stored but not its snapshot, when it cannot be encoded or written (the scan
   *   stays succeeded): UNAVAILABLE when the connection stayed lost, else the store's own code, else CONFLICT
   */
  private async storeSnapshotOfVisible(chunked: ChunkedScanStore, id: string, snapshot: FleetSnapshot): Promise<void> {
    try {
      const compressed = await encodeSnapshotParts(snapshot);
      await withStoreRetry(`cannot store the snapshot of scan ${id}`, () => chunked.storeSnapshot(id, compressed));
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      throw new StoreError(
        isConnectionLoss(e) ? 'UNAVAILABLE' : e instanceof StoreError ? e.code : 'CONFLICT',
        `scan ${id} is stored and visible, but its fleet snapshot could not be stored (what-if and headroom forecasts use the previous scan's until a scan stores one): ${reason}`,
        { cause: e },
      );
    }
  }

  /**
   * The follow-up of storing scans (`complete`, `completeFromShards`), run by their callers as a step of its own once
   * the scan is visible, so it never holds the store: fresh planner statistics for the tables a store writes most
   * rows into, and the quota trend fits of the window ending `now`.
   *
   * Statistics: finding pages keep using the scan's index instead of a hash join over every row planned from stale
   * counts, and the quota history reads (forecasts) theirs. ANALYZE samples a bounded number of pages
   * (300 x default_statistics_target rows; PostgreSQL docs "ANALYZE"), so its cost does not grow with the tables. The
   * tables partitioned per scan have their new partitions analysed, not their parents (`ScanPartitions.analyzeNew`).
   * Trend fits (QuotaTrendRepository.refreshAfterScan: on a thread of its own on a PostgreSQL server): trends requests
   * read one stored fit per series instead of refitting every sample; its cost grows with the samples of the window
   * (every stored scan of the last `windowDays`).
   *
   * Best effort, never throws: until it ran (or when it failed), readers answer the same, from the samples (a trends
   * request whose window names other scans than the kept fits refits them: QuotaTrendRepository.windowFor) and with
   * the statistics PostgreSQL's autovacuum keeps.
   * @param now the end of the trend window (the clock of the requests the fits serve); default the wall clock
   */
  async refreshAfterStore(now: Date = new Date()): Promise<void> {
    // A parent partitioned per scan is not analysed: that samples every scan's partition again (analyzeNew analyses
    // the new ones).
    const partitioned: ReadonlySet<string> = this.partitions ? await this.partitions.partitionedTables().catch(() => new Set<string>()) : new Set<string>();
    const plain = ['findings', 'finding_fingerprints', 'quota_usage'].filter((t) => !partitioned.has(t));
    await this.pool.query(`ANALYZE ${plain.join(', ')}`).catch(() => undefined);
    await this.partitions?.analyzeNew().catch(() => undefined);
    await this.trends?.refreshAfterScan(now).catch(() => undefined);
  }

  /**
   * `complete` through the chunked store (scan-store.ts): the rows written with COPY in chunks committed as they go,
   * and one transaction that records the sightings (once the findings are stored, while the other chunks are written,
   * when the pool spares a connection) and marks the scan succeeded (the moment readers see it). A
   * lost connection anywhere begins again with the same attempt, which resumes after its committed chunks. A scan
   * that already succeeded has its result replaced in one transaction (its rows are visible). A store that cannot
   * finish deletes the rows it wrote before throwing.
   */
  private async completeChunked(chunked: ChunkedScanStore, id: string, input: CompleteScanInput, summary: ScanSummary): Promise<StoredScan> {
    const attempt = randomUUID();
    const rows: ScanRows = {
      parts: [
        copyPart('findings', (client) => this.findings.copyColumns(client), dedupeByFingerprint(input.findings), CHUNK_ROWS),
        copyPart('quota_usage', QUOTA_COPY_COLUMNS, dedupeRows(input.quotaUsage ?? [], quotaSampleKey), CHUNK_ROWS),
      ],
    };
    // The graph's parts join when the graph is built (scan-store.ts `partsReady`): the lanes write the findings and
    // quota samples meanwhile.
    const graphRepo = this.graph;
    if (input.graph && graphRepo) {
      rows.later = Promise.resolve(input.graph).then((g) => graphRepo.copyParts(g));
      // Observed here too: a store that ends before staging (a conflict) never awaits it.
      rows.later.catch(() => undefined);
    }
    try {
      return await withStoreRetry(`cannot store scan ${id}`, () => this.completeChunkedOnce(chunked, id, attempt, rows, input, summary));
    } catch (e) {
      // No rows of this attempt stay behind under the running scan (bad data, a conflict, PostgreSQL gone for good).
      // Best effort: `fail` and the reaper delete them otherwise.
      await withTransaction(this.pool, async (client) => {
        await this.lockScan(client, id);
        if (await chunked.ownedBy(client, id, attempt)) await chunked.discard(client, id);
      }).catch(() => undefined);
      throw e;
    }
  }

  /** One try of `completeChunked`: begin (claim or resume), stage the chunks, then the final transaction. */
  private async completeChunkedOnce(
    chunked: ChunkedScanStore,
    id: string,
    attempt: string,
    rows: ScanRows,
    input: CompleteScanInput,
    summary: ScanSummary,
  ): Promise<StoredScan> {
    if ((await chunked.begin(id, attempt)) === 'succeeded') {
      await this.partitions?.ensure(id);
      return withTransaction(this.pool, async (client) => {
        const scan = await this.lockScan(client, id);
        if (scan.status === 'failed') throw new StoreError('CONFLICT', `scan ${id} already failed; it cannot be completed`);
        await chunked.replaceAll(client, id, rows);
        await this.findings.recordSightings(client, id, toDate(scan.started_at), null);
        return markSucceeded(client, id, { ...input, summary }, await this.scanColumns(client));
      });
    }
    if (!chunked.sparesAConnection) {
      await chunked.stage(id, attempt, rows, input.onChunk);
      await chunked.attach(id);
      return withTransaction(this.pool, (client) => this.publishChunked(client, { chunked, id, attempt, rows, input, summary }, false));
    }
    // The final transaction begins while the lanes write: once the findings are stored, it records their sightings
    // (an upsert of every fingerprint of the scan: about a second at 5,000 clusters) while the lanes write the fleet
    // graph, instead of after the last chunk. Its row locks and writes stay its own until it commits with the scan's
    // status, so readers still see the sightings and the scan at once; a store that does not finish rolls them back.
    let findingsStored!: () => void;
    const findings = new Promise<void>((resolve) => {
      findingsStored = resolve;
    });
    return withTransaction(this.pool, async (client) => {
      // Idle between its statements while the lanes write: a server-wide idle-in-transaction timeout (a managed
      // PostgreSQL may set one) would end it, and every retry, before the scan is visible.
      await client.query('SET LOCAL idle_in_transaction_session_timeout = 0');
      const staged = chunked
        .stage(id, attempt, rows, input.onChunk, (table) => {
          if (table === 'findings') findingsStored();
        })
        .then(() => chunked.attach(id));
      // Observed here: awaited below on every path.
      staged.catch(() => undefined);
      const sightings = await Promise.race([findings.then(() => true), staged.then(() => false)]);
      if (sightings) {
        const started = await client.query<{ started_at: Date | string }>('SELECT started_at FROM scans WHERE id = $1', [id]);
        if (started.rows[0]) await this.findings.recordSightings(client, id, toDate(started.rows[0].started_at), null);
      }
      await staged;
      return this.publishChunked(client, { chunked, id, attempt, rows, input, summary }, sightings);
    });
  }

  /**
   * The final transaction of a chunked store, on its client: lock the scan, check this attempt still owns it with every
   * chunk stored (`claim`), record the sightings unless `sightingsRecorded`, mark the scan succeeded (the moment
   * readers see it) and end the attempt.
   * @throws StoreError CONFLICT when the scan failed meanwhile or another attempt owns it
   */
  private async publishChunked(client: PoolClient, store: ChunkedAttempt, sightingsRecorded: boolean): Promise<StoredScan> {
    const { chunked, id, attempt, rows, input, summary } = store;
    const scan = await this.lockScan(client, id);
    if (scan.status === 'failed') throw new StoreError('CONFLICT', `scan ${id} already failed; it cannot be completed`);
    if ((await chunked.claim(client, id, attempt, rows)) === 'gone') {
      // This final transaction committed before its answer was lost: the scan is stored.
      if (scan.status === 'succeeded') return toStoredScan((await this.getRow(client, id)) as ScanRow);
      throw new StoreError('CONFLICT', `scan ${id} is no longer stored by this attempt`);
    }
    if (!sightingsRecorded) await this.findings.recordSightings(client, id, toDate(scan.started_at), null);
    const done = await markSucceeded(client, id, { ...input, summary }, await this.scanColumns(client));
    await chunked.release(client, id);
    return done;
  }

  private async completeOnce(id: string, input: CompleteScanInput, summary: ScanSummary): Promise<StoredScan> {
    const graph = input.graph ? await input.graph : undefined;
    await this.partitions?.ensure(id);
    return withTransaction(this.pool, async (client) => {
      const scan = await this.lockScan(client, id);
      if (scan.status === 'failed') throw new StoreError('CONFLICT', `scan ${id} already failed; it cannot be completed`);
      const observedAt = scan.started_at instanceof Date ? scan.started_at : new Date(scan.started_at);
      await this.findings.replaceForScan(client, id, observedAt, input.findings);
      await this.quotaUsage.replaceForScan(client, id, input.quotaUsage ?? []);
      if (input.snapshot) await this.snapshots?.replaceForScan(client, id, input.snapshot);
      if (graph) await this.graph?.replaceForScan(client, id, graph);
      return markSucceeded(client, id, { ...input, summary }, await this.scanColumns(client));
    });
  }

  /**
   * Complete a sharded scan: its shards stored the findings, quota samples, fleet graph and
   * snapshot parts already (ScanShardRepository); this marks the scan succeeded with the summed summary, the
   * merged coverage and skipped results, in one transaction. Exactly once: a scan that is no longer running is
   * left alone (null). As `complete`, it returns once the scan is visible; `refreshAfterStore` is the caller's next
   * step.
   * Retried with backoff while the connection is lost.
   * @returns the succeeded scan, or null when the scan was not running
   * @throws StoreError NOT_FOUND (no such scan), UNAVAILABLE
   */
  async completeFromShards(
    id: string,
    input: { coverage: readonly CoverageEntry[]; skipped: readonly SkippedResult[]; summary: ScanSummary; finishedAt: Date },
  ): Promise<StoredScan | null> {
    const done = await withStoreRetry(`cannot complete scan ${id}`, () =>
      withTransaction(this.pool, async (client) => {
        const scan = await this.lockScan(client, id);
        return scan.status === 'running' ? markSucceeded(client, id, input, await this.scanColumns(client)) : null;
      }),
    );
    return done;
  }

  /**
   * Delete a scan that never started: still `running`, nothing stored under it. For a launch whose job the queue
   * refused (the API answers 503 and the client retries): a failed row would count as a failed scan and fire the
   * scan-failed alert for a scan that never ran.
   * @returns whether a row was deleted (false: no such scan, or it has already ended or stored results)
   */
  async discardUnstarted(id: string): Promise<boolean> {
    const r = await this.pool.query(
      `DELETE FROM scans s WHERE s.id = $1 AND s.status = 'running'
          AND NOT EXISTS (SELECT 1 FROM scan_targets t WHERE t.scan_id = s.id)`,
      [id],
    );
    return (r.rowCount ?? 0) > 0;
  }

  /**
   * The newest scan of a fleet still `running`, or null: what a new launch of that fleet joins.
   * @param fleetName the scan's fleet (a scan config's name, a fleet directory's base name)
   */
  async runningOfFleet(fleetName: string): Promise<string | null> {
    const r = await this.pool.query<{ id: string }>(`SELECT id FROM scans WHERE status = 'running' AND fleet_name = $1 ORDER BY started_at DESC, id DESC LIMIT 1`, [fleetName]);
    return r.rows[0]?.id ?? null;
  }

  /**
   * Mark a scan failed with a reason. Failing a failed scan again replaces the reason and keeps
   * the first finish time.
   * @param error one line saying why; must not contain credentials; cut to 4000 characters
   * Retried with backoff while the connection is lost (idempotent).
   * @throws StoreError NOT_FOUND (no such scan), CONFLICT (the scan already succeeded), UNAVAILABLE
   */
  async fail(id: string, error: string): Promise<StoredScan> {
    return withStoreRetry(`cannot mark scan ${id} failed`, () => this.failOnce(id, error));
  }

  private async failOnce(id: string, error: string): Promise<StoredScan> {
    return withTransaction(this.pool, async (client) => {
      const scan = await this.lockScan(client, id);
      if (scan.status === 'succeeded') throw new StoreError('CONFLICT', `scan ${id} already succeeded; it cannot fail`);
      // A store in flight wrote rows under the scan: a failed scan keeps none of them.
      if (this.chunked && (await this.chunked.hasAttempt(client, id))) await this.chunked.discard(client, id);
      const updated = await client.query<ScanRow>(
        `UPDATE scans SET status = 'failed', finished_at = COALESCE(finished_at, now()), error = $2
          WHERE id = $1
      RETURNING ${await this.scanColumns(client)}`,
        [id, storableText(error.slice(0, MAX_ERROR_LENGTH))],
      );
      return toStoredScan(updated.rows[0]);
    });
  }

  /**
   * Renew the lease of a running scan (the process running it is alive). Does nothing once the
   * scan ended.
   * @throws the driver's error when PostgreSQL cannot be reached (callers log and go on)
   */
  async heartbeat(id: string): Promise<void> {
    if (!isUuid(id)) return;
    await this.pool.query(`UPDATE scans SET heartbeat_at = now() WHERE id = $1 AND status = 'running'`, [id]);
  }

  /**
   * Mark failed every leased running scan whose heartbeat is older than `leaseMs`: its owner died
   * (SIGKILL, crash, lost its database for longer than the lease). The reason starts with
   * `interrupted:` so operators and alerts see why. Scans without a lease (distributed) are left
   * to their own reaper.
   * @param leaseMs lease length, milliseconds (> the heartbeat interval; see SCAN_LEASE_MS)
   * @returns ids of the scans marked failed now
   */
  async reapExpired(leaseMs: number): Promise<string[]> {
    const rows = await this.pool.query<{ id: string }>(
      `UPDATE scans
          SET status = 'failed', finished_at = now(),
              error = 'interrupted: the process running this scan stopped (no heartbeat for ' || $1::int / 1000 || ' s)'
        WHERE status = 'running' AND heartbeat_at IS NOT NULL AND heartbeat_at < now() - make_interval(secs => $1::int / 1000.0)
    RETURNING id`,
      [Math.round(leaseMs)],
    );
    await this.discardEndedStores();
    return rows.rows.map((r) => r.id);
  }

  /**
   * Delete the rows of chunked stores whose scan ended while they were in flight (a process killed mid-store, its
   * scan failed by the reaper), each in a transaction of its own with the scan row locked.
   */
  private async discardEndedStores(): Promise<void> {
    const chunked = this.chunked;
    if (!chunked) return;
    for (const id of await chunked.endedWithAttempt()) {
      await withTransaction(this.pool, async (client) => {
        const scan = await this.lockScan(client, id);
        if (scan.status !== 'running') await chunked.discard(client, id);
      });
    }
  }

  /**
   * One scan as the principal sees it (summary, coverage and skipped results of its accounts only,
   * computed in SQL), or null when no scan has this id (any string).
   */
  async getScoped(id: string, scope: Scoped): Promise<StoredScan | null> {
    if (!isScoped(scope)) return this.get(id);
    if (!isUuid(id)) return null;
    const params: unknown[] = [id];
    const hasProcessing = await this.processingProbe.exists();
    const rows = await this.pool.query<ScanRow>(`SELECT ${scopedColumns(scope, (v) => `$${params.push(v)}`, true, hasProcessing)} FROM scans s WHERE s.id = $1`, params);
    const [row] = await scopedSummaries(this.pool, rows.rows, scope);
    return row ? toStoredScan(row) : null;
  }

  /** One scan with coverage and settings, unscoped (in-process jobs), or null when no scan has this id (any string). */
  async get(id: string): Promise<StoredScan | null> {
    if (!isUuid(id)) return null;
    const row = await this.getRow(this.pool, id);
    return row ? toStoredScan(row) : null;
  }

  /**
   * Scans, newest first, without coverage.
   * @param page `limit` 1..1000 (default 100), `offset` (default 0)
   * @param scope the caller's principal: summaries count only its accounts' findings (in SQL)
   * @throws StoreError INVALID_ARGUMENT for bad paging
   */
  async list(page: PageRequest, scope: Scoped): Promise<Page<StoredScanListItem>> {
    const { limit, offset } = resolvePage(page);
    const params: unknown[] = [limit, offset];
    const hasProcessing = await this.processingProbe.exists();
    const rows = !isScoped(scope)
      ? await this.pool.query<ScanListRow>(`SELECT ${listColumns('scans', hasProcessing)} FROM scans ORDER BY started_at DESC, id DESC LIMIT $1 OFFSET $2`, params)
      : await this.pool.query<ScanListRow>(
          `SELECT ${scopedColumns(scope, (v) => `$${params.push(v)}`, false, hasProcessing)} FROM scans s ORDER BY s.started_at DESC, s.id DESC LIMIT $1 OFFSET $2`,
          params,
        );
    if (isScoped(scope)) await scopedSummaries(this.pool, rows.rows, scope);
    const count = await this.pool.query<{ total: string | number }>('SELECT count(*) AS total FROM scans');
    return { items: rows.rows.map(toStoredScanListItem), total: toNumber(count.rows[0].total) };
  }

  /**
   * A keyset page of scans, newest first (started_at, id descending), as the principal sees them (GraphQL
   * `scans`); cursors carry (start time, id), so scans created while paging never shift a page.
   * @throws StoreError INVALID_ARGUMENT for bad paging or cursor
   */
  async page(args: GraphPageArgs, scope: Scoped): Promise<GraphPage<StoredScanListItem>> {
    const params: unknown[] = [];
    const p = (v: unknown) => `$${params.push(v)}`;
    const keys = [
      { expr: 's.started_at', dir: 'desc' as const },
      { expr: 's.id', dir: 'desc' as const },
    ];
    const { limit, backward, conditions, order } = pagingSql(keys, args, p);
    const hasProcessing = await this.processingProbe.exists();
    const columns = !isScoped(scope)
      ? listColumns('s', hasProcessing)
      : scopedColumns(scope, p, false, hasProcessing);
    const rows = await this.pool.query<ScanListRow>(
      `SELECT ${columns} FROM scans s ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''} ${order} LIMIT ${p(limit + 1)}`,
      params,
    );
    if (isScoped(scope)) await scopedSummaries(this.pool, rows.rows, scope);
    return toPage(rows.rows.map(toStoredScanListItem), (s) => [s.startedAt, s.id], limit, backward, args);
  }

  /** How many scans there are (every scan is visible to every principal; summaries are scoped). */
  async count(): Promise<number> {
    const r = await this.pool.query<{ total: string | number }>('SELECT count(*) AS total FROM scans');
    return toNumber(r.rows[0].total);
  }

  /** The succeeded scan that started last as the principal sees it (see `getScoped`), or null when none succeeded yet. */
  async latestSucceeded(scope: Scoped): Promise<StoredScan | null> {
    const id = await this.latestSucceededId();
    return id === null ? null : this.getScoped(id, scope);
  }

  /**
   * Succeeded scans started in [`from`, `until`] (either bound optional), newest first, at most `limit`
   * (reports: the scan ending a period, the previous period's last scan, the weekly trend; waiver staleness).
   */
  async succeededBetween(opts: { from?: Date; until?: Date; limit: number }): Promise<StoredScanListItem[]> {
    const rows = await this.pool.query<ScanListRow>(
      `SELECT ${listColumns('scans', await this.processingProbe.exists())} FROM scans WHERE status = 'succeeded'
          AND ($1::timestamptz IS NULL OR started_at >= $1) AND ($2::timestamptz IS NULL OR started_at <= $2)
        ORDER BY started_at DESC, id DESC LIMIT $3`,
      [opts.from ?? null, opts.until ?? null, opts.limit],
    );
    return rows.rows.map(toStoredScanListItem);
  }

  /** The scan that started last among those that ended (succeeded or failed), or null. */
  async latestFinished(): Promise<StoredScanListItem | null> {
    const rows = await this.pool.query<ScanRow>(
      `SELECT ${listColumns('scans', await this.processingProbe.exists())} FROM scans WHERE status IN ('succeeded', 'failed') ORDER BY started_at DESC, id DESC LIMIT 1`,
    );
    return rows.rows[0] ? toStoredScanListItem(rows.rows[0]) : null;
  }

  /**
   * The baseline a scan diff defaults to: the succeeded scan of the same fleet (same fleet name; both without one
   * count as the same) that started last before scan `id` (start time, then id, as scans are listed).
   * @returns null when `id` names no scan (or is not a uuid); `previous` null when no earlier succeeded scan exists,
   *   with the scan's fleet name for the caller's message
   */
  async previousSucceededOfFleet(id: string): Promise<{ previous: string | null; fleetName: string | null } | null> {
    if (!isUuid(id)) return null;
    const rows = await this.pool.query<{ fleet_name: string | null; previous: string | null }>(
      `SELECT s.fleet_name,
              (SELECT p.id FROM scans p
                WHERE p.status = 'succeeded' AND p.fleet_name IS NOT DISTINCT FROM s.fleet_name AND (p.started_at, p.id) < (s.started_at, s.id)
                ORDER BY p.started_at DESC, p.id DESC LIMIT 1) AS previous
         FROM scans s WHERE s.id = $1`,
      [id],
    );
    const row = rows.rows[0];
    return row ? { previous: row.previous, fleetName: row.fleet_name } : null;
  }

  /** Id of the succeeded scan that started last, or null (the default scan of finding queries). */
  async latestSucceededId(): Promise<string | null> {
    const rows = await this.pool.query<{ id: string }>(
      `SELECT id FROM scans WHERE status = 'succeeded' ORDER BY started_at DESC, id DESC LIMIT 1`,
    );
    return rows.rows[0]?.id ?? null;
  }

  private async getRow(db: Pool | PoolClient, id: string): Promise<ScanRow | undefined> {
    const rows = await db.query<ScanRow>(`SELECT ${await this.scanColumns(db)} FROM scans WHERE id = $1`, [id]);
    return rows.rows[0];
  }

  /** Lock the scan row for this transaction (concurrent complete / fail calls serialise here). */
  private async lockScan(client: PoolClient, id: string): Promise<{ status: ScanStatus; started_at: Date | string }> {
    if (!isUuid(id)) throw new StoreError('NOT_FOUND', `scan ${id} not found`);
    const rows = await client.query<{ status: ScanStatus; started_at: Date | string }>(
      'SELECT status, started_at FROM scans WHERE id = $1 FOR UPDATE',
      [id],
    );
    if (!rows.rows[0]) throw new StoreError('NOT_FOUND', `scan ${id} not found`);
    return rows.rows[0];
  }
}

/**
 * The UPDATE that marks a (locked) scan succeeded with its summary, coverage and skipped results.
 * @param columns what it returns (`ScanRepository.scanColumns`)
 */
async function markSucceeded(
  client: PoolClient,
  id: string,
  input: { finishedAt?: Date; summary: ScanSummary; coverage: readonly CoverageEntry[]; skipped?: readonly SkippedResult[] },
  columns: string,
): Promise<StoredScan> {
  const updated = await client.query<ScanRow>(
    `UPDATE scans
        SET status = 'succeeded', finished_at = $2, error = NULL, summary = $3::jsonb, coverage = $4::jsonb,
            skipped = $5::jsonb
      WHERE id = $1
  RETURNING ${columns}`,
    [id, input.finishedAt ?? new Date(), storableJson(input.summary), storableJson(input.coverage), storableJson(input.skipped ?? [])],
  );
  return toStoredScan(updated.rows[0]);
}

/**
 * Seconds from the start of processing to the end (wall clock), or null while running. Measured from
 * `processing_started_at` (the database clock when the scan row was created), never from `started_at`,
 * which a backfill sets to the past observation time; scans stored before that column existed fall back
 * to `started_at`.
 */
function processingSecondsOf(row: ScanListRow): number | null {
  if (row.finished_at === null) return null;
  const start = row.processing_started_at ?? row.started_at;
  const ms = new Date(row.finished_at).getTime() - new Date(start).getTime();
  return Number.isFinite(ms) ? Math.max(0, ms / 1000) : null;
}

function toStoredScanListItem(row: ScanListRow): StoredScanListItem {
  return {
    id: row.id,
    status: row.status,
    source: row.source,
    fleetName: row.fleet_name,
    startedAt: toIso(row.started_at),
    finishedAt: toIsoOrNull(row.finished_at),
    processingSeconds: processingSecondsOf(row),
    error: row.error,
    summary: row.summary,
  };
}

function toStoredScan(row: ScanRow): StoredScan {
  return { ...toStoredScanListItem(row), coverage: row.coverage, skipped: row.skipped, settings: row.settings };
}
