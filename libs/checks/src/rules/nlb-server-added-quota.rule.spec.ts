/**
 * NLB_SERVER_ADDED_QUOTA: for each backend server of a region's NLB server groups (ECS instance, ENI or IP; IP entries
 * count too), the server groups it is in against `nlb_quota_server_added_num` (Quota Center value of the region, else
 * the documented default 200; NLB "NLB quotas", docs/sources.md#nlb-quotas). Cluster mode adds every eligible node to
 * the group of every port of every Cluster-mode NLB Service (seed 004 "Load balancing update policies": it "quickly
 * consumes the quota"). One result per server, in resource order (ECS instances, then the other servers, each by id).
 * Starts from the fixture test/fixtures/NLB_SERVER_ADDED_QUOTA/pass.two-groups: one server group holding nodes
 * i-bp1node000000000001 and i-bp1node000000000002.
 */
import { describe, expect, it } from 'vitest';
import { NLB_QUOTA_SERVER_ADDED, quotaUsageOf, type CheckResult, type NlbServer } from '@app/domain';
import { nlbFixture, runCheck } from '../../test/nlb-fixture.util';
import type { PartialAuditSettings } from '../audit-settings.types';
import { QUOTA_CENTER_QUOTA_OF_CHECK, QUOTA_USAGE_CHECK_IDS } from '../check.registry';

const ID = 'NLB_SERVER_ADDED_QUOTA';
const ACCOUNT = '1234567890123456';
const NODE1 = 'i-bp1node000000000001';
const NODE2 = 'i-bp1node000000000002';
const CODE = 'nlb_quota_server_added_num';

/** A server of type `type` with id `serverId` on port 30080. */
function server(serverId: string, type: NlbServer['type'] = 'Ecs'): NlbServer {
  return { serverId, type, port: 30080, weight: 100 };
}

/** The fixture with one server group per list of `groups` and the Quota Center value of the quota, when given. */
function fixture(groups: NlbServer[][], quota?: number) {
  const f = nlbFixture(ID, 'pass.two-groups');
  const first = f.region.nlbServerGroups![0]!;
  f.region.nlbServerGroups = groups.map((servers, i) => ({ ...first, serverGroupId: `sgp-${i}`, servers, serverCount: servers.length }));
  if (quota !== undefined) f.region.quotas = [{ quotaActionCode: CODE, totalQuota: quota }];
  return f;
}

/** `n` groups each holding `servers`. */
function times(n: number, servers: NlbServer[]): NlbServer[][] {
  return Array.from({ length: n }, () => servers);
}

/** The results of the check on `f`. */
function results(f: ReturnType<typeof fixture>, settings: PartialAuditSettings = {}): CheckResult[] {
  return runCheck(ID, f.snapshot, settings);
}

