/**
 * Opaque paging tokens (ECS/Quota Center `NextToken`, RAM `Marker`): base64url of the next offset
 * and a scope string, so a token replayed with other filters or for another API is rejected
 * instead of silently paging a different list.
 */
import type { RpcParams } from '../http/params.util';
import { AcsError } from './acs-error.exception';

/** Encode the offset of the next page for a list identified by `scope`. */
export function encodePageToken(offset: number, scope: string): string {
  return Buffer.from(JSON.stringify({ o: offset, s: scope })).toString('base64url');
}

/**
 * Decode a token made by {@link encodePageToken}.
 * @param paramName the request parameter that carried it (for the error message)
 * @throws AcsError 400 `InvalidParameter` when the token is malformed or from another list
 */
export function decodePageToken(token: string, scope: string, paramName: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw AcsError.invalidParameter(paramName, 'The token is malformed.');
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw AcsError.invalidParameter(paramName, 'The token is malformed.');
  const { o, s } = parsed as { o?: unknown; s?: unknown };
  if (typeof o !== 'number' || !Number.isInteger(o) || o < 0 || s !== scope)
    throw AcsError.invalidParameter(paramName, 'The token does not belong to this request.');
  return o;
}

/** One page of a token-paged list: its items and the token of the next page (undefined on the last page). */
export interface TokenPage<T> {
  items: T[];
  next: string | undefined;
}

/**
 * The page of `all` a token-paged API returns for the request's token: at most `size` items from the offset the token
 * carries (from the start without one), and the token of the next page.
 * @param scope what identifies the list (API, account, filters): a token from another list is refused
 * @param paramName the request parameter carrying the token (`NextToken`, RAM's `Marker`)
 * @throws AcsError 400 `InvalidParameter` when the token is malformed or from another list
 */
export function tokenPage<T>(all: readonly T[], size: number, scope: string, token: string | undefined, paramName = 'NextToken'): TokenPage<T> {
  const start = token === undefined ? 0 : decodePageToken(token, scope, paramName);
  const items = all.slice(start, start + size);
  const end = start + items.length;
  return { items, next: end < all.length ? encodePageToken(end, scope) : undefined };
}

/**
 * `PageNumber` (from 1, default 1) and `PageSize` (1..`maxSize`, default `defaultSize`) of a page-numbered API
 * (SLB DescribeLoadBalancers and DescribeTags, VPC DescribeVSwitches), with the APIs' error messages.
 * @throws AcsError 400 `InvalidParameter` naming PageNumber or PageSize when out of range
 */
export function pageNumberParams(p: RpcParams, defaultSize: number, maxSize: number): { pageNumber: number; pageSize: number } {
  const pageNumber = p.int('PageNumber') ?? 1;
  const pageSize = p.int('PageSize') ?? defaultSize;
  if (pageNumber < 1) throw AcsError.invalidParameter('PageNumber', 'It must be at least 1.');
  if (pageSize < 1 || pageSize > maxSize) throw AcsError.invalidParameter('PageSize', `It must be between 1 and ${maxSize}.`);
  return { pageNumber, pageSize };
}

/** Clamp `value` into `[min, max]`. */
export const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));
