/**
 * Quota plans: for every account, region and Quota Center quota the fleet uses, the value to apply for so that the
 * quota covers the next `horizonDays` at the early (p10) trend and the planned changes given as what-if results, plus
 * a margin; or, for a quota that cannot be raised, the remediation that buys the same room and its size.
 *
 * Sources: the Quota Center API 2020-05-10 (research/quota-center.md: `CreateQuotaApplication` takes an integer-valued
 * `DesireValue` per `ProductCode`, `QuotaActionCode` and dimensions; `ListProductQuotas` `Adjustable`,
 * `UnadjustableDetail`, `ApplicableRange`); the quota codes, defaults and documented adjustability of the CLB and NLB
 * quota pages (libs/domain slb-quota.constants.ts, nlb-quota.constants.ts); the trend model's calibrated band
 * (trend.model.ts `TREND_BAND`).
 *
 * Pure: the snapshot, the fitted quota series, the what-if results and the applications in review are passed in.
 */
import { QUOTA_CENTER_QUOTA_OF_CHECK } from '@app/checks';
import { effectiveQuota, type FleetSnapshot, type QuotaDefinition, type QuotaValue, type RegionSnapshot, type ResourceRef } from '@app/domain';
import { TREND_BAND, bandScale, projectTrend, resolveTrendSettings, type TrendSettings } from './trend.model';
import type { FittedSeries, SeriesResource } from './trends';
import type { WhatIfResult } from './whatif.runner';

const DAY_MS = 86_400_000;

/** Settings of a quota plan. */
export interface QuotaPlanSettings {
  /** Days the applied value must cover (default 30). */
  horizonDays: number;
  /** Head room asked above the need (percent, default 10): an application is reviewed by hand and takes days. */
  marginPercent: number;
}

/** The defaults of `QuotaPlanSettings`. */
export const DEFAULT_QUOTA_PLAN_SETTINGS: Readonly<QuotaPlanSettings> = { horizonDays: 30, marginPercent: 10 };

/** A planned change's result, by name (a what-if scenario). */
export interface PlannedScenario {
  name: string;
  result: WhatIfResult;
}

/** An application already filed for a quota (stored or listed from Quota Center), which a plan does not repeat. */
export interface QuotaApplicationRef {
  accountId: string;
  regionId: string;
  productCode: string;
  quotaActionCode: string;
  applicationId: string;
  /** Quota Center status: `Process` (in review), `Agree`, `Disagree`, `Cancel`. */
  status: string;
  desireValue: number;
}

/** What the plan says to do about one quota. */
export type QuotaPlanAction =
  /** The limit covers the need at the horizon: nothing to do. */
  | 'covered'
  /** Apply for `requestValue` (CreateQuotaApplication). */
  | 'request'
  /** An application for this quota is in review (`Process`, or Quota Center's `UnadjustableDetail` applicationProcess). */
  | 'pending'
  /** The quota cannot be raised: `remediation` says what buys the room. */
  | 'remediate';

/** The series of a quota that reaches the limit first, and when (p10 and p50 times, ISO 8601; null: not within the trend). */
export interface QuotaFirstToReach {
  checkId: string;
  resource: SeriesResource;
  used: number;
  exhaustsAtP10: string | null;
  exhaustsAtP50: string | null;
}

/** A remediation for a quota that cannot be raised: what to do and the units of the quota it frees (count; null: not modelled). */
export interface QuotaRemediation {
  text: string;
  size: number | null;
}

