/**
 * The chunked store of a scan (migration 1800000000000): a running scan's rows written with COPY (copy.util.ts) in
 * bounded chunks, each committed in a transaction of its own, so a 5,000-cluster scan holds no transaction open for
 * minutes and a lost connection costs one chunk, not the whole store.
 *
 * Visibility: readers resolve scans to SUCCEEDED ones (the latest succeeded scan, or a scan named by id whose rows
 * are read after its status), and the rows of a scan still `running` are not part of any result until
 * `ScanRepository.complete` marks it succeeded in one last transaction: that transaction records the fingerprint
 * sightings, writes the summary, coverage and skipped results, deletes the attempt row and bumps the findings read
 * generation (its trigger on `scans`), so the scan appears once, whole. It may begin once the findings are stored
 * (`stage`'s `onTableStored`) and record the sightings while the lanes write the other tables: it takes the scan's
 * row and attempt row only after `stage` ended, so no chunk waits for it.
 *
 * The rows of the tables partitioned per scan (`findings`, `quota_usage`, `graph_ecs_instances`:
 * scan-partition.util.ts) go into the scan's own tables, created by `begin` without indexes and not yet partitions, so
 * no reader of the parents sees them; each is attached (its indexes built in one sorted pass) once its chunks
 * committed, before the final transaction, and readers still see none of its rows before the scan is succeeded.
 *
 * The fleet snapshot is not one of those rows: it is written after the scan is visible (`storeSnapshot`), in one
 * transaction of its own. Its only reader is the what-if and headroom forecasts' `ScanSnapshotRepository.latest`, the
 * latest succeeded scan that has one: until the snapshot commits, forecasts run on the previous scan's (and say which
 * scan they ran on). Encoding and compressing a 5,000-cluster snapshot is about 20 CPU s, so writing it before the
 * scan is visible kept the findings from readers 11-17 s longer on two cores (docs/benchmarks.md).
 *
 * Restart safety: the attempt row (`scan_store_attempts`) names the attempt writing the scan's rows, and each chunk's
 * row in `scan_store_chunks` is committed with the chunk's rows. The same attempt retrying after a lost connection
 * (a PostgreSQL restart) skips the chunks it finds there, so a chunk whose COMMIT landed but whose answer was lost is
 * not written twice; another attempt (a process killed mid-store, a retried job) deletes every row of the scan and
 * starts over, since its input may differ.
 *
 * Locks, always in this order: the `scans` row, then the attempt row. A chunk takes KEY SHARE on the scan (once per
 * chunk: the tables it writes keep no foreign key to `scans`, whose check took that lock row by row) and SHARE on
 * the attempt row, so a takeover, a failure or the final transaction (FOR UPDATE on both) waits for the chunk in
 * flight, and a chunk that starts after them finds its attempt gone (StoreError CONFLICT) instead of writing rows
 * nobody will publish.
 */
import type { Pool, PoolClient } from 'pg';
import { StoreError } from './store.exception';
import { isUuid } from './page.util';
import { withTransaction } from './transaction.util';
import { TableProbe } from './schema-probe.util';
import { copyBuffer, type CopyPart } from './copy.util';
import type { ScanSnapshotRepository } from './scan-snapshot.repository';
import type { CompressedParts } from './gzip-json.util';
import type { StoredChunk } from './store.types';
import { isPerScanTable, scanPartition, type PerScanTable, type ScanPartitions } from './scan-partition.util';

/**
 * Every table a scan's store writes rows of (keyed by `scan_id`), deleted together when an attempt is discarded or a
 * succeeded scan's result is replaced (its snapshot too: the replacement writes its own after it is visible).
 */
export const STAGED_TABLES = [
  'findings',
  'quota_usage',
  'graph_regions',
  'graph_clusters',
  'graph_services',
  'graph_load_balancers',
  'graph_server_groups',
  'graph_server_lists',
  'graph_ecs_instances',
  'graph_ecs_attachments',
  'graph_nlbs',
  'scan_snapshots',
] as const;

