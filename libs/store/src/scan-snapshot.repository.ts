import { gunzipSync } from 'node:zlib';
import type { Pool, PoolClient } from 'pg';
import { coverageKey, type AccountSnapshot, type CoverageEntry, type FleetSnapshot, type RegionSnapshot } from '@app/domain';
import { compressedPartsBuffer, compressedWriter, threadedGzipCodec, type CompressedEncoding, type CompressedParts } from './gzip-json.util';
import { copyIn } from './copy.util';
import { ColumnLine, expandColumnLine } from './snapshot-columns.util';
import { StoreError } from './store.exception';
import { toIso } from './sql.util';

/** A stored snapshot with the scan it belongs to. */
export interface StoredSnapshot {
  scanId: string;
  /** Observation time of the scan (its start, ISO 8601). */
  observedAt: string;
  snapshot: FleetSnapshot;
}

/**
 * Fleet snapshots of succeeded scans (table `scan_snapshots`, gzip-compressed JSON lines, column `encoding`
 * `gzip+json`): what the what-if and headroom forecasts run on when given a database. Writes happen only inside
 * `ScanRepository.complete`.
 * A sharded scan has no whole snapshot: each shard stored its part in `scan_shards`
 * (ScanShardRepository), and the loader merges the parts into the snapshot the in-process analysis would
 * have stored (`mergeSnapshotParts`).
 */
/** The latest succeeded scan that stored a snapshot (whole, or in shard parts): what `latest` reads. */
const LATEST_FROM = `FROM scans s LEFT JOIN scan_snapshots n ON n.scan_id = s.id
        WHERE s.status = 'succeeded'
          AND (n.scan_id IS NOT NULL
               OR EXISTS (SELECT 1 FROM scan_shards p WHERE p.scan_id = s.id AND p.snapshot IS NOT NULL))
        ORDER BY s.started_at DESC, s.id DESC LIMIT 1`;

export class ScanSnapshotRepository {
  /**
   * @param pool the store's connection pool
   * @param binaryCopy whether `copyCompressed` may run: only a store with COPY lanes (the chunked store, a PostgreSQL
   *   server). The embedded PGlite behind its socket never finishes a binary `COPY ... FROM STDIN`: the caller would
   *   hang on its only connection (the demo did, after printing its findings), so there it fails at once instead.
   */
  constructor(
    private readonly pool: Pool,
    private readonly binaryCopy = true,
  ) {}

  /**
   * Store (or replace) the snapshot of a scan, encoded by `encodeSnapshotParts`, with one INSERT: the path of a
   * store without COPY lanes (the embedded PGlite).
   * @param client the transaction's client
   */
  async replaceForScan(client: PoolClient, scanId: string, snapshot: FleetSnapshot): Promise<void> {
    const parts = await encodeSnapshotParts(snapshot);
    await client.query(
      `INSERT INTO scan_snapshots (scan_id, encoding, snapshot, bytes_raw) VALUES ($1, $2, $3, $4)
       ON CONFLICT (scan_id) DO UPDATE SET encoding = EXCLUDED.encoding, snapshot = EXCLUDED.snapshot, bytes_raw = EXCLUDED.bytes_raw`,
      [scanId, parts.encoding, compressedPartsBuffer(parts), parts.rawBytes],
    );
  }

