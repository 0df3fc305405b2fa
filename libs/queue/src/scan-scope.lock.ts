/**
 * One running scan per scope (a scheduled source): a Redis key `<prefix>:scan-scope:<scope>` whose
 * value is the id of the scan holding it, set with NX and a TTL. Every worker runs the schedule,
 * so every tick tries to take the lock; only one succeeds. Release and take-over are
 * compare-and-set Lua scripts, so a late release never frees a newer scan's lock.
 */
import { createHash } from 'node:crypto';
import IORedis from 'ioredis';
import { prefixOf, type QueueConnectionConfig } from './queue-options';

/** Result of {@link ScanScopeLock.acquire}. */
export type ScopeLockResult = { acquired: true } | { acquired: false; holder: string };

/** Deletes the key only while it still holds the caller's scan id. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
/**
 * Replaces the holder only while the key still holds the stale one, or takes a key that is gone: the stale scan
 * may release between the caller's read and this script (it marks its row ended, then releases), and a free
 * scope must not turn the tick away. Atomic, so a new scan that took the free key first keeps it.
 */
const TAKE_OVER = `local h = redis.call('GET', KEYS[1]) if h == ARGV[1] or h == false then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 else return 0 end`;

/** The Redis scope lock of scheduled scans. */
export class ScanScopeLock {
  private readonly redis: IORedis;
  private readonly prefix: string;

  /** Connects to Redis. */
  constructor(options: QueueConnectionConfig) {
    this.redis = new IORedis(options.redisUrl);
    this.redis.on('error', () => undefined);
    this.prefix = prefixOf(options);
  }

  /**
   * Take the scope for a scan.
   * @param ttlMs how long the lock holds without release (milliseconds): the bound on a scan whose
   *   end was never seen
   * @returns acquired, or the id of the scan holding it
   */
  async acquire(scope: string, scanId: string, ttlMs: number): Promise<ScopeLockResult> {
    // Twice at most: the holder may release between our SET and GET.
    for (let attempt = 0; ; attempt += 1) {
      if ((await this.redis.set(this.key(scope), scanId, 'PX', ttlMs, 'NX')) === 'OK')
        return { acquired: true };
      const holder = await this.redis.get(this.key(scope));
      if (holder !== null || attempt > 0) return { acquired: false, holder: holder ?? '' };
    }
  }

  /**
   * Hand the scope from a scan known to be over (`stale`) to a new one; also takes the scope when the stale scan
   * released it meanwhile.
   * @returns false when another scan holds the scope now
   */
  async takeOver(scope: string, stale: string, scanId: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.eval(TAKE_OVER, 1, this.key(scope), stale, scanId, String(ttlMs))) === 1;
  }

  /** Release the scope if `scanId` holds it. @returns whether it did */
  async release(scope: string, scanId: string): Promise<boolean> {
    return (await this.redis.eval(RELEASE, 1, this.key(scope), scanId)) === 1;
  }

  /** The scan holding the scope, or null. */
  async holder(scope: string): Promise<string | null> {
    return this.redis.get(this.key(scope));
  }

  /** Close the connection. */
  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private key(scope: string): string {
    return `${this.prefix}:scan-scope:${scope}`;
  }
}

/**
 * A deterministic scan id (uuid form, version 5 layout over SHA-1) for one scheduled tick of a
 * scope: every worker firing the same tick computes the same id, so their attempts collapse into
 * one scan even before the lock decides.
 * @param scope the schedule's scope (source name)
 * @param tick the tick's time, truncated to the second by the caller
 */
export function scheduledScanId(scope: string, tick: Date): string {
  const h = createHash('sha1').update(`fleet-audit-scan\0${scope}\0${tick.toISOString()}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
