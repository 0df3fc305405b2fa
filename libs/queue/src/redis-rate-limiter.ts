/**
 * Per-account Alibaba Cloud OpenAPI budgets shared by every worker process (ARCHITECTURE.md
 * "Running modes": adding workers never breaks an account's API quota).
 *
 * Same budget model as the in-process limiter of libs/collectors (`api-rate-limiter.util.ts`:
 * `qpsPerAccount` over every API, `qpsPerApi` overrides, `maxConcurrentPerAccount` in flight, calls
 * that unlock more work first), but each limiter keeps its state in Redis: Bottleneck's clustering
 * mode (`datastore: 'ioredis'`), one limiter id per account (and per overridden API). Bottleneck's
 * Lua scripts space call starts by `minTime` = 1000 / QPS ms across all processes and count calls
 * in flight against `maxConcurrent`. Bottleneck frees a slot in Redis only when its call ends or
 * its `expiration` passes (a dead client's running calls are never freed otherwise), so every
 * call carries an expiration a little above the longest an API call can take (connect + read
 * timeout): a SIGKILLed worker's slots come back after that instead of shrinking the budget for
 * good.
 *
 * Redis restarting empty mid-scan. Bottleneck 2.19.5 means to re-create a limiter's state when
 * its scripts answer `SETTINGS_KEY_NOT_FOUND`, but Redis >= 7 prefixes Lua error replies with
 * `ERR `, so that check never matches and the limiter fails every call from then on. This pool
 * therefore replaces a limiter whose state is gone (a fresh Bottleneck with the same id runs
 * `init` again): on such an error, and right after every reconnect when the limiter's settings
 * key no longer exists. Calls the old limiter still held are rejected before they ran and
 * scheduled again on the new one: a call the limiter rejected before running it is retried
 * (the scheduling only, never the API call) for up to `outageToleranceMs`, so calls wait out an
 * outage instead of failing. A budget is never bypassed.
 */
import Bottleneck from 'bottleneck';
import IORedis from 'ioredis';
import { minTimeOf, priorityOf, type ApiRateLimiter, type RateLimiterOptions } from '@app/collectors';
import { prefixOf, type QueueConnectionConfig } from './queue-options';

/** Options of {@link RedisRateLimiterPool}. */
export interface RedisRateLimiterPoolOptions extends QueueConnectionConfig {
  /** Redis TTL of an idle limiter's state, milliseconds (default 15 minutes). */
  idleTtlMs?: number;
  /** Called with Redis / limiter errors (they also reject the calls concerned). */
  onError?: (error: Error) => void;
  /**
   * Share of each budget actually used, 0 < headroom <= 1 (default 0.9). Servers count calls by
   * arrival in one-second windows; starts spaced exactly 1/QPS apart can still land QPS + 1 in one
   * window when network or event-loop delays (several busy processes per core) shift one across
   * the window edge. Spacing starts 1/(0.9 QPS) apart absorbs up to ~0.1 s of such drift.
   */
  headroom?: number;
  /** How long a call waits for an unreachable Redis before it fails, milliseconds (default 60000). */
  outageToleranceMs?: number;
  /** How often limiters with queued calls are woken up, milliseconds (default 2000). */
  kickIntervalMs?: number;
}

interface PooledLimiter {
  key: string;
  limiter: Bottleneck;
  minTime: number;
  maxConcurrent: number;
}

/** A Bottleneck script error saying the limiter's Redis state is gone (with or without `ERR `). */
function lostState(e: unknown): boolean {
  return e instanceof Error && /(^|\s)(SETTINGS_KEY_NOT_FOUND|UNKNOWN_CLIENT)$/.test(e.message);
}

/**
 * The Redis-backed limiters of one process: `forBudget(budget)` gives an {@link ApiRateLimiter}
 * for the collectors; limiters are created per account (and overridden API) on first use and
 * shared by every scan and job of the process. Two processes with the same prefix share budgets.
 */
