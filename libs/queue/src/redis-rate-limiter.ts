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
 * good. A graceful stop (`dropWaiting`) gives its slots back at once: Bottleneck's own `stop`
 * drops the calls that hold a slot while they wait for their start time without freeing it, so
 * the pool frees those itself (see {@link stopAndFreeSlots}).
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
   * are going back to the queue) and give back, in Redis, the concurrency slot of every call that
   * held one without having started (see {@link stopAndFreeSlots}), so the other workers sharing
   * the account's budget get it at once instead of after the call's expiration (call timeout +
   * 5 s). Calls already running (`fn` started) are not touched: they end as they would and free
   * their slot themselves. The pool accepts no call afterwards.
   *
   * Waiting callers are rejected with a `Bottleneck.BottleneckError` 'the worker is shutting
   * down'. Resolves (never rejects) once every limiter stopped: the running calls ended (that is
   * Bottleneck's `stop`) and every slot given back was freed in Redis; failures to free go to
   * `onError`.
   */
  async dropWaiting(): Promise<void> {
    if (this.closed) return; // already dropped (or closed): Bottleneck's stop() runs once per limiter
    this.closed = true;
    await Promise.all(
      [...this.limiters.values()].map((l) =>
        stopAndFreeSlots(l.limiter, 'the worker is shutting down', this.onError),
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
          // Bottleneck's stop drops registered calls only once its locks are free: a call whose start time comes in
          // that gap would still reach the API after the shutdown began. It fails here unrun instead (Bottleneck then
          // frees its slot as for any failed call).
          if (this.closed) return Promise.reject(new Error('the worker is shutting down'));
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
   *
   * The old limiter's plain `stop` drops its registered-but-unstarted calls without freeing their
   * slots (see {@link stopAndFreeSlots}), and that is right here: a replacement follows either
   * `SETTINGS_KEY_NOT_FOUND` (Redis lost the limiter's keys: the job weights and expirations that
   * counted those slots are gone, the new state starts at 0 running, and a `free` of the old
   * random indexes would change nothing) or `UNKNOWN_CLIENT` (Bottleneck 2.19.5's `process_tick`
   * removes a client only while its running weight is 0, and `validate_client` refuses it any
   * registration afterwards, so it holds no slot).
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

/** A `_scheduled` entry of Bottleneck 2.19.5 (lib/Bottleneck.js `_run`): a registered job. */
interface ScheduledEntry {
  job?: { promise?: unknown };
}

/** The internals of a Bottleneck 2.19.5 instance that {@link stopAndFreeSlots} uses. */
interface BottleneckInternals {
  /** Registered jobs (holding a slot in Redis) by their Redis index; `_clearGlobalState` deletes one when it ends. */
  _scheduled?: unknown;
  /** Starts a registered job after its wait; `stop({ dropWaitingJobs: true })` replaces it with a drop. */
  _run?: unknown;
  /**
   * The Redis datastore; `__free__(index)` runs the `free` script (promise of `{ running }`; RedisDatastore.js: the
   * script frees the job's whole registered weight by its index, the weight argument of the signature is unused).
   */
  _store?: { __free__?: unknown };
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/**
 * `limiter.stop({ dropWaitingJobs: true, dropErrorMessage })`, then free in Redis the slot of
 * every call that stop dropped after it had been registered.
 *
 * Why (Bottleneck 2.19.5, lib/Bottleneck.js): `_drainOne` registers a queued job in Redis
 * (`__register__`: the job's weight counts as running until it is freed or its `expiration`
 * passes) and hands it to `_run`, which keeps it in `_scheduled[index]` (state RUNNING) until its
 * `wait` for the limiter's next start time is over; only then does `doExecute` call the task and,
 * at its end, `_free` (`_store.__free__(index, weight)`). `stop` with `dropWaitingJobs` drops
 * those RUNNING jobs (`doDrop`) and replaces `_run` with a drop for jobs whose registration is
 * still in flight, never calling `_free` for either: Redis counts their slots as running until
 * their expiration, so every other process sharing the limiter runs with fewer slots meanwhile.
 *
 * How: just before `stop`, snapshot `_scheduled` (the jobs holding a slot; `stop` itself replaces
 * `_run`, so none is added afterwards). A job that runs or expires leaves `_scheduled`
 * (`_clearGlobalState`) before its promise settles and frees its own slot; a job dropped by `stop`
 * is still there when its promise rejects, so it is removed and freed here. After `stop`, its
 * replacement `_run` is wrapped to free the slot of a job whose registration completes afterwards.
 * This relies on internals of Bottleneck 2.19.5 (unmaintained since 2019, pinned in
 * package-lock.json): if they are missing (another version), the stop still happens and the lost
 * slots are reported through `onError` (they then come back at their expiration).
 *
 * Alternative not taken: letting registered jobs execute a no-op (Bottleneck frees those itself)
 * needs the still-queued jobs dropped without registering them, and Bottleneck's only public way
 * to drop queued jobs is this same `stop`, which drops the registered ones with them.
 *
 * @param onError receives Redis errors of `free` and missing internals
 * @returns resolves (never rejects) once `stop`'s promise settled (every running call ended) and
 *   every `free` script answered
 */
async function stopAndFreeSlots(
  limiter: Bottleneck,
  dropErrorMessage: string,
  onError: (error: Error) => void,
): Promise<void> {
  const internals = limiter as unknown as BottleneckInternals;
  const scheduled = internals._scheduled;
  const store = internals._store;
  const originalRun = internals._run;
  const free = store?.__free__;
  if (
    typeof scheduled !== 'object' ||
    scheduled === null ||
    typeof originalRun !== 'function' ||
    typeof free !== 'function'
  ) {
    onError(
      new Error(
        `Bottleneck ${(Bottleneck as unknown as { version?: string }).version ?? '(unknown version)'} lacks the 2.19.5 internals (_scheduled, _run, _store.__free__): ` +
          'the Redis slots of calls dropped before they started stay counted until their expiration',
      ),
    );
    await limiter.stop({ dropWaitingJobs: true, dropErrorMessage }).catch(() => undefined); // shutdown path
    return;
  }
  const entries = scheduled as Record<string, ScheduledEntry | undefined>;
  const frees: Promise<void>[] = [];
  const freeSlot = (index: string): void => {
    frees.push(
      Promise.resolve()
        .then(() => (free as (index: string) => unknown).call(store, index))
        .then(
          () => undefined,
          (e: unknown) => onError(asError(e)),
        ),
    );
  };


  const registered = Object.entries(entries);
  const stopped = limiter.stop({ dropWaitingJobs: true, dropErrorMessage }).catch(() => undefined); // shutdown path
  const dropRun = internals._run;
  if (dropRun === originalRun) {
    // stop() had already been called (it rejected and replaced nothing): those drops are not ours.
    await stopped;
    return;
  }
  if (typeof dropRun === 'function') {
    const drop = dropRun as (
      this: unknown,
      index: string,
      job: ScheduledEntry['job'],
      wait: number,
    ) => unknown;
    internals._run = function (
      this: unknown,
      index: string,
      job: ScheduledEntry['job'],
      wait: number,
    ): unknown {
      const result = drop.call(this, index, job, wait);
      freeSlot(index);
      return result;
    };
  }
  const settled = registered.map(([index, entry]) => {
    const promise = entry?.job?.promise;
    if (!(promise instanceof Promise)) {
      onError(
        new Error(
          `Bottleneck job ${index} has no promise: its Redis slot stays counted until its expiration`,
        ),
      );
      return Promise.resolve();
    }
    const afterwards = (): void => {
      if (entries[index] !== entry) return; // ran or expired: Bottleneck freed it
      delete entries[index];
      freeSlot(index);
    };
    return promise.then(afterwards, afterwards);
  });
  await stopped;
  await Promise.all(settled);
  await Promise.all(frees);
}

/**
 * Bottleneck's typings declare `updateSettings` synchronous, but in clustering mode it returns a
 * promise that rejects while Redis is unreachable; swallow that (the limiter's 'error' event
 * reports it) instead of leaving an unhandled rejection.
 */
function settle(result: unknown): void {
  void Promise.resolve(result).catch(() => undefined);
}
