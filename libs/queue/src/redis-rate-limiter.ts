/**
 * Per-account Alibaba Cloud OpenAPI budgets shared by every worker process (docs/architecture.md
 * "Running modes": adding workers never breaks an account's API quota).
 *
 * Same budget model as the in-process limiter of libs/collectors (`api-rate-limiter.util.ts`:
 * `qpsPerAccount` over every API, `qpsPerApi` overrides, `maxConcurrentPerAccount` in flight, calls
 * that unlock more work first), with the state of each budget in Redis, one per account (and per
 * overridden API of an account). Two keys per budget:
 *  - `<prefix>:rate:<key>:next`: the earliest start time (Redis clock, epoch ms) of the next call;
 *  - `<prefix>:rate:<key>:running`: a sorted set of the slots held (calls reserved or running), each scored by
 *    the time its hold expires.
 * One Lua script (`RESERVE`, atomic in Redis) drops the expired slots, refuses when `maxConcurrent` are held, and
 * otherwise takes a slot and the next start time, pushing `next` one `minTime` (1000 / QPS ms, less the headroom)
 * later: starts of all processes are spaced `minTime` apart, on Redis's clock. The caller waits until its start time,
 * passes a sliding window of the budget's actual starts (`GATE`, `<prefix>:rate:<key>:starts`: at most QPS x headroom
 * starts in any second of Redis's clock, the hard cap behind the grid, as `SlidingWindowGate` is in process: a worker whose
 * event loop stalled starts its late calls within the budget instead of together), runs the call and frees the slot
 * (`FREE`, which publishes the budget's key so that processes waiting for a slot try again at once). A slot's hold is the call's longest duration (connect + read timeout) plus 5 s after its start
 * time: a SIGKILLed worker's slots come back by themselves then. Within a process, calls wait in one queue per
 * budget, lower `priorityOf` first, in arrival order within a priority, and reserve one at a time.
 *
 * Redis restarting empty mid-scan needs nothing: missing keys are an idle budget, and the script is loaded again
 * (ioredis `defineCommand` falls back to EVAL on NOSCRIPT). While Redis is unreachable a call keeps trying to
 * reserve, for up to `outageToleranceMs` after it was scheduled, then fails; it never runs unpaced. A graceful stop
 * (`dropWaiting`) rejects every call that has not started and frees the slots of those that had reserved one, in
 * flight or not, so the other workers get them at once.
 *
 * Our own code rather than a library: the guarantees above (start times spaced across processes, a concurrency
 * bound across processes with per-call expiry, priorities, giving slots back on stop) are not what the maintained
 * Redis limiters offer (rate-limiter-flexible counts points per window and has no shared concurrency bound; BullMQ's
 * limiter paces jobs of a queue, not the API calls inside them), and Bottleneck's clustering mode, which does offer
 * them, is unmaintained since 2019 and gives slots back on stop only through its private members.
 */
import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import { minTimeOf, priorityOf, type ApiRateLimiter, type RateLimiterOptions } from '@app/collectors';
import { prefixOf, type QueueConnectionConfig } from './queue-options';

/** Options of {@link RedisRateLimiterPool}. */
export interface RedisRateLimiterPoolOptions extends QueueConnectionConfig {
  /** Redis TTL of an idle budget's state, milliseconds (default 15 minutes). */
  idleTtlMs?: number;
  /** Called with Redis errors (a call concerned is retried, then rejected past `outageToleranceMs`). */
  onError?: (error: Error) => void;
  /**
   * Share of each budget actually used, 0 < headroom <= 1 (default 0.9). Servers count calls by
   * arrival in one-second windows; starts spaced exactly 1/QPS apart can still land QPS + 1 in one
   * window when network or event-loop delays (several busy processes per core) shift one across
   * the window edge. Spacing starts 1/(0.9 QPS) apart absorbs up to ~0.1 s of such drift.
   */
  headroom?: number;
  /** How long a call may wait for an unreachable Redis before it fails, milliseconds (default 60000). */
  outageToleranceMs?: number;
  /**
   * How often a budget whose slots are all held asks again without being told a slot was freed, milliseconds (default
   * 2000; sooner when a held slot expires sooner).
   */
  kickIntervalMs?: number;
}