  /**
   * Store (or replace) the snapshot of a scan encoded by `encodeSnapshotParts` (a chunked store encodes once and
   * may write it again after a lost connection), with one binary `COPY` whose bytea field is sent in pieces straight
   * from the parts: neither one Buffer of the whole compressed snapshot nor the driver's copy of it as a bind
   * parameter is built (each hundreds of MB at 5,000 clusters, memory outside V8's heap that made it mark the whole
   * heap).
   * @param client the transaction's client
   * @param buffer what the COPY data is encoded into (`copyBuffer`); a new one when omitted
   */
  async copyCompressed(client: PoolClient, scanId: string, snapshot: CompressedParts, buffer?: Buffer): Promise<void> {
    if (!this.binaryCopy)
      throw new Error(`cannot store the snapshot of scan ${scanId} by binary COPY: this store has no COPY lanes (embedded PGlite never finishes one); use replaceForScan`);
    await client.query('DELETE FROM scan_snapshots WHERE scan_id = $1', [scanId]);
    await copyIn(client, 'COPY scan_snapshots (scan_id, encoding, snapshot, bytes_raw) FROM STDIN (FORMAT binary)', async (out) => {
      // PostgreSQL docs, "COPY", section "Binary Format": signature, flags, header extension length; then per tuple
      // the field count and each field's length and bytes (uuid: 16 bytes, text: its UTF-8, bytea: as is, bigint:
      // 8 bytes, big-endian like every integer here); then -1 as the field count.
      const encoding = Buffer.from(snapshot.encoding, 'utf8');
      const head = Buffer.alloc(19 + 2 + 4 + 16 + 4 + encoding.length + 4);
      head.write('PGCOPY\n\xff\r\n\0', 0, 'latin1');
      let at = 19;
      at = head.writeInt16BE(4, at);
      at = head.writeInt32BE(16, at);
      at += head.write(scanId.replaceAll('-', ''), at, 'hex');
      at = head.writeInt32BE(encoding.length, at);
      at += encoding.copy(head, at);
      head.writeInt32BE(snapshot.bytes, at);
      await out.writeBytes(head);
      for (const part of snapshot.parts) await out.write(part, 'latin1');
      const tail = Buffer.alloc(4 + 8 + 2);
      tail.writeInt32BE(8, 0);
      tail.writeBigInt64BE(BigInt(snapshot.rawBytes), 4);
      tail.writeInt16BE(-1, 12);
      await out.writeBytes(tail);
    }, buffer);
  }

  /**
   * The snapshot of the succeeded scan that started last among those that stored one (whole, or in shard
   * parts), or null.
   * @throws StoreError CONFLICT naming the scan when its stored snapshot cannot be read (corrupt or truncated bytes,
   *   an encoding this process cannot decode)
   */
  async latest(): Promise<StoredSnapshot | null> {
    const { rows } = await this.pool.query<{
      scan_id: string;
      started_at: Date | string;
      encoding: CompressedEncoding | null;
      snapshot: Buffer | null;
      bytes_raw: string | number | null;
    }>(`SELECT s.id AS scan_id, s.started_at, n.encoding, n.snapshot, n.bytes_raw ${LATEST_FROM}`);
    const row = rows[0];
    if (!row) return null;
    const snapshot = row.snapshot
      ? readable(row.scan_id, '', () => parseStoredSnapshot(row.snapshot as Buffer, row.encoding ?? 'gzip+json', Number(row.bytes_raw)))
      : await this.fromParts(row.scan_id);
    return { scanId: row.scan_id, observedAt: toIso(row.started_at), snapshot };
  }

  /**
   * The id of the scan `latest` would read, or null, without reading its snapshot: a caller that keeps the latest
   * snapshot (the admission webhook) asks this often and reads the snapshot again only when the id changed.
   */
  async latestScanId(): Promise<string | null> {
    const { rows } = await this.pool.query<{ scan_id: string }>(`SELECT s.id AS scan_id ${LATEST_FROM}`);
    return rows[0]?.scan_id ?? null;
  }

  /**
   * The merged snapshot of a sharded scan: every done shard's part and every shard's coverage.
   * @throws StoreError CONFLICT naming the scan and shard whose part cannot be read
   */
  private async fromParts(scanId: string): Promise<FleetSnapshot> {
    const { rows } = await this.pool.query<{
      account_id: string;
      region_id: string;
      snapshot: Buffer | null;
      bytes_raw: string | number | null;
      coverage: CoverageEntry[];
    }>('SELECT account_id, region_id, snapshot, bytes_raw, coverage FROM scan_shards WHERE scan_id = $1 ORDER BY account_id, region_id', [scanId]);
    return mergeSnapshotParts(
      rows.flatMap((r) =>
        r.snapshot
          ? [readable(scanId, ` (shard ${r.account_id}/${r.region_id})`, () => parseSnapshotPart(r.snapshot as Buffer, r.bytes_raw === null ? undefined : Number(r.bytes_raw)))]
          : [],
      ),
      rows.flatMap((r) => r.coverage),
    );
  }
}

