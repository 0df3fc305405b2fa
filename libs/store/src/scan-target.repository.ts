import type { Pool, QueryResultRow } from 'pg';
import { gunzipJson, gzipJson } from './gzip-json.util';
import { isUuid } from './page.util';
import { chunk, MAX_BIND_PARAMETERS, storableJson, storableText, toIso, toNumber } from './sql.util';
import { StoreError } from './store.exception';
import { scopeCondition, SYSTEM_PRINCIPAL, type Scoped } from './principal';

/** State of one crawl target of a distributed scan. */
export type ScanTargetStatus = 'pending' | 'ok' | 'failed';

/**
 * A crawl target as stored: the account, (account, region) or cluster one crawl job reads.
 * Structurally the `CrawlTarget` of libs/collectors (the store does not depend on collectors).
 */
export interface ScanTargetRef {
  kind: 'account' | 'region' | 'cluster';
  accountId: string;
  regionId?: string;
  clusterId?: string;
}

/** One row of `scan_targets`. */
export interface StoredScanTarget {
  scanId: string;
  /** Stable key of the target (`account/<uid>`, `region/<uid>/<region>`, `cluster/<uid>/<region>/<id>`). */
  targetKey: string;
  target: ScanTargetRef;
  status: ScanTargetStatus;
  /**
   * The crawled slice as the JSON documents it was stored as (`saveSlice`: one; `saveSliceParts`: its parts, see
   * libs/collectors slice-parts.ts), each parsed when read; null unless `ok`, and always null from `listStates`.
   */
  parts: StoredSliceParts | null;
  /** Why the target failed; null unless `failed`. */
  error: string | null;
  /** Last change (ISO 8601). */
  updatedAt: string;
}

/**
 * The parts of a stored slice, kept compressed and parsed one at a time, so a reader can drop each part's value
 * before parsing the next (a region slice of hundreds of clusters is over 200 MiB of JSON). Two reads of the same
 * row's parts compare equal (`toEqual`): the state is the stored bytes, the methods are on the prototype.
 */
export class StoredSliceParts {
  /**
   * @param targetKey the target (for error messages)
   * @param stored the gzip-compressed JSON parts (`slice_parts`, or `slice_gz` as one part), or a slice stored as
   *   jsonb before migration 1799200000000 (one part, as it is)
   */
  constructor(
    private readonly targetKey: string,
    private readonly stored: readonly Buffer[] | { jsonb: unknown },
  ) {}

  /** Parts stored (count, at least 1; a slice stored whole or before migration 1799300000000 is one part). */
  get length(): number {
    return Array.isArray(this.stored) ? this.stored.length : 1;
  }

  /**
   * Part `i`, parsed anew on each call (gunzip and JSON.parse; a slice stored as jsonb is given as it is).
   * @throws RangeError when `i` is not a part's index; SyntaxError or zlib's error for a corrupt part
   */
  read(i: number): unknown {
    if (!Number.isInteger(i) || i < 0 || i >= this.length)
      throw new RangeError(`the slice of ${this.targetKey} has no part ${i} (it has ${this.length})`);
    return Array.isArray(this.stored) ? gunzipJson(this.stored[i]!) : (this.stored as { jsonb: unknown }).jsonb;
  }
}

/** Counts of a scan's targets by state; `total` = done + failed + pending. */
export interface ScanTargetProgress {
  /** Targets known so far (count; grows while region crawls discover clusters). */
  total: number;
  /** Targets read (count). */
  done: number;
  /** Targets that could not be read (count). */
  failed: number;
  /** Targets not read yet (count). */
  pending: number;
}

/** A running distributed scan (what the worker's reconciler looks at). */
export interface RunningScanRef {
  id: string;
  fleetName: string | null;
  /** ISO 8601. */
  startedAt: string;
  settings: Record<string, unknown>;
}

interface TargetRow extends QueryResultRow {
  scan_id: string;
  target_key: string;
  target: ScanTargetRef;
  status: ScanTargetStatus;
  slice: unknown;
  /** The slice as gzip-compressed JSON (migration 1799200000000); slices written before it are in `slice`. */
  slice_gz: Buffer | null;
  /**
   * The parts of `slice_parts` (migration 1799300000000) concatenated, and the byte length of each (TARGET_COLUMNS);
   * null for slices written before.
   */
  parts_gz: Buffer | null;
  part_bytes: number[] | null;
  error: string | null;
  updated_at: Date | string;
}

