import { describe, expect, it } from 'vitest';
import { QpsLimitsError, RateLimiter } from './rate-limiter.service';

const T0 = 1_800_000_000_000; // a whole second, epoch ms

describe(RateLimiter.name, () => {
  it('admits the limit per (account, action) per one-second window, then answers the wait to the next window', () => {
    const sut = new RateLimiter({ default: 2, perApi: { DescribeInstances: 1 } });
    expect(sut.admit('a', 'DescribeLoadBalancers', T0 + 100)).toBeUndefined();
    expect(sut.admit('a', 'DescribeLoadBalancers', T0 + 200)).toBeUndefined();
    expect(sut.admit('a', 'DescribeLoadBalancers', T0 + 250)).toBe(750);
    // other action, other account: own windows
    expect(sut.admit('a', 'DescribeInstances', T0 + 300)).toBeUndefined();
    expect(sut.admit('a', 'DescribeInstances', T0 + 999)).toBe(1);
    expect(sut.admit('b', 'DescribeLoadBalancers', T0 + 300)).toBeUndefined();
    // next window
    expect(sut.admit('a', 'DescribeLoadBalancers', T0 + 1000)).toBeUndefined();
    expect(sut.admit('a', 'DescribeInstances', T0 + 1000)).toBeUndefined();
  });

  it('throttled calls do not use up the window; Infinity means no limit', () => {
    const sut = new RateLimiter({ default: Number.POSITIVE_INFINITY, perApi: { ListRoles: 1 } });
    for (let i = 0; i < 1000; i++) expect(sut.admit('a', 'DescribeInstances', T0)).toBeUndefined();
    expect(sut.admit('a', 'ListRoles', T0)).toBeUndefined();
    expect(sut.admit('a', 'ListRoles', T0 + 10)).toBe(990);
    expect(sut.admit('a', 'ListRoles', T0 + 20)).toBe(980);
    expect(sut.admit('a', 'ListRoles', T0 + 1500)).toBeUndefined();
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects the limit %s', (n) => {
    expect(() => new RateLimiter({ default: n })).toThrow(QpsLimitsError);
    expect(() => new RateLimiter({ default: 1, perApi: { X: n } })).toThrow('qps.perApi.X');
  });
});
