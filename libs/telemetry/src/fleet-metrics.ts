/**
 * Prometheus metrics of the fleet audit (docs/architecture.md "The one data flow": analyze -> metrics): what
 * the latest succeeded scan found, how much of each quota is used, what could not be read, and whether
 * scans keep succeeding. Rendered from stored scan data at scrape time (any API replica answers the
 * same), on a fresh prom-client Registry per scrape, so series of resources that left the fleet vanish.
 *
 * Names follow Prometheus conventions (`fleet_audit_` prefix, `_seconds` / `_timestamp_seconds` units,
 * ratios as 0..1). Labels use the check ids of checks.md, a public contract. The alert rules in
 * `deploy/prometheus/fleet-audit.rules.yml` are written against these names.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { CoverageEntry, QuotaUsageSample, Severity } from '@app/domain';

/** Names of every metric `renderFleetMetrics` can export (the alert rules test reads this list). */
export const FLEET_METRIC_NAMES = [
  'fleet_audit_last_successful_scan_timestamp_seconds',
  'fleet_audit_last_scan_duration_seconds',
  'fleet_audit_last_scan_failed',
  'fleet_audit_findings',
  'fleet_audit_cluster_findings',
  'fleet_audit_check_results',
  'fleet_audit_coverage_datasets',
  'fleet_audit_coverage_failed',
  'fleet_audit_quota_used',
  'fleet_audit_quota_limit',
  'fleet_audit_quota_usage_ratio',
  'fleet_audit_quota_max_usage_ratio',
  'fleet_audit_quota_resources',
  'fleet_audit_quota_exhaustion_seconds',
  'fleet_audit_findings_waived',
  'fleet_audit_waivers',
  'fleet_audit_reports',
  'fleet_audit_report_deliveries_failed',
  'fleet_audit_last_report_timestamp_seconds',
  'fleet_audit_quota_applications',
  'fleet_audit_database_size_bytes',
  'fleet_audit_retention_removed_rows_total',
  'fleet_audit_retention_scans_removed_total',
  'fleet_audit_retention_last_run_timestamp_seconds',
] as const;

/** The data a scrape renders (read from the store by the caller). */
export interface FleetMetricsInput {
  /** The latest succeeded scan, or null when none has succeeded yet (only the scan gauges are set). */
  latest: {
    startedAt: string;
    finishedAt: string | null;
    /**
     * Processing time of the scan, seconds (store `processingSeconds`); null: unknown. Exported as
     * `fleet_audit_last_scan_duration_seconds`; never `finishedAt - startedAt`, which for a backfilled scan
     * (`scan --now` in the past) is the time since its observation.
     */
    processingSeconds?: number | null;
    /** Findings per (check id, severity) (counts), waived ones included. */
    findings: ReadonlyArray<{ checkId: string; severity: Severity; count: number }>;
    /**
     * Of those, the findings an active waiver covers at scrape time, per (check id, severity) (counts).
     * `fleet_audit_findings` exports findings minus waived ones (what alerts fire on); default none.
     */
    waived?: ReadonlyArray<{ checkId: string; severity: Severity; count: number }>;
    /**
     * Findings per cluster, team and severity (counts, waived ones included): `fleet_audit_cluster_findings`, the
     * series alerts route by team on. At most MAX_CLUSTER_FINDING_SERIES series are exported (the largest counts);
     * the rest are summed into `cluster_id="(other)"` per severity. Default: none.
     */
    clusterFindings?: ReadonlyArray<{ accountId: string; clusterId: string; clusterName: string | null; team: string | null; severity: Severity; count: number }>;
    /** Evaluated (check, resource) pairs per check id and status (counts). */
    byCheckStatus: Readonly<Record<string, { pass: number; fail: number; skipped: number }>>;
    coverage: readonly CoverageEntry[];
    /** Quota samples of the scan (the per-resource gauges keep those at or above `quotaMinRatio`). */
    quotaUsage: readonly QuotaUsageSample[];
    /**
     * Per check: resources measured and the highest ratio, over ALL samples (when the caller loaded only
     * those above the floor). Default: computed from `quotaUsage`.
     */
    quotaStats?: ReadonlyArray<{ checkId: string; resources: number; maxRatio: number }>;
    /**
     * Quota trend forecasts (libs/forecast `forecastTrends` over the stored history): seconds from the scrape
     * until the quota runs out, p10 / p50 / p90 (null = no answer). Only series with a forecast are exported.
     */
    exhaustion?: ReadonlyArray<{
      checkId: string;
      resource: { kind: string; id: string; accountId: string; regionId: string; clusterId?: string | null; team?: string | null };
      secondsToExhaustion: { p10: number | null; p50: number | null; p90: number | null };
    }>;
  } | null;
  /** Unrevoked waivers per state (counts) at scrape time; absent: not exported. */
  waivers?: Readonly<Record<'active' | 'expiring' | 'expired' | 'stale', number>>;
  /** Stored weekly reports: counts per delivery status, and when the latest was built (ISO 8601); absent: not exported. */
  reports?: { byDelivery: Readonly<Record<string, number>>; latestCreatedAt: string | null };
  /**
   * The store's size and what retention removed (README "Retention"); absent: not exported. `removed` are the
   * cumulative counters of migration 1798900000000's `retention_removed` (table names, and `run:*` kinds).
   */
  storage?: { databaseBytes: number; removed: ReadonlyArray<{ kind: string; removed: number }>; lastRunAt: string | null };
  /**
   * Stored Quota Center applications by status (`quota request --apply`; libs/store QuotaApplicationRepository
   * `countsByStatus`): every status of QUOTA_APPLICATION_STATUSES is exported, 0 when none (at most 6 series).
   */
  quotaApplications?: Readonly<Record<string, number>>;
  /** The most recently started scan that ended (succeeded or failed), or null. */
  lastFinished: { status: 'succeeded' | 'failed'; startedAt: string; finishedAt: string | null } | null;
  /**
   * Per-resource quota gauges only for samples at or above this ratio (0..1, default 0.5): a fleet of
   * 50,000 ECS instances must not become 150,000 series; per-check maxima and counts cover the rest.
   */
  quotaMinRatio?: number;
}