/**
 * The columns of a target row with its slice. `slice_parts` is read as one bytea (its parts concatenated) and
 * their lengths, not as a bytea[]: node-pg parses an array's text a character at a time into an array of
 * characters, which for a region slice of 500 clusters (13 MiB compressed, 26 MiB as hex) took about 200 MiB of
 * heap and seconds of CPU; a bytea's hex is decoded natively.
 */
const TARGET_COLUMNS = `scan_id, target_key, target, status, slice, slice_gz, error, updated_at,
  (SELECT string_agg(p, ''::bytea ORDER BY i) FROM unnest(slice_parts) WITH ORDINALITY AS u(p, i)) AS parts_gz,
  (SELECT array_agg(octet_length(p) ORDER BY i) FROM unnest(slice_parts) WITH ORDINALITY AS u(p, i)) AS part_bytes`;

/** Longest stored error message (characters). */
const MAX_ERROR_LENGTH = 4000;

/**
 * Rows per INSERT of `ensurePending`: 3 bind parameters per row, at most 65535 per statement
 * (MAX_BIND_PARAMETERS), so a fleet of thousands of clusters is written in a few statements.
 */
const PENDING_ROWS_PER_INSERT = Math.floor(MAX_BIND_PARAMETERS / 3);

/**
 * Per-target state of distributed scans: the crawl jobs' slices and the progress counts. Every
 * method is scoped by scan id; every write is an idempotent upsert, so a retried or duplicated
 * job changes nothing (docs/architecture.md "Jobs are idempotent"). An `ok` row is never downgraded.
 */
export class ScanTargetRepository {
  /** @param pool the store's connection pool */
  constructor(private readonly pool: Pool) {}

  /**
   * Record targets as `pending` (those already present keep their state).
   * @param scanId the scan (must exist)
   * @param targets targets with their keys; any number (inserted in chunks)
   * @returns how many rows were new (count)
   * @throws StoreError NOT_FOUND when the scan does not exist
   */
  async ensurePending(
    scanId: string,
    targets: ReadonlyArray<{ key: string; target: ScanTargetRef }>,
  ): Promise<number> {
    this.assertScanId(scanId);
    let inserted = 0;
    for (const rows of chunk(dedupeByKey(targets), PENDING_ROWS_PER_INSERT)) {
      const params: unknown[] = [scanId];
      const tuples = rows.map((t) => {
        params.push(t.key, storableJson(t.target));
        return `($1, $${params.length - 1}, $${params.length}::jsonb)`;
      });
      const result = await this.pool
        .query(
          `INSERT INTO scan_targets (scan_id, target_key, target) VALUES ${tuples.join(', ')}
           ON CONFLICT (scan_id, target_key) DO NOTHING`,
          params,
        )
        .catch((e: unknown) => this.rethrow(scanId, e));
      inserted += result.rowCount ?? 0;
    }
    return inserted;
  }

  /**
   * Store the slice a crawl read for a target as one part and mark it `ok` (see `saveSliceParts`).
   * @param slice JSON-serialisable slice (libs/collectors `TargetSlice`)
   * @throws StoreError NOT_FOUND when the scan does not exist
   */
  async saveSlice(scanId: string, key: string, target: ScanTargetRef, slice: unknown): Promise<void> {
    await this.saveSliceParts(scanId, key, target, [slice]);
  }

