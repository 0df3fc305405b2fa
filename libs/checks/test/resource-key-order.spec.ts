/**
 * `compareResourceKeys`: the audit orders results by resource key without building the keys;
 * the order must be exactly the order of the built keys (`resourceKeyOf`) as strings, prefixes and `|` included.
 */
import { describe, expect, it } from 'vitest';
import { prng } from './factories';
import { compareResourceKeys, resourceKeyOf } from '@app/checks';
import type { ResourceKind, ResourceRef } from '@app/domain';


const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

describe('compareResourceKeys', () => {
  it('orders 20,000 random pairs as their built keys do, with prefixes, `|` and region-scoped kinds', () => {
    const rnd = prng(7);
    // Short alphabets make equal fields, prefixes and `|` at the deciding place frequent.
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const parts = ['', 'a', 'ab', 'a|', 'a|b', 'b', '1', '12', '12|', '~', 'é', 'A'];
    const field = () => pick(parts) + (rnd() < 0.3 ? pick(parts) : '');
    const kinds: ResourceKind[] = ['Service', 'LoadBalancer', 'Cluster', 'EcsInstance', 'Region', 'NlbServer'];
    const ref = (): ResourceRef => ({
      kind: pick(kinds),
      id: field(),
      accountId: field(),
      regionId: field(),
      ...(rnd() < 0.7 ? { clusterId: field() } : {}),
    });
    for (let i = 0; i < 20_000; i++) {
      const a = ref();
      const b = rnd() < 0.1 ? { ...a } : ref();
      const ka = resourceKeyOf(a);
      const kb = resourceKeyOf(b);
      expect(sign(compareResourceKeys(a, b)), `${ka} vs ${kb}`).toBe(ka < kb ? -1 : ka > kb ? 1 : 0);
    }
  });

  it('puts an account id before a longer one it prefixes only as the built keys do', () => {
    const a: ResourceRef = { kind: 'Service', id: 'x', accountId: '123', regionId: 'r', clusterId: 'c' };
    const b: ResourceRef = { kind: 'Service', id: 'x', accountId: '1234', regionId: 'r', clusterId: 'c' };
    // '123|' > '1234' because '|' (124) sorts after '4' (52).
    expect(compareResourceKeys(a, b)).toBeGreaterThan(0);
    expect(resourceKeyOf(a) > resourceKeyOf(b)).toBe(true);
  });
});
