import { describe, expect, it } from 'vitest';
import { runAudit } from '@app/checks';
import { quotaUsageOf, type FleetSnapshot, type ResourceRef } from '@app/domain';
import { QUOTA_USAGE_CHECK_IDS, QUOTA_CENTER_QUOTA_OF_CHECK } from '@app/checks';
import {
  fitTrendWindow,
  forecastTrend,
  parseScenario,
  planQuotas,
  requestValueFor,
  resolveTrendSettings,
  runWhatIf,
  type FittedSeries,
  type QuotaObservation,
} from '@app/forecast';
import { ACCOUNT, CLUSTER, NOW, REGION, smallFleet } from './forecast-fleet.util';

const DAY = 86_400_000;
const now = NOW.getTime();
const trend = resolveTrendSettings({});

/** `n` daily samples ending at NOW, growing by `perDay` from `start` (counts), with the given limit. */
function daily(n: number, start: number, perDay: number, limit: number, wobble: (i: number) => number = () => 0): QuotaObservation[] {
  return Array.from({ length: n }, (_, i) => ({ at: now - (n - 1 - i) * DAY, used: Math.round(start + perDay * i + wobble(i)), limit }));
}

function fitted(checkId: string, resource: Omit<ResourceRef, 'accountId' | 'regionId'> & Partial<ResourceRef>, obs: QuotaObservation[]): FittedSeries {
  return {
    checkId,
    resource: { kind: resource.kind, id: resource.id, accountId: resource.accountId ?? ACCOUNT, regionId: resource.regionId ?? REGION, clusterId: resource.clusterId ?? null },
    window: fitTrendWindow(obs, now, trend),
  };
}

const region = { kind: 'Region' as const, id: `${ACCOUNT}/${REGION}` };

