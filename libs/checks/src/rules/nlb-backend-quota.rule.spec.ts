/**
 * NLB_BACKEND_QUOTA: the backend entries of each NLB, summed over its server groups (one per listener: CCM
 * pkg/controller/service/nlbv2/server_groups.go) and so over every Service sharing it, against
 * `nlb_quota_loadbalancer_noeci_servers_num` (Quota Center value of the region, else the documented default 400; NLB
 * "NLB quotas", docs/sources.md#nlb-quotas). Whether the quota counts entries or distinct servers is not documented
 * (research/nlb.md 5): entries are graded, distinct servers (by type and id) reported beside them. Starts from the
 * fixture test/fixtures/NLB_BACKEND_QUOTA/pass.small-nlb: NLB nlb-web0000000000000001 with one server group
 * sgp-web00000000000001 of two ECS nodes.
 */
import { describe, expect, it } from 'vitest';
import { NLB_QUOTA_BACKEND_SERVERS, quotaUsageOf, type CheckResult, type NlbServer } from '@app/domain';
import { nlbFixture, runCheck } from '../../test/nlb-fixture.util';
import type { PartialAuditSettings } from '../audit-settings.types';
import { QUOTA_CENTER_QUOTA_OF_CHECK, QUOTA_USAGE_CHECK_IDS } from '../check.registry';
import { distinctServers } from './nlb-backend-quota.rule';

const ID = 'NLB_BACKEND_QUOTA';
const ACCOUNT = '1234567890123456';
const NLB = 'nlb-web0000000000000001';
const CODE = 'nlb_quota_loadbalancer_noeci_servers_num';

/** A server of type `type` with id `serverId` on port 30080. */
function server(serverId: string, type: NlbServer['type'] = 'Ecs'): NlbServer {
  return { serverId, type, port: 30080, weight: 100 };
}

/** ECS servers `i-<from>` .. `i-<to - 1>` (ids zero-padded, so in id order). */
function nodes(from: number, to: number): NlbServer[] {
  return Array.from({ length: to - from }, (_, i) => server(`i-${String(from + i).padStart(4, '0')}`));
}

/**
 * `pass.small-nlb` with one server group per list of `groups`, all used by its NLB (or by the NLBs `nlbOf` names, per
 * group), and the Quota Center value of the quota, when given.
 */
function fixture(groups: NlbServer[][], quota?: number, nlbOf: (i: number) => string = () => NLB) {
  const f = nlbFixture(ID, 'pass.small-nlb');
  const first = f.region.nlbServerGroups![0]!;
  f.region.nlbServerGroups = groups.map((servers, i) => ({ ...first, serverGroupId: `sgp-${i}`, servers, relatedLoadBalancerIds: [nlbOf(i)] }));
  const nlb = f.region.nlbs![0]!;
  const ids = new Set(groups.map((_, i) => nlbOf(i)));
  f.region.nlbs = [...ids].map((id) => ({ ...nlb, loadBalancerId: id, serverGroupIds: groups.flatMap((_, i) => (nlbOf(i) === id ? [`sgp-${i}`] : [])) }));
  if (quota !== undefined) f.region.quotas = [{ quotaActionCode: CODE, totalQuota: quota }];
  return f;
}

/** The one result of the check for NLB `id`. */
function resultOf(f: ReturnType<typeof fixture>, id = NLB, settings: PartialAuditSettings = {}): CheckResult {
  const rs = runCheck(ID, f.snapshot, settings).filter((r) => r.resource.id === id);
  expect(rs).toHaveLength(1);
  return rs[0]!;
}

