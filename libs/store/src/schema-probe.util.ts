/**
 * Whether the database's schema has a column that a later migration added, for the repositories that still read and
 * write databases migrated to an older schema (the schema-upgrade and fingerprint-identity tests open a Store on the
 * migrations before a given one; a server can run before `fleet-audit migrate` did).
 */
import type { Pool, PoolClient } from 'pg';

/**
 * A cached answer to "does `table.column` exist?" (information_schema.columns, the current schema search path). A `true`
 * answer is kept for the probe's life (migrations only add columns); a `false` one is asked again on the next call,
 * so a database migrated while the process runs is seen at once.
 */
export class ColumnProbe {
  private known = false;

  /**
   * @param pool the store's connection pool
   * @param table the table name (unquoted, lower case)
   * @param column the column name (unquoted, lower case)
   */
  constructor(
    private readonly pool: Pool,
    private readonly table: string,
    private readonly column: string,
  ) {}

  /**
   * Whether the column exists (one catalogue query until it does).
   * @param client the connection to ask on: inside a transaction, its client (the embedded PGlite pool has one
   *   connection, so asking the pool there waits for ever on the connection the transaction holds); default the pool
   */
  async exists(client: Pool | PoolClient = this.pool): Promise<boolean> {
    if (this.known) return true;
    const r = await client.query(
      `SELECT 1 FROM information_schema.columns WHERE table_schema = ANY(current_schemas(false)) AND table_name = $1 AND column_name = $2`,
      [this.table, this.column],
    );
    this.known = (r.rowCount ?? 0) > 0;
    return this.known;
  }
}

/**
 * Whether a table exists, asked of PostgreSQL's catalogue (`to_regclass`, the search path's schemas), with the same
 * caching as {@link ColumnProbe}: a `true` answer is kept (migrations only add tables), a `false` one asked again.
 */
export class TableProbe {
  private known = false;

  /**
   * @param pool the store's connection pool
   * @param table the table name (unquoted, lower case)
   */
  constructor(
    private readonly pool: Pool,
    private readonly table: string,
  ) {}

  /**
   * Whether the table exists (one catalogue query until it does).
   * @param client the connection to ask on (inside a transaction, its client, as for `ColumnProbe.exists`)
   */
  async exists(client: Pool | PoolClient = this.pool): Promise<boolean> {
    if (this.known) return true;
    const r = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [this.table]);
    this.known = r.rows[0]?.t != null;
    return this.known;
  }
}
