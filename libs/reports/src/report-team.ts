/**
 * A team's rendition of a stored report: the same report (its period, scans, clocks and title) rebuilt from the
 * stored data read with a team-scoped principal, so it holds only the findings of that team's clusters, the quotas
 * they draw on, their coverage and the waivers that may cover them (libs/store team-scope.util.ts, the rule every API
 * read applies). What a team-scoped token reads as the report (REST `GET /v1/reports/{id}`), and what per-team chat
 * messages count (chat-delivery.ts), so both say the same numbers: open findings after waivers, waived ones apart.
 */
import { DEFAULT_TREND_SETTINGS } from '@app/forecast';
import { DAY_MS, type Finding } from '@app/domain';
import type { Scoped, Store } from '@app/store';
import { ScanPrunedError, StoreError } from '@app/store/model';
import { buildReport, REPORT_TOP_QUOTAS, type ReportInput } from './report.builder';
import type { ReportDocument } from './report.model';
import { forecastsOf, REPORT_FORECAST_MAX_SCANS, REPORT_FORECAST_MIN_RATIO } from './report.source';

/**
 * The rendition of `doc` (a stored report document) for a team-scoped principal.
 * @param store the store the report was built from
 * @param doc the stored document (its scan and previous scan must still be stored)
 * @param scope the principal: its accounts and its teams (`teamScope`, required)
 * @returns a document of the same shape, `scope.teams` set and `scope.accounts` the report's accounts within the
 *   principal's
 * @throws StoreError INVALID_ARGUMENT without a team scope; SCAN_PRUNED / NOT_FOUND when retention removed the
 *   report's scans (the findings are gone, so no rendition can be built)
 */
export async function teamReportDocument(store: Store, doc: ReportDocument, scope: Scoped): Promise<ReportDocument> {
  if (scope.teamScope === undefined) throw new StoreError('INVALID_ARGUMENT', 'a team rendition needs a team-scoped principal');
  // The report's accounts within the principal's (a team token may read a report of more accounts than its own).
  const own = scope.accountScope.all ? undefined : new Set(scope.accountScope.accountIds);
  const accounts = doc.scope.accounts === 'all' ? (own ? [...own].sort() : undefined) : own ? doc.scope.accounts.filter((a) => own.has(a)) : doc.scope.accounts;
  const asOf = new Date(doc.asOf);
  let current: ReportInput['current'] = null;
  let forecasts: ReportInput['forecasts'] = null;
  if (doc.scan) {
    const scan = await store.scans.getScoped(doc.scan.id, scope);
    if (!scan) throw new StoreError('NOT_FOUND', `the report's scan ${doc.scan.id} is no longer stored: its team rendition cannot be built`);
    const quotaUsage = await store.quotaUsage.highestForScan(doc.scan.id, scope, REPORT_TOP_QUOTAS, accounts?.length ? accounts : undefined);
    current = { scan: doc.scan, findings: await store.findings.forScan(doc.scan.id, scope), coverage: scan.coverage ?? [], quotaUsage };
    // Forecasts of the quotas the team sees in the report's scan, over the same window as the stored report's.
    const end = new Date(doc.period.end);
    const windowScans = await store.scans.succeededBetween({ from: new Date(end.getTime() - DEFAULT_TREND_SETTINGS.windowDays * DAY_MS), until: end, limit: REPORT_FORECAST_MAX_SCANS });
    const history = await store.quotaUsage.historyOfHighest(doc.scan.id, windowScans.map((s) => s.id), REPORT_FORECAST_MIN_RATIO, scope);
    forecasts = forecastsOf(history, asOf);
  }
  const previous: Finding[] = doc.previousScan ? await store.findings.forScan(doc.previousScan.id, scope) : [];
  const trend: { weekEnding: Date; scanId: string | null; counts: Awaited<ReturnType<typeof countsOrNull>> }[] = [];
  for (const t of doc.trend) {
    trend.push({ weekEnding: new Date(t.weekEnding), scanId: t.scanId, counts: t.scanId === null ? null : await countsOrNull(store, t.scanId, scope, accounts) });
  }
  return buildReport({
    title: doc.title,
    period: { start: new Date(doc.period.start), end: new Date(doc.period.end) },
    ...(accounts ? { accounts } : {}),
    teams: scope.teamScope,
    current,
    previous: doc.previousScan ? { scan: doc.previousScan, findings: previous } : null,
    waivers: await store.waiverService.listWithState(asOf, { scope }),
    trend,
    forecasts,
    forecastNote: doc.quotas.forecast.note,
    asOf,
    generatedAt: new Date(doc.generatedAt),
  });
}

/** A trend point's counts, or null when retention removed that week's scan (the point then says "no data"). */
async function countsOrNull(store: Store, scanId: string, scope: Scoped, accounts: readonly string[] | undefined) {
  try {
    return await store.findings.countsByCheckAndSeverity(scanId, scope, accounts);
  } catch (e) {
    if ((e instanceof StoreError && e.code === 'NOT_FOUND') || e instanceof ScanPrunedError) return null;
    throw e;
  }
}
