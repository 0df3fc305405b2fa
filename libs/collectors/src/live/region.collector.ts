/**
 * Reads the region-level datasets of one account: ECS instances, CLBs with their vServer groups, each other
 * load-balancer kind's data (NLBs with their listeners, server groups and servers), vSwitches, the Quota Center quotas of
 * the kinds' products and the ACK cluster list. Every list is paged to the end
 * (research/alibaba-cloud-api.md section 8):
 *  - ECS DescribeInstances: `MaxResults` + `NextToken` (TotalCount is meaningless with tokens);
 *  - SLB DescribeLoadBalancers: `PageNumber` / `PageSize` (<= 100) / `TotalCount`, then per CLB
 *    DescribeLoadBalancerAttribute (listeners, default server group) and DescribeVServerGroups
 *    followed by DescribeVServerGroupAttribute per group (members are only in the attribute call);
 *  - each other load-balancer kind's product (`LoadBalancerKindData.crawl`, e.g. NLB 2022-04-30: ListLoadBalancers,
 *    ListListeners, ListServerGroups, ListServerGroupServers, research/nlb.md section 7), `NextToken` / `MaxResults`;
 *  - VPC DescribeVSwitches: `PageNumber` / `PageSize` (<= 50) / `TotalCount`;
 *  - Quota Center ListProductQuotas `ProductCode=slb` and `ProductCode=nlb` with the region as
 *    `regionId` dimension: `MaxResults` + `NextToken`, parameters in the form body;
 *  - CS DescribeClustersV1: `page_number` / `page_size` / `page_info.total_count`, region filter.
 * Product-SDK responses are turned back into wire names with the model's `toMap()`; generic-client
 * (SLB, NLB, Quota Center) responses are already wire-shaped. Everything is validated with the wire
 * schemas of `@app/domain`.
 */
import type { DescribeInstancesRequestTag } from '@alicloud/ecs20140526';
import {
  wireClusterDetailSchema,
  wireEcsInstanceSchema,
  LB_KINDS,
  wireLoadBalancerAttributeSchema,
  wireQuotaApplicationSchema,
  wireQuotaSchema,
  wireVServerGroupAttributeSchema,
  wireVSwitchSchema,
  type WireClusterDetail,
  type WireEcsInstance,
  type KindCrawlApi,
  type KindWireLists,
  type LoadBalancerKindData,
  type WireLoadBalancerAttribute,
  type WireQuota,
  type WireQuotaApplication,
  type WireVServerGroupAttribute,
  type WireVSwitch,
} from '@app/domain';
import { z } from 'zod';
import { callKindProduct, callQuotas, callSlb, type RegionClients } from './alibaba-clients.factory';
import { csSdk, dara, ecsSdk, vpcSdk } from './sdk-modules';
import { Absent, absentIfNotFound, aliCall, type AccountScope } from './collect-scope.util';
import { CollectError } from './collect-error.util';
import { readAllByPageNumber, readAllByToken } from './paging.util';
import { listAt, numberAt, stringAt, validateWire } from './wire-validate.util';

const runtime = () => new (dara().RuntimeOptions)({});

/** A response body without its `RequestId` (the fleet format stores bodies without it). */
function withoutRequestId(body: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...body };
  delete rest['RequestId'];
  return rest;
}

/** An API error that means "this action or product is not served here" (e.g. a partial simulator). */
function notServed(e: unknown): e is CollectError {
  return (
    e instanceof CollectError &&
    (e.notFound || /^(InvalidAction|InvalidApi|UnsupportedOperation|InvalidVersion)/.test(e.errorCode))
  );
}

/**
 * ECS DescribeInstances, every page (NextToken paging): the raw instance records (`Instances.Instance` of each
 * page), in API order. The one DescribeInstances paging loop of the collectors.
 * @param target what is read, for errors and the call log (`account/region`)
 * @param maxResults page size (1..100, ECS API)
 * @param filter request filters (instance ids as a JSON array, tags)
 * @throws CollectError on a failed call or a page without a list
 */
