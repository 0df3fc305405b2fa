/**
 * libs/queue RedisRateLimiterPool on real Redis: two pools (two processes' worth of connections)
 * share one per-account budget, a pool stopped by `dropWaiting` gives back the slots of its calls
 * that never ran (reserved and waiting for their start time, or with the reservation on its way to Redis), and
 * calls wait out a Redis restart that loses every key instead of failing or running unpaced. The slots of a budget
 * are the sorted set `<prefix>:rate:<account>:running` (one member per slot held).
 */
import { connect, createServer, type Server } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import IORedis from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { RateLimiterOptions } from '@app/collectors';
import { RedisRateLimiterPool } from '@app/queue';
import {
  deletePrefix,
  SHARED_REDIS_URL,
  startPrivateRedis,
  uniquePrefix,
  type PrivateRedis,
} from './worker-test.util';

const BUDGET: RateLimiterOptions = { qpsPerAccount: 10, maxConcurrentPerAccount: 4 };

/** Starts the limiter lets through in any second: the budget's QPS at the default 0.9 headroom (`GATE`). */
const PACED_PER_SECOND = Math.floor(BUDGET.qpsPerAccount * 0.9);

/**
 * The shortest span, in ms, of `PACED_PER_SECOND + 1` consecutive starts (stamped with `Date.now()` inside the call):
 * the limiter's window lets at most PACED_PER_SECOND starts through in any second of Redis's clock, so on an idle
 * event loop this span is at least 1,000 ms; a stamp is taken when the call runs, up to one event-loop stall after its
 * start passed the window, so a busy machine shortens the span by at most the longest stall (`lagMs`). Unpaced calls
 * give a span of a few ms.
 */
function shortestSpan(starts: readonly number[]): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let shortest = Infinity;
  for (let i = 0; i + PACED_PER_SECOND < sorted.length; i += 1)
    shortest = Math.min(shortest, sorted[i + PACED_PER_SECOND]! - sorted[i]!);
  return shortest;
}

/**
 * Watch this process's event loop until `stop`: resolves to the longest stall seen (ms, rounded up) plus 20 ms for
 * the Redis round trip that reports a start (perf_hooks `monitorEventLoopDelay`, sampled every 10 ms).
 */
function watchLag(): () => number {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return () => {
    h.disable();
    return Math.ceil(h.max / 1e6) + 20;
  };
}

/** A TCP relay to a Redis that can hold back, once, what a client sends (see {@link holdingRelay}). */
interface HoldingRelay {
  /** `redis://127.0.0.1:<relay port>`. */
  url: string;
  /** Resolves when the first client-to-Redis chunk containing the marker was held back. */
  held: Promise<void>;
  /** Forward what was held and everything after it (in order). */
  release(): void;
  /** Stop listening; resolves once every relayed connection closed (its client disconnected). */
  close(): Promise<void>;
}

/**
 * A loopback TCP relay to `redisUrl` that forwards both directions unchanged (half-closes
 * included, so a client's graceful disconnect still gets its last replies), except that the first
 * client-to-Redis chunk containing `marker` (latin1) and every later chunk of that connection wait
 * until `release()`: a command is sent by the client and not yet executed by Redis, for as long as
 * the test needs. Nothing is parsed or answered by the relay; Redis is the real one.
 */