describe('NLB_SERVER_ADDED_QUOTA', () => {
  it('each node in one group passes: one result per server, naming its type, id and the share of the default 200', () => {
    const rs = results(nlbFixture(ID, 'pass.two-groups'));
    expect(rs.map((r) => r.status)).toEqual(['pass', 'pass']);
    expect(rs[0]!.resource).toEqual({ kind: 'EcsInstance', id: NODE1, accountId: ACCOUNT, regionId: 'cn-hangzhou' });
    expect(rs[0]!.message).toBe(`Ecs server ${NODE1} is in 1 NLB server group: 0.5 % of ${CODE} 200 (documented default)`);
    expect(rs[0]!.figures).toEqual({ used: 1, limit: 200, ratio: 0.005, limitSource: 'default', quota: CODE, serverType: 'Ecs' });
    expect(rs[1]!.resource.id).toBe(NODE2);
  });

  it('a node in 165 groups is a warning (82.5 %), counted in the plural', () => {
    const rs = results(nlbFixture(ID, 'fail.node-in-165-groups'));
    const r = rs.find((x) => x.resource.id === NODE1)!;
    expect(r).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(r.message).toBe(`Ecs server ${NODE1} is in 165 NLB server groups: 82.5 % of ${CODE} 200 (documented default)`);
  });

  it('counts the groups holding each server; warning from 80 %, critical from 95 % of the quota', () => {
    const f = fixture([...times(8, [server(NODE1)]), ...times(2, [server(NODE1), server(NODE2)])], 10);
    const rs = results(f);
    expect(rs.map((r) => [r.resource.id, r.figures?.used, r.status, r.severity])).toEqual([
      [NODE1, 10, 'fail', 'critical'],
      [NODE2, 2, 'pass', 'warning'],
    ]);
    expect(rs[0]!.message).toBe(`Ecs server ${NODE1} is in 10 NLB server groups: 100 % of ${CODE} 10 (Quota Center)`);
    expect(results(fixture(times(8, [server(NODE1)]), 10))[0]).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(results(fixture(times(7, [server(NODE1)]), 10))[0]!.status).toBe('pass');
    expect(results(fixture(times(19, [server(NODE1)]), 20))[0]).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(results(fixture(times(18, [server(NODE1)]), 20))[0]).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(results(fixture(times(2, [server(NODE1)])), { quota: { warningRatio: 0.01, criticalRatio: 0.5 } })[0]).toMatchObject({ status: 'fail' });
  });

  it('ENI and IP servers count too, as NlbServer resources after the ECS instances, each kind by id', () => {
    const f = fixture([
      [server('i-b'), server('10.0.0.9', 'Ip'), server('eni-b', 'Eni')],
      [server('i-a'), server('10.0.0.9', 'Ip'), server('eni-a', 'Eni'), server('i-b')],
    ]);
    const rs = results(f);
    expect(rs.map((r) => [r.resource.kind, r.resource.id, r.figures?.used, r.figures?.serverType])).toEqual([
      ['EcsInstance', 'i-a', 1, 'Ecs'],
      ['EcsInstance', 'i-b', 2, 'Ecs'],
      ['NlbServer', '10.0.0.9', 2, 'Ip'],
      ['NlbServer', 'eni-a', 1, 'Eni'],
      ['NlbServer', 'eni-b', 1, 'Eni'],
    ]);
    expect(rs[2]!.resource).toEqual({ kind: 'NlbServer', id: '10.0.0.9', accountId: ACCOUNT, regionId: 'cn-hangzhou' });
    expect(rs[2]!.message).toBe(`Ip server 10.0.0.9 is in 2 NLB server groups: 1 % of ${CODE} 200 (documented default)`);
  });

  it('an ENI and an IP server of the same id are two servers, listed in the order the groups first hold them', () => {
    for (const [a, b] of [
      ['Eni', 'Ip'],
      ['Ip', 'Eni'],
    ] as const) {
      const rs = results(fixture([[server('x', a), server('x', b)], [server('x', b)]]));
      expect(rs.map((r) => [r.resource.id, r.figures?.serverType, r.figures?.used])).toEqual([
        ['x', a, 1],
        ['x', b, 2],
      ]);
    }
  });

  it('no server: no result; a region whose NLB data was not read is skipped, naming the gap', () => {
    expect(results(fixture([[]]))).toEqual([]);
    const s = results(nlbFixture(ID, 'skipped.nlb-not-read'));
    expect(s).toHaveLength(1);
    expect(s[0]).toMatchObject({ status: 'skipped', resource: { kind: 'Region', id: 'cn-hangzhou' } });
    expect(s[0]!.message).toMatch(/^Not evaluated: NLB instances and server groups of cn-hangzhou were not read \(/);
  });

  it('is sampled as the use of nlb_quota_server_added_num (metrics, forecasts, quota plans)', () => {
    expect(QUOTA_CENTER_QUOTA_OF_CHECK.get(ID)).toBe(NLB_QUOTA_SERVER_ADDED);
    expect(quotaUsageOf(results(fixture(times(3, [server(NODE1)]))), QUOTA_USAGE_CHECK_IDS)).toEqual([
      expect.objectContaining({ checkId: ID, used: 3, limit: 200 }),
    ]);
  });
});
