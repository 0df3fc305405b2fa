/**
 * `fleet-audit quota request`: files the `request` rows of the quota plan as Quota Center applications, once each.
 *
 * Order of one run (research/quota-center.md 10: no idempotency token, no cancel API, so the dedupe is ours):
 * 1. refresh: every stored open application is read back (GetQuotaApplication) and settled; one left `submitting` by
 *    a run that stopped before Quota Center answered is reconciled with ListQuotaApplications (an application of that
 *    quota filed at or after it, with the same value, is adopted; none: it is marked failed, and planned again);
 * 2. plan: `quotaPlanFromStore` with the stored open applications, and those approved after the latest scan (whose new
 *    limit no scan has read yet): their quotas are `pending`, not requested again;
 * 3. file, only with `apply`: per `request` row, store it `submitting` (a unique index allows one open application
 *    per quota, so two runs at once cannot both file), list the quota's applications in review at Quota Center (one
 *    filed outside this tool is adopted, not duplicated), then CreateQuotaApplication and store the answer. A call
 *    Quota Center refuses (4xx) is stored `failed` with its message; one whose outcome is unknown (a timeout, a 5xx)
 *    stays `submitting` for the next run's step 1.
 */
import { createAccountClients, defaultCredentialsFor, isQuotaCenterRefusal, quotaCenterPort, type ScanAccount, type ScanConfig } from '@app/collectors';
import { standingRefusals, type FleetSnapshot, type QuotaApplicationRecord } from '@app/domain';
import type { QuotaApplicationRef, QuotaPlan, QuotaPlanRow, QuotaPlanSettings, Scenario } from '@app/forecast';
import type { Store, StoredQuotaApplication } from '@app/store';
import { quotaPlanFromStore } from './quota-plan-runner';

/** What one run did with one `request` row (or with a stored application it refreshed). */
export interface QuotaRequestOutcome {
  accountId: string;
  regionId: string;
  productCode: string;
  quotaActionCode: string;
  /**
   * - `would-file`: without `apply`, what a run with it would file;
   * - `filed`: CreateQuotaApplication answered (the application's status says what Quota Center decided);
   * - `adopted`: an application in review at Quota Center was found and stored instead of filing another;
   * - `open`: this tool already has an open application for the quota;
   * - `failed`: Quota Center refused the call (the message says why);
   * - `abandoned`: a run stopped before Quota Center answered had not filed it (the plan files it again if needed);
   * - `unknown`: the call's outcome is not known (timeout, 5xx): the next run reconciles it;
   * - `skipped`: the account is not in the scan config (no credentials to file with);
   * - `refused-before`: Quota Center's reviewer refused the quota's latest application and that refusal stands
   *   (`standingRefusal`): nothing is filed over it unless `retryRefused` says so, so a run on a schedule never sends
   *   the reviewer the same request again.
   */
  outcome: 'would-file' | 'filed' | 'adopted' | 'open' | 'failed' | 'abandoned' | 'unknown' | 'skipped' | 'refused-before';
  desireValue: number | null;
  application: StoredQuotaApplication | null;
  message: string;
}

/** The Quota Center calls a run makes for one account (libs/collectors quota-applications.ts through the account's clients). */
export interface QuotaCenterPort {
  create(r: { productCode: string; quotaActionCode: string; regionId: string; desireValue: number; reason: string }): Promise<QuotaCenterAnswer>;
  list(q: { productCode: string; quotaActionCode: string; regionId: string; status?: string }): Promise<QuotaCenterAnswer[]>;
  get(applicationId: string): Promise<QuotaCenterAnswer>;
}

/** An application as Quota Center reports it (libs/collectors QuotaCenterApplication). */
export interface QuotaCenterAnswer {
  applicationId: string;
  status: string;
  desireValue: number;
  approveValue: number | null;
  auditReason: string | null;
  applyTime: string | null;
}

