import { describe, expect, it } from 'vitest';
import { RateLimiter } from '@app/fleet-sim';
import { estimateConvergence, replayConvergence, type ServiceChange } from '@app/forecast';

/** A new two-port Cluster-mode Service on 100 nodes: new CLB, 2 vServer groups of 100 backends, 2 listeners. */
const newService = (i: number): ServiceChange => ({
  service: `shop/s${i}`,
  createsLoadBalancer: true,
  groupsCreated: 2,
  groupsUpdated: 0,
  listenersCreated: 2,
  backendsAdded: [100, 100],
  backendsRemoved: [0, 0],
  backendsUpdated: [0, 0],
});
/** An existing Service after 40 nodes were added: one group, one batch of 40. */
const nodesAdded = (i: number): ServiceChange => ({
  service: `shop/s${i}`,
  createsLoadBalancer: false,
  groupsCreated: 0,
  groupsUpdated: 1,
  listenersCreated: 0,
  backendsAdded: [40],
  backendsRemoved: [0],
  backendsUpdated: [0],
});

describe('estimateConvergence', () => {
  it('counts calls per API with batches of 40 and the unthrottled makespan on 3 workers', () => {
    const e = estimateConvergence([newService(0), newService(1), newService(2)], { qps: { default: 1000 } });
    expect(e.callsPerApi).toMatchObject({ CreateLoadBalancer: 3, CreateVServerGroup: 6, AddVServerGroupBackendServers: 18, CreateLoadBalancerTCPListener: 6 });
    expect(e.calls).toBe(3 * 18);
    // Per Service: 6 prelude calls + (1 create + 3 batches) + (2 listener calls) = 12 calls of 200 ms, one per worker.
    expect(e.wallSeconds).toEqual({ p50: 2.4, p95: 2.4 });
    expect(e.boundBy).toBe('concurrency');
  });

  it('is rate-bound when the API limits are below what CCM would issue', () => {
    const e = estimateConvergence(Array.from({ length: 100 }, (_, i) => newService(i)), { qps: { default: 5 } });
    expect(e.boundBy).toBe('rate-limits');
    expect(e.wallSeconds.p95).toBeGreaterThan(e.wallSeconds.p50);
  });

  // Replay against the simulator's own rate limiter (fixed one-second windows per account and API), on virtual
  // time: 5,000 Services replay in well under a second.
  // Known limit (README): when every API of the describe phase is saturated at once (40 nodes added, 2 calls/s),
  // requeue backoff dominates and the estimate is optimistic (replay 0.44-0.86 x); that regime is not asserted.
  it.each([
    ['new Services, 20 calls/s per API', newService, 20],
    ['new Services, 5 calls/s per API (throttled)', newService, 5],
    ['40 nodes added, 20 calls/s per API', nodesAdded, 20],
    ['40 nodes added, 5 calls/s per API', nodesAdded, 5],
  ])('%s: estimate within 20 %% of the replay for 50, 500 and 5,000 changed Services', (_, make, qps) => {
    for (const n of [50, 500, 5000]) {
      const changes = Array.from({ length: n }, (_, i) => make(i));
      const est = estimateConvergence(changes, { qps: { default: qps } });
      const limiter = new RateLimiter({ default: qps });
      const replay = replayConvergence(changes, (a, api, t) => limiter.admit(a, api, t), { qps: { default: qps } });
      expect(Math.abs(est.wallSeconds.p50 - replay.wallSeconds) / replay.wallSeconds, `n=${n}`).toBeLessThanOrEqual(0.2);
      expect(est.wallSeconds.p95, `n=${n}`).toBeGreaterThanOrEqual(replay.wallSeconds * 0.8);
    }
  });
});