/** A snapshot compressed by `encodeSnapshotParts`: its bytes in `latin1` parts, their encoding, size and the text's. */
export type CompressedSnapshot = CompressedParts;

/**
 * What a scan's store writes before the scan is visible: its tables' rows. `parts` are ready; `later` are parts still
 * being prepared (the fleet graph's, built while the ready parts are written: `buildFleetGraphAsync`), of tables none
 * of `parts` writes. `partsReady` moves them into `parts` once they arrive.
 */
export interface ScanRows {
  parts: CopyPart[];
  later?: Promise<readonly CopyPart[]>;
  /** `partsReady`'s one wait for `later` (every caller awaits the same). */
  ready?: Promise<void>;
}

/**
 * Wait for `rows.later` and append those parts to `rows.parts` (once, whoever asks first); then `rows.later` is gone.
 * @throws what `rows.later` rejected with (the graph could not be built); Error when a later part writes a table of a
 *   ready part (a chunk number would be taken twice)
 */
export function partsReady(rows: ScanRows): Promise<void> {
  const later = rows.later;
  if (later === undefined) return rows.ready ?? Promise.resolve();
  rows.ready ??= later.then((more) => {
    const tables = new Set(rows.parts.map((p) => p.table));
    const shared = more.find((p) => tables.has(p.table));
    if (shared) throw new Error(`scan rows: the later part of ${shared.table} writes a table of a ready part`);
    rows.parts.push(...more);
    rows.later = undefined;
  });
  return rows.ready;
}

/** One chunk to write: a part's rows `[from, to)`, chunk number `chunk`. */
interface ChunkTask {
  part: CopyPart;
  table: string;
  chunk: number;
  from: number;
  to: number;
}

/** The chunks of `parts`, in order: each part's rows cut every `chunkRows`. */
function chunksOf(parts: readonly CopyPart[]): ChunkTask[] {
  const tasks: ChunkTask[] = [];
  for (const part of parts)
    for (let from = 0, chunk = 0; from < part.rowCount; from += part.chunkRows, chunk += 1)
      tasks.push({
        part,
        table: part.table,
        chunk,
        from,
        to: Math.min(part.rowCount, from + part.chunkRows),
      });
  return tasks;
}

/** Where a scan's store begins (`ChunkedScanStore.begin`). */
export type StoreStart =
  /** The scan is running and this attempt owns its rows (new, or resuming its own chunks). */
  | 'staged'
  /** The scan already succeeded: its rows are visible, so a new result replaces them in one transaction. */
  | 'succeeded';

/**
 * The chunked store's steps on the pool; `ScanRepository.complete` runs them in order (begin, stage, then its final
 * transaction with `claim` and `release`). See the file comment for visibility, restarts and locks.
 */
export class ChunkedScanStore {
  private readonly tables: TableProbe;

  /**
   * @param pool the store's connection pool
   * @param snapshots writes the compressed snapshot of a visible scan (`storeSnapshot`)
   * @param lanes chunks written at once, each on a connection of its own (at most the pool's size): COPY keeps one
   *   PostgreSQL backend busy per connection, so two lanes use a second core while the first is parsing
   * @param partitions the scan's own tables of the tables partitioned per scan: its rows of those are COPYed into them
   *   before they are partitions (no index yet), and `attach` makes them partitions before the scan is visible
   * @param connections the pool's size (`sparesAConnection`)
   */
  constructor(
    private readonly pool: Pool,
    private readonly snapshots: ScanSnapshotRepository,
    private readonly lanes: number,
    private readonly partitions: ScanPartitions,
    private readonly connections: number = lanes + 1,
  ) {
    this.tables = new TableProbe(pool, 'scan_store_chunks');
  }

