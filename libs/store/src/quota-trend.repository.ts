import type { Pool, PoolClient } from 'pg';
import type { ResourceKind } from '@app/domain';
import { DEFAULT_TREND_SETTINGS, fitTrendWindow, resolveTrendSettings, TheilSenScratch, type FittedSeries, type TrendFit } from '@app/forecast';
import type { QuotaUsageRepository } from './quota-usage.repository';
import { WhereBuilder } from './sql.util';
import { withTransaction } from './transaction.util';
import { copyBuffer, copyIn, copyLine } from './copy.util';
import type { ColumnKind, ColumnSpec } from './bulk-insert.util';
import type { QuotaTrendWindow } from './store.types';
import { defaultTrendRefreshEntry, refreshTrendsOnThread, trendRefreshThreadBuilt } from './trend-refresh-thread';

const DAY_MS = 86_400_000;

/**
 * Series per INSERT of fits: one statement sends each column as one array parameter (`unnest`), so the 65,535
 * bind-parameter limit does not apply; 10,000 keeps a statement's arrays a few MiB.
 */
const FITS_PER_INSERT = 10_000;

/** Names of the per-window tables of `quota_trend_fits` (its partitions): `quota_trend_fits_w<window id>`. */
const WINDOW_TABLE = /^quota_trend_fits_w[0-9]+$/;

/**
 * The table holding window `windowId`'s fits, a partition of `quota_trend_fits` (migration 1800500000000).
 * @throws Error when `windowId` is not a window id (a bigserial's decimal digits): it is written into SQL
 */
function windowTable(windowId: string): string {
  const name = `quota_trend_fits_w${windowId}`;
  if (!WINDOW_TABLE.test(name)) throw new Error(`quota trend window id ${JSON.stringify(windowId)} is not a number`);
  return name;
}

/**
 * Longest wait (milliseconds) of one statement of `dropReplacedWindows` for a lock, or for the readers of the window it
 * detaches: the cleanup is best effort, and what it leaves the next refresh drops.
 */
const DETACH_LOCK_TIMEOUT_MS = 10_000;

/**
 * Least stored quota samples (count) for which `refreshAfterScan` starts a thread: about one 500-cluster scan's. Below
 * it the refresh takes a second or less and the scan's heap is small, and a thread's start (loading the driver and
 * this library again, a few hundred ms) would cost more than it saves.
 */
export const THREAD_MIN_SAMPLES = 100_000;

/** SQLSTATEs after which a refresh is simply run again: serialization failure, deadlock (two scans completing at once). */
const RETRIED_SQLSTATES = new Set(['40001', '40P01']);

export type { QuotaTrendWindow } from './store.types';

/** Filters of `fits` (equality, as `QuotaUsageRepository.history` takes them). */
export interface QuotaTrendFitFilter {
  checkId?: string;
  accountId?: string;
  regionId?: string;
  clusterId?: string;
  resourceKind?: ResourceKind;
}

/** A `quota_trend_fits` row as `pg` returns it (float8 and int4 arrive as numbers). */
interface FitRow {
  check_id: string;
  account_id: string;
  region_id: string;
  cluster_id: string | null;
  resource_kind: ResourceKind;
  resource_id: string;
  samples: number;
  span_ms: number;
  latest_at: number | null;
  has_latest: boolean;
  used: number;
  limit: number;
  slope: number | null;
  slope_low: number | null;
  slope_high: number | null;
  intercept: number | null;
  residual_low: number | null;
  residual_high: number | null;
}

