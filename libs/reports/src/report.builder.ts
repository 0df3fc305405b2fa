/**
 * Builds the report document from its inputs (pure: no I/O, the clocks are passed in), so the store, the
 * offline CLI (`report --fleet DIR --previous DIR`) and the benchmark share one path. Same inputs and
 * clocks -> the same document; every list is sorted by a total order.
 */
import {
  SEVERITIES,
  WaiverMatcher,
  severityRank,
  type CoverageEntry,
  type Finding,
  type QuotaUsageSample,
  type Severity,
  type Waiver,
  type WaiverState,
} from '@app/domain';
import {
  REPORT_SCHEMA,
  REPORT_SCHEMA_VERSION,
  type OpenWaived,
  type ReportDocument,
  type ReportFinding,
  type ReportQuota,
  type ReportQuotaApplication,
  type ReportTrendPoint,
  type ReportWaiver,
} from './report.model';

/** Days a report period spans by default. */
export const REPORT_PERIOD_DAYS = 7;
/** Weeks of the trend. */
export const REPORT_TREND_WEEKS = 12;
/** Quotas listed per ranking. */
export const REPORT_TOP_QUOTAS = 10;

/** A forecast of one quota series (from libs/forecast, mapped by the source). */
export interface QuotaForecastInput {
  checkId: string;
  resource: QuotaUsageSample['resource'];
  used: number;
  limit: number;
  status: string;
  /** p10 exhaustion time (ISO 8601), null when none. */
  exhaustsAtP10: string | null;
}

