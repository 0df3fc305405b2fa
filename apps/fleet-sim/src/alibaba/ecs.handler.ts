/**
 * ECS 2014-05-26 (RPC): DescribeInstances (Cloud Assistant RunCommand and
 * DescribeInvocationResults are in `cloud-assistant.handler.ts`).
 *
 * Source: `research/alibaba-cloud-api.md` section 4 and the @alicloud/ecs20140526 7.11.6 models:
 * - `MaxResults` below 10 counts as 10, above 100 as 100 (default 10); `NextToken` paging, the
 *   last page carries an empty `NextToken`; the deprecated `PageNumber`/`PageSize` paging is
 *   used only when neither `MaxResults` nor `NextToken` is sent and one of them is;
 * - filters `InstanceIds` (JSON array string, up to 100), `VpcId`, `VSwitchId`, `ZoneId`,
 *   `Status`, `InstanceName`, `InstanceType`, `PrivateIpAddresses` (JSON array), `Tag.N.Key/Value`;
 * - response `{RequestId, TotalCount, PageSize, PageNumber?, NextToken, Instances:{Instance:[]}}`.
 * A region the account has no data for answers an empty list; a region whose
 * `ecs-instances.json` is absent answers 403 (see `AcsError.forbidden`).
 */
import type { WireEcsInstance } from '@app/domain';
import { AcsError } from './acs-error.exception';
import type { AcsRequest, RpcHandler, RpcProduct } from './acs-request';
import { describeInvocationResults, runCommand } from './cloud-assistant.handler';
import { clamp, tokenPage } from './paging.util';

/** ECS `MaxResults` bounds and default (SDK doc comment). */
const MAX_RESULTS = { min: 10, max: 100, default: 10 } as const;

function tagsOf(i: WireEcsInstance): { TagKey: string; TagValue: string }[] {
  return i.Tags?.Tag ?? [];
}

function selectInstances(req: AcsRequest): WireEcsInstance[] {
  const p = req.params;
  const regionId = p.required('RegionId');
  const region = req.account.regionById.get(regionId);
  if (!region) return [];
  if (!region.ecs) throw AcsError.forbidden('Ecs', `ECS instances of ${regionId}`);
  const ecs = region.ecs;
  const ids = p.jsonStringArray('InstanceIds');
  if (ids && ids.length > 100)
    throw AcsError.invalidParameter('InstanceIds', 'At most 100 instance ids are allowed.');
  const vpcId = p.str('VpcId');
  let list: WireEcsInstance[];
  if (ids) {
    const wanted = new Set(ids);
    list = ecs.instances.filter((i) => wanted.has(i.InstanceId));
  } else if (vpcId !== undefined) list = ecs.byVpc.get(vpcId) ?? [];
  else list = ecs.instances;

  const preds: ((i: WireEcsInstance) => boolean)[] = [];
  if (ids && vpcId !== undefined) preds.push((i) => i.VpcAttributes?.VpcId === vpcId);
  const vswitch = p.str('VSwitchId');
  if (vswitch !== undefined) preds.push((i) => i.VpcAttributes?.VSwitchId === vswitch);
  for (const [param, field] of [
    ['ZoneId', 'ZoneId'],
    ['Status', 'Status'],
    ['InstanceName', 'InstanceName'],
    ['InstanceType', 'InstanceType'],
  ] as const) {
    const v = p.str(param);
    if (v !== undefined) preds.push((i) => i[field] === v);
  }
  const ips = p.jsonStringArray('PrivateIpAddresses');
  if (ips) {
    const wanted = new Set(ips);
    preds.push((i) => (i.VpcAttributes?.PrivateIpAddress?.IpAddress ?? []).some((ip) => wanted.has(ip)));
  }
  for (const tag of p.keyValues('Tag'))
    preds.push((i) =>
      tagsOf(i).some((t) => t.TagKey === tag.key && (tag.value === undefined || t.TagValue === tag.value)),
    );
  return preds.length === 0 ? list : list.filter((i) => preds.every((f) => f(i)));
}

/** Scope of a NextToken: the filters (not the paging parameters) of the request. */
function tokenScope(req: AcsRequest): string {
  const f = { ...req.params.flat };
  for (const k of [
    'NextToken',
    'MaxResults',
    'PageNumber',
    'PageSize',
    'Action',
    'Version',
    'Timestamp',
    'SignatureNonce',
    'Signature',
    'AccessKeyId',
    'SecurityToken',
    'SignatureMethod',
    'SignatureVersion',
    'Format',
  ])
    delete f[k];
  return `ecs:DescribeInstances:${req.account.accountId}:${JSON.stringify(Object.entries(f).sort())}`;
}

const describeInstances: RpcHandler = (req) => {
  const p = req.params;
  const all = selectInstances(req);
  const nextToken = p.str('NextToken');
  const maxResults = p.int('MaxResults');
  const pageNumber = p.int('PageNumber');
  const pageSize = p.int('PageSize');
  if (
    nextToken === undefined &&
    maxResults === undefined &&
    (pageNumber !== undefined || pageSize !== undefined)
  ) {
    const size = clamp(pageSize ?? 10, 1, 100);
    const page = Math.max(1, pageNumber ?? 1);
    const items = all.slice((page - 1) * size, page * size);
    return {
      TotalCount: all.length,
      PageSize: size,
      PageNumber: page,
      NextToken: '',
      Instances: { Instance: items },
    };
  }
  const size = clamp(maxResults ?? MAX_RESULTS.default, MAX_RESULTS.min, MAX_RESULTS.max);
  const scope = tokenScope(req);
  const { items, next } = tokenPage(all, size, scope, nextToken);
  return {
    TotalCount: all.length,
    PageSize: size,
    NextToken: next ?? '',
    Instances: { Instance: items },
  };
};

/** The simulated ECS product. */
export const ECS_PRODUCT: RpcProduct = {
  product: 'Ecs',
  version: '2014-05-26',
  hostId: 'ecs.aliyuncs.com',
  actions: {
    DescribeInstances: describeInstances,
    RunCommand: runCommand,
    DescribeInvocationResults: describeInvocationResults,
  },
};
