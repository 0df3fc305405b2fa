/**
 * The partitioned quota trend fits (migration 1800500000000), both ways, on a database that holds fits. Down: the
 * plain table of 1799400000000 comes back (its foreign key to the windows included), and no window, partition or
 * window table a cleanup left detached survives. Up over fits stored in that older shape: they go with their windows
 * (they are derived from the quota samples), trends refit the samples and answer the same entries, and the next
 * refresh keeps its window in a partition of its own again.
 */
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { trendsFromStore } from '@app/audit';
import type { QuotaUsageSample } from '@app/domain';
import { DEFAULT_TREND_SETTINGS, forecastTrends, type TrendEntry } from '@app/forecast';
import { Store } from '@app/store';
import { makeCoverage } from './finding.factory';
import { createTestDatabase, rollBackThrough, type TestDatabase } from './test-database.util';

const MIGRATION = '1800500000000_partitioned_quota_trend_fits';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = new Date(Date.UTC(2026, 10, 30, 12, 0));

/** Samples of scan `k`: two CLBs filling at different paces and an ECS instance. */
function samples(k: number): QuotaUsageSample[] {
  const clb = (id: string, used: number): QuotaUsageSample => ({
    checkId: 'CLB_BACKEND_QUOTA',
    resource: { kind: 'LoadBalancer', id, accountId: '1000000000000001', regionId: 'cn-hangzhou', clusterId: 'c-1' },
    used,
    limit: 200,
    ratio: used / 200,
  });
  return [
    clb('lb-fast', 40 + 9 * k),
    clb('lb-slow', 100 + k),
    { checkId: 'ECS_LB_ATTACHMENT_QUOTA', resource: { kind: 'EcsInstance', id: 'i-1', accountId: '1000000000000001', regionId: 'cn-hangzhou' }, used: 10 + k, limit: 50, ratio: (10 + k) / 50 },
  ];
}

describe('upgrade to the partitioned quota trend fits, with data', () => {
  let db: TestDatabase;
  let store: Store;
  let sql: Client;

  /** trendsFromStore, and whether it read stored fits (no sample read) or refitted. */
  const trends = async (): Promise<{ entries: TrendEntry[]; fitted: boolean }> => {
    const history = vi.spyOn(store.quotaUsage, 'history');
    try {
      return { entries: await trendsFromStore(store, { now: NOW }), fitted: history.mock.calls.length === 0 };
    } finally {
      history.mockRestore();
    }
  };
  const refit = async (): Promise<TrendEntry[]> => forecastTrends(await store.quotaUsage.history({ since: new Date(NOW.getTime() - 14 * DAY), until: NOW }), NOW.getTime(), {});
  const relkind = async (): Promise<string | undefined> =>
    (await sql.query<{ relkind: string }>(`SELECT relkind FROM pg_class WHERE oid = to_regclass('quota_trend_fits')`)).rows[0]?.relkind;
  const windowTables = async (): Promise<string[]> =>
    (await sql.query<{ relname: string }>(`SELECT relname FROM pg_class WHERE relkind = 'r' AND relname LIKE 'quota_trend_fits_w%' ORDER BY relname`)).rows.map((r) => r.relname);

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    for (let k = 0; k < 6; k++) {
      const startedAt = new Date(NOW.getTime() - (6 - k) * 6 * HOUR);
      const scan = await store.scans.create({ source: 'offline', fleetName: 'prod', startedAt });
      await store.scans.complete(scan.id, { findings: [], coverage: [makeCoverage()], quotaUsage: samples(k), finishedAt: new Date(startedAt.getTime() + 60_000) });
    }
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await store?.close();
    await db?.release();
  });

  it('down: the plain table with its foreign key, no window and no window table, a detached one included', async () => {
    const window = await store.quotaTrends.refresh(NOW);
    expect(await relkind()).toBe('p');
    expect(await windowTables()).toEqual([`quota_trend_fits_w${window.id}`]);
    await sql.query('CREATE TABLE quota_trend_fits_w900000001 (LIKE quota_trend_fits INCLUDING DEFAULTS)');
    expect((await rollBackThrough(sql, MIGRATION)).at(-1)).toBe(MIGRATION);
    expect(await relkind()).toBe('r');
    expect(await windowTables()).toEqual([]);
    expect((await sql.query('SELECT count(*)::int AS n FROM quota_trend_windows')).rows).toEqual([{ n: 0 }]);
    const fk = await sql.query(`SELECT confrelid::regclass::text AS target FROM pg_constraint WHERE conrelid = 'quota_trend_fits'::regclass AND contype = 'f'`);
    expect(fk.rows).toEqual([{ target: 'quota_trend_windows' }]);
  });

  it('up over fits of the older shape: dropped with their windows, trends refit the same entries, the next refresh keeps a partition', async () => {
    // A window over exactly the stored scans, with a fit no refit gives: before the upgrade, trends answer from it.
    const key = await store.quotaTrends.scansKey(new Date(NOW.getTime() - 14 * DAY), NOW);
    const { rows } = await sql.query<{ id: string }>(
      `INSERT INTO quota_trend_windows (scans_key, since, until, interval_coverage, scan_count, series, mixed_cluster_series)
       VALUES ($1, $2, $3, $4, $5, 1, 0) RETURNING id::text AS id`,
      [key.key, new Date(NOW.getTime() - 14 * DAY), NOW, DEFAULT_TREND_SETTINGS.intervalCoverage, key.scans],
    );
    await sql.query(
      `INSERT INTO quota_trend_fits (window_id, check_id, account_id, region_id, cluster_id, resource_kind, resource_id, samples, span_ms, latest_at, has_latest, used, "limit")
       VALUES ($1, 'CLB_BACKEND_QUOTA', '1000000000000001', 'cn-hangzhou', 'c-1', 'LoadBalancer', 'lb-stale', 1, 0, $2, true, 1, 200)`,
      [rows[0]!.id, NOW.getTime() - HOUR],
    );
    const before = await trends();
    expect(before.fitted).toBe(true);
    expect(before.entries.map((e) => e.resource.id)).toEqual(['lb-stale']);

    await store.close();
    store = await Store.open({ connectionString: db.url, migrate: true });
    expect(await relkind()).toBe('p');
    expect((await sql.query('SELECT count(*)::int AS n FROM quota_trend_windows')).rows).toEqual([{ n: 0 }]);
    const refitted = await trends();
    expect(refitted).toEqual({ entries: await refit(), fitted: false });
    expect(refitted.entries.map((e) => e.resource.id).sort()).toEqual(['i-1', 'lb-fast', 'lb-slow']);

    const window = await store.quotaTrends.refresh(NOW);
    expect(await windowTables()).toEqual([`quota_trend_fits_w${window.id}`]);
    expect(await trends()).toEqual({ entries: refitted.entries, fitted: true });
  });
});