async function holdingRelay(redisUrl: string, marker: string): Promise<HoldingRelay> {
  const target = new URL(redisUrl);
  let armed = true;
  let released = false;
  let onHeld!: () => void;
  const held = new Promise<void>((r) => (onHeld = r));
  const flushes: (() => void)[] = [];
  const closed: Promise<void>[] = [];
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = connect({
      port: Number(target.port || 6379),
      host: target.hostname,
      allowHalfOpen: true,
    });
    closed.push(new Promise((resolve) => client.on('close', () => resolve())));
    upstream.pipe(client); // Redis ending its side ends the client's
    let backlog: Buffer[] | undefined;
    let ended = false;
    const flush = (): void => {
      for (const c of backlog ?? []) upstream.write(c);
      backlog = undefined;
      if (ended) upstream.end();
    };
    client.on('data', (chunk: Buffer) => {
      if (!backlog && armed && chunk.toString('latin1').includes(marker)) {
        armed = false;
        backlog = [];
        flushes.push(flush);
        onHeld();
      }
      if (backlog && !released) backlog.push(chunk);
      else upstream.write(chunk);
    });
    client.on('end', () => {
      ended = true;
      if (!backlog || released) upstream.end();
    });
    const destroy = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', destroy);
    upstream.on('error', destroy);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    held,
    release: () => {
      if (released) return;
      released = true;
      flushes.forEach((f) => f());
    },
    close: async () => {
      server.close();
      await Promise.all(closed);
    },
  };
}