/** The columns of a fit row after `window_id`, in table order, with their array types for `unnest`. */
const FIT_COLUMNS: readonly (readonly [column: string, type: string, value: (s: FittedSeries) => unknown])[] = [
  ['check_id', 'text', (s) => s.checkId],
  ['account_id', 'text', (s) => s.resource.accountId],
  ['region_id', 'text', (s) => s.resource.regionId],
  ['cluster_id', 'text', (s) => s.resource.clusterId],
  ['resource_kind', 'text', (s) => s.resource.kind],
  ['resource_id', 'text', (s) => s.resource.id],
  ['samples', 'int4', (s) => s.window.samples],
  ['span_ms', 'float8', (s) => s.window.spanMs],
  ['latest_at', 'float8', (s) => s.window.latestAt],
  ['has_latest', 'bool', (s) => s.window.hasLatest],
  ['used', 'float8', (s) => s.window.used],
  ['"limit"', 'float8', (s) => s.window.limit],
  ['slope', 'float8', (s) => s.window.fit?.slope ?? null],
  ['slope_low', 'float8', (s) => s.window.fit?.slopeLow ?? null],
  ['slope_high', 'float8', (s) => s.window.fit?.slopeHigh ?? null],
  ['intercept', 'float8', (s) => s.window.fit?.intercept ?? null],
  ['residual_low', 'float8', (s) => s.window.fit?.residualLow ?? null],
  ['residual_high', 'float8', (s) => s.window.fit?.residualHigh ?? null],
];

/** How COPY writes each array type of FIT_COLUMNS as a text field (numbers as `String` does: copy.util.ts). */
const COPY_KINDS: Readonly<Record<string, ColumnKind>> = { text: 'text', int4: 'integer', float8: 'numeric', bool: 'boolean' };

/** FIT_COLUMNS as COPY writes them after `window_id` (copy.util.ts `copyLine`). */
const FIT_COPY_COLUMNS: ColumnSpec<FittedSeries> = FIT_COLUMNS.map(([column, type, value]) => [column, COPY_KINDS[type]!, value] as const);

/** The succeeded scans a quota history read in `[$1, $2]` covers (QuotaUsageRepository.history's scan condition). */
const WINDOW_SCANS = "FROM scans s WHERE s.status = 'succeeded' AND s.started_at >= $1 AND s.started_at <= $2";

/**
 * Quota trend fits (tables `quota_trend_windows`, `quota_trend_fits`, migrations 1799400000000 and 1800500000000):
 * the window part of every series' forecast (libs/forecast `fitTrendWindow`: sample count, span, latest sample,
 * Theil-Sen fit), computed once when a scan completes instead of on every trends request. A request uses them
 * only when its window holds exactly the scans they were fitted on (`scansKey`), so trends answer the same bytes
 * either way; otherwise it refits the samples as before. Each window's fits are a partition of `quota_trend_fits` of
 * their own (`quota_trend_fits_w<id>`), written unindexed and indexed once as they are attached, and dropped whole
 * when a newer window replaces them.
 */
export class QuotaTrendRepository {
  /**
   * @param pool the store's connection pool
   * @param quotaUsage the samples' reader (`history`), used in the refresh's snapshot
   * @param readers connections reading a refresh's samples at once (the refresh's own and, above 1, connections of
   *   the pool in the same snapshot: `readerClients`); 1 for a pool of one connection (embedded PGlite)
   * @param poolMax the pool's size: a reader is added only while the pool has a connection to spare
   * @param copy write fits with `COPY ... FROM STDIN` (a PostgreSQL server); false: `INSERT ... SELECT unnest(...)`
   *   (embedded PGlite, where the store's other COPY paths are off too)
   * @param connectionString the server's URL (with `copy`): `refreshAfterScan` then refreshes on a thread of its own
   *   with connections of its own (`readers` of them). Never logged.
   */
  constructor(
    private readonly pool: Pool,
    private readonly quotaUsage: QuotaUsageRepository,
    private readonly readers: number = 1,
    private readonly poolMax: number = 1,
    private readonly copy: boolean = false,
    private readonly connectionString?: string,
  ) {}

