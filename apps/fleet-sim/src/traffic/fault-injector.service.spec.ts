import { describe, expect, it } from 'vitest';
import { FaultInjector, hash32 } from './fault-injector.service';
import type { FaultKind } from './fault-spec.util';

const SLOW = { min: 200, max: 1000 };
const draws = (sut: FaultInjector, n: number, key = 'DescribeInstances', continueList = false) =>
  Array.from({ length: n }, (_, i) => sut.decide('1111', key, i, continueList));

describe(FaultInjector.name, () => {
  it('is a pure function of seed, account, key and call number', () => {
    const a = new FaultInjector({ throttle: 0.3, 'server-error': 0.1 }, 7, SLOW);
    const b = new FaultInjector({ throttle: 0.3, 'server-error': 0.1 }, 7, SLOW);
    expect(draws(a, 200)).toEqual(draws(b, 200));
    const other = new FaultInjector({ throttle: 0.3, 'server-error': 0.1 }, 8, SLOW);
    expect(draws(other, 200)).not.toEqual(draws(a, 200));
    expect(draws(a, 200, 'DescribeLoadBalancers')).not.toEqual(draws(a, 200));
  });

  it('hits each fault about as often as its probability', () => {
    const sut = new FaultInjector({ throttle: 0.3, timeout: 0.1, slow: 0.05 }, 7, SLOW);
    const n = 20_000;
    const counts = new Map<FaultKind | undefined, number>();
    for (const f of draws(sut, n)) counts.set(f, (counts.get(f) ?? 0) + 1);
    expect((counts.get('throttle') ?? 0) / n).toBeCloseTo(0.3, 1);
    expect((counts.get('timeout') ?? 0) / n).toBeCloseTo(0.1, 1);
    expect((counts.get('slow') ?? 0) / n).toBeCloseTo(0.05, 1);
    expect((counts.get(undefined) ?? 0) / n).toBeCloseTo(0.55, 1);
  });

  it('gives expire-continue only to lists with a continue token, without moving the other faults', () => {
    const sut = new FaultInjector({ throttle: 0.2, 'expire-continue': 0.5 }, 3, SLOW);
    const plain = draws(sut, 500, '/k8s/c1/api/v1/nodes', false);
    const cont = draws(sut, 500, '/k8s/c1/api/v1/nodes', true);
    expect(plain).not.toContain('expire-continue');
    expect(cont).toContain('expire-continue');
    plain.forEach((f, i) => expect(f === 'throttle').toBe(cont[i] === 'throttle'));
  });

  it('is off without rates; slow delays stay in range and are deterministic', () => {
    expect(new FaultInjector({}, 1, SLOW).enabled).toBe(false);
    expect(draws(new FaultInjector({}, 1, SLOW), 100).every((f) => f === undefined)).toBe(true);
    const sut = new FaultInjector({ slow: 1 }, 1, SLOW);
    const delays = Array.from({ length: 300 }, (_, i) => sut.slowDelay('1111', 'X', i));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(200);
    expect(Math.max(...delays)).toBeLessThanOrEqual(1000);
    expect(sut.slowDelay('1111', 'X', 5)).toBe(delays[5]);
  });

  it('hash32 is stable across runs', () => {
    expect(hash32('')).toBe(hash32(''));
    expect(hash32('7|1111|DescribeInstances|0')).toBe(hash32('7|1111|DescribeInstances|0'));
    expect(hash32('a')).not.toBe(hash32('b'));
  });
});
