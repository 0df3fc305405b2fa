/**
 * `fleet-audit quota request` against the simulator through Quota Center's official client, on real PostgreSQL:
 * seven dated dumps of the sample fleet are stored (the checkout-gateway CLB gains four backends a day), the simulator
 * serves the last one, and one quota goes through its whole life: a dry run says what would be filed; a run stopped
 * after storing `submitting` (before Quota Center was called) is reconciled and the application filed once; the same
 * run again files nothing; the reviewer approves later and the next live scan records the decision and reads the
 * approved limit, so the quota's finding and trend move and the plan says covered.
 */
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuotaRequestOutcome } from '@app/audit';
import type { WireFleet } from '@app/domain';
import type { QuotaPlan } from '@app/forecast';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { accountsScope, ALL_ACCOUNTS, Store, SYSTEM_PRINCIPAL } from '@app/store';
import { runCliInProcess } from '../cli/cli-run.util';
import { callRpc } from '../sim/sim-clients.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { storeDatedScans } from './dated-dumps.util';

const DAY0 = Date.parse('2026-11-10T00:00:00Z');
const NOW = '2026-11-16T12:00:00Z';
const ACCOUNT = '1234567890123456';
const REGION = 'cn-hangzhou';
const CODE = 'slb_quota_backendservers_num';
const CLB = 'lb-bp1i0hoxo5qje4vllnxj';

