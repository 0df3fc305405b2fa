/**
 * Where report inputs come from: the store (scheduled reports, `report --database-url`, the API) or two
 * offline scan outcomes (`report --fleet DIR --previous DIR`, no database).
 */
import {
  DAY_MS,
  WaiverMatcher,
  waiverState,
  type CoverageEntry,
  type Finding,
  type QuotaUsageSample,
  type Severity,
  type Waiver,
} from '@app/domain';
import { DEFAULT_TREND_SETTINGS, forecastTrends, type QuotaSeries } from '@app/forecast';
import type { Store, StoredScanListItem } from '@app/store';
import { SYSTEM_PRINCIPAL, dayStartOf } from '@app/store/model';
import { REPORT_PERIOD_DAYS, REPORT_TOP_QUOTAS, REPORT_TREND_WEEKS, type QuotaForecastInput, type ReportInput } from './report.builder';

/** A writable copy of a readonly array type. */
type Mutable<T> = T extends readonly (infer U)[] ? U[] : never;

/** Most scans of the forecast window read (hourly scans over 14 days: 336). */
export const REPORT_FORECAST_MAX_SCANS = 1000;

/** Quotas at or above this usage ratio in the report's scan get a forecast. */
export const REPORT_FORECAST_MIN_RATIO = 0.5;

/** Options of a report read from the store. */
export interface StoreReportOptions {
  /** The period ends at the latest succeeded scan started at or before this (default: `now`). */
  until?: Date;
  /** Period start (default: 7 days before the period end). */
  since?: Date;
  /** Limit to these accounts (default: all). */
  accounts?: readonly string[];
  /** Clock of waiver evaluation and forecasts (default: the current time). */
  now?: Date;
  /** Clock printed as "generated at" (default: `now`). */
  generatedAt?: Date;
  title?: string;
}

/**
 * Read everything a report needs from the store: the period's last succeeded scan (findings, coverage,
 * quota samples), the previous period's last succeeded scan (the diff base), the waivers with their
 * states, 12 weekly trend points (counts in SQL) and quota forecasts (libs/forecast over the stored
 * quota history of quotas at or above 50 % usage).
 * @throws StoreError UNAVAILABLE when PostgreSQL does not answer
 */