/** Everything a report is built from. Findings, coverage and quotas may span more accounts than the scope. */
export interface ReportInput {
  title?: string;
  period: { start: Date; end: Date };
  /** Limit to these account UIDs; absent or empty: all. */
  accounts?: readonly string[];
  /** The teams of a team's rendition (the inputs are already limited to them: report-team.ts); absent otherwise. */
  teams?: readonly string[];
  current: {
    scan: { id: string; startedAt: string; fleetName: string | null };
    findings: readonly Finding[];
    coverage: readonly CoverageEntry[];
    /**
     * The scan's quota samples, or those of highest use among them: the report lists the REPORT_TOP_QUOTAS highest
     * within its accounts, so the samples it needs are those, with any tied with the last (the store reads only
     * these: QuotaUsageRepository.highestForScan).
     */
    quotaUsage: readonly QuotaUsageSample[];
  } | null;
  previous: { scan: { id: string; startedAt: string }; findings: readonly Finding[] } | null;
  /** Waivers with their state at `asOf` (revoked ones are ignored). */
  waivers: readonly (Waiver & { state: WaiverState })[];
  /** One entry per week, oldest first, counts per (check, severity) already limited to the scope. */
  trend: readonly { weekEnding: Date; scanId: string | null; counts: readonly { checkId: string; severity: Severity; count: number }[] | null }[];
  /** Quota forecasts; null when forecasting is not available (the note says why). */
  forecasts: readonly QuotaForecastInput[] | null;
  forecastNote: string;
  /** Quota Center applications (report.model.ts `quotaApplications`); absent: the document has none. */
  quotaApplications?: readonly ReportQuotaApplication[];
  /** Clock of waiver evaluation. */
  asOf: Date;
  /** Clock printed as "generated at". */
  generatedAt: Date;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function byFindingOrder(a: ReportFinding, b: ReportFinding): number {
  return (
    severityRank(b.severity) - severityRank(a.severity) ||
    cmp(a.checkId, b.checkId) ||
    cmp(a.resource.accountId, b.resource.accountId) ||
    cmp(a.resource.regionId, b.resource.regionId) ||
    cmp(a.resource.clusterId ?? '', b.resource.clusterId ?? '') ||
    cmp(a.resource.id, b.resource.id) ||
    cmp(a.fingerprint, b.fingerprint)
  );
}

const emptyOpenWaived = (): OpenWaived => ({ total: 0, open: 0, waived: 0 });

function add(o: OpenWaived, waived: boolean): void {
  o.total += 1;
  if (waived) o.waived += 1;
  else o.open += 1;
}

/**
 * Build the document.
 * @returns the report; with no current scan, every list is empty and `scan` is null
 */
export function buildReport(input: ReportInput): ReportDocument {
  const scope = input.accounts && input.accounts.length > 0 ? new Set(input.accounts) : null;
  const inScope = (accountId: string) => scope === null || scope.has(accountId);
  const liveWaivers = input.waivers.filter((w) => w.state !== 'revoked' && inScope(w.accountId));
  const matcher = new WaiverMatcher(liveWaivers, input.asOf);

  const current = (input.current?.findings ?? []).filter((f) => inScope(f.resource.accountId));
  const previous = new Map<string, Finding>();
  for (const f of input.previous?.findings ?? []) if (inScope(f.resource.accountId)) previous.set(f.fingerprint, f);

  const toReport = (f: Finding, status: ReportFinding['status'], prev: Finding | undefined): ReportFinding => {
    const w = status === 'resolved' ? { status: 'open' as const } : matcher.statusOf(f.checkId, f.resource);
    return {
      fingerprint: f.fingerprint,
      checkId: f.checkId,
      severity: f.severity,
      resource: {
        kind: f.resource.kind,
        id: f.resource.id,
        accountId: f.resource.accountId,
        regionId: f.resource.regionId,
        clusterId: f.resource.clusterId ?? null,
        clusterName: f.resource.clusterName ?? null,
      },
      message: f.message,
      remediation: f.remediation,
      status,
      previousSeverity: prev ? prev.severity : null,
      waiverExpired: w.status === 'waiver-expired',
      waiver: w.waiver ? { id: w.waiver.id, owner: w.waiver.owner, category: w.waiver.category, expiresAt: w.waiver.expiresAt } : null,
    };
  };

  const lists = { new: [] as ReportFinding[], persisting: [] as ReportFinding[], waived: [] as ReportFinding[], resolved: [] as ReportFinding[], severityChanged: [] as ReportFinding[] };
  const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, emptyOpenWaived()])) as Record<Severity, OpenWaived>;
  const byCheck = new Map<string, OpenWaived & Record<Severity, number>>();
  const byAccount = new Map<string, OpenWaived>();
  const byCluster = new Map<string, OpenWaived & { accountId: string; clusterId: string; clusterName: string | null }>();
  const byOwner = new Map<string, { waived: number; waiverExpired: number; waivers: Set<string> }>();
  const matchedPerWaiver = new Map<string, number>();
  let waiverExpired = 0;
  const seen = new Set<string>();

  for (const f of current) {
    if (seen.has(f.fingerprint)) continue;
    seen.add(f.fingerprint);
    const prev = previous.get(f.fingerprint);
    const w = matcher.statusOf(f.checkId, f.resource);
    const waived = w.status === 'waived';
    const status: ReportFinding['status'] = waived ? 'waived' : prev ? 'persisting' : 'new';
    const rf = toReport(f, status, prev);
    lists[status].push(rf);
    if (prev && prev.severity !== f.severity) lists.severityChanged.push(rf);
    if (w.waiver) {
      matchedPerWaiver.set(w.waiver.id, (matchedPerWaiver.get(w.waiver.id) ?? 0) + 1);
      const o = byOwner.get(w.waiver.owner) ?? { waived: 0, waiverExpired: 0, waivers: new Set<string>() };
      o.waivers.add(w.waiver.id);
      if (waived) o.waived += 1;
      else {
        o.waiverExpired += 1;
        waiverExpired += 1;
      }
      byOwner.set(w.waiver.owner, o);
    }
    add(bySeverity[f.severity], waived);
    const c = byCheck.get(f.checkId) ?? { ...emptyOpenWaived(), info: 0, warning: 0, critical: 0 };
    add(c, waived);
    c[f.severity] += 1;
    byCheck.set(f.checkId, c);
    const a = byAccount.get(f.resource.accountId) ?? emptyOpenWaived();
    add(a, waived);
    byAccount.set(f.resource.accountId, a);
    if (f.resource.clusterId) {
      const key = `${f.resource.accountId}\u0000${f.resource.clusterId}`;
      const cl = byCluster.get(key) ?? { ...emptyOpenWaived(), accountId: f.resource.accountId, clusterId: f.resource.clusterId, clusterName: null };
      cl.clusterName ??= f.resource.clusterName ?? null;
      add(cl, waived);
      byCluster.set(key, cl);
    }
  }
  for (const [fp, f] of previous) if (!seen.has(fp)) lists.resolved.push(toReport(f, 'resolved', f));
  for (const l of Object.values(lists)) l.sort(byFindingOrder);

  const reportWaiver = (w: Waiver & { state: WaiverState }): ReportWaiver => ({
    id: w.id,
    state: w.state,
    checkId: w.checkId,
    scope: [w.accountId, w.regionId, w.clusterId].filter((x) => x !== undefined).join('/'),
    resource: w.resource,
    owner: w.owner,
    category: w.category,
    ticket: w.ticket ?? null,
    expiresAt: w.expiresAt,
    matched: matchedPerWaiver.get(w.id) ?? 0,
  });
  const waiverLists = { active: [] as ReportWaiver[], expiring: [] as ReportWaiver[], expired: [] as ReportWaiver[], stale: [] as ReportWaiver[] };
  for (const w of liveWaivers) if (w.state !== 'revoked') waiverLists[w.state].push(reportWaiver(w));
  for (const l of Object.values(waiverLists)) l.sort((a, b) => cmp(a.expiresAt, b.expiresAt) || cmp(a.id, b.id));

  const quotaRow = (q: { checkId: string; resource: QuotaUsageSample['resource']; used: number; limit: number }, fc: QuotaForecastInput | undefined): ReportQuota => ({
    checkId: q.checkId,
    resource: { kind: q.resource.kind, id: q.resource.id, accountId: q.resource.accountId, regionId: q.resource.regionId, clusterId: q.resource.clusterId ?? null },
    used: q.used,
    limit: q.limit,
    ratio: q.limit > 0 ? Math.round((q.used / q.limit) * 10_000) / 10_000 : 0,
    forecastStatus: fc?.status ?? null,
    exhaustsAtP10: fc?.exhaustsAtP10 ?? null,
  });
  const quotaKey = (q: { checkId: string; resource: QuotaUsageSample['resource'] }) =>
    [q.checkId, q.resource.accountId, q.resource.regionId, q.resource.kind, q.resource.id].join('\u0000');
  const forecasts = (input.forecasts ?? []).filter((f) => inScope(f.resource.accountId));
  const forecastByKey = new Map(forecasts.map((f) => [quotaKey(f), f]));
  const byUsage = (input.current?.quotaUsage ?? [])
    .filter((q) => inScope(q.resource.accountId))
    .slice()
    .sort((a, b) => b.ratio - a.ratio || cmp(quotaKey(a), quotaKey(b)))
    .slice(0, REPORT_TOP_QUOTAS)
    .map((q) => quotaRow(q, forecastByKey.get(quotaKey(q))));
  const byExhaustion = forecasts
    .filter((f) => f.exhaustsAtP10 !== null)
    .slice()
    .sort((a, b) => cmp(a.exhaustsAtP10 as string, b.exhaustsAtP10 as string) || cmp(quotaKey(a), quotaKey(b)))
    .slice(0, REPORT_TOP_QUOTAS)
    .map((f) => quotaRow(f, f));

  const coverage = (input.current?.coverage ?? []).filter((c) => inScope(c.accountId));
  const datasets = { ok: 0, absent: 0, failed: 0 };
  for (const c of coverage) datasets[c.status] += 1;
  const failed = coverage
    .filter((c) => c.status === 'failed')
    .map((c) => ({ accountId: c.accountId, regionId: c.regionId ?? null, clusterId: c.clusterId ?? null, api: c.api, errorCode: c.errorCode ?? null, message: c.message ?? null }))
    .sort((a, b) => cmp(a.accountId, b.accountId) || cmp(a.regionId ?? '', b.regionId ?? '') || cmp(a.clusterId ?? '', b.clusterId ?? '') || cmp(a.api, b.api));

  const trend: ReportTrendPoint[] = input.trend.map((t) => {
    if (t.counts === null) return { weekEnding: t.weekEnding.toISOString(), scanId: t.scanId, bySeverity: null, byCheck: null };
    const sev = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
    const chk = new Map<string, number>();
    for (const c of t.counts) {
      sev[c.severity] += c.count;
      chk.set(c.checkId, (chk.get(c.checkId) ?? 0) + c.count);
    }
    return { weekEnding: t.weekEnding.toISOString(), scanId: t.scanId, bySeverity: sev, byCheck: Object.fromEntries([...chk].sort(([a], [b]) => cmp(a, b))) };
  });

  const total = seen.size;
  const waivedCount = lists.waived.length;
  return {
    schema: REPORT_SCHEMA,
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: input.generatedAt.toISOString(),
    asOf: input.asOf.toISOString(),
    title: input.title ?? 'Weekly LoadBalancer compliance report',
    period: { start: input.period.start.toISOString(), end: input.period.end.toISOString() },
    scope: { accounts: scope === null ? 'all' : [...scope].sort(), ...(input.teams && input.teams.length > 0 ? { teams: [...input.teams].sort() } : {}) },
    scan: input.current ? { id: input.current.scan.id, startedAt: input.current.scan.startedAt, fleetName: input.current.scan.fleetName } : null,
    previousScan: input.previous ? { id: input.previous.scan.id, startedAt: input.previous.scan.startedAt } : null,
    summary: {
      findings: total,
      open: total - waivedCount,
      waived: waivedCount,
      waiverExpired,
      bySeverity,
      byCheck: [...byCheck].map(([checkId, c]) => ({ checkId, ...c })).sort((a, b) => b.open - a.open || b.total - a.total || cmp(a.checkId, b.checkId)),
      byAccount: [...byAccount].map(([accountId, c]) => ({ accountId, ...c })).sort((a, b) => b.open - a.open || b.total - a.total || cmp(a.accountId, b.accountId)),
      byCluster: [...byCluster.values()].sort((a, b) => b.open - a.open || b.total - a.total || cmp(a.accountId, b.accountId) || cmp(a.clusterId, b.clusterId)),
      byOwner: [...byOwner]
        .map(([owner, o]) => ({ owner, waived: o.waived, waiverExpired: o.waiverExpired, waivers: o.waivers.size }))
        .sort((a, b) => b.waived + b.waiverExpired - (a.waived + a.waiverExpired) || cmp(a.owner, b.owner)),
      changes: {
        new: lists.new.length,
        resolved: lists.resolved.length,
        persisting: lists.persisting.length,
        severityChanged: lists.severityChanged.length,
        waived: waivedCount,
        waiverExpired,
      },
    },
    new: lists.new,
    resolved: lists.resolved,
    persisting: lists.persisting,
    severityChanged: lists.severityChanged,
    waived: lists.waived,
    waivers: waiverLists,
    quotas: {
      byUsage,
      byExhaustion,
      forecast: { available: input.forecasts !== null, note: input.forecastNote },
    },
    coverage: { complete: datasets.failed === 0, datasets, failed },
    trend,
    ...(input.quotaApplications ? { quotaApplications: applicationsInScope(input.quotaApplications, input.accounts) } : {}),
  };
}

const OPEN_APPLICATION = new Set(['submitting', 'Process']);

/** The applications of the scope's accounts: open ones first, then newest first. */
function applicationsInScope(apps: readonly ReportQuotaApplication[], accounts: readonly string[] | undefined): ReportQuotaApplication[] {
  const scope = accounts && accounts.length > 0 ? new Set(accounts) : undefined;
  return apps
    .filter((a) => !scope || scope.has(a.accountId))
    .map((a) => ({ ...a }))
    .sort((a, b) => Number(OPEN_APPLICATION.has(b.status)) - Number(OPEN_APPLICATION.has(a.status)) || cmp(b.updatedAt, a.updatedAt) || cmp(a.quotaActionCode, b.quotaActionCode));
}