/** The error of calls dropped by {@link RedisRateLimiterPool.dropWaiting} or `close`. */
export class RateLimiterStoppedError extends Error {
  constructor() {
    super('the worker is shutting down');
    this.name = 'RateLimiterStoppedError';
  }
}

/**
 * KEYS[1] `next`, KEYS[2] `running`; ARGV: minTime (ms), maxConcurrent, slot id, hold after the start (ms), idle TTL
 * (ms). Returns `{wait, 0}` (the slot is taken; start in `wait` ms) or `{-1, retry}` (every slot held; the first hold
 * expires in `retry` ms).
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local minTime = tonumber(ARGV[1])
local hold = tonumber(ARGV[4])
local ttl = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {-1, math.max(1, tonumber(first[2]) - now)}
end
local start = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
redis.call('SET', KEYS[1], start + minTime, 'PX', start + minTime - now + ttl)
redis.call('ZADD', KEYS[2], start + hold, ARGV[3])
redis.call('PEXPIRE', KEYS[2], start - now + hold + ttl)
return {start - now, 0}
`;

/**
 * KEYS[1] `starts`; ARGV: capacity (starts per window), window (ms), slot id, idle TTL (ms). Records a start and
 * returns 0, or returns how long (ms) until the oldest start of the window leaves it.
 */
const GATE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(first[2]) + window - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window + tonumber(ARGV[4]))
return 0
`;

/** KEYS[1] `running`; ARGV: slot id, channel, budget key. Frees the slot and tells the waiting processes. */
const FREE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 0
`;

interface LimiterCommands {
  rateReserve(next: string, running: string, minTime: number, maxConcurrent: number, slot: string, hold: number, ttl: number): Promise<[number, number]>;
  rateFree(running: string, slot: string, channel: string, key: string): Promise<number>;
  rateGate(starts: string, capacity: number, windowMs: number, slot: string, ttl: number): Promise<number>;
}
type LimiterRedis = IORedis & LimiterCommands;

/** A call waiting in a budget's queue. */
interface Pending {
  priority: number;
  /** Past this time (epoch ms) a call that could not reserve (Redis unreachable) fails. */
  deadline: number;
  /** The hold of its slot after its start time, milliseconds. */
  hold: number;
  /** Starts the call; settles when it does (the caller's promise has its answer by then). */
  run: () => Promise<unknown>;
  fail: (e: Error) => void;
}

/** One budget of this process: its settings, its queue and what it has reserved. */
interface Budget {
  key: string;
  minTime: number;
  maxConcurrent: number;
  /** The start window (`GATE`): at most `capacity` starts in any `windowMs` (the budget's QPS times the headroom). */
  capacity: number;
  windowMs: number;
  queue: Pending[];
  /** The pump is reserving for this budget (one reservation at a time). */
  pumping: boolean;
  /** A slot was freed while the pump was reserving: ask again before waiting. */
  again: boolean;
  /** A retry of the pump (every slot held, or Redis unreachable). */
  wake: NodeJS.Timeout | undefined;
  attempts: number;
}

/**
 * The Redis-backed budgets of one process: `forBudget(budget)` gives an {@link ApiRateLimiter}
 * for the collectors; budgets are created per account (and overridden API) on first use and
 * shared by every scan and job of the process. Two processes with the same prefix share budgets.
 */
export class RedisRateLimiterPool {
  private readonly client: LimiterRedis;
  private readonly subscriber: IORedis;
  private readonly budgets = new Map<string, Budget>();
  private readonly prefix: string;
  private readonly channel: string;
  private readonly idleTtlMs: number;
  private readonly onError: (error: Error) => void;
  private readonly headroom: number;
  private readonly outageToleranceMs: number;
  private readonly kickIntervalMs: number;
  /** This pool's slot ids are `<id>:<n>`. */
  private readonly id = randomBytes(6).toString('hex');
  private slots = 0;
  /** Work `dropWaiting` waits for: reservations in flight, calls reserved or running, frees. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Calls that reserved a slot and wait for their start time: how to drop each. */
  private readonly reserved = new Set<() => void>();
  private closed = false;

