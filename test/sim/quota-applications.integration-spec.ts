/**
 * The simulated Quota Center applications (CreateQuotaApplication, ListQuotaApplications, GetQuotaApplication),
 * called through the official generic client (@alicloud/openapi-core, form body, as the Quota Center SDK sends them):
 * the account's approval policy decides each application, an approved value is what ListProductQuotas reads
 * afterwards, a quota in review answers Adjustable false / applicationProcess, and bad requests get Quota Center's
 * errors.
 */
import { ClientError } from '@alicloud/openapi-core';
import { readFleetDirectory } from '@app/collectors';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import type { WireFleet } from '@app/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc } from './sim-clients.util';
import { SIM_FLEET_IDS as IDS, writeSimFleet } from './sim-fleet.factory';

let sim: RunningSimulator;
let fleet: WireFleet;

const call = (action: string, params: Record<string, unknown>) => callRpc(sim, action, '2020-05-10', params, { inBody: true });
const regionDim = [{ Key: 'regionId', Value: IDS.regionId }];

/** The quota as ListProductQuotas answers it for the sim region. */
async function quota(code: string): Promise<Record<string, unknown>> {
  const b = await call('ListProductQuotas', { ProductCode: 'slb', QuotaActionCode: code, Dimensions: regionDim });
  return (b['Quotas'] as Record<string, unknown>[])[0]!;
}

function setPolicy(policy: { decision: 'approve' | 'refuse' | 'pending'; approvePercent?: number; reason?: string }): void {
  fleet.accounts[0]!.account.quotaApplications = { approvePercent: 100, ...policy };
}

async function errorOf(p: Promise<unknown>): Promise<{ code: string; message: string; statusCode: number }> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ClientError);
    const err = e as ClientError & { code: string; statusCode: number };
    return { code: err.code, message: err.message, statusCode: err.statusCode };
  }
  throw new Error('the call succeeded');
}

beforeAll(async () => {
  fleet = readFleetDirectory(writeSimFleet());
  sim = await startSimulator({ fleet });
}, 60_000);

afterAll(async () => {
  await sim?.close();
});

