import { LB_OWNERS } from '@app/domain';
import { z } from 'zod';
import { cursorPageQueryFields, idFilter, scanIdSchema } from '../common/request.schemas';

/** The scan a graph read uses: default the latest succeeded scan. */
const scanIdField = scanIdSchema.optional().describe('Scan to read; default: the latest succeeded scan');

/**
 * The fields every fleet-graph listing starts with: the scan read and the account and region filters.
 * @param what the listed resources in the filters' descriptions (`clusters`, `CLBs`)
 */
function graphListingFields(what: string) {
  return {
    scanId: scanIdField,
    accountId: idFilter(`Only ${what} of this Alibaba Cloud account (UID)`),
    regionId: idFilter(`Only ${what} of this region`),
  };
}

/**
 * The filters of a load balancer listing (CLBs, NLBs): the listing's fields, the cluster of a Service using it and
 * who made it (`owner`, libs/domain LB_OWNERS).
 */
function loadBalancerListingFields(kind: 'CLB' | 'NLB') {
  return {
    ...graphListingFields(`${kind}s`),
    clusterId: idFilter(`Only ${kind}s used by a Service of this ACK cluster`),
    owner: z.enum(LB_OWNERS, `must be one of ${LB_OWNERS.join(', ')}`).optional().describe(`Only ${kind}s made by CCM (ccm), reused by a Service (reused) or made in the console / API (console)`),
  };
}

/** Query of `GET /v1/clusters`. */
export const listClustersQuerySchema = z.strictObject({
  ...graphListingFields('clusters'),
  ...cursorPageQueryFields,
});

/** CLB address types (CLB DescribeLoadBalancers `AddressType`). */
const ADDRESS_TYPES = ['internet', 'intranet'] as const;

/** A query count >= 0 (decimal digits), optional. */
function countFilter(description: string) {
  return z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number >= 0')
    .transform(Number)
    .optional()
    .describe(description);
}

/** Query of `GET /v1/load-balancers`: equality filters (AND-ed) and keyset paging. */
export const listLoadBalancersQuerySchema = z.strictObject({
  ...loadBalancerListingFields('CLB'),
  addressType: z.enum(ADDRESS_TYPES, `must be one of ${ADDRESS_TYPES.join(', ')}`).optional().describe('Only internet or intranet CLBs'),
  ...cursorPageQueryFields,
});

/** Query of `GET /v1/nlbs`: equality filters (AND-ed) and keyset paging, as `GET /v1/load-balancers`. */
export const listNlbsQuerySchema = z.strictObject({
  ...loadBalancerListingFields('NLB'),
  ...cursorPageQueryFields,
});

/** Query of `GET /v1/ecs-instances`: filters (AND-ed) and keyset paging. */
export const listEcsInstancesQuerySchema = z
  .strictObject({
    ...graphListingFields('instances'),
    clusterId: idFilter('Only instances backing a node of this ACK cluster'),
    minLoadBalancers: countFilter('Only instances listed as a backend by at least this many CLBs'),
    maxLoadBalancers: countFilter('Only instances listed as a backend by at most this many CLBs (0: none)'),
    ...cursorPageQueryFields,
  })
  .refine((q) => q.minLoadBalancers === undefined || q.maxLoadBalancers === undefined || q.minLoadBalancers <= q.maxLoadBalancers, {
    message: 'must not exceed maxLoadBalancers',
    path: ['minLoadBalancers'],
  });

/** Query of `GET /v1/nlb-server-groups/unused`: equality filters (AND-ed); unpaged (at most 3,000 groups per region). */
export const listUnusedNlbServerGroupsQuerySchema = z.strictObject(graphListingFields('server groups'));

/** Query of `GET /v1/load-balancers/{id}` and `GET /v1/ecs-instances/{id}`. */
export const graphObjectQuerySchema = z.strictObject({ scanId: scanIdField });

/** A cloud resource id in the path (CLB `lb-...`, ECS `i-...`). */
export const resourceIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(256, 'must be at most 256 characters')
  .regex(/^[0-9A-Za-z_.:-]+$/, 'must be a resource id (letters, digits, . _ : -)');

export type ListClustersQuery = z.output<typeof listClustersQuerySchema>;
export type ListLoadBalancersQuery = z.output<typeof listLoadBalancersQuerySchema>;
export type ListNlbsQuery = z.output<typeof listNlbsQuerySchema>;
export type ListEcsInstancesQuery = z.output<typeof listEcsInstancesQuerySchema>;
export type GraphObjectQuery = z.output<typeof graphObjectQuerySchema>;
export type ListUnusedNlbServerGroupsQuery = z.output<typeof listUnusedNlbServerGroupsQuerySchema>;
