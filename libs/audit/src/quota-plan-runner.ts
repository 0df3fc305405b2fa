/**
 * The quota plan over the store, shared by the CLI (`fleet-audit quota plan`) and the API (`GET /v1/quota-plan`,
 * GraphQL `quotaPlan`): the stored trend fits of the window ending at `now` (else the quota history, fitted), the
 * latest stored snapshot (limits, Quota Center's `Adjustable`), the planned scenarios run as what-ifs on it, and the
 * applications in review, into libs/forecast `planQuotas`.
 */
import { FleetIndex, QUOTA_CENTER_QUOTA_OF_CHECK } from '@app/checks';
import type { FleetSnapshot } from '@app/domain';
import {
  DEFAULT_TREND_SETTINGS,
  parseScenario,
  TheilSenScratch,
  fitTrendWindow,
  planQuotas,
  resolveTrendSettings,
  runWhatIf,
  type FittedSeries,
  type QuotaApplicationRef,
  type QuotaPlan,
  type QuotaPlanRow,
  type QuotaPlanSettings,
  type QuotaRemediation,
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
  /**
   * Applications already filed (the stored ones): their quotas are `pending`, not requested again. Or a function of
   * the time the latest scan was stored (its `finishedAt`, ISO 8601, the real clock even for a backfilled scan), for
   * callers that treat an application approved after that scan as pending too (its new limit is not read yet).
   */
  applications?: readonly QuotaApplicationRef[] | ((scanFinishedAt: string) => readonly QuotaApplicationRef[]);
}

/** When the scan was stored (its `finishedAt`; the epoch when unknown, so every later approval counts). */
async function scanFinishedAt(store: Store, scanId: string): Promise<string> {
  return (await store.scans.get(scanId))?.finishedAt ?? new Date(0).toISOString();
}

/**
 * The quota plan of the stored fleet, with the snapshot it was made from (callers narrowing it by cluster owner read
 * that one instead of loading the snapshot again).
 * @throws ForecastUnavailableError when no scan with a snapshot is stored
 * @throws ScenarioError when a scenario names what the snapshot does not hold
 */
export async function quotaPlanFromStore(store: Store, request: QuotaPlanRequest = {}): Promise<{ scanId: string; observedAt: string; plan: QuotaPlan; snapshot: FleetSnapshot }> {
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
    remediationSize: (row) => localModeRemediation(s.snapshot, row, observedAt),
    snapshot: s.snapshot,
    series,
    now: now.getTime(),
    scenarios,
    ...(request.applications
      ? { applications: typeof request.applications === 'function' ? request.applications(await scanFinishedAt(store, s.scanId)) : request.applications }
      : {}),
    ...(request.settings ? { settings: request.settings } : {}),
  });
  if (scope) plan.rows = plan.rows.filter((r) => scope.has(r.accountId));
  return { scanId: s.scanId, observedAt: new Date(s.observedAt).toISOString(), plan, snapshot: s.snapshot };
}

/**
 * The room `externalTrafficPolicy: Local` frees on a CLB whose backend quota cannot be raised: a what-if that sets
 * Local on every Cluster-mode Service of the CLB that reaches the quota first (CCM then attaches only the nodes running
 * their pods: seed 002 "The CLB instance has reached the 200-backend-server quota limit", remedy 2), and the backends
 * it removes from that CLB. Only for `CLB_BACKEND_QUOTA` rows; undefined otherwise (the plan's own remediation text).
 */
export function localModeRemediation(snapshot: FleetSnapshot, row: QuotaPlanRow, now: Date): QuotaRemediation | undefined {
  const lb = row.firstToReach?.resource;
  if (row.checkId !== 'CLB_BACKEND_QUOTA' || !lb) return undefined;
  const services = (FleetIndex.build(snapshot).servicesByClb().get(lb.id) ?? []).filter((e) => e.service.externalTrafficPolicy !== 'Local');
  const byCluster = new Map<string, string[]>();
  for (const e of services) byCluster.set(e.cluster.cluster.clusterId, [...(byCluster.get(e.cluster.cluster.clusterId) ?? []), `${e.service.namespace}/${e.service.name}`]);
  if (byCluster.size === 0) return undefined;
  const scenario = parseScenario({
    apiVersion: 'fleet-audit/v1',
    kind: 'Scenario',
    name: `local-mode-${lb.id}`,
    steps: [...byCluster].map(([cluster, names]) => ({ setTrafficPolicy: { cluster, services: names, policy: 'Local' } })),
  });
  let freed = 0;
  for (const step of runWhatIf(snapshot, scenario, { now }).steps)
    for (const q of step.quotas) if (q.checkId === 'CLB_BACKEND_QUOTA' && q.resource.id === lb.id) freed += q.before.used - q.after.used;
  return {
    text: `set externalTrafficPolicy: Local on the ${services.length} Cluster-mode Service(s) of ${lb.id} (${[...byCluster.values()].flat().slice(0, 3).join(', ')}${services.length > 3 ? ', ...' : ''}): only the nodes running their pods stay backends`,
    size: freed,
  };
}
