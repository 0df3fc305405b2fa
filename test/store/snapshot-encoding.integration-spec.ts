/**
 * The stored fleet snapshot's encoding on the PostgreSQL server (`scan_snapshots.encoding`, `gzip+json`): a scan
 * stores its JSON lines gzip-compressed, their size in `bytes_raw`, and `latest` reads them back; a row of one JSON
 * text reads back the same; a corrupt or truncated row (also one cut at a gzip member's end, which decompresses
 * without error and only `bytes_raw` tells short), a wrong `bytes_raw`, an encoding this version does not decode, and
 * a shard's corrupt snapshot part make `latest` fail with a StoreError naming the scan (and the shard), never a crash.
 */
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFleetDirectory } from '@app/collectors';
import { Store, StoreError } from '@app/store';
import { makeCoverage, makeFindings } from './finding.factory';
import { createTestDatabase, type TestDatabase } from './test-database.util';

describe('stored snapshot encoding (scan_snapshots.encoding gzip+json)', () => {
  const sample = loadFleetDirectory(join(__dirname, '..', '..', 'examples', 'fleets', 'sample'));
  let db: TestDatabase;
  let store: Store;
  let sql: Client;
  let scanId: string;

  /** The stored row of the scan. */
  const row = async (): Promise<{ encoding: string; snapshot: Buffer; bytes_raw: string }> =>
    (await sql.query<{ encoding: string; snapshot: Buffer; bytes_raw: string }>('SELECT encoding, snapshot, bytes_raw FROM scan_snapshots WHERE scan_id = $1', [scanId])).rows[0]!;
  /** Replace the scan's stored row. */
  const setRow = async (encoding: string, snapshot: Buffer, rawBytes: number): Promise<void> => {
    await sql.query('UPDATE scan_snapshots SET encoding = $2, snapshot = $3, bytes_raw = $4 WHERE scan_id = $1', [scanId, encoding, snapshot, rawBytes]);
  };
  /** What `latest` throws, or undefined. */
  const latestError = async (): Promise<unknown> => store.snapshots.latest().then(() => undefined, (e: unknown) => e);
  /** Expect `e` to be the StoreError of an unreadable snapshot of `scan` (`where`: the shard, '' for none), its reason matching `why`. */
  const expectUnreadable = (e: unknown, scan: string, where: string, why: RegExp): void => {
    expect(e).toBeInstanceOf(StoreError);
    expect((e as StoreError).code).toBe('CONFLICT');
    expect((e as StoreError).message).toContain(`the stored snapshot of scan ${scan}${where} cannot be read`);
    expect((e as StoreError).message).toMatch(why);
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    const scan = await store.scans.create({ source: 'offline', fleetName: 'snapshot-encoding' });
    scanId = scan.id;
    await store.scans.complete(scanId, { findings: makeFindings(3), coverage: [makeCoverage()], snapshot: sample });
  }, 120_000);

  afterAll(async () => {
    await sql?.end();
    await store?.close();
    await db?.drop();
  });

  it('stores gzip of the JSON lines, their size recorded, and reads them back', async () => {
    const stored = await row();
    expect(stored.encoding).toBe('gzip+json');
    const text = gunzipSync(stored.snapshot);
    expect(Number(stored.bytes_raw)).toBe(text.length);
    expect(text.toString('utf8', 0, 42)).toBe('{"format":"fleet-audit-snapshot-lines/2"}\n');
    const latest = await store.snapshots.latest();
    expect(latest?.scanId).toBe(scanId);
    expect(JSON.stringify(latest?.snapshot)).toBe(JSON.stringify(sample));
  });

  it('reads the lines as several gzip members, and a row of one JSON text, the same', async () => {
    const { snapshot, bytes_raw } = await row();
    const text = gunzipSync(snapshot);
    const half = text.length >> 1;
    await setRow('gzip+json', Buffer.concat([gzipSync(text.subarray(0, half)), gzipSync(text.subarray(half))]), text.length);
    expect(JSON.stringify((await store.snapshots.latest())?.snapshot)).toBe(JSON.stringify(sample));
    const whole = Buffer.from(JSON.stringify(sample));
    await setRow('gzip+json', gzipSync(whole), whole.length);
    expect(JSON.stringify((await store.snapshots.latest())?.snapshot)).toBe(JSON.stringify(sample));
    await setRow('gzip+json', snapshot, Number(bytes_raw));
  });

  it('fails with a StoreError naming the scan for a corrupt, truncated or mis-sized row', async () => {
    const { snapshot, bytes_raw } = await row();
    const rawBytes = Number(bytes_raw);
    const text = gunzipSync(snapshot);
    const half = text.length >> 1;
    const firstMember = gzipSync(text.subarray(0, half));
    const twoMembers = Buffer.concat([firstMember, gzipSync(text.subarray(half))]);
    // A byte of the gzip trailer's CRC-32 changed: the text decompresses, its check fails.
    const badCheck = Buffer.from(snapshot);
    badCheck[badCheck.length - 8] ^= 0x01;
    const bad: [Buffer, number, RegExp][] = [
      [badCheck, rawBytes, /incorrect data check/],
      [snapshot.subarray(0, snapshot.length >> 1), rawBytes, /unexpected end of file/],
      // Cut at the end of its first member: valid gzip, half the text.
      [firstMember, rawBytes, /the row says/],
      [twoMembers, rawBytes - 1, /the row says/],
      [snapshot, rawBytes + 1, /the row says/],
      [Buffer.from('{"format":"fleet-audit-snapshot-lines/2"}\n'), rawBytes, /header/],
      [gzipSync('{"format":"fleet-audit-snapshot-lines/2"}\n{"accounts":'), 54, /JSON/],
    ];
    for (const [bytes, size, why] of bad) {
      await setRow('gzip+json', bytes, size);
      expectUnreadable(await latestError(), scanId, '', why);
    }
    await setRow('gzip+json', snapshot, rawBytes);
    expect(JSON.stringify((await store.snapshots.latest())?.snapshot)).toBe(JSON.stringify(sample));
  });

  it('fails with a StoreError naming the scan for an encoding this version does not decode', async () => {
    const { snapshot, bytes_raw } = await row();
    // The schema admits gzip+json alone; a row of another encoding is what a newer version could leave behind.
    await sql.query('ALTER TABLE scan_snapshots DROP CONSTRAINT scan_snapshots_encoding_check');
    try {
      await setRow('zstd+json', snapshot, Number(bytes_raw));
      expectUnreadable(await latestError(), scanId, '', /unknown encoding "zstd\+json"/);
    } finally {
      await setRow('gzip+json', snapshot, Number(bytes_raw));
      await sql.query(`ALTER TABLE scan_snapshots ADD CONSTRAINT scan_snapshots_encoding_check CHECK (encoding = 'gzip+json')`);
    }
    expect(JSON.stringify((await store.snapshots.latest())?.snapshot)).toBe(JSON.stringify(sample));
  });

  it("reads a sharded scan's gzip parts, and names the shard whose part is corrupt or not its recorded size", async () => {
    const sharded = await store.scans.create({ source: 'offline', fleetName: 'snapshot-encoding-shards', startedAt: new Date(Date.now() + 3_600_000) });
    await store.scans.complete(sharded.id, { findings: [], coverage: [makeCoverage()] });
    const part = Buffer.from(JSON.stringify(sample));
    const gz = gzipSync(part);
    const insert = async (key: string, bytes: Buffer, rawBytes: number): Promise<void> => {
      await sql.query(
        `INSERT INTO scan_shards (scan_id, shard_key, account_id, region_id, lead, status, snapshot, bytes_raw) VALUES ($1, $2, $2, 'r', true, 'done', $3, $4)`,
        [sharded.id, key, bytes, rawBytes],
      );
    };
    try {
      await insert('a', gz, part.length);
      await insert('a2', gz, part.length);
      const latest = await store.snapshots.latest();
      expect(latest?.scanId).toBe(sharded.id);
      expect(latest?.snapshot.accounts.map((a) => a.accountId)).toEqual(sample.accounts.map((a) => a.accountId));
      expect(latest?.snapshot.accounts[0]?.regions.length).toBe(2 * sample.accounts[0]!.regions.length);
      await insert('b', gz.subarray(0, 100), part.length);
      expectUnreadable(await latestError(), sharded.id, ' (shard b/r)', /unexpected end of file/);
      await sql.query(`UPDATE scan_shards SET snapshot = $2, bytes_raw = $3 WHERE scan_id = $1 AND shard_key = 'b'`, [sharded.id, gz, part.length + 1]);
      expectUnreadable(await latestError(), sharded.id, ' (shard b/r)', /the row says/);
    } finally {
      await sql.query('DELETE FROM scans WHERE id = $1', [sharded.id]);
    }
  });
});
