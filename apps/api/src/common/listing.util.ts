/**
 * One listing of a scan as both transports read it: a keyset page (GraphPage, libs/store FleetGraphRepository
 * rules) and its count, run only when asked (GraphQL `totalCount` is lazy; REST counts every page).
 */
import { decodeCursor, encodeCursor, type GraphPage, type GraphPageArgs, type KeysetValue } from '@app/store';

/** A page of a listing and its lazy count. */
export interface Listing<T> {
  page: Promise<GraphPage<T>>;
  /** Rows matching the listing's filters within the principal's scope, over all pages (one SQL count per call). */
  count: () => Promise<number>;
}

/** A REST keyset page (`/v1/clusters`, `/v1/quotas`): items, total, limit, `nextCursor` (pass as `after`), the scan read. */
export interface CursorPage<T> {
  items: T[];
  total: number;
  limit: number;
  nextCursor: string | null;
  scanId: string | null;
}

/**
 * A REST keyset page of a listing: page and count read concurrently; `nextCursor` is the last edge's cursor
 * when a next page exists.
 * @param scanId the scan read (null: no scan succeeded yet, an empty page)
 * @param limit page size (rows); `after` a `nextCursor` of an earlier page
 * @param listing the listing of that scan for these paging arguments
 * @throws StoreError INVALID_ARGUMENT for a malformed cursor (from the store)
 */
export async function cursorPage<T, U>(
  scanId: string | null,
  limit: number,
  after: string | undefined,
  listing: (scanId: string, args: GraphPageArgs) => Listing<T>,
  map: (t: T) => U,
): Promise<CursorPage<U>> {
  if (scanId === null) return { items: [], total: 0, limit, nextCursor: null, scanId: null };
  const l = listing(scanId, { first: limit, ...(after !== undefined ? { after } : {}) });
  const [page, total] = await Promise.all([l.page, l.count()]);
  return { items: page.edges.map((e) => map(e.node)), total, limit, nextCursor: page.hasNextPage ? (page.edges.at(-1)?.cursor ?? null) : null, scanId };
}

/** Where a response header is set (the Express response, `@Res({ passthrough: true })`). */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/**
 * When the paging parameters `offset` (scans, reports) and `cursor` (findings) were deprecated in favour of
 * `after`. Answers that used them carry
 * `Deprecation: @<this time in epoch seconds>` (RFC 9745, a Structured Field Date).
 */
export const PAGING_DEPRECATED_AT = Date.parse('2026-11-26T00:00:00Z');

/**
 * Marks an answer as having used a deprecated parameter: `Deprecation` (RFC 9745) and a `Link` to the parameter that
 * replaces it (`rel="alternate"` is not used: the link names documentation, RFC 9745 section 3 `rel="deprecation"`).
 * @param what the deprecated parameter and its replacement, for the `Link` title (`offset: use after`)
 */
export function markDeprecated(res: HeaderSink, what: string): void {
  res.setHeader('Deprecation', `@${Math.floor(PAGING_DEPRECATED_AT / 1000)}`);
  res.setHeader('Link', `</openapi.json>; rel="deprecation"; type="application/json"; title="${what.replace(/"/g, "'")}"`);
}

/** A REST list page without a scan (`/v1/scans`, `/v1/reports`, `/v1/tokens`, `/v1/waivers`): items, total, limit, `nextCursor`. */
export interface ListPage<T> {
  items: T[];
  /** Items listed over all pages (count). */
  total: number;
  limit: number;
  /** Pass as `after` for the next page; null on the last page. */
  nextCursor: string | null;
}

/**
 * One keyset page of a short list already read and sorted in full (tokens, waivers: hundreds, not millions; their
 * states are computed per read): the items strictly after the cursor's key in list order, at most `limit`.
 * @param items the whole list, sorted by `keyOf` in the order `compare` defines
 * @param keyOf the sort key of an item (unique per item: e.g. creation time and id), `arity` values
 * @param arity how many values a key has (a cursor of another arity is malformed)
 * @param compare the list order on keys (negative: a before b)
 * @param after a `nextCursor` of an earlier page of this list, or undefined for the first page
 * @throws StoreError INVALID_ARGUMENT for a malformed cursor (decodeCursor: answered 400)
 */
export function keysetSlice<T>(
  items: readonly T[],
  keyOf: (t: T) => KeysetValue[],
  arity: number,
  compare: (a: readonly KeysetValue[], b: readonly KeysetValue[]) => number,
  limit: number,
  after: string | undefined,
): ListPage<T> {
  let start = 0;
  if (after !== undefined) {
    const key = decodeCursor(after, arity);
    start = items.findIndex((t) => compare(keyOf(t), key) > 0);
    if (start < 0) start = items.length;
  }
  const page = items.slice(start, start + limit);
  const more = start + limit < items.length;
  return { items: page, total: items.length, limit, nextCursor: more && page.length ? encodeCursor(keyOf(page[page.length - 1]!)) : null };
}

/** Lexicographic order of two keys of strings / numbers (ascending); negate it for a descending list. */
export function compareKeys(a: readonly KeysetValue[], b: readonly KeysetValue[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}
