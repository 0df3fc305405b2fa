import { describe, expect, it } from 'vitest';
import { MAX_REVIEW_THREADS, reviewThreadCount } from './review-threads';

describe('reviewThreadCount', () => {
  it('leaves the event loop a core: one thread per other core, at least one, at most MAX_REVIEW_THREADS', () => {
    expect(MAX_REVIEW_THREADS).toBe(4);
    expect([1, 2, 3, 4, 5, 6, 64].map(reviewThreadCount)).toEqual([1, 1, 2, 3, 4, 4, 4]);
  });
});