  /**
   * Store the slice a crawl read for a target, as the JSON documents `parts` (libs/collectors `slicePartsOf`), and
   * mark it `ok`, replacing an earlier slice of the same scan and target (writing twice leaves exactly one row).
   * Every part is written by one statement, so a crash never leaves part of a slice visible.
   * @param parts JSON-serialisable documents, at least one; read back in this order (`StoredSliceParts`)
   * @throws StoreError INVALID_ARGUMENT when `parts` is empty; NOT_FOUND when the scan does not exist
   */
  async saveSliceParts(scanId: string, key: string, target: ScanTargetRef, parts: readonly unknown[]): Promise<void> {
    this.assertScanId(scanId);
    if (parts.length === 0) throw new StoreError('INVALID_ARGUMENT', `the slice of ${key} has no parts`);
    // gzip-compressed JSON, not jsonb: a jsonb value is limited to 256 MiB, which the region slice of an
    // account-region with hundreds of clusters exceeds (migration 1799200000000). Each part is written in pieces
    // (gzipJson) in the form jsonb gave back, so readers see what they read from jsonb before.
    const gz: Buffer[] = [];
    for (const part of parts) gz.push((await gzipJson(part, { jsonbCompatible: true })).gz);
    await this.pool
      .query(
        `INSERT INTO scan_targets (scan_id, target_key, target, status, slice, slice_gz, slice_parts, error, updated_at)
         VALUES ($1, $2, $3::jsonb, 'ok', NULL, NULL, $4::bytea[], NULL, now())
         ON CONFLICT (scan_id, target_key) DO UPDATE
           SET status = 'ok', slice = NULL, slice_gz = NULL, slice_parts = EXCLUDED.slice_parts, error = NULL, updated_at = now()`,
        [scanId, key, storableJson(target), gz],
      )
      .catch((e: unknown) => this.rethrow(scanId, e));
  }

  /**
   * Mark targets `failed` with a reason, unless they were read (`ok` stays `ok`: a late failure of
   * a duplicate job never hides data that arrived).
   * @param failures targets and one-line reasons (no credentials; cut to 4000 characters)
   * @throws StoreError NOT_FOUND when the scan does not exist
   */
  async markFailed(
    scanId: string,
    failures: ReadonlyArray<{ key: string; target: ScanTargetRef; error: string }>,
  ): Promise<void> {
    this.assertScanId(scanId);
    for (const f of failures) {
      await this.pool
        .query(
          `INSERT INTO scan_targets (scan_id, target_key, target, status, error, updated_at)
           VALUES ($1, $2, $3::jsonb, 'failed', $4, now())
           ON CONFLICT (scan_id, target_key) DO UPDATE
             SET status = 'failed', error = EXCLUDED.error, updated_at = now()
             WHERE scan_targets.status <> 'ok'`,
          [scanId, f.key, storableJson(f.target), storableText(f.error.slice(0, MAX_ERROR_LENGTH))],
        )
        .catch((e: unknown) => this.rethrow(scanId, e));
    }
  }

  /** One target of a scan, or null when the scan has no such target (or no such scan). */
  async get(scanId: string, key: string): Promise<StoredScanTarget | null> {
    if (!isUuid(scanId)) return null;
    const rows = await this.pool.query<TargetRow>(
      `SELECT ${TARGET_COLUMNS} FROM scan_targets WHERE scan_id = $1 AND target_key = $2`,
      [scanId, key],
    );
    return rows.rows[0] ? toStoredTarget(rows.rows[0]) : null;
  }

  /**
   * Every target of a scan with its slice, ordered by key (the analyze job's input; unpaged: the
   * analysis holds the whole fleet in memory anyway).
   */
  async listForScan(scanId: string): Promise<StoredScanTarget[]> {
    if (!isUuid(scanId)) return [];
    const rows = await this.pool.query<TargetRow>(
      `SELECT ${TARGET_COLUMNS}
         FROM scan_targets WHERE scan_id = $1 ORDER BY target_key`,
      [scanId],
    );
    return rows.rows.map(toStoredTarget);
  }

  /**
   * The targets of one shard of a sharded analysis with their slices, ordered by key: the account's target and,
   * for a region, the region's target and its clusters' targets (index `scan_targets_place_idx`). A shard reads
   * only these, so its memory is bounded by its own size.
   * @param regionId the region, or null for the account's target alone (an account without regions)
   */
  async listForPlace(scanId: string, accountId: string, regionId: string | null): Promise<StoredScanTarget[]> {
    if (!isUuid(scanId)) return [];
    const rows = await this.pool.query<TargetRow>(
      `SELECT ${TARGET_COLUMNS}
         FROM scan_targets
        WHERE scan_id = $1 AND target ->> 'accountId' = $2
          AND (target ->> 'regionId' IS NULL OR target ->> 'regionId' = $3)
        ORDER BY target_key`,
      [scanId, accountId, regionId],
    );
    return rows.rows.map(toStoredTarget);
  }