export async function loadReportInput(store: Store, opts: StoreReportOptions = {}): Promise<ReportInput> {
  const now = opts.now ?? new Date();
  const accounts = opts.accounts && opts.accounts.length > 0 ? [...opts.accounts] : undefined;
  const [last] = await store.scans.succeededBetween({ until: opts.until ?? now, limit: 1 });
  const end = last ? new Date(last.startedAt) : (opts.until ?? now);
  const start = opts.since ?? new Date(end.getTime() - REPORT_PERIOD_DAYS * DAY_MS);
  const endScan = last && new Date(last.startedAt).getTime() > start.getTime() ? last : undefined;
  const prev = await retainedScanAt(store, start);

  let current: ReportInput['current'] = null;
  let forecasts: QuotaForecastInput[] | null = null;
  if (endScan) {
    const scan = await store.scans.get(endScan.id);
    current = {
      scan: { id: endScan.id, startedAt: endScan.startedAt, fleetName: endScan.fleetName },
      findings: await store.findings.forScan(endScan.id, SYSTEM_PRINCIPAL),
      coverage: scan?.coverage ?? [],
      quotaUsage: await store.quotaUsage.highestForScan(endScan.id, SYSTEM_PRINCIPAL, REPORT_TOP_QUOTAS, accounts),
    };
  }
  const trend: Mutable<ReportInput['trend']> = [];
  for (let k = REPORT_TREND_WEEKS - 1; k >= 0; k--) {
    const weekEnding = new Date(end.getTime() - k * 7 * DAY_MS);
    const scan = await retainedScanAt(store, weekEnding, new Date(weekEnding.getTime() - 7 * DAY_MS + 1));
    trend.push({ weekEnding, scanId: scan?.id ?? null, counts: scan ? await store.findings.countsByCheckAndSeverity(scan.id, SYSTEM_PRINCIPAL, accounts) : null });
  }
  if (endScan) {
    // Every succeeded scan of the forecast window (libs/forecast DEFAULT_TREND_SETTINGS.windowDays), not only the weekly ones.
    const windowScans = await store.scans.succeededBetween({ from: new Date(end.getTime() - DEFAULT_TREND_SETTINGS.windowDays * DAY_MS), until: end, limit: REPORT_FORECAST_MAX_SCANS });
    const history = await store.quotaUsage.historyOfHighest(endScan.id, windowScans.map((s) => s.id), REPORT_FORECAST_MIN_RATIO);
    forecasts = forecastsOf(history, now);
  }
  // Applications in review now, and those filed or decided within the period (store order: newest first).
  const quotaApplications = (await store.quotaApplications.list({ ...(accounts ? { accountIds: accounts } : {}), limit: 500 }))
    .filter((a) => a.status === 'submitting' || a.status === 'Process' || Date.parse(a.updatedAt) >= start.getTime())
    .map((a) => ({
      accountId: a.accountId,
      regionId: a.regionId,
      productCode: a.productCode,
      quotaActionCode: a.quotaActionCode,
      applicationId: a.applicationId,
      status: a.status,
      desireValue: a.desireValue,
      approveValue: a.approveValue,
      reason: a.auditReason ?? a.error,
      requestedBy: a.requestedBy,
      createdAt: a.createdAt,
      updatedAt: a.updatedAt,
    }));
  return {
    ...(opts.title !== undefined ? { title: opts.title } : {}),
    period: { start, end },
    ...(accounts ? { accounts } : {}),
    quotaApplications,
    current,
    previous: prev ? { scan: { id: prev.id, startedAt: prev.startedAt }, findings: await store.findings.forScan(prev.id, SYSTEM_PRINCIPAL) } : null,
    waivers: await store.waiverService.listWithState(now),
    trend,
    forecasts,
    forecastNote: endScan
      ? `Forecasts: libs/forecast (Theil-Sen trend, p10 time to exhaustion) over the last ${DEFAULT_TREND_SETTINGS.windowDays} days of quota samples of quotas at or above ${REPORT_FORECAST_MIN_RATIO * 100} % usage.`
      : 'No scan in the period: no forecast.',
    asOf: now,
    generatedAt: opts.generatedAt ?? now,
  };
}

/**
 * The latest succeeded scan at or before `until` (and at or after `from`) that is the last succeeded scan of its UTC
 * day (UTC): the scan retention keeps for that day (libs/store planRetention). When the
 * latest scan at `until` has a later one the same day (hourly scans), the last scan of the day before is taken, so
 * the report reads the same scans whether or not retention has thinned the store; a scan that is alone on its day
 * (daily or weekly scans) is taken as before.
 */
export async function retainedScanAt(store: Store, until: Date, from?: Date): Promise<StoredScanListItem | undefined> {
  const range = from ? { from } : {};
  const [c] = await store.scans.succeededBetween({ ...range, until, limit: 1 });
  if (!c) return undefined;
  const dayStart = dayStartOf(new Date(c.startedAt).getTime());
  const lastMs = dayStart + DAY_MS - 1;
  if (lastMs <= until.getTime()) return c;
  const [later] = await store.scans.succeededBetween({ from: new Date(until.getTime() + 1), until: new Date(lastMs), limit: 1 });
  if (!later) return c;
  const [dayBefore] = await store.scans.succeededBetween({ ...range, until: new Date(dayStart - 1), limit: 1 });
  return dayBefore;
}