  /**
   * Whether the pool has a connection besides one lane's: the final transaction may then begin while the lanes still
   * write (it holds its connection until they are done; at least one lane keeps one of its own meanwhile).
   */
  get sparesAConnection(): boolean {
    return this.connections > 1;
  }

  /**
   * Whether the database has the tables of the chunked store (migration 1800000000000); a database migrated before
   * it is stored in one transaction as before. A `true` answer is kept.
   * @param db where to ask: inside a transaction, its client (the embedded PGlite pool has one connection)
   */
  async available(db: Pool | PoolClient = this.pool): Promise<boolean> {
    return this.tables.exists(db);
  }

  /**
   * Claim the store of scan `id` for `attempt`, in one transaction: a running scan whose attempt row names another
   * attempt (or none) has every row of that attempt deleted and the row set to this one; this attempt's own row is
   * kept (a retry resumes). A staged scan has its own tables of the tables partitioned per scan (created if missing).
   * @returns `staged` (running: stage its chunks) or `succeeded` (replace its visible result at once)
   * @throws StoreError NOT_FOUND (no such scan), CONFLICT (the scan failed)
   */
  async begin(id: string, attempt: string): Promise<StoreStart> {
    if (!isUuid(id)) throw new StoreError('NOT_FOUND', `scan ${id} not found`);
    return withTransaction(this.pool, async (client) => {
      const scan = await client.query<{ status: string }>(
        'SELECT status FROM scans WHERE id = $1 FOR UPDATE',
        [id],
      );
      const status = scan.rows[0]?.status;
      if (status === undefined) throw new StoreError('NOT_FOUND', `scan ${id} not found`);
      if (status === 'failed')
        throw new StoreError('CONFLICT', `scan ${id} already failed; it cannot be completed`);
      if (status === 'succeeded') return 'succeeded';
      const owner = await client.query<{ attempt: string }>(
        'SELECT attempt FROM scan_store_attempts WHERE scan_id = $1 FOR UPDATE',
        [id],
      );
      if (owner.rows[0]?.attempt !== attempt) {
        await this.discard(client, id);
        await client.query('INSERT INTO scan_store_attempts (scan_id, attempt) VALUES ($1, $2)', [id, attempt]);
      }
      await this.partitions.createTables(client, id);
      return 'staged';
    });
  }

