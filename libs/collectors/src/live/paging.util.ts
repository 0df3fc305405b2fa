/**
 * Paging loops for the three schemes the APIs use (research/alibaba-cloud-api.md section 8):
 *  - NextToken / MaxResults (ECS DescribeInstances, Quota Center ListProductQuotas): ask again with
 *    the returned token until it comes back empty or absent;
 *  - PageNumber / PageSize / TotalCount (SLB DescribeLoadBalancers, VPC DescribeVSwitches, CS
 *    DescribeClustersV1 `page_info`): ask page 1, 2, ... until `TotalCount` items were seen or a
 *    short page arrives;
 *  - Marker / IsTruncated (RAM ListRoles), and Kubernetes `limit` / `continue` (same shape as a
 *    token).
 * Every loop is guarded against a server that never ends (a token repeating, or more pages than
 * `maxPages`), which becomes a CollectError rather than an endless scan.
 */
import { CollectError } from './collect-error.util';

/** Safety cap on pages per listing, count: 100k pages x 100 items is beyond any real account. */
export const MAX_PAGES = 100_000;

/** One page of a token-paged listing. */
export interface TokenPage<T> {
  items: T[];
  /** Token for the next page; empty / undefined on the last page. */
  nextToken?: string | null;
}

/**
 * Read a token-paged listing to the end.
 * @param fetchPage fetch the page after `token` (undefined for the first page)
 * @param what `API target` for error messages
 * @throws CollectError `PagingLoop` when a token repeats or the page cap is hit
 */
export async function readAllByToken<T>(
  fetchPage: (token: string | undefined) => Promise<TokenPage<T>>,
  what: string,
  maxPages = MAX_PAGES,
): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<string>();
  let token: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const r = await fetchPage(token);
    out.push(...r.items);
    const next = r.nextToken ?? undefined;
    if (next === undefined || next === '') return out;
    if (seen.has(next))
      throw new CollectError('PagingLoop', `${what}: the server returned the paging token "${next}" twice`);
    seen.add(next);
    token = next;
  }
  throw new CollectError('PagingLoop', `${what}: more than ${maxPages} pages`);
}

/** One page of a number-paged listing. */
export interface NumberPage<T> {
  items: T[];
  /** Total items over all pages, as the server reports it; undefined if not reported. */
  totalCount?: number;
}

/**
 * Read a number-paged listing (pages 1, 2, ...) to the end: stops when `totalCount` items were
 * read, or on a page shorter than `pageSize` (also an empty page), whichever comes first.
 * @throws CollectError `PagingLoop` when the page cap is hit
 */
export async function readAllByPageNumber<T>(
  fetchPage: (pageNumber: number) => Promise<NumberPage<T>>,
  pageSize: number,
  what: string,
  maxPages = MAX_PAGES,
): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; page <= maxPages; page++) {
    const r = await fetchPage(page);
    out.push(...r.items);
    if (r.items.length === 0 || r.items.length < pageSize) return out;
    if (r.totalCount !== undefined && out.length >= r.totalCount) return out;
  }
  throw new CollectError('PagingLoop', `${what}: more than ${maxPages} pages`);
}