export async function describeAllInstances(
  scope: AccountScope,
  rc: RegionClients,
  target: string,
  maxResults: number,
  filter: { instanceIds?: string; tag?: DescribeInstancesRequestTag[] } = {},
): Promise<unknown[]> {
  return readAllByToken(async (token) => {
    const resp = await aliCall(scope, 'DescribeInstances', target, () =>
      rc.ecs.describeInstancesWithOptions(
        new (ecsSdk().DescribeInstancesRequest)({ regionId: rc.regionId, maxResults, ...filter, ...(token ? { nextToken: token } : {}) }),
        runtime(),
      ),
    );
    const body = resp.body?.toMap() ?? {};
    return {
      items: listAt(body, 'DescribeInstances', target, 'Instances', 'Instance'),
      nextToken: stringAt(body, 'NextToken'),
    };
  }, `DescribeInstances ${target}`);
}

/**
 * ECS DescribeInstances of a region, all pages.
 * @throws CollectError on a failed call or malformed page
 */
export async function readEcsInstances(scope: AccountScope, rc: RegionClients): Promise<WireEcsInstance[]> {
  const target = `${scope.accountId}/${rc.regionId}`;
  const raw = await describeAllInstances(scope, rc, target, scope.settings.pageSizes.ecs);
  return validateWire(z.array(wireEcsInstanceSchema), raw, 'DescribeInstances', target, [
    'Instances',
    'Instance',
  ]);
}

/** CLBs of a region with their vServer groups (SLB 2014-05-15). */
export interface SlbRegionData {
  loadBalancers: WireLoadBalancerAttribute[];
  vServerGroups: WireVServerGroupAttribute[];
}

async function readVServerGroups(
  scope: AccountScope,
  rc: RegionClients,
  lbId: string,
): Promise<WireVServerGroupAttribute[]> {
  const target = `${scope.accountId}/${rc.regionId}/${lbId}`;
  let body: Record<string, unknown>;
  try {
    body = await aliCall(scope, 'DescribeVServerGroups', target, () =>
      callSlb(rc.slb, 'DescribeVServerGroups', { RegionId: rc.regionId, LoadBalancerId: lbId }),
    );
  } catch (e) {
    if (e instanceof CollectError && e.notFound) return []; // the CLB was deleted while we read
    throw e;
  }
  const ids = idsOf(
    listAt(body, 'DescribeVServerGroups', target, 'VServerGroups', 'VServerGroup'),
    'VServerGroupId',
    'DescribeVServerGroups',
    target,
    'VServerGroups.VServerGroup',
  );
  const groups = await Promise.all(
    ids.map(async (groupId) => {
      const gTarget = `${scope.accountId}/${rc.regionId}/${groupId}`;
      try {
        const attr = await aliCall(scope, 'DescribeVServerGroupAttribute', gTarget, () =>
          callSlb(rc.slb, 'DescribeVServerGroupAttribute', {
            RegionId: rc.regionId,
            VServerGroupId: groupId,
          }),
        );
        return validateWire(
          wireVServerGroupAttributeSchema,
          { LoadBalancerId: lbId, ...withoutRequestId(attr) },
          'DescribeVServerGroupAttribute',
          gTarget,
        );
      } catch (e) {
        if (e instanceof CollectError && e.notFound) return undefined; // deleted while we read
        throw e;
      }
    }),
  );
  return groups.filter((g): g is WireVServerGroupAttribute => g !== undefined);
}

/**
 * SLB (CLB) instances of a region with listeners, default servers and vServer groups.
 * A CLB or group deleted between the list and its attribute call (`*.NotFound`) is skipped.
 * @throws CollectError on a failed call or malformed response
 */