  /**
   * Write every chunk of `rows` this attempt has not committed yet, each in its own transaction with its
   * `scan_store_chunks` row, `lanes` chunks at a time. The tables partitioned per scan go first, into the scan's own
   * tables, and each is attached (`ScanPartitions.attachTable`) on a connection of its own as soon as its last chunk
   * committed, while the lanes copy the rest.
   * @param onChunk called after each chunk committed
   * @param onTableStored called once per table of `rows` when every chunk of it is committed and, for a table
   *   partitioned per scan, the scan's table attached (its rows readable by a statement of another transaction that
   *   names the scan); not called for a table whose chunks or attachment failed
   * @throws StoreError CONFLICT when another attempt took the scan over or it ended meanwhile; the driver's error
   *   when a chunk fails (a lost connection: `withStoreRetry` begins again and resumes)
   */
  async stage(
    id: string,
    attempt: string,
    rows: ScanRows,
    onChunk?: (chunk: StoredChunk) => void,
    onTableStored?: (table: string) => void,
  ): Promise<void> {
    const done = await this.pool.query<{ part: string; chunk: number }>(
      'SELECT part, chunk FROM scan_store_chunks WHERE scan_id = $1',
      [id],
    );
    const committed = new Set(done.rows.map((r) => `${r.part}\u0000${r.chunk}`));
    const partitioned = await this.partitions.partitionedTables();
    const perScan = (table: string): table is PerScanTable => isPerScanTable(table) && partitioned.has(table);
    // The chunks of the tables partitioned per scan first (a stable sort), so that each is attached (its indexes
    // built: scan-partition.util.ts) while the lanes still copy the other tables.
    const pending = (tasks: ChunkTask[]): ChunkTask[] =>
      tasks.filter((t) => !committed.has(`${t.table}\u0000${t.chunk}`)).sort((a, b) => Number(perScan(b.table)) - Number(perScan(a.table)));
    const todo = pending(chunksOf(rows.parts));
    const left = new Map<PerScanTable, number>([...partitioned].map((t) => [t, todo.filter((x) => x.table === t).length]));
    // Chunks still to commit of the other tables (`onTableStored`), counted per part as it arrives.
    const plainLeft = new Map<string, number>();
    const countPlain = (parts: readonly CopyPart[], tasks: readonly ChunkTask[]): void => {
      for (const part of parts) if (!perScan(part.table)) plainLeft.set(part.table, tasks.filter((x) => x.table === part.table).length);
      for (const [table, n] of plainLeft) if (n === 0 && parts.some((p) => p.table === table)) onTableStored?.(table);
    };
    countPlain(rows.parts, todo);
    // While parts are still being prepared, only the tables of the ready ones have every chunk counted.
    const readyTables = new Set(rows.parts.map((p) => p.table));
    const counted = (table: PerScanTable): boolean => rows.later === undefined || readyTables.has(table);
    const attaching: Promise<void>[] = [];
    let next = 0;
    let failed = false;
    const attachWhenDone = (table: PerScanTable): void => {
      if (left.get(table) !== 0 || !counted(table)) return;
      left.delete(table);
      const attached = this.partitions.attachTable(id, table);
      // Handled at once (awaited with the lanes below): a failed attach stops the lanes as a failed chunk does.
      attached.then(
        () => onTableStored?.(table),
        () => {
          failed = true;
        },
      );
      attaching.push(attached);
    };
    for (const table of [...left.keys()]) attachWhenDone(table);
    // The later parts join the queue when they arrive (behind the chunks queued then); a lane with nothing left waits
    // for them instead of ending.
    let arriving: Promise<void> | undefined;
    if (rows.later !== undefined) {
      const before = rows.parts.length;
      arriving = partsReady(rows).then(
        () => {
          arriving = undefined;
          // A failed store begins again from what committed; it starts no attachment now.
          if (failed) return;
          const more = pending(chunksOf(rows.parts.slice(before)));
          todo.push(...more);
          countPlain(rows.parts.slice(before), more);
          for (const t of more) {
            const n = left.get(t.table as PerScanTable);
            if (n !== undefined) left.set(t.table as PerScanTable, n + 1);
          }
          for (const table of [...left.keys()]) attachWhenDone(table);
        },
        (e: unknown) => {
          failed = true;
          throw e;
        },
      );
      // Its error is thrown below (with the lanes' and attachments'); a lane busy with a chunk does not await it yet.
      arriving.catch(() => undefined);
    }
    const lane = async (): Promise<void> => {
      // One Buffer per lane for the COPY data of all its chunks, one chunk at a time (see copyBuffer).
      const buffer = copyBuffer();
      // One lane stops taking chunks once another failed: the store begins again from what committed.
      while (!failed) {
        if (next >= todo.length) {
          if (arriving === undefined) break;
          await arriving;
          continue;
        }
        const task = todo[next]!;
        next += 1;
        try {
          const into = perScan(task.table) ? scanPartition(task.table, id) : undefined;
          const written = await this.writeChunk(id, attempt, task, buffer, into);
          if (into !== undefined && perScan(task.table)) {
            left.set(task.table, (left.get(task.table) ?? 1) - 1);
            attachWhenDone(task.table);
          } else {
            const n = (plainLeft.get(task.table) ?? 1) - 1;
            plainLeft.set(task.table, n);
            if (n === 0) onTableStored?.(task.table);
          }
          onChunk?.({ table: task.table, chunk: task.chunk, rows: written });
        } catch (e) {
          failed = true;
          throw e;
        }
      }
    };
    const lanes = Array.from({ length: Math.max(1, arriving ? this.lanes : Math.min(this.lanes, todo.length)) }, () => lane());
    const results = await Promise.allSettled(lanes);
    // The later parts are awaited even when a lane failed, and so are the attachments started meanwhile (none is left
    // running behind the caller).
    const arrived = await Promise.allSettled(arriving ? [arriving] : []);
    const attached = await Promise.allSettled(attaching);
    const rejected = [...arrived, ...results, ...attached].find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (rejected) throw rejected.reason;
  }

