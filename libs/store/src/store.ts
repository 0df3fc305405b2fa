import { QuotaApplicationRepository } from './quota-application.repository';
import { Pool } from 'pg';
import { RetentionRepository } from './retention.repository';
import { RetentionService } from './retention.service';
import { ApiTokenRepository } from './api-token.repository';
import { MIN_TOKEN_HASH_KEY_LENGTH } from './api-token.util';
import { FindingRepository } from './finding.repository';
import { readdirSync } from 'node:fs';
import { findMigrationsDir, MIGRATIONS_TABLE, runMigrations } from './migrate.util';
import { QuotaTrendRepository } from './quota-trend.repository';
import { QuotaUsageRepository } from './quota-usage.repository';
import { ScanSnapshotRepository } from './scan-snapshot.repository';
import { FleetGraphRepository } from './fleet-graph.repository';
import { ScanRepository } from './scan.repository';
import { ScanTargetRepository } from './scan-target.repository';
import { ScanShardRepository } from './scan-shard.repository';
import { redactConnectionString, StoreError } from './store.exception';
import { WaiverRepository } from './waiver.repository';
import { ReportRepository } from './report.repository';
import { ScanDiffRepository } from './scan-diff.repository';
import { WaiverService } from './waiver.service';
import { ReadGenerations } from './read-generation';
import { ChunkedScanStore } from './scan-store';
import { ScanPartitions } from './scan-partition.util';
import { listenForClientErrors } from './transaction.util';

/** Options of `Store.open`. */
export interface StoreOptions {
  /** `postgres://user[:password]@host:port/database`. Never logged; redacted in errors. */
  connectionString: string;
  /** Apply pending migrations before returning (default false). */
  migrate?: boolean;
  /**
   * Most connections the pool opens (default 10). Use 1 for embedded PGlite: its socket server
   * accepts a single connection (STACK.md pitfall 17; `startEmbeddedPostgres().poolMax`).
   */
  poolMax?: number;
  /**
   * Store a running scan's rows with COPY in chunks committed as they go, the scan made visible once at the end
   * (scan-store.ts; default: true when `poolMax` is above 1). False: each scan in one transaction of multi-row
   * INSERTs, as the single-connection embedded PGlite needs.
   */
  chunkedStore?: boolean;
  /** Directory of the `.sql` migrations (default: `<package root>/migrations`). */
  migrationsDir?: string;
  /**
   * Called with errors of idle pooled connections (e.g. the server restarted). Without a
   * listener such an error would crash the process; the pool replaces the connection itself.
   */
  onIdleError?: (error: Error) => void;
  /**
   * Server key of API token hashes (TOKEN_HASH_KEY, at least 32 characters). Without it tokens
   * can be listed and revoked but not created or verified. Never stored in the database.
   */
  tokenHashKey?: string;
}

/**
 * PostgreSQL access for the whole application: a `pg` pool, the schema migrations and the
 * repositories. One instance per process; share it.
 */
export class Store {
  /** Scans: create, complete (with findings, visible at once), fail, get, list, latest. */
  readonly scans: ScanRepository;
  /** Findings: filtered pages for the API, full reads for reports. */
  readonly findings: FindingRepository;
  /** Per-target state of distributed scans: crawled slices, failures, progress counts. */
  readonly scanTargets: ScanTargetRepository;
  /** Shards of sharded distributed scans: each shard's results in one transaction, read back by complete-scan. */
  readonly scanShards: ScanShardRepository;
  /** Quota usage samples per scan (metrics, alerts, forecasts). */
  readonly quotaUsage: QuotaUsageRepository;
  /** Quota trend fits per series of the current trend window, refreshed after a scan is stored (`scans.refreshAfterStore`; trends requests read them). */
  readonly quotaTrends: QuotaTrendRepository;
  /** Waivers: owned, expiring exceptions applied when findings are read, with their history. */
  readonly waivers: WaiverRepository;
  /** Waiver use cases: validated changes, states (active, expiring, expired, stale), matching. */
  readonly waiverService: WaiverService;
  /** Stored weekly reports (one per period and scope) and their webhook delivery state. */
  readonly reports: ReportRepository;
  /** Scoped API tokens and their audit events. */
  readonly apiTokens: ApiTokenRepository;
  /** Fleet snapshots of succeeded scans (what-if and headroom forecasts). */
  readonly snapshots: ScanSnapshotRepository;
  /** Differences between the findings of two scans by fingerprint (new, resolved, persisting, severity changed). */
  readonly scanDiffs: ScanDiffRepository;
  /** The fleet graph of succeeded scans (clusters, Services, CLBs, server groups, ECS) and quota pages for the API. */
  readonly graph: FleetGraphRepository;
  /** The data generations read caches key on (findings, waivers): read once per request that uses a cache. */
  readonly generations: ReadGenerations;
  /** Quota Center applications filed by `quota request --apply`, and their statuses. */
  readonly quotaApplications: QuotaApplicationRepository;
  /** The per-scan partitions of `quota_usage` and `graph_ecs_instances` (scan-partition.util.ts). */
  readonly scanPartitions: ScanPartitions;
  /** Retention: which scans to keep, batched removal, its counters. */
  readonly retention: RetentionService;
  /** The SQL under `retention` (counters, database size). */
  readonly retentionRows: RetentionRepository;

