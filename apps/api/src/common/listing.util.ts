/**
 * One listing of a scan as both transports read it: a keyset page (GraphPage, libs/store FleetGraphRepository
 * rules) and its count, run only when asked (GraphQL `totalCount` is lazy; REST counts every page).
 */
import type { GraphPage, GraphPageArgs } from '@app/store';

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
