/**
 * Retention on real PostgreSQL: 20 days of scans every three hours thinned by the default policy in small
 * DELETE batches; what a dry run counts is what the run removes; the forecast trends and the weekly report read
 * the same data before and after; running scans and the latest scan are never touched; every table that holds
 * rows per scan is covered; the counters /metrics exports are recorded.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'pg';
import { buildFleetGraph, FleetIndex } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import type { QuotaUsageSample } from '@app/domain';
import { trendsFromStore } from '@app/audit';
import { buildReport, loadReportInput } from '@app/reports';
import { DEFAULT_RETENTION_POLICY, PRUNED_SCAN_TABLES, Store, type RetentionRunResult } from '@app/store';
import { makeCoverage, makeFinding } from './finding.factory';
import { createTestDatabase, type TestDatabase } from './test-database.util';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The simulated clock: Thursday 2026-04-16 00:30 UTC, 20 days after the first scan. */
const NOW = new Date(Date.UTC(2026, 3, 16, 0, 30));
const FIRST = NOW.getTime() - 20 * DAY;
/**
 * Hours between two scans: every window of the default policy still holds several scans (15 in the 48 raw hours, 8 a
 * day to thin to one), with a third of the scans an hourly cadence stores (each scan's per-scan tables are created,
 * attached and, when thinned, detached and dropped: PostgreSQL's time, most of this file's).
 */
const STEP_HOURS = 3;
const ACCOUNT = '1000000000000001';

/** Quota samples of three CLBs growing at different paces, with a deterministic wobble (ratios 0.5..0.9). */
const quota = (hour: number): QuotaUsageSample[] =>
  [0.02, 0.05, 0.08].map((pace, j) => {
    const used = Math.round(100 + pace * hour + ((hour * 7 + j * 13) % 11));
    return {
      checkId: 'CLB_BACKEND_QUOTA',
      resource: { kind: 'LoadBalancer' as const, id: `lb-q${j}`, accountId: ACCOUNT, regionId: 'cn-hangzhou', clusterId: 'c-alpha' },
      used,
      limit: 200,
      ratio: used / 200,
    };
  });

/** Findings that change by day and by hour, so a report that read another scan than before would differ. */
const findings = (hour: number) =>
  Array.from({ length: 3 + (Math.floor(hour / 24) % 4) + (hour % 5 === 0 ? 1 : 0) }, (_, i) =>
    makeFinding({ severity: i % 3 === 0 ? 'critical' : 'warning', checkId: i % 2 ? 'LB_ORPHANED' : 'CLB_BACKEND_QUOTA', resource: { id: `lb-${i}-${hour % 5 === 0 && i === 3 ? hour : 0}`, accountId: ACCOUNT } }),
  );

