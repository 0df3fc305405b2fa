/**
 * Keyset ("seek") paging, generic over any ORDER BY of columns with a unique tiebreaker last:
 * an opaque cursor holds the sort-key values of the last row read, and the next page is
 * `WHERE (keys) after (cursor values)`. Unlike OFFSET it is stable under concurrent inserts (no row
 * is skipped or repeated because rows were inserted before the cursor) and costs an index seek, not
 * a scan of the skipped rows (use-the-index-luke.com/no-offset; Relay cursor connections:
 * relay.dev/graphql/connections.htm, cursors are opaque strings).
 */
import { StoreError } from './store.exception';

/** One sort column: an SQL expression from code (never input) and its direction. */
export interface KeysetColumn {
  expr: string;
  dir: 'asc' | 'desc';
}

/** A sort-key value a cursor can carry. */
export type KeysetValue = string | number;

/** Encode the sort-key values of a row as an opaque cursor (base64url of JSON). */
export function encodeCursor(values: readonly KeysetValue[]): string {
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

/**
 * Decode a cursor made by `encodeCursor` for an order of `arity` columns.
 * @throws StoreError INVALID_ARGUMENT naming the cursor as malformed (never echoes more than 40 characters)
 */
export function decodeCursor(cursor: string, arity: number): KeysetValue[] {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    values = undefined;
  }
  if (!Array.isArray(values) || values.length !== arity || !values.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))) {
    throw new StoreError('INVALID_ARGUMENT', `cursor "${cursor.slice(0, 40)}" is malformed (use a cursor returned by this listing)`);
  }
  return values as KeysetValue[];
}

/**
 * The SQL condition "row comes after the cursor row" for the given order, registering values
 * through `param`. One direction for every column: a row comparison `(c1, c2) > (v1, v2)`, which
 * PostgreSQL serves as one index range scan starting at the cursor (a B-tree on the same columns in
 * the same order; PostgreSQL docs 9.24.5 "Row Constructor Comparison", 11.3 "Multicolumn Indexes").
 * Mixed directions: `(c1 > v1) OR (c1 = v1 AND c2 < v2) OR ...` (correct, but the index can then
 * only stop early, not seek: prefer an expression such as `-rank` to make directions uniform).
 * @throws RangeError when the number of values differs from the number of columns
 */
export function keysetAfter(columns: readonly KeysetColumn[], values: readonly KeysetValue[], param: (v: unknown) => string): string {
  if (columns.length !== values.length || columns.length === 0) throw new RangeError('keyset columns and cursor values differ in number');
  const placeholders = values.map((v) => param(v));
  if (columns.every((c) => c.dir === columns[0].dir)) {
    return `((${columns.map((c) => c.expr).join(', ')}) ${columns[0].dir === 'asc' ? '>' : '<'} (${placeholders.join(', ')}))`;
  }
  const terms = columns.map((c, i) => {
    const equal = columns.slice(0, i).map((p, j) => `${p.expr} = ${placeholders[j]}`);
    const step = `${c.expr} ${c.dir === 'asc' ? '>' : '<'} ${placeholders[i]}`;
    return `(${[...equal, step].join(' AND ')})`;
  });
  return `(${terms.join(' OR ')})`;
}

/** The `ORDER BY` clause of an order. */
export function keysetOrderBy(columns: readonly KeysetColumn[]): string {
  return `ORDER BY ${columns.map((c) => `${c.expr} ${c.dir.toUpperCase()}`).join(', ')}`;
}
