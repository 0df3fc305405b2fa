/**
 * SLB (CLB) 2014-05-15 (RPC): DescribeLoadBalancers, DescribeLoadBalancerAttribute,
 * DescribeVServerGroups, DescribeVServerGroupAttribute; DescribeLoadBalancerListeners
 * (`slb-listeners.handler.ts`), DescribeTags and ListTagResources (`slb-tags.handler.ts`).
 *
 * Source: `research/alibaba-cloud-api.md` section 3, `research/sdk-model-shapes.txt`
 * (slb-20140515 models) and the API metadata samples in `fixtures/alibaba-api-samples/`:
 * - DescribeLoadBalancers pages with `PageNumber` (default 1) / `PageSize` (1-100, default 10)
 *   and reports `TotalCount`; list items are a projection of the attribute body;
 * - DescribeLoadBalancerAttribute returns the stored body; an unknown id is 400
 *   `InvalidLoadBalancerId.NotFound`;
 * - DescribeVServerGroups is not paged; `AssociatedObjects` is added when `IncludeListener` /
 *   `IncludeRule` is true;
 * - DescribeVServerGroupAttribute: an unknown id is 400 `InvalidParameter` "The specified
 *   VServerGroupId does not exist." (the message the Terraform provider matches on).
 */
import type { WireVServerGroupAttribute } from '@app/domain';
import type { LoadBalancerEntry } from '../fleet/fleet-index.repository';
import { AcsError } from './acs-error.exception';
import { pageNumberParams } from './paging.util';
import type { AcsRequest, RpcHandler, RpcProduct } from './acs-request';
import { describeLoadBalancerListeners } from './slb-listeners.handler';
import { describeTags, listTagResources } from './slb-tags.handler';

const lbNotFound = () =>
  new AcsError(400, 'InvalidLoadBalancerId.NotFound', 'The specified LoadBalancerId does not exist.');

function regionLoadBalancers(req: AcsRequest, regionId: string): LoadBalancerEntry[] {
  const region = req.account.regionById.get(regionId);
  if (!region) return [];
  if (!region.loadBalancers) throw AcsError.forbidden('Slb', `CLBs of ${regionId}`);
  return region.loadBalancers;
}

function parseTagsJson(raw: string): { TagKey: string; TagValue?: string }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new AcsError(400, 'InvalidTag', 'The specified parameter Tags is not valid JSON.');
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.map((t: unknown) => {
    if (typeof t !== 'object' || t === null || typeof (t as { TagKey?: unknown }).TagKey !== 'string')
      throw new AcsError(400, 'InvalidTag', 'Each tag of Tags needs a TagKey.');
    const { TagKey, TagValue } = t as { TagKey: string; TagValue?: unknown };
    return typeof TagValue === 'string' ? { TagKey, TagValue } : { TagKey };
  });
}

const describeLoadBalancers: RpcHandler = (req) => {
  const p = req.params;
  const regionId = p.required('RegionId');
  const { pageNumber, pageSize } = pageNumberParams(p, 10, 100);

  const preds: ((e: LoadBalancerEntry) => boolean)[] = [];
  const ids = p.str('LoadBalancerId');
  if (ids !== undefined) {
    const wanted = new Set(ids.split(',').map((s) => s.trim()));
    preds.push((e) => wanted.has(e.attribute.LoadBalancerId));
  }
  const names = p.str('LoadBalancerName');
  if (names !== undefined) {
    const wanted = new Set(names.split(',').map((s) => s.trim()));
    preds.push((e) => wanted.has(e.attribute.LoadBalancerName ?? ''));
  }
  const serverId = p.str('ServerId');
  if (serverId !== undefined) preds.push((e) => e.serverIds.has(serverId));
  for (const field of [
    'VpcId',
    'VSwitchId',
    'AddressType',
    'NetworkType',
    'Address',
    'LoadBalancerStatus',
    'ResourceGroupId',
    'MasterZoneId',
    'SlaveZoneId',
    'PayType',
    'AddressIPVersion',
  ] as const) {
    const v = p.str(field);
    if (v !== undefined) preds.push((e) => e.listItem[field] === v);
  }
  const tagFilters: { key: string; value: string | undefined }[] = p.keyValues('Tag');
  const tagsJson = p.str('Tags');
  if (tagsJson !== undefined)
    for (const t of parseTagsJson(tagsJson)) tagFilters.push({ key: t.TagKey, value: t.TagValue });
  for (const tag of tagFilters)
    preds.push((e) =>
      (e.attribute.Tags?.Tag ?? []).some(
        (t) => t.TagKey === tag.key && (tag.value === undefined || t.TagValue === tag.value),
      ),
    );

  const region = regionLoadBalancers(req, regionId);
  const all = preds.length === 0 ? region : region.filter((e) => preds.every((f) => f(e)));
  const items = all.slice((pageNumber - 1) * pageSize, pageNumber * pageSize).map((e) => e.listItem);
  return {
    PageNumber: pageNumber,
    PageSize: pageSize,
    TotalCount: all.length,
    LoadBalancers: { LoadBalancer: items },
  };
};

