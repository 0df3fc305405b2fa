/**
 * Per-scan partitions: `quota_usage` and `graph_ecs_instances` (migration 1800600000001) and `findings` (migration
 * 1800800000000) are partitioned by LIST on `scan_id`, one table per scan named `<table>_s<scan id without dashes>`.
 * The chunked store (scan-store.ts) COPYs a scan's rows into its tables while they are not partitions yet and have no
 * index, then attaches them before the scan is made visible: ATTACH PARTITION builds each index in one sorted pass (at
 * 2,000 clusters 3.2 s against 4.1-6.0 s for the quota samples written into indexed tables, 1.2 s against 2.7-3.0 s
 * for the ECS instances; 200,000 finding-shaped rows 0.14 s into a bare table plus 1.23 s for the seven indexes
 * against 3.91 s into the indexed table). Readers name a scan by a constant or a bind parameter, which PostgreSQL
 * prunes partitions by when it plans; a scan id a subquery reads is known only at run time, so every scan's partition
 * would be planned and locked (finding.repository.ts, scan.repository.ts `scopedSummaries`). Every other
 * write path attaches the scan's empty tables first and writes through the parent (`ensure`).
 *
 * Locks: ATTACH takes SHARE UPDATE EXCLUSIVE on the parent (readers and writers of other scans do not wait) and
 * ACCESS EXCLUSIVE on the table attached (nothing reads it before). Each table carries a CHECK equal to its bound, so
 * ATTACH reads none of its rows. A partition is removed with DETACH ... CONCURRENTLY (SHARE UPDATE EXCLUSIVE on the
 * parent) and then dropped alone; a plain DROP of a partition would take ACCESS EXCLUSIVE on the parent, which every
 * reader then waits behind.
 *
 * A database migrated before those migrations (the schema-upgrade tests open a Store on older migrations) has plain
 * tables: every method then leaves them alone and the store writes them as before (`partitionedTables`).
 */
import type { Pool, PoolClient } from 'pg';
import { withTransaction } from './transaction.util';

/** The tables partitioned per scan (migrations 1800600000001 and 1800800000000). */
export const PER_SCAN_TABLES = ['quota_usage', 'graph_ecs_instances', 'findings'] as const;

/** One of {@link PER_SCAN_TABLES}. */
export type PerScanTable = (typeof PER_SCAN_TABLES)[number];