/**
 * Bound of `fleet_audit_cluster_findings` series: clusters with findings x severities (at most 3), so 1,000 clusters
 * with findings of every severity; beyond it the smallest counts are summed into one `(other)` series per severity.
 * Labels: account_id, cluster_id, cluster_name (one per cluster), team (one per cluster, TEAM_NAME-bounded), severity.
 */
export const MAX_CLUSTER_FINDING_SERIES = 3000;

/** Default export floor of the per-resource quota gauges (usage ratio 0..1). */
export const DEFAULT_QUOTA_MIN_RATIO = 0.5;

/** Content type of the Prometheus text exposition format. */
export const METRICS_CONTENT_TYPE = new Registry().contentType;

const seconds = (iso: string) => Date.parse(iso) / 1000;

/**
 * Render the metrics in the Prometheus text format.
 * @returns the exposition text (ends with a newline)
 */
export async function renderFleetMetrics(input: FleetMetricsInput): Promise<string> {
  const registry = new Registry();
  const gauge = <L extends string>(name: (typeof FLEET_METRIC_NAMES)[number], help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers: [registry] });

  const lastSuccess = gauge('fleet_audit_last_successful_scan_timestamp_seconds', 'Start time of the latest succeeded scan (Unix seconds; 0 when none succeeded yet); its findings are the ones exported.');
  const duration = gauge('fleet_audit_last_scan_duration_seconds', 'Processing time of the latest succeeded scan (seconds, wall clock; 0 when unknown).');
  const failed = gauge('fleet_audit_last_scan_failed', '1 when the most recently started finished scan failed, else 0.');
  const findings = gauge('fleet_audit_findings', 'Findings of the latest succeeded scan per check and severity (count).', ['check_id', 'severity']);
  const clusterFindings = gauge(
    'fleet_audit_cluster_findings',
    `Findings of the latest succeeded scan per cluster and severity, with the cluster's team (count; waived ones included; at most ${MAX_CLUSTER_FINDING_SERIES} series, the rest summed into cluster_id="(other)").`,
    ['account_id', 'cluster_id', 'cluster_name', 'team', 'severity'],
  );
  const results = gauge('fleet_audit_check_results', 'Evaluated (check, resource) pairs of the latest succeeded scan per check and status (count).', ['check_id', 'status']);
  const datasets = gauge('fleet_audit_coverage_datasets', 'Datasets of the latest succeeded scan by read status (count): ok, absent, failed.', ['status']);
  const gap = gauge('fleet_audit_coverage_failed', 'A dataset the latest succeeded scan could not read (1 per target and API); no claim is made about it.', ['account_id', 'region_id', 'cluster_id', 'dataset', 'error_code']);
  // `team`: the team of the resource's cluster ('' outside a cluster or unowned): one value per resource, no new series.
  const quotaLabels = ['check_id', 'resource_kind', 'resource_id', 'account_id', 'region_id', 'cluster_id', 'team'] as const;
  const used = gauge('fleet_audit_quota_used', 'Quota units in use (count), per check and resource, at or above the export floor.', quotaLabels);
  const limit = gauge('fleet_audit_quota_limit', 'Effective quota (count: Quota Center value, else the documented default), per check and resource.', quotaLabels);
  const ratio = gauge('fleet_audit_quota_usage_ratio', 'Quota used / quota (0..1), per check and resource, at or above the export floor.', quotaLabels);
  const maxRatio = gauge('fleet_audit_quota_max_usage_ratio', 'Highest quota usage ratio (0..1) over all resources of a check.', ['check_id']);
  const exhaustion = gauge(
    'fleet_audit_quota_exhaustion_seconds',
    'Forecast seconds until the quota runs out at the current pace (Theil-Sen trend of the stored scans; quantile 0.1 = early, 0.5, 0.9 = late), per check and resource with a forecast; `fleet-audit forecast trends`.',
    ['quantile', ...quotaLabels],
  );
  const sampled = gauge('fleet_audit_quota_resources', 'Resources with a quota measurement per check (count).', ['check_id']);
  const waivedFindings = gauge('fleet_audit_findings_waived', 'Findings of the latest succeeded scan covered by an active waiver at scrape time, per check and severity (count); not in fleet_audit_findings.', ['check_id', 'severity']);
  const waivers = gauge('fleet_audit_waivers', 'Unrevoked waivers by state (count): active, expiring (within 14 days), expired, stale (matched nothing in the last 2 scans).', ['state']);
  const reports = gauge('fleet_audit_reports', 'Stored weekly reports by webhook delivery status (count): none, pending, delivered, failed.', ['delivery']);
  const deliveriesFailed = gauge('fleet_audit_report_deliveries_failed', 'Stored weekly reports whose webhook delivery failed after every retry (count).');
  const lastReport = gauge('fleet_audit_last_report_timestamp_seconds', 'When the latest weekly report was built (Unix seconds; 0 when none).');
  const applications = gauge(
    'fleet_audit_quota_applications',
    'Quota Center applications filed by `fleet-audit quota request --apply`, by status (count): submitting, Process (in review), Agree, Disagree, Cancel, failed (the call was refused).',
    ['status'],
  );

  if (input.lastFinished) failed.set(input.lastFinished.status === 'failed' ? 1 : 0);
  const l = input.latest;
  if (l) {
    lastSuccess.set(seconds(l.startedAt));
    if (l.processingSeconds !== undefined && l.processingSeconds !== null) duration.set(Math.max(0, l.processingSeconds));
    else if (l.processingSeconds === undefined && l.finishedAt) duration.set(Math.max(0, seconds(l.finishedAt) - seconds(l.startedAt)));
    const waivedBy = new Map((l.waived ?? []).map((w) => [`${w.checkId}\u0000${w.severity}`, w.count]));
    for (const f of l.findings) {
      const waived = waivedBy.get(`${f.checkId}\u0000${f.severity}`) ?? 0;
      findings.set({ check_id: f.checkId, severity: f.severity }, f.count - waived);
      if (waived > 0) waivedFindings.set({ check_id: f.checkId, severity: f.severity }, waived);
    }
    const perCluster = [...(l.clusterFindings ?? [])].sort((a, b) => b.count - a.count || (a.clusterId < b.clusterId ? -1 : 1));
    const other = new Map<Severity, number>();
    perCluster.forEach((c, i) => {
      if (i < MAX_CLUSTER_FINDING_SERIES) {
        clusterFindings.set({ account_id: c.accountId, cluster_id: c.clusterId, cluster_name: c.clusterName ?? '', team: c.team ?? '', severity: c.severity }, c.count);
      } else other.set(c.severity, (other.get(c.severity) ?? 0) + c.count);
    });
    for (const [severity, n] of other) clusterFindings.set({ account_id: '(other)', cluster_id: '(other)', cluster_name: '(other)', team: '(other)', severity }, n);
    for (const [checkId, c] of Object.entries(l.byCheckStatus))
      for (const status of ['pass', 'fail', 'skipped'] as const) results.set({ check_id: checkId, status }, c[status]);
    const byStatus = { ok: 0, absent: 0, failed: 0 };
    for (const c of l.coverage) {
      byStatus[c.status] += 1;
      if (c.status === 'failed')
        gap.set(
          { account_id: c.accountId, region_id: c.regionId ?? '', cluster_id: c.clusterId ?? '', dataset: c.api, error_code: c.errorCode ?? '' },
          1,
        );
    }
    for (const [status, n] of Object.entries(byStatus)) datasets.set({ status }, n);
    const floor = input.quotaMinRatio ?? DEFAULT_QUOTA_MIN_RATIO;
    const perCheck = new Map<string, { max: number; n: number }>();
    for (const s of l.quotaUsage) {
      const p = perCheck.get(s.checkId) ?? { max: 0, n: 0 };
      p.max = Math.max(p.max, s.ratio);
      p.n += 1;
      perCheck.set(s.checkId, p);
      if (s.ratio < floor) continue;
      const labels = {
        check_id: s.checkId,
        resource_kind: s.resource.kind,
        resource_id: s.resource.id,
        account_id: s.resource.accountId,
        region_id: s.resource.regionId,
        cluster_id: s.resource.clusterId ?? '',
        team: s.resource.team ?? '',
      };
      used.set(labels, s.used);
      limit.set(labels, s.limit);
      ratio.set(labels, s.ratio);
    }
    for (const e of l.exhaustion ?? []) {
      const labels = {
        check_id: e.checkId,
        resource_kind: e.resource.kind,
        resource_id: e.resource.id,
        account_id: e.resource.accountId,
        region_id: e.resource.regionId,
        cluster_id: e.resource.clusterId ?? '',
        team: e.resource.team ?? '',
      };
      for (const [quantile, v] of [['0.1', e.secondsToExhaustion.p10], ['0.5', e.secondsToExhaustion.p50], ['0.9', e.secondsToExhaustion.p90]] as const)
        if (v !== null) exhaustion.set({ quantile, ...labels }, v);
    }
    const stats = l.quotaStats ?? [...perCheck].map(([checkId, p]) => ({ checkId, resources: p.n, maxRatio: p.max }));
    for (const st of stats) {
      maxRatio.set({ check_id: st.checkId }, st.maxRatio);
      sampled.set({ check_id: st.checkId }, st.resources);
    }
  }
  if (input.waivers) for (const [state, n] of Object.entries(input.waivers)) waivers.set({ state }, n);
  if (input.storage) renderStorage(registry, input.storage);
  if (input.quotaApplications) for (const status of QUOTA_APPLICATION_STATUSES) applications.set({ status }, input.quotaApplications[status] ?? 0);
  if (input.reports) {
    for (const [delivery, n] of Object.entries(input.reports.byDelivery)) reports.set({ delivery }, n);
    deliveriesFailed.set(input.reports.byDelivery.failed ?? 0);
    lastReport.set(input.reports.latestCreatedAt ? seconds(input.reports.latestCreatedAt) : 0);
  }
  return registry.metrics();
}

