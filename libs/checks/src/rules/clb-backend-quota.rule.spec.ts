/**
 * CLB_BACKEND_QUOTA: the backend server entries of each CLB, summed over its default server group and every vServer
 * group and so over every Service sharing it (seed 003: "the number of backend servers is cumulative"), against
 * `slb_quota_backendservers_num` (Quota Center value of the region, else the documented default 200; seeds 002/003; CCM
 * pkg/provider/vmock/slb.go refuses more than 200). Distinct servers are reported beside the entries. Graded warning at
 * 80 % and critical at 95 % (the default `quota` ratios). Starts from the fixture
 * test/fixtures/CLB_BACKEND_QUOTA/pass.small-clb: CLB lb-small with one vServer group of 10 ECS backends i-b0000..i-b0009.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SLB_QUOTA_BACKEND_SERVERS, quotaUsageOf, type BackendServer, type CheckResult, type FleetSnapshot, type RegionSnapshot } from '@app/domain';
import { onlyResult, runCheck } from '../../test/nlb-fixture.util';
import type { PartialAuditSettings } from '../audit-settings.types';
import { QUOTA_CENTER_QUOTA_OF_CHECK, QUOTA_USAGE_CHECK_IDS } from '../check.registry';

const ID = 'CLB_BACKEND_QUOTA';
const ACCOUNT = '1234567890123456';
const CODE = 'slb_quota_backendservers_num';

/** A fresh copy of the fixture `file` of the check, with its one region. */
function load(file: string): { snapshot: FleetSnapshot; region: RegionSnapshot } {
  const { snapshot } = JSON.parse(readFileSync(join(__dirname, '../../test/fixtures', ID, `${file}.json`), 'utf8')) as { snapshot: FleetSnapshot };
  return { snapshot, region: snapshot.accounts[0]!.regions[0]! };
}

/** ECS backends `i-b<from>` .. `i-b<to - 1>` on port 30080. */
function servers(from: number, to: number): BackendServer[] {
  return Array.from({ length: to - from }, (_, i) => ({ serverId: `i-b${String(from + i).padStart(4, '0')}`, port: 30080, weight: 100, type: 'ecs' }));
}

/** `pass.small-clb` with the vServer groups' backends as given, the default group's, and the Quota Center value. */
function fixture(groups: BackendServer[][], defaults: BackendServer[] = [], quota?: number) {
  const f = load('pass.small-clb');
  const clb = f.region.loadBalancers![0]!;
  const first = clb.vServerGroups[0]!;
  clb.vServerGroups = groups.map((backendServers, i) => ({ ...first, vServerGroupId: `rsp-${i}`, backendServers }));
  clb.defaultBackendServers = defaults;
  if (quota !== undefined) f.region.quotas = [{ quotaActionCode: CODE, totalQuota: quota }];
  return f;
}

/** The one result of the check on `f`. */
function only(f: { snapshot: FleetSnapshot }, settings: PartialAuditSettings = {}): CheckResult {
  return onlyResult(ID, f.snapshot, settings);
}