  /**
   * Every target of a scan without its slice (`parts` null), ordered by key: what the analyze job of a sharded
   * scan needs to mark the failed targets without loading the fleet.
   */
  async listStates(scanId: string): Promise<StoredScanTarget[]> {
    if (!isUuid(scanId)) return [];
    const rows = await this.pool.query<TargetRow>(
      `SELECT scan_id, target_key, target, status, NULL AS slice, NULL AS slice_gz, error, updated_at, NULL AS parts_gz, NULL AS part_bytes
         FROM scan_targets WHERE scan_id = $1 ORDER BY target_key`,
      [scanId],
    );
    return rows.rows.map(toStoredTarget);
  }

  /**
   * Counts of a scan's targets by state (all 0 for a scan without targets or no such scan).
   * @param scope the caller (default every account): only targets of its accounts are counted
   */
  async progress(scanId: string, scope: Scoped = SYSTEM_PRINCIPAL): Promise<ScanTargetProgress> {
    const out: ScanTargetProgress = { total: 0, done: 0, failed: 0, pending: 0 };
    if (!isUuid(scanId)) return out;
    const params: unknown[] = [scanId];
    // Only the targets of the caller's accounts: a scoped token's progress counts what it may see.
    const inScope = scopeCondition(`(target->>'accountId')`, scope, (v) => `$${params.push(v)}`);
    const rows = await this.pool.query<{ status: ScanTargetStatus; n: string | number }>(
      `SELECT status, count(*) AS n FROM scan_targets WHERE scan_id = $1 AND ${inScope} GROUP BY status`,
      params,
    );
    for (const r of rows.rows) {
      const n = toNumber(r.n);
      out.total += n;
      if (r.status === 'ok') out.done += n;
      else if (r.status === 'failed') out.failed += n;
      else out.pending += n;
    }
    return out;
  }

  /**
   * Distributed scans still `running` that started before `startedBefore`, oldest first (at most
   * `limit`, default 100): the candidates of the worker's lost-job reconciler.
   */
  async listRunningDistributed(startedBefore: Date, limit = 100): Promise<RunningScanRef[]> {
    const rows = await this.pool.query<{
      id: string;
      fleet_name: string | null;
      started_at: Date | string;
      settings: Record<string, unknown>;
    }>(
      `SELECT id, fleet_name, started_at, settings FROM scans
        WHERE status = 'running' AND source = 'distributed' AND started_at < $1
        ORDER BY started_at, id LIMIT $2`,
      [startedBefore, limit],
    );
    return rows.rows.map((r) => ({
      id: r.id,
      fleetName: r.fleet_name,
      startedAt: toIso(r.started_at),
      settings: r.settings,
    }));
  }

  private assertScanId(scanId: string): void {
    if (!isUuid(scanId)) throw new StoreError('NOT_FOUND', `scan ${scanId} not found`);
  }

  /** A foreign-key violation means the scan does not exist; anything else is rethrown as is. */
  private rethrow(scanId: string, e: unknown): never {
    if (typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23503') {
      throw new StoreError('NOT_FOUND', `scan ${scanId} not found`, { cause: e });
    }
    throw e;
  }
}

/** Keep the first of each key (one INSERT may not touch a row twice). */
function dedupeByKey<T extends { key: string }>(items: readonly T[]): T[] {
  const seen = new Map<string, T>();
  for (const i of items) if (!seen.has(i.key)) seen.set(i.key, i);
  return [...seen.values()];
}

function toStoredTarget(row: TargetRow): StoredScanTarget {
  return {
    scanId: row.scan_id,
    targetKey: row.target_key,
    target: row.target,
    status: row.status,
    parts: partsOf(row),
    error: row.error,
    updatedAt: toIso(row.updated_at),
  };
}

/** The stored parts of a row's slice: `slice_parts`, else `slice_gz` or the jsonb `slice` as one part; null without a slice. */
function partsOf(row: TargetRow): StoredSliceParts | null {
  if (row.parts_gz && row.part_bytes) {
    const parts: Buffer[] = [];
    let at = 0;
    for (const n of row.part_bytes) {
      parts.push(row.parts_gz.subarray(at, at + n));
      at += n;
    }
    if (at !== row.parts_gz.length) throw new StoreError('UNAVAILABLE', `the stored parts of the slice of ${row.target_key} do not add up`);
    return new StoredSliceParts(row.target_key, parts);
  }
  if (row.slice_gz) return new StoredSliceParts(row.target_key, [row.slice_gz]);
  if (row.slice === null || row.slice === undefined) return null;
  return new StoredSliceParts(row.target_key, { jsonb: row.slice });
}
