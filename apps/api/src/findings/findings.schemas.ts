import type { Severity } from '@app/domain';
import { z } from 'zod';
import { idFilter, pageQueryFields, scanIdSchema } from '../common/request.schemas';

/** Every severity, as a tuple for z.enum (the `satisfies` keeps it within the domain type). */
const SEVERITY_VALUES = ['info', 'warning', 'critical'] as const satisfies readonly Severity[];

/** Query of `GET /v1/findings`: filters (all optional, combined with AND) and paging. */
export const listFindingsQuerySchema = z.strictObject({
  scanId: scanIdSchema.optional().describe('Scan to read; default: the latest succeeded scan'),
  checkId: idFilter('Only findings of this check id'),
  severity: z.enum(SEVERITY_VALUES, `must be one of ${SEVERITY_VALUES.join(', ')}`).optional().describe('Only findings of this severity'),
  accountId: idFilter('Only findings in this Alibaba Cloud account (UID)'),
  clusterId: idFilter('Only findings in this ACK cluster'),
  cursor: z
    .string()
    .min(1, 'must not be empty')
    .max(512, 'must be at most 512 characters')
    .regex(/^[A-Za-z0-9_-]+$/, 'must be a nextCursor returned by this listing')
    .optional()
    .describe('`nextCursor` of the previous page (keyset paging: stable while scans are stored, cost per page independent of depth). Keep the same filters (a cursor sent with other filters is refused with 400); not with offset. The cursor keeps its scan.'),
  limit: pageQueryFields.limit,
  offset: pageQueryFields.offset.describe('Rows to skip (deprecated: reads every skipped row; follow nextCursor instead). Not with cursor.'),
});

/** Parsed query of `GET /v1/findings`. */
export type ListFindingsQuery = z.output<typeof listFindingsQuerySchema>;
