/**
 * The stored fleet snapshot's encodings on the PostgreSQL server (`scan_snapshots.encoding`, migration
 * 1800100000000): a scan stores snappy blocks (`snappy+json`) and `latest` reads them back; a gzip row (`gzip+json`,
 * as older versions wrote) of the same text reads back the same; a corrupt or truncated row, of either encoding, and
 * a shard's corrupt snapshot part, make `latest` fail with a StoreError naming the scan, never a crash.
 */
import { join } from 'node:path';
import { crc32, gzipSync } from 'node:zlib';
import { Client } from 'pg';
import { compressSync, uncompressSync } from 'snappy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFleetDirectory } from '@app/collectors';
import { Store, StoreError } from '@app/store';
import { makeCoverage, makeFindings } from './finding.factory';
import { createTestDatabase, type TestDatabase } from './test-database.util';

/**
 * The text of snappy blocks, decoded here from their documented framing (libs/store snappy-blocks.util.ts): the magic
 * `FASNAPB1`, per block its length and CRC-32 then the block, an end record of 0 and the block count.
 */
function snappyBlocksText(bytes: Buffer): Buffer {
  expect(bytes.toString('latin1', 0, 8)).toBe('FASNAPB1');
  const text: Buffer[] = [];
  let at = 8;
  for (let length = bytes.readUInt32BE(at); length > 0; length = bytes.readUInt32BE(at)) {
    text.push(uncompressSync(bytes.subarray(at + 8, at + 8 + length), { asBuffer: true }) as Buffer);
    at += 8 + length;
  }
  expect(bytes.readUInt32BE(at + 4)).toBe(text.length);
  expect(at + 8).toBe(bytes.length);
  return Buffer.concat(text);
}

/** `text` as snappy blocks of the documented framing, one block. */
function snappyBlocksOf(text: Buffer): Buffer {
  const block = compressSync(text);
  const head = Buffer.alloc(16);
  head.write('FASNAPB1', 0, 'latin1');
  head.writeUInt32BE(block.length, 8);
  head.writeUInt32BE(crc32(block), 12);
  const end = Buffer.alloc(8);
  end.writeUInt32BE(1, 4);
  return Buffer.concat([head, block, end]);
}

describe('stored snapshot encodings (scan_snapshots.encoding)', () => {
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

  it('stores snappy blocks of the JSON lines, their size recorded, and reads them back', async () => {
    const stored = await row();
    expect(stored.encoding).toBe('snappy+json');
    const text = snappyBlocksText(stored.snapshot);
    expect(Number(stored.bytes_raw)).toBe(text.length);
    expect(text.toString('utf8', 0, 42)).toBe('{"format":"fleet-audit-snapshot-lines/2"}\n');
    const latest = await store.snapshots.latest();
    expect(latest?.scanId).toBe(scanId);
    expect(JSON.stringify(latest?.snapshot)).toBe(JSON.stringify(sample));
  });

  it('reads a gzip row (gzip+json) of the same text, and one of a single JSON text, the same', async () => {
    const { snapshot } = await row();
    const text = snappyBlocksText(snapshot);
    await setRow('gzip+json', gzipSync(text), text.length);
    expect(JSON.stringify((await store.snapshots.latest())?.snapshot)).toBe(JSON.stringify(sample));
    const whole = Buffer.from(JSON.stringify(sample));
    await setRow('gzip+json', gzipSync(whole), whole.length);
    expect(JSON.stringify((await store.snapshots.latest())?.snapshot)).toBe(JSON.stringify(sample));
    await setRow('snappy+json', snapshot, text.length);
  });

  it('fails with a StoreError naming the scan for a corrupt, truncated or mis-sized row of either encoding', async () => {
    const { snapshot, bytes_raw } = await row();
    const rawBytes = Number(bytes_raw);
    const text = snappyBlocksText(snapshot);
    const flipped = Buffer.from(snapshot);
    flipped[flipped.length >> 1] ^= 0x01;
    const gz = gzipSync(text);
    const bad: [string, Buffer, number, RegExp][] = [
      ['snappy+json', flipped, rawBytes, /CRC-32/],
      ['snappy+json', snapshot.subarray(0, snapshot.length - 8), rawBytes, /cut short/],
      ['snappy+json', snapshot, rawBytes - 1, /the row says/],
      ['snappy+json', gz, rawBytes, /magic/],
      ['gzip+json', gz.subarray(0, gz.length >> 1), rawBytes, /end of file/],
      ['gzip+json', snapshot, rawBytes, /header/],
      ['gzip+json', gzipSync('{"format":"fleet-audit-snapshot-lines/2"}\n{"accounts":'), rawBytes, /the row says/],
      ['gzip+json', gzipSync('{"format":"fleet-audit-snapshot-lines/2"}\n{"accounts":'), 54, /JSON/],
    ];
    for (const [encoding, bytes, size, why] of bad) {
      await setRow(encoding, bytes, size);
      const e = await latestError();
      expect(e).toBeInstanceOf(StoreError);
      expect((e as StoreError).code).toBe('CONFLICT');
      expect((e as StoreError).message).toContain(`the stored snapshot of scan ${scanId} cannot be read`);
      expect((e as StoreError).message).toMatch(why);
    }
    await setRow('snappy+json', snapshot, rawBytes);
    expect(JSON.stringify((await store.snapshots.latest())?.snapshot)).toBe(JSON.stringify(sample));
  });

  it("reads a sharded scan's parts in either encoding, and names the shard whose part is corrupt", async () => {
    const sharded = await store.scans.create({ source: 'offline', fleetName: 'snapshot-encoding-shards', startedAt: new Date(Date.now() + 3_600_000) });
    await store.scans.complete(sharded.id, { findings: [], coverage: [makeCoverage()] });
    const { snapshot } = await row();
    const part = Buffer.from(JSON.stringify(sample));
    const insert = async (key: string, bytes: Buffer, rawBytes: number): Promise<void> => {
      await sql.query(
        `INSERT INTO scan_shards (scan_id, shard_key, account_id, region_id, lead, status, snapshot, bytes_raw) VALUES ($1, $2, $2, 'r', true, 'done', $3, $4)`,
        [sharded.id, key, bytes, rawBytes],
      );
    };
    await insert('a', gzipSync(part), part.length);
    await insert('a2', snappyBlocksOf(part), part.length);
    const latest = await store.snapshots.latest();
    expect(latest?.scanId).toBe(sharded.id);
    expect(latest?.snapshot.accounts.map((a) => a.accountId)).toEqual(sample.accounts.map((a) => a.accountId));
    expect(latest?.snapshot.accounts[0]?.regions.length).toBe(2 * sample.accounts[0]!.regions.length);
    await insert('b', snapshot.subarray(0, 100), part.length);
    const e = await latestError();
    expect(e).toBeInstanceOf(StoreError);
    expect((e as StoreError).message).toContain(`the stored snapshot of scan ${sharded.id} (shard b/r) cannot be read`);
    await sql.query('DELETE FROM scans WHERE id = $1', [sharded.id]);
  });
});