describe('RedisRateLimiterPool', () => {
  let privateRedis: PrivateRedis | undefined;

  afterAll(async () => {
    await privateRedis?.stop();
  });

  it('two pools share one account budget (and do not slow down another account)', async () => {
    const prefix = uniquePrefix('rate');
    const pools = [0, 1].map(() => new RedisRateLimiterPool({ redisUrl: SHARED_REDIS_URL, prefix }));
    try {
      const starts: number[] = [];
      const other: number[] = [];
      const call = (into: number[]) => async () => {
        into.push(Date.now());
        await new Promise((r) => setTimeout(r, 20));
      };
      const t0 = Date.now();
      const lag = watchLag();
      await Promise.all([
        ...pools.flatMap((p) =>
          Array.from({ length: 12 }, () =>
            p.forBudget(BUDGET).schedule('1001', 'DescribeInstances', call(starts)),
          ),
        ),
        ...Array.from({ length: 6 }, () =>
          pools[0].forBudget(BUDGET).schedule('2002', 'DescribeInstances', call(other)),
        ),
      ]);
      const lagMs = lag();
      expect(starts).toHaveLength(24);
      expect(shortestSpan(starts)).toBeGreaterThanOrEqual(1_000 - lagMs);
      // 24 starts at most 10 per second (9 with the headroom) need more than two seconds.
      expect(Math.max(...starts) - t0).toBeGreaterThan(2_000);
      // The other account has its own budget: its 6 calls were not queued behind account 1001's 24.
      expect(Math.max(...other) - t0).toBeLessThan(Math.max(...starts) - t0);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  });

  it('dropWaiting gives back the Redis slots of calls that never ran (another pool gets them at once)', async () => {
    // 0.5 call/s (2.2 s apart with the headroom) and 2 in flight: A's second call holds a slot in Redis
    // while it waits for its start time when A stops; 2.2 s leaves room for a loaded machine between seeing
    // both slots taken and A's stop. With a 60 s call timeout a slot that is not given back stays counted
    // for 65 s (its hold).
    const budget: RateLimiterOptions = { qpsPerAccount: 0.5, maxConcurrentPerAccount: 2 };
    const prefix = uniquePrefix('rate-stop');
    const errors: Error[] = [];
    const a = new RedisRateLimiterPool({
      redisUrl: SHARED_REDIS_URL,
      prefix,
      onError: (e) => errors.push(e),
    });
    const b = new RedisRateLimiterPool({ redisUrl: SHARED_REDIS_URL, prefix });
    const redis = new IORedis(SHARED_REDIS_URL);
    const running = () => redis.zcard(`${prefix}:rate:1001:running`);
    const bound = new Set<NodeJS.Timeout>();
    try {
      // A: the first call runs until A has stopped; the second registers (waiting ~2.2 s); the rest queue.
      let releaseFirst!: () => void;
      const firstHeld = new Promise<void>((r) => (releaseFirst = r));
      let firstStarted!: () => void;
      const firstRunning = new Promise<void>((r) => (firstStarted = r));
      const aOutcomes = Array.from({ length: 4 }, (_, i) =>
        a
          .forBudget(budget, 60_000)
          .schedule('1001', 'DescribeLoadBalancers', async () => {
            if (i > 0) return;
            firstStarted();
            await firstHeld;
          })
          .then(
            () => 'ran',
            (e: Error) => e.message,
          ),
      );
      await firstRunning;
      // Both slots taken in Redis: the first call and the registered, not yet started, second one.
      await vi.waitFor(async () => expect(await running()).toBe(2), { timeout: 5_000, interval: 10 });
      const dropping = a.dropWaiting();
      releaseFirst(); // a running call is not dropped: dropWaiting waits for it
      await dropping;
      const stoppedAt = Date.now();
      // The scenario held: only the first call ran; the registered one was dropped before it started.
      expect(await Promise.all(aOutcomes)).toEqual([
        'ran',
        'the worker is shutting down',
        'the worker is shutting down',
        'the worker is shutting down',
      ]);
      expect(errors).toEqual([]);
      expect(await running()).toBe(0);

      // B needs both slots at once: each call holds until the other one started.
      const bStarts: number[] = [];
      let bothStarted!: () => void;
      const bothRunning = new Promise<void>((r) => (bothStarted = r));
      const bCalls = Array.from({ length: 2 }, () =>
        b.forBudget(budget, 60_000).schedule('1001', 'DescribeLoadBalancers', async () => {
          bStarts.push(Date.now() - stoppedAt);
          if (bStarts.length === 2) bothStarted();
          await bothRunning;
        }),
      );
      bCalls.forEach((c) => c.catch(() => undefined)); // a leaked slot leaves the second one pending
      // Starts are 2.2 s apart and A's calls pushed the next start ~4.4 s ahead: both start by ~7 s; a slot
      // not given back would hold the second one for 65 s, so 25 s tells the two apart on a loaded machine.
      const timedOut = new Promise<'timed out'>((resolve) =>
        bound.add(setTimeout(() => resolve('timed out'), 25_000)),
      );
      const outcome = await Promise.race([bothRunning.then(() => 'both started' as const), timedOut]);
      expect(outcome, `B's call starts, ms after A stopped: ${bStarts.join(', ')}`).toBe('both started');
      await Promise.all(bCalls);
    } finally {
      bound.forEach((t) => clearTimeout(t));
      await Promise.all([a.close(), b.close()]);
      redis.disconnect();
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  });

  it('dropWaiting gives back the slot of a call whose registration was in flight when it stopped', async () => {
    // A call whose reservation is on its way to Redis when the pool stops: the slot is taken once the
    // script runs, after the stop, and must be given back then. The relay holds that script until A has
    // stopped. The call's hold (a 61,234 ms call timeout + 5 s = 66234 ms) is an argument of the
    // reservation only, which is how the relay recognises it.
    const budget: RateLimiterOptions = { qpsPerAccount: 1, maxConcurrentPerAccount: 2 };
    const prefix = uniquePrefix('rate-stop-inflight');
    const relay = await holdingRelay(SHARED_REDIS_URL, '\r\n66234\r\n');
    const errors: Error[] = [];
    const a = new RedisRateLimiterPool({ redisUrl: relay.url, prefix, onError: (e) => errors.push(e) });
    const redis = new IORedis(SHARED_REDIS_URL);
    try {
      const call = a
        .forBudget(budget, 61_234)
        .schedule('1001', 'DescribeLoadBalancers', () => Promise.resolve('ran'))
        .catch((e: Error) => e.message);
      await relay.held;
      const dropping = a.dropWaiting();
      relay.release();
      await dropping;
      expect(await call).toBe('the worker is shutting down');
      expect(errors).toEqual([]);
      // No slot is left counted...
      expect(await redis.zcard(`${prefix}:rate:1001:running`)).toBe(0);
      // ...and the reservation did happen (it moved the budget's next start time).
      expect(await redis.exists(`${prefix}:rate:1001:next`)).toBe(1);
    } finally {
      relay.release();
      await a.close();
      await relay.close();
      redis.disconnect();
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  });

  it('a call that unlocks more work starts before leaf reads queued earlier; a failing call gives its slot back', async () => {
    const budget: RateLimiterOptions = { qpsPerAccount: 50, maxConcurrentPerAccount: 1 };
    const prefix = uniquePrefix('rate-priority');
    const pool = new RedisRateLimiterPool({ redisUrl: SHARED_REDIS_URL, prefix });
    const redis = new IORedis(SHARED_REDIS_URL);
    try {
      const limiter = pool.forBudget(budget);
      const order: string[] = [];
      let releaseFirst!: () => void;
      const firstHeld = new Promise<void>((r) => (releaseFirst = r));
      let firstStarted!: () => void;
      const firstRunning = new Promise<void>((r) => (firstStarted = r));
      // The one slot is held by a call that then fails: its slot must come back for the others.
      const first = limiter
        .schedule('1001', 'DescribeLoadBalancerAttribute', async () => {
          firstStarted();
          await firstHeld;
          throw new Error('Throttling.User');
        })
        .catch((e: Error) => e.message);
      await firstRunning;
      const leaves = ['a', 'b'].map((id) => limiter.schedule('1001', 'DescribeLoadBalancerAttribute', async () => void order.push(`leaf-${id}`)));
      const list = limiter.schedule('1001', 'DescribeLoadBalancers', async () => void order.push('list'));
      releaseFirst();
      expect(await first).toBe('Throttling.User');
      await Promise.all([...leaves, list]);
      expect(order).toEqual(['list', 'leaf-a', 'leaf-b']);
      expect(await redis.zcard(`${prefix}:rate:1001:running`)).toBe(0);
    } finally {
      redis.disconnect();
      await pool.close();
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  });

  it('a call fails, unrun, once Redis has been unreachable for the outage tolerance', async () => {
    // A port nothing listens on (the relay, closed): every reservation fails to connect.
    const relay = await holdingRelay(SHARED_REDIS_URL, 'never');
    await relay.close();
    const errors: Error[] = [];
    const pool = new RedisRateLimiterPool({ redisUrl: relay.url, outageToleranceMs: 500, onError: (e) => errors.push(e) });
    try {
      let ran = false;
      const outcome = await pool
        .forBudget(BUDGET)
        .schedule('1001', 'DescribeLoadBalancers', async () => {
          ran = true;
        })
        .then(
          () => 'ran',
          () => 'failed',
        );
      expect(outcome).toBe('failed');
      expect(ran).toBe(false);
      expect(errors.length).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
  });

  it('calls wait out a Redis restart that lost every key, and stay paced after it', async () => {
    privateRedis = await startPrivateRedis();
    const redis = privateRedis;
    const pool = new RedisRateLimiterPool({ redisUrl: redis.url, outageToleranceMs: 30_000 });
    try {
      const starts: number[] = [];
      const calls: Promise<void>[] = [];
      const schedule = () =>
        calls.push(
          pool.forBudget(BUDGET).schedule('1001', 'DescribeLoadBalancers', async () => {
            starts.push(Date.now());
            await new Promise((r) => setTimeout(r, 30));
          }),
        );
      for (let i = 0; i < 10; i += 1) schedule();
      await new Promise((r) => setTimeout(r, 400));
      redis.shutdownNoSave();
      for (let i = 0; i < 5; i += 1) schedule(); // during the outage
      await new Promise((r) => setTimeout(r, 1_000));
      await redis.start();
      const restartedAt = Date.now();
      const lag = watchLag();
      for (let i = 0; i < 10; i += 1) schedule();
      const results = await Promise.allSettled(calls);
      const lagMs = lag();
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(starts).toHaveLength(25);
      expect(shortestSpan(starts.filter((t) => t >= restartedAt))).toBeGreaterThanOrEqual(1_000 - lagMs);
    } finally {
      await pool.close();
    }
  });
});