/** One row of a quota plan: one Quota Center quota of one account and region. Units: counts; times ISO 8601. */
export interface QuotaPlanRow {
  accountId: string;
  regionId: string;
  productCode: string;
  quotaActionCode: string;
  /** The check that measures the quota (its series are the row's). */
  checkId: string;
  /** The limit in force (Quota Center's value, else the documented default). */
  limit: number;
  limitSource: 'quota-center' | 'default';
  /** The highest current use among the row's series (a per-instance quota is one value for every instance). */
  used: number;
  /** Series measured (count: one per instance for a per-instance quota, one for a regional quota). */
  series: number;
  firstToReach: QuotaFirstToReach | null;
  /** The highest p10 (early) use at the horizon among the series (>= its current use). */
  trendNeed: number;
  /** The highest use the planned scenarios reach (plus the trend's growth over the horizon), null without scenarios touching it. */
  scenarioNeed: { scenario: string; used: number } | null;
  /** max(trendNeed, scenarioNeed.used). */
  need: number;
  /** ceil(need x (1 + margin)), capped by Quota Center's ApplicableRange; null unless the action is `request`. */
  requestValue: number | null;
  action: QuotaPlanAction;
  adjustable: boolean;
  /** Where `adjustable` comes from: Quota Center (`ListProductQuotas` `Adjustable`, read live) or the documentation. */
  adjustableSource: 'quota-center' | 'documented';
  /** Quota Center's `UnadjustableDetail`, when it gave one. */
  unadjustableDetail: string | null;
  /** The numbers behind the action, in one sentence. */
  why: string;
  remediation: QuotaRemediation | null;
  /** The application in review for this quota, when there is one. */
  application: { applicationId: string; status: string; desireValue: number } | null;
}

/** A quota plan (the JSON contract of `fleet-audit quota plan --format json` and `GET /v1/quota-plan`). */
export interface QuotaPlan {
  generatedAt: string;
  horizonDays: number;
  marginPercent: number;
  scenarios: string[];
  /** Rows to act on first: `request`, `remediate`, `pending`, then `covered`; each by first p10 exhaustion, then key. */
  rows: QuotaPlanRow[];
}

