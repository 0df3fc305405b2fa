/**
 * Per-scan partitions of `quota_usage` and `graph_ecs_instances` (migration 1800600000001) and `findings` (migration
 * 1800800000000; libs/store scan-partition.util.ts) on a real PostgreSQL, with scans of the bundled sample fleet stored by `analyzeAndStore`:
 * - the chunked store leaves each scan's rows in a table of its own, attached with every index of its parent;
 * - a store that cannot finish drops the tables it had not attached;
 * - retention drops a deleted scan's partitions whole and touches no other scan's rows, and a run drops per-scan
 *   tables whose scan is gone;
 * - down and up again over stored rows: the rows stored before the upgrade stay in one partition bound to their scans,
 *   read the same, are re-stored there and deleted by retention; scans stored after get partitions of their own;
 *   the same for `findings` alone (its generated `severity_rank` computed again on the way down).
 */
import { join } from 'node:path';
import { Client, type PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeAndStore } from '@app/audit';
import { loadFleetDirectory } from '@app/collectors';
import { DEFAULT_RETENTION_POLICY, PER_SCAN_TABLES, scanPartition, Store, SYSTEM_PRINCIPAL } from '@app/store';
import { createTestDatabase, rollBackThrough, type TestDatabase } from './test-database.util';

const MIGRATION = '1800600000001_per_scan_partitions';
const FINDINGS_MIGRATION = '1800800000000_per_scan_findings';
const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const HOUR = 3_600_000;