/** Group samples into series and forecast them (libs/forecast). */
export function forecastsOf(history: readonly (QuotaUsageSample & { at: number })[], now: Date): QuotaForecastInput[] {
  const series = new Map<string, QuotaSeries & { observations: { at: number; used: number; limit: number }[] }>();
  for (const s of history) {
    const key = [s.checkId, s.resource.accountId, s.resource.regionId, s.resource.kind, s.resource.id].join('\u0000');
    const entry = series.get(key) ?? {
      checkId: s.checkId,
      resource: { kind: s.resource.kind, id: s.resource.id, accountId: s.resource.accountId, regionId: s.resource.regionId, clusterId: s.resource.clusterId ?? null },
      observations: [],
    };
    entry.observations.push({ at: s.at, used: s.used, limit: s.limit });
    series.set(key, entry);
  }
  return forecastTrends([...series.values()], now.getTime()).map((t) => ({
    checkId: t.checkId,
    resource: { kind: t.resource.kind, id: t.resource.id, accountId: t.resource.accountId, regionId: t.resource.regionId, ...(t.resource.clusterId !== null ? { clusterId: t.resource.clusterId } : {}) },
    used: t.used,
    limit: t.limit,
    status: t.status,
    exhaustsAtP10: t.exhaustsAt.p10,
  }));
}

/** One offline scan: what `runScan` returns, reduced to what a report reads. */
export interface OfflineScan {
  scan: { id: string; startedAt: string; fleetName: string | null };
  findings: readonly Finding[];
  coverage: readonly CoverageEntry[];
  quotaUsage: readonly QuotaUsageSample[];
}

/**
 * Report input from one or two offline scans (no database): the diff of two fleet dumps, the waivers of a
 * file (stale = covered nothing in either scan), a trend of the weeks those scans fall in, no forecast.
 */
export function reportInputFromScans(opts: {
  current: OfflineScan;
  previous?: OfflineScan;
  waivers?: readonly Waiver[];
  accounts?: readonly string[];
  now: Date;
  generatedAt?: Date;
  title?: string;
}): ReportInput {
  const end = new Date(opts.current.scan.startedAt);
  const start = opts.previous ? new Date(Math.min(new Date(opts.previous.scan.startedAt).getTime(), end.getTime() - 1)) : new Date(end.getTime() - REPORT_PERIOD_DAYS * DAY_MS);
  const scans = [opts.current, ...(opts.previous ? [opts.previous] : [])];
  const waivers = opts.waivers ?? [];
  const matcher = new WaiverMatcher(waivers, opts.now);
  const matched = new Set(scans.flatMap((s) => [...matcher.matchedIds(s.findings)]));
  const trend: Mutable<ReportInput['trend']> = [];
  for (let k = REPORT_TREND_WEEKS - 1; k >= 0; k--) {
    const weekEnding = new Date(end.getTime() - k * 7 * DAY_MS);
    const inWeek = scans.find((s) => {
      const t = new Date(s.scan.startedAt).getTime();
      return t <= weekEnding.getTime() && t > weekEnding.getTime() - 7 * DAY_MS;
    });
    trend.push({ weekEnding, scanId: inWeek?.scan.id ?? null, counts: inWeek ? countsOf(inWeek.findings, opts.accounts) : null });
  }
  return {
    ...(opts.title !== undefined ? { title: opts.title } : {}),
    period: { start, end },
    ...(opts.accounts && opts.accounts.length > 0 ? { accounts: opts.accounts } : {}),
    current: opts.current,
    previous: opts.previous ? { scan: { id: opts.previous.scan.id, startedAt: opts.previous.scan.startedAt }, findings: opts.previous.findings } : null,
    waivers: waivers.map((w) => ({ ...w, state: waiverState(w, opts.now, scans.length >= 2 ? matched.has(w.id) : undefined) })),
    trend,
    forecasts: null,
    forecastNote: 'Offline report: forecasts need the stored quota history (use --database-url).',
    asOf: opts.now,
    generatedAt: opts.generatedAt ?? opts.now,
  };
}

function countsOf(findings: readonly Finding[], accounts?: readonly string[]): { checkId: string; severity: Severity; count: number }[] {
  const scope = accounts && accounts.length > 0 ? new Set(accounts) : null;
  const m = new Map<string, { checkId: string; severity: Severity; count: number }>();
  for (const f of findings) {
    if (scope && !scope.has(f.resource.accountId)) continue;
    const key = `${f.checkId}\u0000${f.severity}`;
    const e = m.get(key) ?? { checkId: f.checkId, severity: f.severity, count: 0 };
    e.count += 1;
    m.set(key, e);
  }
  return [...m.values()];
}