/** Input of `planQuotas`. */
export interface QuotaPlanInput {
  snapshot: FleetSnapshot;
  /** The fitted quota series of the trend window (stored fits, or `fitTrendWindow` over the history). */
  series: readonly FittedSeries[];
  /** The plan's clock (epoch ms). */
  now: number;
  scenarios?: readonly PlannedScenario[];
  applications?: readonly QuotaApplicationRef[];
  settings?: Partial<QuotaPlanSettings>;
  trendSettings?: Partial<TrendSettings>;
  /**
   * The size of a remediation the plan cannot compute from the snapshot alone (a what-if: the backends that
   * `externalTrafficPolicy: Local` on the Cluster-mode Services of the first load balancer would free), or undefined.
   */
  remediationSize?: (row: QuotaPlanRow) => QuotaRemediation | undefined;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const ACTION_ORDER: Readonly<Record<QuotaPlanAction, number>> = { request: 0, remediate: 1, pending: 2, covered: 3 };

/**
 * The p10 (early) use of a series `horizonDays` after `now`: the calibrated band's upper edge (trend.model.ts), rounded
 * up to a whole unit and never below the current use. A series with no rising trend (flat, decreasing, too few samples,
 * by `projectTrend`'s rules) needs its current use; one already at its limit keeps its trend.
 */
export function p10UseAt(series: FittedSeries, now: number, horizonDays: number, trend: TrendSettings): number {
  const w = series.window;
  // The trend statuses of projectTrend without its `exhausted` shortcut: a quota already at its limit still grows.
  const rising =
    w.fit !== null &&
    w.latestAt !== null &&
    w.samples >= trend.minSamples &&
    w.spanMs >= trend.minSpanHours * 3_600_000 &&
    Math.abs(w.fit.slope) * trend.flatHorizonDays >= 1 &&
    w.fit.slope > 0;
  if (!rising || !w.fit || w.latestAt === null) return w.used;
  const h = (now - w.latestAt) / DAY_MS + horizonDays;
  const spanDays = w.spanMs / DAY_MS;
  const edge = w.fit.intercept + w.fit.slope * h + TREND_BAND.high * bandScale(w.fit, spanDays, h);
  return Math.max(w.used, Math.ceil(edge));
}

/** The Quota Center value of `definition` in `region` (the same entry `effectiveQuota` takes the limit from). */
function quotaValueOf(region: RegionSnapshot | undefined, definition: QuotaDefinition): QuotaValue | undefined {
  const quotas = region?.quotas;
  if (!quotas) return undefined;
  let found: QuotaValue | undefined;
  for (const q of quotas) {
    if (q.quotaActionCode !== definition.quotaActionCode) continue;
    if (!q.dimensions || Object.keys(q.dimensions).length === 0) return q;
    found ??= q;
  }
  return found;
}

/**
 * The value to apply for: `need` plus the margin, rounded up to a whole unit (quota values are counts), and capped by
 * Quota Center's `ApplicableRange` maximum when it gave one.
 * @returns the value and whether the range capped it
 */
export function requestValueFor(need: number, marginPercent: number, applicableRange?: readonly number[]): { value: number; capped: boolean } {
  // need x (100 + margin) / 100 in that order: 100 x 110 / 100 is exactly 110, 100 x 1.1 is 110.00000000000001.
  const value = Math.ceil((need * (100 + marginPercent)) / 100);
  const max = applicableRange && applicableRange.length > 0 ? Math.max(...applicableRange) : undefined;
  if (max !== undefined && Number.isFinite(max) && value > max) return { value: Math.floor(max), capped: true };
  return { value, capped: false };
}

/** `slb_quota_backendservers_num` in account a / cn-hangzhou: the row key. */
function rowKey(accountId: string, regionId: string, quotaActionCode: string): string {
  return `${accountId}\u0000${regionId}\u0000${quotaActionCode}`;
}

/** What frees room on a quota that cannot be raised (the check catalogue's remediation for the quota), with its size when the snapshot gives it. */
function remediationOf(row: QuotaPlanRow, region: RegionSnapshot | undefined): QuotaRemediation {
  if (row.quotaActionCode === 'nlb_quota_servergroups_num') {
    const unused = (region?.nlbServerGroups ?? []).filter((g) => g.relatedLoadBalancerIds.length === 0).length;
    return {
      text:
        `delete the ${unused} NLB server group(s) no NLB uses (NLB_SERVER_GROUP_ORPHANED lists them; CCM v2.12.4 and later no longer leaves them behind), ` +
        'merge Services onto fewer ports, or move workloads to another region or account',
      size: unused,
    };
  }
  if (row.quotaActionCode.includes('server') || row.quotaActionCode.includes('backend')) {
    return {
      text:
        `set externalTrafficPolicy: Local on the Cluster-mode Services of ${row.firstToReach?.resource.id ?? 'the busiest load balancer'} ` +
        '(only nodes running their pods stay backends), or spread the Services over more load balancers',
      size: null,
    };
  }
  return { text: 'release unused load balancers or listeners (LB_ORPHANED, NLB_ORPHANED), or move workloads to another region or account', size: null };
}

/**
 * Plans every Quota Center quota the fleet's quota series measure (checks with a `quota`, libs/checks
 * `QUOTA_CENTER_QUOTA_OF_CHECK`).
 *
 * Per account, region and quota: the limit in force and the highest current use; the trend need, the highest p10 use
 * of its series `horizonDays` ahead (`p10UseAt`); the scenario need, the highest use a scenario's steps reach on a
 * series of the quota plus that series' trend growth over the horizon; need = the larger. When need <= limit the row
 * is `covered`; else a quota in review (an application in `Process`, or `UnadjustableDetail` applicationProcess) is
 * `pending`, one that cannot be raised (`Adjustable` false, read live, else the documented answer) is `remediate`, and
 * any other is `request` for `requestValueFor(need, margin)`.
 */
export function planQuotas(input: QuotaPlanInput): QuotaPlan {
  const settings = { ...DEFAULT_QUOTA_PLAN_SETTINGS, ...input.settings };
  const trend = resolveTrendSettings(input.trendSettings ?? {});
  const { now } = input;
  const regions = new Map<string, RegionSnapshot>();
  for (const a of input.snapshot.accounts) for (const r of a.regions) regions.set(`${a.accountId}\u0000${r.regionId}`, r);

  interface Acc {
    checkId: string;
    definition: QuotaDefinition;
    accountId: string;
    regionId: string;
    used: number;
    series: number;
    trendNeed: number;
    scenarioNeed: { scenario: string; used: number } | null;
    first: { p10: number; entry: QuotaFirstToReach } | null;
    growthOf: Map<string, number>;
  }
  const rows = new Map<string, Acc>();
  for (const s of input.series) {
    const definition = QUOTA_CENTER_QUOTA_OF_CHECK.get(s.checkId);
    if (!definition) continue;
    const { accountId, regionId } = s.resource;
    const key = rowKey(accountId, regionId, definition.quotaActionCode);
    let acc = rows.get(key);
    if (!acc) {
      acc = { checkId: s.checkId, definition, accountId, regionId, used: 0, series: 0, trendNeed: 0, scenarioNeed: null, first: null, growthOf: new Map() };
      rows.set(key, acc);
    }
    const f = projectTrend(s.window, now, trend);
    const need = p10UseAt(s, now, settings.horizonDays, trend);
    acc.series++;
    acc.used = Math.max(acc.used, s.window.used);
    acc.trendNeed = Math.max(acc.trendNeed, need);
    acc.growthOf.set(`${s.resource.kind}\u0000${s.resource.id}`, need - s.window.used);
    const p10 = f.secondsToExhaustion.p10 ?? Infinity;
    if (p10 !== Infinity && (acc.first === null || p10 < acc.first.p10)) {
      acc.first = {
        p10,
        entry: { checkId: s.checkId, resource: { ...s.resource }, used: s.window.used, exhaustsAtP10: f.exhaustsAt.p10, exhaustsAtP50: f.exhaustsAt.p50 },
      };
    }
  }

  const scenarioNames: string[] = [];
  for (const sc of input.scenarios ?? []) {
    scenarioNames.push(sc.name);
    for (const step of sc.result.steps) {
      for (const q of step.quotas) {
        const definition = QUOTA_CENTER_QUOTA_OF_CHECK.get(q.checkId);
        if (!definition) continue;
        const acc = rows.get(rowKey(q.resource.accountId, q.resource.regionId, definition.quotaActionCode)) ?? newRowFromScenario(rows, q.checkId, definition, q.resource, q.before.used);
        const growth = acc.growthOf.get(`${q.resource.kind}\u0000${q.resource.id}`) ?? 0;
        const used = q.after.used + Math.max(0, growth);
        if (acc.scenarioNeed === null || used > acc.scenarioNeed.used) acc.scenarioNeed = { scenario: sc.name, used };
      }
    }
  }

  const out: QuotaPlanRow[] = [];
  for (const acc of rows.values()) {
    const region = regions.get(`${acc.accountId}\u0000${acc.regionId}`);
    const { limit, limitSource } = effectiveQuota(region?.quotas, acc.definition);
    const live = quotaValueOf(region, acc.definition);
    const adjustable = live?.adjustable ?? acc.definition.adjustable;
    const adjustableSource = live?.adjustable !== undefined ? 'quota-center' : 'documented';
    const unadjustableDetail = live?.unadjustableDetail ?? null;
    const need = Math.max(acc.trendNeed, acc.scenarioNeed?.used ?? 0);
    const application =
      (input.applications ?? []).find(
        (a) => a.status === 'Process' && a.accountId === acc.accountId && a.regionId === acc.regionId && a.productCode === acc.definition.productCode && a.quotaActionCode === acc.definition.quotaActionCode,
      ) ?? null;
    const inReview = application !== null || unadjustableDetail === 'applicationProcess';
    let action: QuotaPlanAction;
    if (need <= limit) action = 'covered';
    else if (inReview) action = 'pending';
    else if (!adjustable) action = 'remediate';
    else action = 'request';
    const req = action === 'request' ? requestValueFor(need, settings.marginPercent, live?.applicableRange) : null;
    const row: QuotaPlanRow = {
      accountId: acc.accountId,
      regionId: acc.regionId,
      productCode: acc.definition.productCode,
      quotaActionCode: acc.definition.quotaActionCode,
      checkId: acc.checkId,
      limit,
      limitSource,
      used: acc.used,
      series: acc.series,
      firstToReach: acc.first?.entry ?? null,
      trendNeed: acc.trendNeed,
      scenarioNeed: acc.scenarioNeed,
      need,
      requestValue: req?.value ?? null,
      action,
      adjustable,
      adjustableSource,
      unadjustableDetail,
      why: '',
      remediation: null,
      application: application ? { applicationId: application.applicationId, status: application.status, desireValue: application.desireValue } : null,
    };
    row.why = whyOf(row, settings, req?.capped ?? false);
    if (action === 'remediate') row.remediation = input.remediationSize?.(row) ?? remediationOf(row, region);
    out.push(row);
  }
  out.sort(
    (a, b) =>
      ACTION_ORDER[a.action] - ACTION_ORDER[b.action] ||
      firstTime(a) - firstTime(b) ||
      cmp(a.accountId, b.accountId) ||
      cmp(a.regionId, b.regionId) ||
      cmp(a.quotaActionCode, b.quotaActionCode),
  );
  return { generatedAt: new Date(now).toISOString(), horizonDays: settings.horizonDays, marginPercent: settings.marginPercent, scenarios: scenarioNames, rows: out };
}

/** A row for a quota only a scenario touches (no stored series yet: a new region or quota). */
function newRowFromScenario(
  rows: Map<string, { checkId: string; definition: QuotaDefinition; accountId: string; regionId: string; used: number; series: number; trendNeed: number; scenarioNeed: { scenario: string; used: number } | null; first: null | { p10: number; entry: QuotaFirstToReach }; growthOf: Map<string, number> }>,
  checkId: string,
  definition: QuotaDefinition,
  resource: ResourceRef,
  used: number,
) {
  const { accountId } = resource;
  const { regionId } = resource;
  const acc = { checkId, definition, accountId, regionId, used, series: 0, trendNeed: used, scenarioNeed: null, first: null, growthOf: new Map<string, number>() };
  rows.set(rowKey(accountId, regionId, definition.quotaActionCode), acc);
  return acc;
}

function firstTime(r: QuotaPlanRow): number {
  const t = r.firstToReach?.exhaustsAtP10;
  return t ? Date.parse(t) : Infinity;
}

/** The sentence behind a row's action: the numbers that give it. */
function whyOf(row: QuotaPlanRow, settings: QuotaPlanSettings, capped: boolean): string {
  const parts: string[] = [`used ${row.used} of ${row.limit}`];
  parts.push(
    row.trendNeed > row.used
      ? `the early (p10) trend reaches ${row.trendNeed} within ${settings.horizonDays} days` +
          (row.firstToReach ? ` (${row.firstToReach.resource.kind} ${row.firstToReach.resource.id} first, p10 ${row.firstToReach.exhaustsAtP10 ?? '-'})` : '')
      : `no rising trend within ${settings.horizonDays} days`,
  );
  if (row.scenarioNeed) parts.push(`scenario ${row.scenarioNeed.scenario} needs ${row.scenarioNeed.used}`);
  switch (row.action) {
    case 'covered':
      return `${parts.join('; ')}: the limit covers the need of ${row.need}.`;
    case 'pending':
      return `${parts.join('; ')}: need ${row.need} > limit ${row.limit}, an application is in review` + (row.application ? ` (${row.application.applicationId}, ${row.application.desireValue})` : '') + '.';
    case 'remediate':
      return `${parts.join('; ')}: need ${row.need} > limit ${row.limit}, and the quota cannot be raised (${row.adjustableSource === 'quota-center' ? `Quota Center: ${row.unadjustableDetail ?? 'not adjustable'}` : 'documented as fixed'}).`;
    case 'request':
      return (
        `${parts.join('; ')}: need ${row.need} + ${settings.marginPercent} % margin = ${row.requestValue}` +
        (capped ? ' (capped by Quota Center ApplicableRange)' : '') +
        '.'
      );
  }
}
