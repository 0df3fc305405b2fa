/**
 * Stored quota trend fits on real PostgreSQL: the fits a completed scan keeps give the same trend
 * entries, in the same order, as refitting every sample of the window, for every filter and clock whose window holds
 * the same scans; any other window (a scan dropped out, a scan completed again, a series that moved cluster under a
 * cluster filter) refits; retention's pruning and deletion leave trends unchanged, fitted or refitted.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { trendsFromStore, trendsPageFromStore, type TrendsPaging, type TrendsRequest } from '@app/audit';
import type { QuotaUsageSample } from '@app/domain';
import { forecastTrends, type TrendEntry } from '@app/forecast';
import { DEFAULT_RETENTION_POLICY, QuotaTrendRepository, Store, StoreError } from '@app/store';
import { trendRefreshThreadBuilt } from '../../libs/store/src/trend-refresh-thread';
import { makeCoverage } from './finding.factory';
import { createTestDatabase, type TestDatabase } from './test-database.util';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The clock of the test: the last scan started one hour before. */
const NOW = new Date(Date.UTC(2026, 3, 16, 0, 30));
const A1 = '1000000000000001';
const A2 = '1000000000000002';

/** A scan every 6 hours over 20 days, so retention prunes and deletes some and the 14-day window drops the oldest. */
const SCAN_HOURS = Array.from({ length: 80 }, (_, i) => i * 6);
const FIRST = NOW.getTime() - HOUR - SCAN_HOURS[SCAN_HOURS.length - 1]! * HOUR;

/** Samples of scan `k`: CLBs growing, flat, shrinking, one exhausted, one seen only in some scans, one ECS that moves cluster. */
function samples(k: number): QuotaUsageSample[] {
  const out: QuotaUsageSample[] = [];
  const add = (checkId: string, kind: 'LoadBalancer' | 'EcsInstance', id: string, accountId: string, clusterId: string | undefined, used: number, limit: number) =>
    out.push({ checkId, resource: { kind, id, accountId, regionId: 'cn-hangzhou', ...(clusterId ? { clusterId } : {}) }, used, limit, ratio: used / limit });
  for (let j = 0; j < 6; j++) {
    const pace = [0.3, 0.05, 0, -0.2, 1.1, 0.6][j]!;
    const wobble = (k * 7 + j * 13) % 5;
    add('CLB_BACKEND_QUOTA', 'LoadBalancer', `lb-${j}`, j % 2 ? A2 : A1, `c-${j % 3}`, Math.max(0, Math.round(60 + pace * k + wobble)), 200);
  }
  add('CLB_BACKEND_QUOTA', 'LoadBalancer', 'lb-full', A1, 'c-0', 200, 200);
  if (k % 3 === 0) add('CLB_BACKEND_QUOTA', 'LoadBalancer', 'lb-sometimes', A2, 'c-1', 20 + k, 200);
  for (let e = 0; e < 4; e++) add('ECS_LB_ATTACHMENT_QUOTA', 'EcsInstance', `i-${e}`, A1, e === 3 && k > 60 ? 'c-2' : 'c-1', 10 + Math.floor(k / (e + 2)), 50);
  add('ECS_LB_ATTACHMENT_QUOTA', 'EcsInstance', 'i-unclustered', A2, undefined, 5 + (k % 4), 50);
  return out;
}

