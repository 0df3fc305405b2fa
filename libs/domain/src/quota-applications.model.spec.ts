/**
 * Which refusals of a region still stand (`standingRefusals`). Application fields as Quota Center 2020-05-10
 * ListQuotaApplications answers them (research/quota-center.md 4); ids and values made up.
 */
import { describe, expect, it } from 'vitest';
import { standingRefusals } from './quota-applications.model';
import type { QuotaApplicationRecord } from './snapshot.types';

function app(id: string, code: string, status: string, desireValue: number, applyTime?: string, over: Partial<QuotaApplicationRecord> = {}): QuotaApplicationRecord {
  return {
    applicationId: id,
    productCode: code.startsWith('nlb') ? 'nlb' : 'slb',
    quotaActionCode: code,
    status,
    desireValue,
    ...(applyTime !== undefined ? { applyTime } : {}),
    ...over,
  };
}

describe('standingRefusals', () => {
  it('only the latest application of a quota counts: a refusal after an approval stands, one before it does not', () => {
    const refusals = standingRefusals({
      quotaApplications: [
        app('a', 'slb_quota_instances_num', 'Agree', 60, '2026-01-01T00:00:00Z'),
        app('b', 'slb_quota_instances_num', 'Disagree', 90, '2026-02-01T00:00:00Z', { auditReason: 'no' }),
        app('c', 'nlb_quota_loadbalancers_num', 'Disagree', 90, '2026-02-01T00:00:00Z'),
        app('d', 'nlb_quota_loadbalancers_num', 'Process', 90, '2026-02-01T00:00:01Z'),
      ],
    });
    expect(refusals.map((r) => r.application.applicationId)).toEqual(['b']);
  });

  it('compares apply times as instants, not as text (a +08:00 time against a Z time)', () => {
    const refusals = standingRefusals({
      quotaApplications: [
        // 09:00+08:00 is 01:00Z: before the approval at 02:00Z, although it sorts after it as text.
        app('x', 'slb_quota_listeners_num', 'Disagree', 80, '2026-03-01T09:00:00+08:00'),
        app('y', 'slb_quota_listeners_num', 'Agree', 80, '2026-03-01T02:00:00Z'),
      ],
    });
    expect(refusals).toEqual([]);
  });

  it('an application with no known time is older than any dated one; two without times tie', () => {
    expect(standingRefusals({ quotaApplications: [app('z', 'slb_quota_listeners_num', 'Agree', 80), app('a', 'slb_quota_listeners_num', 'Disagree', 80, '2026-01-01T00:00:00Z')] })).toHaveLength(1);
    expect(standingRefusals({ quotaApplications: [app('a', 'slb_quota_listeners_num', 'Disagree', 80, '2026-01-01T00:00:00Z'), app('z', 'slb_quota_listeners_num', 'Agree', 80)] })).toHaveLength(1);
    expect(standingRefusals({ quotaApplications: [app('b', 'slb_quota_listeners_num', 'Disagree', 80), app('a', 'slb_quota_listeners_num', 'Agree', 80)] })).toEqual([]);
    const two = standingRefusals({ quotaApplications: [app('b', 'slb_quota_listeners_num', 'Disagree', 80), app('a', 'slb_quota_listeners_num', 'Disagree', 70)] });
    expect(two.map((r) => r.application.applicationId)).toEqual(['b']);
  });

  it('two applications of the same second: one not refused wins, whichever order they come in', () => {
    const t = '2026-04-01T00:00:00Z';
    for (const apps of [
      [app('9', 'slb_quota_instances_num', 'Disagree', 90, t), app('1', 'slb_quota_instances_num', 'Agree', 90, t)],
      [app('1', 'slb_quota_instances_num', 'Agree', 90, t), app('9', 'slb_quota_instances_num', 'Disagree', 90, t)],
      [app('1', 'slb_quota_instances_num', 'Process', 90, t), app('9', 'slb_quota_instances_num', 'Disagree', 90, t)],
    ])
      expect(standingRefusals({ quotaApplications: apps })).toEqual([]);
    const both = standingRefusals({ quotaApplications: [app('1', 'slb_quota_instances_num', 'Disagree', 90, t), app('9', 'slb_quota_instances_num', 'Disagree', 95, t)] });
    expect(both.map((r) => r.application.applicationId)).toEqual(['9']);
  });

  it('a refusal asking for no more than the quota gives now no longer stands; one asking more does, with the limit', () => {
    const apps = [app('r', 'slb_quota_backendservers_num', 'Disagree', 300, '2026-05-01T00:00:00Z')];
    expect(standingRefusals({ quotaApplications: apps, quotas: [{ quotaActionCode: 'slb_quota_backendservers_num', totalQuota: 300 }] })).toEqual([]);
    expect(standingRefusals({ quotaApplications: apps, quotas: [{ quotaActionCode: 'slb_quota_backendservers_num', totalQuota: 299 }] })).toEqual([
      { application: apps[0], currentLimit: 299 },
    ]);
    // Another quota's value says nothing about this one.
    expect(standingRefusals({ quotaApplications: apps, quotas: [{ quotaActionCode: 'slb_quota_listeners_num', totalQuota: 500 }] })).toEqual([{ application: apps[0] }]);
  });

  it('the same code under two products is two quotas', () => {
    const refusals = standingRefusals({
      quotaApplications: [app('s', 'q_same', 'Disagree', 10, '2026-01-01T00:00:00Z'), app('n', 'q_same', 'Agree', 10, '2026-02-01T00:00:00Z', { productCode: 'nlb' })],
    });
    expect(refusals.map((r) => r.application.applicationId)).toEqual(['s']);
  });
});