describe('planQuotas', () => {
  it('every quota check names its Quota Center quota, and only quota-usage checks do', () => {
    for (const id of QUOTA_CENTER_QUOTA_OF_CHECK.keys()) expect(QUOTA_USAGE_CHECK_IDS.has(id)).toBe(true);
    expect([...QUOTA_CENTER_QUOTA_OF_CHECK.values()].map((d) => d.quotaActionCode).sort()).toEqual([
      'nlb_quota_loadbalancer_listeners_num',
      'nlb_quota_loadbalancer_noeci_servers_num',
      'nlb_quota_loadbalancers_num',
      'nlb_quota_server_added_num',
      'nlb_quota_servergroup_noeci_servers_num',
      'nlb_quota_servergroups_num',
      'slb_quota_backendserver_attached_num',
      'slb_quota_backendservers_num',
      'slb_quota_instances_num',
      'slb_quota_listeners_num',
    ].sort());
  });

  it('a growing quota: the planned value covers the p10 forecast at the horizon and no more than the margin above it', () => {
    const wobble = (i: number) => ((i * 7) % 5) - 2;
    const obs = daily(14, 10, 1.5, 30, wobble);
    const plan = planQuotas({ snapshot: smallFleet(), series: [fitted('CLB_INSTANCE_QUOTA', region, obs)], now });
    const row = plan.rows[0]!;
    expect(row).toMatchObject({ action: 'request', quotaActionCode: 'slb_quota_instances_num', productCode: 'slb', limit: 30, adjustable: true, adjustableSource: 'documented' });
    // The forecast itself: with the planned value as the limit, the early (p10) exhaustion is beyond the horizon ...
    const withValue = forecastTrend(obs.map((o) => ({ ...o, limit: row.requestValue! })), now);
    expect(withValue.secondsToExhaustion.p10!).toBeGreaterThanOrEqual(30 * 86_400);
    // ... and the need is the least such limit: one unit less runs out (p10) within the horizon.
    const atNeed = forecastTrend(obs.map((o) => ({ ...o, limit: row.need })), now);
    expect(atNeed.secondsToExhaustion.p10!).toBeGreaterThanOrEqual(30 * 86_400);
    const justUnder = forecastTrend(obs.map((o) => ({ ...o, limit: row.need - 1 })), now);
    expect(justUnder.secondsToExhaustion.p10!).toBeLessThan(30 * 86_400);
    // value = ceil(need x 1.1): at most the margin above the need
    expect(row.requestValue).toBe(Math.ceil((row.need * 110) / 100));
    expect(row.requestValue! - row.need).toBeLessThanOrEqual(Math.ceil(row.need * 0.1));
    expect(row.why).toContain(`need ${row.need} + 10 % margin = ${row.requestValue}`);
    expect(row.firstToReach).toMatchObject({ checkId: 'CLB_INSTANCE_QUOTA', resource: { id: region.id } });
  });

  it('a longer horizon or a larger margin asks for more; a quota whose limit covers the horizon is covered', () => {
    const obs = daily(14, 10, 1, 30);
    const at = (horizonDays: number, marginPercent = 10) => planQuotas({ snapshot: smallFleet(), series: [fitted('CLB_INSTANCE_QUOTA', region, obs)], now, settings: { horizonDays, marginPercent } }).rows[0]!;
    expect(at(60).requestValue!).toBeGreaterThan(at(30).requestValue!);
    expect(at(30, 50).requestValue!).toBeGreaterThan(at(30, 10).requestValue!);
    const covered = at(3);
    expect(covered.action).toBe('covered');
    expect(covered.requestValue).toBeNull();
    expect(covered.need).toBeLessThanOrEqual(30);
  });

  it("a what-if scenario's breach raises the value it needs", () => {
    const snapshot = smallFleet({ nodes: 3, clusterServices: 2, quotas: { slb_quota_instances_num: 8 } });
    const base = runAudit(snapshot, { now: NOW }).results;
    const regionSample = quotaUsageOf(base, QUOTA_USAGE_CHECK_IDS).find((s) => s.checkId === 'CLB_INSTANCE_QUOTA')!;
    expect(regionSample.used).toBe(2);
    const series = [fitted('CLB_INSTANCE_QUOTA', regionSample.resource, daily(14, 2, 0, 8))];
    const without = planQuotas({ snapshot, series, now }).rows[0]!;
    expect(without.action).toBe('covered');
    const result = runWhatIf(snapshot, parseScenario({ apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'launch', steps: [{ addServices: { cluster: CLUSTER, namespace: 'shop', count: 10 } }] }), { now: NOW });
    expect(result.steps[0]!.firstBreach).toMatchObject({ checkId: 'CLB_INSTANCE_QUOTA' });
    const withLaunch = planQuotas({ snapshot, series, now, scenarios: [{ name: 'launch', result }] }).rows[0]!;
    expect(withLaunch.scenarioNeed).toEqual({ scenario: 'launch', used: 12 });
    expect(withLaunch).toMatchObject({ action: 'request', need: 12, requestValue: Math.ceil(12 * 1.1) });
    expect(withLaunch.why).toContain('scenario launch needs 12');
  });

  it('a quota that cannot be raised gets the remediation that buys the room, with its size, not a request', () => {
    const snapshot: FleetSnapshot = smallFleet({ nlb: true });
    const r = snapshot.accounts[0]!.regions[0]!;
    r.nlbServerGroups = Array.from({ length: 12 }, (_, i) => ({ serverGroupId: `sgp-${i}`, serverGroupName: `g${i}`, relatedLoadBalancerIds: i < 5 ? [] : ['nlb-1'] })) as never;
    const obs = daily(14, 2_900, 8, 3_000);
    const row = planQuotas({ snapshot, series: [fitted('NLB_SERVER_GROUP_QUOTA', region, obs)], now }).rows[0]!;
    expect(row).toMatchObject({ action: 'remediate', quotaActionCode: 'nlb_quota_servergroups_num', productCode: 'nlb', adjustable: false, adjustableSource: 'documented', requestValue: null });
    expect(row.remediation).toMatchObject({ size: 5 });
    expect(row.remediation!.text).toContain('delete the 5 NLB server group(s)');
    expect(row.why).toContain('documented as fixed');
  });

  it('Quota Center read live wins over the documentation: Adjustable false remediates, an application in process is pending, ApplicableRange caps', () => {
    const obs = daily(14, 10, 1, 30);
    const series = [fitted('CLB_INSTANCE_QUOTA', region, obs)];
    const withQuota = (extra: Record<string, unknown>) => {
      const s = smallFleet();
      s.accounts[0]!.regions[0]!.quotas = [{ quotaActionCode: 'slb_quota_instances_num', totalQuota: 30, ...extra }];
      return s;
    };
    expect(planQuotas({ snapshot: withQuota({ adjustable: false, unadjustableDetail: 'limitReached' }), series, now }).rows[0]).toMatchObject({
      action: 'remediate',
      adjustable: false,
      adjustableSource: 'quota-center',
      unadjustableDetail: 'limitReached',
    });
    expect(planQuotas({ snapshot: withQuota({ adjustable: false, unadjustableDetail: 'applicationProcess' }), series, now }).rows[0]!.action).toBe('pending');
    const capped = planQuotas({ snapshot: withQuota({ adjustable: true, applicableRange: [30, 40] }), series, now }).rows[0]!;
    expect(capped).toMatchObject({ action: 'request', requestValue: 40 });
    expect(capped.why).toContain('capped by Quota Center ApplicableRange');
    const pending = planQuotas({
      snapshot: withQuota({ adjustable: true }),
      series,
      now,
      applications: [{ accountId: ACCOUNT, regionId: REGION, productCode: 'slb', quotaActionCode: 'slb_quota_instances_num', applicationId: 'app-1', status: 'Process', desireValue: 70 }],
    }).rows[0]!;
    expect(pending).toMatchObject({ action: 'pending', application: { applicationId: 'app-1', desireValue: 70 } });
    // a refused or approved application does not hold the quota back
    const refused = planQuotas({
      snapshot: withQuota({ adjustable: true }),
      series,
      now,
      applications: [{ accountId: ACCOUNT, regionId: REGION, productCode: 'slb', quotaActionCode: 'slb_quota_instances_num', applicationId: 'app-1', status: 'Disagree', desireValue: 70 }],
    }).rows[0]!;
    expect(refused.action).toBe('request');
  });

  it('per-instance quotas: one row per account, region and code, the busiest instance sets the need; rows to act on first', () => {
    const lb = (id: string) => ({ kind: 'LoadBalancer' as const, id, clusterId: CLUSTER });
    const series = [
      fitted('CLB_BACKEND_QUOTA', lb('lb-a'), daily(14, 50, 1, 200)),
      fitted('CLB_BACKEND_QUOTA', lb('lb-b'), daily(14, 150, 4, 200)),
      fitted('CLB_LISTENER_QUOTA', lb('lb-a'), daily(14, 3, 0, 50)),
    ];
    const plan = planQuotas({ snapshot: smallFleet(), series, now });
    expect(plan.rows.map((r) => `${r.quotaActionCode}:${r.action}:${r.series}`)).toEqual(['slb_quota_backendservers_num:request:2', 'slb_quota_listeners_num:covered:1']);
    expect(plan.rows[0]!.firstToReach!.resource.id).toBe('lb-b');
    expect(plan.rows[0]!.used).toBe(202);
    // series of checks that are not Quota Center quotas (NodePort range, vSwitch IPs) are not planned
    const other = planQuotas({ snapshot: smallFleet(), series: [fitted('VSWITCH_IP_EXHAUSTION', { kind: 'VSwitch' as never, id: 'vsw-1' }, daily(14, 10, 5, 100))], now });
    expect(other.rows).toEqual([]);
  });

  it('a quota already at its limit keeps its trend: the need is its p10 use at the horizon, not its use today', () => {
    const obs = daily(14, 24, 1, 30); // 24..37, over the limit of 30 since day 6
    const row = planQuotas({ snapshot: smallFleet(), series: [fitted('CLB_INSTANCE_QUOTA', region, obs)], now }).rows[0]!;
    expect(row.used).toBe(37);
    expect(row.firstToReach!.exhaustsAtP10).toBe(NOW.toISOString());
    expect(row.need).toBeGreaterThanOrEqual(37 + 30);
    expect(row.action).toBe('request');
  });

  it('requestValueFor rounds up to a whole unit and honours the range maximum', () => {
    expect(requestValueFor(100, 10)).toEqual({ value: 110, capped: false });
    expect(requestValueFor(101, 10)).toEqual({ value: 112, capped: false });
    expect(requestValueFor(101, 10, [50, 105])).toEqual({ value: 105, capped: true });
    expect(requestValueFor(101, 10, [])).toEqual({ value: 112, capped: false });
  });
});
