/**
 * NLB_SERVER_GROUP_QUOTA: the NLB server groups of one account and region against `nlb_quota_servergroups_num` (3,000,
 * not adjustable; NLB "NLB quotas", docs/sources.md#nlb-quotas). Every group ListServerGroups lists counts, used by an
 * NLB or not: groups left behind by CCM before v2.12.4 (pkg/controller/service/nlbv2/model_applier.go cleanup) or by
 * `preserve-lb-on-delete` still hold slots, and the message says how many no NLB uses. Starts from the fixture
 * test/fixtures/NLB_SERVER_GROUP_QUOTA/pass.one-group: one group, used by NLB nlb-web0000000000000001.
 */
import { describe, expect, it } from 'vitest';
import { NLB_QUOTA_SERVER_GROUPS, quotaUsageOf, type CheckResult } from '@app/domain';
import { nlbFixture, onlyResult, runCheck } from '../../test/nlb-fixture.util';
import { QUOTA_CENTER_QUOTA_OF_CHECK, QUOTA_USAGE_CHECK_IDS } from '../check.registry';

const ID = 'NLB_SERVER_GROUP_QUOTA';
const ACCOUNT = '1234567890123456';
const CODE = 'nlb_quota_servergroups_num';

/** The fixture with `used` groups related to its NLB and `unused` related to none, and the quota when given. */
function fixture(used: number, unused = 0, quota?: number) {
  const f = nlbFixture(ID, 'pass.one-group');
  const first = f.region.nlbServerGroups![0]!;
  const group = (id: string, related: string[]) => ({ ...first, serverGroupId: id, relatedLoadBalancerIds: related });
  f.region.nlbServerGroups = [
    ...Array.from({ length: used }, (_, i) => group(`sgp-used${i}`, first.relatedLoadBalancerIds)),
    ...Array.from({ length: unused }, (_, i) => group(`sgp-left${i}`, [])),
  ];
  if (quota !== undefined) f.region.quotas = [{ quotaActionCode: CODE, totalQuota: quota }];
  return f;
}

/** The one result of the check on `f` (the region's). */
function only(f: ReturnType<typeof fixture>): CheckResult {
  return onlyResult(ID, f.snapshot);
}

describe('NLB_SERVER_GROUP_QUOTA', () => {
  it('one group passes: the region, the count, how many no NLB uses, the share of the fixed 3,000', () => {
    const r = only(fixture(1));
    expect(r.status).toBe('pass');
    expect(r.resource).toEqual({ kind: 'Region', id: 'cn-hangzhou', accountId: ACCOUNT, regionId: 'cn-hangzhou' });
    expect(r.message).toBe(`cn-hangzhou of account ${ACCOUNT} has 1 NLB server group (0 used by no NLB): 0 % of ${CODE} 3000 (documented default)`);
    expect(r.figures).toEqual({ used: 1, limit: 3000, ratio: 1 / 3000, limitSource: 'default', quota: CODE, unusedServerGroups: 0 });
  });

  it('counts the groups no NLB uses among the used ones and beside them', () => {
    const r = only(fixture(2, 3));
    expect(r.message).toBe(`cn-hangzhou of account ${ACCOUNT} has 5 NLB server groups (3 used by no NLB): 0.2 % of ${CODE} 3000 (documented default)`);
    expect(r.figures).toMatchObject({ used: 5, unusedServerGroups: 3 });
  });

  it('2,900 groups left behind are critical (96.7 % of 3,000)', () => {
    const r = only(nlbFixture(ID, 'fail.2900-groups'));
    expect(r).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(r.figures).toMatchObject({ used: 2900, limit: 3000, unusedServerGroups: 2900 });
  });

  it('warning from 80 %, critical from 95 % of the quota', () => {
    expect(only(fixture(4, 4, 10))).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(only(fixture(4, 3, 10)).status).toBe('pass');
    expect(only(fixture(10, 9, 20))).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(only(fixture(4, 4, 10)).message).toBe(`cn-hangzhou of account ${ACCOUNT} has 8 NLB server groups (4 used by no NLB): 80 % of ${CODE} 10 (Quota Center)`);
  });

  it('a region with no group passes at 0; one whose NLB data was not read is skipped, naming the gap', () => {
    expect(only(fixture(0)).figures).toMatchObject({ used: 0, unusedServerGroups: 0, ratio: 0 });
    const s = only(nlbFixture(ID, 'skipped.nlb-not-read'));
    expect(s).toMatchObject({ status: 'skipped', resource: { kind: 'Region', id: 'cn-hangzhou' } });
    expect(s.message).toMatch(/^Not evaluated: NLB instances and server groups of cn-hangzhou were not read \(/);
  });

  it('is sampled as the use of nlb_quota_servergroups_num (metrics, forecasts, quota plans)', () => {
    expect(QUOTA_CENTER_QUOTA_OF_CHECK.get(ID)).toBe(NLB_QUOTA_SERVER_GROUPS);
    expect(quotaUsageOf(runCheck(ID, fixture(2, 1).snapshot), QUOTA_USAGE_CHECK_IDS)).toEqual([
      expect.objectContaining({ checkId: ID, used: 3, limit: 3000 }),
    ]);
  });
});
