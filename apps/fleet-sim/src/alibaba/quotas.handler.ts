/**
 * Quota Center 2020-05-10 (RPC, parameters in the form body): ListProductQuotas, and the applications
 * CreateQuotaApplication, ListQuotaApplications and GetQuotaApplication (research/quota-center.md 2-4).
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
 *
 * Applications: the account's `account.yaml` `quotaApplications` (`decision` approve / refuse / pending, default
 * pending; `approvePercent` of the desired value granted, default 100; `reason` of a refusal) decides each one when it
 * is filed; one left in review is decided at the next call after the policy stops saying pending (a later approval). An approved value replaces the quota's `TotalQuota` in ListProductQuotas from then on; while one is in
 * review the quota answers `Adjustable: false` with `UnadjustableDetail: applicationProcess` (research 6). A quota the
 * region's `quotas.json` does not list is known by its documented default (each load-balancer kind's `quotas`, libs/domain LB_KINDS).
 * Refused with 400: an unknown quota code, a quota that cannot be adjusted, a desired value not above the current one.
 * ListQuotaApplications also lists the applications a fleet records as filed before (`quota-applications.json` of a
 * region, decided as written), so a fleet directory scanned offline and served live gives the same applications.
 */
import { LB_KINDS, type QuotaDefinition, type WireQuota } from '@app/domain';
import type { RegionEntry } from '../fleet/fleet-index.repository';
import type { SimContext } from '../sim-context';
import { AcsError } from './acs-error.exception';
import type { AcsRequest, RpcHandler, RpcProduct } from './acs-request';
import { tokenPage } from './paging.util';
import type { ApprovalPolicy, QuotaApplication } from './quota-application.store';

/** The documented quotas by product and code (a quota `quotas.json` does not list is known by its default). */
const DOCUMENTED = new Map<string, QuotaDefinition>(LB_KINDS.flatMap((k) => k.quotas).map((d) => [`${d.productCode}:${d.quotaActionCode}`, d]));

function withRegion(q: WireQuota, regionId: string): Record<string, unknown> {
  return {
    ...q,
    ProductCode: q.ProductCode ?? 'slb',
    QuotaCategory: (q as Record<string, unknown>)['QuotaCategory'] ?? 'CommonQuota',
    Dimensions: { ...(q.Dimensions ?? {}), regionId: q.Dimensions?.['regionId'] ?? regionId },
  };
}

function quotasOf(req: AcsRequest, regionId: string | undefined, ctx?: SimContext): Record<string, unknown>[] {
  const region = regionId === undefined ? undefined : req.account.regionById.get(regionId);
  const regions: RegionEntry[] =
    regionId === undefined ? req.account.regions : region !== undefined ? [region] : [];
  return regions.flatMap((r) => {
    const listed = (r.quotas ?? []).map((q) => withRegion(q, r.regionId));
    if (!ctx) return listed;
    const accountId = req.account.accountId;
    // A quota the file does not list but an approval raised: Quota Center lists it with the approved value.
    for (const d of DOCUMENTED.values()) {
      if (listed.some((q) => q['ProductCode'] === d.productCode && q['QuotaActionCode'] === d.quotaActionCode)) continue;
      if (ctx.quotaApplications.approvedValue(accountId, d.productCode, d.quotaActionCode, r.regionId) === undefined) continue;
      listed.push({ ProductCode: d.productCode, QuotaActionCode: d.quotaActionCode, QuotaName: d.quotaActionCode, TotalQuota: d.defaultValue, QuotaCategory: 'CommonQuota', Adjustable: d.adjustable, Dimensions: { regionId: r.regionId } });
    }
    return listed.map((out) => {
      const product = out['ProductCode'] as string;
      const code = out['QuotaActionCode'] as string;
      const approved = ctx.quotaApplications.approvedValue(accountId, product, code, r.regionId);
      if (approved !== undefined) out['TotalQuota'] = approved;
      if (ctx.quotaApplications.inReview(accountId, product, code, r.regionId)) {
        out['Adjustable'] = false;
        out['UnadjustableDetail'] = 'applicationProcess';
      }
      return out;
    });
  });
}

