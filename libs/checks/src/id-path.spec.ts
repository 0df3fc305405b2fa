import { describe, expect, it } from 'vitest';
import { idPathPrefix, idPathRoot, sortedIds, stepIdPath } from './id-path';

describe('idPathPrefix', () => {
  const pathOf = (ids: string[]) => ids.reduce(stepIdPath, idPathRoot());

  it('gives the first n ids of a path in path order, all of them when it holds fewer', () => {
    const ids = ['lb-9', 'lb-2', 'lb-7', 'lb-1', 'lb-5', 'lb-3', 'lb-8'];
    expect(idPathPrefix(pathOf(ids), 5)).toEqual(['lb-9', 'lb-2', 'lb-7', 'lb-1', 'lb-5']);
    expect(idPathPrefix(pathOf(ids.slice(0, 3)), 5)).toEqual(['lb-9', 'lb-2', 'lb-7']);
    expect(idPathPrefix(pathOf(ids), 0)).toEqual([]);
    expect(idPathPrefix(idPathRoot(), 5)).toEqual([]);
  });

  it('reads a shared trie node the same for every path ending there, without changing its sorted list', () => {
    const root = idPathRoot();
    const a = ['lb-3', 'lb-1', 'lb-2'].reduce(stepIdPath, root);
    const b = ['lb-3', 'lb-1', 'lb-2'].reduce(stepIdPath, root);
    expect(b).toBe(a);
    expect(sortedIds(a, false)).toEqual(['lb-1', 'lb-2', 'lb-3']);
    expect(idPathPrefix(a, 2)).toEqual(['lb-3', 'lb-1']);
    expect(sortedIds(a, false)).toEqual(['lb-1', 'lb-2', 'lb-3']);
  });
});