describe('Quota Center applications (simulator)', () => {
  it('approve: Agree with the granted share of the desired value, and ListProductQuotas reads it afterwards', async () => {
    const before = await quota('slb_quota_listeners_num');
    const current = Number(before['TotalQuota']);
    setPolicy({ decision: 'approve', approvePercent: 80 });
    const created = await call('CreateQuotaApplication', {
      ProductCode: 'slb',
      QuotaActionCode: 'slb_quota_listeners_num',
      DesireValue: current * 3,
      Reason: 'fleet-audit quota plan: p10 trend reaches 140 by 2026-12-20',
      Dimensions: regionDim,
    });
    expect(created).toMatchObject({
      Status: 'Agree',
      DesireValue: current * 3,
      ApproveValue: Math.floor(current * 3 * 0.8),
      AuditReason: 'Agree',
      ProductCode: 'slb',
      QuotaActionCode: 'slb_quota_listeners_num',
      Dimension: { regionId: IDS.regionId },
      QuotaArn: `acs:quotas:${IDS.regionId}:${IDS.accountId}:quota/slb/slb_quota_listeners_num`,
    });
    expect(created['ApplicationId']).toMatch(/^[0-9a-f-]{36}$/);
    expect(created['ApplyTime']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Number((await quota('slb_quota_listeners_num'))['TotalQuota'])).toBe(Math.floor(current * 3 * 0.8));
    const got = await call('GetQuotaApplication', { ApplicationId: created['ApplicationId'] });
    expect(got['QuotaApplication']).toMatchObject({ ApplicationId: created['ApplicationId'], Status: 'Agree' });
  });

  it('pending: Process; the quota answers Adjustable false / applicationProcess and a second application is refused; List filters by status', async () => {
    setPolicy({ decision: 'pending' });
    const current = Number((await quota('slb_quota_backendservers_num'))['TotalQuota']);
    const created = await call('CreateQuotaApplication', { ProductCode: 'slb', QuotaActionCode: 'slb_quota_backendservers_num', DesireValue: current + 100, Reason: 'r', Dimensions: regionDim });
    expect(created['Status']).toBe('Process');
    expect(await quota('slb_quota_backendservers_num')).toMatchObject({ TotalQuota: current, Adjustable: false, UnadjustableDetail: 'applicationProcess' });
    const again = await errorOf(call('CreateQuotaApplication', { ProductCode: 'slb', QuotaActionCode: 'slb_quota_backendservers_num', DesireValue: current + 200, Reason: 'r', Dimensions: regionDim }));
    expect(again).toMatchObject({ statusCode: 400, code: 'InvalidParameter' });
    expect(again.message).toContain('An application for this quota is being processed');
    const inReview = await call('ListQuotaApplications', { ProductCode: 'slb', Status: 'Process', QuotaActionCode: 'slb_quota_backendservers_num', Dimensions: regionDim });
    expect(inReview).toMatchObject({ TotalCount: 1, NextToken: '' });
    expect((inReview['QuotaApplications'] as { ApplicationId: string }[])[0]!.ApplicationId).toBe(created['ApplicationId']);
    const agreed = await call('ListQuotaApplications', { ProductCode: 'slb', Status: 'Agree' });
    expect((agreed['QuotaApplications'] as { QuotaActionCode: string }[]).map((a) => a.QuotaActionCode)).toEqual(['slb_quota_listeners_num']);
    expect((await call('ListQuotaApplications', { ProductCode: 'nlb' }))['QuotaApplications']).toEqual([]);
  });

  it('refuse: Disagree with the reviewer\'s reason; the limit stays', async () => {
    setPolicy({ decision: 'refuse', reason: 'Please use more load balancers instead.' });
    const current = Number((await quota('slb_quota_instances_num'))['TotalQuota']);
    const created = await call('CreateQuotaApplication', { ProductCode: 'slb', QuotaActionCode: 'slb_quota_instances_num', DesireValue: current + 10, Reason: 'r', Dimensions: regionDim });
    expect(created).toMatchObject({ Status: 'Disagree', ApproveValue: 0, AuditReason: 'Please use more load balancers instead.' });
    expect(Number((await quota('slb_quota_instances_num'))['TotalQuota'])).toBe(current);
  });

  it('pages ListQuotaApplications with MaxResults and NextToken', async () => {
    const first = await call('ListQuotaApplications', { ProductCode: 'slb', MaxResults: 2 });
    expect(first['TotalCount']).toBe(3);
    expect(first['QuotaApplications']).toHaveLength(2);
    const second = await call('ListQuotaApplications', { ProductCode: 'slb', MaxResults: 2, NextToken: first['NextToken'] });
    expect(second['QuotaApplications']).toHaveLength(1);
    expect(second['NextToken']).toBe('');
  });

  it('refuses what Quota Center refuses, with its errors', async () => {
    expect(await errorOf(call('GetQuotaApplication', { ApplicationId: '00000000-0000-0000-0000-000000000000' }))).toMatchObject({ statusCode: 400, code: 'QUOTA.APPLICATION.NOT.FOUND' });
    expect(await errorOf(call('CreateQuotaApplication', { ProductCode: 'slb', QuotaActionCode: 'slb_quota_nope', DesireValue: 10, Reason: 'r' }))).toMatchObject({ code: 'InvalidParameter' });
    expect(await errorOf(call('CreateQuotaApplication', { ProductCode: 'slb', QuotaActionCode: 'slb_quota_instances_num', DesireValue: 1, Reason: 'r', Dimensions: regionDim }))).toMatchObject({ code: 'InvalidParameter' });
    expect(await errorOf(call('CreateQuotaApplication', { ProductCode: 'slb', QuotaActionCode: 'slb_quota_instances_num', DesireValue: 'many', Reason: 'r' }))).toMatchObject({ code: 'InvalidParameter' });
    expect(await errorOf(call('CreateQuotaApplication', { ProductCode: 'slb', QuotaActionCode: 'slb_quota_instances_num', DesireValue: 500 }))).toMatchObject({ code: 'MissingParameter' });
    expect(await errorOf(call('ListQuotaApplications', { ProductCode: 'slb', MaxResults: 0 }))).toMatchObject({ code: 'InvalidParameter' });
    // A quota documented as fixed is refused as not adjustable.
    const fixed = await errorOf(call('CreateQuotaApplication', { ProductCode: 'nlb', QuotaActionCode: 'nlb_quota_servergroups_num', DesireValue: 5_000, Reason: 'r', Dimensions: regionDim }));
    expect(fixed.message).toContain('cannot be adjusted');
  });
});