describe('NLB_BACKEND_QUOTA', () => {
  it('one group of two servers passes: the NLB, entries, distinct servers, groups and the share of the default 400', () => {
    const r = resultOf(nlbFixture(ID, 'pass.small-nlb'));
    expect(r.status).toBe('pass');
    expect(r.resource).toMatchObject({ kind: 'NetworkLoadBalancer', id: NLB, accountId: ACCOUNT, regionId: 'cn-hangzhou' });
    expect(r.message).toBe(`NLB ${NLB} has 2 backend entries (2 distinct servers) in 1 server group: 0.5 % of ${CODE} 400 (documented default)`);
    expect(r.figures).toEqual({ used: 2, limit: 400, ratio: 0.005, limitSource: 'default', quota: CODE, distinctServers: 2, serverGroups: 1 });
  });

  it('two ports of a 170-node Cluster-mode Service: 340 entries of 170 distinct servers, a warning at 85 %', () => {
    const r = resultOf(nlbFixture(ID, 'fail.two-ports-of-170-nodes'));
    expect(r).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(r.message).toBe(`NLB ${NLB} has 340 backend entries (170 distinct servers) in 2 server groups: 85 % of ${CODE} 400 (documented default)`);
  });

  it('grades the entries against the Quota Center value: warning from 80 %, critical from 95 %, or at the configured ratios', () => {
    const r = resultOf(fixture([nodes(0, 4), nodes(0, 4)], 10));
    expect(r).toMatchObject({ status: 'fail', severity: 'warning', figures: { used: 8, limit: 10, ratio: 0.8, distinctServers: 4, serverGroups: 2 } });
    expect(r.message).toBe(`NLB ${NLB} has 8 backend entries (4 distinct servers) in 2 server groups: 80 % of ${CODE} 10 (Quota Center)`);
    expect(resultOf(fixture([nodes(0, 7)], 10)).status).toBe('pass');
    expect(resultOf(fixture([nodes(0, 19)], 20))).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(resultOf(fixture([nodes(0, 18)], 20))).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(resultOf(fixture([nodes(0, 2)]), NLB, { quota: { warningRatio: 0.005, criticalRatio: 0.5 } })).toMatchObject({ status: 'fail' });
  });

  it('one entry: the singular; an NLB without servers: 0 of each, its empty groups counted', () => {
    expect(resultOf(fixture([nodes(0, 1)])).message).toBe(
      `NLB ${NLB} has 1 backend entry (1 distinct server) in 1 server group: 0.3 % of ${CODE} 400 (documented default)`,
    );
    const empty = resultOf(fixture([[], []]));
    expect(empty.figures).toMatchObject({ used: 0, distinctServers: 0, serverGroups: 2 });
    expect(empty.message).toBe(`NLB ${NLB} has 0 backend entries (0 distinct servers) in 2 server groups: 0 % of ${CODE} 400 (documented default)`);
    const none = fixture([[]]);
    none.region.nlbs![0]!.serverGroupIds = [];
    expect(resultOf(none).figures).toMatchObject({ used: 0, distinctServers: 0, serverGroups: 0 });
  });

  it('distinct servers over groups listing different nodes, and beside an empty group', () => {
    expect(resultOf(fixture([nodes(0, 3), nodes(1, 5)])).figures).toMatchObject({ used: 7, distinctServers: 5 });
    expect(resultOf(fixture([[], nodes(0, 3), [], nodes(0, 3)])).figures).toMatchObject({ used: 6, distinctServers: 3, serverGroups: 4 });
    // The same nodes in another order are the same servers.
    expect(resultOf(fixture([nodes(0, 3), nodes(0, 3).reverse()])).figures).toMatchObject({ used: 6, distinctServers: 3 });
  });

  it('within one group, a server listed twice counts once, in any order; an ENI or IP is not the ECS of the same id', () => {
    const [a, b] = [server('i-a'), server('i-b')];
    expect(resultOf(fixture([[a, a, b]])).figures).toMatchObject({ used: 3, distinctServers: 2 });
    expect(resultOf(fixture([[b, a, b]])).figures).toMatchObject({ used: 3, distinctServers: 2 });
    expect(resultOf(fixture([[a, server('i-a', 'Eni')]])).figures).toMatchObject({ distinctServers: 2 });
    expect(resultOf(fixture([[server('10.0.0.1', 'Ip'), server('10.0.0.1', 'Ip'), server('10.0.0.2', 'Ip')]])).figures).toMatchObject({ distinctServers: 2 });
    // A group of IP servers (ENI mode): one server is one distinct server.
    expect(resultOf(fixture([[server('10.0.0.1', 'Ip')]])).figures).toMatchObject({ used: 1, distinctServers: 1 });
  });

  it('each NLB counts its own groups; NLBs whose groups list the same nodes each get the count', () => {
    const f = fixture([nodes(0, 3), nodes(0, 3), nodes(0, 2), nodes(0, 3)], undefined, (i) => (i < 2 ? NLB : i === 2 ? 'nlb-two' : 'nlb-three'));
    expect(resultOf(f).figures).toMatchObject({ used: 6, distinctServers: 3, serverGroups: 2 });
    expect(resultOf(f, 'nlb-two').figures).toMatchObject({ used: 2, distinctServers: 2, serverGroups: 1 });
    expect(resultOf(f, 'nlb-three').figures).toMatchObject({ used: 3, distinctServers: 3, serverGroups: 1 });
  });

  it('a region with no NLB has no result; one whose NLB data was not read is skipped, naming the gap', () => {
    const f = fixture([nodes(0, 2)]);
    f.region.nlbs = [];
    expect(runCheck(ID, f.snapshot)).toEqual([]);
    const s = runCheck(ID, nlbFixture(ID, 'skipped.nlb-not-read').snapshot);
    expect(s).toHaveLength(1);
    expect(s[0]).toMatchObject({ status: 'skipped', resource: { kind: 'Region', id: 'cn-hangzhou' } });
    expect(s[0]!.message).toMatch(/^Not evaluated: NLB instances and server groups of cn-hangzhou were not read \(/);
  });

  it('is sampled as the use of nlb_quota_loadbalancer_noeci_servers_num (metrics, forecasts, quota plans)', () => {
    expect(QUOTA_CENTER_QUOTA_OF_CHECK.get(ID)).toBe(NLB_QUOTA_BACKEND_SERVERS);
    expect(quotaUsageOf(runCheck(ID, fixture([nodes(0, 3)]).snapshot), QUOTA_USAGE_CHECK_IDS)).toEqual([
      expect.objectContaining({ checkId: ID, used: 3, limit: 400 }),
    ]);
  });

  it('distinctServers: distinct (type, id) pairs over the given groups, whatever the order', () => {
    const group = (servers: NlbServer[]) => ({ serverGroupId: 'sgp', name: 'g', type: 'Instance' as const, relatedLoadBalancerIds: [], tags: {}, servers });
    expect(distinctServers([group([])])).toBe(0);
    expect(distinctServers([])).toBe(0);
    expect(distinctServers([group([server('i-a'), server('i-a'), server('i-b')])])).toBe(2);
    expect(distinctServers([group([server('i-b'), server('i-a')])])).toBe(2);
    expect(distinctServers([group([server('x', 'Eni'), server('x', 'Ip'), server('x')])])).toBe(3);
    expect(distinctServers([group([server('x', 'Eni'), server('x')])])).toBe(2);
    expect(distinctServers([group([server('x', 'Eni'), server('y')])])).toBe(2);
    expect(distinctServers([group([server('x', 'Eni')])])).toBe(1);
    expect(distinctServers([group([server('i-a')]), group([server('i-a'), server('i-b')])])).toBe(2);
  });
});
