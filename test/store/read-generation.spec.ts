/**
 * ReadGenerations.current sharing reads between concurrent callers (libs/store read-generation.ts): a caller may
 * only share a read sent after it called, never one already in flight (which could predate a commit it saw).
 */
import type { Pool } from 'pg';
import { describe, expect, it } from 'vitest';
import { ReadGenerations } from '@app/store';

/** A pool whose queries answer when the test says so. */
function controlledPool() {
  const pending: { resolve: (findings: number) => void; reject: (e: Error) => void }[] = [];
  const pool = {
    query: () =>
      new Promise((resolve, reject) => {
        pending.push({
          resolve: (findings: number) => resolve({ rows: [{ findings: String(findings), waivers: '7', latest: null }] }),
          reject,
        });
      }),
  } as unknown as Pool;
  return { pool, pending };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('ReadGenerations.current', () => {
  it('callers arriving while a read is in flight share the NEXT read, not the one in flight', async () => {
    const { pool, pending } = controlledPool();
    const generations = new ReadGenerations(pool);
    const first = generations.current();
    const second = generations.current();
    const third = generations.current();
    await settle();
    expect(pending).toHaveLength(1);
    pending[0].resolve(1);
    expect(await first).toEqual({ findings: 1, waivers: 7, latestSucceededScanId: null });
    await settle();
    // One read for both later callers, sent after the first completed.
    expect(pending).toHaveLength(2);
    pending[1].resolve(2);
    expect(await second).toEqual({ findings: 2, waivers: 7, latestSucceededScanId: null });
    expect(await third).toEqual({ findings: 2, waivers: 7, latestSucceededScanId: null });
    // Idle again: the next caller reads at once.
    const fourth = generations.current();
    await settle();
    expect(pending).toHaveLength(3);
    pending[2].resolve(3);
    expect((await fourth).findings).toBe(3);
  });

  it('a failed read fails its callers only; the waiting callers get their own read', async () => {
    const { pool, pending } = controlledPool();
    const generations = new ReadGenerations(pool);
    const first = generations.current();
    const second = generations.current();
    await settle();
    pending[0].reject(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await settle();
    expect(pending).toHaveLength(2);
    pending[1].resolve(5);
    expect((await second).findings).toBe(5);
  });
});
