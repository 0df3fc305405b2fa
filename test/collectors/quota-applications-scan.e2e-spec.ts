/**
 * Quota Center applications as a scan reads them (the `quota-applications` dataset: ListQuotaApplications of products
 * slb and nlb per region) and QUOTA_APPLICATION_REFUSED on them. A fleet directory records two applications already
 * decided (`quota-applications.json`: a refusal that stands and an approval); the offline reader and a live crawl of
 * the simulator serving the same directory give the same applications and the same finding; an audit role whose
 * policy lacks `quotas:ListQuotaApplications` loses this dataset only (the region is skipped for this check, the
 * quotas are still read).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAudit, CHECKS, type PartialAuditSettings } from '@app/checks';
import { leastPrivilegePolicy, loadScanConfig, readFleetDirectory, scanLive, type RamPolicyDocument } from '@app/collectors';
import { mapWireFleet, type CheckResult, type FleetSnapshot } from '@app/domain';
import { startSimulator, type RunningSimulator } from '@app/fleet-sim';
import { SIM_FLEET_IDS as IDS, writeSimFleet } from '../sim/sim-fleet.factory';
import { testConfig } from './scan-config.util';

const NOW = new Date('2026-11-29T00:00:00Z');
const ID = 'QUOTA_APPLICATION_REFUSED';

/** As ListQuotaApplications answers them (research/quota-center.md 4; ids and values made up). */
const RECORDED = [
  {
    ApplicationId: 'f1c2a3b4-0000-4000-8000-000000000001',
    ProductCode: 'slb',
    QuotaActionCode: 'slb_quota_instances_num',
    Status: 'Disagree',
    DesireValue: 120,
    ApproveValue: 0,
    AuditReason: 'Please describe the business scenario.',
    Reason: 'storefront launch',
    ApplyTime: '2026-11-20T08:00:00Z',
    Dimension: { regionId: IDS.regionId },
  },
  {
    ApplicationId: 'f1c2a3b4-0000-4000-8000-000000000002',
    ProductCode: 'nlb',
    QuotaActionCode: 'nlb_quota_loadbalancers_num',
    Status: 'Agree',
    DesireValue: 80,
    ApproveValue: 80,
    AuditReason: 'Agree',
    Reason: 'migration to NLB',
    ApplyTime: '2026-11-21T08:00:00Z',
    Dimension: { regionId: IDS.regionId },
  },
];

function fleetDir(): string {
  const dir = writeSimFleet();
  writeFileSync(join(dir, 'accounts', IDS.accountId, 'regions', IDS.regionId, 'quota-applications.json'), JSON.stringify(RECORDED, null, 1));
  return dir;
}

/** The results of QUOTA_APPLICATION_REFUSED alone. */
function refusedResults(snapshot: FleetSnapshot): CheckResult[] {
  const checks: NonNullable<PartialAuditSettings['checks']> = {};
  for (const c of CHECKS) if (c.id !== ID) checks[c.id] = { enabled: false };
  return runAudit(snapshot, { now: NOW, settings: { checks } }).results;
}

describe('Quota Center applications in a scan (offline and live through the simulator)', () => {
  let sim: RunningSimulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('offline and live read the same applications and give the same finding, with the reviewer\'s reason', async () => {
    const dir = fleetDir();
    const wire = readFleetDirectory(dir);
    const offline = mapWireFleet(wire);
    sim = await startSimulator({ fleet: wire });
    const live = await scanLive(testConfig(loadScanConfig(sim.configPath)));

    const regionOf = (s: FleetSnapshot) => s.accounts.find((a) => a.accountId === IDS.accountId)!.regions.find((r) => r.regionId === IDS.regionId)!;
    expect(regionOf(offline).quotaApplications).toEqual([
      {
        applicationId: RECORDED[1]!.ApplicationId,
        productCode: 'nlb',
        quotaActionCode: 'nlb_quota_loadbalancers_num',
        status: 'Agree',
        desireValue: 80,
        approveValue: 80,
        auditReason: 'Agree',
        reason: 'migration to NLB',
        applyTime: '2026-11-21T08:00:00Z',
      },
      {
        applicationId: RECORDED[0]!.ApplicationId,
        productCode: 'slb',
        quotaActionCode: 'slb_quota_instances_num',
        status: 'Disagree',
        desireValue: 120,
        approveValue: 0,
        auditReason: 'Please describe the business scenario.',
        reason: 'storefront launch',
        applyTime: '2026-11-20T08:00:00Z',
      },
    ]);
    expect(regionOf(live).quotaApplications).toEqual(regionOf(offline).quotaApplications);
    expect(live.coverage.find((c) => c.regionId === IDS.regionId && c.api === 'quota-applications')).toMatchObject({ status: 'ok' });

    const fromOffline = refusedResults(offline).filter((r) => r.status !== 'pass');
    expect(fromOffline).toHaveLength(1);
    expect(fromOffline[0]).toMatchObject({ status: 'fail', severity: 'warning', resource: { kind: 'Region', id: IDS.regionId, accountId: IDS.accountId } });
    expect(fromOffline[0]!.message).toContain('slb_quota_instances_num: asked 120');
    expect(fromOffline[0]!.message).toContain('"Please describe the business scenario."');
    expect(refusedResults(live).filter((r) => r.status !== 'pass')).toEqual(fromOffline);
  }, 120_000);

  it('an audit role without quotas:ListQuotaApplications loses that dataset only: the region is skipped for the check, quotas still read', async () => {
    const full = leastPrivilegePolicy(undefined, { nodeSysctls: true });
    const policy: RamPolicyDocument = {
      ...full,
      Statement: full.Statement.map((s) => ({ ...s, Action: (s.Action as string[]).filter((a) => a !== 'quotas:ListQuotaApplications') })),
    };
    sim = await startSimulator({ fleet: readFleetDirectory(fleetDir()), ramPolicy: policy });
    const live = await scanLive(testConfig(loadScanConfig(sim.configPath)));
    const failed = live.coverage.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.api)).toEqual(['quota-applications']);
    expect(live.coverage.find((c) => c.regionId === IDS.regionId && c.api === 'quotas')).toMatchObject({ status: 'ok' });
    const results = refusedResults(live);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ status: 'skipped', resource: { kind: 'Region', id: IDS.regionId } });
    expect(results[0]!.reason).toMatch(/^Quota Center applications were not read/);
  }, 120_000);
});
