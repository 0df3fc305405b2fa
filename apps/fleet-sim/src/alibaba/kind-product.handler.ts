/**
 * The OpenAPI product of each load-balancer kind that declares a data path (`LoadBalancerKindData`, e.g. NLB
 * 2022-04-30, product `Nlb`), served from the region's wire lists of the kind (`WireRegion[dataset]`, e.g. the four
 * `regions/<regionId>/nlb/` files, List* items kept unchanged). The kind declares what each List* and Get* action
 * answers (`KindSimulator`: lists, filters, look-ups; e.g. libs/domain lb-kinds/nlb/nlb.data.ts, from
 * research/nlb.md section 7); this file is the protocol they share:
 * - RPC, `POST /`, parameters in the query, arrays flattened (`LoadBalancerIds.1=...`, `Tag.1.Key=...`). The real
 *   endpoint is regional (`nlb.<regionId>.aliyuncs.com`); the simulator serves every region on one port, so it reads
 *   the region from `RegionId` (optional in the SDK models, always sent by the collectors) and answers 400
 *   `MissingParameter` without it.
 * - Every List* pages with `NextToken` / `MaxResults` (the product's bounds and default, `KindProduct.maxResults`;
 *   another value is 400 `InvalidParameter`) and answers `TotalCount`, `MaxResults` and, while more items follow,
 *   `NextToken`. A token replayed with other filters is 400 `InvalidParameter`.
 * - Filters are AND-ed, file order kept: `Name.N` id sets (a longer list than the action takes is 400
 *   `InvalidParameter`), `Tag.N` (at most 20), equality on item fields, and the action's own.
 * - A resource the region does not hold is 400 with the kind's code (`KindResourceNotFoundError`, e.g.
 *   `ResourceNotFound.loadBalancer`, the code CCM matches; the HTTP status is not documented).
 * A region whose kind files the fleet does not hold answers 403, as the SLB handlers do for a region without
 * `load-balancers.json` (`AcsError.forbidden`); a region the account has no data in answers empty lists.
 */
import {
  KindResourceNotFoundError,
  emptyKindWire,
  type KindSimList,
  type LoadBalancerKind,
} from '@app/domain';
import type { KeyValueParam, RpcParams } from '../http/params.util';
import { indexKindRegion, type KindRegionEntry } from '../fleet/kind-region.index';
import { AcsError } from './acs-error.exception';
import type { AcsRequest, RpcHandler, RpcProduct } from './acs-request';
import { tokenPage } from './paging.util';

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

/** Keep the items whose `field` equals the request parameter of the same name (when given). */
function byEquality(p: RpcParams, items: readonly Record<string, unknown>[], fields: readonly string[]): Record<string, unknown>[] {
  let out = [...items];
  for (const f of fields) {
    const v = p.str(f);
    if (v !== undefined) out = out.filter((i) => i[f] === v);
  }
  return out;
}

/** Run a kind's look-up, turning its not-found into the API's 400 answer. */
function answering<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof KindResourceNotFoundError) throw new AcsError(400, e.code, e.message);
    throw e;
  }
}

/**
 * The RPC product of a kind with a data path.
 * @throws Error when the kind declares no data path (a programming error: only such kinds are served here)
 */
export function kindProduct(kind: LoadBalancerKind): RpcProduct {
  const data = kind.data;
  if (!data) throw new Error(`the ${kind.title} kind declares no data path to simulate`);
  const { maxResults } = data.product;
  const empty = indexKindRegion(data, emptyKindWire(data));

  /**
   * The kind's data of the request's region.
   * @throws AcsError 400 `MissingParameter` without `RegionId`; 403 when the fleet does not hold the region's kind files
   */
  const regionData = (req: AcsRequest): { regionId: string; entry: KindRegionEntry } => {
    const regionId = req.params.required('RegionId');
    const region = req.account.regionById.get(regionId);
    if (!region) return { regionId, entry: empty };
    const entry = region.kinds.get(data.dataset);
    if (!entry) throw AcsError.forbidden(data.product.product, `${kind.title}s of ${regionId}`);
    return { regionId, entry };
  };

  /** One page of a filtered list, the token bound to the action, account, region and filters. */
  const page = (req: AcsRequest, regionId: string, listKey: string, all: readonly unknown[]): Record<string, unknown> => {
    const p = req.params;
    const size = p.int('MaxResults') ?? maxResults.default;
    if (size < maxResults.min || size > maxResults.max)
      throw AcsError.invalidParameter('MaxResults', `It must be between ${maxResults.min} and ${maxResults.max}.`);
    const scope = `${data.dataset}:${req.action}:${req.account.accountId}:${regionId}:${filterKey(p)}`;
    const { items, next } = tokenPage(all, size, scope, p.str('NextToken'));
    return { [listKey]: items, MaxResults: size, TotalCount: all.length, ...(next !== undefined ? { NextToken: next } : {}) };
  };

  /** A List* handler: parameters read in the order the spec gives (the region, the id sets, the tags, the others). */
  const listAction = (spec: KindSimList): RpcHandler => (req) => {
    const p = req.params;
    const { regionId, entry } = regionData(req);
    const ids = (spec.ids ?? []).map((f) => ({ of: f.of, wanted: idFilter(p, f.param, f.max) }));
    const tags = spec.tagged ? tagFilter(p) : [];
    const more = spec.more?.(p);
    const items = answering(() => spec.items(entry.wire, entry.index, p));
    const all = byEquality(p, items, spec.equality ?? []).filter(
      (item) =>
        ids.every((f) => !f.wanted || f.wanted.has(f.of(item))) &&
        (!spec.tagged || hasTags(item as { Tags?: { Key: string; Value?: string }[] }, tags)) &&
        (!more || more(item)),
    );
    return page(req, regionId, spec.listKey, all);
  };

  const actions: Record<string, RpcHandler> = {};
  for (const spec of data.simulator.lists) actions[spec.action] = listAction(spec);
  for (const spec of data.simulator.gets ?? [])
    actions[spec.action] = (req) => {
      const { entry } = regionData(req);
      const id = req.params.required(spec.param);
      return answering(() => spec.get(entry.wire, entry.index, id));
    };
  return {
    product: data.product.product,
    version: data.product.version,
    hostId: `${data.product.ramService}.aliyuncs.com`,
    actions,
  };
}
