/**
 * Three stored weekly scans with known week-over-week changes and waivers, shared by the report tests.
 * Week 3 against week 2: E new (its waiver expired), B resolved, A and D persisting, D severity
 * warning -> critical, F waived; one stale waiver; quota lb-hot at 60 / 70 / 74 / 77 / 80 % (forecast).
 */
import type { Finding, QuotaUsageSample } from '@app/domain';
import type { Store } from '@app/store';
import { makeCoverage, makeFinding } from '../store/finding.factory';

export const DAY = 86_400_000;
export const T0 = new Date('2026-03-02T06:00:00Z');
export const at = (days: number) => new Date(T0.getTime() + days * DAY);
export const ACCOUNT = '1000000000000001';
export const OTHER = '2000000000000002';

const f = (id: string, severity: Finding['severity'], checkId = 'CLB_BACKEND_QUOTA', accountId = ACCOUNT, clusterId = 'c-alpha') =>
  makeFinding({ checkId, severity, resource: { id, accountId, clusterId } });

const quota = (ratio: number): QuotaUsageSample => ({
  checkId: 'CLB_BACKEND_QUOTA',
  resource: { kind: 'LoadBalancer', id: 'lb-hot', accountId: ACCOUNT, regionId: 'cn-hangzhou', clusterId: 'c-alpha' },
  used: ratio * 200,
  limit: 200,
  ratio,
});

/** The findings of each week. */
export const WEEKS: Finding[][] = [
  [f('lb-A', 'warning'), f('lb-B', 'warning'), f('lb-C', 'critical', 'LB_ORPHANED')],
  [f('lb-A', 'critical'), f('lb-B', 'warning'), f('lb-D', 'warning', 'LB_NO_BACKENDS', ACCOUNT, 'c-beta'), f('lb-Z', 'info', 'LB_ORPHANED', OTHER, 'c-other')],
  [f('lb-A', 'critical'), f('lb-D', 'critical', 'LB_NO_BACKENDS', ACCOUNT, 'c-beta'), f('lb-E', 'warning', 'LB_ORPHANED'), f('lb-F', 'critical', 'LB_ORPHANED'), f('lb-Z', 'info', 'LB_ORPHANED', OTHER, 'c-other')],
];

/** Store the three weeks (days 0, 7, 14) and the waivers; returns the scan ids. */
export async function seedThreeWeeks(store: Store): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, findings] of WEEKS.entries()) {
    const scan = await store.scans.create({ source: 'offline', fleetName: 'prod', startedAt: at(i * 7) });
    await store.scans.complete(scan.id, {
      findings,
      coverage: i === 2 ? [makeCoverage(), makeCoverage({ api: 'kubernetes', clusterId: 'c-beta', status: 'failed', errorCode: 'Forbidden', message: 'cluster API refused the token' })] : [makeCoverage()],
      quotaUsage: [quota([0.6, 0.7, 0.8][i])],
      finishedAt: new Date(at(i * 7).getTime() + 60_000),
    });
    ids.push(scan.id);
  }
  // Two more scans in week 3 (days 10 and 12, same findings): the quota forecast needs 4 samples in 14 days.
  for (const [day, ratio] of [[10, 0.74], [12, 0.77]] as const) {
    const scan = await store.scans.create({ source: 'offline', fleetName: 'prod', startedAt: at(day) });
    await store.scans.complete(scan.id, { findings: WEEKS[2], coverage: [makeCoverage()], quotaUsage: [quota(ratio)] });
  }
  const base = { accountId: ACCOUNT, reason: 'accepted until the NLB migration', category: 'accepted-risk' };
  await store.waiverService.create({ ...base, checkId: 'LB_ORPHANED', resource: 'lb-F', owner: 'team-edge', ticket: 'EDGE-1' }, 'alice', at(1));
  await store.waiverService.create({ ...base, checkId: 'LB_ORPHANED', resource: 'lb-E', owner: 'team-core', expiresAt: at(10).toISOString() }, 'bob', at(1));
  await store.waiverService.create({ ...base, checkId: 'LB_NO_BACKENDS', resource: 'lb-gone-*', owner: 'team-gone' }, 'carol', at(1));
  return ids;
}
