import { StoreError } from './store.exception';
import type { PageRequest } from './store.types';

/** Default page size (rows) of list methods. */
export const DEFAULT_PAGE_LIMIT = 100;

/** Largest page size (rows) a list method accepts: bounds memory and response size per request. */
export const MAX_PAGE_LIMIT = 1000;

/**
 * Paging with defaults applied and checked.
 * @returns `limit` 1..1000 (default 100) and `offset` >= 0 (default 0), integers
 * @throws StoreError INVALID_ARGUMENT when out of range
 */
export function resolvePage(page: PageRequest): { limit: number; offset: number } {
  const limit = page.limit ?? DEFAULT_PAGE_LIMIT;
  const offset = page.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw new StoreError('INVALID_ARGUMENT', `limit must be an integer from 1 to ${MAX_PAGE_LIMIT}, got ${limit}`);
  }
  if (!Number.isInteger(offset) || offset < 0) {
    throw new StoreError('INVALID_ARGUMENT', `offset must be a non-negative integer, got ${offset}`);
  }
  return { limit, offset };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `id` has the textual form of a uuid (8-4-4-4-12 hex digits, any version). Ids that do
 * not cannot name a row, and PostgreSQL would reject them with a cast error.
 */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}
