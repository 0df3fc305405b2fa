/**
 * QUOTA_APPLICATION_REFUSED: what the finding says, where it makes a claim and where it does not (which refusals stand:
 * libs/domain quota-applications.model.spec.ts). Application fields as
 * Quota Center 2020-05-10 ListQuotaApplications answers them (research/quota-center.md 4); ids and values made up.
 */
import { describe, expect, it } from 'vitest';
import type { FleetSnapshot, QuotaApplicationRecord, QuotaValue } from '@app/domain';
import { runCheck } from '../../test/nlb-fixture.util';

const ID = 'QUOTA_APPLICATION_REFUSED';
const ACCOUNT = '1234567890123456';

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

function snapshot(quotaApplications: QuotaApplicationRecord[] | undefined, quotas?: QuotaValue[]): FleetSnapshot {
  return {
    name: 'refusals',
    accounts: [
      {
        accountId: ACCOUNT,
        name: 'acme',
        regions: [
          { accountId: ACCOUNT, regionId: 'cn-hangzhou', clusters: [], ...(quotaApplications ? { quotaApplications } : {}), ...(quotas ? { quotas } : {}) },
        ],
      },
    ],
    coverage: [],
  } as FleetSnapshot;
}

describe('QUOTA_APPLICATION_REFUSED', () => {
  it('fails the region with each standing refusal, its asked value, limit and reason; the figures count them', () => {
    const results = runCheck(
      ID,
      snapshot(
        [
          app('app-1', 'slb_quota_backendservers_num', 'Disagree', 500, '2026-11-20T00:00:00Z', { auditReason: 'Please describe the business scenario.' }),
          app('app-2', 'nlb_quota_loadbalancers_num', 'Disagree', 120, '2026-11-21T00:00:00Z'),
          app('app-3', 'slb_quota_instances_num', 'Agree', 60, '2026-11-21T00:00:00Z'),
        ],
        [{ quotaActionCode: 'slb_quota_backendservers_num', totalQuota: 200 }],
      ),
    );
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      status: 'fail',
      severity: 'warning',
      resource: { kind: 'Region', id: 'cn-hangzhou', accountId: ACCOUNT, regionId: 'cn-hangzhou' },
      figures: { applications: 3, refused: 2, quotas: ['nlb_quota_loadbalancers_num', 'slb_quota_backendservers_num'] },
    });
    expect(results[0]!.message).toBe(
      'Quota Center refused 2 quota applications in cn-hangzhou of account 1234567890123456: ' +
        'nlb_quota_loadbalancers_num: asked 120 (application app-2, no reason given), ' +
        'slb_quota_backendservers_num: asked 500, limit 200 (application app-1: "Please describe the business scenario.")',
    );
  });

  it('passes a region whose applications were read and none refused stands, and one with none at all', () => {
    for (const apps of [[app('ok', 'slb_quota_instances_num', 'Process', 60, '2026-11-21T00:00:00Z')], []]) {
      const results = runCheck(ID, snapshot(apps));
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ status: 'pass', figures: { applications: apps.length, refused: 0 } });
    }
  });

  it('makes no claim where the applications were not read and nothing failed (an offline fleet without the file)', () => {
    expect(runCheck(ID, snapshot(undefined))).toEqual([]);
  });
});
