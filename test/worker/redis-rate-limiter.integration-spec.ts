/**
 * libs/queue RedisRateLimiterPool on real Redis: two pools (two processes' worth of connections)
 * share one per-account budget, and calls wait out a Redis restart that loses every key instead of
 * failing or running unpaced.
 */
import { afterAll, describe, expect, it } from 'vitest';
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

/** Most starts in one whole second (epoch-aligned, as the simulator and Alibaba Cloud count). */
function busiestSecond(starts: readonly number[]): number {
  const perSecond = new Map<number, number>();
  for (const t of starts) perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
  return Math.max(0, ...perSecond.values());
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
      expect(starts).toHaveLength(24);
      expect(busiestSecond(starts)).toBeLessThanOrEqual(BUDGET.qpsPerAccount);
      // 24 starts at most 10 per second (9 with the headroom) need more than two seconds.
      expect(Math.max(...starts) - t0).toBeGreaterThan(2_000);
      // The other account has its own budget: its 6 calls were not queued behind account 1001's 24.
      expect(Math.max(...other) - t0).toBeLessThan(Math.max(...starts) - t0);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
      await deletePrefix(SHARED_REDIS_URL, prefix);
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
      for (let i = 0; i < 10; i += 1) schedule();
      const results = await Promise.allSettled(calls);
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(starts).toHaveLength(25);
      expect(busiestSecond(starts.filter((t) => t >= restartedAt))).toBeLessThanOrEqual(BUDGET.qpsPerAccount);
    } finally {
      await pool.close();
    }
  });
});
