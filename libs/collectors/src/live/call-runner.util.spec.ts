import { describe, expect, it, vi } from 'vitest';
import { CallRunner } from './call-runner.util';
import { CollectError, ScanAbortedError } from './collect-error.util';

const fast = { maxConcurrent: 2, maxAttempts: 4, retryBaseDelayMs: 1, retryMaxDelayMs: 5, random: () => 0.5 };

describe(CallRunner.name, () => {
  it('retries a retryable CollectError and returns the later success', async () => {
    const sut = new CallRunner(fast);
    let calls = 0;
    const v = await sut.run(async () => {
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
      .run(async () => {
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
      sut.run(async () => {
        calls++;
        throw new CollectError('Forbidden.RAM', 'no', false);
      }),
    ).rejects.toThrow('no');
    expect(calls).toBe(1);
  });

  it('keeps at most maxConcurrent calls in flight', async () => {
    const sut = new CallRunner({ ...fast, maxConcurrent: 3 });
    let started = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const all = Promise.all(
      Array.from({ length: 8 }, () =>
        sut.run(async () => {
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
  });

  it('rejects with ScanAbortedError once the signal fired', async () => {
    const ac = new AbortController();
    const sut = new CallRunner({ ...fast, signal: ac.signal });
    ac.abort();
    await expect(sut.run(async () => 1)).rejects.toBeInstanceOf(ScanAbortedError);
  });
});