describe('retention (integration)', () => {
  let db: TestDatabase;
  let store: Store;
  let sql: Client;
  let running: string;
  let withGraph: string;
  let latest: string;

  const count = async (table: string, where = 'true', params: unknown[] = []) => Number((await sql.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, params)).rows[0]!.n);

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    const sample = loadFleetDirectory(join(__dirname, '..', '..', 'examples', 'fleets', 'sample'));
    const graph = buildFleetGraph(sample, FleetIndex.build(sample));
    for (let h = 0; h < 20 * 24; h += STEP_HOURS) {
      const startedAt = new Date(FIRST + h * HOUR);
      const scan = await store.scans.create({ source: 'offline', fleetName: 'prod', startedAt });
      // One scan 3 days old at 03:30 (pruned by the plan) carries a snapshot and a fleet graph.
      const heavy = h === 17 * 24 + 3;
      await store.scans.complete(scan.id, {
        findings: findings(h),
        coverage: [makeCoverage()],
        quotaUsage: quota(h),
        finishedAt: new Date(startedAt.getTime() + 60_000),
        ...(heavy ? { snapshot: sample, graph } : {}),
      });
      if (heavy) withGraph = scan.id;
      latest = scan.id;
    }
    // A scan that started 30 days ago and never ended, and a failed one of 10 days ago.
    running = (await store.scans.create({ source: 'distributed', fleetName: 'prod', startedAt: new Date(FIRST - 10 * DAY) })).id;
    const failed = await store.scans.create({ source: 'offline', fleetName: 'prod', startedAt: new Date(NOW.getTime() - 10 * DAY + 1_000) });
    await store.scans.fail(failed.id, 'nothing could be read');
  }, 300_000); // 160 scans stored one by one (480 hourly ones took 18 s alone, 113 s in a full run on two cores)
  afterAll(async () => {
    await sql?.end();
    await store?.close();
    await db?.release();
  });

  it('covers every table that holds rows per scan', async () => {
    // A table with rows per scan has a `scan_id` column (the bulk tables keep no foreign key to `scans`: migration
    // 1800200000002), except the reports (which name the scan they were built from, kept on their own schedule) and
    // the chunk rows of a store in flight (deleted with their attempt row). A per-scan partition (and a store's table
    // not attached yet) is part of its parent (scan-partition.util.ts).
    const { rows } = await sql.query<{ t: string }>(
      `SELECT DISTINCT c.table_name AS t FROM information_schema.columns c
         JOIN pg_class k ON k.relname = c.table_name AND k.relnamespace = current_schema()::regnamespace
        WHERE c.column_name = 'scan_id' AND c.table_schema = current_schema() AND c.table_name NOT IN ('reports', 'scan_store_chunks')
          AND NOT k.relispartition AND k.relname !~ '_s[0-9a-f]{32}$' ORDER BY 1`,
    );
    expect(rows.map((r) => r.t).sort()).toEqual([...PRUNED_SCAN_TABLES, 'quota_usage'].sort());
  });

  it('thins by the default policy in batches, leaving trends and the weekly report unchanged', async () => {
    const generatedAt = new Date(NOW.getTime() + 1_000);
    const reportBefore = buildReport(await loadReportInput(store, { now: NOW, generatedAt }));
    const trendsBefore = await trendsFromStore(store, { now: NOW });
    const quotaInWindowBefore = await count('quota_usage q JOIN scans s ON s.id = q.scan_id', `s.started_at > $1`, [new Date(NOW.getTime() - 15 * DAY)]);
    const findingsBefore = await count('findings');
    const scansBefore = await count('scans');

    const dry = await store.retention.run({ now: NOW, policy: DEFAULT_RETENTION_POLICY, batchRows: 3, dryRun: true });
    expect(await count('findings')).toBe(findingsBefore);
    expect(dry.status).toBe('dry-run');

    const run: RetentionRunResult = await store.retention.run({ now: NOW, policy: DEFAULT_RETENTION_POLICY, batchRows: 3 });
    expect(run).toMatchObject({ status: 'done', scansKept: dry.scansKept, scansPruned: dry.scansPruned, scansDeleted: dry.scansDeleted, rows: dry.rows });
    // 160 scans at 00:30, 03:30 .. 21:30, ages 3 h .. 480 h. Kept: the 15 younger than 48 h (3 .. 45 h), 18 days' 21:30
    // scans (19 d 3 h .. 2 d 3 h old) and the running scan. Deleted: the failed one and the 41 scans at least 15 days
    // old (360 .. 480 h) but their 5 days' last. Pruned: the other 91.
    expect(run.scansKept).toBe(15 + 18 + 1);
    expect(run.scansDeleted).toBe(1 + 41 - 5);
    expect(run.scansPruned).toBe(160 - 15 - 18 - (41 - 5));
    expect(await count('scans')).toBe(scansBefore - run.scansDeleted);
    expect(await count('findings')).toBe(findingsBefore - (run.rows.findings ?? 0));
    expect(run.rows.graph_services).toBeGreaterThan(0);
    expect(run.rows.scan_snapshots).toBe(1);

    // Pruned: the row and its quota samples stay, the heavy rows are gone.
    expect((await sql.query('SELECT pruned_at FROM scans WHERE id = $1', [withGraph])).rows[0].pruned_at).not.toBeNull();
    expect(await count('graph_services', 'scan_id = $1', [withGraph])).toBe(0);
    expect(await count('quota_usage', 'scan_id = $1', [withGraph])).toBe(3);
    expect(await count('quota_usage q JOIN scans s ON s.id = q.scan_id', `s.started_at > $1`, [new Date(NOW.getTime() - 15 * DAY)])).toBe(quotaInWindowBefore);
    expect(await count('scans', "id = ANY($1::uuid[]) AND pruned_at IS NULL", [[running, latest]])).toBe(2);

    expect(await trendsFromStore(store, { now: NOW })).toEqual(trendsBefore);
    expect(trendsBefore.filter((t) => t.status === 'ok').length).toBeGreaterThan(0);
    const reportAfter = buildReport(await loadReportInput(store, { now: NOW, generatedAt }));
    expect(reportAfter).toEqual(reportBefore);
    expect(reportBefore.trend.filter((t) => t.scanId !== null)).toHaveLength(3);
    expect(reportBefore.quotas.byUsage.filter((q) => q.forecastStatus !== null).length).toBeGreaterThan(0);

    const counters = Object.fromEntries((await store.retentionRows.counters()).map((c) => [c.kind, c.removed]));
    expect(counters).toMatchObject({ findings: run.rows.findings, 'run:runs': 1, 'run:scans_deleted': run.scansDeleted, 'run:scans_pruned': run.scansPruned });
    expect(run.databaseBytesAfter).toBeGreaterThan(0);
    // 127 scans thinned, each with its findings and ECS instances tables detached concurrently and dropped.
  }, 180_000);

  it('finds nothing more to do on a second run at the same clock', async () => {
    const again = await store.retention.run({ now: NOW, policy: DEFAULT_RETENTION_POLICY, batchRows: 1000 });
    expect(again).toMatchObject({ status: 'done', scansPruned: 0, scansDeleted: 0, rows: {} });
  });

  it('skips while another session holds the retention lock', async () => {
    const other = await Store.open({ connectionString: db.url });
    try {
      const results = await other.retentionRows.withLock(() => store.retention.run({ now: NOW, policy: DEFAULT_RETENTION_POLICY, batchRows: 10 }));
      expect(results?.status).toBe('skipped');
    } finally {
      await other.close();
    }
  });
});
