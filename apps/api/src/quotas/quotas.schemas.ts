import { RESOURCE_KINDS } from '@app/domain';
import { z } from 'zod';
import { cursorPageQueryFields, idFilter, scanIdSchema } from '../common/request.schemas';

/** Query of `GET /v1/quotas`: equality filters (AND-ed), a ratio floor and keyset paging. */
export const listQuotasQuerySchema = z.strictObject({
  scanId: scanIdSchema.optional().describe('Scan to read; default: the latest succeeded scan'),
  checkId: idFilter('Only samples of this check id (e.g. CLB_BACKEND_QUOTA)'),
  accountId: idFilter('Only samples in this Alibaba Cloud account (UID)'),
  regionId: idFilter('Only samples in this region'),
  clusterId: idFilter('Only samples in this ACK cluster'),
  resourceKind: z.enum(RESOURCE_KINDS, `must be one of ${RESOURCE_KINDS.join(', ')}`).optional().describe('Only samples about this kind of resource'),
  resourceId: idFilter('Only samples about this resource id (e.g. a CLB id)'),
  minRatio: z
    .string()
    .regex(/^(0|[1-9]\d{0,3})(\.\d{1,6})?$/, 'must be a decimal number such as 0.8')
    .transform(Number)
    .optional()
    .describe('Only samples with used / limit at or above this fraction (0.8 = 80 %)'),
  ...cursorPageQueryFields,
});

/** Parsed query of `GET /v1/quotas`. */
export type ListQuotasQuery = z.output<typeof listQuotasQuerySchema>;