  /**
   * The refresh a scan runs after its store (`ScanRepository.refreshAfterStore`): `refresh` of the window ending `now`
   * on a worker thread of its own (trend-refresh-thread.ts: its garbage is not collected beside the scan's heap), when
   * the store is on a PostgreSQL server, the thread's entry is built and the stored samples are many enough to pay for
   * starting it (`minSamples`); otherwise `refresh` here (embedded PGlite accepts one connection; TypeScript source
   * without a build has no entry).
   * @param opts.entry the built thread entry (default `defaultTrendRefreshEntry()`)
   * @param opts.minSamples least stored quota samples (count; PostgreSQL's estimate, `pg_class.reltuples`, fresh after
   *   the ANALYZE `refreshAfterStore` runs first) for a thread (default `THREAD_MIN_SAMPLES`)
   * @returns the kept window
   * @throws what `refresh` throws, or the thread's error when it could not start or crashed
   */
  async refreshAfterScan(now: Date, opts: { entry?: string; minSamples?: number } = {}): Promise<QuotaTrendWindow> {
    const entry = opts.entry ?? defaultTrendRefreshEntry();
    if (this.connectionString === undefined || !this.copy || !trendRefreshThreadBuilt(entry)) return this.refresh(now);
    // The table's estimate, or its partitions' summed (per-scan partitions, migration 1800600000001: the parent is
    // not analysed). -1: never analysed (PostgreSQL 14 and later).
    const { rows } = await this.pool.query<{ n: number }>(
      `SELECT GREATEST(
          (SELECT reltuples FROM pg_class WHERE oid = 'quota_usage'::regclass),
          (SELECT COALESCE(sum(GREATEST(c.reltuples, 0)), 0) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'quota_usage'::regclass)
        )::float8 AS n`,
    );
    if (Math.max(0, rows[0]?.n ?? 0) < (opts.minSamples ?? THREAD_MIN_SAMPLES)) return this.refresh(now);
    return refreshTrendsOnThread({ connectionString: this.connectionString, readers: Math.max(1, this.readers), now: now.getTime() }, entry);
  }