describe('per-scan partitions (integration)', () => {
  let db: TestDatabase;
  let store: Store;
  let sql: Client;
  const snapshot = loadFleetDirectory(SAMPLE);
  let clock = Date.UTC(2026, 10, 1);

  /** Stores the sample fleet as a new scan, an hour after the previous one; returns its id. */
  const storeScan = async (): Promise<string> => {
    clock += HOUR;
    const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name, startedAt: new Date(clock) });
    await analyzeAndStore(snapshot, { scanId: scan.id, now: new Date(clock), store });
    return scan.id;
  };
  /** Rows of `table` per scan id (through the parent). */
  const rowsByScan = async (table: string): Promise<Record<string, number>> => {
    const { rows } = await sql.query<{ scan_id: string; n: number }>(`SELECT scan_id, count(*)::int AS n FROM ${table} GROUP BY scan_id`);
    return Object.fromEntries(rows.map((r) => [r.scan_id, r.n]));
  };
  /** The partitions of `table` by name, with their index count. */
  const partitionsOf = async (table: string): Promise<Record<string, number>> => {
    const { rows } = await sql.query<{ relname: string; n: number }>(
      `SELECT c.relname, (SELECT count(*)::int FROM pg_index x WHERE x.indrelid = c.oid) AS n
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`,
      [table],
    );
    return Object.fromEntries(rows.map((r) => [r.relname, r.n]));
  };
  const exists = async (name: string): Promise<boolean> => (await sql.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [name])).rows[0]!.t !== null;
  const relkind = async (table: string): Promise<string> => (await sql.query<{ k: string }>(`SELECT relkind AS k FROM pg_class WHERE oid = $1::regclass`, [table])).rows[0]!.k;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await store?.close();
    await db?.release();
  });

  let first: string;
  let firstQuota: number;
  let firstEcs: number;
  it("the chunked store leaves each scan's rows in its own partition, with its parent's indexes", async () => {
    first = await storeScan();
    expect(await relkind('quota_usage')).toBe('p');
    expect(await relkind('graph_ecs_instances')).toBe('p');
    firstQuota = (await rowsByScan('quota_usage'))[first]!;
    firstEcs = (await rowsByScan('graph_ecs_instances'))[first]!;
    expect(firstQuota).toBeGreaterThan(0);
    expect(firstEcs).toBeGreaterThan(0);
    expect(await partitionsOf('quota_usage')).toEqual({ [scanPartition('quota_usage', first)]: 4 });
    expect(await partitionsOf('graph_ecs_instances')).toEqual({ [scanPartition('graph_ecs_instances', first)]: 3 });
    expect(await partitionsOf('findings')).toEqual({ [scanPartition('findings', first)]: 7 });
    expect(Object.values(await rowsByScan('findings'))).toEqual([expect.any(Number)]);
    const own = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${scanPartition('quota_usage', first)}`);
    expect(own.rows[0]!.n).toBe(firstQuota);
    expect((await store.quotaUsage.forScan(first, SYSTEM_PRINCIPAL)).length).toBe(firstQuota);
  });

  it('a store that cannot finish drops the tables it had not attached', async () => {
    const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name, startedAt: new Date(clock + 1) });
    const quotaUsage = await store.quotaUsage.forScan(first, SYSTEM_PRINCIPAL);
    let chunks = 0;
    await expect(
      store.scans.complete(scan.id, {
        findings: [],
        coverage: [],
        quotaUsage,
        onChunk: () => {
          chunks += 1;
          throw new Error('worker killed mid-store');
        },
      }),
    ).rejects.toThrow('worker killed mid-store');
    expect(chunks).toBe(1);
    // Its quota samples' table was attached as soon as its one chunk committed (emptied since: dropping a partition
    // would lock the parent against every reader); the ECS instances' table, never written, was attached empty.
    // Neither holds a row; retention drops both with the failed scan.
    for (const t of PER_SCAN_TABLES) {
      const own = await sql.query<{ partition: boolean; n: number }>(
        `SELECT c.relispartition AS partition, (SELECT count(*)::int FROM ${scanPartition(t, scan.id)}) AS n FROM pg_class c WHERE c.oid = $1::regclass`,
        [scanPartition(t, scan.id)],
      );
      expect(own.rows, t).toEqual([{ partition: true, n: 0 }]);
    }
    expect((await rowsByScan('quota_usage'))[scan.id]).toBeUndefined();
    await store.scans.fail(scan.id, 'killed');
    expect(await store.retentionRows.delete(scan.id, 50)).toEqual({ scans: 1 });
    for (const t of PER_SCAN_TABLES) expect(await exists(scanPartition(t, scan.id)), t).toBe(false);
  });

  let second: string;
  it("retention drops a deleted scan's partitions whole and leaves every other scan's rows", async () => {
    second = await storeScan();
    const third = await storeScan();
    const before = await rowsByScan('quota_usage');
    const removed = await store.retentionRows.delete(second, 7);
    expect(removed).toMatchObject({ quota_usage: before[second], graph_ecs_instances: firstEcs, scans: 1 });
    for (const t of PER_SCAN_TABLES) expect(await exists(scanPartition(t, second)), t).toBe(false);
    expect(await rowsByScan('quota_usage')).toEqual({ [first]: firstQuota, [third]: before[third] });
    expect(Object.keys(await partitionsOf('graph_ecs_instances')).sort()).toEqual([scanPartition('graph_ecs_instances', first), scanPartition('graph_ecs_instances', third)].sort());
  });

  it("a retention run drops per-scan tables whose scan is gone, and no other scan's", async () => {
    const gone = '0badc0de-0000-4000-8000-000000000001';
    for (const t of PER_SCAN_TABLES) await sql.query(`CREATE TABLE ${scanPartition(t, gone)} (LIKE ${t})`);
    const kept = await partitionsOf('quota_usage');
    const run = await store.retention.run({ now: new Date(clock), policy: DEFAULT_RETENTION_POLICY, batchRows: 50 });
    expect(run.status).toBe('done');
    for (const t of PER_SCAN_TABLES) expect(await exists(scanPartition(t, gone)), t).toBe(false);
    expect(await partitionsOf('quota_usage')).toEqual(kept);
  });

  it('findings down to a plain table and up again: the rows stay, in one partition bound to their scans, and read the same', async () => {
    const findings = await rowsByScan('findings');
    expect((await rollBackThrough(sql, FINDINGS_MIGRATION)).at(-1)).toBe(FINDINGS_MIGRATION);
    expect(await relkind('findings')).toBe('r');
    expect(await relkind('quota_usage')).toBe('p');
    expect(await rowsByScan('findings')).toEqual(findings);
    const ranks = await sql.query<{ severity: string; rank: number }>('SELECT DISTINCT severity, severity_rank AS rank FROM findings ORDER BY rank');
    expect(ranks.rows.length).toBeGreaterThan(0);
    for (const r of ranks.rows) expect(r.rank).toBe({ info: 0, warning: 1, critical: 2 }[r.severity]);
    expect((await sql.query(`SELECT relname FROM pg_class WHERE relname ~ '^findings_s[0-9a-f]{32}$'`)).rows).toEqual([]);
    // A chunked store in flight across the upgrade: a chunk of its findings committed into the plain table.
    const inflight = (await store.scans.create({ source: 'offline', fleetName: snapshot.name, startedAt: new Date(clock + 2) })).id;
    const finding = (fingerprint: string, severity: string) =>
      sql.query(
        `INSERT INTO ${fingerprint === 'fp-before' ? 'findings' : scanPartition('findings', inflight)}
           (scan_id, fingerprint, check_id, severity, account_id, region_id, resource_kind, resource_id, message, remediation, source)
         VALUES ($1, $2, 'CHECK', $3, 'acct', 'cn-hangzhou', 'Service', 'svc', 'm', 'r', 's')`,
        [inflight, fingerprint, severity],
      );
    await finding('fp-before', 'critical');
    // A Store opened on the older schema writes findings through the plain table.
    await store.close();
    store = await Store.open({ connectionString: db.url, migrate: false });
    const between = await storeScan();
    expect(await exists(scanPartition('findings', between))).toBe(false);
    expect((await rowsByScan('findings'))[between]).toBe(findings[first]);
    const page = await store.findings.list({ scanId: first, limit: 1000 }, SYSTEM_PRINCIPAL);
    expect(page.items.length).toBeGreaterThan(0);

    await store.close();
    store = await Store.open({ connectionString: db.url, migrate: true });
    expect(await relkind('findings')).toBe('p');
    expect(Object.keys(await partitionsOf('findings'))).toEqual(['findings_unpartitioned']);
    expect(await store.findings.list({ scanId: first, limit: 1000 }, SYSTEM_PRINCIPAL)).toEqual(page);
    const after = await storeScan();
    expect(Object.keys(await partitionsOf('findings')).sort()).toEqual(['findings_unpartitioned', scanPartition('findings', after)].sort());
    expect((await rowsByScan('findings'))[after]).toBe(findings[first]);
    expect(await store.retentionRows.delete(between, 50)).toMatchObject({ findings: findings[first], scans: 1 });
    expect(Object.keys(await partitionsOf('findings')).sort()).toEqual(['findings_unpartitioned', scanPartition('findings', after)].sort());
    expect((await rowsByScan('findings'))[between]).toBeUndefined();

    // The store in flight resumes: its other chunks go into its own table, which cannot be attached (its scan's rows
    // are bound to the old table's partition), so its rows move through the parent, their rank computed there.
    await store.scanPartitions.createTables(sql as unknown as PoolClient, inflight);
    await finding('fp-after', 'info');
    await store.scanPartitions.attachTable(inflight, 'findings');
    expect(await exists(scanPartition('findings', inflight))).toBe(false);
    const moved = await sql.query<{ fingerprint: string; rank: number; part: string }>(
      'SELECT fingerprint, severity_rank AS rank, tableoid::regclass::text AS part FROM findings WHERE scan_id = $1 ORDER BY fingerprint',
      [inflight],
    );
    expect(moved.rows).toEqual([
      { fingerprint: 'fp-after', rank: 0, part: 'findings_unpartitioned' },
      { fingerprint: 'fp-before', rank: 2, part: 'findings_unpartitioned' },
    ]);
  });

  it('down: plain tables holding every row; up again: those rows stay in one partition, read, re-stored and deleted there', async () => {
    const quota = await rowsByScan('quota_usage');
    const ecs = await rowsByScan('graph_ecs_instances');
    const firstSamples = await store.quotaUsage.forScan(first, SYSTEM_PRINCIPAL);
    expect((await rollBackThrough(sql, MIGRATION)).at(-1)).toBe(MIGRATION);
    expect(await relkind('quota_usage')).toBe('r');
    expect(await rowsByScan('quota_usage')).toEqual(quota);
    expect(await rowsByScan('graph_ecs_instances')).toEqual(ecs);
    const left = await sql.query(`SELECT relname FROM pg_class WHERE relname ~ '_s[0-9a-f]{32}$'`);
    expect(left.rows).toEqual([]);

    await store.close();
    store = await Store.open({ connectionString: db.url, migrate: true });
    expect(await relkind('quota_usage')).toBe('p');
    expect(Object.keys(await partitionsOf('quota_usage'))).toEqual(['quota_usage_unpartitioned']);
    expect(await rowsByScan('quota_usage')).toEqual(quota);
    expect(await store.quotaUsage.forScan(first, SYSTEM_PRINCIPAL)).toEqual(firstSamples);

    // A scan stored before the upgrade, stored again (its result replaced): its rows stay where they are.
    await analyzeAndStore(snapshot, { scanId: first, now: new Date(clock), store });
    expect(await exists(scanPartition('quota_usage', first))).toBe(false);
    expect((await rowsByScan('quota_usage'))[first]).toBe(firstQuota);

    const fourth = await storeScan();
    expect(Object.keys(await partitionsOf('quota_usage')).sort()).toEqual(['quota_usage_unpartitioned', scanPartition('quota_usage', fourth)].sort());
    const removed = await store.retentionRows.delete(first, 50);
    expect(removed).toMatchObject({ quota_usage: firstQuota, graph_ecs_instances: firstEcs, scans: 1 });
    expect((await rowsByScan('quota_usage'))[first]).toBeUndefined();
    expect((await rowsByScan('quota_usage'))[fourth]).toBe(firstQuota);
  });
});