describe('quota trend fits (integration)', () => {
  let db: TestDatabase;
  let store: Store;
  const scanIds: string[] = [];

  /** Trends refitted from every sample (what trendsFromStore answered before the fits existed). */
  const refit = async (r: TrendsRequest): Promise<TrendEntry[]> => {
    const { now, settings, status, ...filters } = r;
    const since = new Date(now.getTime() - (settings?.windowDays ?? 14) * DAY);
    const out = forecastTrends(await store.quotaUsage.history({ ...filters, since, until: now }), now.getTime(), settings ?? {});
    return status ? out.filter((e) => e.status === status) : out;
  };

  /** trendsFromStore, and whether it read the stored fits (no sample read) or refitted. */
  const trends = async (r: TrendsRequest): Promise<{ entries: TrendEntry[]; fitted: boolean }> => {
    const history = vi.spyOn(store.quotaUsage, 'history');
    try {
      const entries = await trendsFromStore(store, r);
      return { entries, fitted: history.mock.calls.length === 0 };
    } finally {
      history.mockRestore();
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    for (const [k, h] of SCAN_HOURS.entries()) {
      const startedAt = new Date(FIRST + h * HOUR);
      const scan = await store.scans.create({ source: 'offline', fleetName: 'prod', startedAt });
      await store.scans.complete(scan.id, { findings: [], coverage: [makeCoverage()], quotaUsage: samples(k), finishedAt: new Date(startedAt.getTime() + 60_000) });
      scanIds.push(scan.id);
    }
  });
  afterAll(async () => {
    await store?.close();
    await db?.release();
  });

  it('gives the entries of a full refit, in order, for every filter, setting and clock over the same scans', async () => {
    const window = await store.quotaTrends.refresh(NOW);
    expect(window).toMatchObject({ scanCount: 14 * 4, series: 13, mixedClusterSeries: 1 });
    const requests: TrendsRequest[] = [];
    for (const now of [NOW, new Date(NOW.getTime() + 4 * HOUR + 59 * 60_000)])
      for (const filters of [{}, { accountId: A1 }, { accountId: A2, checkId: 'CLB_BACKEND_QUOTA' }, { checkId: 'ECS_LB_ATTACHMENT_QUOTA' }, { accountId: 'none' }])
        for (const settings of [{}, { minSamples: 2, minSpanHours: 1 }, { minSamples: 500 }, { windowDays: 14.01 }])
          for (const status of [undefined, 'ok' as const]) requests.push({ now, ...filters, settings, ...(status ? { status } : {}) });
    let withEntries = 0;
    for (const r of requests) {
      const got = await trends(r);
      expect(got.fitted, JSON.stringify(r)).toBe(true);
      expect(got.entries, JSON.stringify(r)).toEqual(await refit(r));
      if (got.entries.length > 0) withEntries++;
    }
    expect(withEntries).toBeGreaterThan(requests.length / 2);
    const all = (await trends({ now: NOW })).entries;
    expect(new Set(all.map((e) => e.status))).toEqual(new Set(['exhausted', 'ok', 'flat', 'decreasing']));
  });

  it('refits any other window: a scan dropped out, a cluster filter over a series that moved, a scan completed again', async () => {
    await store.quotaTrends.refresh(NOW);
    // Six hours later the oldest scan of the window is out of it.
    const later = { now: new Date(NOW.getTime() + 6 * HOUR) };
    expect(await trends(later)).toEqual({ entries: await refit(later), fitted: false });
    // i-3 moved from c-1 to c-2: a c-1 filter narrows its samples, so it refits; the other clusters are not exempt.
    for (const clusterId of ['c-1', 'c-2', 'c-0']) {
      const r = { now: NOW, clusterId };
      expect(await trends(r)).toEqual({ entries: await refit(r), fitted: false });
    }
    // Completing the latest scan again (new samples, new finish time) leaves the kept window naming other samples.
    const last = scanIds[scanIds.length - 1]!;
    const redone = samples(200).map((s) => ({ ...s, used: Math.min(s.limit, s.used + 3) }));
    await store.scans.complete(last, { findings: [], coverage: [makeCoverage()], quotaUsage: redone, finishedAt: new Date(NOW.getTime() - 10 * 60_000) });
    const stale = await trends({ now: NOW });
    expect(stale).toEqual({ entries: await refit({ now: NOW }), fitted: false });
    await store.quotaTrends.refresh(NOW);
    expect(await trends({ now: NOW })).toEqual({ entries: stale.entries, fitted: true });
    expect(await store.quotaTrends.refresh(NOW)).toMatchObject({ series: 13 });
  });

  it('uses its fits with cluster filters when no series moved cluster', async () => {
    // Windows of the last 36 hours: i-3 is in c-2 throughout.
    const now = NOW;
    await store.quotaTrends.refresh(now, { windowDays: 1.5 });
    for (const clusterId of ['c-0', 'c-1', 'c-2']) {
      const r = { now, clusterId, settings: { windowDays: 1.5, minSamples: 2, minSpanHours: 1 } };
      const got = await trends(r);
      expect(got).toEqual({ entries: await refit(r), fitted: true });
      expect(got.entries.length).toBeGreaterThan(0);
    }
  });

  /** Every page of `trendsPageFromStore` (cursor to cursor), with whether each read the stored fits. */
  const allPages = async (r: TrendsRequest, paging: Omit<TrendsPaging, 'after'>): Promise<{ pages: TrendEntry[][]; fitted: boolean }> => {
    const pages: TrendEntry[][] = [];
    let after: string | undefined;
    let fitted = true;
    for (;;) {
      const history = vi.spyOn(store.quotaUsage, 'history');
      const page = await trendsPageFromStore(store, r, { ...paging, ...(after ? { after } : {}) }).finally(() => {
        fitted &&= history.mock.calls.length === 0;
        history.mockRestore();
      });
      pages.push(page.trends);
      if (!page.nextCursor) break;
      expect(page.trends).toHaveLength(paging.limit);
      after = page.nextCursor;
    }
    return { pages, fitted };
  };
  const byKey = (e: TrendEntry) => [e.checkId, e.resource.accountId, e.resource.regionId, e.resource.kind, e.resource.id].join('\u0000');

  it('pages: every entry once, in series key order, the same pages from the fits and from a refit', async () => {
    await store.quotaTrends.refresh(NOW);
    for (const r of [{ now: NOW }, { now: NOW, accountId: A1 }, { now: NOW, status: 'ok' as const, settings: { minSamples: 2, minSpanHours: 1 } }, { now: NOW, status: 'flat' as const }, { now: NOW, status: 'exhausted' as const }, { now: NOW, clusterId: 'c-1' }])
      for (const paging of [{ limit: 1 }, { limit: 4 }, { limit: 100 }, { limit: 3, accountIds: [A2] }]) {
        const paged = await allPages(r, paging);
        // The c-1 filter names a series that moved cluster: refitted; every other request reads the fits.
        expect(paged.fitted, JSON.stringify([r, paging])).toBe(r.clusterId === undefined);
        const full = (await refit(r)).filter((e) => !paging.accountIds || paging.accountIds.includes(e.resource.accountId));
        const expected = [...full].sort((a, b) => (byKey(a) < byKey(b) ? -1 : byKey(a) > byKey(b) ? 1 : 0));
        expect(paged.pages.flat(), JSON.stringify([r, paging])).toEqual(expected);
        // Without the fits (a clock whose window holds other scans has none), the same pages.
        const later = { ...r, now: new Date(NOW.getTime() + 6 * HOUR) };
        const refitted = await allPages(later, paging);
        expect(refitted.fitted).toBe(false);
        const laterFull = (await refit(later)).filter((e) => !paging.accountIds || paging.accountIds.includes(e.resource.accountId));
        expect(refitted.pages.flat().map(byKey)).toEqual([...laterFull].map(byKey).sort());
      }
    expect((await allPages({ now: NOW, status: 'ok' }, { limit: 2 })).pages.flat().length).toBeGreaterThan(0);
    await expect(trendsPageFromStore(store, { now: NOW }, { limit: 5, after: 'not-a-cursor' })).rejects.toThrow(StoreError);
  });

  it('retention prunes and deletes scans: trends unchanged, from the kept fits and after the next refresh', async () => {
    await store.quotaTrends.refresh(NOW);
    const before = await trends({ now: NOW });
    expect(before.fitted).toBe(true);
    const run = await store.retention.run({ now: NOW, policy: DEFAULT_RETENTION_POLICY, batchRows: 7 });
    expect(run.scansPruned).toBeGreaterThan(0);
    expect(run.scansDeleted).toBeGreaterThan(0);
    // Pruning keeps each scan's row and quota samples, deletion takes only scans older than the window: the kept
    // window still names exactly the scans a request reads.
    expect(await trends({ now: NOW })).toEqual(before);
    await store.quotaTrends.refresh(NOW);
    expect(await trends({ now: NOW })).toEqual(before);
    // A policy whose quota window is shorter than the trend window deletes scans inside it: the kept fits no longer
    // match, trends refit what is left, and a refresh fits that.
    await store.retention.run({ now: NOW, policy: { ...DEFAULT_RETENTION_POLICY, quotaDays: 7 }, batchRows: 50 });
    const shorter = await trends({ now: NOW });
    expect(shorter.fitted).toBe(false);
    expect(shorter.entries).toEqual(await refit({ now: NOW }));
    expect(shorter.entries.find((e) => e.resource.id === 'lb-0')!.samples).toBeLessThan(before.entries.find((e) => e.resource.id === 'lb-0')!.samples);
    await store.quotaTrends.refresh(NOW);
    expect(await trends({ now: NOW })).toEqual({ entries: shorter.entries, fitted: true });
  });
  it("reads every group in the refresh's one snapshot, on each of its connections: a scan completed meanwhile is in none of its fits", async () => {
    // A new scan in the window, so the refresh below fits a new window instead of keeping one.
    const at = new Date(NOW.getTime() - HOUR / 2);
    const scan = await store.scans.create({ source: 'offline', fleetName: 'prod', startedAt: at });
    await store.scans.complete(scan.id, { findings: [], coverage: [makeCoverage()], quotaUsage: samples(80) });
    const expected = await store.quotaUsage.history({ since: new Date(NOW.getTime() - 14 * DAY), until: NOW });
    // Another writer (its own pool) completes a scan in the window, with a new series in every (check, account) group,
    // once the refresh's second connection has taken the refresh's snapshot and before it reads anything.
    const other = await Store.open({ connectionString: db.url });
    const concurrent = samples(81).map((q) => ({ ...q, resource: { ...q.resource, id: `${q.resource.id}-concurrent` } }));
    let imported = 0;
    const original = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const result = (original as (...a: unknown[]) => unknown).apply(this, args);
      if (typeof args[0] !== 'string' || !args[0].startsWith('SET TRANSACTION SNAPSHOT')) return result;
      imported += 1;
      return (result as Promise<unknown>).then(async (r) => {
        const meanwhile = await other.scans.create({ source: 'offline', fleetName: 'prod', startedAt: new Date(at.getTime() + 60_000) });
        await other.scans.complete(meanwhile.id, { findings: [], coverage: [makeCoverage()], quotaUsage: concurrent });
        return r;
      });
    } as typeof original);
    try {
      const window = await store.quotaTrends.refresh(NOW);
      expect(imported).toBe(1);
      expect(window.series).toBe(expected.length);
    } finally {
      spy.mockRestore();
      await other.close();
    }
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const fits = await c.query<{ resource_id: string; samples: number }>('SELECT resource_id, samples FROM quota_trend_fits ORDER BY resource_id');
      expect(fits.rows.map((r) => r.resource_id)).toEqual(expected.map((h) => h.resource.id).sort());
      expect(fits.rows.map((r) => Number(r.samples))).toEqual([...expected].sort((a, b) => (a.resource.id < b.resource.id ? -1 : 1)).map((h) => h.observations.length));
    } finally {
      await c.end();
    }
  });
  it("keeps each window's fits in a table of its own, indexed as the parent, and drops the tables of the windows it replaced", async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    /** The tables named as window tables, with whether each is a partition of quota_trend_fits and pending detach. */
    const windowTables = async () =>
      (
        await c.query<{ name: string; attached: boolean; pending: boolean | null }>(
          `SELECT c.relname AS name, i.inhrelid IS NOT NULL AS attached, i.inhdetachpending AS pending
             FROM pg_class c LEFT JOIN pg_inherits i ON i.inhrelid = c.oid AND i.inhparent = 'quota_trend_fits'::regclass
            WHERE c.relkind = 'r' AND c.relname LIKE 'quota_trend_fits_w%' ORDER BY c.relname`,
        )
      ).rows;
    /** The parent index each index of `table` is attached to (none: not attached). */
    const indexParents = async (table: string) =>
      (
        await c.query<{ parent: string | null }>(
          `SELECT p.relname AS parent FROM pg_index x
             LEFT JOIN pg_inherits i ON i.inhrelid = x.indexrelid LEFT JOIN pg_class p ON p.oid = i.inhparent
            WHERE x.indrelid = $1::regclass ORDER BY 1`,
          [table],
        )
      ).rows.map((r) => r.parent);
    try {
      const at = new Date(NOW.getTime() - HOUR / 4);
      const scan = await store.scans.create({ source: 'offline', fleetName: 'prod', startedAt: at });
      await store.scans.complete(scan.id, { findings: [], coverage: [makeCoverage()], quotaUsage: samples(82) });
      const first = await store.quotaTrends.refresh(NOW);
      expect(await windowTables()).toEqual([{ name: `quota_trend_fits_w${first.id}`, attached: true, pending: false }]);
      expect(await indexParents(`quota_trend_fits_w${first.id}`)).toEqual(['quota_trend_fits_account_idx', 'quota_trend_fits_cluster_idx', 'quota_trend_fits_pkey']);
      const rows = await c.query<{ n: string }>(`SELECT count(*) AS n FROM quota_trend_fits_w${first.id} WHERE window_id = $1`, [first.id]);
      expect(Number(rows.rows[0]!.n)).toBe(first.series);
      // The same scans again: the window is kept, no table made or dropped.
      expect((await store.quotaTrends.refresh(NOW)).id).toBe(first.id);
      expect((await windowTables()).map((t) => t.name)).toEqual([`quota_trend_fits_w${first.id}`]);

      // What an interrupted cleanup leaves: a table detached but not dropped, and a partition whose concurrent detach
      // stopped after its first transaction (a reader held the parent past the lock timeout).
      await c.query('CREATE TABLE quota_trend_fits_w900000001 (LIKE quota_trend_fits INCLUDING DEFAULTS)');
      await c.query('CREATE TABLE quota_trend_fits_w900000002 (LIKE quota_trend_fits INCLUDING DEFAULTS, CHECK (window_id = 900000002))');
      await c.query('ALTER TABLE quota_trend_fits ATTACH PARTITION quota_trend_fits_w900000002 FOR VALUES IN (900000002)');
      const reader = new pg.Client({ connectionString: db.url });
      await reader.connect();
      try {
        await reader.query('BEGIN');
        await reader.query('SELECT count(*) FROM quota_trend_fits');
        await c.query("SET lock_timeout = '300ms'");
        await expect(c.query('ALTER TABLE quota_trend_fits DETACH PARTITION quota_trend_fits_w900000002 CONCURRENTLY')).rejects.toThrow(/lock timeout/);
        await c.query('RESET lock_timeout');
      } finally {
        await reader.query('COMMIT');
        await reader.end();
      }
      expect(await windowTables()).toEqual([
        { name: `quota_trend_fits_w${first.id}`, attached: true, pending: false },
        { name: 'quota_trend_fits_w900000001', attached: false, pending: null },
        { name: 'quota_trend_fits_w900000002', attached: true, pending: true },
      ]);

      // A new scan: the next refresh fits a new window, and every other window table goes.
      const later = await store.scans.create({ source: 'offline', fleetName: 'prod', startedAt: new Date(at.getTime() + 60_000) });
      await store.scans.complete(later.id, { findings: [], coverage: [makeCoverage()], quotaUsage: samples(83) });
      const second = await store.quotaTrends.refresh(NOW);
      expect(second.id).not.toBe(first.id);
      expect(await windowTables()).toEqual([{ name: `quota_trend_fits_w${second.id}`, attached: true, pending: false }]);
      expect((await c.query('SELECT id::text AS id FROM quota_trend_windows')).rows).toEqual([{ id: second.id }]);
      expect(await trends({ now: NOW })).toEqual({ entries: await refit({ now: NOW }), fitted: true });
      expect(await store.quotaTrends.dropReplacedWindows()).toEqual([]);
    } finally {
      await c.end();
    }
  });

  it('refreshes after a scan on a thread of its own, with the same window and fits as here; its errors reach the caller', async () => {
    expect(trendRefreshThreadBuilt()).toBe(true);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const fitRows = async () =>
        (await c.query('SELECT * FROM quota_trend_fits ORDER BY check_id, account_id, region_id, resource_kind, resource_id')).rows.map(
          ({ window_id: _w, ...rest }: Record<string, unknown>) => rest,
        );
      await c.query('DELETE FROM quota_trend_windows');
      const here = await store.quotaTrends.refresh(NOW);
      const expected = await fitRows();
      await c.query('DELETE FROM quota_trend_windows');
      const inProcess = vi.spyOn(store.quotaTrends, 'refresh');
      let threaded;
      try {
        threaded = await store.quotaTrends.refreshAfterScan(NOW, { minSamples: 0 });
        expect(inProcess).not.toHaveBeenCalled();
        // A few hundred samples (far below THREAD_MIN_SAMPLES): refreshed here, the window already kept.
        expect((await store.quotaTrends.refreshAfterScan(NOW)).id).toBe(threaded.id);
        expect(inProcess).toHaveBeenCalledTimes(1);
      } finally {
        inProcess.mockRestore();
      }
      expect({ ...threaded, id: here.id }).toEqual(here);
      expect(threaded.id).not.toBe(here.id);
      expect(await fitRows()).toEqual(expected);
      // The current window again: kept, answered from the thread without a new table.
      expect((await store.quotaTrends.refreshAfterScan(NOW, { minSamples: 0 })).id).toBe(threaded.id);
      const pool = new pg.Pool({ connectionString: db.url, max: 1 });
      try {
        const unreachable = new QuotaTrendRepository(pool, store.quotaUsage, 2, 2, true, 'postgres://postgres@127.0.0.1:1/none');
        await expect(unreachable.refreshAfterScan(NOW, { minSamples: 0 })).rejects.toThrow(/ECONNREFUSED/);
      } finally {
        await pool.end();
      }
    } finally {
      await c.end();
    }
  });

  it('writes the same fits with COPY (a PostgreSQL server) and with INSERTs (the one-connection embedded path)', async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const single = await Store.open({ connectionString: db.url, poolMax: 1 });
    try {
      const fitsAfter = async (s: Store) => {
        await c.query('DELETE FROM quota_trend_windows');
        await s.quotaTrends.refresh(NOW);
        const { rows } = await c.query('SELECT * FROM quota_trend_fits ORDER BY check_id, account_id, region_id, resource_kind, resource_id');
        return rows.map(({ window_id: _w, ...rest }: Record<string, unknown>) => rest);
      };
      const copied = await fitsAfter(store);
      expect(copied.length).toBeGreaterThan(10);
      expect(await fitsAfter(single)).toEqual(copied);
    } finally {
      await single.close();
      await c.end();
    }
  });
});
