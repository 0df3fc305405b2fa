import { TEAM_NAME, type Severity } from '@app/domain';
import { z } from 'zod';
import { cursorPageQueryFields, idFilter, pageQueryFields, scanIdSchema } from '../common/request.schemas';

/** Every severity, as a tuple for z.enum (the `satisfies` keeps it within the domain type). */
const SEVERITY_VALUES = ['info', 'warning', 'critical'] as const satisfies readonly Severity[];

/** Query of `GET /v1/findings`: filters (all optional, combined with AND) and paging. */
export const listFindingsQuerySchema = z.strictObject({
  scanId: scanIdSchema.optional().describe('Scan to read; default: the latest succeeded scan'),
  checkId: idFilter('Only findings of this check id'),
  severity: z.enum(SEVERITY_VALUES, `must be one of ${SEVERITY_VALUES.join(', ')}`).optional().describe('Only findings of this severity'),
  accountId: idFilter('Only findings in this Alibaba Cloud account (UID)'),
  clusterId: idFilter('Only findings in this ACK cluster'),
  team: z.string().regex(TEAM_NAME, 'must be a team name (a letter or digit, then up to 62 letters, digits, ".", "_" or "-")').optional().describe("Only findings of this team's clusters (owners: the clusters' team tag or the audit settings' owners)"),
  after: cursorPageQueryFields.after.describe(
    '`nextCursor` of the previous page (keyset paging: stable while scans are stored, cost per page independent of depth). Keep the same filters (a cursor sent with other filters is refused with 400); not with offset. The cursor keeps its scan.',
  ),
  cursor: cursorPageQueryFields.after.describe('Deprecated alias of `after` (accepted for one release); not with a different `after`.'),
  limit: pageQueryFields.limit,
  offset: pageQueryFields.offset.describe('Rows to skip (deprecated: reads every skipped row; follow nextCursor as `after` instead). Not with after.'),
}).refine((q) => q.after === undefined || q.cursor === undefined || q.after === q.cursor, { message: 'give the cursor once, as after (cursor is its deprecated alias)', path: ['cursor'] });

/** Parsed query of `GET /v1/findings`. */
export type ListFindingsQuery = z.output<typeof listFindingsQuerySchema>;