/**
 * What `read` returns, any error of it (bad bytes: zlib's, a size check's, a SyntaxError) turned into one a caller can
 * show: a StoreError naming the scan.
 * @param where appended to the scan's id in the message (the shard), '' for none
 * @throws StoreError CONFLICT when `read` throws
 */
function readable<T>(scanId: string, where: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new StoreError('CONFLICT', `the stored snapshot of scan ${scanId}${where} cannot be read: ${why}`, { cause: e });
  }
}

/**
 * A shard's snapshot part (`scan_shards.snapshot`, `ScanShardRepository.storeDone`): gzip of the JSON-lines form
 * (`encodeSnapshotLines`), or of one JSON text as parts were stored before; both read by `parseStoredSnapshot`.
 * @param rawBytes the row's `bytes_raw`, checked against the text's size when given (a part cut at a gzip member's
 *   end decompresses without error)
 * @throws Error when the bytes are not gzip (zlib's error) or their text is not `rawBytes` long; SyntaxError when
 *   the text is not a snapshot in either form
 */
export function parseSnapshotPart(bytes: Buffer, rawBytes?: number): FleetSnapshot {
  return parseStoredSnapshot(bytes, 'gzip+json', rawBytes);
}

/**
 * First line of a snapshot stored as JSON lines. A 5,000-cluster fleet's snapshot is longer as one JSON text than
 * the longest string V8 can hold (about 512 MiB: `JSON.stringify` threw "Invalid string length"),
 * so it is stored as lines: this header, the snapshot with `accounts: []`, then per account `{"a": account with
 * regions: []}` followed by its regions. A region is `{"r": region}` with its long lists (`REGION_LISTS`) empty,
 * then `{"l": list name, "v": [items]}` lines that append to those lists, each line at most `LINE_ITEMS` items of
 * one list (one cluster per line): no line holds more than a bounded slice of a region, however large the region
 * (one region of a 5,000-cluster fleet in 10 accounts was one 450 MB line, near that limit).
 *
 * Version 3 writes the lists inside the items of the lines of `COLUMN_LISTS` in the column form
 * (snapshot-columns.util.ts): a list of objects of the same keys is a block of its keys once, the values all its items
 * share once, and columns of the rest in the line's table `t` (one column of ids shared by every block that lists the
 * same ids), the blocks' paths in the line's `c`: `{"l": name, "v": [items], "c": [paths], "t": [columns]}`, `c` and
 * `t` absent when the line has no block; when a line's items are themselves one list of the same keys (ECS
 * instances), `v` is their block (path `[]`). The bench fleet's backend-server lists were 73 % of its JSON: at 500
 * clusters its text is 57.0 MiB instead of 225.6 MiB (gzip: 11.1 MiB instead of 24.3).
 * Versions 1 (a whole region per line, no `l` lines) and 2 (no columns), and snapshots stored before as one JSON
 * text, read as before.
 */
const SNAPSHOT_LINES_HEADER = '{"format":"fleet-audit-snapshot-lines/3"}';

/** Header of version 2, the lines without the column form: its lines are read without looking for `c` and `t`. */
const SNAPSHOT_LINES_V2_HEADER = '{"format":"fleet-audit-snapshot-lines/2"}';

/** Headers of the JSON-lines forms this version reads (`parseStoredSnapshot`): versions 1, 2 and 3. */
const READABLE_HEADERS = ['{"format":"fleet-audit-snapshot-lines/1"}', SNAPSHOT_LINES_V2_HEADER, SNAPSHOT_LINES_HEADER];