describe('CLB_BACKEND_QUOTA', () => {
  it('10 backends in one vServer group pass: the CLB, entries, distinct servers, groups and the share of the default 200', () => {
    const r = only(load('pass.small-clb'));
    expect(r.status).toBe('pass');
    expect(r.resource).toEqual({ kind: 'LoadBalancer', id: 'lb-small', accountId: ACCOUNT, regionId: 'cn-hangzhou', name: 'lb-small' });
    expect(r.message).toBe(
      'CLB lb-small has 10 backend server entries (10 distinct servers) in 1 vServer group and the default group: 5 % of its backend quota 200 (documented default)',
    );
    expect(r.figures).toEqual({ used: 10, limit: 200, ratio: 0.05, distinctServers: 10, vServerGroups: 1, limitSource: 'default' });
  });

  it('sums the default group and every vServer group; a server in several counts once among the distinct servers', () => {
    const r = only(fixture([servers(0, 90), servers(0, 80)], servers(90, 92)));
    expect(r).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(r.figures).toEqual({ used: 172, limit: 200, ratio: 0.86, distinctServers: 92, vServerGroups: 2, limitSource: 'default' });
    expect(r.message).toBe(
      'CLB lb-small has 172 backend server entries (92 distinct servers) in 2 vServer groups and the default group: 86 % of its backend quota 200 (documented default)',
    );
    expect(only(load('fail.shared-clb-cumulative')).figures).toMatchObject({ used: 170, distinctServers: 90, vServerGroups: 2 });
  });

  it('one entry: the singular; a CLB without backends: 0 entries in 0 vServer groups', () => {
    expect(only(fixture([servers(0, 1)])).message).toBe(
      'CLB lb-small has 1 backend server entry (1 distinct server) in 1 vServer group and the default group: 0.5 % of its backend quota 200 (documented default)',
    );
    const empty = only(fixture([]));
    expect(empty.status).toBe('pass');
    expect(empty.figures).toEqual({ used: 0, limit: 200, ratio: 0, distinctServers: 0, vServerGroups: 0, limitSource: 'default' });
    expect(empty.message).toBe(
      'CLB lb-small has 0 backend server entries (0 distinct servers) in 0 vServer groups and the default group: 0 % of its backend quota 200 (documented default)',
    );
  });

  it('grades against the Quota Center value: warning from 80 %, critical from 95 %, or at the configured ratios', () => {
    const lowered = only(load('fail.quota-center-limit'));
    expect(lowered).toMatchObject({ status: 'fail', severity: 'critical', figures: { used: 98, limit: 100, limitSource: 'quota-center' } });
    expect(lowered.message).toBe(
      'CLB lb-q has 98 backend server entries (98 distinct servers) in 1 vServer group and the default group: 98 % of its backend quota 100 (Quota Center)',
    );
    expect(only(fixture([servers(0, 8)], [], 10))).toMatchObject({ status: 'fail', severity: 'warning', figures: { ratio: 0.8 } });
    expect(only(fixture([servers(0, 7)], [], 10)).status).toBe('pass');
    expect(only(fixture([servers(0, 19)], [], 20))).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(only(fixture([servers(0, 18)], [], 20))).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(only(load('pass.quota-center-raised'))).toMatchObject({ status: 'pass', figures: { used: 250, limit: 500, limitSource: 'quota-center' } });
    expect(only(fixture([servers(0, 10)]), { quota: { warningRatio: 0.05, criticalRatio: 0.5 } })).toMatchObject({ status: 'fail', severity: 'warning' });
  });

  it('one result per CLB; a region whose CLBs were not read is skipped, naming the gap and the scan error', () => {
    const f = fixture([servers(0, 3)]);
    const other = structuredClone(f.region.loadBalancers![0]!);
    other.loadBalancerId = 'lb-other';
    other.name = 'lb-other';
    other.vServerGroups = [];
    other.defaultBackendServers = servers(0, 2);
    f.region.loadBalancers!.push(other);
    expect(runCheck(ID, f.snapshot).map((r) => [r.resource.id, r.figures?.used, r.figures?.vServerGroups])).toEqual([
      ['lb-other', 2, 0],
      ['lb-small', 3, 1],
    ]);
    const s = only(load('skipped.slb-not-read'));
    expect(s).toMatchObject({ status: 'skipped', resource: { kind: 'Region', id: 'cn-hangzhou', accountId: ACCOUNT } });
    expect(s.message).toBe('Not evaluated: CLB instances of cn-hangzhou were not read (no permission slb:DescribeLoadBalancers)');
  });

  it('is sampled as the use of slb_quota_backendservers_num (metrics, forecasts, quota plans)', () => {
    expect(QUOTA_CENTER_QUOTA_OF_CHECK.get(ID)).toBe(SLB_QUOTA_BACKEND_SERVERS);
    expect(quotaUsageOf(runCheck(ID, fixture([servers(0, 3)]).snapshot), QUOTA_USAGE_CHECK_IDS)).toEqual([
      expect.objectContaining({ checkId: ID, used: 3, limit: 200 }),
    ]);
  });
});