  /**
   * Fit every quota series over the default trend window ending at `now` (libs/forecast DEFAULT_TREND_SETTINGS:
   * `windowDays` back from `now`, its interval coverage) and keep those fits, replacing every older window, unless
   * a window over exactly these scans is kept already. Reads and writes in one REPEATABLE READ transaction, so the
   * fits and their `scansKey` come from one snapshot; series are read and fitted one (check, account, region) at a
   * time, so memory is bounded by the largest such group. The fits go into the window's own table, attached as a
   * partition at the end of the transaction (its indexes built then, one sorted pass each: at 1,000,000 series about
   * a third of what writing them into the indexed table cost); after the commit the replaced windows' tables are
   * dropped (`dropReplacedWindows`, best effort). Run again (up to 3 times) when a concurrent refresh made it fail to
   * serialise.
   * @param now the end of the window (the clock of the requests the fits will serve: normally the wall clock)
   * @returns the kept window (new or already there)
   * @throws what PostgreSQL throws (the caller decides whether a failed refresh matters: requests refit without it)
   */
  async refresh(now: Date, settings: { windowDays?: number; intervalCoverage?: number } = {}): Promise<QuotaTrendWindow> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { window, created } = await withTransaction(this.pool, (client) => this.refreshIn(client, now, settings));
        if (created) {
          // The replaced windows' tables. Best effort: a table left is dropped by the next refresh.
          await this.dropReplacedWindows().catch(() => undefined);
          // Fresh statistics for the rows just written (a page of one account walks the account index only when the
          // planner knows the table's size), as ScanRepository.complete does for findings. Best effort.
          await this.pool.query(`ANALYZE quota_trend_windows, ${windowTable(window.id)}`).catch(() => undefined);
        }
        return window;
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        if (attempt >= 3 || typeof code !== 'string' || !RETRIED_SQLSTATES.has(code)) throw e;
      }
    }
  }

  private async refreshIn(client: PoolClient, now: Date, settings: { windowDays?: number; intervalCoverage?: number }): Promise<{ window: QuotaTrendWindow; created: boolean }> {
    await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const resolved = resolveTrendSettings({
      windowDays: settings.windowDays ?? DEFAULT_TREND_SETTINGS.windowDays,
      intervalCoverage: settings.intervalCoverage ?? DEFAULT_TREND_SETTINGS.intervalCoverage,
    });
    const since = new Date(now.getTime() - resolved.windowDays * DAY_MS);
    const key = await this.scansKey(since, now, client);
    const kept = await client.query<WindowRow>(`SELECT ${WINDOW_COLUMNS} FROM quota_trend_windows WHERE scans_key = $1 AND interval_coverage = $2 ORDER BY id DESC LIMIT 1`, [
      key.key,
      resolved.intervalCoverage,
    ]);
    if (kept.rows[0]) return { window: windowOfRow(kept.rows[0]), created: false };
    const inserted = await client.query<{ id: string }>(
      `INSERT INTO quota_trend_windows (scans_key, since, until, interval_coverage, scan_count, series, mixed_cluster_series)
       VALUES ($1, $2, $3, $4, $5, 0, 0) RETURNING id::text AS id`,
      [key.key, since, now, resolved.intervalCoverage, key.scans],
    );
    const windowId = inserted.rows[0]!.id;
    // The window's fits go into a table of their own, without indexes until ATTACH PARTITION builds them (migration
    // 1800500000000). Its CHECK is the partition's bound, so ATTACH needs no scan to prove the rows belong.
    const table = windowTable(windowId);
    await client.query(`CREATE TABLE ${table} (LIKE quota_trend_fits INCLUDING DEFAULTS, CHECK (window_id = ${windowId}))`);
    // One (check, account, region) group at a time: the groups of the window, then each group's samples. The groups
    // are a few thousand at most, so they are hashed, never sorted: `quota_usage` is partitioned per scan (migration
    // 1800600000001) and its parent keeps no statistics (an ANALYZE of it samples every partition again), so the
    // planner would guess a tenth of the samples as groups and sort them all on disk (2.4M samples: 2.6 s against 0.7).
    await client.query('SET LOCAL enable_sort = off');
    const groups = await client.query<{ check_id: string; account_id: string; region_id: string }>(
      `SELECT DISTINCT q.check_id, q.account_id, q.region_id FROM quota_usage q JOIN scans s ON s.id = q.scan_id
        WHERE s.status = 'succeeded' AND s.started_at >= $1 AND s.started_at <= $2`,
      [since, now],
    );
    await client.query('SET LOCAL enable_sort = on');
    let series = 0;
    let mixedClusterSeries = 0;
    const nowMs = now.getTime();
    const scratch = new TheilSenScratch(); // one work space for every fit of this window
    const buffer = this.copy ? copyBuffer() : undefined; // one COPY buffer for every insert of this window
    const helpers = groups.rows.length > 1 ? await this.readerClients(client) : [];
    try {
      const readers = [client, ...helpers];
      const read = (k: number) => {
        const g = groups.rows[k]!;
        const pending = this.quotaUsage.historyWithClusterMix({ since, until: now, checkId: g.check_id, accountId: g.account_id, regionId: g.region_id }, readers[k % readers.length]);
        // Awaited in its turn; a failure before then (the transaction already failing) must not go unhandled.
        pending.catch(() => undefined);
        return pending;
      };
      // The refresh is mostly PostgreSQL reading samples (bench:trend-refresh): each reader has one group's read in
      // flight while this process fits and inserts the group before, so PostgreSQL reads on as many backends as
      // there are readers, and while the fits are computed. Groups are fitted and inserted in order, on `client`.
      const inFlight: ReturnType<typeof read>[] = [];
      let issued = 0;
      for (; issued < Math.min(readers.length, groups.rows.length); issued++) inFlight.push(read(issued));
      for (let k = 0; k < groups.rows.length; k++) {
        const { series: history, mixedClusterSeries: mixed } = await inFlight.shift()!;
        mixedClusterSeries += mixed;
        if (issued < groups.rows.length) inFlight.push(read(issued++));
        const fitted: FittedSeries[] = history.map((h) => ({ checkId: h.checkId, resource: h.resource, window: fitTrendWindow(h.observations, nowMs, resolved, scratch) }));
        for (let i = 0; i < fitted.length; i += FITS_PER_INSERT) await this.insertFits(client, table, windowId, fitted.slice(i, i + FITS_PER_INSERT), buffer);
        series += fitted.length;
      }
    } finally {
      await Promise.all(helpers.map((h) => h.query('COMMIT').then(() => h.release(), (e: Error) => h.release(e))));
    }
    // Builds the parent's three indexes on the new table, one sorted pass each. Readers are not blocked (SHARE UPDATE
    // EXCLUSIVE on the parent); a concurrent refresh's ATTACH waits for this transaction.
    await client.query(`ALTER TABLE quota_trend_fits ATTACH PARTITION ${table} FOR VALUES IN (${windowId})`);
    const done = await client.query<WindowRow>(`UPDATE quota_trend_windows SET series = $2, mixed_cluster_series = $3 WHERE id = $1 RETURNING ${WINDOW_COLUMNS}`, [
      windowId,
      series,
      mixedClusterSeries,
    ]);
    // The replaced windows' fits stay in their tables until `dropReplacedWindows`: no reader finds them without their
    // window row.
    await client.query('DELETE FROM quota_trend_windows WHERE id <> $1', [windowId]);
    return { window: windowOfRow(done.rows[0]!), created: true };
  }

  /**
   * Detach and drop every window table (`quota_trend_fits_w<id>`) whose window is no longer kept: the windows a refresh
   * replaced, and tables an interrupted cleanup left detached, or pending detach. Each is detached CONCURRENTLY (no
   * transaction block: readers of other windows are never blocked, and it waits for readers still on that window),
   * then dropped. A kept window's table is never touched; a table created by a refresh still in flight is not visible
   * here until that refresh commits with its window row.
   * @returns the names of the tables dropped
   * @throws what PostgreSQL throws (`refresh` ignores it: the next refresh drops what is left)
   */
  async dropReplacedWindows(): Promise<string[]> {
    const { rows } = await this.pool.query<{ name: string; attached: boolean; pending: boolean }>(
      `SELECT c.relname AS name, i.inhrelid IS NOT NULL AS attached, coalesce(i.inhdetachpending, false) AS pending
         FROM pg_class c
         LEFT JOIN pg_inherits i ON i.inhrelid = c.oid AND i.inhparent = 'quota_trend_fits'::regclass
        WHERE c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = 'quota_trend_fits'::regclass)
          AND c.relkind = 'r' AND c.relname ~ '^quota_trend_fits_w[0-9]+$'
          AND NOT EXISTS (SELECT 1 FROM quota_trend_windows w WHERE c.relname = 'quota_trend_fits_w' || w.id::text)
        ORDER BY pending DESC, c.relname`,
    );
    const dropped: string[] = [];
    if (rows.length === 0) return dropped;
    const client = await this.pool.connect();
    let failure: Error | undefined;
    try {
      // A reader holding the parent for long (a dump, a stuck transaction) makes a detach wait: bounded, so a scan never
      // hangs on this cleanup. A detach stopped after its first transaction is left pending and finalized next time.
      await client.query(`SET lock_timeout = '${DETACH_LOCK_TIMEOUT_MS}ms'`);
      // Pending detaches first: PostgreSQL refuses to start another detach while one is pending.
      for (const r of rows) {
        if (!WINDOW_TABLE.test(r.name)) continue;
        if (r.pending) await client.query(`ALTER TABLE quota_trend_fits DETACH PARTITION ${r.name} FINALIZE`);
        else if (r.attached) await client.query(`ALTER TABLE quota_trend_fits DETACH PARTITION ${r.name} CONCURRENTLY`);
        await client.query(`DROP TABLE IF EXISTS ${r.name}`);
        dropped.push(r.name);
      }
      await client.query('RESET lock_timeout');
    } catch (e) {
      failure = e as Error;
      throw e;
    } finally {
      // A connection whose statement failed may still carry the timeout: closed, not returned to the pool.
      client.release(failure);
    }
    return dropped;
  }

  /**
   * Connections of the pool reading in the snapshot of `client`'s transaction (`pg_export_snapshot`, then `SET
   * TRANSACTION SNAPSHOT` in a REPEATABLE READ, READ ONLY transaction of each), so every group of a refresh is read
   * as of one moment whichever connection reads it. At most `readers - 1`, and only while the pool has a connection
   * to spare (idle, or room to open one): a refresh never waits for a connection another caller holds. The caller
   * ends their transactions and releases them.
   * @param client the refresh's connection, inside its REPEATABLE READ transaction
   */
  private async readerClients(client: PoolClient): Promise<PoolClient[]> {
    const out: PoolClient[] = [];
    if (this.readers <= 1) return out;
    const exported = await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id');
    const id = exported.rows[0]!.id;
    // A snapshot id is hex words and dashes (e.g. 00000003-0000001B-1): checked, as SET TRANSACTION SNAPSHOT takes
    // no bind parameter.
    if (!/^[0-9A-Fa-f-]+$/.test(id)) return out;
    while (out.length < this.readers - 1 && this.pool.waitingCount === 0 && (this.pool.idleCount > 0 || this.pool.totalCount < this.poolMax)) {
      const helper = await this.pool.connect();
      try {
        await helper.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        await helper.query(`SET TRANSACTION SNAPSHOT '${id}'`);
        out.push(helper);
      } catch {
        // Reading on fewer connections is only slower. The connection is closed, not returned: its state is unknown.
        helper.release(true);
        break;
      }
    }
    return out;
  }

  /**
   * Write `fitted` as rows of window `windowId` into its table `table` (`windowTable`): with COPY into `buffer` when
   * given (a PostgreSQL server; a refresh of 100,000 series over 2 scans took 2.84-2.91 s against 3.27-3.28 s with
   * the INSERT, bench:trend-refresh), else one INSERT of unnested arrays.
   */
  private async insertFits(client: PoolClient, table: string, windowId: string, fitted: readonly FittedSeries[], buffer?: Buffer): Promise<void> {
    if (buffer) {
      await copyIn(
        client,
        `COPY ${table} (window_id, ${FIT_COLUMNS.map(([c]) => c).join(', ')}) FROM STDIN`,
        async (out) => {
          for (const f of fitted) {
            const pending = out.write(copyLine(FIT_COPY_COLUMNS, windowId, f));
            if (pending) await pending;
          }
        },
        buffer,
      );
      return;
    }
    const arrays = FIT_COLUMNS.map(([, , value]) => fitted.map(value));
    await client.query(
      `INSERT INTO ${table} (window_id, ${FIT_COLUMNS.map(([c]) => c).join(', ')})
       SELECT $1::bigint, * FROM unnest(${FIT_COLUMNS.map(([, type], i) => `$${i + 2}::${type}[]`).join(', ')})`,
      [windowId, ...arrays],
    );
  }

  /**
   * The digest naming the samples of a window: md5 over the id, start and finish time of every succeeded scan
   * started in `[since, until]` (the scans `QuotaUsageRepository.history` reads). Completing a scan again sets a
   * new finish time, retention's deletion removes a scan, a new scan adds one: each changes the digest.
   */
  async scansKey(since: Date, until: Date, db: Pool | PoolClient = this.pool): Promise<{ key: string; scans: number }> {
    const { rows } = await db.query<{ key: string; scans: number }>(
      `SELECT md5(coalesce(string_agg(s.id::text || '/' || extract(epoch FROM s.started_at)::text || '/' || coalesce(extract(epoch FROM s.finished_at)::text, ''), ',' ORDER BY s.id), '')) AS key,
              count(*)::int AS scans ${WINDOW_SCANS}`,
      [since, until],
    );
    return rows[0]!;
  }

  /**
   * The kept window fitted over exactly the scans a history read of `[since, until]` covers, with the given
   * interval coverage, or null (then the samples must be refitted).
   */
  async windowFor(since: Date, until: Date, intervalCoverage: number): Promise<QuotaTrendWindow | null> {
    const { rows } = await this.pool.query<WindowRow>(
      `SELECT ${WINDOW_COLUMNS} FROM quota_trend_windows
        WHERE interval_coverage = $3
          AND scans_key = (SELECT md5(coalesce(string_agg(s.id::text || '/' || extract(epoch FROM s.started_at)::text || '/' || coalesce(extract(epoch FROM s.finished_at)::text, ''), ',' ORDER BY s.id), '')) ${WINDOW_SCANS})
        ORDER BY id DESC LIMIT 1`,
      [since, until, intervalCoverage],
    );
    return rows[0] ? windowOfRow(rows[0]) : null;
  }

  /**
   * The fits of a window's series matching the filters, in no particular order (`forecastFittedTrends` sorts). A `clusterId` filter matches the
   * series' cluster (the latest one its samples name, as `QuotaUsageRepository.history` gives it); it equals
   * refitting only when the window has no series with samples in different clusters (`mixedClusterSeries` 0).
   */
  async fits(windowId: string, filter: QuotaTrendFitFilter = {}): Promise<FittedSeries[]> {
    const w = new WhereBuilder()
      .equals('window_id', windowId)
      .equals('check_id', filter.checkId)
      .equals('account_id', filter.accountId)
      .equals('region_id', filter.regionId)
      .equals('cluster_id', filter.clusterId)
      .equals('resource_kind', filter.resourceKind);
    const { rows } = await this.pool.query<FitRow>(
      `SELECT check_id, account_id, region_id, cluster_id, resource_kind, resource_id, samples, span_ms, latest_at, has_latest, used, "limit",
              slope, slope_low, slope_high, intercept, residual_low, residual_high
         FROM quota_trend_fits ${w.sql()}`,
      w.params,
    );
    return rows.map(fittedOfRow);
  }

  /**
   * One page of a window's fits in series key order (check, account, region, kind, resource id; bytewise), after
   * `after` when given, filtered as `fits` plus an account list (a scoped principal's accounts) and a status: at
   * most `limit + 1` rows, read along the primary key (the extra row tells the caller a next page exists).
   */
  async fitsPage(
    windowId: string,
    filter: QuotaTrendFitFilter & { accountIds?: readonly string[]; status?: QuotaTrendStatusFilter },
    page: { after?: QuotaSeriesKey; limit: number },
  ): Promise<FittedSeries[]> {
    const params: unknown[] = [windowId];
    const add = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const where = ['window_id = $1'];
    const eq = (column: string, value: string | undefined) => {
      if (value !== undefined) where.push(`${column} = ${add(value)}`);
    };
    eq('check_id', filter.checkId);
    eq('account_id', filter.accountId);
    eq('region_id', filter.regionId);
    eq('cluster_id', filter.clusterId);
    eq('resource_kind', filter.resourceKind);
    if (filter.accountIds) where.push(`account_id = ANY(${add([...filter.accountIds])}::text[])`);
    if (filter.status) where.push(statusCondition(filter.status, add));
    if (page.after) {
      // With one account, the key without it (every row has it): the row comparison then follows the account index.
      const [checkId, accountId, regionId, kind, id] = page.after;
      where.push(
        filter.accountId !== undefined
          ? `(account_id, check_id, region_id, resource_kind, resource_id) > (${[accountId, checkId, regionId, kind, id].map((v) => `${add(v)}::text`).join(', ')})`
          : `(check_id, account_id, region_id, resource_kind, resource_id) > (${page.after.map((v) => `${add(v)}::text`).join(', ')})`,
      );
    }
    const { rows } = await this.pool.query<FitRow>(
      `SELECT check_id, account_id, region_id, cluster_id, resource_kind, resource_id, samples, span_ms, latest_at, has_latest, used, "limit",
              slope, slope_low, slope_high, intercept, residual_low, residual_high
         FROM quota_trend_fits WHERE ${where.join(' AND ')}
        ORDER BY check_id, account_id, region_id, resource_kind, resource_id LIMIT ${add(page.limit + 1)}`,
      params,
    );
    return rows.map(fittedOfRow);
  }
}

