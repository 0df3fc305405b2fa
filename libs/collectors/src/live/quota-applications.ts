/**
 * Quota Center 2020-05-10 applications through the official generic client (`callQuotas`: RPC, form body, as the
 * quotas-20200510 SDK sends them): CreateQuotaApplication, ListQuotaApplications, GetQuotaApplication
 * (research/quota-center.md 2-4). Answers are parsed defensively: `Dimension` may be a map or an array (the
 * GetQuotaApplication doc sample), numbers may arrive as strings.
 *
 * CreateQuotaApplication has no idempotency token and there is no cancel API (research 10), so it is never retried
 * here: a caller whose call failed in transit lists the quota's applications to learn whether it was filed.
 */
import type OpenApi from '@alicloud/openapi-core';
import { fleetAuditErrorKind } from '@app/errors';
import { callQuotas } from './alibaba-clients.factory';
import { openApiCore } from './sdk-modules';

/** One application as Quota Center reports it (counts; `applyTime` as given, ISO 8601 in practice). */
export interface QuotaCenterApplication {
  applicationId: string;
  status: string;
  productCode: string;
  quotaActionCode: string;
  /** The `regionId` dimension, when the application carries one. */
  regionId: string | undefined;
  desireValue: number;
  approveValue: number | null;
  auditReason: string | null;
  applyTime: string | null;
}

/** Thrown when Quota Center answers a shape this code cannot read (a truncated or changed response), naming the action. */
export class QuotaCenterResponseError extends fleetAuditErrorKind('QuotaCenterResponseError', 'QUOTA_CENTER_RESPONSE_INVALID', false) {
  // transient: a truncated answer may read whole on the next run.
}

function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** The `regionId` of a `Dimension` map (`{"regionId": "cn-hangzhou"}`) or array (`["cn-hangzhou"]`). */
function regionOf(dimension: unknown): string | undefined {
  if (Array.isArray(dimension)) return typeof dimension[0] === 'string' ? dimension[0] : undefined;
  if (dimension && typeof dimension === 'object') {
    const v = (dimension as Record<string, unknown>)['regionId'];
    return typeof v === 'string' ? v : undefined;
  }
  return undefined;
}

/**
 * One application of an answer body.
 * @throws QuotaCenterResponseError naming the action when the id, status or code is missing
 */
export function applicationOf(raw: unknown, action: string): QuotaCenterApplication {
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const applicationId = str(o['ApplicationId']);
  const status = str(o['Status']);
  const quotaActionCode = str(o['QuotaActionCode']);
  if (!applicationId || !status || !quotaActionCode)
    throw new QuotaCenterResponseError(`${action}: the answer has no ApplicationId, Status or QuotaActionCode (a truncated or changed response)`);
  return {
    applicationId,
    status,
    productCode: str(o['ProductCode']) ?? '',
    quotaActionCode,
    regionId: regionOf(o['Dimension']),
    desireValue: num(o['DesireValue']) ?? 0,
    approveValue: num(o['ApproveValue']),
    auditReason: str(o['AuditReason']),
    applyTime: str(o['ApplyTime']),
  };
}

/** What to apply for. */
export interface QuotaApplicationRequest {
  productCode: string;
  quotaActionCode: string;
  regionId: string;
  /** Count (> 0). */
  desireValue: number;
  /** Free text the product's support team reviews (research 2). */
  reason: string;
}

/** Files one application (CreateQuotaApplication, NoticeType 3: Quota Center notifies the account of the result). */
export async function createQuotaApplication(client: OpenApi, r: QuotaApplicationRequest): Promise<QuotaCenterApplication> {
  const body = await callQuotas(client, 'CreateQuotaApplication', {
    ProductCode: r.productCode,
    QuotaActionCode: r.quotaActionCode,
    DesireValue: r.desireValue,
    Reason: r.reason,
    NoticeType: 3,
    Dimensions: [{ Key: 'regionId', Value: r.regionId }],
  });
  return applicationOf(body, 'CreateQuotaApplication');
}

/**
 * The applications of one quota (every page; ListQuotaApplications with `MaxResults` 200), optionally of one status.
 * @throws QuotaCenterResponseError when a page is not a list, or pages do not end within 100 pages
 */
export async function listQuotaApplications(
  client: OpenApi,
  q: { productCode: string; quotaActionCode: string; regionId: string; status?: string },
): Promise<QuotaCenterApplication[]> {
  const out: QuotaCenterApplication[] = [];
  let token: string | undefined;
  for (let page = 0; page < 100; page++) {
    const body = await callQuotas(client, 'ListQuotaApplications', {
      ProductCode: q.productCode,
      QuotaActionCode: q.quotaActionCode,
      Dimensions: [{ Key: 'regionId', Value: q.regionId }],
      MaxResults: 200,
      ...(q.status ? { Status: q.status } : {}),
      ...(token ? { NextToken: token } : {}),
    });
    const items = body['QuotaApplications'];
    if (!Array.isArray(items)) throw new QuotaCenterResponseError('ListQuotaApplications: QuotaApplications is not a list (a truncated or changed response)');
    for (const item of items) out.push(applicationOf(item, 'ListQuotaApplications'));
    token = str(body['NextToken']) ?? undefined;
    if (!token) return out;
  }
  throw new QuotaCenterResponseError('ListQuotaApplications: more than 100 pages of applications for one quota');
}

/** One application by id (GetQuotaApplication). */
export async function getQuotaApplication(client: OpenApi, applicationId: string): Promise<QuotaCenterApplication> {
  const body = await callQuotas(client, 'GetQuotaApplication', { ApplicationId: applicationId });
  return applicationOf(body['QuotaApplication'], 'GetQuotaApplication');
}

/**
 * Whether an error of a Quota Center call means Quota Center answered and refused it (openapi-core's ClientError: a
 * 4xx, throttling included), so nothing was filed; anything else (a timeout, a 5xx, a reset connection) leaves the
 * outcome unknown.
 */
export function isQuotaCenterRefusal(e: unknown): boolean {
  return e instanceof openApiCore().ClientError;
}

/** The Quota Center application calls on one account's client (libs/audit QuotaCenterPort). */
export function quotaCenterPort(client: OpenApi): {
  create: (r: QuotaApplicationRequest) => Promise<QuotaCenterApplication>;
  list: (q: { productCode: string; quotaActionCode: string; regionId: string; status?: string }) => Promise<QuotaCenterApplication[]>;
  get: (applicationId: string) => Promise<QuotaCenterApplication>;
} {
  return {
    create: (r) => createQuotaApplication(client, r),
    list: (q) => listQuotaApplications(client, q),
    get: (id) => getQuotaApplication(client, id),
  };
}