/** The long lists of a region, stored in `l` lines of their own after the region's `r` line. */
const REGION_LISTS = ['loadBalancers', 'nlbs', 'nlbServerGroups', 'ecsInstances', 'vSwitches', 'clusters'] as const;

/**
 * The long lists whose lines are written in the column form. Not `clusters`: a cluster's Kubernetes objects are many
 * short lists (a node's labels, an EndpointSlice's endpoints), whose blocks cost more to build than their text
 * (bench fleet, 200 clusters: 2.2 times the CPU of writing them as objects, for 27 % fewer bytes), where the CLB and NLB
 * backend lists cost 2.4 and 2.8 times less.
 */
const COLUMN_LISTS: ReadonlySet<string> = new Set<(typeof REGION_LISTS)[number]>(['loadBalancers', 'nlbs', 'nlbServerGroups', 'ecsInstances', 'vSwitches']);

/** Items per `l` line (count) of each long list: clusters one per line (a cluster's Kubernetes objects are large). */
const LINE_ITEMS: Readonly<Record<(typeof REGION_LISTS)[number], number>> = {
  loadBalancers: 256,
  nlbs: 512,
  nlbServerGroups: 256,
  ecsInstances: 2048,
  vSwitches: 2048,
  clusters: 1,
};

/**
 * A snapshot in the JSON-lines form (`SNAPSHOT_LINES_HEADER`) compressed as the store keeps it (`gzip+json`), as one
 * Buffer.
 * @returns the compressed bytes, their encoding and the size of the uncompressed text (bytes)
 */
export async function encodeSnapshotLines(snapshot: FleetSnapshot): Promise<{ bytes: Buffer; encoding: CompressedEncoding; rawBytes: number }> {
  const parts = await encodeSnapshotParts(snapshot);
  return { bytes: compressedPartsBuffer(parts), encoding: parts.encoding, rawBytes: parts.rawBytes };
}

/**
 * A snapshot in the JSON-lines form (`SNAPSHOT_LINES_HEADER`), written line by line into a gzip writer
 * (`compressedWriter` with `threadedGzipCodec`: one gzip member per 8 MiB slab, compressed on a thread) so no string
 * holds more than one line (a bounded slice of a region), the compressed bytes left in the parts the writer keeps them in (`CompressedParts`,
 * encoding `gzip+json`), for `ScanSnapshotRepository.copyCompressed`.
 * @throws zlib's error when a slab cannot be compressed
 */
