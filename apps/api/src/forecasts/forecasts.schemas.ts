import { z } from 'zod';
import { MAX_PAGE_LIMIT } from '@app/store';
import { cursorPageQueryFields, idFilter } from '../common/request.schemas';

const STATUS_VALUES = ['ok', 'insufficient_data', 'flat', 'decreasing', 'exhausted'] as const;

/** A positive decimal number given in the query. */
function queryNumber(description: string) {
  return z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a positive number')
    .transform(Number)
    .pipe(z.number().positive('must be a positive number'))
    .optional()
    .describe(description);
}

/** An ISO 8601 time given in the query. */
const isoTime = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 time')
  .transform((s) => new Date(s))
  .optional();

/** Query of `GET /v1/forecasts/trends`: filters like /v1/findings plus the model's window settings. */
export const trendsQuerySchema = z.strictObject({
  checkId: idFilter('Only series of this check id'),
  accountId: idFilter('Only series in this Alibaba Cloud account (UID)'),
  clusterId: idFilter('Only series in this ACK cluster'),
  status: z.enum(STATUS_VALUES, `must be one of ${STATUS_VALUES.join(', ')}`).optional().describe('Only entries with this status'),
  now: isoTime.describe('Forecast clock (default: now)'),
  windowDays: queryNumber('History window in days (default 14)'),
  minSamples: queryNumber('Fewer samples -> insufficient_data (default 4)'),
  minSpanHours: queryNumber('Shorter span -> insufficient_data (default 48)'),
  limit: z
    .string()
    .regex(/^\d{1,16}$/, `must be an integer from 1 to ${MAX_PAGE_LIMIT}`)
    .transform(Number)
    .pipe(z.number().int().min(1, `must be an integer from 1 to ${MAX_PAGE_LIMIT}`).max(MAX_PAGE_LIMIT, `must be an integer from 1 to ${MAX_PAGE_LIMIT}`))
    .optional()
    .describe(
      `Page size (entries), 1 to ${MAX_PAGE_LIMIT}. Given (or with after), the answer is one page in series key order (check, account, region, resource kind, resource id) with nextCursor; omitted, every entry soonest first`,
    ),
  after: cursorPageQueryFields.after.describe('`nextCursor` of the previous page (omit for the first page); pages of 100 entries unless limit is given'),
});

/** Parsed query of `GET /v1/forecasts/trends`. */
export type TrendsQuery = z.output<typeof trendsQuerySchema>;

/** Query of `GET /v1/forecasts/headroom`. */
export const headroomQuerySchema = z.strictObject({
  clusterId: idFilter('Only this ACK cluster'),
  like: idFilter('New nodes copy this node (default: the first ready worker)'),
  ports: queryNumber('Ports per new Service (default 1)'),
  podsPerService: queryNumber('Pods per new Local Service (default 2)'),
});

/** Parsed query of `GET /v1/forecasts/headroom`. */
export type HeadroomQuery = z.output<typeof headroomQuerySchema>;

/**
 * Body of `POST /v1/plans` (and the GraphQL `plan` mutation): the target cluster (by id or name), the manifests as
 * the text `kubectl apply -f` reads (multi-document YAML or JSON, `List` kinds; the body limit of 100 kB bounds it)
 * and the Services the change deletes.
 */
export const planBodySchema = z.strictObject({
  cluster: z.string().min(1).max(253).describe('Target cluster, by id or by name'),
  manifests: z.string().max(100_000).describe('Kubernetes manifests (YAML or JSON; several documents, List kinds)'),
  delete: z
    .array(z.string().regex(/^[^/]+\/[^/]+$/, 'a Service as namespace/name').max(253))
    .max(1000)
    .optional()
    .describe('Services the change deletes, namespace/name'),
});
/** A validated plan body. */
export type PlanBody = z.infer<typeof planBodySchema>;
