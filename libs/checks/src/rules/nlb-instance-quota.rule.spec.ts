/**
 * NLB_INSTANCE_QUOTA: the NLB instances of one account and region against `nlb_quota_loadbalancers_num` (Quota Center
 * value of the region, else the documented default 60; NLB "NLB quotas", docs/sources.md#nlb-quotas), graded warning at
 * 80 % and critical at 95 % of it (the default `quota` ratios). Starts from the fixtures of
 * test/fixtures/NLB_INSTANCE_QUOTA: `pass.one-nlb` (one NLB in cn-hangzhou of account 1234567890123456) and
 * `fail.58-nlbs`.
 */
import { describe, expect, it } from 'vitest';
import { NLB_QUOTA_INSTANCES, quotaUsageOf, type CheckResult } from '@app/domain';
import { nlbFixture, runCheck } from '../../test/nlb-fixture.util';
import type { PartialAuditSettings } from '../audit-settings.types';
import { QUOTA_CENTER_QUOTA_OF_CHECK, QUOTA_USAGE_CHECK_IDS } from '../check.registry';

const ID = 'NLB_INSTANCE_QUOTA';
const ACCOUNT = '1234567890123456';
const CODE = 'nlb_quota_loadbalancers_num';

/** The fixture `file` with `n` NLBs (copies of its first) and, when given, the Quota Center value of the quota. */
function fixture(n: number, quota?: number, file = 'pass.one-nlb') {
  const f = nlbFixture(ID, file);
  const first = f.region.nlbs![0]!;
  f.region.nlbs = Array.from({ length: n }, (_, i) => ({ ...first, loadBalancerId: `nlb-${String(i).padStart(3, '0')}` }));
  if (quota !== undefined) f.region.quotas = [{ quotaActionCode: CODE, totalQuota: quota }];
  return f;
}

/** The one result of the check (the region's). */
function result(f: ReturnType<typeof fixture>, settings: PartialAuditSettings = {}): CheckResult {
  const rs = runCheck(ID, f.snapshot, settings);
  expect(rs).toHaveLength(1);
  return rs[0]!;
}

describe('NLB_INSTANCE_QUOTA', () => {
  it('one NLB passes, one result for the region naming the count and the share of the documented default 60', () => {
    const r = result(fixture(1));
    expect(r.status).toBe('pass');
    expect(r.resource).toEqual({ kind: 'Region', id: 'cn-hangzhou', accountId: ACCOUNT, regionId: 'cn-hangzhou' });
    expect(r.message).toBe(`cn-hangzhou of account ${ACCOUNT} has 1 NLB instance: 1.7 % of ${CODE} 60 (documented default)`);
    expect(r.figures).toEqual({ used: 1, limit: 60, ratio: 1 / 60, limitSource: 'default', quota: CODE });
  });

  it('58 NLBs of the default 60 are critical (96.7 %), the message counting them in the plural', () => {
    const r = result(nlbFixture(ID, 'fail.58-nlbs'));
    expect(r).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(r.message).toBe(`cn-hangzhou of account ${ACCOUNT} has 58 NLB instances: 96.7 % of ${CODE} 60 (documented default)`);
    expect(r.figures).toEqual({ used: 58, limit: 60, ratio: 58 / 60, limitSource: 'default', quota: CODE });
  });

  it('no NLB in a region whose NLBs were read: a pass at 0 %', () => {
    const r = result(fixture(0));
    expect(r.status).toBe('pass');
    expect(r.message).toBe(`cn-hangzhou of account ${ACCOUNT} has 0 NLB instances: 0 % of ${CODE} 60 (documented default)`);
    expect(r.figures).toMatchObject({ used: 0, limit: 60, ratio: 0 });
  });

  it('grades against the Quota Center value: warning from 80 %, critical from 95 %', () => {
    // 8 of 10 = 80 %: warning; 7 of 10: pass; 19 of 20 = 95 %: critical; 18 of 20 = 90 %: warning.
    expect(result(fixture(8, 10))).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(result(fixture(7, 10)).status).toBe('pass');
    expect(result(fixture(19, 20))).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(result(fixture(18, 20))).toMatchObject({ status: 'fail', severity: 'warning' });
    const r = result(fixture(8, 10));
    expect(r.message).toBe(`cn-hangzhou of account ${ACCOUNT} has 8 NLB instances: 80 % of ${CODE} 10 (Quota Center)`);
    expect(r.figures).toEqual({ used: 8, limit: 10, ratio: 0.8, limitSource: 'quota-center', quota: CODE });
  });

  it('follows the configured ratios', () => {
    const settings = { quota: { warningRatio: 0.5, criticalRatio: 0.7 } };
    expect(result(fixture(5, 10), settings)).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(result(fixture(7, 10), settings)).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(result(fixture(4, 10), settings).status).toBe('pass');
  });

  it('a region whose NLB data was not read is skipped, naming the gap and the coverage message', () => {
    const f = nlbFixture(ID, 'skipped.nlb-not-read');
    const r = result(f);
    expect(r.status).toBe('skipped');
    expect(r.resource).toEqual({ kind: 'Region', id: 'cn-hangzhou', accountId: ACCOUNT, regionId: 'cn-hangzhou' });
    expect(r.message).toBe(
      'Not evaluated: NLB instances and server groups of cn-hangzhou were not read ' +
        `(accounts/${ACCOUNT}/regions/cn-hangzhou/nlb/servers.json: missing, required by the fleet format (ENOENT))`,
    );
    f.snapshot.coverage = [];
    expect(result(f).message).toBe('Not evaluated: NLB instances and server groups of cn-hangzhou were not read');
  });

  it('is sampled as the use of nlb_quota_loadbalancers_num, pass or fail (metrics, forecasts, quota plans)', () => {
    expect(QUOTA_CENTER_QUOTA_OF_CHECK.get(ID)).toBe(NLB_QUOTA_INSTANCES);
    for (const n of [1, 58]) {
      const samples = quotaUsageOf(runCheck(ID, fixture(n).snapshot), QUOTA_USAGE_CHECK_IDS);
      expect(samples).toEqual([expect.objectContaining({ checkId: ID, used: n, limit: 60 })]);
    }
  });
});
