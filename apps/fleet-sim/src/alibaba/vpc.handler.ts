/**
 * VPC 2016-04-28 (RPC): DescribeVSwitches.
 *
 * Source: the @alicloud/vpc20160428 7.3.2 models: `PageNumber` (default 1) / `PageSize`
 * (1-50, default 10) / `TotalCount`, filters `VpcId`, `VSwitchId`, `ZoneId`, `VSwitchName`,
 * `ResourceGroupId`, `IsDefault`; body `{RequestId, TotalCount, PageNumber, PageSize,
 * VSwitches:{VSwitch:[]}}`. A region whose `vswitches.json` is absent answers 403.
 */
import type { WireVSwitch } from '@app/domain';
import { AcsError } from './acs-error.exception';
import { pageNumberParams } from './paging.util';
import type { RpcHandler, RpcProduct } from './acs-request';

const describeVSwitches: RpcHandler = (req) => {
  const p = req.params;
  const regionId = p.required('RegionId');
  const { pageNumber, pageSize } = pageNumberParams(p, 10, 50);
  const region = req.account.regionById.get(regionId);
  let all: WireVSwitch[] = [];
  if (region) {
    if (!region.vSwitches) throw AcsError.forbidden('Vpc', `vSwitches of ${regionId}`);
    const preds: ((v: WireVSwitch) => boolean)[] = [];
    for (const field of ['VpcId', 'VSwitchId', 'ZoneId', 'VSwitchName', 'ResourceGroupId'] as const) {
      const value = p.str(field);
      if (value !== undefined) preds.push((v) => (v as Record<string, unknown>)[field] === value);
    }
    const isDefault = p.bool('IsDefault');
    if (isDefault !== undefined)
      preds.push((v) => ((v as Record<string, unknown>)['IsDefault'] ?? false) === isDefault);
    all = preds.length === 0 ? region.vSwitches : region.vSwitches.filter((v) => preds.every((f) => f(v)));
  }
  const items = all.slice((pageNumber - 1) * pageSize, pageNumber * pageSize);
  return {
    TotalCount: all.length,
    PageNumber: pageNumber,
    PageSize: pageSize,
    VSwitches: { VSwitch: items },
  };
};

/** The simulated VPC product. */
export const VPC_PRODUCT: RpcProduct = {
  product: 'Vpc',
  version: '2016-04-28',
  hostId: 'vpc.aliyuncs.com',
  actions: { DescribeVSwitches: describeVSwitches },
};
