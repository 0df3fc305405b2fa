import type { Pool } from 'pg';
import { toNumber } from './sql.util';
import type { AccountScope, Scoped } from './principal';
import { teamCacheKey } from './team-scope.util';

/**
 * The data versions read caches key on (table `read_generations`, migration 1798100000000), read in one
 * statement. Each counter is bumped by a trigger in the transaction that changes its data, so a reader that
 * reads the generation first and the data after never sees older data than its generation names: an answer
 * cached under a generation stays correct for every later reader holding that same generation, on every
 * replica, without any invalidation message.
 */
export interface ReadGeneration {
  /** Bumped when a scan's findings, first/last sightings or the "latest succeeded scan" may have changed (scan completed, failed, deleted). */
  readonly findings: number;
  /** Bumped by every insert, update or delete of waivers (create, change, revoke). Expiry is evaluated at read time, not versioned. */
  readonly waivers: number;
  /** The latest succeeded scan (started last) as of the same statement, or null when none succeeded yet. */
  readonly latestSucceededScanId: string | null;
}

/**
 * Reads the current ReadGeneration (one small statement; call it once per request, never keep it across requests).
 *
 * Concurrent callers share reads, but only reads SENT AFTER they called: while one read is in flight, every new
 * caller waits for the single read sent right after it completes. So each caller gets generations at least as new
 * as every commit that finished before it called (a client that created a waiver and then reads findings sees
 * the new waiver), while a busy API sends about one statement per round trip instead of one per request.
 */
export class ReadGenerations {
  private inFlight: Promise<ReadGeneration> | undefined;
  private next: Promise<ReadGeneration> | undefined;

  /** @param pool the store's connection pool */
  constructor(private readonly pool: Pool) {}

  /**
   * The current generations (see the class comment for how concurrent calls share reads).
   * @throws the driver's error when PostgreSQL cannot be reached, or when migration 1798100000000 is not applied
   */
  current(): Promise<ReadGeneration> {
    if (!this.inFlight) {
      const read = this.read().finally(() => {
        if (this.inFlight === read) this.inFlight = undefined;
      });
      this.inFlight = read;
      return read;
    }
    // The read in flight may have been sent before this call: share the one sent after it instead.
    this.next ??= this.inFlight
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.current();
      });
    return this.next;
  }

  private async read(): Promise<ReadGeneration> {
    // One statement, one snapshot: the latest scan is consistent with the generations (served by scans_succeeded_started_at_idx).
    const rows = await this.pool.query<{ findings: string | number | null; waivers: string | number | null; latest: string | null }>(
      `SELECT (SELECT generation FROM read_generations WHERE name = 'findings') AS findings,
              (SELECT generation FROM read_generations WHERE name = 'waivers') AS waivers,
              (SELECT id FROM scans WHERE status = 'succeeded' ORDER BY started_at DESC, id DESC LIMIT 1) AS latest`,
    );
    const r = rows.rows[0];
    return {
      findings: r?.findings == null ? -1 : toNumber(r.findings),
      waivers: r?.waivers == null ? -1 : toNumber(r.waivers),
      latestSucceededScanId: r?.latest ?? null,
    };
  }
}

/**
 * A cache key part naming a principal's scope exactly: its accounts (`*` for every account, else the JSON array of its
 * sorted, distinct ids) and, for a team-scoped principal, its teams. Two principals share cached answers only when
 * both are equal.
 */
export function scopeCacheKey(scoped: Scoped): string {
  const scope = scoped.accountScope;
  let key = scope.all ? '*' : scopeKeys.get(scope);
  if (key === undefined) {
    key = scope.all ? '*' : JSON.stringify([...new Set(scope.accountIds)].sort());
    scopeKeys.set(scope, key);
  }
  return scoped.teamScope === undefined ? key : `${key}|${teamCacheKey(scoped)}`;
}

/** Keys of scopes already seen (a principal's scope is one frozen object, reused by every request of its token while cached). */
const scopeKeys = new WeakMap<AccountScope, string>();
