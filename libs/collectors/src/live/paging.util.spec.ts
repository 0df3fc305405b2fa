import { describe, expect, it } from 'vitest';
import { CollectError } from './collect-error.util';
import { readAllByPageNumber, readAllByToken } from './paging.util';

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe('readAllByToken', () => {
  it('follows NextToken until it comes back empty', async () => {
    const calls: (string | undefined)[] = [];
    const items = await readAllByToken(async (token) => {
      calls.push(token);
      const page = token === undefined ? 0 : Number(token);
      return { items: range(page * 100, page < 2 ? 100 : 37), nextToken: page < 2 ? String(page + 1) : '' };
    }, 'test');
    expect(calls).toEqual([undefined, '1', '2']);
    expect(items).toEqual(range(0, 237));
  });

  it('treats an absent token (null / undefined) as the last page', async () => {
    expect(await readAllByToken(async () => ({ items: [1, 2], nextToken: null }), 'test')).toEqual([1, 2]);
    expect(await readAllByToken(async () => ({ items: [] }), 'test')).toEqual([]);
  });

  it('fails with PagingLoop when the server repeats a token', async () => {
    const err = await readAllByToken(
      async () => ({ items: [1], nextToken: 'same' }),
      'DescribeInstances 1/cn-hangzhou',
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CollectError);
    expect((err as CollectError).errorCode).toBe('PagingLoop');
    expect((err as CollectError).message).toContain('DescribeInstances 1/cn-hangzhou');
  });

  it('fails when the page cap is reached', async () => {
    let n = 0;
    const err = await readAllByToken(async () => ({ items: [n], nextToken: String(++n) }), 'test', 5).catch(
      (e: unknown) => e,
    );
    expect((err as CollectError).errorCode).toBe('PagingLoop');
    expect(n).toBe(5);
  });
});

describe('readAllByPageNumber', () => {
  it('reads pages 1..n until TotalCount items were seen', async () => {
    const pages: number[] = [];
    const items = await readAllByPageNumber(
      async (p) => {
        pages.push(p);
        return { items: range((p - 1) * 100, 100), totalCount: 300 };
      },
      100,
      'test',
    );
    expect(pages).toEqual([1, 2, 3]);
    expect(items).toHaveLength(300);
  });

  it('stops on a short page even without TotalCount', async () => {
    const items = await readAllByPageNumber(
      async (p) => ({ items: range((p - 1) * 10, p < 3 ? 10 : 4) }),
      10,
      'test',
    );
    expect(items).toEqual(range(0, 24));
  });

  it('stops on an empty page (exact multiple of the page size, no TotalCount)', async () => {
    const pages: number[] = [];
    const items = await readAllByPageNumber(
      async (p) => {
        pages.push(p);
        return { items: p <= 2 ? range((p - 1) * 10, 10) : [] };
      },
      10,
      'test',
    );
    expect(pages).toEqual([1, 2, 3]);
    expect(items).toHaveLength(20);
  });

  it('returns [] for an empty listing after one call', async () => {
    let calls = 0;
    expect(
      await readAllByPageNumber(async () => (calls++, { items: [], totalCount: 0 }), 100, 'test'),
    ).toEqual([]);
    expect(calls).toBe(1);
  });
});
