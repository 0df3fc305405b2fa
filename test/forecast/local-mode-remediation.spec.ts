/**
 * The Local-mode remediation of a CLB whose backend quota cannot be raised (libs/audit quota-plan-runner.ts), on the
 * sample fleet: its size is what the what-if of that change removes from the CLB, and the quota plan uses it.
 */
import { describe, expect, it } from 'vitest';
import { localModeRemediation } from '@app/audit';
import { loadFleetDirectory } from '@app/collectors';
import type { QuotaPlanRow } from '@app/forecast';
import { join } from 'node:path';
import { ROOT } from '../cli/cli-run.util';

const NOW = new Date('2026-11-20T00:00:00Z');
const CLB = 'lb-bp1i0hoxo5qje4vllnxj';

function row(checkId: string, id: string): QuotaPlanRow {
  return {
    accountId: '1234567890123456',
    regionId: 'cn-hangzhou',
    productCode: 'slb',
    quotaActionCode: 'slb_quota_backendservers_num',
    checkId,
    limit: 200,
    limitSource: 'quota-center',
    used: 168,
    series: 1,
    firstToReach: { checkId, resource: { kind: 'LoadBalancer', id, accountId: '1234567890123456', regionId: 'cn-hangzhou', clusterId: null }, used: 168, exhaustsAtP10: null, exhaustsAtP50: null },
    trendNeed: 250,
    scenarioNeed: null,
    need: 250,
    requestValue: null,
    action: 'remediate',
    adjustable: false,
    adjustableSource: 'quota-center',
    unadjustableDetail: 'limitReached',
    why: '',
    remediation: null,
    application: null,
  };
}

describe('localModeRemediation', () => {
  const snapshot = loadFleetDirectory(join(ROOT, 'examples', 'fleets', 'sample'));

  it('sizes the backends that Local mode on the CLB\'s Cluster-mode Services frees, by the CCM model', () => {
    const r = localModeRemediation(snapshot, row('CLB_BACKEND_QUOTA', CLB), NOW)!;
    expect(r.text).toMatch(/^set externalTrafficPolicy: Local on the \d+ Cluster-mode Service\(s\) of lb-bp1i0hoxo5qje4vllnxj/);
    expect(r.size).toBeGreaterThan(0);
    expect(r.size).toBeLessThan(168);
    // The Services named are namespace/name of the CLB's Services.
    expect(/of lb-\S+ \(([^)]*)\)/.exec(r.text)![1]!.split(', ')[0]).toMatch(/^[a-z0-9-]+\/[a-z0-9-]+$/);
  });

  it('says nothing for another quota, an unknown CLB, or a CLB whose Services are all Local', () => {
    expect(localModeRemediation(snapshot, row('CLB_LISTENER_QUOTA', CLB), NOW)).toBeUndefined();
    expect(localModeRemediation(snapshot, row('CLB_BACKEND_QUOTA', 'lb-nope'), NOW)).toBeUndefined();
    const r = localModeRemediation(snapshot, row('CLB_BACKEND_QUOTA', CLB), NOW)!;
    // After the change, nothing is left to move to Local.
    const copy = structuredClone(snapshot);
    for (const a of copy.accounts) for (const reg of a.regions) for (const c of reg.clusters) for (const s of c.kubernetes?.services ?? []) s.externalTrafficPolicy = 'Local';
    expect(localModeRemediation(copy, row('CLB_BACKEND_QUOTA', CLB), NOW)).toBeUndefined();
    expect(r.size).toBeGreaterThan(0);
  });
});
