/**
 * Pacing of Alibaba Cloud OpenAPI calls per account: a QPS budget and a bound on calls in flight.
 *
 * Budget model (what `collector.qpsPerAccount` / `collector.qpsPerApi` mean):
 *  - every call of an account draws from one budget of `qpsPerAccount` calls per second, whatever
 *    the API: the audit shares the account's OpenAPI rate limits with the production controllers
 *    of that account (CCM calls the same SLB APIs), so a scan keeps to a fixed total rate per
 *    account instead of using up every API's own limit (Alibaba Cloud limits are per account and
 *    per API: research/alibaba-cloud-api.md section 7, "Throttling.User");
 *  - an API named in `qpsPerApi` is paced by its own budget instead (not drawn from the shared
 *    one), for an API whose limit is lower than the shared budget, or one that must not compete.
 *  - at most `maxConcurrentPerAccount` calls of an account are in flight at once.
 * So the least time a scan can take is max over accounts of (shared-budget calls / qpsPerAccount)
 * and over (account, API in qpsPerApi) of (calls / that budget): the crawl benchmark's bound.
 *
 * Implementation: `bottleneck` limiters (one per account and one per overridden API of an
 * account), `minTime` = 1000 / QPS ms between call starts: calls start on an even grid. Bottleneck
 * schedules each call ahead with a timer; when the event loop was busy, late timers fire together.
 * A sliding window in front of each call (at most QPS starts in any 1000 ms, in this process)
 * turns such a burst back into the budget: a server counting calls per one-second window never
 * sees more than QPS of them, and a short stall is made up within the next second. Calls that
 * unlock further work (list pages, DescribeVServerGroups, the NLB and server-group lists, kubeconfigs, the cluster list) get a
 * higher priority than leaf reads, so the queue of leaf reads never runs dry while lists are
 * still paging. Bottleneck's `datastore: 'ioredis'` (with `bottleneckOptions`) shares the same
 * budgets between processes: the distributed worker passes such a limiter.
 */
import type Bottleneck from 'bottleneck';
import { bottleneckPackage } from './sdk-modules';

/** Paces calls per account (and API). Pluggable: the worker passes a Redis-backed one. */
export interface ApiRateLimiter {
  /**
   * Run `fn` when the account's budget allows.
   * @param accountId the account whose budget the call draws from
   * @param api the API action (`DescribeLoadBalancerAttribute`)
   * @returns what `fn` returns; rejects with what `fn` throws
   */
  schedule<T>(accountId: string, api: string, fn: () => Promise<T>): Promise<T>;
}

/** Budgets of {@link createInMemoryRateLimiter}. */
export interface RateLimiterOptions {
  /** Calls per second per account over every API without its own budget. */
  qpsPerAccount: number;
  /** APIs with their own budget per account, calls per second, by action name. */
  qpsPerApi?: Readonly<Record<string, number>>;
  /** Calls in flight per account at once, count (each overridden API gets the same bound). */
  maxConcurrentPerAccount: number;
}

/** An in-process limiter; `close` stops its timers. */
export interface ClosableApiRateLimiter extends ApiRateLimiter {
  /** Stop every limiter (queued calls still run). */
  close(): Promise<void>;
}

/**
 * At most `capacity` starts in any `windowMs` milliseconds; callers wait in FIFO order. The hard
 * cap behind the Bottleneck grid (see the module comment).
 */
export class SlidingWindowGate {
  private readonly starts: number[] = [];
  private readonly waiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param capacity starts allowed per window, count (>= 1)
   * @param windowMs window length, milliseconds
   * @param now clock, epoch milliseconds (tests)
   */
  constructor(
    private readonly capacity: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The gate of a QPS budget: floor(qps) starts per 1000 ms (1 start per 1000 / qps ms below 1 QPS). */
  static forQps(qps: number, now?: () => number): SlidingWindowGate {
    const capacity = Math.max(1, Math.floor(qps));
    return new SlidingWindowGate(capacity, (capacity * 1000) / qps, now);
  }

  /** Resolves when a start is allowed (and records it). */
  acquire(): Promise<void> {
    if (this.waiters.length === 0 && this.tryTake()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      this.pump();
    });
  }

  private tryTake(): boolean {
    const t = this.now();
    while (this.starts.length > 0 && (this.starts[0] ?? 0) <= t - this.windowMs) this.starts.shift();
    if (this.starts.length >= this.capacity) return false;
    this.starts.push(t);
    return true;
  }

  private pump(): void {
    while (this.waiters.length > 0 && this.tryTake()) this.waiters.shift()?.();
    if (this.waiters.length === 0 || this.timer) return;
    const wait = Math.max(1, (this.starts[0] ?? this.now()) + this.windowMs - this.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, wait);
  }
}

