/**
 * The bulk-insert engine of the store: rows described by a column list (`ColumnSpec`: column, how it is sent,
 * how it is read off the row) written with multi-row `INSERT ... VALUES` statements of at most 65,535 bind
 * parameters (sql.util.ts `MAX_BIND_PARAMETERS`).
 */
import type { PoolClient } from 'pg';
import { chunk, MAX_BIND_PARAMETERS, storableJson, storableText } from './sql.util';

/**
 * How a column is sent: `text` / `integer` / `numeric` / `boolean` as values; `jsonb` as JSON text cast on insert;
 * `json` as JSON text stored as is (a `text` column); `text[]` as one string joined by U+001F (ids and IPs
 * never contain it) split on insert; `integer[]` as the integers joined by commas, split and cast on insert.
 */
export type ColumnKind = 'text' | 'integer' | 'numeric' | 'boolean' | 'jsonb' | 'json' | 'text[]' | 'integer[]';

/**
 * The columns of a table after `scan_id`: SQL column name, how it is sent, its value on a row, and optionally the
 * property path that value is read from (`value(row)` is `row[path[0]][path[1]]...`): what lets the COPY engine
 * (copy.util.ts `copyLineEncoder`) read it with a property load of its own instead of through `value`.
 */
export type ColumnSpec<T> = readonly (readonly [column: string, kind: ColumnKind, value: (row: T) => unknown, path?: readonly string[]])[];

/** Separator of `text[]` columns on the wire (ASCII unit separator). */
const ARRAY_SEPARATOR = '\u001f';

/**
 * Insert rows with multi-row `INSERT ... VALUES` statements, one bind parameter per value (sent as is: no
 * array-literal escaping of large values), at most 65,535 parameters per statement (MAX_BIND_PARAMETERS).
 */
export async function insertRows<T>(client: PoolClient, table: string, columns: ColumnSpec<T>, scanId: string, rows: readonly T[], perInsert: number): Promise<void> {
  const names = columns.map(([c]) => c);
  const cast: Record<ColumnKind, (placeholder: string) => string> = {
    text: (x) => x,
    integer: (x) => `${x}::int`,
    numeric: (x) => `${x}::numeric`,
    boolean: (x) => `${x}::bool`,
    jsonb: (x) => `${x}::jsonb`,
    json: (x) => x,
    'text[]': (x) => `string_to_array(${x}, E'\\x1F')`,
    'integer[]': (x) => `string_to_array(${x}, ',')::int[]`,
  };
  const rowsPerInsert = Math.min(perInsert, Math.floor((MAX_BIND_PARAMETERS - 1) / columns.length));
  for (const part of chunk(rows, rowsPerInsert)) {
    const params: unknown[] = [scanId];
    const tuples: string[] = [];
    for (const r of part) {
      const placeholders = ['$1'];
      for (const [, kind, value] of columns) {
        const v = value(r);
        params.push(
          v === null || v === undefined
            ? null
            : kind === 'text'
              ? storableText(v as string)
              : kind === 'jsonb'
                ? storableJson(v)
                : kind === 'text[]'
                  ? (v as string[]).map((x) => storableText(x)).join(ARRAY_SEPARATOR)
                  : kind === 'integer[]'
                    ? (v as number[]).join(',')
                    : v,
        );
        placeholders.push(cast[kind](`$${params.length}`));
      }
      tuples.push(`(${placeholders.join(', ')})`);
    }
    await client.query(`INSERT INTO ${table} (scan_id, ${names.join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`, params);
  }
}