export async function readSlb(scope: AccountScope, rc: RegionClients): Promise<SlbRegionData> {
  const target = `${scope.accountId}/${rc.regionId}`;
  const pageSize = scope.settings.pageSizes.slb;
  const listed = await readAllByPageNumber(
    async (page) => {
      const body = await aliCall(scope, 'DescribeLoadBalancers', target, () =>
        callSlb(rc.slb, 'DescribeLoadBalancers', {
          RegionId: rc.regionId,
          PageNumber: page,
          PageSize: pageSize,
        }),
      );
      return {
        items: listAt(body, 'DescribeLoadBalancers', target, 'LoadBalancers', 'LoadBalancer'),
        totalCount: numberAt(body, 'TotalCount'),
      };
    },
    pageSize,
    `DescribeLoadBalancers ${target}`,
  );
  const ids = [...new Set(idsOf(listed, 'LoadBalancerId', 'DescribeLoadBalancers', target, 'LoadBalancers.LoadBalancer'))];
  const perLb = await Promise.all(
    ids.map(async (lbId) => {
      const lbTarget = `${scope.accountId}/${rc.regionId}/${lbId}`;
      let attr: Record<string, unknown>;
      try {
        attr = await aliCall(scope, 'DescribeLoadBalancerAttribute', lbTarget, () =>
          callSlb(rc.slb, 'DescribeLoadBalancerAttribute', { RegionId: rc.regionId, LoadBalancerId: lbId }),
        );
      } catch (e) {
        if (e instanceof CollectError && e.notFound) return undefined;
        throw e;
      }
      const lb = validateWire(
        wireLoadBalancerAttributeSchema,
        withoutRequestId(attr),
        'DescribeLoadBalancerAttribute',
        lbTarget,
      );
      const groups = await readVServerGroups(scope, rc, lbId);
      return { lb, groups };
    }),
  );
  const loadBalancers: WireLoadBalancerAttribute[] = [];
  const vServerGroups: WireVServerGroupAttribute[] = [];
  for (const x of perLb) {
    if (!x) continue;
    loadBalancers.push(x.lb);
    vServerGroups.push(...x.groups);
  }
  return { loadBalancers, vServerGroups };
}

/**
 * The string at `field` of every item of a list response (CLB, vServer group, NLB and server group ids), in order.
 * @param listKey the list's path in the response body, dot-separated (`LoadBalancers.LoadBalancer`)
 * @throws CollectError `InvalidResponse` naming the API, target and JSON path of the first item without one
 */
function idsOf(items: readonly unknown[], field: string, api: string, target: string, listKey: string): string[] {
  return items.map((item, i) => {
    const id = stringAt(item, field);
    if (!id)
      throw new CollectError(
        'InvalidResponse',
        `${api} ${target}: malformed response at $.${listKey}[${i}].${field}: expected a string`,
      );
    return id;
  });
}

/**
 * The `KindCrawlApi` of one kind in one region: the kind's product through the generic client (`callKindProduct`),
 * every call paced, retried and logged (`aliCall`), List* paged by `NextToken` / `MaxResults` with the scan's page
 * size for the kind (`collector.pageSizes[dataset]`, else the product's largest page).
 */
function kindCrawlApi(scope: AccountScope, rc: RegionClients, data: LoadBalancerKindData): KindCrawlApi {
  const target = `${scope.accountId}/${rc.regionId}`;
  const client = rc.product(data.product);
  const sizes = scope.settings.pageSizes as Partial<Record<string, number>>;
  const maxResults = sizes[data.dataset] ?? data.product.maxResults.max;
  return {
    regionId: rc.regionId,
    target,
    listAll: (action, listKey, params = {}, at = target) =>
      readAllByToken(async (token) => {
        const body = await aliCall(scope, action, at, () =>
          callKindProduct(client, data.product, action, {
            RegionId: rc.regionId,
            ...params,
            MaxResults: maxResults,
            ...(token ? { NextToken: token } : {}),
          }),
        );
        return { items: listAt(body, action, at, listKey), nextToken: stringAt(body, 'NextToken') };
      }, `${action} ${at}`),
    validate: (schema, items, action, listKey, at = target) => validateWire(z.array(schema), items, action, at, [listKey]),
    ids: (items, field, action, listKey) => idsOf(items, field, action, target, listKey),
    isNotFound: (e) => e instanceof CollectError && e.notFound,
  };
}

