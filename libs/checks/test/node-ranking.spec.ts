/**
 * `rankNodes` / `maxCountOutside`: CLUSTER_MODE_BLOWUP's busiest node outside a Service's Local
 * nodes, found from a ranking built once per eligible node set, equals the maximum over every node outside the set.
 */
import { describe, expect, it } from 'vitest';
import { prng } from './factories';
import { maxCountOutside, rankNodes } from '@app/checks';
import type { EligibleNodes, K8sNode } from '@app/domain';


describe('rankNodes / maxCountOutside', () => {
  it('equals the maximum over the nodes outside the excluded set, on 500 random node sets', () => {
    const rnd = prng(22);
    for (let c = 0; c < 500; c++) {
      const n = Math.floor(rnd() * 40);
      const nodes = Array.from({ length: n }, (_, i) => ({ name: `node-${i}` }) as K8sNode);
      const counts = new Map(nodes.map((x) => [x.name, Math.floor(rnd() * 6)]));
      const ranking = rankNodes({ nodes } as unknown as EligibleNodes, (x) => counts.get(x.name)!);
      const exclude = new Set(nodes.filter(() => rnd() < 0.5).map((x) => x.name));
      const brute = nodes.reduce((m, x) => (exclude.has(x.name) ? m : Math.max(m, counts.get(x.name)!)), 0);
      expect(maxCountOutside(ranking, exclude)).toBe(brute);
    }
  });

  it('ranks the largest count first and keeps node order among ties', () => {
    const nodes = ['a', 'b', 'c', 'd'].map((name) => ({ name }) as K8sNode);
    const counts: Record<string, number> = { a: 1, b: 3, c: 1, d: 3 };
    const ranking = rankNodes({ nodes } as unknown as EligibleNodes, (x) => counts[x.name]!);
    expect(ranking.names).toEqual(['b', 'd', 'a', 'c']);
    expect([...ranking.counts]).toEqual([3, 3, 1, 1]);
    expect(maxCountOutside(ranking, new Set(['b', 'd']))).toBe(1);
    expect(maxCountOutside(ranking, new Set(['a', 'b', 'c', 'd']))).toBe(0);
  });
});