export class RedisRateLimiterPool {
  private readonly connection: Bottleneck.IORedisConnection;
  private readonly limiters = new Map<string, PooledLimiter>();
  private readonly prefix: string;
  private readonly idleTtlMs: number;
  private readonly onError: (error: Error) => void;
  private readonly headroom: number;
  private readonly outageToleranceMs: number;
  private readonly kicker: NodeJS.Timeout;
  private closed = false;

  /**
   * Connects to Redis (one client and one subscriber for every limiter of the pool).
   * @throws RangeError for a headroom outside (0, 1]
   */
  constructor(options: RedisRateLimiterPoolOptions) {
    this.prefix = prefixOf(options);
    this.idleTtlMs = options.idleTtlMs ?? 15 * 60_000;
    this.onError = options.onError ?? (() => undefined);
    this.headroom = options.headroom ?? 0.9;
    if (!(this.headroom > 0 && this.headroom <= 1))
      throw new RangeError(`headroom must be in (0, 1], got ${this.headroom}`);
    this.outageToleranceMs = options.outageToleranceMs ?? 60_000;
    const client = new IORedis(options.redisUrl, { lazyConnect: false });
    this.connection = new Bottleneck.IORedisConnection({ client, Redis: IORedis });
    this.connection.on('error', (e: Error) => this.onError(e));
    // After a reconnect (the first 'ready' is the initial connect): replace limiters whose state
    // Redis lost, and wake the others (the subscriber resubscribes meanwhile).
    let connects = 0;
    client.on('ready', () => {
      connects += 1;
      if (connects > 1) setTimeout(() => void this.afterReconnect(client), 300).unref();
    });
    this.kicker = setInterval(() => this.kick(true), options.kickIntervalMs ?? 2_000);
    this.kicker.unref();
  }

  /**
   * A limiter that paces calls by `budget` (from the scan config's `collector` settings).
   * @throws RangeError at the first call for a non-positive QPS or concurrency
   */
  /**
   * @param callTimeoutMs the longest one API call may take (the config's connect + read timeout,
   *   milliseconds; default 15000): a call slot is freed in Redis 5 s after it at the latest
   */
  forBudget(budget: RateLimiterOptions, callTimeoutMs = 15_000): ApiRateLimiter {
    const expiration = callTimeoutMs + 5_000;
    return {
      schedule: <T>(accountId: string, api: string, fn: () => Promise<T>): Promise<T> =>
        this.schedule(accountId, api, budget, expiration, fn),
    };
  }

