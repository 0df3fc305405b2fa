/**
 * Relay-style keyset paging over any listing of any repository (graph tables, findings, scans): the paging
 * arguments and page shapes, the SQL conditions and order of a page (`pagingSql`) and the page of the rows
 * fetched (`toPage`). Cursors are keyset-cursor.util.ts's opaque cursors.
 */
import { decodeCursor, encodeCursor, keysetAfter, keysetOrderBy, type KeysetColumn, type KeysetValue } from './keyset-cursor.util';
import { StoreError } from './store.exception';

/**
 * Relay-style paging arguments (relay.dev/graphql/connections.htm): `first` (optionally `after`) pages
 * forward, `last` (optionally `before`) pages backward; exactly one of `first` / `last`, 1..`MAX_GRAPH_PAGE`
 * (the GraphQL layer narrows it to 1..100, as GitHub's API does). Cursors are opaque strings returned in edges.
 */
export interface GraphPageArgs {
  first?: number;
  after?: string;
  last?: number;
  before?: string;
}

/** One row of a page with its opaque cursor (keyset: the row's sort-key values). */
export interface GraphEdge<T> {
  cursor: string;
  node: T;
}

/**
 * A page of rows in key order (also when paging backward). `hasNextPage` is exact when paging forward,
 * `hasPreviousPage` exact when paging backward; the other one is true when a cursor was given (rows of a
 * stored scan never change, so rows exist beyond the cursor row), else false.
 */
export interface GraphPage<T> {
  edges: GraphEdge<T>[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

/** Largest `first` / `last` the repository accepts (rows). */
export const MAX_GRAPH_PAGE = 1000;

/** Collects bind parameters of one statement, numbering placeholders (`add(v)` returns `$n`). */
export class Params {
  readonly values: unknown[] = [];
  add = (v: unknown): string => {
    this.values.push(v);
    return `$${this.values.length}`;
  };
}

/** A page with no rows and no neighbours (unknown scan, no parents). */
export function emptyPage<T>(): GraphPage<T> {
  return { edges: [], hasNextPage: false, hasPreviousPage: false };
}

/**
 * Check Relay paging arguments and build the keyset conditions and order for `keys` (any listing of any
 * repository: graph tables, findings, scans).
 * @returns `limit` (fetch `limit + 1` rows), whether the order is reversed (`last`), the conditions and `ORDER BY`
 * @throws StoreError INVALID_ARGUMENT naming the bad argument
 */
export function pagingSql(
  keys: readonly KeysetColumn[],
  args: GraphPageArgs,
  add: (v: unknown) => string,
): { limit: number; backward: boolean; conditions: string[]; order: string } {
  const { first, last } = args;
  if ((first === undefined) === (last === undefined)) {
    throw new StoreError('INVALID_ARGUMENT', 'exactly one of `first` and `last` is required');
  }
  const limit = (first ?? last)!;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_GRAPH_PAGE) {
    throw new StoreError('INVALID_ARGUMENT', `\`${first !== undefined ? 'first' : 'last'}\` must be an integer from 1 to ${MAX_GRAPH_PAGE}, got ${limit}`);
  }
  const reversed = keys.map((k) => ({ expr: k.expr, dir: k.dir === 'asc' ? 'desc' : 'asc' }) as KeysetColumn);
  const conditions: string[] = [];
  if (args.after !== undefined) conditions.push(keysetAfter(keys, decodeCursor(args.after, keys.length), add));
  if (args.before !== undefined) conditions.push(keysetAfter(reversed, decodeCursor(args.before, keys.length), add));
  const backward = last !== undefined;
  return { limit, backward, conditions, order: keysetOrderBy(backward ? reversed : keys) };
}

/** The page of rows fetched with `pagingSql` (`limit + 1` rows at most; reversed ones are put back in key order). */
export function toPage<T>(rows: T[], keyOf: (row: T) => KeysetValue[], limit: number, backward: boolean, args: GraphPageArgs): GraphPage<T> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  if (backward) kept.reverse();
  const edges = kept.map((node) => ({ cursor: encodeCursor(keyOf(node)), node }));
  return backward
    ? { edges, hasPreviousPage: more, hasNextPage: args.before !== undefined }
    : { edges, hasNextPage: more, hasPreviousPage: args.after !== undefined };
}