/** Whether `table` is one of the tables partitioned per scan (once its migration is applied). */
export function isPerScanTable(table: string): table is PerScanTable {
  return (PER_SCAN_TABLES as readonly string[]).includes(table);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The table holding scan `scanId`'s rows of `table`: `<table>_s<32 hex digits>` (at most 51 characters, within
 * PostgreSQL's 63).
 * @throws Error when `scanId` is not a UUID (a programming error: callers check ids at the boundary)
 */
export function scanPartition(table: PerScanTable, scanId: string): string {
  if (!UUID.test(scanId)) throw new Error(`scan partition: ${JSON.stringify(scanId)} is not a scan id`);
  return `${table}_s${scanId.replace(/-/g, '').toLowerCase()}`;
}

/** A regular expression (PostgreSQL's) matching the name of any scan's own table of any of {@link PER_SCAN_TABLES}. */
const PER_SCAN_NAMES = `^(${PER_SCAN_TABLES.join('|')})_s[0-9a-f]{32}$`;

/**
 * The columns of `table` a row can be inserted with, quoted and comma-separated: every column but the generated ones
 * (PostgreSQL refuses a value for `findings.severity_rank`; the parent computes it).
 */
async function insertableColumns(client: PoolClient, table: PerScanTable): Promise<string> {
  const r = await client.query<{ cols: string }>(
    `SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) AS cols FROM pg_attribute
      WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''`,
    [table],
  );
  return r.rows[0]!.cols;
}

/** PostgreSQL's SQLSTATE for a partition whose bound overlaps another's (invalid_object_definition). */
const OVERLAP = '42P17';

/**
 * The per-scan partitions of a store's database; see the file comment. A scan id that is not a UUID has none (every
 * method does nothing for it; the caller's own query answers NOT_FOUND).
 */
export class ScanPartitions {
  private known: ReadonlySet<PerScanTable> | undefined;

  /** @param pool the store's connection pool */
  constructor(private readonly pool: Pool) {}

  /**
   * Which of {@link PER_SCAN_TABLES} are partitioned per scan in this database (their migrations applied). An answer
   * naming every table is kept; another is asked again (a database migrated while the process runs is seen at once).
   * @param db where to ask: inside a transaction, its client (the embedded PGlite pool has one connection)
   */
  async partitionedTables(db: Pool | PoolClient = this.pool): Promise<ReadonlySet<PerScanTable>> {
    if (this.known) return this.known;
    const r = await db.query<{ relname: string }>(
      `SELECT relname FROM pg_class WHERE oid = ANY(ARRAY[${PER_SCAN_TABLES.map((t) => `to_regclass('${t}')`).join(', ')}]) AND relkind = 'p'`,
    );
    const tables = new Set(PER_SCAN_TABLES.filter((t) => r.rows.some((row) => row.relname === t)));
    if (tables.size === PER_SCAN_TABLES.length) this.known = tables;
    return tables;
  }

  /** Whether any table is partitioned per scan (migration 1800600000001 applied). */
  async partitioned(db: Pool | PoolClient = this.pool): Promise<boolean> {
    return (await this.partitionedTables(db)).size > 0;
  }

  /**
   * Create scan `scanId`'s tables that do not exist yet, without indexes and not attached (the chunked store's
   * staging tables; `attach` makes them partitions), each with the CHECK that lets ATTACH skip reading it.
   * @param client the caller's transaction client
   */
  async createTables(client: PoolClient, scanId: string): Promise<void> {
    if (!UUID.test(scanId)) return;
    for (const table of await this.partitionedTables(client)) {
      // INCLUDING GENERATED: a partition's generated column (findings.severity_rank) must be generated as its parent's.
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${scanPartition(table, scanId)} (LIKE ${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED INCLUDING STORAGE INCLUDING COMPRESSION, CHECK (scan_id = '${scanId}'::uuid))`,
      );
    }
  }

  /**
   * Attach scan `scanId`'s tables that are not partitions yet, each in a transaction of its own (ATTACH builds its
   * indexes). A scan whose rows another partition holds (the table of the rows stored before the migration names it)
   * keeps them there: its own table's rows move into the parent, which routes them, and the table is dropped.
   * Run again after a lost connection, it attaches what is left.
   */
  async attach(scanId: string): Promise<void> {
    for (const table of await this.partitionedTables()) await this.attachTable(scanId, table);
  }

  /** `attach` for one table: the chunked store attaches each as soon as its last chunk committed. */
  async attachTable(scanId: string, table: PerScanTable): Promise<void> {
    if (!UUID.test(scanId) || !(await this.partitionedTables()).has(table)) return;
    const name = scanPartition(table, scanId);
    await withTransaction(this.pool, async (client) => {
      const r = await client.query<{ relispartition: boolean }>(`SELECT relispartition FROM pg_class WHERE oid = to_regclass($1)`, [name]);
      if (r.rows[0] === undefined || r.rows[0].relispartition) return;
      await client.query('SAVEPOINT attach_partition');
      try {
        await client.query(`ALTER TABLE ${table} ATTACH PARTITION ${name} FOR VALUES IN ('${scanId}')`);
      } catch (e) {
        if ((e as { code?: string }).code !== OVERLAP) throw e;
        await client.query('ROLLBACK TO SAVEPOINT attach_partition');
        // Named columns: a generated column (findings.severity_rank) takes no value.
        const columns = await insertableColumns(client, table);
        await client.query(`INSERT INTO ${table} (${columns}) SELECT ${columns} FROM ${name}`);
        await client.query(`DROP TABLE ${name}`);
      }
    });
  }

  /**
   * Make sure scan `scanId` has its partitions (empty ones created and attached), before a write through the parents:
   * the embedded store's single transaction, a shard's transaction, a succeeded scan's result replaced. Runs in
   * transactions of its own, never inside the caller's (the shards of one scan write at once; each waits here only for
   * another creating the same tables, by an advisory lock).
   */
  async ensure(scanId: string): Promise<void> {
    if (!UUID.test(scanId) || !(await this.partitioned())) return;
    await withTransaction(this.pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('fleet-audit scan partitions ' || $1))`, [scanId]);
      await this.createTables(client, scanId);
    });
    await this.attach(scanId);
  }

  /**
   * Drop scan `scanId`'s tables that are not partitions (a discarded store's staging tables), in the caller's
   * transaction. Attached ones stay (dropping a partition would lock the parent against every reader); the caller
   * deletes their rows, and `remove` drops them with the scan.
   * @param client the caller's transaction client
   */
  async dropUnattached(client: PoolClient, scanId: string): Promise<void> {
    if (!UUID.test(scanId)) return;
    for (const table of await this.partitionedTables(client)) {
      const name = scanPartition(table, scanId);
      const r = await client.query<{ relispartition: boolean }>(`SELECT relispartition FROM pg_class WHERE oid = to_regclass($1)`, [name]);
      if (r.rows[0] !== undefined && !r.rows[0].relispartition) await client.query(`DROP TABLE ${name}`);
    }
  }

  /**
   * Remove scan `scanId`'s tables of `tables` (default all; retention deleted the scan, or pruned its graph): each
   * partition detached CONCURRENTLY (outside any transaction: readers never wait), then dropped alone. Best effort: a table left (a detach that failed, PGlite's
   * single connection) is removed by the next `removeOrphans`.
   * @returns the tables dropped
   */
  async remove(scanId: string, tables: readonly PerScanTable[] = PER_SCAN_TABLES): Promise<string[]> {
    if (!UUID.test(scanId)) return [];
    const partitioned = await this.partitionedTables();
    const dropped: string[] = [];
    for (const table of tables.filter((t) => partitioned.has(t))) {
      const name = scanPartition(table, scanId);
      if (await this.removeTable(table, name)) dropped.push(name);
    }
    return dropped;
  }

  /**
   * Remove scan `scanId`'s own table of `table` (`remove`), counting its rows first.
   * @returns the rows it held when it was removed; 0 when it does not exist or could not be removed now (its rows
   *   are then still there, for the caller's row by row delete)
   */
  async removeCounted(scanId: string, table: PerScanTable): Promise<number> {
    if (!UUID.test(scanId) || !(await this.partitionedTables()).has(table)) return 0;
    const name = scanPartition(table, scanId);
    const exists = await this.pool.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [name]);
    if (exists.rows[0]?.t == null) return 0;
    const { rows } = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${name}`);
    return (await this.removeTable(table, name)) ? Number(rows[0]?.n ?? 0) : 0;
  }

  /**
   * Remove the per-scan tables whose scan no longer exists (a `remove` that did not finish, a scan deleted by hand).
   * @returns the tables dropped
   */
  async removeOrphans(): Promise<string[]> {
    if (!(await this.partitioned())) return [];
    const { rows } = await this.pool.query<{ relname: string; table: string }>(
      `SELECT c.relname, substring(c.relname FROM '^(.*)_s[0-9a-f]{32}$') AS table
         FROM pg_class c
        WHERE c.relkind = 'r' AND c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = 'quota_usage'::regclass)
          AND c.relname ~ '${PER_SCAN_NAMES}'
          AND NOT EXISTS (SELECT 1 FROM scans s WHERE s.id = substring(c.relname FROM '_s([0-9a-f]{32})$')::uuid)
        ORDER BY c.relname`,
    );
    const dropped: string[] = [];
    for (const r of rows) if (isPerScanTable(r.table) && (await this.removeTable(r.table, r.relname))) dropped.push(r.relname);
    return dropped;
  }

  /**
   * Analyse the per-scan tables PostgreSQL has no statistics of yet (the scans stored since the last call): the
   * planner reads a partition's own statistics once a query names its scan. The parents are not analysed: ANALYZE of a
   * partitioned table samples every partition again, so its cost would grow with the scans kept.
   */
  async analyzeNew(): Promise<void> {
    if (!(await this.partitioned())) return;
    const { rows } = await this.pool.query<{ relname: string }>(
      `SELECT relname FROM pg_stat_user_tables
        WHERE relname ~ '${PER_SCAN_NAMES}' AND last_analyze IS NULL AND last_autoanalyze IS NULL
        ORDER BY relname`,
    );
    for (const r of rows) await this.pool.query(`ANALYZE ${r.relname}`);
  }

  /**
   * Detach (CONCURRENTLY when it is a partition) and drop one table; false when it could not be removed now. Where
   * the concurrent detach is refused (PGlite's single connection; a detach left pending by an interrupted one), the
   * table is dropped as a partition, waiting at most a second for the parent's lock.
   */
  private async removeTable(table: PerScanTable, name: string): Promise<boolean> {
    try {
      const r = await this.pool.query<{ relispartition: boolean }>(`SELECT relispartition FROM pg_class WHERE oid = to_regclass($1)`, [name]);
      if (r.rows[0] === undefined) return false;
      if (r.rows[0].relispartition) await this.pool.query(`ALTER TABLE ${table} DETACH PARTITION ${name} CONCURRENTLY`).catch(() => undefined);
      await withTransaction(this.pool, async (client) => {
        await client.query(`SET LOCAL lock_timeout = '1s'`);
        await client.query(`DROP TABLE IF EXISTS ${name}`);
      });
      return true;
    } catch {
      return false;
    }
  }
}