  /**
   * Connects to Redis (one client, and one subscriber for the freed-slot messages).
   * @throws RangeError for a headroom outside (0, 1]
   */
  constructor(options: RedisRateLimiterPoolOptions) {
    this.prefix = prefixOf(options);
    this.channel = `${this.prefix}:rate:freed`;
    this.idleTtlMs = options.idleTtlMs ?? 15 * 60_000;
    this.onError = options.onError ?? (() => undefined);
    this.headroom = options.headroom ?? 0.9;
    if (!(this.headroom > 0 && this.headroom <= 1))
      throw new RangeError(`headroom must be in (0, 1], got ${this.headroom}`);
    this.outageToleranceMs = options.outageToleranceMs ?? 60_000;
    this.kickIntervalMs = options.kickIntervalMs ?? 2_000;
    // Without the offline queue a command fails at once while Redis is unreachable: each call's wait for Redis is
    // bounded by its own deadline (`outageToleranceMs`), not by the client's reconnection attempts.
    const client = new IORedis(options.redisUrl, { lazyConnect: false, enableOfflineQueue: false });
    client.defineCommand('rateReserve', { numberOfKeys: 2, lua: RESERVE });
    client.defineCommand('rateFree', { numberOfKeys: 1, lua: FREE });
    client.defineCommand('rateGate', { numberOfKeys: 1, lua: GATE });
    this.client = client as LimiterRedis;
    this.client.on('error', (e: Error) => this.onError(e));
    this.subscriber = client.duplicate({ enableOfflineQueue: true });
    this.subscriber.on('error', (e: Error) => this.onError(e));
    this.subscriber.on('message', (_channel: string, key: string) => {
      const b = this.budgets.get(key);
      if (b && b.queue.length > 0) this.pump(b);
    });
    void this.subscriber.subscribe(this.channel).catch((e: unknown) => this.onError(asError(e)));
    // Once connected (and after every reconnect), budgets that waited for Redis try at once (the subscriber
    // resubscribes by itself).
    client.on('ready', () => {
      for (const b of this.budgets.values()) if (b.queue.length > 0) this.pump(b);
    });
  }

  /**
   * A limiter that paces calls by `budget` (from the scan config's `collector` settings).
   * @param callTimeoutMs the longest one API call may take (the config's connect + read timeout,
   *   milliseconds; default 15000): a call's slot is freed in Redis 5 s after it at the latest
   * @throws RangeError at the first call for a non-positive QPS or concurrency
   */
  forBudget(budget: RateLimiterOptions, callTimeoutMs = 15_000): ApiRateLimiter {
    const hold = callTimeoutMs + 5_000;
    return {
      schedule: <T>(accountId: string, api: string, fn: () => Promise<T>): Promise<T> => this.schedule(accountId, api, budget, hold, fn),
    };
  }