/**
 * One load-balancer kind's data of a region (`LoadBalancerKindData.crawl`, e.g. the NLBs: `WireRegion.nlb`, the four
 * List* item lists unchanged). The calls are the kind's (CALL-PLAN.md).
 * @throws CollectError on a failed call or malformed response (the kind's dataset is then `failed`)
 */
export function readKind(scope: AccountScope, rc: RegionClients, data: LoadBalancerKindData): Promise<KindWireLists> {
  return data.crawl(kindCrawlApi(scope, rc, data));
}

/**
 * VPC DescribeVSwitches of a region, all pages. Absent when the endpoint does not serve the
 * action (a simulator without VPC) or reports it unknown.
 */
export async function readVSwitches(scope: AccountScope, rc: RegionClients): Promise<WireVSwitch[] | Absent> {
  const target = `${scope.accountId}/${rc.regionId}`;
  const pageSize = scope.settings.pageSizes.vpc;
  let raw: unknown[];
  try {
    raw = await readAllByPageNumber(
      async (page) => {
        const resp = await aliCall(scope, 'DescribeVSwitches', target, () =>
          rc.vpc.describeVSwitchesWithOptions(
            new (vpcSdk().DescribeVSwitchesRequest)({ regionId: rc.regionId, pageNumber: page, pageSize }),
            runtime(),
          ),
        );
        const body = resp.body?.toMap() ?? {};
        return {
          items: listAt(body, 'DescribeVSwitches', target, 'VSwitches', 'VSwitch'),
          totalCount: numberAt(body, 'TotalCount'),
        };
      },
      pageSize,
      `DescribeVSwitches ${target}`,
    );
  } catch (e) {
    if (notServed(e)) return new Absent(`DescribeVSwitches is not served for ${target} (${e.errorCode})`);
    throw e;
  }
  return validateWire(z.array(wireVSwitchSchema), raw, 'DescribeVSwitches', target, ['VSwitches', 'VSwitch']);
}

/**
 * The Quota Center products whose quotas the `quotas` dataset holds: each load-balancer kind's (`quotaProductCode`:
 * CLB `slb`, NLB `nlb`, research/nlb.md 5), in `LB_KINDS` order.
 */
export const QUOTA_PRODUCT_CODES: readonly string[] = [...new Set(LB_KINDS.map((k) => k.quotaProductCode))];

/**
 * Quota Center ListProductQuotas in this region (dimension `regionId`) for each of
 * {@link QUOTA_PRODUCT_CODES}, all pages: the `slb` entries, then the `nlb` ones. Absent when Quota Center
 * reports no quotas for either product (the checks then use documented defaults).
 * @throws CollectError on a failed call or malformed response
 */
export async function readQuotas(scope: AccountScope, rc: RegionClients): Promise<WireQuota[] | Absent> {
  const target = `${scope.accountId}/${rc.regionId}`;
  const perProduct = await Promise.all(
    QUOTA_PRODUCT_CODES.map(async (productCode) => {
      return absentIfNotFound(() =>
        readAllByToken(async (token) => {
          const body = await aliCall(scope, 'ListProductQuotas', target, () =>
            callQuotas(scope.clients.quotas, 'ListProductQuotas', {
              ProductCode: productCode,
              Dimensions: [{ Key: 'regionId', Value: rc.regionId }],
              MaxResults: scope.settings.pageSizes.quotas,
              ...(token ? { NextToken: token } : {}),
            }),
          );
          return {
            items: listAt(body, 'ListProductQuotas', target, 'Quotas'),
            nextToken: stringAt(body, 'NextToken'),
          };
        }, `ListProductQuotas ${target} (${productCode})`),
      );
    }),
  );
  const raw = perProduct.flatMap((r) => (r instanceof Absent ? [] : r));
  if (raw.length === 0) {
    const absent = perProduct.find((r): r is Absent => r instanceof Absent);
    return absent ?? new Absent(`ListProductQuotas ${target}: no quotas for ProductCode ${QUOTA_PRODUCT_CODES.join(' or ')}`);
  }
  return validateWire(z.array(wireQuotaSchema), raw, 'ListProductQuotas', target, ['Quotas']);
}