/** Options of `requestQuotas`. */
export interface QuotaRequestOptions {
  /** The accounts that may be filed for (the scan config's). */
  accounts: readonly Pick<ScanAccount, 'accountId'>[];
  /** The Quota Center calls of an account. */
  quotaCenterFor: (accountId: string) => QuotaCenterPort | Promise<QuotaCenterPort>;
  /** File the applications (default: only say what would be filed). */
  apply: boolean;
  /** Who asks (stored with every application). */
  requestedBy: string;
  now?: Date;
  settings?: Partial<QuotaPlanSettings>;
  scenarios?: readonly Scenario[];
  /** Whether an error of a call means Quota Center refused it (4xx: stored `failed`) rather than an unknown outcome. */
  isRefusal?: (e: unknown) => boolean;
  /** File a quota whose latest application was refused (default: report it `refused-before` and file nothing). */
  retryRefused?: boolean;
}

/** A refusal that stands for a quota: the refused application, as the scan or the store knows it. */
export interface StandingRefusalRef {
  applicationId: string;
  desireValue: number;
  auditReason: string | null;
  /** When it was filed or decided, ISO 8601; null when not known. */
  at: string | null;
}

/**
 * The refusal that stands for a quota of one account and region, if any: the scan's (`standingRefusals` over the
 * applications the latest scan read, filed by anyone), else this tool's latest stored application of the quota when
 * it is `Disagree` and the scan did not read it yet (refused after the scan). A refused application the scan read and
 * judged no longer standing (a later application, or a limit that reached the asked value) does not count.
 * @param stored this tool's applications, newest first (`quotaApplications.list`)
 */
export function standingRefusal(
  key: { accountId: string; regionId: string; productCode: string; quotaActionCode: string },
  snapshot: FleetSnapshot,
  stored: readonly StoredQuotaApplication[],
): StandingRefusalRef | undefined {
  const region = snapshot.accounts.find((a) => a.accountId === key.accountId)?.regions.find((r) => r.regionId === key.regionId);
  const fromScan = region
    ? standingRefusals(region).find((x) => x.application.productCode === key.productCode && x.application.quotaActionCode === key.quotaActionCode)
    : undefined;
  if (fromScan) {
    const a = fromScan.application;
    return { applicationId: a.applicationId, desireValue: a.desireValue, auditReason: a.auditReason ?? null, at: a.applyTime ?? null };
  }
  const latest = stored.find(
    (a) => a.accountId === key.accountId && a.regionId === key.regionId && a.productCode === key.productCode && a.quotaActionCode === key.quotaActionCode,
  );
  if (latest?.status !== 'Disagree' || !latest.applicationId) return undefined;
  if (region?.quotaApplications?.some((a) => a.applicationId === latest.applicationId)) return undefined;
  return { applicationId: latest.applicationId, desireValue: latest.desireValue, auditReason: latest.auditReason, at: latest.updatedAt };
}

const STATUSES = new Set(['Process', 'Agree', 'Disagree', 'Cancel']);

function statusOf(s: string): 'Process' | 'Agree' | 'Disagree' | 'Cancel' {
  return (STATUSES.has(s) ? s : 'Process') as 'Process' | 'Agree' | 'Disagree' | 'Cancel';
}

/** The reason filed with an application: the plan's numbers (Quota Center's reviewers read it by hand, research 2). */
export function applicationReason(row: QuotaPlanRow, plan: Pick<QuotaPlan, 'horizonDays'>): string {
  return `Capacity forecast for the next ${plan.horizonDays} days (fleet-audit quota plan): ${row.why}`.slice(0, 1000);
}

function messageOf(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').slice(0, 500);
}

/**
 * Step 1: every stored open application read back and settled (see the file comment).
 * @returns one outcome per application whose state changed
 */
