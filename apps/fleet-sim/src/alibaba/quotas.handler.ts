/**
 * Quota Center 2020-05-10 (RPC, parameters in the form body): ListProductQuotas.
 *
 * Source: `research/alibaba-cloud-api.md` section 6 and the quotas-20200510 1.2.2 models:
 * `{RequestId, TotalCount, MaxResults, NextToken, Quotas: [...]}` with `Quotas` a bare array,
 * `MaxResults` 1-100 (default 30), `NextToken` paging.
 *
 * Region choice (the fleet keeps quotas per region, `regions/<regionId>/quotas.json`):
 * - `Dimensions.N.Key=regionId` picks that region; a region the account has no data for, or whose
 *   `quotas.json` is absent, answers an empty `Quotas` list (the real Quota Center answers a
 *   query it has no quotas for with an empty list, never with 403);
 * - without a `regionId` dimension the quotas of every region of the account that has a
 *   `quotas.json` are returned in region order (an empty list when none has one).
 * Every returned quota carries `Dimensions.regionId` (filled in when the file lacks it),
 * `ProductCode` and `QuotaCategory` (`CommonQuota`). The file holds the quotas of products `slb` (CLB) and
 * `nlb` (NLB, research/nlb.md section 5; an entry without `ProductCode` is `slb`); a query for one product
 * answers that product's entries, in file order. Other products, and `QuotaCategory` FlowControl /
 * WhiteListLabel, answer an empty list.
 * Other `Dimensions` keys and `QuotaActionCode` filter by equality.
 */
import type { WireQuota } from '@app/domain';
import type { RegionEntry } from '../fleet/fleet-index.repository';
import { AcsError } from './acs-error.exception';
import type { AcsRequest, RpcHandler, RpcProduct } from './acs-request';
import { tokenPage } from './paging.util';

function withRegion(q: WireQuota, regionId: string): Record<string, unknown> {
  return {
    ...q,
    ProductCode: q.ProductCode ?? 'slb',
    QuotaCategory: (q as Record<string, unknown>)['QuotaCategory'] ?? 'CommonQuota',
    Dimensions: { ...(q.Dimensions ?? {}), regionId: q.Dimensions?.['regionId'] ?? regionId },
  };
}

function quotasOf(req: AcsRequest, regionId: string | undefined): Record<string, unknown>[] {
  const region = regionId === undefined ? undefined : req.account.regionById.get(regionId);
  const regions: RegionEntry[] =
    regionId === undefined ? req.account.regions : region !== undefined ? [region] : [];
  return regions.flatMap((r) => (r.quotas ?? []).map((q) => withRegion(q, r.regionId)));
}

const listProductQuotas: RpcHandler = (req) => {
  const p = req.params;
  const productCode = p.required('ProductCode');
  const maxResults = p.int('MaxResults') ?? 30;
  if (maxResults < 1 || maxResults > 100)
    throw AcsError.invalidParameter('MaxResults', 'It must be between 1 and 100.');
  const category = p.str('QuotaCategory') ?? 'CommonQuota';
  const dims = p.keyValues('Dimensions');
  const regionId = dims.find((d) => d.key === 'regionId')?.value;
  const otherDims = dims.filter((d) => d.key !== 'regionId');
  const actionCode = p.str('QuotaActionCode');

  let all: Record<string, unknown>[] =
    category === 'CommonQuota' ? quotasOf(req, regionId).filter((q) => q['ProductCode'] === productCode) : [];
  if (actionCode !== undefined) all = all.filter((q) => q['QuotaActionCode'] === actionCode);
  for (const d of otherDims)
    all = all.filter((q) => (q['Dimensions'] as Record<string, unknown>)[d.key] === d.value);

  const scope = `quotas:${req.account.accountId}:${productCode}:${category}:${actionCode ?? ''}:${JSON.stringify(dims)}`;
  const { items, next } = tokenPage(all, maxResults, scope, p.str('NextToken'));
  return {
    TotalCount: all.length,
    MaxResults: maxResults,
    ...(next !== undefined ? { NextToken: next } : {}),
    Quotas: items,
  };
};

/** The simulated Quota Center product. */
export const QUOTAS_PRODUCT: RpcProduct = {
  product: 'quotas',
  version: '2020-05-10',
  hostId: 'quotas.aliyuncs.com',
  actions: { ListProductQuotas: listProductQuotas },
};
