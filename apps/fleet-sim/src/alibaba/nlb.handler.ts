/**
 * NLB (Network Load Balancer) 2022-04-30 (RPC, product `Nlb`): ListLoadBalancers, ListListeners,
 * ListServerGroups, ListServerGroupServers and GetLoadBalancerAttribute, served from `WireRegion.nlb`
 * (the four `regions/<regionId>/nlb/` files, List* items kept unchanged: libs/domain `wire-nlb.schemas.ts`).
 *
 * Source: `research/nlb.md` section 7 (read API, from the TS-SDK `@alicloud/nlb20220430` models and the
 * NLB API reference) and section 3.2 (CCM's `ResourceNotFound.loadBalancer`):
 * - RPC, `POST /`, parameters in the query, arrays flattened (`LoadBalancerIds.1=...`, `Tag.1.Key=...`).
 *   The real endpoint is regional (`nlb.<regionId>.aliyuncs.com`); the simulator serves every region on
 *   one port, so it reads the region from `RegionId` (optional in the SDK models, always sent by the
 *   collectors) and answers 400 `MissingParameter` without it.
 * - Every List* pages with `NextToken` / `MaxResults` (1-100, default 20; another value is 400
 *   `InvalidParameter`) and answers `TotalCount`, `MaxResults` and, while more items follow, `NextToken`.
 * - Filters: ListLoadBalancers `LoadBalancerIds` (<= 20), `LoadBalancerNames` (<= 20), `VpcIds` (<= 10),
 *   `Tag.N` (<= 20), `AddressType`, `AddressIpVersion`, `LoadBalancerStatus`, `LoadBalancerBusinessStatus`,
 *   `ZoneId`, `ResourceGroupId`, `DNSName`; ListListeners `LoadBalancerIds` (<= 20), `ListenerIds` (<= 20),
 *   `ListenerProtocol`, `Tag.N`; ListServerGroups `ServerGroupIds` (<= 20), `ServerGroupNames` (<= 20),
 *   `ServerGroupType`, `VpcId`, `ResourceGroupId`, `Tag.N`; ListServerGroupServers `ServerGroupId`,
 *   `ServerIds` (<= 40), `ServerIps` (<= 40). A longer list is 400 `InvalidParameter`.
 * - GetLoadBalancerAttribute: the list item's fields at the top level with the tags as
 *   `Tags[]{TagKey, TagValue}` (the shape differs from the List* `{Key, Value}`: research/nlb.md 7); an
 *   unknown id is 400 `ResourceNotFound.loadBalancer` (the code CCM matches; the HTTP status is not
 *   documented).
 * - ListServerGroupServers of a server group id the region does not hold: 400 `ResourceNotFound.serverGroup`.
 * Items come in file order (filters keep it). A region whose `nlb/` files the fleet does not hold answers
 * 403, as the SLB handlers do for a region without `load-balancers.json` (`AcsError.forbidden`); a region
 * the account has no data in answers empty lists.
 */
import type { WireNlbServer } from '@app/domain';
import type { NlbRegionEntry } from '../fleet/fleet-index.repository';
import type { KeyValueParam, RpcParams } from '../http/params.util';
import { AcsError } from './acs-error.exception';
import type { AcsRequest, RpcHandler, RpcProduct } from './acs-request';
import { tokenPage } from './paging.util';

/** NLB 2022-04-30 `MaxResults` bounds and default (research/nlb.md section 7). */
export const NLB_MAX_RESULTS = { min: 1, max: 100, default: 20 } as const;

/** An empty region (the account has no data there). */
const EMPTY: NlbRegionEntry = {
  loadBalancers: [],
  listeners: [],
  serverGroups: [],
  servers: [],
  loadBalancerById: new Map(),
  serversByGroup: new Map(),
};

/**
 * The NLB data of the request's region.
 * @throws AcsError 400 `MissingParameter` without `RegionId`; 403 when the fleet does not hold the region's `nlb/` files
 */
function regionNlb(req: AcsRequest): { regionId: string; nlb: NlbRegionEntry } {
  const regionId = req.params.required('RegionId');
  const region = req.account.regionById.get(regionId);
  if (!region) return { regionId, nlb: EMPTY };
  if (!region.nlb) throw AcsError.forbidden('Nlb', `NLBs of ${regionId}`);
  return { regionId, nlb: region.nlb };
}

