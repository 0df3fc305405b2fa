import { describe, expect, it, vi } from 'vitest';
import { createInMemoryRateLimiter, priorityOf, SlidingWindowGate } from './api-rate-limiter.util';

describe('createInMemoryRateLimiter', () => {
  it('starts the calls of one account 1000 / qpsPerAccount ms apart (simulated clock)', async () => {
    vi.useFakeTimers();
    try {
      const limiter = createInMemoryRateLimiter({ qpsPerAccount: 20, maxConcurrentPerAccount: 8 });
      let started = 0;
      const all = Promise.all(
        Array.from({ length: 10 }, () =>
          limiter.schedule('a', 'DescribeInstances', async () => {
            started++;
          }),
        ),
      );
      await vi.advanceTimersByTimeAsync(10);
      expect(started).toBe(1);
      await vi.advanceTimersByTimeAsync(100); // t = 110 ms: calls at 0, 50, 100
      expect(started).toBe(3);
      await vi.advanceTimersByTimeAsync(400); // t = 510 ms: 0 ... 450 -> 10 calls
      expect(started).toBe(10);
      await vi.advanceTimersByTimeAsync(100);
      await all;
      const closing = limiter.close();
      await vi.advanceTimersByTimeAsync(100);
      await closing;
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps accounts apart and gives an API of qpsPerApi its own budget', async () => {
    const limiter = createInMemoryRateLimiter({
      qpsPerAccount: 1,
      qpsPerApi: { RunCommand: 1000 },
      maxConcurrentPerAccount: 4,
    });
    // With 1 QPS shared, a second call of account "a" would wait a second; other accounts and the
    // API with its own budget do not wait for it.
    const order: string[] = [];
    const first = limiter.schedule('a', 'DescribeInstances', async () => order.push('a1'));
    const second = limiter.schedule('a', 'DescribeInstances', async () => order.push('a2'));
    await Promise.all([
      limiter.schedule('b', 'DescribeInstances', async () => order.push('b1')),
      limiter.schedule('a', 'RunCommand', async () => order.push('a-run')),
      first,
    ]);
    expect(order).not.toContain('a2');
    await second;
    expect(order.at(-1)).toBe('a2');
    await limiter.close();
  });

  it('bounds calls in flight per account', async () => {
    const limiter = createInMemoryRateLimiter({ qpsPerAccount: 10_000, maxConcurrentPerAccount: 2 });
    let inFlight = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        limiter.schedule('a', 'X', async () => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          await new Promise((r) => setTimeout(r, 5));
          inFlight--;
        }),
      ),
    );
    expect(peak).toBe(2);
    await limiter.close();
  });

  it('rejects non-positive budgets', () => {
    expect(() => createInMemoryRateLimiter({ qpsPerAccount: 0, maxConcurrentPerAccount: 1 })).toThrow(
      RangeError,
    );
    expect(() =>
      createInMemoryRateLimiter({ qpsPerAccount: 1, qpsPerApi: { X: -1 }, maxConcurrentPerAccount: 1 }),
    ).toThrow(/qpsPerApi\.X/);
  });

  it('runs calls that unlock more work before leaf reads', () => {
    expect(priorityOf('DescribeLoadBalancers')).toBeLessThan(priorityOf('DescribeVServerGroupAttribute'));
    expect(priorityOf('DescribeVServerGroups')).toBeLessThan(priorityOf('DescribeLoadBalancerAttribute'));
  });
});

describe(SlidingWindowGate.name, () => {
  it('admits at most capacity starts in any window, in FIFO order (simulated clock)', async () => {
    let now = 0;
    vi.useFakeTimers({ now: 0 });
    try {
      const gate = new SlidingWindowGate(3, 1000, () => now);
      const order: number[] = [];
      const all = Array.from({ length: 7 }, (_, i) => gate.acquire().then(() => order.push(i)));
      await vi.advanceTimersByTimeAsync(0);
      expect(order).toEqual([0, 1, 2]);
      now = 999;
      await vi.advanceTimersByTimeAsync(999);
      expect(order).toEqual([0, 1, 2]);
      now = 1000;
      await vi.advanceTimersByTimeAsync(1);
      expect(order).toEqual([0, 1, 2, 3, 4, 5]);
      now = 2000;
      await vi.advanceTimersByTimeAsync(1000);
      await Promise.all(all);
      expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('turns a QPS budget into a window: 20 QPS = 20 per 1000 ms, 0.5 QPS = 1 per 2000 ms', async () => {
    let now = 0;
    const fast = SlidingWindowGate.forQps(20, () => now);
    for (let i = 0; i < 20; i++) await fast.acquire();
    let twentyFirst = false;
    void fast.acquire().then(() => (twentyFirst = true));
    await Promise.resolve();
    expect(twentyFirst).toBe(false);
    const slow = SlidingWindowGate.forQps(0.5, () => now);
    await slow.acquire();
    let second = false;
    vi.useFakeTimers({ now: 0 });
    try {
      void slow.acquire().then(() => (second = true));
      now = 1999;
      await vi.advanceTimersByTimeAsync(1999);
      expect(second).toBe(false);
      now = 2000;
      await vi.advanceTimersByTimeAsync(10);
      expect(second).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
