import { describe, expect, it, vi } from 'vitest';
import Bottleneck from 'bottleneck';
import { CallRunner, type CallScheduler } from './call-runner.util';
import { CollectError, ScanAbortedError } from './collect-error.util';

const direct: CallScheduler = (_api, fn) => fn();
const fast = { schedule: direct, maxAttempts: 4, retryBaseDelayMs: 1, retryMaxDelayMs: 5, random: () => 0.5 };

describe(CallRunner.name, () => {
  it('retries a retryable CollectError and returns the later success', async () => {
    const sut = new CallRunner(fast);
    let calls = 0;
    const v = await sut.run('Api', async () => {
      calls++;
      if (calls < 3) throw new CollectError('Throttling.User', 'throttled', true);
      return 'ok';
    });
    expect(v).toBe('ok');
    expect(calls).toBe(3);
    expect(sut.retries).toBe(2);
  });

  it('gives up after maxAttempts attempts in total', async () => {
    const sut = new CallRunner(fast);
    let calls = 0;
    const err = await sut
      .run('Api', async () => {
        calls++;
        throw new CollectError('ServiceUnavailable', 'down', true);
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CollectError);
    expect(calls).toBe(4);
  });

  it('does not retry a non-retryable error', async () => {
    const sut = new CallRunner(fast);
    let calls = 0;
    await expect(
      sut.run('Api', async () => {
        calls++;
        throw new CollectError('Forbidden.RAM', 'no', false);
      }),
    ).rejects.toThrow('no');
    expect(calls).toBe(1);
  });

  it('runs every attempt through the scheduler (here a 3-slot Bottleneck)', async () => {
    const limiter = new Bottleneck({ maxConcurrent: 3 });
    const apis: string[] = [];
    const sut = new CallRunner({
      ...fast,
      schedule: (api, fn) => {
        apis.push(api);
        return limiter.schedule(fn);
      },
    });
    let started = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const all = Promise.all(
      Array.from({ length: 8 }, () =>
        sut.run('Api', async () => {
          started++;
          await gate;
        }),
      ),
    );
    await vi.waitFor(() => expect(started).toBe(3));
    await new Promise((r) => setTimeout(r, 50));
    expect(started).toBe(3);
    release();
    await all;
    expect(started).toBe(8);
    expect(new Set(apis)).toEqual(new Set(['Api']));
  });

  it('rejects with ScanAbortedError once the signal fired', async () => {
    const ac = new AbortController();
    const sut = new CallRunner({ ...fast, signal: ac.signal });
    ac.abort();
    await expect(sut.run('Api', async () => 1)).rejects.toBeInstanceOf(ScanAbortedError);
  });
});
