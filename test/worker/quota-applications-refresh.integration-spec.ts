/**
 * Distributed scans refresh the stored Quota Center applications from what their crawl read (the `quota-applications`
 * dataset), whole-scan and sharded analysis alike, on real Redis, real PostgreSQL and the simulator: an application
 * stored `Process` is recorded `Agree` with its approved value after the reviewer approves, one stored `submitting`
 * (a `quota request` run stopped before it stored Quota Center's answer) adopts its id, and a refused one is recorded
 * `Disagree` with the reviewer's reason while the scan reports QUOTA_APPLICATION_REFUSED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullScanJobQueue, DistributedScanClient } from '@app/queue';
import { Store, SYSTEM_PRINCIPAL } from '@app/store';
import type { WorkerOptions } from '@app/worker';
import { callRpc } from '../sim/sim-clients.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { deletePrefix, SHARED_REDIS_URL, startInProcessWorkers, startTestFleet, uniquePrefix, type TestFleet } from './worker-test.util';

const REGION = 'cn-hangzhou';

describe('distributed scans refresh the stored quota applications', () => {
  let fleet: TestFleet;
  let db: TestDatabase;
  let store: Store;
  let accountId: string;

  beforeAll(async () => {
    fleet = await startTestFleet({ seed: 47, accounts: 2, regions: [REGION], clusters: 2 }, { qpsPerAccount: 50, maxConcurrentPerAccount: 4 });
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    accountId = String((await callRpc(fleet.sim, 'GetCallerIdentity', '2015-04-01', {}))['AccountId']);
    expect(fleet.config.accounts.map((a) => a.accountId)).toContain(accountId);
  }, 300_000);

  afterAll(async () => {
    await store?.close();
    await fleet?.close();
    await db?.release();
  });

  const policy = (p: { decision: 'approve' | 'refuse' | 'pending'; reason?: string }) => {
    fleet.fleet.accounts.find((a) => a.account.accountId === accountId)!.account.quotaApplications = { approvePercent: 100, ...p };
  };

  /** File an application at the simulated Quota Center (in review: the policy is pending). */
  async function file(code: string, desireValue: number): Promise<string> {
    policy({ decision: 'pending' });
    const b = await callRpc(fleet.sim, 'CreateQuotaApplication', '2020-05-10', { ProductCode: 'slb', QuotaActionCode: code, DesireValue: desireValue, Reason: 'test', Dimensions: [{ Key: 'regionId', Value: REGION }] }, { inBody: true });
    return String(b['ApplicationId']);
  }

  async function distributedScan(prefix: string, options: Partial<WorkerOptions>): Promise<string> {
    const running = await startInProcessWorkers(2, { databaseUrl: db.url, prefix, config: fleet.config }, { concurrency: { crawl: 3, analyze: 2 }, ...options });
    const queue = new BullScanJobQueue({ redisUrl: SHARED_REDIS_URL, prefix });
    try {
      const outcome = await new DistributedScanClient(store, queue).run({ config: fleet.config, now: new Date() }, { timeoutMs: 240_000 });
      expect(outcome.scan.status).toBe('succeeded');
      return outcome.scan.id;
    } finally {
      await queue.close();
      await Promise.all(running.map((w) => w.close()));
      await deletePrefix(SHARED_REDIS_URL, prefix);
    }
  }

  it('whole-scan analysis: a stored application in review is recorded approved, a submitting one adopts its id', async () => {
    const listeners = 'slb_quota_listeners_num';
    const instances = 'slb_quota_instances_num';
    const key = (quotaActionCode: string) => ({ accountId, regionId: REGION, productCode: 'slb', quotaActionCode });
    const inReview = await file(listeners, 90);
    const begun = await store.quotaApplications.begin(key(listeners), { desireValue: 90, reason: 'test', requestedBy: 'test', planRow: {} });
    if (!('created' in begun)) throw new Error('an application of the quota is already open');
    await store.quotaApplications.settle(begun.created.id, { applicationId: inReview, status: 'Process' });
    // Stored before the call, and the run stopped before it stored Quota Center's answer.
    const interrupted = await store.quotaApplications.begin(key(instances), { desireValue: 95, reason: 'test', requestedBy: 'killed-run', planRow: {} });
    if (!('created' in interrupted)) throw new Error('an application of the quota is already open');
    const filed = await file(instances, 95);

    policy({ decision: 'approve' });
    await distributedScan(uniquePrefix('qa-whole'), { analyzeShards: false });
    const stored = await store.quotaApplications.list({ accountIds: [accountId] });
    expect(stored.find((a) => a.quotaActionCode === listeners)).toMatchObject({ applicationId: inReview, status: 'Agree', approveValue: 90 });
    expect(stored.find((a) => a.quotaActionCode === instances)).toMatchObject({ applicationId: filed, status: 'Agree', approveValue: 95 });
  }, 300_000);

  it('sharded analysis: a refused application is recorded with the reviewer\'s reason, and the scan reports it', async () => {
    const backends = 'slb_quota_backendservers_num';
    const id = await file(backends, 400);
    const begun = await store.quotaApplications.begin({ accountId, regionId: REGION, productCode: 'slb', quotaActionCode: backends }, { desireValue: 400, reason: 'test', requestedBy: 'test', planRow: {} });
    if (!('created' in begun)) throw new Error('an application of the quota is already open');
    await store.quotaApplications.settle(begun.created.id, { applicationId: id, status: 'Process' });

    policy({ decision: 'refuse', reason: 'Please describe the business scenario.' });
    const scanId = await distributedScan(uniquePrefix('qa-sharded'), { analyzeShards: true });
    const stored = (await store.quotaApplications.list({ accountIds: [accountId] })).find((a) => a.quotaActionCode === backends);
    expect(stored).toMatchObject({ applicationId: id, status: 'Disagree', auditReason: 'Please describe the business scenario.' });
    const findings = (await store.findings.list({ scanId, checkId: 'QUOTA_APPLICATION_REFUSED' }, SYSTEM_PRINCIPAL)).items;
    expect(findings.map((f) => [f.resource.accountId, f.resource.regionId])).toEqual([[accountId, REGION]]);
    expect(findings[0]!.message).toContain(`${backends}: asked 400`);
  }, 300_000);
});