  private constructor(
    private readonly pool: Pool,
    private readonly migrationsDir: string | undefined,
    tokenHashKey: string | undefined,
    chunkedLanes: number,
    poolMax: number,
    connectionString: string,
  ) {
    const latest = () => this.scans.latestSucceededId();
    this.findings = new FindingRepository(pool, latest);
    this.quotaUsage = new QuotaUsageRepository(pool);
    // No binary COPY without COPY lanes (the one-transaction store of embedded PGlite: it never finishes one).
    this.snapshots = new ScanSnapshotRepository(pool, chunkedLanes > 0);
    this.generations = new ReadGenerations(pool);
    this.graph = new FleetGraphRepository(pool, this.generations);
    // A trend refresh reads its samples on as many connections as a store has COPY lanes, and writes its fits with
    // COPY (embedded PGlite: one connection, INSERTs); after a scan, on a thread with connections of its own.
    this.quotaTrends = new QuotaTrendRepository(pool, this.quotaUsage, Math.max(1, chunkedLanes), poolMax, chunkedLanes > 0, connectionString);
    this.scanPartitions = new ScanPartitions(pool);
    const chunked = chunkedLanes > 0 ? new ChunkedScanStore(pool, this.snapshots, chunkedLanes, this.scanPartitions, poolMax) : undefined;
    this.scans = new ScanRepository(pool, this.findings, this.quotaUsage, this.snapshots, this.graph, this.quotaTrends, chunked, this.scanPartitions);
    this.scanTargets = new ScanTargetRepository(pool);
    this.scanShards = new ScanShardRepository(pool, this.findings, this.quotaUsage, this.graph, this.scanPartitions);
    this.waivers = new WaiverRepository(pool);
    this.waiverService = new WaiverService(this.waivers, this.scans, this.findings);
    this.reports = new ReportRepository(pool);
    this.apiTokens = new ApiTokenRepository(pool, tokenHashKey);
    this.scanDiffs = new ScanDiffRepository(pool);
    this.retentionRows = new RetentionRepository(pool, this.scanPartitions);
    this.quotaApplications = new QuotaApplicationRepository(pool);
    this.retention = new RetentionService(this.retentionRows);
  }

  /**
   * Connect (and optionally migrate).
   * @throws StoreError UNAVAILABLE when PostgreSQL cannot be reached or a migration fails (the
   *   message names host, port and database, never the password)
   */
  static async open(opts: StoreOptions): Promise<Store> {
    const pool = new Pool({
      connectionString: opts.connectionString,
      max: opts.poolMax ?? 10,
      application_name: 'ack-fleet-audit',
    });
    pool.on('error', (e) => opts.onIdleError?.(e));
    listenForClientErrors(pool);
    if (opts.tokenHashKey !== undefined && opts.tokenHashKey.length < MIN_TOKEN_HASH_KEY_LENGTH) {
      await pool.end();
      throw new StoreError('INVALID_ARGUMENT', `token hash key must be at least ${MIN_TOKEN_HASH_KEY_LENGTH} characters`);
    }
    const poolMax = opts.poolMax ?? 10;
    // Two COPY lanes: one PostgreSQL backend parses while the other writes (two cores); never more than the pool.
    const lanes = (opts.chunkedStore ?? poolMax > 1) ? Math.min(2, poolMax) : 0;
    const store = new Store(pool, opts.migrationsDir, opts.tokenHashKey, lanes, poolMax, opts.connectionString);
    try {
      await store.ping();
      if (opts.migrate) await store.migrate();
      return store;
    } catch (e) {
      await pool.end().catch(() => undefined); // close path of a store that did not open; `e` is thrown
      if (e instanceof StoreError) throw e;
      const reason = e instanceof Error ? e.message : String(e);
      throw new StoreError('UNAVAILABLE', `cannot open PostgreSQL at ${redactConnectionString(opts.connectionString)}: ${reason}`, {
        cause: e,
      });
    }
  }

  /**
   * Apply pending migrations (idempotent; concurrent callers wait for each other).
   * @returns names of the migrations applied now
   * @throws StoreError UNAVAILABLE when a migration fails (none of the pending ones is applied)
   */
  async migrate(): Promise<string[]> {
    const dir = this.migrationsDir ?? findMigrationsDir();
    const client = await this.pool.connect();
    // Without a listener, a connection dying while checked out would crash the process.
    const onError = () => undefined;
    client.on('error', onError);
    try {
      return await runMigrations(client, dir);
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      throw new StoreError('UNAVAILABLE', `database migration failed: ${reason}`, { cause: e });
    } finally {
      client.removeListener('error', onError);
      client.release();
    }
  }

  /**
   * Migrations in the migrations directory that the database has not applied (readiness: `/readyz`).
   * @returns their names (`<timestamp>_<name>`, without `.sql`), empty when up to date
   * @throws the driver's error when the database does not answer
   */
  async pendingMigrations(): Promise<string[]> {
    const dir = this.migrationsDir ?? findMigrationsDir();
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => f.slice(0, -'.sql'.length));
    const exists = await this.pool.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [MIGRATIONS_TABLE]);
    if (!exists.rows[0]?.t) return files.sort();
    const applied = await this.pool.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE}`);
    const done = new Set(applied.rows.map((r) => r.name));
    return files.filter((f) => !done.has(f)).sort();
  }

  /**
   * Check that the database answers (health checks).
   * @throws the driver's error when it does not
   */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  /** Close every pooled connection; the store is unusable afterwards. */
  async close(): Promise<void> {
    await this.pool.end();
  }
}
