/**
 * The stored fleet snapshot's encoding on the PostgreSQL server (`scan_snapshots.encoding`, `gzip+json`): a scan
 * stores its JSON lines (version 3, lists in the column form) gzip-compressed, their size in `bytes_raw`, and
 * `latest` reads them back; a row of version 2 lines or of one JSON text, stored before, reads back the same; a
 * corrupt or truncated row (also one cut at a gzip member's end, which decompresses without error and only
 * `bytes_raw` tells short), a wrong `bytes_raw`, column lists that do not fit together, an encoding this version does
 * not decode, and a shard's corrupt snapshot part make `latest` fail with a StoreError naming the scan (and the
 * shard), never a crash. Shard parts read in both forms: the lines a shard stores now, one JSON text as before.
 */
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFleetDirectory } from '@app/collectors';
import { Store, StoreError } from '@app/store';
import { encodeSnapshotLines } from '../../libs/store/src/scan-snapshot.repository';
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
    await db?.release();
  });

  it('stores gzip of the JSON lines, their size recorded, and reads them back', async () => {
    const stored = await row();
    expect(stored.encoding).toBe('gzip+json');
    const text = gunzipSync(stored.snapshot);
    expect(Number(stored.bytes_raw)).toBe(text.length);
    expect(text.toString('utf8', 0, 42)).toBe('{"format":"fleet-audit-snapshot-lines/3"}\n');
    // The sample's CLB backend lists are column lists.
    expect(text.toString('utf8')).toMatch(/"backendServers":\{"n":\d+,"k":\["serverId"/);
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

  it('reads a row of version 2 lines (no column lists), as stored before', async () => {
    const { snapshot, bytes_raw } = await row();
    const lines = ['{"format":"fleet-audit-snapshot-lines/2"}', JSON.stringify({ ...sample, accounts: [] })];
    const lists = ['loadBalancers', 'nlbs', 'nlbServerGroups', 'ecsInstances', 'vSwitches', 'clusters'] as const;
    for (const a of sample.accounts) {
      lines.push(JSON.stringify({ a: { ...a, regions: [] } }));
      for (const r of a.regions) {
        const head: Record<string, unknown> = { ...r };
        for (const name of lists) if (Array.isArray(r[name])) head[name] = [];
        lines.push(JSON.stringify({ r: head }));
        for (const name of lists) if (r[name]?.length) lines.push(JSON.stringify({ l: name, v: r[name] }));
      }
    }
    const v2 = Buffer.from(`${lines.join('\n')}\n`);
    await setRow('gzip+json', gzipSync(v2), v2.length);
    expect(JSON.stringify((await store.snapshots.latest())?.snapshot)).toBe(JSON.stringify(sample));
    await setRow('gzip+json', snapshot, Number(bytes_raw));
  });

  it('fails with a StoreError naming the scan for column lists that do not fit together (valid gzip of valid JSON)', async () => {
    const { snapshot, bytes_raw } = await row();
    const text = gunzipSync(snapshot).toString('utf8');
    const spoilt: [string, RegExp][] = [
      // A block's column index out of the line's table.
      [text.replace(/("backendServers":\{"n":\d+,"k":\[[^\]]*\],"v":\[)\d+/, '$19999'), /refers to column 9999/],
      // A path to a list that is not there.
      [text.replace(/"c":\[\[(\d+),"vServerGroups"/, '"c":[[$1,"noSuchList"'), /column path .* leads to no value at "noSuchList"/],
    ];
    try {
      for (const [t, why] of spoilt) {
        expect(t).not.toBe(text);
        const bytes = Buffer.from(t);
        await setRow('gzip+json', gzipSync(bytes), bytes.length);
        expectUnreadable(await latestError(), scanId, '', why);
      }
    } finally {
      await setRow('gzip+json', snapshot, Number(bytes_raw));
    }
    expect(JSON.stringify((await store.snapshots.latest())?.snapshot)).toBe(JSON.stringify(sample));
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
      [Buffer.from('{"format":"fleet-audit-snapshot-lines/3"}\n'), rawBytes, /header/],
      [gzipSync('{"format":"fleet-audit-snapshot-lines/3"}\n{"accounts":'), 54, /JSON/],
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

  it("reads a sharded scan's gzip parts in the lines form and as one JSON text, and names the shard whose part is corrupt or not its recorded size", async () => {
    const sharded = await store.scans.create({ source: 'offline', fleetName: 'snapshot-encoding-shards', startedAt: new Date(Date.now() + 3_600_000) });
    await store.scans.complete(sharded.id, { findings: [], coverage: [makeCoverage()] });
    // A part as parts were stored before (one JSON text), and one as a shard stores it now.
    const part = Buffer.from(JSON.stringify(sample));
    const gz = gzipSync(part);
    const lines = await encodeSnapshotLines(sample);
    const insert = async (key: string, bytes: Buffer, rawBytes: number): Promise<void> => {
      await sql.query(
        `INSERT INTO scan_shards (scan_id, shard_key, account_id, region_id, lead, status, snapshot, bytes_raw) VALUES ($1, $2, $2, 'r', true, 'done', $3, $4)`,
        [sharded.id, key, bytes, rawBytes],
      );
    };
    try {
      await insert('a', gz, part.length);
      await insert('a2', lines.bytes, lines.rawBytes);
      const latest = await store.snapshots.latest();
      expect(latest?.scanId).toBe(sharded.id);
      expect(latest?.snapshot.accounts.map((a) => a.accountId)).toEqual(sample.accounts.map((a) => a.accountId));
      expect(latest?.snapshot.accounts[0]?.regions.length).toBe(2 * sample.accounts[0]!.regions.length);
      // Each region twice, once from each part, the same.
      const regions = latest!.snapshot.accounts[0]!.regions;
      for (let i = 0; i < regions.length; i += 2) expect(JSON.stringify(regions[i + 1])).toBe(JSON.stringify(regions[i]));
      expect(JSON.stringify(regions.filter((_, i) => i % 2 === 0))).toBe(JSON.stringify(sample.accounts[0]!.regions));
      await insert('c', lines.bytes.subarray(0, lines.bytes.length - 10), lines.rawBytes);
      expectUnreadable(await latestError(), sharded.id, ' (shard c/r)', /unexpected end of file/);
      await sql.query(`DELETE FROM scan_shards WHERE scan_id = $1 AND shard_key = 'c'`, [sharded.id]);
      await insert('b', gz.subarray(0, 100), part.length);
      expectUnreadable(await latestError(), sharded.id, ' (shard b/r)', /unexpected end of file/);
      await sql.query(`UPDATE scan_shards SET snapshot = $2, bytes_raw = $3 WHERE scan_id = $1 AND shard_key = 'b'`, [sharded.id, gz, part.length + 1]);
      expectUnreadable(await latestError(), sharded.id, ' (shard b/r)', /the row says/);
    } finally {
      await sql.query('DELETE FROM scans WHERE id = $1', [sharded.id]);
    }
  });
});
