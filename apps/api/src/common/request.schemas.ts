/**
 * Zod schemas of request parts shared by the controllers. Query values arrive as strings (an
 * array when a parameter repeats, which is rejected).
 */
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '@app/store';
import { z } from 'zod';

/** A query integer in [min, max] given as decimal digits, with a default when absent. */
function queryInt(min: number, max: number, fallback: number, description: string) {
  const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d{1,16}$/, `must be an integer ${range}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be an integer ${range}`).max(max, `must be an integer ${range}`))
    .optional()
    .default(fallback)
    .describe(description);
}

/** `limit` and `offset` of every paged listing. */
export const pageQueryFields = {
  limit: queryInt(1, MAX_PAGE_LIMIT, DEFAULT_PAGE_LIMIT, `Page size (rows), 1 to ${MAX_PAGE_LIMIT}`),
  offset: queryInt(0, Number.MAX_SAFE_INTEGER, 0, 'Rows to skip'),
};

/** A scan id: a uuid in its textual form (any version). */
export const scanIdSchema = z.guid('must be a uuid').describe('Scan id (uuid)');

/** A non-empty identifier filter (check id, account id, cluster id). */
export function idFilter(description: string) {
  return z
    .string()
    .min(1, 'must not be empty')
    .max(256, 'must be at most 256 characters')
    // PostgreSQL cannot hold a NUL in text (22021): refused here with 400 instead of a 500 later.
    .refine((s) => !s.includes('\u0000'), 'must not contain a NUL character')
    .optional()
    .describe(description);
}

/**
 * `limit` and `after` of keyset-paged listings: `after` is the opaque `nextCursor` of the previous page
 * (stable under concurrent inserts; libs/store keyset-cursor.util.ts).
 */
export const cursorPageQueryFields = {
  limit: queryInt(1, MAX_PAGE_LIMIT, DEFAULT_PAGE_LIMIT, `Page size (rows), 1 to ${MAX_PAGE_LIMIT}`),
  after: z
    .string()
    .min(1, 'must not be empty')
    .max(512, 'must be at most 512 characters')
    .regex(/^[A-Za-z0-9_-]+$/, 'must be a cursor returned by this listing (nextCursor)')
    .optional()
    .describe('Opaque cursor: the nextCursor of the previous page (omit for the first page)'),
};

/**
 * `offset` of the lists that paged by offset before `after` (`/v1/scans`, `/v1/reports`): still
 * accepted for one release, deprecated (the answer carries a `Deprecation` header); absent unless given.
 */
export const deprecatedOffsetField = z
  .string()
  .regex(/^\d{1,16}$/, 'must be an integer >= 0')
  .transform(Number)
  .pipe(z.number().int().min(0, 'must be an integer >= 0'))
  .optional()
  .describe('Deprecated: rows to skip (reads every skipped row). Follow `nextCursor` as `after` instead; not with after. Answered with a `Deprecation` header.');

/**
 * The paging of every REST list: `limit` and `after`, the previous page's `nextCursor`; the answer
 * carries `nextCursor` (null on the last page).
 */
export const listPageQueryFields = {
  limit: cursorPageQueryFields.limit,
  after: cursorPageQueryFields.after.describe('`nextCursor` of the previous page (omit for the first page); stable while items are added'),
};

/** The check of a list with a deprecated `offset`: a page starts at a cursor or at an offset, not both (400 naming query.offset). */
export function afterOrOffset<S extends z.ZodObject>(schema: S): S {
  return schema.refine((q: { after?: unknown; offset?: unknown }) => q.after === undefined || q.offset === undefined, {
    message: 'give after or the deprecated offset, not both',
    path: ['offset'],
  });
}