export async function encodeSnapshotParts(snapshot: FleetSnapshot): Promise<CompressedParts> {
  const writer = compressedWriter(threadedGzipCodec());
  // Each piece of text goes straight into the writer's slab (synchronous while it fits: an item is a few KB, a
  // million of them each awaited cost more than their JSON): a list line is written item by item (the same bytes as
  // the line's JSON.stringify), so no string of a whole line of 256 CLBs is built. Such strings (MBs each, 2 GB for a
  // 5,000-cluster snapshot) were allocated in V8's large-object space, counted as old generation, and made V8
  // collect the whole heap (the snapshot, its index, the analysis) again and again while the scan was stored; and
  // items are not joined into longer strings first, which V8 would flatten (copy) before writing them.
  const put = (text: string): Promise<void> | undefined => writer.write(text);
  const line = async (text: string): Promise<void> => {
    await put(text);
    await put('\n');
  };
  await line(SNAPSHOT_LINES_HEADER);
  await line(JSON.stringify({ ...snapshot, accounts: [] }));
  for (const account of snapshot.accounts) {
    await line(JSON.stringify({ a: { ...account, regions: [] } }));
    for (const region of account.regions) {
      // The lists emptied in place of their items (key order kept; a list not read stays absent).
      const head: Record<string, unknown> = { ...region };
      for (const name of REGION_LISTS) if (Array.isArray(region[name])) head[name] = [];
      await line(JSON.stringify({ r: head }));
      for (const name of REGION_LISTS) {
        const items = region[name] as unknown[] | undefined;
        if (!Array.isArray(items)) continue;
        const size = LINE_ITEMS[name];
        const open = `{"l":${JSON.stringify(name)},"v":[`;
        for (let i = 0; i < items.length; i += size) {
          // JSON.stringify({ l: name, v: items.slice(i, i + size), c, t }) with the items' lists in the column form
          // (the items themselves one block when they are one list of the same keys), one item, path list and column
          // at a time (an array writes undefined as null).
          const columns = COLUMN_LISTS.has(name) ? new ColumnLine() : undefined;
          const end = Math.min(items.length, i + size);
          const whole = columns && end - i > 1 ? columns.compactLine(items.slice(i, end)) : undefined;
          if (whole) await put(`${open.slice(0, -1)}${JSON.stringify(whole)}`);
          else {
            await put(open);
            for (let j = i; j < end; j++) {
              if (j > i) {
                const comma = put(',');
                if (comma) await comma;
              }
              const handed = put(JSON.stringify(columns ? columns.compact(items[j], j - i) : items[j]) ?? 'null');
              if (handed) await handed;
            }
            await put(']');
          }
          if (columns && columns.paths.length > 0) {
            await put(',"c":');
            await put(JSON.stringify(columns.paths));
            await put(',"t":[');
            for (let t = 0; t < columns.table.length; t++) {
              if (t > 0) await put(',');
              await put(JSON.stringify(columns.table[t]));
            }
            await put(']');
          }
          await put('}\n');
        }
      }
    }
  }
  return writer.endParts();
}

/**
 * The uncompressed text of a stored snapshot, in pieces (one Buffer: gzip's members decompress as one stream).
 * @param encoding the row's `encoding`; any value but `gzip+json` is refused (a row this version cannot decode)
 * @throws Error when the encoding is not `gzip+json`, or the bytes are not gzip (zlib's error)
 */
function storedText(bytes: Buffer, encoding: CompressedEncoding): Buffer[] {
  if (encoding === 'gzip+json') return [gunzipSync(bytes)];
  throw new Error(`unknown encoding ${JSON.stringify(encoding)} (this version reads gzip+json)`);
}

/**
 * The lines of a text held in pieces (`\n`-separated, UTF-8): a line may run across pieces; a last line without
 * its `\n` is a line too. `from` bytes of the first piece are skipped (the header, already read).
 */
function* linesOf(pieces: readonly Buffer[], from: number): Generator<string> {
  let carry: Buffer[] = [];
  for (let p = 0; p < pieces.length; p++) {
    const piece = pieces[p]!;
    for (let start = p === 0 ? from : 0; start < piece.length; ) {
      const end = piece.indexOf(0x0a, start);
      if (end < 0) {
        carry.push(piece.subarray(start));
        break;
      }
      if (carry.length === 0) yield piece.toString('utf8', start, end);
      else {
        yield Buffer.concat([...carry, piece.subarray(start, end)]).toString('utf8');
        carry = [];
      }
      start = end + 1;
    }
  }
  if (carry.length > 0) yield Buffer.concat(carry).toString('utf8');
}

/**
 * A stored snapshot as the snapshot: the JSON-lines form (`SNAPSHOT_LINES_HEADER`, version 1, 2 or 3, its column
 * lists expanded), or one JSON text (a row without the lines header). The result equals the snapshot that was stored
 * as JSON gives it back (`JSON.parse(JSON.stringify(snapshot))`), keys in the same order.
 * @param bytes the row's `snapshot`
 * @param encoding the row's `encoding` (`gzip+json`)
 * @param rawBytes the row's `bytes_raw`, checked against the text's size (a row cut at a gzip member's end
 *   decompresses without error); omitted, not checked
 * @throws SyntaxError when the text is not a snapshot in either form (also a version 3 column list whose path,
 *   block or columns are not what the writer writes); Error when `encoding` is not `gzip+json`,
 *   the bytes are not gzip, or their text is not `rawBytes` long
 */