/**
 * Quota Center ListQuotaApplications in this region (dimension `regionId`) for each of {@link QUOTA_PRODUCT_CODES},
 * every status, all pages (`MaxResults` 200, the documented maximum; research/quota-center.md 4): the applications
 * filed for this region's CLB and NLB quotas, by this tool or by hand, so that a refused one becomes a finding
 * (QUOTA_APPLICATION_REFUSED). Absent when Quota Center lists none for either product, as a fleet directory without
 * `quota-applications.json` reads (nothing to judge: the check makes no claim there).
 * @throws CollectError on a failed call (a missing `quotas:ListQuotaApplications` permission fails this dataset only)
 *   or a malformed response
 */
export async function readQuotaApplications(scope: AccountScope, rc: RegionClients): Promise<WireQuotaApplication[] | Absent> {
  const target = `${scope.accountId}/${rc.regionId}`;
  const perProduct = await Promise.all(
    QUOTA_PRODUCT_CODES.map((productCode) =>
      readAllByToken(async (token) => {
        const body = await aliCall(scope, 'ListQuotaApplications', target, () =>
          callQuotas(scope.clients.quotas, 'ListQuotaApplications', {
            ProductCode: productCode,
            Dimensions: [{ Key: 'regionId', Value: rc.regionId }],
            MaxResults: 200,
            ...(token ? { NextToken: token } : {}),
          }),
        );
        return {
          items: listAt(body, 'ListQuotaApplications', target, 'QuotaApplications'),
          nextToken: stringAt(body, 'NextToken'),
        };
      }, `ListQuotaApplications ${target} (${productCode})`),
    ),
  );
  const raw = perProduct.flat();
  if (raw.length === 0) return new Absent(`ListQuotaApplications ${target}: no application for ProductCode ${QUOTA_PRODUCT_CODES.join(' or ')}`);
  return validateWire(z.array(wireQuotaApplicationSchema), raw, 'ListQuotaApplications', target, ['QuotaApplications']);
}

/**
 * CS DescribeClustersV1 for this region, all pages. Each item is validated with the
 * DescribeClusterDetail schema (the list carries the same flat fields) so it can stand in for the
 * detail when DescribeClusterDetail fails.
 */
export async function readClusterList(scope: AccountScope, rc: RegionClients): Promise<WireClusterDetail[]> {
  const target = `${scope.accountId}/${rc.regionId}`;
  const pageSize = scope.settings.pageSizes.cs;
  const raw = await readAllByPageNumber(
    async (page) => {
      const resp = await aliCall(scope, 'DescribeClustersV1', target, () =>
        rc.cs.describeClustersV1WithOptions(
          new (csSdk().DescribeClustersV1Request)({ regionId: rc.regionId, pageNumber: page, pageSize }),
          {},
          runtime(),
        ),
      );
      const body = resp.body?.toMap() ?? {};
      return {
        items: listAt(body, 'DescribeClustersV1', target, 'clusters'),
        totalCount: numberAt(body, 'page_info', 'total_count'),
      };
    },
    pageSize,
    `DescribeClustersV1 ${target}`,
  );
  const clusters = validateWire(z.array(wireClusterDetailSchema), raw, 'DescribeClustersV1', target, [
    'clusters',
  ]);
  // The region filter is a request parameter; keep only this region's clusters in case a server ignores it.
  const seen = new Set<string>();
  return clusters.filter(
    (c) => c.region_id === rc.regionId && !seen.has(c.cluster_id) && seen.add(c.cluster_id),
  );
}
