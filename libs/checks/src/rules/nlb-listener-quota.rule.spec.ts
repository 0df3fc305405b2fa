/**
 * NLB_LISTENER_QUOTA: the listeners of each NLB against `nlb_quota_loadbalancer_listeners_num` (Quota Center value of
 * the region, else the documented default 50; NLB "NLB quotas", docs/sources.md#nlb-quotas). CCM creates one listener
 * per Service port and protocol (pkg/controller/service/nlbv2/listeners.go), so Services reusing one NLB add up. Graded
 * warning at 80 % and critical at 95 % (the default `quota` ratios). Starts from the fixture
 * test/fixtures/NLB_LISTENER_QUOTA/pass.one-listener: NLB nlb-web0000000000000001 of cluster c0123… with one listener.
 */
import { describe, expect, it } from 'vitest';
import { NLB_QUOTA_LISTENERS, quotaUsageOf, type CheckResult } from '@app/domain';
import { nlbFixture, onlyResult, runCheck } from '../../test/nlb-fixture.util';
import type { PartialAuditSettings } from '../audit-settings.types';
import { QUOTA_CENTER_QUOTA_OF_CHECK, QUOTA_USAGE_CHECK_IDS } from '../check.registry';

const ID = 'NLB_LISTENER_QUOTA';
const ACCOUNT = '1234567890123456';
const NLB = 'nlb-web0000000000000001';
const CODE = 'nlb_quota_loadbalancer_listeners_num';

/** The fixture with `n` listeners on its NLB (ports 80, 81, ...) and, when given, the Quota Center value of the quota. */
function fixture(n = 1, quota?: number) {
  const f = nlbFixture(ID, 'pass.one-listener');
  const nlb = f.region.nlbs![0]!;
  const first = nlb.listeners[0]!;
  nlb.listeners = Array.from({ length: n }, (_, i) => ({ ...first, listenerId: `lsn-${i + 1}`, port: 80 + i }));
  if (quota !== undefined) f.region.quotas = [{ quotaActionCode: CODE, totalQuota: quota }];
  return f;
}

/** The one result of the check for `id`. */
function result(results: CheckResult[], id = NLB): CheckResult {
  const rs = results.filter((r) => r.resource.id === id);
  expect(rs).toHaveLength(1);
  return rs[0]!;
}

/** The one result of the check on `f`. */
function only(f: ReturnType<typeof fixture>, settings: PartialAuditSettings = {}): CheckResult {
  return onlyResult(ID, f.snapshot, settings);
}

describe('NLB_LISTENER_QUOTA', () => {
  it('one listener passes, naming the NLB, the count and the share of the documented default 50', () => {
    const r = only(fixture());
    expect(r.status).toBe('pass');
    expect(r.resource).toMatchObject({ kind: 'NetworkLoadBalancer', id: NLB, accountId: ACCOUNT, regionId: 'cn-hangzhou' });
    expect(r.message).toBe(`NLB ${NLB} has 1 listener: 2 % of ${CODE} 50 (documented default)`);
    expect(r.figures).toEqual({ used: 1, limit: 50, ratio: 0.02, limitSource: 'default', quota: CODE });
  });

  it('17 listeners of a Quota Center value of 20 are a warning (85 %), counted in the plural', () => {
    const r = only(nlbFixture(ID, 'fail.quota-center-20'));
    expect(r).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(r.message).toBe(`NLB ${NLB} has 17 listeners: 85 % of ${CODE} 20 (Quota Center)`);
    expect(r.figures).toEqual({ used: 17, limit: 20, ratio: 0.85, limitSource: 'quota-center', quota: CODE });
  });

  it('warning from 80 %, critical from 95 % of the quota; the default 50 applies without a Quota Center value', () => {
    expect(only(fixture(40))).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(only(fixture(39)).status).toBe('pass');
    expect(only(fixture(48))).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(only(fixture(47))).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(only(fixture(5, 5))).toMatchObject({ status: 'fail', severity: 'critical', figures: { ratio: 1 } });
    expect(only(fixture(2), { quota: { warningRatio: 0.04, criticalRatio: 0.5 } })).toMatchObject({ status: 'fail', severity: 'warning' });
  });

  it('one result per NLB of the region, each with its own listeners', () => {
    const f = fixture(3);
    const second = structuredClone(f.region.nlbs![0]!);
    second.loadBalancerId = 'nlb-two';
    second.listeners = [];
    f.region.nlbs!.push(second);
    const rs = runCheck(ID, f.snapshot);
    expect(rs).toHaveLength(2);
    expect(result(rs).figures).toMatchObject({ used: 3 });
    expect(result(rs, 'nlb-two').message).toBe(`NLB nlb-two has 0 listeners: 0 % of ${CODE} 50 (documented default)`);
  });

  it('a region with no NLB has no result; one whose NLB data was not read is skipped, naming the gap', () => {
    const none = fixture();
    none.region.nlbs = [];
    expect(runCheck(ID, none.snapshot)).toEqual([]);
    const r = only(nlbFixture(ID, 'skipped.nlb-not-read'));
    expect(r).toMatchObject({ status: 'skipped', resource: { kind: 'Region', id: 'cn-hangzhou', accountId: ACCOUNT } });
    expect(r.message).toMatch(/^Not evaluated: NLB instances and server groups of cn-hangzhou were not read \(accounts\/.*servers\.json: missing/);
  });

  it('is sampled as the use of nlb_quota_loadbalancer_listeners_num (metrics, forecasts, quota plans)', () => {
    expect(QUOTA_CENTER_QUOTA_OF_CHECK.get(ID)).toBe(NLB_QUOTA_LISTENERS);
    expect(quotaUsageOf(runCheck(ID, fixture(3).snapshot), QUOTA_USAGE_CHECK_IDS)).toEqual([
      expect.objectContaining({ checkId: ID, used: 3, limit: 50 }),
    ]);
  });
});
