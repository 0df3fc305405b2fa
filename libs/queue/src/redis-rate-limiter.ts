/**
 * Per-account Alibaba Cloud OpenAPI budgets shared by every worker process (ARCHITECTURE.md
 * "Running modes": adding workers never breaks an account's API quota).
 *
 * Same budget model as the in-process limiter of libs/collectors (`api-rate-limiter.util.ts`:
 * `qpsPerAccount` over every API, `qpsPerApi` overrides, `maxConcurrentPerAccount` in flight, calls
 * that unlock more work first), but each limiter keeps its state in Redis: Bottleneck's clustering
 * mode (`datastore: 'ioredis'`), one limiter id per account (and per overridden API). Bottleneck's
 * Lua scripts space call starts by `minTime` = 1000 / QPS ms across all processes, and free the
 * in-flight slots of a process that stopped sending heartbeats (`clientTimeout`, 10 s), so a
 * SIGKILLed worker does not shrink the budget for good. When Redis restarts empty, Bottleneck
 * re-creates the limiter state on the next call (`SETTINGS_KEY_NOT_FOUND` -> `init`).
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
}

interface PooledLimiter {
  limiter: Bottleneck;
  minTime: number;
  maxConcurrent: number;
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

  /**
   * Connects to Redis (one client and one subscriber for every limiter of the pool).
   * @throws RangeError for a headroom outside (0, 1]
   */
  constructor(options: RedisRateLimiterPoolOptions) {
    this.prefix = prefixOf(options);
    this.idleTtlMs = options.idleTtlMs ?? 15 * 60_000;
    this.onError = options.onError ?? (() => undefined);
    this.headroom = options.headroom ?? 0.9;
    if (!(this.headroom > 0 && this.headroom <= 1)) throw new RangeError(`headroom must be in (0, 1], got ${this.headroom}`);
    const client = new IORedis(options.redisUrl, { lazyConnect: false });
    this.connection = new Bottleneck.IORedisConnection({ client, Redis: IORedis });
    this.connection.on('error', (e: Error) => this.onError(e));
  }

  /**
   * A limiter that paces calls by `budget` (from the scan config's `collector` settings).
   * @throws RangeError at the first call for a non-positive QPS or concurrency
   */
  forBudget(budget: RateLimiterOptions): ApiRateLimiter {
    return {
      schedule: <T>(accountId: string, api: string, fn: () => Promise<T>): Promise<T> =>
        this.limiterFor(accountId, api, budget).schedule({ priority: priorityOf(api) }, fn),
    };
  }

  /** Stop every limiter and close the Redis connections (queued calls are dropped). */
  async close(): Promise<void> {
    const all = [...this.limiters.values()];
    this.limiters.clear();
    await Promise.all(all.map((l) => l.limiter.disconnect(false).catch(() => undefined)));
    await this.connection.disconnect(false);
  }

  private limiterFor(accountId: string, api: string, budget: RateLimiterOptions): Bottleneck {
    const own = budget.qpsPerApi?.[api];
    const qps = own ?? budget.qpsPerAccount;
    if (!(qps > 0) || !Number.isFinite(qps)) throw new RangeError(`QPS budget must be a positive number, got ${qps}`);
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
        pooled.limiter.updateSettings({ minTime, maxConcurrent });
        pooled.minTime = minTime;
        pooled.maxConcurrent = maxConcurrent;
      }
      return pooled.limiter;
    }
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
    this.limiters.set(key, { limiter, minTime, maxConcurrent });
    return limiter;
  }
}