  /**
   * Reject every queued call (worker shutdown past its grace period: the jobs waiting for budget
   * are going back to the queue). The pool accepts no call afterwards.
   */
  async dropWaiting(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.limiters.values()].map((l) =>
        l.limiter
          .stop({ dropWaitingJobs: true, dropErrorMessage: 'the worker is shutting down' })
          .catch(() => undefined), // shutdown path
      ),
    );
  }

  /** Stop every limiter and close the Redis connections (queued calls are dropped). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.kicker);
    const all = [...this.limiters.values()];
    this.limiters.clear();
    // With a shared connection disconnect() returns nothing (not a promise) in Bottleneck 2.19.
    await Promise.all(all.map((l) => Promise.resolve(l.limiter.disconnect(false)).catch(() => undefined))); // close path
    await this.connection.disconnect(false);
  }

  private async schedule<T>(
    accountId: string,
    api: string,
    budget: RateLimiterOptions,
    expiration: number,
    fn: () => Promise<T>,
  ): Promise<T> {
    const deadline = Date.now() + this.outageToleranceMs;
    for (let attempt = 0; ; attempt += 1) {
      const pooled = this.limiterFor(accountId, api, budget);
      let started = false;
      try {
        return await pooled.limiter.schedule({ priority: priorityOf(api), expiration }, () => {
          started = true;
          return fn();
        });
      } catch (e) {
        // The call's own failure, a closing pool, or Redis gone for too long: give up.
        if (started || this.closed || Date.now() >= deadline) throw e;
        if (lostState(e)) this.replace(pooled);
        else await new Promise((r) => setTimeout(r, Math.min(1_000, 100 * 2 ** attempt)));
      }
    }
  }

  /**
   * Swap a limiter for a fresh one with the same id (its `init` re-creates the Redis state); the
   * calls still queued in the old one are rejected unrun, and their `schedule` loops retry them.
   */
  private replace(old: PooledLimiter): void {
    if (this.closed || this.limiters.get(old.key) !== old) return;
    this.limiters.set(old.key, { ...old, limiter: this.newLimiter(old.key, old.minTime, old.maxConcurrent) });
    void old.limiter
      .stop({ dropWaitingJobs: true, dropErrorMessage: 'SETTINGS_KEY_NOT_FOUND' })
      .catch(() => undefined); // close path of the replaced limiter; its callers retry on the new one
  }

  /** Replace the limiters whose settings key vanished (Redis restarted empty); wake the rest. */
  private async afterReconnect(client: IORedis): Promise<void> {
    for (const pooled of [...this.limiters.values()]) {
      if (this.closed) return;
      // Redis unreachable again: keep the limiter (the next reconnect checks again; the 'error' event logs it).
      const exists = await client.exists(`b_${this.prefix}:rate:${pooled.key}_settings`).catch(() => 1);
      if (exists === 0) this.replace(pooled);
    }
    this.kick(false);
  }

  /** Re-publish settings (and so `capacity`) of limiters; with `onlyQueued`, only of those with waiting calls. */
  private kick(onlyQueued: boolean): void {
    if (this.closed) return;
    for (const l of this.limiters.values()) {
      if (onlyQueued && l.limiter.queued() === 0) continue;
      // In clustering mode updateSettings runs the update_settings script, which ends with a
      // capacity broadcast, waking every process waiting for this limiter.
      void Promise.resolve(
        l.limiter.updateSettings({ minTime: l.minTime, maxConcurrent: l.maxConcurrent }),
      ).catch((e: unknown) => {
        if (lostState(e)) this.replace(l);
      });
    }
  }

  private limiterFor(accountId: string, api: string, budget: RateLimiterOptions): PooledLimiter {
    const own = budget.qpsPerApi?.[api];
    const qps = own ?? budget.qpsPerAccount;
    if (!(qps > 0) || !Number.isFinite(qps))
      throw new RangeError(`QPS budget must be a positive number, got ${qps}`);
    if (!(budget.maxConcurrentPerAccount > 0)) {
      throw new RangeError(`maxConcurrentPerAccount must be positive, got ${budget.maxConcurrentPerAccount}`);
    }
    const key = own !== undefined ? `${accountId}:${api}` : accountId;
    const minTime = minTimeOf(qps * this.headroom);
    const maxConcurrent = budget.maxConcurrentPerAccount;
    const pooled = this.limiters.get(key);
    if (pooled) {
      if (pooled.minTime !== minTime || pooled.maxConcurrent !== maxConcurrent) {
        // A scan with another budget for the same account: the account has one budget at a
        // time, the latest config's (settings live in Redis, so every process follows).
        settle(pooled.limiter.updateSettings({ minTime, maxConcurrent }));
        pooled.minTime = minTime;
        pooled.maxConcurrent = maxConcurrent;
      }
      return pooled;
    }
    const created: PooledLimiter = {
      key,
      limiter: this.newLimiter(key, minTime, maxConcurrent),
      minTime,
      maxConcurrent,
    };
    this.limiters.set(key, created);
    return created;
  }

  private newLimiter(key: string, minTime: number, maxConcurrent: number): Bottleneck {
    const limiter = new Bottleneck({
      id: `${this.prefix}:rate:${key}`,
      datastore: 'ioredis',
      connection: this.connection,
      // Keep the shared state: other processes are using it right now.
      clearDatastore: false,
      timeout: this.idleTtlMs,
      minTime,
      maxConcurrent,
    });
    limiter.on('error', (e: unknown) => this.onError(e instanceof Error ? e : new Error(String(e))));
    return limiter;
  }
}

/**
 * Bottleneck's typings declare `updateSettings` synchronous, but in clustering mode it returns a
 * promise that rejects while Redis is unreachable; swallow that (the limiter's 'error' event
 * reports it) instead of leaving an unhandled rejection.
 */
function settle(result: unknown): void {
  void Promise.resolve(result).catch(() => undefined);
}