export async function refreshQuotaApplications(store: Store, o: Pick<QuotaRequestOptions, 'accounts' | 'quotaCenterFor' | 'isRefusal'>): Promise<QuotaRequestOutcome[]> {
  const known = new Set(o.accounts.map((a) => a.accountId));
  const out: QuotaRequestOutcome[] = [];
  for (const a of await store.quotaApplications.list({ statuses: ['submitting', 'Process'] })) {
    if (!known.has(a.accountId)) continue;
    const qc = await o.quotaCenterFor(a.accountId);
    const key = { accountId: a.accountId, regionId: a.regionId, productCode: a.productCode, quotaActionCode: a.quotaActionCode };
    if (a.applicationId) {
      const got = await qc.get(a.applicationId);
      if (got.status === a.status && got.approveValue === a.approveValue) continue;
      const settled = await store.quotaApplications.settle(a.id, { applicationId: a.applicationId, status: statusOf(got.status), approveValue: got.approveValue, auditReason: got.auditReason });
      out.push({ ...key, outcome: 'filed', desireValue: a.desireValue, application: settled, message: `${a.applicationId} is now ${settled.status}` });
      continue;
    }
    // Left `submitting`: was it filed? An application of the quota applied for at or after the row, with its value.
    const since = Date.parse(a.createdAt) - 60_000;
    const found = (await qc.list({ productCode: a.productCode, quotaActionCode: a.quotaActionCode, regionId: a.regionId })).find(
      (x) => x.desireValue === a.desireValue && (x.applyTime === null || Date.parse(x.applyTime) >= since),
    );
    const settled = found
      ? await store.quotaApplications.settle(a.id, { applicationId: found.applicationId, status: statusOf(found.status), approveValue: found.approveValue, auditReason: found.auditReason })
      : await store.quotaApplications.settle(a.id, { applicationId: null, status: 'failed', error: 'not filed: the run stopped before Quota Center answered, and Quota Center has no such application' });
    out.push({
      ...key,
      outcome: found ? 'adopted' : 'abandoned',
      desireValue: a.desireValue,
      application: settled,
      message: found ? `an interrupted run had filed ${found.applicationId} (${found.status})` : 'an interrupted run had not filed it; planned again',
    });
  }
  return out;
}

/**
 * One run: refresh, plan, and (with `apply`) file (see the file comment).
 * @throws ForecastUnavailableError when no scan with a snapshot is stored; the Quota Center client's errors on reads
 */