export function parseStoredSnapshot(bytes: Buffer, encoding: CompressedEncoding = 'gzip+json', rawBytes?: number): FleetSnapshot {
  const pieces = storedText(bytes, encoding);
  let size = 0;
  for (const p of pieces) size += p.length;
  if (rawBytes !== undefined && size !== rawBytes) throw new Error(`its text is ${size} bytes, the row says ${rawBytes}`);
  const first = pieces.length > 1 && pieces[0]!.length < 64 ? Buffer.concat(pieces) : (pieces[0] ?? Buffer.alloc(0));
  const header = READABLE_HEADERS.map((h) => Buffer.from(`${h}\n`, 'utf8')).find((h) => first.subarray(0, h.length).equals(h));
  if (!header) return JSON.parse(Buffer.concat(pieces).toString('utf8')) as FleetSnapshot;
  const columns = header.toString('utf8') === `${SNAPSHOT_LINES_HEADER}\n`;
  let snapshot: FleetSnapshot | undefined;
  let account: AccountSnapshot | undefined;
  let region: RegionSnapshot | undefined;
  for (const line of linesOf(first === pieces[0] ? pieces : [first], header.length)) {
    const item = JSON.parse(line) as { a?: AccountSnapshot; r?: RegionSnapshot; l?: string; v?: unknown; c?: unknown; t?: unknown } & FleetSnapshot;
    if (!snapshot) {
      if (!Array.isArray(item.accounts)) throw new SyntaxError('stored snapshot: the line after the header is not a snapshot');
      snapshot = item;
    } else if (item.a) {
      snapshot.accounts.push((account = item.a));
      region = undefined;
    } else if (item.r && account) account.regions.push((region = item.r));
    else if (item.l !== undefined && region && item.v !== undefined && Array.isArray(region[item.l as keyof RegionSnapshot])) {
      const list = region[item.l as keyof RegionSnapshot] as unknown[];
      const values = columns && (item.c !== undefined || item.t !== undefined) ? expandColumnLine(item.v, item.c, item.t) : item.v;
      if (!Array.isArray(values)) throw new SyntaxError(`stored snapshot: the items of a ${item.l} line are not a list`);
      for (const x of values) list.push(x);
    } else throw new SyntaxError('stored snapshot: a region line before any account line, or a list line without its region');
  }
  if (!snapshot) throw new SyntaxError('stored snapshot: no snapshot line after the header');
  return snapshot;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Merge the snapshot parts of a sharded scan into one snapshot, in the order of the in-process analysis's
 * snapshot (libs/domain `mapWireFleet`): accounts by id, each account's regions by id, coverage by
 * `coverageKey`. An account's fields (name, RAM) come from its first part (the lead shard's, which alone
 * carries the RAM data); the other parts add their regions.
 * @param parts one snapshot per shard (any order), each with the shard's account and region
 * @param coverage every shard's coverage entries (each entry once)
 */
export function mergeSnapshotParts(parts: readonly FleetSnapshot[], coverage: readonly CoverageEntry[]): FleetSnapshot {
  const accounts = new Map<string, AccountSnapshot>();
  const all = parts.flatMap((p) => p.accounts);
  for (const a of all) if (!accounts.has(a.accountId) || a.ram) accounts.set(a.accountId, { ...a, regions: [] });
  for (const a of all) accounts.get(a.accountId)!.regions.push(...a.regions);
  const merged = [...accounts.values()].sort((x, y) => compareText(x.accountId, y.accountId));
  for (const a of merged) a.regions.sort((x, y) => compareText(x.regionId, y.regionId));
  const keyed = coverage.map((c) => ({ c, k: coverageKey(c) })).sort((x, y) => compareText(x.k, y.k));
  return { name: parts[0]?.name ?? '', accounts: merged, coverage: keyed.map((x) => x.c) };
}