  /**
   * One chunk in one transaction: its rows and its `scan_store_chunks` row, after checking the attempt still owns the
   * scan; its COPY data encoded into the lane's `buffer`, written into `into` when given (the scan's own table).
   */
  private async writeChunk(id: string, attempt: string, task: ChunkTask, buffer: Buffer, into: string | undefined): Promise<number> {
    return withTransaction(this.pool, async (client) => {
      await client.query('SELECT 1 FROM scans WHERE id = $1 FOR KEY SHARE', [id]);
      const owner = await client.query<{ attempt: string }>(
        'SELECT attempt FROM scan_store_attempts WHERE scan_id = $1 FOR SHARE',
        [id],
      );
      if (owner.rows[0]?.attempt !== attempt)
        throw new StoreError(
          'CONFLICT',
          `scan ${id} is no longer stored by this attempt (another attempt took it over, or the scan ended)`,
        );
      const written = await task.part.copy(client, id, task.from, task.to, buffer, into);
      await client.query(
        'INSERT INTO scan_store_chunks (scan_id, part, chunk, row_count) VALUES ($1, $2, $3, $4)',
        [id, task.table, task.chunk, written],
      );
      return written;
    });
  }

  /**
   * After `stage`, before the final transaction: make the scan's own tables partitions (their indexes built then, in
   * one sorted pass each), each in a transaction of its own. Their rows stay out of every result until the final
   * transaction marks the scan succeeded, as the rows of the other tables do. Run again after a lost connection, it
   * attaches what is left.
   */
  async attach(id: string): Promise<void> {
    await this.partitions.attach(id);
  }

  /**
   * In the final transaction (the scan row locked FOR UPDATE by the caller): whether this attempt still owns the
   * scan with every chunk of `rows` committed.
   * @param client the final transaction's client
   * @returns `ours` (publish), or `gone` (no attempt row: an earlier COMMIT of this final transaction landed, or
   *   the scan ended)
   * @throws StoreError CONFLICT when another attempt owns the scan; Error when a chunk is missing (a bug: stage
   *   ended without error)
   */
  async claim(client: PoolClient, id: string, attempt: string, rows: ScanRows): Promise<'ours' | 'gone'> {
    const owner = await client.query<{ attempt: string }>(
      'SELECT attempt FROM scan_store_attempts WHERE scan_id = $1 FOR UPDATE',
      [id],
    );
    const current = owner.rows[0]?.attempt;
    if (current === undefined) return 'gone';
    if (current !== attempt)
      throw new StoreError('CONFLICT', `scan ${id} is being stored by another attempt`);
    const n = await client.query<{ n: string | number }>(
      'SELECT count(*) AS n FROM scan_store_chunks WHERE scan_id = $1',
      [id],
    );
    await partsReady(rows);
    const expected = chunksOf(rows.parts).length;
    if (Number(n.rows[0]?.n) !== expected)
      throw new Error(`scan ${id}: ${String(n.rows[0]?.n)} of ${expected} chunks stored`);
    return 'ours';
  }

  /**
   * End the store of a scan in the caller's transaction: delete its attempt row and chunk rows (the rows written
   * stay: the same transaction marks the scan succeeded).
   * @param client the final transaction's client
   */
  async release(client: PoolClient, id: string): Promise<void> {
    await client.query('DELETE FROM scan_store_attempts WHERE scan_id = $1', [id]);
  }