export async function requestQuotas(store: Store, o: QuotaRequestOptions): Promise<{ plan: QuotaPlan; outcomes: QuotaRequestOutcome[] }> {
  const isRefusal = o.isRefusal ?? (() => false);
  const outcomes = await refreshQuotaApplications(store, o);
  // Open applications hold their quota back; so does one approved after the latest scan, whose new limit the next
  // scan reads (until then the plan still sees the old limit and would ask again).
  const stored = await store.quotaApplications.list({ statuses: ['submitting', 'Process', 'Agree'] });
  const holding = (scanFinishedAt: string): QuotaApplicationRef[] =>
    stored
      .filter((a) => a.status !== 'Agree' || Date.parse(a.updatedAt) > Date.parse(scanFinishedAt))
      .map((a) => ({
        accountId: a.accountId,
        regionId: a.regionId,
        productCode: a.productCode,
        quotaActionCode: a.quotaActionCode,
        applicationId: a.applicationId ?? `pending-${a.id}`,
        status: 'Process',
        desireValue: a.desireValue,
      }));
  const { plan, snapshot } = await quotaPlanFromStore(store, {
    ...(o.now ? { now: o.now } : {}),
    ...(o.settings ? { settings: o.settings } : {}),
    ...(o.scenarios ? { scenarios: o.scenarios } : {}),
    applications: holding,
  });
  const known = new Set(o.accounts.map((a) => a.accountId));
  const history = await store.quotaApplications.list({ accountIds: [...known] });
  for (const row of plan.rows) {
    if (row.action !== 'request' || row.requestValue === null) continue;
    const key = { accountId: row.accountId, regionId: row.regionId, productCode: row.productCode, quotaActionCode: row.quotaActionCode };
    const base = { ...key, desireValue: row.requestValue };
    if (!known.has(row.accountId)) {
      outcomes.push({ ...base, outcome: 'skipped', application: null, message: `account ${row.accountId} is not in the scan config: no credentials to file with` });
      continue;
    }
    const refused = o.retryRefused ? undefined : standingRefusal(key, snapshot, history);
    if (refused) {
      const why = refused.auditReason ? `"${refused.auditReason}"` : 'no reason given';
      outcomes.push({
        ...base,
        outcome: 'refused-before',
        application: null,
        message: `Quota Center refused ${refused.applicationId} (asked ${refused.desireValue}${refused.at ? `, ${refused.at}` : ''}): ${why}; address it, then run with --retry-refused to file ${row.requestValue}`,
      });
      continue;
    }
    if (!o.apply) {
      outcomes.push({ ...base, outcome: 'would-file', application: null, message: `would ask for ${row.requestValue} (now ${row.limit}); run with --apply to file it` });
      continue;
    }
    const reason = applicationReason(row, plan);
    const begun = await store.quotaApplications.begin(key, { desireValue: row.requestValue, reason, requestedBy: o.requestedBy, planRow: row as unknown as Record<string, unknown> });
    if ('open' in begun) {
      outcomes.push({ ...base, outcome: 'open', application: begun.open, message: `an application is already open (${begun.open.applicationId ?? 'being filed'})` });
      continue;
    }
    const qc = await o.quotaCenterFor(row.accountId);
    const inReview = await qc.list({ ...key, status: 'Process' });
    if (inReview[0]) {
      const x = inReview[0];
      const settled = await store.quotaApplications.settle(begun.created.id, { applicationId: x.applicationId, status: statusOf(x.status), approveValue: x.approveValue, auditReason: x.auditReason, desireValue: x.desireValue });
      outcomes.push({ ...base, outcome: 'adopted', application: settled, message: `Quota Center already reviews ${x.applicationId} (asks ${x.desireValue}); not filed again` });
      continue;
    }
    try {
      const x = await qc.create({ ...key, desireValue: row.requestValue, reason });
      const settled = await store.quotaApplications.settle(begun.created.id, { applicationId: x.applicationId, status: statusOf(x.status), approveValue: x.approveValue, auditReason: x.auditReason });
      outcomes.push({ ...base, outcome: 'filed', application: settled, message: `${x.applicationId}: ${x.status}${x.status === 'Agree' ? `, approved ${x.approveValue}` : x.status === 'Disagree' ? `: ${x.auditReason ?? ''}` : ''}` });
    } catch (e) {
      if (isRefusal(e)) {
        const settled = await store.quotaApplications.settle(begun.created.id, { applicationId: null, status: 'failed', error: messageOf(e) });
        outcomes.push({ ...base, outcome: 'failed', application: settled, message: `Quota Center refused it: ${messageOf(e)}` });
      } else {
        outcomes.push({ ...base, outcome: 'unknown', application: begun.created, message: `the outcome is not known (${messageOf(e)}); the next run reconciles it` });
      }
    }
  }
  return { plan, outcomes };
}

/** The stored applications of the given accounts, as the API and the report show them. */
export function openApplicationRefs(apps: readonly StoredQuotaApplication[]): QuotaApplicationRef[] {
  return apps.map((a) => ({ accountId: a.accountId, regionId: a.regionId, productCode: a.productCode, quotaActionCode: a.quotaActionCode, applicationId: a.applicationId ?? a.id, status: a.status, desireValue: a.desireValue }));
}


/**
 * `refreshQuotaApplications` with a scan config's accounts and credentials (a live scan calls it after storing, so each
 * scan records the decisions Quota Center made since the last one). Nothing is called when no application is open.
 * @returns the applications whose state changed
 */