const listProductQuotas: RpcHandler = (req, ctx) => {
  ctx.quotaApplications.review(req.account.accountId, policyOf(req));
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
    category === 'CommonQuota' ? quotasOf(req, regionId, ctx).filter((q) => q['ProductCode'] === productCode) : [];
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

/** account.yaml `quotaApplications`, defaults applied. */
function policyOf(req: AcsRequest): ApprovalPolicy {
  const p = req.account.wire.account.quotaApplications;
  return { decision: p?.decision ?? 'pending', approvePercent: p?.approvePercent ?? 100, reason: p?.reason };
}

/** A positive number parameter (`DesireValue`). */
function positiveNumber(req: AcsRequest, name: string): number {
  const text = req.params.required(name);
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw AcsError.invalidParameter(name, `expected a positive number, got "${text}"`);
  return n;
}

const createQuotaApplication: RpcHandler = (req, ctx) => {
  ctx.quotaApplications.review(req.account.accountId, policyOf(req));
  const p = req.params;
  const productCode = p.required('ProductCode');
  const code = p.required('QuotaActionCode');
  const desire = positiveNumber(req, 'DesireValue');
  const reason = p.required('Reason');
  const category = p.str('QuotaCategory') ?? 'CommonQuota';
  if (category !== 'CommonQuota') throw AcsError.invalidParameter('QuotaCategory', 'The simulator files CommonQuota applications only.');
  const noticeType = p.int('NoticeType') ?? 0;
  if (noticeType !== 0 && noticeType !== 3) throw AcsError.invalidParameter('NoticeType', 'It must be 0 or 3.');
  const dims = p.keyValues('Dimensions');
  const regionId = dims.find((d) => d.key === 'regionId')?.value ?? req.account.regions[0]?.regionId ?? '';
  if (!req.account.regionById.has(regionId)) throw AcsError.invalidParameter('Dimensions.regionId', `The region ${regionId} is not one of the account's.`);
  const listed = quotasOf(req, regionId, ctx).find((q) => q['ProductCode'] === productCode && q['QuotaActionCode'] === code);
  const documented = DOCUMENTED.get(`${productCode}:${code}`);
  if (!listed && !documented) throw AcsError.invalidParameter('QuotaActionCode', `The quota ${productCode}/${code} does not exist.`);
  const adjustable = listed?.['Adjustable'] !== undefined ? listed['Adjustable'] === true : (documented?.adjustable ?? true);
  if (!adjustable)
    throw AcsError.invalidParameter('QuotaActionCode', listed?.['UnadjustableDetail'] === 'applicationProcess' ? 'An application for this quota is being processed.' : 'The quota cannot be adjusted.');
  const current = Number(listed?.['TotalQuota'] ?? documented?.defaultValue ?? 0);
  if (desire <= current) throw AcsError.invalidParameter('DesireValue', `It must be greater than the current quota ${current}.`);
  const application = ctx.quotaApplications.create(
    req.account.accountId,
    {
      DesireValue: desire,
      Dimension: { regionId },
      NoticeType: noticeType,
      ProductCode: productCode,
      QuotaActionCode: code,
      QuotaArn: `acs:quotas:${regionId}:${req.account.accountId}:quota/${productCode}/${code}`,
      QuotaCategory: category,
      QuotaDescription: (listed?.['QuotaDescription'] as string | undefined) ?? '',
      QuotaName: (listed?.['QuotaName'] as string | undefined) ?? code,
      QuotaUnit: (listed?.['QuotaUnit'] as string | undefined) ?? '',
      Reason: reason,
    },
    policyOf(req),
    current,
    ctx.now(),
  );
  return { ...application, EffectiveTime: '', ExpireTime: '' };
};

/** Whether an application matches the ListQuotaApplications filters. */
function matches(a: QuotaApplication, req: AcsRequest): boolean {
  const p = req.params;
  const code = p.str('QuotaActionCode');
  const status = p.str('Status');
  const keyWord = p.str('KeyWord');
  if (code !== undefined && a.QuotaActionCode !== code) return false;
  if (status !== undefined && a.Status !== status) return false;
  if (keyWord !== undefined && !`${a.QuotaName} ${a.QuotaActionCode}`.includes(keyWord)) return false;
  for (const d of p.keyValues('Dimensions')) if (a.Dimension[d.key] !== d.value) return false;
  return true;
}

/**
 * The applications the fleet records as filed before (`regions/<id>/quota-applications.json`, decided already: their
 * status is as written), in Quota Center's wire shape with the region as their `Dimension`; listed before those filed
 * through the simulator, in region and file order.
 */
function recordedApplications(req: AcsRequest): QuotaApplication[] {
  return req.account.regions.flatMap((r) =>
    (r.quotaApplications ?? []).map((a): QuotaApplication => ({
      ApplicationId: a.ApplicationId,
      ApplyTime: a.ApplyTime ?? '',
      ApproveValue: a.ApproveValue ?? 0,
      AuditReason: a.AuditReason ?? '',
      DesireValue: a.DesireValue,
      Dimension: { regionId: r.regionId },
      NoticeType: 3,
      ProductCode: a.ProductCode ?? 'slb',
      QuotaActionCode: a.QuotaActionCode,
      QuotaArn: `acs:quotas:${r.regionId}:${req.account.accountId}:quota/${a.ProductCode ?? 'slb'}/${a.QuotaActionCode}`,
      QuotaCategory: 'CommonQuota',
      QuotaDescription: '',
      QuotaName: a.QuotaActionCode,
      QuotaUnit: '',
      Reason: a.Reason ?? '',
      Status: (['Process', 'Agree', 'Disagree', 'Cancel'] as const).find((s) => s === a.Status) ?? 'Process',
    })),
  );
}

const listQuotaApplications: RpcHandler = (req, ctx) => {
  ctx.quotaApplications.review(req.account.accountId, policyOf(req));
  const p = req.params;
  const productCode = p.required('ProductCode');
  const maxResults = p.int('MaxResults') ?? 30;
  if (maxResults < 1 || maxResults > 200) throw AcsError.invalidParameter('MaxResults', 'It must be between 1 and 200.');
  const status = p.str('Status');
  if (status !== undefined && !['Process', 'Agree', 'Disagree', 'Cancel'].includes(status)) throw AcsError.invalidParameter('Status', 'It must be Process, Agree, Disagree or Cancel.');
  const all = [...recordedApplications(req), ...ctx.quotaApplications.list(req.account.accountId)].filter((a) => a.ProductCode === productCode && matches(a, req));
  const scope = `quota-applications:${req.account.accountId}:${productCode}:${p.str('QuotaActionCode') ?? ''}:${status ?? ''}:${JSON.stringify(p.keyValues('Dimensions'))}`;
  const { items, next } = tokenPage(all, maxResults, scope, p.str('NextToken'));
  return { TotalCount: all.length, MaxResults: maxResults, NextToken: next ?? '', QuotaApplications: items };
};

const getQuotaApplication: RpcHandler = (req, ctx) => {
  ctx.quotaApplications.review(req.account.accountId, policyOf(req));
  const id = req.params.required('ApplicationId');
  const application = ctx.quotaApplications.get(req.account.accountId, id);
  if (!application) throw new AcsError(400, 'QUOTA.APPLICATION.NOT.FOUND', `The quota application ${id} does not exist.`);
  return { QuotaApplication: application };
};

/** The simulated Quota Center product. */
export const QUOTAS_PRODUCT: RpcProduct = {
  product: 'quotas',
  version: '2020-05-10',
  hostId: 'quotas.aliyuncs.com',
  actions: {
    ListProductQuotas: listProductQuotas,
    CreateQuotaApplication: createQuotaApplication,
    ListQuotaApplications: listQuotaApplications,
    GetQuotaApplication: getQuotaApplication,
  },
};