  /**
   * Write every row of a scan at once on `client` (one transaction: a succeeded scan's result replaced): delete its
   * rows and its snapshot, COPY every part. The new snapshot follows once this commits (`storeSnapshot`). The scan's
   * partitions exist already (the caller runs `ScanPartitions.ensure` first, outside this transaction).
   * @param client the caller's transaction client (the scan row locked)
   */
  async replaceAll(client: PoolClient, id: string, rows: ScanRows): Promise<void> {
    await partsReady(rows);
    await this.discard(client, id);
    const buffer = copyBuffer();
    for (const part of rows.parts) if (part.rowCount > 0) await part.copy(client, id, 0, part.rowCount, buffer);
  }

  /**
   * Write the fleet snapshot of a scan that is already visible, in one transaction of its own (replacing one stored
   * before): the scan row is held FOR KEY SHARE meanwhile, so retention cannot delete the scan under it. Run again
   * after a lost connection, it writes the same row once (`copyCompressed` deletes the scan's row first).
   * A scan no longer succeeded (deleted by retention meanwhile) gets nothing written.
   * @param snapshot compressed by `encodeSnapshotParts`
   * @throws the driver's error when the COPY fails (a lost connection: the caller retries)
   */
  async storeSnapshot(id: string, snapshot: CompressedSnapshot): Promise<void> {
    await withTransaction(this.pool, async (client) => {
      const scan = await client.query<{ status: string }>('SELECT status FROM scans WHERE id = $1 FOR KEY SHARE', [id]);
      if (scan.rows[0]?.status === 'succeeded') await this.snapshots.copyCompressed(client, id, snapshot);
    });
  }

  /**
   * Delete every row a store of scan `id` wrote (STAGED_TABLES) and its attempt, in the caller's transaction: a new
   * attempt starts clean, and a scan marked failed keeps no half-written rows. The scan's own tables that are not
   * partitions yet are dropped; attached ones stay, emptied, until retention removes the scan.
   * @param client the caller's transaction client (the scan row locked)
   */
  async discard(client: PoolClient, id: string): Promise<void> {
    for (const table of STAGED_TABLES) await client.query(`DELETE FROM ${table} WHERE scan_id = $1`, [id]);
    await this.partitions.dropUnattached(client, id);
    if (await this.available(client))
      await client.query('DELETE FROM scan_store_attempts WHERE scan_id = $1', [id]);
  }

  /**
   * Whether `attempt` owns the store of scan `id` (its attempt row names it).
   * @param client the caller's transaction client
   */
  async ownedBy(client: PoolClient, id: string, attempt: string): Promise<boolean> {
    const r = await client.query<{ attempt: string }>(
      'SELECT attempt FROM scan_store_attempts WHERE scan_id = $1',
      [id],
    );
    return r.rows[0]?.attempt === attempt;
  }

  /**
   * Whether a store attempt of scan `id` exists (rows of a running store may be in the tables).
   * @param client the caller's transaction client
   */
  async hasAttempt(client: PoolClient, id: string): Promise<boolean> {
    if (!(await this.available(client))) return false;
    const r = await client.query('SELECT 1 FROM scan_store_attempts WHERE scan_id = $1', [id]);
    return (r.rowCount ?? 0) > 0;
  }

  /**
   * Scans that ended (failed by the reaper while their store was in flight) with an attempt row left: their rows
   * are deleted by `ScanRepository.reapExpired`.
   */
  async endedWithAttempt(): Promise<string[]> {
    if (!(await this.available())) return [];
    const r = await this.pool.query<{ scan_id: string }>(
      `SELECT a.scan_id FROM scan_store_attempts a JOIN scans s ON s.id = a.scan_id WHERE s.status <> 'running' ORDER BY a.scan_id`,
    );
    return r.rows.map((x) => x.scan_id);
  }
}
