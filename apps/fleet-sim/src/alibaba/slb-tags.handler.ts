/**
 * SLB (CLB) 2014-05-15 tag reads: DescribeTags and ListTagResources, from the `Tags.Tag[]` of the
 * fleet's DescribeLoadBalancerAttribute and DescribeVServerGroupAttribute bodies.
 *
 * Source: `research/alibaba-cloud-api.md` section 3, the slb-20140515 models, the samples
 * `fixtures/alibaba-api-samples/slb-DescribeTags.json` / `slb-ListTagResources.json`, and the
 * ListTagResources reference (alibabacloud.com "Server Load Balancer:ListTagResources"):
 * - DescribeTags: `RegionId` (required), `LoadBalancerId`, `Tags` (JSON `[{"TagKey","TagValue"}]`),
 *   `DistinctKey`, `PageNumber` (default 1), `PageSize` (default 50, at most 100) ->
 *   `{RequestId, PageNumber, PageSize, TotalCount, TagSets:{TagSet:[{TagKey, TagValue,
 *   InstanceCount}]}}`, one tag set per key/value pair (per key with `DistinctKey=true`, without
 *   `TagValue`), `InstanceCount` the number of CLBs carrying it, sorted by key then value.
 * - ListTagResources: `RegionId` and `ResourceType` (instance | certificate | acl | listener |
 *   vservergroup | masterslaveservergroup) required, `ResourceId.N` (at most 20) and/or `Tag.N`
 *   (at most 20; `Tag.N.Key` alone matches every value; at least one of the two, else 400
 *   `MissingParam.TagOrResourceId`), `NextToken` -> `{RequestId, NextToken, TagResources:
 *   {TagResource:[{ResourceId, ResourceType, TagKey, TagValue}]}}`, 50 rows per page, `NextToken`
 *   only while more follow. A resource matches when it is one of the ids (if given) and carries
 *   every given tag (if given); its rows are all its tags, or, with `Tag.N`, the tags under the
 *   given keys. Only `instance` (CLBs) and `vservergroup` have data in the fleet; the other types
 *   answer no rows.
 * A region whose `load-balancers.json` is absent answers 403, as DescribeLoadBalancers does.
 */
import type { LoadBalancerEntry } from '../fleet/fleet-index.repository';
import type { KeyValueParam } from '../http/params.util';
import { AcsError } from './acs-error.exception';
import type { AcsRequest, RpcHandler } from './acs-request';
import { pageNumberParams, tokenPage } from './paging.util';

interface Tag {
  TagKey: string;
  TagValue?: string;
}

const RESOURCE_TYPES = new Set([
  'instance',
  'certificate',
  'acl',
  'listener',
  'vservergroup',
  'masterslaveservergroup',
]);
/** Rows per ListTagResources page (the API takes no page size). */
export const TAG_RESOURCES_PAGE_SIZE = 50;
const MAX_IDS = 20;
const MAX_TAGS = 20;

function regionLoadBalancers(req: AcsRequest, regionId: string): LoadBalancerEntry[] {
  const region = req.account.regionById.get(regionId);
  if (!region) return [];
  if (!region.loadBalancers) throw AcsError.forbidden('Slb', `CLBs of ${regionId}`);
  return region.loadBalancers;
}

function tagsOf(body: { Tags?: { Tag?: Tag[] } | undefined }): Tag[] {
  return body.Tags?.Tag ?? [];
}