/** A repeated `Name.N` filter with at most `max` entries; `undefined` when not given. */
function idFilter(p: RpcParams, name: string, max: number): Set<string> | undefined {
  const values = p.repeated(name).filter((v) => v !== '');
  if (values.length === 0) return undefined;
  if (values.length > max) throw AcsError.invalidParameter(name, `It takes at most ${max} items.`);
  return new Set(values);
}

/** `Tag.N.Key` / `Tag.N.Value` filters (at most 20): a resource matches when it carries every given tag. */
function tagFilter(p: RpcParams): KeyValueParam[] {
  const tags = p.keyValues('Tag');
  if (tags.length > 20) throw AcsError.invalidParameter('Tag', 'It takes at most 20 tags.');
  return tags;
}

function hasTags(item: { Tags?: { Key: string; Value?: string }[] | undefined }, wanted: KeyValueParam[]): boolean {
  return wanted.every((w) =>
    (item.Tags ?? []).some((t) => t.Key === w.key && (w.value === undefined || (t.Value ?? '') === w.value)),
  );
}

/** Parameters that select a page rather than filter the list (and the RPC envelope / V1 signature ones). */
const NOT_FILTERS = new Set([
  'NextToken',
  'MaxResults',
  'RegionId',
  'Action',
  'Version',
  'Format',
  'Timestamp',
  'AccessKeyId',
  'SecurityToken',
  'Signature',
  'SignatureMethod',
  'SignatureNonce',
  'SignatureVersion',
  'SignatureType',
]);

/** The request's filter parameters, canonical (sorted `name=value` pairs): what a paging token is bound to. */
function filterKey(p: RpcParams): string {
  return Object.entries(p.flat)
    .filter(([k, v]) => !NOT_FILTERS.has(k) && v !== '')
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join('&');
}

/**
 * One page of a filtered list: `NextToken` / `MaxResults` paging over `all`, the token bound to the
 * action, account, region and filters (a token replayed with other filters is 400 `InvalidParameter`).
 */
function page<T>(
  req: AcsRequest,
  regionId: string,
  listKey: string,
  all: readonly T[],
): Record<string, unknown> {
  const p = req.params;
  const maxResults = p.int('MaxResults') ?? NLB_MAX_RESULTS.default;
  if (maxResults < NLB_MAX_RESULTS.min || maxResults > NLB_MAX_RESULTS.max)
    throw AcsError.invalidParameter(
      'MaxResults',
      `It must be between ${NLB_MAX_RESULTS.min} and ${NLB_MAX_RESULTS.max}.`,
    );
  const scope = `nlb:${req.action}:${req.account.accountId}:${regionId}:${filterKey(p)}`;
  const { items, next } = tokenPage(all, maxResults, scope, p.str('NextToken'));
  return {
    [listKey]: items,
    MaxResults: maxResults,
    TotalCount: all.length,
    ...(next !== undefined ? { NextToken: next } : {}),
  };
}

/** Keep the items whose `field` equals the request parameter of the same name (when given). */
function byEquality<T extends Record<string, unknown>>(p: RpcParams, items: readonly T[], fields: readonly string[]): T[] {
  let out = [...items];
  for (const f of fields) {
    const v = p.str(f);
    if (v !== undefined) out = out.filter((i) => i[f] === v);
  }
  return out;
}

/** A `Name.N` id-set filter of a List* action: the parameter, its most values, and the item field it matches. */
interface IdSetFilter<T> {
  param: string;
  max: number;
  of: (item: T) => string;
}

/** What a List* action lists and how it filters it (research/nlb.md section 7). */
interface ListActionSpec<T> {
  /** The body key of the page's items. */
  listKey: string;
  /** The items of the region, in file order (may throw for a parameter naming a resource the region lacks). */
  items: (nlb: NlbRegionEntry, p: RpcParams) => readonly T[];
  /** Its id-set filters, read (and their sizes checked) in this order. */
  ids: IdSetFilter<T>[];
  /** Item fields kept when equal to the request parameter of the same name. */
  equality?: readonly string[];
  /** Whether the resource is tagged: `Tag.N` filters apply. */
  tagged?: boolean;
  /** A filter of the action's own, read from the request (ListLoadBalancers `ZoneId`). */
  more?: (p: RpcParams) => (item: T) => boolean;
}

/**
 * A List* handler: the region's items narrowed by every filter the request gives (AND-ed; file order kept), then one
 * page of them. Parameters are read in the order the spec gives: the region, the id sets, the tags, the others.
 * @throws AcsError 400 `InvalidParameter` for a filter with too many values or a bad page; see `regionNlb`
 */
