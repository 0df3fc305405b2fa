import { describe, expect, it } from 'vitest';
import type { QuotaUsageSample } from '@app/domain';
import { FLEET_METRIC_NAMES, MAX_CLUSTER_FINDING_SERIES, renderFleetMetrics } from './fleet-metrics';

/** `name{labels} value` lines of an exposition, comments dropped. */
const samples = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
const value = (text: string, prefix: string) => {
  const line = samples(text).find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

const sample = (id: string, used: number, limit: number, checkId = 'CLB_BACKEND_QUOTA'): QuotaUsageSample => ({
  checkId,
  resource: { kind: 'LoadBalancer', id, accountId: '1234567890123456', regionId: 'cn-hangzhou' },
  used,
  limit,
  ratio: used / limit,
});

describe('renderFleetMetrics', () => {
  it('exports findings, results, coverage, quota usage and scan health of the latest scans', async () => {
    const text = await renderFleetMetrics({
      latest: {
        startedAt: '2026-11-22T00:00:00.000Z',
        finishedAt: '2026-11-22T00:00:42.500Z',
        findings: [
          { checkId: 'CLB_BACKEND_QUOTA', severity: 'warning', count: 1 },
          { checkId: 'LB_ORPHANED', severity: 'warning', count: 3 },
        ],
        byCheckStatus: { CLB_BACKEND_QUOTA: { pass: 2, fail: 1, skipped: 0 } },
        coverage: [
          { accountId: '1234567890123456', regionId: 'cn-hangzhou', api: 'slb', status: 'ok' },
          { accountId: '1234567890123456', api: 'ram', status: 'failed', errorCode: 'Forbidden.RAM', message: 'no permission' },
        ],
        quotaUsage: [sample('lb-a', 168, 200), sample('lb-b', 20, 200), sample('lb-c', 100, 200)],
      },
      lastFinished: { status: 'failed', startedAt: '2026-11-22T01:00:00.000Z', finishedAt: '2026-11-22T01:00:03.000Z' },
    });
    expect(value(text, 'fleet_audit_last_successful_scan_timestamp_seconds')).toBe(Date.parse('2026-11-22T00:00:00Z') / 1000);
    expect(value(text, 'fleet_audit_last_scan_duration_seconds')).toBe(42.5);
    expect(value(text, 'fleet_audit_last_scan_failed')).toBe(1);
    expect(value(text, 'fleet_audit_findings{check_id="LB_ORPHANED",severity="warning"}')).toBe(3);
    expect(value(text, 'fleet_audit_check_results{check_id="CLB_BACKEND_QUOTA",status="pass"}')).toBe(2);
    expect(value(text, 'fleet_audit_coverage_datasets{status="failed"}')).toBe(1);
    expect(value(text, 'fleet_audit_coverage_failed{account_id="1234567890123456",region_id="",cluster_id="",dataset="ram",error_code="Forbidden.RAM"}')).toBe(1);
    // Per-resource gauges from 50 % (default floor): lb-a (84 %) and lb-c (50 %), not lb-b (10 %).
    const ratios = samples(text).filter((l) => l.startsWith('fleet_audit_quota_usage_ratio{'));
    expect(ratios.map((l) => /resource_id="([^"]+)"/.exec(l)?.[1]).sort()).toEqual(['lb-a', 'lb-c']);
    expect(value(text, 'fleet_audit_quota_used{check_id="CLB_BACKEND_QUOTA",resource_kind="LoadBalancer",resource_id="lb-a"')).toBe(168);
    expect(value(text, 'fleet_audit_quota_limit{check_id="CLB_BACKEND_QUOTA",resource_kind="LoadBalancer",resource_id="lb-a"')).toBe(200);
    expect(value(text, 'fleet_audit_quota_max_usage_ratio{check_id="CLB_BACKEND_QUOTA"}')).toBe(0.84);
    expect(value(text, 'fleet_audit_quota_resources{check_id="CLB_BACKEND_QUOTA"}')).toBe(3);
    // Every exported metric is a documented name.
    const names = new Set(samples(text).map((l) => /^[a-z_]+/.exec(l)?.[0]));
    for (const n of names) expect(FLEET_METRIC_NAMES as readonly (string | undefined)[]).toContain(n);
  });

  it('exports the database size and the retention counters (runs left out of the row counter)', async () => {
    const text = await renderFleetMetrics({
      latest: null,
      lastFinished: null,
      storage: {
        databaseBytes: 123_456_789,
        removed: [
          { kind: 'findings', removed: 40 },
          { kind: 'graph_services', removed: 9 },
          { kind: 'run:runs', removed: 3 },
          { kind: 'run:scans_pruned', removed: 5 },
          { kind: 'run:scans_deleted', removed: 2 },
        ],
        lastRunAt: '2026-04-16T03:17:00.000Z',
      },
    });
    expect(value(text, 'fleet_audit_database_size_bytes')).toBe(123_456_789);
    expect(value(text, 'fleet_audit_retention_removed_rows_total{table="findings"}')).toBe(40);
    expect(value(text, 'fleet_audit_retention_removed_rows_total{table="graph_services"}')).toBe(9);
    expect(samples(text).filter((l) => l.includes('run:'))).toEqual([]);
    expect(value(text, 'fleet_audit_retention_scans_removed_total{kind="pruned"}')).toBe(5);
    expect(value(text, 'fleet_audit_retention_scans_removed_total{kind="deleted"}')).toBe(2);
    expect(value(text, 'fleet_audit_retention_last_run_timestamp_seconds')).toBe(Date.parse('2026-04-16T03:17:00Z') / 1000);
    const names = new Set(samples(text).map((l) => /^[a-z_]+/.exec(l)?.[0]));
    for (const n of names) expect(FLEET_METRIC_NAMES as readonly (string | undefined)[]).toContain(n);
  });

  it('exports Quota Center applications by status: every status one series, 0 when none', async () => {
    const text = await renderFleetMetrics({ latest: null, lastFinished: null, quotaApplications: { Process: 2, Agree: 5, failed: 1 } });
    expect(value(text, 'fleet_audit_quota_applications{status="Process"}')).toBe(2);
    expect(value(text, 'fleet_audit_quota_applications{status="Agree"}')).toBe(5);
    expect(value(text, 'fleet_audit_quota_applications{status="failed"}')).toBe(1);
    expect(value(text, 'fleet_audit_quota_applications{status="Disagree"}')).toBe(0);
    expect(samples(text).filter((l) => l.startsWith('fleet_audit_quota_applications'))).toHaveLength(6);
    const none = await renderFleetMetrics({ latest: null, lastFinished: null });
    expect(samples(none).filter((l) => l.startsWith('fleet_audit_quota_applications'))).toEqual([]);
  });

  it('exports quota exhaustion forecasts per quantile (null answers left out)', async () => {
    const text = await renderFleetMetrics({
      latest: {
        startedAt: '2026-11-22T00:00:00.000Z',
        finishedAt: '2026-11-22T00:00:01.000Z',
        findings: [],
        byCheckStatus: {},
        coverage: [],
        quotaUsage: [sample('lb-a', 168, 200)],
        exhaustion: [
          {
            checkId: 'CLB_BACKEND_QUOTA',
            resource: { kind: 'LoadBalancer', id: 'lb-a', accountId: '1234567890123456', regionId: 'cn-hangzhou', clusterId: null },
            secondsToExhaustion: { p10: 432000, p50: 691200, p90: null },
          },
        ],
      },
      lastFinished: null,
    });
    const lines = samples(text).filter((l) => l.startsWith('fleet_audit_quota_exhaustion_seconds{'));
    expect(lines).toHaveLength(2);
    expect(value(text, 'fleet_audit_quota_exhaustion_seconds{quantile="0.1",check_id="CLB_BACKEND_QUOTA",resource_kind="LoadBalancer",resource_id="lb-a"')).toBe(432000);
    expect(value(text, 'fleet_audit_quota_exhaustion_seconds{quantile="0.5",check_id="CLB_BACKEND_QUOTA"')).toBe(691200);
  });

  it('a lower floor exports more series; the floor never hides the per-check maximum', async () => {
    const text = await renderFleetMetrics({
      latest: {
        startedAt: '2026-11-22T00:00:00.000Z',
        finishedAt: null,
        findings: [],
        byCheckStatus: {},
        coverage: [],
        quotaUsage: [sample('lb-b', 20, 200)],
      },
      lastFinished: null,
      quotaMinRatio: 0,
    });
    expect(samples(text).filter((l) => l.startsWith('fleet_audit_quota_usage_ratio{'))).toHaveLength(1);
    expect(value(text, 'fleet_audit_quota_max_usage_ratio{check_id="CLB_BACKEND_QUOTA"}')).toBe(0.1);
    // A gauge without labels always has a sample; unknown is 0.
    expect(value(text, 'fleet_audit_last_scan_duration_seconds')).toBe(0);
  });

  it('exports the processing time of a backfilled scan, not the time since its observation', async () => {
    // Stored with `scan --now 2026-11-01T00:00:00Z` and finished 12.5 h later by the wall clock, in 3.25 s.
    const text = await renderFleetMetrics({
      latest: { startedAt: '2026-11-01T00:00:00.000Z', finishedAt: '2026-11-01T12:30:00.000Z', processingSeconds: 3.25, findings: [], byCheckStatus: {}, coverage: [], quotaUsage: [] },
      lastFinished: null,
    });
    expect(value(text, 'fleet_audit_last_scan_duration_seconds')).toBe(3.25);
    const unknown = await renderFleetMetrics({
      latest: { startedAt: '2026-11-01T00:00:00.000Z', finishedAt: '2026-11-01T12:30:00.000Z', processingSeconds: null, findings: [], byCheckStatus: {}, coverage: [], quotaUsage: [] },
      lastFinished: null,
    });
    expect(value(unknown, 'fleet_audit_last_scan_duration_seconds')).toBe(0);
  });

  it('before any scan succeeded: only the health gauges, no findings or quota series', async () => {
    const text = await renderFleetMetrics({ latest: null, lastFinished: { status: 'failed', startedAt: '2026-11-22T00:00:00Z', finishedAt: null } });
    expect(value(text, 'fleet_audit_last_scan_failed')).toBe(1);
    expect(samples(text).some((l) => l.startsWith('fleet_audit_findings') || l.startsWith('fleet_audit_quota'))).toBe(false);
    // 0 (1970): FleetAuditScanStale fires until a scan succeeds.
    expect(value(text, 'fleet_audit_last_successful_scan_timestamp_seconds')).toBe(0);
  });

  it('exports findings per cluster with account, cluster name and team, bounded at MAX_CLUSTER_FINDING_SERIES', async () => {
    const cluster = (i: number, count: number) => ({ accountId: '1234567890123456', clusterId: `c${i}`, clusterName: `name-${i}`, team: i % 2 === 0 ? 'payments' : null, severity: 'warning' as const, count });
    const base = { startedAt: '2026-11-22T00:00:00.000Z', finishedAt: null, findings: [], byCheckStatus: {}, coverage: [], quotaUsage: [{ ...sample('lb-a', 190, 200), resource: { ...sample('lb-a', 190, 200).resource, clusterId: 'c0', team: 'payments' } }] };
    const text = await renderFleetMetrics({ latest: { ...base, clusterFindings: [cluster(0, 5), cluster(1, 2)] }, lastFinished: null });
    expect(value(text, 'fleet_audit_cluster_findings{account_id="1234567890123456",cluster_id="c0",cluster_name="name-0",team="payments",severity="warning"}')).toBe(5);
    expect(value(text, 'fleet_audit_cluster_findings{account_id="1234567890123456",cluster_id="c1",cluster_name="name-1",team="",severity="warning"}')).toBe(2);
    expect(samples(text).find((l) => l.startsWith('fleet_audit_quota_usage_ratio{'))).toContain('cluster_id="c0",team="payments"}');
    // Past the bound, the smallest counts are summed into one (other) series per severity.
    const many = Array.from({ length: MAX_CLUSTER_FINDING_SERIES + 10 }, (_, i) => cluster(i, i < MAX_CLUSTER_FINDING_SERIES ? 100 : 1));
    const bounded = await renderFleetMetrics({ latest: { ...base, clusterFindings: many }, lastFinished: null });
    const series = samples(bounded).filter((l) => l.startsWith('fleet_audit_cluster_findings{'));
    expect(series).toHaveLength(MAX_CLUSTER_FINDING_SERIES + 1);
    expect(value(bounded, 'fleet_audit_cluster_findings{account_id="(other)",cluster_id="(other)",cluster_name="(other)",team="(other)",severity="warning"}')).toBe(10);
  });
});
