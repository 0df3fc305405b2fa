import { z } from 'zod';
import { cursorPageQueryFields, idFilter, scanIdSchema } from '../common/request.schemas';

/** The scan a graph read uses: default the latest succeeded scan. */
const scanIdField = scanIdSchema.optional().describe('Scan to read; default: the latest succeeded scan');

/** Query of `GET /v1/clusters`. */
export const listClustersQuerySchema = z.strictObject({
  scanId: scanIdField,
  accountId: idFilter('Only clusters of this Alibaba Cloud account (UID)'),
  regionId: idFilter('Only clusters of this region'),
  ...cursorPageQueryFields,
});

/** Query of `GET /v1/load-balancers/{id}` and `GET /v1/ecs-instances/{id}`. */
export const graphObjectQuerySchema = z.strictObject({ scanId: scanIdField });

/** A cloud resource id in the path (CLB `lb-...`, ECS `i-...`). */
export const resourceIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(256, 'must be at most 256 characters')
  .regex(/^[0-9A-Za-z_.:-]+$/, 'must be a resource id (letters, digits, . _ : -)');

export type ListClustersQuery = z.output<typeof listClustersQuerySchema>;
export type GraphObjectQuery = z.output<typeof graphObjectQuerySchema>;