describe('quota request (plan -> Quota Center applications, simulator and Postgres)', () => {
  let db: TestDatabase;
  let store: Store;
  let sim: RunningSimulator;
  let fleet: WireFleet;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url });
    fleet = await storeDatedScans(store, DAY0);
    fleet.accounts.find((a) => a.account.accountId === ACCOUNT)!.account.quotaApplications = { decision: 'pending', approvePercent: 100 };
    sim = await startSimulator({ fleet });
  }, 300_000);

  afterAll(async () => {
    await sim?.close();
    await store?.close();
    await db?.release();
  });

  async function request(...args: string[]): Promise<{ status: number; outcomes: QuotaRequestOutcome[]; stderr: string }> {
    const r = await runCliInProcess(['quota', 'request', '--config', sim.configPath, '--database-url', db.url, '--format', 'json', ...args]);
    return { status: r.status ?? -1, stderr: r.stderr, outcomes: r.stdout ? (JSON.parse(r.stdout) as { outcomes: QuotaRequestOutcome[] }).outcomes : [] };
  }

  /** The applications Quota Center (the simulator) holds for the quota. */
  async function atQuotaCenter(): Promise<Record<string, unknown>[]> {
    const b = await callRpc(sim, 'ListQuotaApplications', '2020-05-10', { ProductCode: 'slb', QuotaActionCode: CODE }, { inBody: true });
    return b['QuotaApplications'] as Record<string, unknown>[];
  }

  let value = 0;

  it('without --apply: says what it would file, files and stores nothing', async () => {
    const r = await request('--now', NOW);
    expect(r.status, r.stderr).toBe(0);
    const row = r.outcomes.find((o) => o.quotaActionCode === CODE)!;
    expect(row).toMatchObject({ outcome: 'would-file', accountId: ACCOUNT, regionId: REGION, productCode: 'slb' });
    value = row.desireValue!;
    expect(value).toBeGreaterThan(200);
    expect(await atQuotaCenter()).toEqual([]);
    expect(await store.quotaApplications.list()).toEqual([]);
  }, 120_000);

  it('a run stopped before Quota Center answered is reconciled, and the application filed once; run again, nothing more', async () => {
    // What a run killed between storing the application and calling Quota Center leaves behind.
    const key = { accountId: ACCOUNT, regionId: REGION, productCode: 'slb', quotaActionCode: CODE };
    const begun = await store.quotaApplications.begin(key, { desireValue: value, reason: 'interrupted', requestedBy: 'killed-run', planRow: {} });
    expect('created' in begun).toBe(true);
    const r = await request('--now', NOW, '--apply', '--requested-by', 'platform-team');
    expect(r.status, r.stderr).toBe(0);
    expect(r.outcomes.map((o) => o.outcome).sort()).toEqual(['abandoned', 'filed']);
    const filed = r.outcomes.find((o) => o.outcome === 'filed')!;
    expect(filed.application).toMatchObject({ status: 'Process', desireValue: value, requestedBy: 'platform-team', quotaActionCode: CODE });
    expect(filed.application!.applicationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(filed.application!.planRow).toMatchObject({ action: 'request', quotaActionCode: CODE, requestValue: value });
    const qc = await atQuotaCenter();
    expect(qc).toHaveLength(1);
    expect(qc[0]).toMatchObject({ Status: 'Process', DesireValue: value, ApplicationId: filed.application!.applicationId });
    expect(String(qc[0]!['Reason'])).toMatch(/^Capacity forecast for the next 30 days \(fleet-audit quota plan\): used 168 of 200/);
    // The same run again: the quota is pending (in review), nothing is filed.
    const again = await request('--now', NOW, '--apply');
    expect(again.status, again.stderr).toBe(0);
    expect(again.outcomes.filter((o) => o.quotaActionCode === CODE)).toEqual([]);
    expect(await atQuotaCenter()).toHaveLength(1);
    const stored = await store.quotaApplications.list();
    expect(stored.map((a) => a.status).sort()).toEqual(['Process', 'failed']);
  }, 180_000);

  it('the reviewer approves later: the next live scan records the decision and reads the approved limit; nothing more is filed', async () => {
    fleet.accounts.find((a) => a.account.accountId === ACCOUNT)!.account.quotaApplications = { decision: 'approve', approvePercent: 100 };
    // The next live scan (a day later) reads the approved value through ListProductQuotas.
    const scanAt = '2026-11-17T00:00:00Z';
    const scan = await runCliInProcess(['scan', '--config', sim.configPath, '--database-url', db.url, '--now', scanAt, '--format', 'json', '--no-progress']);
    expect([0, 1]).toContain(scan.status);
    // The scan refreshed the stored application (GetQuotaApplication): approved with the value asked for.
    expect((await store.quotaApplications.list({ statuses: ['Agree'] })).map((a) => [a.quotaActionCode, a.approveValue])).toEqual([[CODE, value]]);
    expect(await atQuotaCenter()).toHaveLength(1);
    const planned = await runCliInProcess(['quota', 'plan', '--database-url', db.url, '--now', '2026-11-17T12:00:00Z', '--format', 'json']);
    const row = (JSON.parse(planned.stdout) as QuotaPlan).rows.find((x) => x.quotaActionCode === CODE && x.regionId === REGION)!;
    expect(scan.stderr).not.toMatch(/\n\s+at /);
    expect(row).toMatchObject({ limit: value, limitSource: 'quota-center', action: 'covered' });
    // The finding moved: the CLB's backend use is now measured against the approved limit.
    const latest = (await store.scans.list({ limit: 1 }, SYSTEM_PRINCIPAL)).items[0]!;
    const history = await store.quotaUsage.history({ since: new Date(scanAt), until: new Date(scanAt), checkId: 'CLB_BACKEND_QUOTA' });
    expect(latest.startedAt).toBe(new Date(scanAt).toISOString());
    expect(history.find((h) => h.resource.id === CLB)!.observations.at(-1)).toMatchObject({ limit: value });
    // /metrics counts the stored applications by status.
    expect(await store.quotaApplications.countsByStatus()).toEqual({ Agree: 1, failed: 1 });
    expect(await store.quotaApplications.countsByStatus({ accountScope: accountsScope(['9999999999999999']) })).toEqual({});
    // A team sees the applications of the regions where it owns a cluster in the scan, and no other.
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    const clusterTeams = await pg.query<{ team: string | null; region_id: string }>('SELECT DISTINCT team, region_id FROM graph_clusters WHERE scan_id = $1', [latest.id]).finally(() => pg.end());
    const here = clusterTeams.rows.find((r) => r.region_id === REGION && r.team !== null)?.team;
    expect(here, 'a team owns a cluster in the region').toBeTruthy();
    expect(await store.quotaApplications.countsByStatus({ accountScope: ALL_ACCOUNTS, teamScope: [here!] }, latest.id)).toEqual({ Agree: 1, failed: 1 });
    expect(await store.quotaApplications.countsByStatus({ accountScope: ALL_ACCOUNTS, teamScope: ['no-such-team'] }, latest.id)).toEqual({});
    expect(await store.quotaApplications.countsByStatus({ accountScope: ALL_ACCOUNTS, teamScope: [here!] })).toEqual({});
    // Nothing is filed after the scan either: the quota is covered.
    const after = await request('--now', '2026-11-17T12:00:00Z', '--apply');
    expect(after.outcomes.filter((o) => o.quotaActionCode === CODE)).toEqual([]);
  }, 240_000);

  it('a run stopped after Quota Center filed it but before the answer was stored: the next run adopts it, files nothing more', async () => {
    const listeners = 'slb_quota_listeners_num';
    const key = { accountId: ACCOUNT, regionId: REGION, productCode: 'slb', quotaActionCode: listeners };
    const begun = await store.quotaApplications.begin(key, { desireValue: 90, reason: 'interrupted', requestedBy: 'killed-run', planRow: {} });
    expect('created' in begun).toBe(true);
    // What the stopped run had sent: Quota Center holds the application, the store does not know its id.
    const filed = await callRpc(sim, 'CreateQuotaApplication', '2020-05-10', { ProductCode: 'slb', QuotaActionCode: listeners, DesireValue: 90, Reason: 'interrupted', Dimensions: [{ Key: 'regionId', Value: REGION }] }, { inBody: true });
    const r = await request('--now', '2026-11-17T12:00:00Z', '--apply');
    expect(r.status, r.stderr).toBe(0);
    const adopted = r.outcomes.find((o) => o.quotaActionCode === listeners)!;
    expect(adopted).toMatchObject({ outcome: 'adopted', application: { applicationId: filed['ApplicationId'], status: 'Agree', desireValue: 90 } });
    const b = await callRpc(sim, 'ListQuotaApplications', '2020-05-10', { ProductCode: 'slb', QuotaActionCode: listeners }, { inBody: true });
    expect(b['QuotaApplications']).toHaveLength(1);
  }, 120_000);

  it('an application the reviewer refuses is a finding of the next live scan, with the reviewer\'s reason; a later approval clears it', async () => {
    const account = fleet.accounts.find((a) => a.account.accountId === ACCOUNT)!.account;
    const instances = 'slb_quota_instances_num';
    account.quotaApplications = { decision: 'refuse', approvePercent: 100, reason: 'Please describe the business scenario.' };
    await callRpc(sim, 'CreateQuotaApplication', '2020-05-10', { ProductCode: 'slb', QuotaActionCode: instances, DesireValue: 90, Reason: 'launch', Dimensions: [{ Key: 'regionId', Value: REGION }] }, { inBody: true });
    const refusedOf = async (at: string) => {
      const scan = await runCliInProcess(['scan', '--config', sim.configPath, '--database-url', db.url, '--now', at, '--format', 'json', '--no-progress']);
      expect([0, 1], scan.stderr).toContain(scan.status);
      // The sample's own standing refusal (acme-data cn-beijing) is there throughout: this account's region is the one that moves.
      return (await store.findings.list({ checkId: 'QUOTA_APPLICATION_REFUSED', accountId: ACCOUNT }, SYSTEM_PRINCIPAL)).items;
    };
    const refused = await refusedOf('2026-11-18T00:00:00Z');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ severity: 'warning', resource: { kind: 'Region', accountId: ACCOUNT, regionId: REGION } });
    expect(refused[0]!.message).toContain(`${instances}: asked 90`);
    expect(refused[0]!.message).toContain('"Please describe the business scenario."');
    // The same quota asked again and approved: the refusal no longer stands.
    account.quotaApplications = { decision: 'approve', approvePercent: 100 };
    await callRpc(sim, 'CreateQuotaApplication', '2020-05-10', { ProductCode: 'slb', QuotaActionCode: instances, DesireValue: 90, Reason: 'launch, with the scenario', Dimensions: [{ Key: 'regionId', Value: REGION }] }, { inBody: true });
    expect(await refusedOf('2026-11-19T00:00:00Z')).toEqual([]);
  }, 240_000);

  it('bad input: a missing --config or --database-url is a usage error naming it', async () => {
    const noConfig = await runCliInProcess(['quota', 'request', '--database-url', db.url]);
    expect(noConfig.status).toBe(2);
    expect(noConfig.stderr).toContain('--config FILE is required');
    const noDb = await runCliInProcess(['quota', 'request', '--config', sim.configPath]);
    expect(noDb.status).toBe(2);
    expect(noDb.stderr).toContain('--database-url');
  }, 60_000);
});
