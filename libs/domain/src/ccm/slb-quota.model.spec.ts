import { describe, expect, it } from 'vitest';
import { SLB_QUOTA_BACKEND_ATTACHED, SLB_QUOTA_BACKEND_SERVERS } from './slb-quota.constants';
import { effectiveQuota } from './slb-quota.model';

describe('effectiveQuota', () => {
  it('uses the documented defaults (200 backends per CLB, 50 CLBs per server) when quotas were not read', () => {
    expect(effectiveQuota(undefined, SLB_QUOTA_BACKEND_SERVERS)).toEqual({
      limit: 200,
      limitSource: 'default',
    });
    expect(effectiveQuota([], SLB_QUOTA_BACKEND_ATTACHED)).toEqual({ limit: 50, limitSource: 'default' });
  });

  it('prefers the Quota Center value, the undimensioned entry first', () => {
    expect(
      effectiveQuota(
        [
          {
            quotaActionCode: 'slb_quota_backendservers_num',
            totalQuota: 300,
            dimensions: { instanceId: 'lb-1' },
          },
          { quotaActionCode: 'slb_quota_backendservers_num', totalQuota: 500 },
        ],
        SLB_QUOTA_BACKEND_SERVERS,
      ),
    ).toEqual({ limit: 500, limitSource: 'quota-center' });
  });

  it('ignores non-positive values', () => {
    expect(
      effectiveQuota(
        [{ quotaActionCode: 'slb_quota_backendservers_num', totalQuota: 0 }],
        SLB_QUOTA_BACKEND_SERVERS,
      ),
    ).toEqual({
      limit: 200,
      limitSource: 'default',
    });
  });
});
