/**
 * The quota plan over the store, shared by the CLI (`fleet-audit quota plan`) and the API (`GET /v1/quota-plan`,
 * GraphQL `quotaPlan`): the stored trend fits of the window ending at `now` (else the quota history, fitted), the
 * latest stored snapshot (limits, Quota Center's `Adjustable`), the planned scenarios run as what-ifs on it, and the
 * applications in review, into libs/forecast `planQuotas`.
 */
import { QUOTA_CENTER_QUOTA_OF_CHECK } from '@app/checks';
import {
  DEFAULT_TREND_SETTINGS,
  TheilSenScratch,
  fitTrendWindow,
  planQuotas,
  resolveTrendSettings,
  runWhatIf,
  type FittedSeries,
  type QuotaApplicationRef,
  type QuotaPlan,
  type QuotaPlanSettings,
  type Scenario,
} from '@app/forecast';
import type { Store } from '@app/store';
import { latestSnapshot } from './forecast-runner';

/** Options of `quotaPlanFromStore`. */
export interface QuotaPlanRequest {
  /** The plan's clock (default: now). */
  now?: Date;
  settings?: Partial<QuotaPlanSettings>;
  /** Planned changes, run as what-ifs on the latest stored snapshot. */
  scenarios?: readonly Scenario[];
  /** Only rows of these accounts (a scoped principal's). */
  accountIds?: readonly string[];
  /** Applications already filed (the stored ones; `quota request` adds those it lists from Quota Center). */
  applications?: readonly QuotaApplicationRef[];
}

/**
 * The quota plan of the stored fleet.
 * @throws ForecastUnavailableError when no scan with a snapshot is stored
 * @throws ScenarioError when a scenario names what the snapshot does not hold
 */
export async function quotaPlanFromStore(store: Store, request: QuotaPlanRequest = {}): Promise<{ scanId: string; plan: QuotaPlan }> {
  const s = await latestSnapshot(store);
  const now = request.now ?? new Date();
  const trend = resolveTrendSettings({});
  const since = new Date(now.getTime() - DEFAULT_TREND_SETTINGS.windowDays * 86_400_000);
  const scope = request.accountIds ? new Set(request.accountIds) : undefined;
  const wanted = (checkId: string, accountId: string) => QUOTA_CENTER_QUOTA_OF_CHECK.has(checkId) && (!scope || scope.has(accountId));
  const window = await store.quotaTrends.windowFor(since, now, trend.intervalCoverage);
  let series: FittedSeries[];
  if (window) {
    series = (await store.quotaTrends.fits(window.id, {})).filter((f) => wanted(f.checkId, f.resource.accountId));
  } else {
    const scratch = new TheilSenScratch();
    series = (await store.quotaUsage.history({ since, until: now }))
      .filter((h) => wanted(h.checkId, h.resource.accountId))
      .map((h) => ({ checkId: h.checkId, resource: h.resource, window: fitTrendWindow(h.observations, now.getTime(), trend, scratch) }));
  }
  const observedAt = new Date(s.observedAt);
  const scenarios = (request.scenarios ?? []).map((scenario) => ({ name: scenario.name, result: runWhatIf(s.snapshot, scenario, { now: observedAt }) }));
  const plan = planQuotas({
    snapshot: s.snapshot,
    series,
    now: now.getTime(),
    scenarios,
    ...(request.applications ? { applications: request.applications } : {}),
    ...(request.settings ? { settings: request.settings } : {}),
  });
  if (scope) plan.rows = plan.rows.filter((r) => scope.has(r.accountId));
  return { scanId: s.scanId, plan };
}
