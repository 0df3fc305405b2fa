/**
 * CLB_LISTENER_QUOTA: the listeners of each CLB against `slb_quota_listeners_num` (Quota Center value of the region, else
 * the documented default 50; seed 004 "Quota limits", CCM notes 7 (docs/sources.md#ccm-7)). CCM creates one listener per
 * Service port, so Services sharing a reused CLB add up. Graded warning at 80 % and critical at 95 % (the default `quota`
 * ratios). Starts from the fixture test/fixtures/CLB_LISTENER_QUOTA/pass.few-listeners: CLB lb-bp1web000000000000 with
 * the two listeners (80, 443) of its Service.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SLB_QUOTA_LISTENERS, quotaUsageOf, type CheckResult, type FleetSnapshot, type RegionSnapshot } from '@app/domain';
import { onlyResult, runCheck } from '../../test/nlb-fixture.util';
import type { PartialAuditSettings } from '../audit-settings.types';
import { QUOTA_CENTER_QUOTA_OF_CHECK, QUOTA_USAGE_CHECK_IDS } from '../check.registry';

const ID = 'CLB_LISTENER_QUOTA';
const ACCOUNT = '1234567890123456';
const CLB = 'lb-bp1web000000000000';
const CODE = 'slb_quota_listeners_num';

/** A fresh copy of the fixture `file` of the check, with its one region. */
function load(file: string): { snapshot: FleetSnapshot; region: RegionSnapshot } {
  const { snapshot } = JSON.parse(readFileSync(join(__dirname, '../../test/fixtures', ID, `${file}.json`), 'utf8')) as { snapshot: FleetSnapshot };
  return { snapshot, region: snapshot.accounts[0]!.regions[0]! };
}

/** `pass.few-listeners` with `n` listeners on its CLB (ports 80, 81, ...) and the Quota Center value, when given. */
function fixture(n = 2, quota?: number) {
  const f = load('pass.few-listeners');
  const clb = f.region.loadBalancers![0]!;
  const first = clb.listeners[0]!;
  clb.listeners = Array.from({ length: n }, (_, i) => ({ ...first, port: 80 + i }));
  if (quota !== undefined) f.region.quotas = [{ quotaActionCode: CODE, totalQuota: quota }];
  return f;
}

/** The one result of the check on `f`. */
function only(f: { snapshot: FleetSnapshot }, settings: PartialAuditSettings = {}): CheckResult {
  return onlyResult(ID, f.snapshot, settings);
}

describe('CLB_LISTENER_QUOTA', () => {
  it('two listeners pass, naming the CLB, the count and the share of the documented default 50', () => {
    const r = only(fixture());
    expect(r.status).toBe('pass');
    expect(r.resource).toMatchObject({ kind: 'LoadBalancer', id: CLB, accountId: ACCOUNT, regionId: 'cn-hangzhou' });
    expect(r.message).toBe(`CLB ${CLB} has 2 listeners: 4 % of its listener quota 50 (documented default)`);
    expect(r.figures).toEqual({ used: 2, limit: 50, ratio: 0.04, limitSource: 'default' });
  });

  it('one listener: the singular; none: 0 %', () => {
    expect(only(fixture(1)).message).toBe(`CLB ${CLB} has 1 listener: 2 % of its listener quota 50 (documented default)`);
    expect(only(fixture(0)).message).toBe(`CLB ${CLB} has 0 listeners: 0 % of its listener quota 50 (documented default)`);
  });

  it('a reused CLB with 48 listeners is critical (96 % of 50); 20 of a Quota Center value of 24 is a warning (83.3 %)', () => {
    const shared = only(load('fail.shared-clb-48-listeners'));
    expect(shared).toMatchObject({ status: 'fail', severity: 'critical', figures: { used: 48, limit: 50, ratio: 0.96, limitSource: 'default' } });
    expect(shared.message).toBe('CLB lb-bp1shared00000000000 has 48 listeners: 96 % of its listener quota 50 (documented default)');
    const lowered = only(load('fail.quota-center-limit'));
    expect(lowered).toMatchObject({ status: 'fail', severity: 'warning', figures: { used: 20, limit: 24, limitSource: 'quota-center' } });
    expect(lowered.message).toBe(`CLB ${CLB} has 20 listeners: 83.3 % of its listener quota 24 (Quota Center)`);
  });

  it('warning from 80 %, critical from 95 % of the quota, or at the configured ratios', () => {
    expect(only(fixture(40))).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(only(fixture(39)).status).toBe('pass');
    expect(only(fixture(48))).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(only(fixture(47))).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(only(fixture(3, 3))).toMatchObject({ status: 'fail', severity: 'critical', figures: { ratio: 1 } });
    expect(only(fixture(2), { quota: { warningRatio: 0.04, criticalRatio: 0.5 } })).toMatchObject({ status: 'fail', severity: 'warning' });
  });

  it('one result per CLB; none in a region without CLBs; a region whose CLBs were not read is skipped with the reason', () => {
    const f = fixture(3);
    const other = structuredClone(f.region.loadBalancers![0]!);
    other.loadBalancerId = 'lb-other';
    other.listeners = other.listeners.slice(0, 1);
    f.region.loadBalancers!.push(other);
    expect(runCheck(ID, f.snapshot).map((r) => [r.resource.id, r.figures?.used])).toEqual([
      [CLB, 3],
      ['lb-other', 1],
    ]);
    const none = fixture();
    none.region.loadBalancers = [];
    expect(runCheck(ID, none.snapshot)).toEqual([]);
    const s = only(load('skipped.slb-not-read'));
    expect(s).toMatchObject({ status: 'skipped', resource: { kind: 'Region', id: 'cn-hangzhou', accountId: ACCOUNT } });
    expect(s.message).toBe('Not evaluated: CLB instances of cn-hangzhou were not read (no permission for slb:DescribeLoadBalancers)');
  });

  it('is sampled as the use of slb_quota_listeners_num (metrics, forecasts, quota plans)', () => {
    expect(QUOTA_CENTER_QUOTA_OF_CHECK.get(ID)).toBe(SLB_QUOTA_LISTENERS);
    expect(quotaUsageOf(runCheck(ID, fixture(3).snapshot), QUOTA_USAGE_CHECK_IDS)).toEqual([
      expect.objectContaining({ checkId: ID, used: 3, limit: 50 }),
    ]);
  });
});