function parseTagsJson(raw: string): { key: string; value: string | undefined }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new AcsError(400, 'InvalidTag', 'The specified parameter Tags is not valid JSON.');
  }
  const list: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  return list.map((t) => {
    const o = (typeof t === 'object' && t !== null ? t : {}) as { TagKey?: unknown; TagValue?: unknown };
    if (typeof o.TagKey !== 'string')
      throw new AcsError(400, 'InvalidTag', 'Each tag of Tags needs a TagKey.');
    return { key: o.TagKey, value: typeof o.TagValue === 'string' ? o.TagValue : undefined };
  });
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** DescribeTags. */
export const describeTags: RpcHandler = (req) => {
  const p = req.params;
  const regionId = p.required('RegionId');
  const { pageNumber, pageSize } = pageNumberParams(p, 50, 100);
  const distinct = p.bool('DistinctKey') ?? false;
  const lbId = p.str('LoadBalancerId');
  const tagsJson = p.str('Tags');
  const filters = tagsJson === undefined ? [] : parseTagsJson(tagsJson);

  let lbs = regionLoadBalancers(req, regionId);
  if (lbId !== undefined) lbs = lbs.filter((lb) => lb.attribute.LoadBalancerId === lbId);
  const counts = new Map<string, { TagKey: string; TagValue?: string; InstanceCount: number }>();
  for (const lb of lbs) {
    const seen = new Set<string>();
    for (const t of tagsOf(lb.attribute)) {
      const value = t.TagValue ?? '';
      if (
        filters.length > 0 &&
        !filters.some((f) => f.key === t.TagKey && (f.value === undefined || f.value === value))
      )
        continue;
      const key = distinct ? t.TagKey : `${t.TagKey}\u0000${value}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = counts.get(key) ?? {
        TagKey: t.TagKey,
        ...(distinct ? {} : { TagValue: value }),
        InstanceCount: 0,
      };
      entry.InstanceCount++;
      counts.set(key, entry);
    }
  }
  const all = [...counts.values()].sort(
    (a, b) => cmp(a.TagKey, b.TagKey) || cmp(a.TagValue ?? '', b.TagValue ?? ''),
  );
  return {
    PageNumber: pageNumber,
    PageSize: pageSize,
    TotalCount: all.length,
    TagSets: { TagSet: all.slice((pageNumber - 1) * pageSize, pageNumber * pageSize) },
  };
};

interface TaggedResource {
  id: string;
  tags: Tag[];
}

function resourcesOfType(req: AcsRequest, regionId: string, type: string): TaggedResource[] {
  const lbs = regionLoadBalancers(req, regionId);
  if (type === 'instance')
    return lbs.map((lb) => ({ id: lb.attribute.LoadBalancerId, tags: tagsOf(lb.attribute) }));
  if (type === 'vservergroup')
    return lbs.flatMap((lb) =>
      lb.vServerGroups.map((g) => ({ id: g.VServerGroupId, tags: tagsOf(g as { Tags?: { Tag?: Tag[] } }) })),
    );
  return [];
}

const hasTag = (tags: Tag[], f: KeyValueParam): boolean =>
  tags.some((t) => t.TagKey === f.key && (f.value === undefined || (t.TagValue ?? '') === f.value));

/** ListTagResources. */
export const listTagResources: RpcHandler = (req) => {
  const p = req.params;
  const regionId = p.required('RegionId');
  const type = p.required('ResourceType');
  if (!RESOURCE_TYPES.has(type)) throw AcsError.invalidParameter('ResourceType');
  const ids = p.repeated('ResourceId');
  const tagFilters = p.keyValues('Tag');
  const valueOnly = Object.values(p.tree['Tag'] ?? {}).some(
    (t) =>
      typeof t === 'object' &&
      t !== null &&
      !Array.isArray(t) &&
      t['Key'] === undefined &&
      t['Value'] !== undefined,
  );
  if (valueOnly) throw AcsError.invalidParameter('Tag.N.Key', 'A tag value needs its key.');
  if (ids.length === 0 && tagFilters.length === 0)
    throw new AcsError(
      400,
      'MissingParam.TagOrResourceId',
      'At least one of ResourceId.N and Tag.N must be specified.',
    );
  if (ids.length > MAX_IDS)
    throw AcsError.invalidParameter('ResourceId', `At most ${MAX_IDS} resource ids are allowed.`);
  if (tagFilters.length > MAX_TAGS)
    throw AcsError.invalidParameter('Tag', `At most ${MAX_TAGS} tags are allowed.`);

  const wanted = ids.length > 0 ? new Set(ids) : undefined;
  const filterKeys = new Set(tagFilters.map((f) => f.key));
  const rows: { ResourceId: string; ResourceType: string; TagKey: string; TagValue: string }[] = [];
  for (const r of resourcesOfType(req, regionId, type)) {
    if (wanted && !wanted.has(r.id)) continue;
    if (!tagFilters.every((f) => hasTag(r.tags, f))) continue;
    for (const t of r.tags)
      if (filterKeys.size === 0 || filterKeys.has(t.TagKey))
        rows.push({ ResourceId: r.id, ResourceType: type, TagKey: t.TagKey, TagValue: t.TagValue ?? '' });
  }
  const scope = `slb:ListTagResources:${req.account.accountId}:${JSON.stringify([regionId, type, ids, tagFilters])}`;
  const { items, next } = tokenPage(rows, TAG_RESOURCES_PAGE_SIZE, scope, p.str('NextToken'));
  return {
    ...(next !== undefined ? { NextToken: next } : {}),
    TagResources: { TagResource: items },
  };
};
