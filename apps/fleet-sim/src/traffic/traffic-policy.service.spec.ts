import { describe, expect, it } from 'vitest';
import { CallStats } from './call-stats.service';
import { FaultInjector } from './fault-injector.service';
import { RateLimiter } from './rate-limiter.service';
import { FAULT_RETRY_AFTER_MS, TrafficPolicy } from './traffic-policy.service';

const T0 = 1_800_000_000_000;

function policy(opts: { qps?: number; faults?: ConstructorParameters<typeof FaultInjector>[0] } = {}) {
  let nowMs = T0;
  const stats = new CallStats();
  const sut = new TrafficPolicy(
    stats,
    () => new Date(nowMs),
    opts.qps !== undefined ? new RateLimiter({ default: opts.qps }) : undefined,
    opts.faults ? new FaultInjector(opts.faults, 7, { min: 200, max: 1000 }) : undefined,
  );
  return { sut, stats, tick: (ms: number) => (nowMs += ms) };
}

describe(TrafficPolicy.name, () => {
  it('counts every call per account and action, and the busiest second of OpenAPI calls', () => {
    const { sut, stats, tick } = policy({ qps: 2 });
    for (let i = 0; i < 3; i++) sut.admitOpenApi('a', 'DescribeInstances');
    sut.admitOpenApi('a', 'DescribeLoadBalancers');
    sut.admitOpenApi('b', 'DescribeInstances');
    sut.admitKubernetes('a', 'k8s:list:nodes', '/k8s/c1/api/v1/nodes', false);
    tick(1000);
    sut.admitOpenApi('a', 'DescribeInstances');
    expect(stats.snapshot()).toEqual({
      calls: {
        a: { DescribeInstances: 4, DescribeLoadBalancers: 1, 'k8s:list:nodes': 1 },
        b: { DescribeInstances: 1 },
      },
      throttled: 1,
      faults: {},
      maxObservedQps: { a: 4, b: 1 },
      maxObservedQpsByAction: {
        a: { DescribeInstances: 3, DescribeLoadBalancers: 1 },
        b: { DescribeInstances: 1 },
      },
    });
    stats.reset();
    expect(stats.snapshot()).toEqual({
      calls: {},
      throttled: 0,
      faults: {},
      maxObservedQps: {},
      maxObservedQpsByAction: {},
    });
  });

  it('throttles over the QPS limit with the wait to the next window; Kubernetes is not limited', () => {
    const { sut } = policy({ qps: 1 });
    expect(sut.admitOpenApi('a', 'ListRoles')).toEqual({ kind: 'pass' });
    expect(sut.admitOpenApi('a', 'ListRoles')).toEqual({ kind: 'throttle', retryAfterMs: 1000 });
    for (let i = 0; i < 5; i++)
      expect(sut.admitKubernetes('a', 'k8s:list:pods', '/k8s/c1/api/v1/pods', false)).toEqual({
        kind: 'pass',
      });
  });

  it('injects faults and counts them; throttle faults carry a fixed retry hint', () => {
    const { sut, stats } = policy({ faults: { throttle: 0.5, slow: 0.5 } });
    const verdicts = Array.from({ length: 100 }, () => sut.admitOpenApi('a', 'DescribeInstances'));
    const throttles = verdicts.filter((v) => v.kind === 'throttle');
    const slows = verdicts.filter((v) => v.kind === 'fault' && v.fault === 'slow');
    expect(throttles.length + slows.length).toBe(100);
    expect(throttles[0]).toEqual({ kind: 'throttle', retryAfterMs: FAULT_RETRY_AFTER_MS });
    expect(stats.snapshot()).toMatchObject({
      throttled: throttles.length,
      faults: { throttle: throttles.length, slow: slows.length },
    });
  });

  it('draws the same faults for the same call sequence, whatever the clock', () => {
    const run = (gapMs: number) => {
      const { sut, tick } = policy({ faults: { 'server-error': 0.3, timeout: 0.2 } });
      return Array.from({ length: 50 }, (_, i) => {
        tick(gapMs);
        return sut.admitOpenApi('a', i % 2 === 0 ? 'DescribeInstances' : 'DescribeLoadBalancers');
      });
    };
    expect(run(1)).toEqual(run(777));
  });
});