/** The series key of a fit, in page order (check, account, region, kind, resource id): what a trends cursor holds. */
export type QuotaSeriesKey = readonly [checkId: string, accountId: string, regionId: string, resourceKind: string, resourceId: string];

/** A status filter of `fitsPage`, evaluated in SQL exactly as libs/forecast `projectTrend` decides it. */
export interface QuotaTrendStatusFilter {
  status: 'ok' | 'insufficient_data' | 'flat' | 'decreasing' | 'exhausted';
  /** TrendSettings.minSamples (count). */
  minSamples: number;
  /** TrendSettings.minSpanHours in ms (minSpanHours * 3,600,000, computed by the caller as projectTrend does). */
  minSpanMs: number;
  /** TrendSettings.flatHorizonDays. */
  flatHorizonDays: number;
}

/**
 * The SQL condition of a status (its parameters added by `add`), the rules of `projectTrend` in its order: exhausted
 * (latest used >= limit), insufficient data (too few samples, too short a span, no fit), flat (|slope| x horizon < 1
 * unit), decreasing (slope < 0), else ok. float8 arithmetic in PostgreSQL is IEEE double arithmetic as in JavaScript.
 */
function statusCondition(f: QuotaTrendStatusFilter, add: (v: unknown) => string): string {
  const exhausted = '(has_latest AND used >= "limit")';
  if (f.status === 'exhausted') return exhausted;
  const insufficient = `(samples < ${add(f.minSamples)}::float8 OR span_ms < ${add(f.minSpanMs)}::float8 OR slope IS NULL)`;
  if (f.status === 'insufficient_data') return `NOT ${exhausted} AND ${insufficient}`;
  const flat = `(abs(slope) * ${add(f.flatHorizonDays)}::float8 < 1)`;
  if (f.status === 'flat') return `NOT ${exhausted} AND NOT ${insufficient} AND ${flat}`;
  return `NOT ${exhausted} AND NOT ${insufficient} AND NOT ${flat} AND ${f.status === 'decreasing' ? 'slope < 0' : 'slope >= 0'}`;
}

const WINDOW_COLUMNS = 'id::text AS id, scans_key, scan_count, series, mixed_cluster_series, interval_coverage';

interface WindowRow {
  id: string;
  scans_key: string;
  scan_count: number;
  series: number;
  mixed_cluster_series: number;
  interval_coverage: number;
}

function windowOfRow(r: WindowRow): QuotaTrendWindow {
  return { id: r.id, scansKey: r.scans_key, scanCount: r.scan_count, series: r.series, mixedClusterSeries: r.mixed_cluster_series, intervalCoverage: r.interval_coverage };
}

function fittedOfRow(r: FitRow): FittedSeries {
  const window: TrendFit = {
    samples: r.samples,
    spanMs: r.span_ms,
    latestAt: r.latest_at,
    hasLatest: r.has_latest,
    used: r.used,
    limit: r.limit,
    fit:
      r.slope === null
        ? null
        : { slope: r.slope, slopeLow: r.slope_low!, slopeHigh: r.slope_high!, intercept: r.intercept!, residualLow: r.residual_low!, residualHigh: r.residual_high! },
  };
  return { checkId: r.check_id, resource: { kind: r.resource_kind, id: r.resource_id, accountId: r.account_id, regionId: r.region_id, clusterId: r.cluster_id }, window };
}