function findLoadBalancer(req: AcsRequest): LoadBalancerEntry {
  const id = req.params.required('LoadBalancerId');
  const regionId = req.params.str('RegionId');
  const entry = req.account.loadBalancers.get(id);
  if (entry && (regionId === undefined || entry.regionId === regionId)) return entry;
  if (regionId !== undefined) regionLoadBalancers(req, regionId); // 403 when the region's CLBs are not in the fleet
  throw lbNotFound();
}

/** A shallow copy of a stored body without the given keys (a stored `RequestId` is replaced by ours). */
function without(body: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const out = { ...body };
  for (const k of keys) delete out[k];
  return out;
}

const describeLoadBalancerAttribute: RpcHandler = (req) =>
  without(findLoadBalancer(req).attribute, 'RequestId');

function associatedObjects(
  lb: LoadBalancerEntry,
  group: WireVServerGroupAttribute,
  includeListener: boolean,
  includeRule: boolean,
): Record<string, unknown> | undefined {
  const stored = (group as Record<string, unknown>)['AssociatedObjects'];
  if (stored !== undefined) return stored as Record<string, unknown>;
  if (!includeListener && !includeRule) return undefined;
  const out: Record<string, unknown> = {};
  if (includeListener) {
    const listeners = (lb.attribute.ListenerPortsAndProtocol?.ListenerPortAndProtocol ?? [])
      .filter((l) => l.VServerGroupId === group.VServerGroupId)
      .map((l) => ({ Port: l.ListenerPort, Protocol: l.ListenerProtocol }));
    out['Listeners'] = { Listener: listeners };
  }
  if (includeRule) out['Rules'] = { Rule: [] };
  return out;
}

const describeVServerGroups: RpcHandler = (req) => {
  const lb = findLoadBalancer(req);
  const includeListener = req.params.bool('IncludeListener') ?? false;
  const includeRule = req.params.bool('IncludeRule') ?? false;
  const groups = lb.vServerGroups.map((g) => {
    const src: Record<string, unknown> = g;
    const item: Record<string, unknown> = {
      VServerGroupId: g.VServerGroupId,
      VServerGroupName: g.VServerGroupName,
    };
    for (const f of ['CreateTime', 'ServerCount', 'Tags'] as const)
      if (src[f] !== undefined) item[f] = src[f];
    const assoc = associatedObjects(lb, g, includeListener, includeRule);
    if (assoc !== undefined) item['AssociatedObjects'] = assoc;
    return item;
  });
  return { VServerGroups: { VServerGroup: groups } };
};

const describeVServerGroupAttribute: RpcHandler = (req) => {
  const id = req.params.required('VServerGroupId');
  const regionId = req.params.str('RegionId');
  const found = req.account.vServerGroups.get(id);
  if (!found || (regionId !== undefined && found.regionId !== regionId)) {
    if (regionId !== undefined) regionLoadBalancers(req, regionId);
    throw new AcsError(400, 'InvalidParameter', 'The specified VServerGroupId does not exist.');
  }
  return without(found.group, 'RequestId', 'AssociatedObjects');
};

/** The simulated SLB product. */
export const SLB_PRODUCT: RpcProduct = {
  product: 'Slb',
  version: '2014-05-15',
  hostId: 'slb.aliyuncs.com',
  actions: {
    DescribeLoadBalancers: describeLoadBalancers,
    DescribeLoadBalancerAttribute: describeLoadBalancerAttribute,
    DescribeVServerGroups: describeVServerGroups,
    DescribeVServerGroupAttribute: describeVServerGroupAttribute,
    DescribeLoadBalancerListeners: describeLoadBalancerListeners,
    DescribeTags: describeTags,
    ListTagResources: listTagResources,
  },
};
