/**
 * CLB_INSTANCE_QUOTA: the CLB instances of one account and region against `slb_quota_instances_num`. The documented
 * defaults conflict (30 in the international docs, 60 in newer ones; CCM notes 7, docs/sources.md#ccm-7): the Quota
 * Center value of the region wins when read, else 30 is assumed and the message says so. CCM creates one CLB per
 * LoadBalancer Service that does not reuse one (seed 004 "Load balancing update policies"). Graded warning at 80 % and
 * critical at 95 % (the default `quota` ratios). Starts from the fixture test/fixtures/CLB_INSTANCE_QUOTA/pass.few-clbs
 * (three CLBs in cn-hangzhou of account 1234567890123456, no Quota Center data).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SLB_QUOTA_INSTANCES, quotaUsageOf, type CheckResult, type FleetSnapshot, type RegionSnapshot } from '@app/domain';
import { onlyResult, runCheck } from '../../test/nlb-fixture.util';
import { QUOTA_CENTER_QUOTA_OF_CHECK, QUOTA_USAGE_CHECK_IDS } from '../check.registry';

const ID = 'CLB_INSTANCE_QUOTA';
const ACCOUNT = '1234567890123456';
const CODE = 'slb_quota_instances_num';
const DEFAULT_TEXT = 'documented default, 30 of the conflicting 30/60';

/** A fresh copy of the fixture `file` of the check, with its one region. */
function load(file: string): { snapshot: FleetSnapshot; region: RegionSnapshot } {
  const { snapshot } = JSON.parse(readFileSync(join(__dirname, '../../test/fixtures', ID, `${file}.json`), 'utf8')) as { snapshot: FleetSnapshot };
  return { snapshot, region: snapshot.accounts[0]!.regions[0]! };
}

/** `pass.few-clbs` with `n` CLBs (copies of its first) and the region's quotas as given. */
function fixture(n: number, quotas?: RegionSnapshot['quotas']) {
  const f = load('pass.few-clbs');
  const first = f.region.loadBalancers![0]!;
  f.region.loadBalancers = Array.from({ length: n }, (_, i) => ({ ...first, loadBalancerId: `lb-${String(i).padStart(3, '0')}` }));
  if (quotas) f.region.quotas = quotas;
  return f;
}

/** The one result of the check on `f` (the region's). */
function only(f: { snapshot: FleetSnapshot }): CheckResult {
  return onlyResult(ID, f.snapshot);
}

describe('CLB_INSTANCE_QUOTA', () => {
  it('three CLBs pass: the account, the count, the region and the assumed default 30, saying the defaults conflict', () => {
    const r = only(fixture(3));
    expect(r.status).toBe('pass');
    expect(r.resource).toEqual({ kind: 'Region', id: 'cn-hangzhou', accountId: ACCOUNT, regionId: 'cn-hangzhou' });
    expect(r.message).toBe(`Account ${ACCOUNT} has 3 CLB instances in cn-hangzhou: 10 % of the instance quota 30 (${DEFAULT_TEXT})`);
    expect(r.figures).toEqual({ used: 3, limit: 30, ratio: 0.1, limitSource: 'default' });
  });

  it('one CLB: the singular; none: 0 %', () => {
    expect(only(fixture(1)).message).toBe(`Account ${ACCOUNT} has 1 CLB instance in cn-hangzhou: 3.3 % of the instance quota 30 (${DEFAULT_TEXT})`);
    expect(only(fixture(0)).figures).toMatchObject({ used: 0, ratio: 0 });
  });

  it('27 CLBs of the assumed 30 are a warning (90 %); 29 are critical (96.7 %); 23 pass (76.7 %)', () => {
    const r = only(load('fail.default-quota'));
    expect(r).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(r.message).toBe(`Account ${ACCOUNT} has 27 CLB instances in cn-hangzhou: 90 % of the instance quota 30 (${DEFAULT_TEXT})`);
    expect(only(fixture(24))).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(only(fixture(29))).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(only(fixture(23)).status).toBe('pass');
  });

  it('the Quota Center value wins, named as such, with the usage Quota Center reports as a figure', () => {
    const r = only(load('pass.quota-center-raised'));
    expect(r.status).toBe('pass');
    expect(r.message).toBe(`Account ${ACCOUNT} has 27 CLB instances in cn-hangzhou: 27 % of the instance quota 100 (Quota Center)`);
    expect(r.figures).toEqual({ used: 27, limit: 100, ratio: 0.27, limitSource: 'quota-center', quotaCenterUsage: 27 });
    // The value of this quota, not the first quota of the region; no usage figure where Quota Center gave none.
    const other = { quotaActionCode: 'slb_quota_listeners_num', totalQuota: 50, totalUsage: 7 };
    expect(only(fixture(19, [other, { quotaActionCode: CODE, totalQuota: 20, totalUsage: 18 }]))).toMatchObject({
      status: 'fail',
      severity: 'critical',
      figures: { used: 19, limit: 20, limitSource: 'quota-center', quotaCenterUsage: 18 },
    });
    expect(only(fixture(2, [other])).figures).toEqual({ used: 2, limit: 30, ratio: 2 / 30, limitSource: 'default' });
    expect(only(fixture(2, [{ quotaActionCode: CODE, totalQuota: 10 }])).figures).toEqual({ used: 2, limit: 10, ratio: 0.2, limitSource: 'quota-center' });
  });

  it('a region whose CLBs were not read is skipped, naming the gap and the scan error', () => {
    const s = only(load('skipped.slb-not-read'));
    expect(s).toMatchObject({ status: 'skipped', resource: { kind: 'Region', id: 'cn-hangzhou', accountId: ACCOUNT } });
    expect(s.message).toBe('Not evaluated: CLB instances of cn-hangzhou were not read (Throttling.User)');
  });

  it('is sampled as the use of slb_quota_instances_num (metrics, forecasts, quota plans)', () => {
    expect(QUOTA_CENTER_QUOTA_OF_CHECK.get(ID)).toBe(SLB_QUOTA_INSTANCES);
    expect(quotaUsageOf(runCheck(ID, fixture(3).snapshot), QUOTA_USAGE_CHECK_IDS)).toEqual([
      expect.objectContaining({ checkId: ID, used: 3, limit: 30 }),
    ]);
  });
});
