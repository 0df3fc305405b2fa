/**
 * `standingRefusal`: which refusal holds a quota back from `quota request`, the scan's or this tool's stored one.
 * Application fields as Quota Center 2020-05-10 ListQuotaApplications answers them (research/quota-center.md 4).
 */
import { describe, expect, it } from 'vitest';
import type { FleetSnapshot, QuotaApplicationRecord } from '@app/domain';
import type { StoredQuotaApplication } from '@app/store';
import { standingRefusal } from './quota-request-runner';

const KEY = { accountId: '1234567890123456', regionId: 'cn-hangzhou', productCode: 'slb', quotaActionCode: 'slb_quota_backendservers_num' };

function snapshot(quotaApplications?: QuotaApplicationRecord[]): FleetSnapshot {
  return {
    name: 't',
    accounts: [{ accountId: KEY.accountId, name: 'a', regions: [{ accountId: KEY.accountId, regionId: KEY.regionId, clusters: [], ...(quotaApplications ? { quotaApplications } : {}) }] }],
    coverage: [],
  } as FleetSnapshot;
}

function stored(applicationId: string, status: StoredQuotaApplication['status'], over: Partial<StoredQuotaApplication> = {}): StoredQuotaApplication {
  return {
    ...KEY,
    id: `row-${applicationId}`,
    applicationId,
    status,
    desireValue: 300,
    approveValue: null,
    auditReason: status === 'Disagree' ? 'no' : null,
    reason: 'forecast',
    requestedBy: 'me',
    planRow: {},
    error: null,
    createdAt: '2026-11-20T00:00:00.000Z',
    updatedAt: '2026-11-21T00:00:00.000Z',
    ...over,
  };
}

const read = (id: string, status: string, applyTime: string): QuotaApplicationRecord => ({ applicationId: id, productCode: 'slb', quotaActionCode: KEY.quotaActionCode, status, desireValue: 300, applyTime, ...(status === 'Disagree' ? { auditReason: 'scan says no' } : {}) });

describe('standingRefusal', () => {
  it('the scan\'s standing refusal, filed by anyone', () => {
    expect(standingRefusal(KEY, snapshot([read('hand-1', 'Disagree', '2026-11-01T00:00:00Z')]), [])).toEqual({ applicationId: 'hand-1', desireValue: 300, auditReason: 'scan says no', at: '2026-11-01T00:00:00Z' });
  });

  it('this tool\'s latest stored application, refused after the scan (the scan did not read it)', () => {
    expect(standingRefusal(KEY, snapshot([]), [stored('ours-2', 'Disagree'), stored('ours-1', 'Agree')])).toMatchObject({ applicationId: 'ours-2', auditReason: 'no', at: '2026-11-21T00:00:00.000Z' });
    expect(standingRefusal(KEY, snapshot(), [stored('ours-2', 'Disagree')])).toMatchObject({ applicationId: 'ours-2' });
  });

  it('none when the latest stored one is not refused, or the scan read the refusal and a later application since', () => {
    expect(standingRefusal(KEY, snapshot([]), [stored('ours-3', 'Process'), stored('ours-2', 'Disagree')])).toBeUndefined();
    const scan = snapshot([read('ours-2', 'Disagree', '2026-11-20T00:00:00Z'), read('hand-9', 'Agree', '2026-11-22T00:00:00Z')]);
    expect(standingRefusal(KEY, scan, [stored('ours-2', 'Disagree')])).toBeUndefined();
  });

  it('another quota, region or product is not this one', () => {
    const refused = [stored('ours-2', 'Disagree')];
    expect(standingRefusal({ ...KEY, quotaActionCode: 'slb_quota_listeners_num' }, snapshot([]), refused)).toBeUndefined();
    expect(standingRefusal({ ...KEY, regionId: 'cn-beijing' }, snapshot([]), refused)).toBeUndefined();
    expect(standingRefusal({ ...KEY, productCode: 'nlb' }, snapshot([read('hand-1', 'Disagree', '2026-11-01T00:00:00Z')]), [])).toBeUndefined();
  });
});