function listAction<T extends Record<string, unknown>>(spec: ListActionSpec<T>): RpcHandler {
  return (req) => {
    const p = req.params;
    const { regionId, nlb } = regionNlb(req);
    const ids = spec.ids.map((f) => ({ of: f.of, wanted: idFilter(p, f.param, f.max) }));
    const tags = spec.tagged ? tagFilter(p) : [];
    const more = spec.more?.(p);
    const all = byEquality(p, spec.items(nlb, p), spec.equality ?? []).filter(
      (item) =>
        ids.every((f) => !f.wanted || f.wanted.has(f.of(item))) &&
        (!spec.tagged || hasTags(item as { Tags?: { Key: string; Value?: string }[] }, tags)) &&
        (!more || more(item)),
    );
    return page(req, regionId, spec.listKey, all);
  };
}

const listLoadBalancers = listAction({
  listKey: 'LoadBalancers',
  items: (nlb) => nlb.loadBalancers,
  ids: [
    { param: 'LoadBalancerIds', max: 20, of: (lb) => lb.LoadBalancerId },
    { param: 'LoadBalancerNames', max: 20, of: (lb) => lb.LoadBalancerName ?? '' },
    { param: 'VpcIds', max: 10, of: (lb) => lb.VpcId ?? '' },
  ],
  equality: ['AddressType', 'AddressIpVersion', 'LoadBalancerStatus', 'LoadBalancerBusinessStatus', 'ResourceGroupId', 'DNSName'],
  tagged: true,
  more: (p) => {
    const zone = p.str('ZoneId');
    return (lb) => zone === undefined || (lb.ZoneMappings ?? []).some((z) => z.ZoneId === zone);
  },
});

const listListeners = listAction({
  listKey: 'Listeners',
  items: (nlb) => nlb.listeners,
  ids: [
    { param: 'LoadBalancerIds', max: 20, of: (l) => l.LoadBalancerId },
    { param: 'ListenerIds', max: 20, of: (l) => l.ListenerId },
  ],
  equality: ['ListenerProtocol'],
  tagged: true,
});

const listServerGroups = listAction({
  listKey: 'ServerGroups',
  items: (nlb) => nlb.serverGroups,
  ids: [
    { param: 'ServerGroupIds', max: 20, of: (g) => g.ServerGroupId },
    { param: 'ServerGroupNames', max: 20, of: (g) => g.ServerGroupName ?? '' },
  ],
  equality: ['ServerGroupType', 'VpcId', 'ResourceGroupId'],
  tagged: true,
});

const listServerGroupServers = listAction<WireNlbServer>({
  listKey: 'Servers',
  // Every server, or those of `ServerGroupId` (400 `ResourceNotFound.serverGroup` when the region has no such group).
  items: (nlb, p) => {
    const groupId = p.str('ServerGroupId');
    if (groupId === undefined) return nlb.servers;
    const known = nlb.serversByGroup.get(groupId) ?? (nlb.serverGroups.some((g) => g.ServerGroupId === groupId) ? [] : undefined);
    if (known === undefined) throw new AcsError(400, 'ResourceNotFound.serverGroup', `The specified resource ${groupId} is not found.`);
    return known;
  },
  ids: [
    { param: 'ServerIds', max: 40, of: (s) => s.ServerId },
    { param: 'ServerIps', max: 40, of: (s) => s.ServerIp ?? '' },
  ],
});

const getLoadBalancerAttribute: RpcHandler = (req) => {
  const { nlb } = regionNlb(req);
  const id = req.params.required('LoadBalancerId');
  const lb = nlb.loadBalancerById.get(id);
  if (!lb) throw new AcsError(400, 'ResourceNotFound.loadBalancer', `The specified resource ${id} is not found.`);
  const { Tags, ...rest } = lb;
  return { ...rest, Tags: (Tags ?? []).map((t) => ({ TagKey: t.Key, TagValue: t.Value ?? '' })) };
};

/** The simulated NLB product (`nlb:*` RAM actions: the gateway lowercases the product name). */
export const NLB_PRODUCT: RpcProduct = {
  product: 'Nlb',
  version: '2022-04-30',
  hostId: 'nlb.aliyuncs.com',
  actions: {
    ListLoadBalancers: listLoadBalancers,
    ListListeners: listListeners,
    ListServerGroups: listServerGroups,
    ListServerGroupServers: listServerGroupServers,
    GetLoadBalancerAttribute: getLoadBalancerAttribute,
  },
};