/** The statuses of a stored Quota Center application (libs/store StoredQuotaApplicationStatus), each one series. */
export const QUOTA_APPLICATION_STATUSES = ['submitting', 'Process', 'Agree', 'Disagree', 'Cancel', 'failed'] as const;

/** The database size and the retention counters (the `storage` of FleetMetricsInput). */
function renderStorage(registry: Registry, storage: NonNullable<FleetMetricsInput['storage']>): void {
  new Gauge({ name: 'fleet_audit_database_size_bytes', help: 'Size of the PostgreSQL database on disk (pg_database_size, bytes).', registers: [registry] }).set(storage.databaseBytes);
  const rows = new Counter({ name: 'fleet_audit_retention_removed_rows_total', help: 'Rows removed by retention, per table (count, since the database was created).', labelNames: ['table'], registers: [registry] });
  const scans = new Counter({ name: 'fleet_audit_retention_scans_removed_total', help: 'Scans thinned by retention (count): pruned (heavy rows removed, quota samples kept) or deleted.', labelNames: ['kind'], registers: [registry] });
  const lastRun = new Gauge({ name: 'fleet_audit_retention_last_run_timestamp_seconds', help: 'When retention last ran (Unix seconds; 0 when never).', registers: [registry] });
  for (const c of storage.removed) {
    if (c.kind === 'run:scans_pruned') scans.inc({ kind: 'pruned' }, c.removed);
    else if (c.kind === 'run:scans_deleted') scans.inc({ kind: 'deleted' }, c.removed);
    else if (!c.kind.startsWith('run:')) rows.inc({ table: c.kind }, c.removed);
  }
  lastRun.set(storage.lastRunAt ? seconds(storage.lastRunAt) : 0);
}
