/**
 * The Bottleneck rate limiter with the Redis datastore (what the distributed worker passes): two
 * limiters, as in two worker processes, share one account's budget and concurrency through the
 * real Redis on 127.0.0.1:6379.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createBottleneckRateLimiter, type ClosableApiRateLimiter } from '@app/collectors';

describe('createBottleneckRateLimiter with datastore ioredis', () => {
  // A fresh id per run: nothing to clear. Clearing is what one process must never do to the others
  // sharing an id: a second limiter clearing the datastore drops the first one's client
  // registration, and on Redis 7 Bottleneck does not recover from the `ERR UNKNOWN_CLIENT` reply
  // (SGrondin/bottleneck#212). The keys expire a minute after the last call.
  const id = `fleet-audit-test-${process.pid}-${Date.now()}`;
  const make = (): ClosableApiRateLimiter =>
    createBottleneckRateLimiter(
      { qpsPerAccount: 1000, maxConcurrentPerAccount: 1 },
      {
        id,
        datastore: 'ioredis',
        clearDatastore: false,
        timeout: 60_000,
        clientOptions: { host: '127.0.0.1', port: 6379 },
      },
    );
  const limiters = [make(), make()];
  afterAll(async () => {
    await Promise.all(limiters.map((l) => l.close()));
  });

  it("shares one account's concurrency between two limiters (two workers)", async () => {
    let inFlight = 0;
    let peak = 0;
    let ran = 0;
    const call = async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
      ran++;
    };
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        limiters[i % 2].schedule('1000000000000099', 'DescribeInstances', call),
      ),
    );
    expect(ran).toBe(8);
    expect(peak).toBe(1);
  });

  it('keeps different accounts apart', async () => {
    // Each call waits for the other to have started: this only ends if both run at once.
    let startA: () => void = () => undefined;
    let startB: () => void = () => undefined;
    const aStarted = new Promise<void>((r) => (startA = r));
    const bStarted = new Promise<void>((r) => (startB = r));
    const done = await Promise.all([
      limiters[0].schedule('1000000000000098', 'DescribeInstances', async () => {
        startA();
        await bStarted;
        return 'a';
      }),
      limiters[1].schedule('1000000000000097', 'DescribeInstances', async () => {
        startB();
        await aStarted;
        return 'b';
      }),
    ]);
    expect(done).toEqual(['a', 'b']);
  });
});