export async function refreshQuotaApplicationsOf(store: Store, config: ScanConfig): Promise<QuotaRequestOutcome[]> {
  const open = await store.quotaApplications.list({ statuses: ['submitting', 'Process'], accountIds: config.accounts.map((a) => a.accountId), limit: 1 });
  if (open.length === 0) return [];
  const credentialsFor = defaultCredentialsFor(config);
  return refreshQuotaApplications(store, {
    accounts: config.accounts,
    quotaCenterFor: async (accountId) => quotaCenterPort(createAccountClients(config.alibabaCloud, await credentialsFor(config.accounts.find((a) => a.accountId === accountId)!)).quotas),
    isRefusal: isQuotaCenterRefusal,
  });
}

/**
 * Refresh the stored applications from what a scan read (the snapshot's `quotaApplications`, the `quota-applications`
 * dataset: ListQuotaApplications per region), with no call of its own: so every scan, distributed ones included,
 * records the decisions Quota Center made since the last one. For each stored application still open (`Process` with
 * its id, or `submitting` without one) in a region whose applications were read:
 * - one with an id takes the status, approved value and reviewer's reason the scan read for that id;
 * - one left `submitting` (a run stopped before it stored Quota Center's answer) adopts the application of the same
 *   quota and desired value filed at or after it (a minute's clock skew allowed), as `refreshQuotaApplications` does
 *   with ListQuotaApplications; with none, it is left for the next `quota request` run to settle (a scan does not
 *   prove the call was never made: Quota Center may list it late).
 * Regions whose applications were not read change nothing.
 * @returns the applications whose state changed (outcome `filed` for a decision, `adopted` for a recovered id)
 * @throws Postgres errors
 */
export async function refreshQuotaApplicationsFromSnapshot(store: Store, snapshot: FleetSnapshot): Promise<QuotaRequestOutcome[]> {
  const read = new Map<string, QuotaApplicationRecord[]>();
  for (const account of snapshot.accounts)
    for (const region of account.regions) if (region.quotaApplications) read.set(`${account.accountId}/${region.regionId}`, region.quotaApplications);
  if (read.size === 0) return [];
  const accountIds = [...new Set(snapshot.accounts.map((a) => a.accountId))];
  const out: QuotaRequestOutcome[] = [];
  for (const a of await store.quotaApplications.list({ statuses: ['submitting', 'Process'], accountIds })) {
    const apps = read.get(`${a.accountId}/${a.regionId}`);
    if (!apps) continue;
    const key = { accountId: a.accountId, regionId: a.regionId, productCode: a.productCode, quotaActionCode: a.quotaActionCode };
    if (a.applicationId) {
      const got = apps.find((x) => x.applicationId === a.applicationId);
      if (!got || (got.status === a.status && (got.approveValue ?? null) === a.approveValue)) continue;
      const settled = await store.quotaApplications.settle(a.id, { applicationId: a.applicationId, status: statusOf(got.status), approveValue: got.approveValue ?? null, auditReason: got.auditReason ?? null });
      out.push({ ...key, outcome: 'filed', desireValue: a.desireValue, application: settled, message: `${a.applicationId} is now ${settled.status}` });
      continue;
    }
    const since = Date.parse(a.createdAt) - 60_000;
    const found = apps.find(
      (x) =>
        x.productCode === a.productCode &&
        x.quotaActionCode === a.quotaActionCode &&
        x.desireValue === a.desireValue &&
        (x.applyTime === undefined || !(Date.parse(x.applyTime) < since)),
    );
    if (!found) continue;
    const settled = await store.quotaApplications.settle(a.id, { applicationId: found.applicationId, status: statusOf(found.status), approveValue: found.approveValue ?? null, auditReason: found.auditReason ?? null });
    out.push({ ...key, outcome: 'adopted', desireValue: a.desireValue, application: settled, message: `an interrupted run had filed ${found.applicationId} (${found.status})` });
  }
  return out;
}