/** APIs whose answer unlocks further calls: run before leaf reads (Bottleneck priority, lower first). */
const UNLOCKING_APIS = new Set([
  'AssumeRole',
  'DescribeLoadBalancers',
  'DescribeVServerGroups',
  'ListLoadBalancers',
  'ListServerGroups',
  'DescribeInstances',
  'DescribeClustersV1',
  'DescribeClusterUserKubeconfig',
  'ListRoles',
  'ListPoliciesForRole',
  'RunCommand',
]);

/** Bottleneck priority of an API: 3 for calls that unlock more work, 5 (the default) for leaf reads. */
export function priorityOf(api: string): number {
  return UNLOCKING_APIS.has(api) ? 3 : 5;
}

/** Milliseconds between call starts for a QPS budget (rounded up: never faster than the budget). */
export function minTimeOf(qps: number): number {
  return Math.ceil(1000 / qps);
}

/**
 * A Bottleneck-based limiter with the given budgets.
 * @param bottleneckOptions extra options for every Bottleneck (e.g. `{ datastore: 'ioredis',
 *   clientOptions: {...}, clearDatastore: false }` to share budgets between processes; each
 *   limiter's `id` is `<id or "fleet-audit">:<accountId>[:<api>]`, so every process using the
 *   same id prefix and Redis shares each account's budget and concurrency; the sliding-window cap
 *   stays per process; `clearDatastore` must stay false where several processes share an id: a
 *   process clearing it drops the others' client registrations, and Bottleneck 2.19.5 does not
 *   re-register on Redis 7's `ERR UNKNOWN_CLIENT` reply, SGrondin/bottleneck#212)
 * @throws RangeError for a non-positive QPS or concurrency
 */
export function createBottleneckRateLimiter(
  options: RateLimiterOptions,
  bottleneckOptions: Bottleneck.ConstructorOptions = {},
): ClosableApiRateLimiter {
  const check = (name: string, n: number) => {
    if (!(n > 0) || !Number.isFinite(n)) throw new RangeError(`${name} must be a positive number, got ${n}`);
  };
  check('qpsPerAccount', options.qpsPerAccount);
  check('maxConcurrentPerAccount', options.maxConcurrentPerAccount);
  for (const [api, qps] of Object.entries(options.qpsPerApi ?? {})) check(`qpsPerApi.${api}`, qps);
  const Limiter = bottleneckPackage();
  const limiters = new Map<string, { limiter: Bottleneck; gate: SlidingWindowGate }>();
  const limiterFor = (accountId: string, api: string) => {
    const own = options.qpsPerApi?.[api];
    const key = own !== undefined ? `${accountId}:${api}` : accountId;
    let l = limiters.get(key);
    if (!l) {
      const qps = own ?? options.qpsPerAccount;
      l = {
        limiter: new Limiter({
          ...bottleneckOptions,
          id: `${bottleneckOptions.id ?? 'fleet-audit'}:${key}`,
          maxConcurrent: options.maxConcurrentPerAccount,
          minTime: minTimeOf(qps),
        }),
        gate: SlidingWindowGate.forQps(qps),
      };
      limiters.set(key, l);
    }
    return l;
  };
  return {
    schedule<T>(accountId: string, api: string, fn: () => Promise<T>): Promise<T> {
      const { limiter, gate } = limiterFor(accountId, api);
      return limiter.schedule({ priority: priorityOf(api) }, async () => {
        await gate.acquire();
        return fn();
      });
    },
    async close(): Promise<void> {
      await Promise.all([...limiters.values()].map((l) => l.limiter.disconnect()));
    },
  };
}

/**
 * The default in-process limiter: per-account QPS budget (+ per-API budgets) and concurrency.
 * @throws RangeError for a non-positive QPS or concurrency
 */
export function createInMemoryRateLimiter(options: RateLimiterOptions): ClosableApiRateLimiter {
  return createBottleneckRateLimiter(options);
}

/** The budgets a scan config asks for (`collector.qpsPerAccount`, `qpsPerApi`, `maxConcurrentPerAccount`). */
export function rateLimiterOptionsOf(collector: {
  qpsPerAccount: number;
  qpsPerApi: Readonly<Record<string, number>>;
  maxConcurrentPerAccount: number;
}): RateLimiterOptions {
  return {
    qpsPerAccount: collector.qpsPerAccount,
    qpsPerApi: collector.qpsPerApi,
    maxConcurrentPerAccount: collector.maxConcurrentPerAccount,
  };
}