  /**
   * Reject every call that has not started (worker shutdown past its grace period: the jobs waiting for budget are
   * going back to the queue) with a {@link RateLimiterStoppedError} 'the worker is shutting down', and free in Redis
   * the slot of each that had reserved one (a reservation in flight is freed when its answer comes), so the other
   * workers sharing the account's budget get them at once instead of after their hold. Calls already running are not
   * touched: they end as they would and free their slot themselves. The pool accepts no call afterwards.
   *
   * Resolves (never rejects) once every running call ended and every slot given back was freed; failures to free go
   * to `onError` (such a slot comes back at the end of its hold).
   */
  async dropWaiting(): Promise<void> {
    this.closed = true;
    for (const b of this.budgets.values()) this.dropQueued(b);
    for (const drop of [...this.reserved]) drop();
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** {@link dropWaiting}, then close the Redis connections. */
  async close(): Promise<void> {
    await this.dropWaiting();
    this.client.disconnect();
    this.subscriber.disconnect();
  }

  private schedule<T>(accountId: string, api: string, budget: RateLimiterOptions, hold: number, fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new RateLimiterStoppedError());
    const b = this.budgetFor(accountId, api, budget);
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = {
        priority: priorityOf(api),
        deadline: Date.now() + this.outageToleranceMs,
        hold,
        run: () => {
          let result: Promise<T>;
          try {
            result = fn();
          } catch (e) {
            result = Promise.reject(e);
          }
          result.then(resolve, reject);
          return result;
        },
        fail: reject,
      };
      // Lower priority first, arrival order within one: insert after the last entry that goes first.
      let i = b.queue.length;
      while (i > 0 && b.queue[i - 1]!.priority > pending.priority) i--;
      b.queue.splice(i, 0, pending);
      this.pump(b);
    });
  }

  /** Reserve slots for the budget's queued calls, one at a time, until its queue is empty or every slot is held. */
  private pump(b: Budget): void {
    if (this.closed) return;
    if (b.pumping) {
      b.again = true;
      return;
    }
    if (b.wake) {
      clearTimeout(b.wake);
      b.wake = undefined;
    }
    b.pumping = true;
    const work = this.reserveAll(b).finally(() => {
      b.pumping = false;
      this.inFlight.delete(work);
    });
    this.inFlight.add(work);
  }

  private async reserveAll(b: Budget): Promise<void> {
    while (b.queue.length > 0 && !this.closed) {
      b.again = false;
      if (this.client.status !== 'ready') {
        // Not connected (yet, or any more; the client's 'error' events say why): the 'ready' event pumps again.
        this.failExpired(b, new Error(`Redis is unreachable (connection ${this.client.status})`));
        this.wakeLater(b, 1_000);
        return;
      }
      const head = b.queue[0]!;
      const slot = `${this.id}:${this.slots++}`;
      let answer: [number, number];
      try {
        answer = await this.client.rateReserve(this.keyOf(b, 'next'), this.keyOf(b, 'running'), b.minTime, b.maxConcurrent, slot, head.hold, this.idleTtlMs);
        b.attempts = 0;
      } catch (e) {
        // Redis unreachable (or failing): fail the calls past their deadline, try again with a backoff.
        this.onError(asError(e));
        this.failExpired(b, asError(e));
        this.wakeLater(b, Math.min(1_000, 100 * 2 ** b.attempts++));
        return;
      }
      const [wait, retry] = answer;
      if (wait < 0) {
        if (b.again) continue; // freed meanwhile
        this.wakeLater(b, Math.min(retry, this.kickIntervalMs));
        return;
      }
      const at = b.queue.indexOf(head);
      if (at >= 0) b.queue.splice(at, 1);
      if (this.closed) {
        // Stopped while the reservation was on its way: give the slot back, the call never runs.
        this.free(b, slot);
        head.fail(new RateLimiterStoppedError());
        return;
      }
      this.startLater(b, head, slot, wait);
    }
  }

  /**
   * Run a call at its start time (`wait` ms from now), once the start window lets it (`GATE`), and free its slot when
   * it settles; `dropWaiting` may drop it until it runs. While Redis is unreachable at its start the call waits (it
   * never starts past the window) for up to `outageToleranceMs`, then fails unrun.
   */
  private startLater(b: Budget, p: Pending, slot: string, wait: number): void {
    let done!: () => void;
    const settled = new Promise<void>((r) => (done = r));
    this.inFlight.add(settled);
    let timer: NodeJS.Timeout | undefined;
    let dropped = false;
    let unreachableSince: number | undefined;
    const end = (e?: Error): void => {
      dropped = true;
      if (timer) clearTimeout(timer);
      this.reserved.delete(drop);
      this.free(b, slot);
      if (e) p.fail(e);
      this.inFlight.delete(settled);
      done();
    };
    const drop = (): void => {
      if (!dropped) end(new RateLimiterStoppedError());
    };
    const start = async (): Promise<void> => {
      timer = undefined;
      let later: number;
      try {
        later = await this.client.rateGate(this.keyOf(b, 'starts'), b.capacity, b.windowMs, slot, this.idleTtlMs);
        unreachableSince = undefined;
      } catch (e) {
        this.onError(asError(e));
        unreachableSince ??= Date.now();
        if (Date.now() - unreachableSince >= this.outageToleranceMs) {
          if (!dropped) end(asError(e));
          return;
        }
        later = 250;
      }
      if (dropped) return;
      if (later > 0) {
        timer = setTimeout(() => void start(), later);
        return;
      }
      this.reserved.delete(drop);
      const after = (): void => {
        end();
        this.pump(b);
      };
      p.run().then(after, after);
    };
    timer = setTimeout(() => void start(), wait);
    this.reserved.add(drop);
  }

  /** Free a slot in Redis (retried while Redis is unreachable, up to the outage tolerance; the hold expires anyway). */
  private free(b: Budget, slot: string): void {
    const deadline = Date.now() + this.outageToleranceMs;
    const attempt = async (n: number): Promise<void> => {
      try {
        await this.client.rateFree(this.keyOf(b, 'running'), slot, this.channel, b.key);
      } catch (e) {
        this.onError(asError(e));
        if (Date.now() >= deadline || this.client.status === 'end') return;
        await new Promise((r) => setTimeout(r, Math.min(1_000, 100 * 2 ** n)));
        return attempt(n + 1);
      }
    };
    const work = attempt(0).finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
  }

  private wakeLater(b: Budget, ms: number): void {
    if (b.wake || this.closed) return;
    b.wake = setTimeout(() => {
      b.wake = undefined;
      this.pump(b);
    }, Math.max(1, ms));
    b.wake.unref();
  }

  /** Fail, unrun, the queued calls that waited for Redis past their deadline (`outageToleranceMs`). */
  private failExpired(b: Budget, e: Error): void {
    const now = Date.now();
    for (const p of b.queue.filter((q) => q.deadline <= now)) {
      b.queue.splice(b.queue.indexOf(p), 1);
      p.fail(e);
    }
  }

  private dropQueued(b: Budget): void {
    if (b.wake) {
      clearTimeout(b.wake);
      b.wake = undefined;
    }
    const dropped = b.queue.splice(0);
    for (const p of dropped) p.fail(new RateLimiterStoppedError());
  }

  private keyOf(b: Budget, part: 'next' | 'running' | 'starts'): string {
    return `${this.prefix}:rate:${b.key}:${part}`;
  }

  private budgetFor(accountId: string, api: string, budget: RateLimiterOptions): Budget {
    const own = budget.qpsPerApi?.[api];
    const qps = own ?? budget.qpsPerAccount;
    if (!(qps > 0) || !Number.isFinite(qps)) throw new RangeError(`QPS budget must be a positive number, got ${qps}`);
    if (!(budget.maxConcurrentPerAccount > 0)) {
      throw new RangeError(`maxConcurrentPerAccount must be positive, got ${budget.maxConcurrentPerAccount}`);
    }
    const key = own !== undefined ? `${accountId}:${api}` : accountId;
    const minTime = minTimeOf(qps * this.headroom);
    const maxConcurrent = budget.maxConcurrentPerAccount;
    // The window of `SlidingWindowGate.forQps` at the used share of the budget: floor(qps x headroom) starts per
    // second (1 per 1000 / (qps x headroom) ms below 1): a call's request reaches the API some time after it passed
    // the window, and that time varies on a busy machine; the headroom absorbs it as it does for the grid.
    const used = qps * this.headroom;
    const capacity = Math.max(1, Math.floor(used));
    const windowMs = Math.ceil((capacity * 1000) / used);
    let b = this.budgets.get(key);
    if (!b) {
      b = { key, minTime, maxConcurrent, capacity, windowMs, queue: [], pumping: false, again: false, wake: undefined, attempts: 0 };
      this.budgets.set(key, b);
    } else {
      // A scan with another budget for the same account: this process reserves with the latest config's settings.
      Object.assign(b, { minTime, maxConcurrent, capacity, windowMs });
    }
    return b;
  }
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
