/**
 * libs/store ScanTargetRepository on the real PostgreSQL: the per-target state of distributed
 * scans (pending -> ok | failed), idempotent upserts, progress counts and the reconciler's query.
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeText } from '@app/domain';
import { Store, StoreError, type ScanTargetRef, type StoredScanTarget } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const account = (accountId: string): { key: string; target: ScanTargetRef } => ({
  key: `account/${accountId}`,
  target: { kind: 'account', accountId },
});
/** The slice of a row stored as one part (what `saveSlice` wrote), or null without a slice. */
const sliceOf = (t: StoredScanTarget | null | undefined): unknown => (t?.parts ? t.parts.read(0) : null);
const region = (accountId: string, regionId: string): { key: string; target: ScanTargetRef } => ({
  key: `region/${accountId}/${regionId}`,
  target: { kind: 'region', accountId, regionId },
});

describe('ScanTargetRepository (PostgreSQL)', () => {
  let db: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
  });

  afterAll(async () => {
    await store?.close();
    await db?.release();
  });

  async function newScan(): Promise<string> {
    return (await store.scans.create({ source: 'distributed', fleetName: 'f' })).id;
  }

  it('records pending targets once, then slices and failures; an ok target is never downgraded', async () => {
    const scanId = await newScan();
    const a = account('1001');
    const r1 = region('1001', 'cn-hangzhou');
    const r2 = region('1001', 'cn-beijing');
    expect(await store.scanTargets.ensurePending(scanId, [a, r1, r2, r1])).toBe(3);
    expect(await store.scanTargets.ensurePending(scanId, [a, r1])).toBe(0);
    expect(await store.scanTargets.progress(scanId)).toEqual({ total: 3, done: 0, failed: 0, pending: 3 });

    await store.scanTargets.saveSlice(scanId, r1.key, r1.target, { target: r1.target, coverage: [] });
    await store.scanTargets.saveSlice(scanId, r1.key, r1.target, {
      target: r1.target,
      coverage: [],
      again: true,
    });
    await store.scanTargets.markFailed(scanId, [
      { key: r1.key, target: r1.target, error: 'late duplicate failed' },
      { key: r2.key, target: r2.target, error: 'Throttling.User' },
    ]);

    expect(await store.scanTargets.progress(scanId)).toEqual({ total: 3, done: 1, failed: 1, pending: 1 });
    const rows = await store.scanTargets.listForScan(scanId);
    expect(rows.map((r) => [r.targetKey, r.status, r.error])).toEqual([
      ['account/1001', 'pending', null],
      ['region/1001/cn-beijing', 'failed', 'Throttling.User'],
      ['region/1001/cn-hangzhou', 'ok', null],
    ]);
    expect(sliceOf(await store.scanTargets.get(scanId, r1.key))).toEqual({
      target: r1.target,
      coverage: [],
      again: true,
    });
    expect(await store.scanTargets.get(scanId, 'account/none')).toBeNull();
  });

  it('stores a slice gzip-compressed (no jsonb 256 MiB limit), reading back what jsonb gave, and still reads older jsonb slices', async () => {
    const scanId = await newScan();
    const r1 = region('2001', 'cn-hangzhou');
    const r2 = region('2001', 'cn-shanghai');
    await store.scanTargets.ensurePending(scanId, [r1, r2]);
    // Keys in no particular order, a NUL jsonb refuses, text outside ASCII.
    const slice = { target: r1.target, zz: { b: 1, a: [{ yy: 'x', a: null }] }, coverage: [], names: ['a\u0000b', 'é', '😀'], n: 12.5 };
    await store.scanTargets.saveSlice(scanId, r1.key, r1.target, slice);
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      const row = (
        await sql.query<{ slice: unknown; gz: Buffer | null; parts: number | null }>(
          'SELECT slice, slice_gz AS gz, cardinality(slice_parts) AS parts FROM scan_targets WHERE scan_id = $1 AND target_key = $2',
          [scanId, r1.key],
        )
      ).rows[0]!;
      expect([row.slice, row.gz, row.parts]).toEqual([null, null, 1]);
      // A row of an older release: the same slice in the jsonb column, as the store wrote it (strings made storable).
      await sql.query(`UPDATE scan_targets SET status = 'ok', slice = $3::jsonb WHERE scan_id = $1 AND target_key = $2`, [scanId, r2.key, JSON.stringify(slice, (_k, v: unknown) => (typeof v === 'string' ? sanitizeText(v) : v))]);
    } finally {
      await sql.end();
    }
    const [fromGzip, fromJsonb] = (await store.scanTargets.listForScan(scanId)).map(sliceOf);
    // Byte for byte what jsonb gives back: its key order, the NUL made storable.
    expect(JSON.stringify(fromGzip)).toBe(JSON.stringify(fromJsonb));
    expect((fromGzip as { names: string[] }).names).toEqual(['a\u2400b', 'é', '😀']);
    expect(sliceOf(await store.scanTargets.get(scanId, r1.key))).toEqual(fromGzip);
    expect((await store.scanTargets.listForPlace(scanId, '2001', 'cn-hangzhou')).map(sliceOf)).toEqual([fromGzip]);
    expect((await store.scanTargets.listStates(scanId)).map((t) => t.parts)).toEqual([null, null]);
  });

  it('stores a slice in parts by one statement and reads each part on its own; older single-document slices read as one part', async () => {
    const scanId = await newScan();
    const r1 = region('3001', 'cn-hangzhou');
    const r2 = region('3001', 'cn-shanghai');
    const r3 = region('3001', 'cn-beijing');
    await store.scanTargets.ensurePending(scanId, [r1, r2, r3]);
    const parts = [{ target: r1.target, coverage: [], zz: 1, a: 'x\u0000' }, { region: { ecsInstances: [{ InstanceId: 'i-1' }] } }, { region: { ecsInstances: [] } }];
    await store.scanTargets.saveSliceParts(scanId, r1.key, r1.target, parts);
    // Written twice (a retried crawl job): the second write replaces the first.
    await store.scanTargets.saveSliceParts(scanId, r1.key, r1.target, [parts[0], parts[2], parts[1]]);
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      // Rows of older releases: the slice as one gzip document (migration 1799200000000) or as jsonb.
      await sql.query(`UPDATE scan_targets SET status = 'ok', slice_gz = $3 WHERE scan_id = $1 AND target_key = $2`, [scanId, r2.key, gzipSync(JSON.stringify({ target: r2.target, coverage: [] }))]);
      await sql.query(`UPDATE scan_targets SET status = 'ok', slice = $3::jsonb WHERE scan_id = $1 AND target_key = $2`, [scanId, r3.key, JSON.stringify({ target: r3.target, coverage: [] })]);
    } finally {
      await sql.end();
    }
    const rows = await store.scanTargets.listForPlace(scanId, '3001', 'cn-hangzhou');
    expect(rows.map((r) => r.targetKey)).toEqual([r1.key]);
    const read = rows[0]!.parts!;
    expect(read.length).toBe(3);
    // jsonb's key order and storable text, as every slice reads.
    expect(JSON.stringify([read.read(0), read.read(1), read.read(2)])).toBe(
      JSON.stringify([{ a: 'x\u2400', zz: 1, target: { kind: 'region', regionId: 'cn-hangzhou', accountId: '3001' }, coverage: [] }, parts[2], parts[1]]),
    );
    expect(() => read.read(3)).toThrow(/region\/3001\/cn-hangzhou has no part 3/);
    const older = await store.scanTargets.listForScan(scanId);
    expect(older.map((r) => [r.targetKey, r.parts?.length, sliceOf(r)])).toEqual([
      ['region/3001/cn-beijing', 1, { target: r3.target, coverage: [] }],
      ['region/3001/cn-hangzhou', 3, JSON.parse(JSON.stringify(read.read(0)))],
      ['region/3001/cn-shanghai', 1, { target: r2.target, coverage: [] }],
    ]);
    await expect(store.scanTargets.saveSliceParts(scanId, r1.key, r1.target, [])).rejects.toSatisfy(
      (e: unknown) => e instanceof StoreError && e.code === 'INVALID_ARGUMENT',
    );
    expect((await store.scanTargets.get(scanId, r1.key))?.parts?.length).toBe(3);
  });

  it('names a missing scan NOT_FOUND and reads nothing for it', async () => {
    const missing = randomUUID();
    await expect(store.scanTargets.ensurePending(missing, [account('1')])).rejects.toSatisfy(
      (e: unknown) => e instanceof StoreError && e.code === 'NOT_FOUND',
    );
    await expect(
      store.scanTargets.saveSlice('not-a-uuid', 'k', account('1').target, {}),
    ).rejects.toBeInstanceOf(StoreError);
    expect(await store.scanTargets.listForScan(missing)).toEqual([]);
    expect(await store.scanTargets.progress(missing)).toEqual({ total: 0, done: 0, failed: 0, pending: 0 });
  });

  it('lists running distributed scans started before a time, oldest first', async () => {
    const old = await store.scans.create({
      source: 'distributed',
      fleetName: 'old',
      startedAt: new Date('2020-01-01T00:00:00Z'),
    });
    const done = await store.scans.create({
      source: 'distributed',
      fleetName: 'done',
      startedAt: new Date('2020-01-02T00:00:00Z'),
    });
    await store.scans.complete(done.id, { findings: [], coverage: [] });
    await store.scans.create({
      source: 'live',
      fleetName: 'local',
      startedAt: new Date('2020-01-03T00:00:00Z'),
    });
    const running = await store.scanTargets.listRunningDistributed(new Date('2021-01-01T00:00:00Z'));
    expect(running.map((s) => s.id)).toEqual([old.id]);
    expect(running[0]).toMatchObject({
      fleetName: 'old',
      startedAt: '2020-01-01T00:00:00.000Z',
      settings: {},
    });
  });
});
