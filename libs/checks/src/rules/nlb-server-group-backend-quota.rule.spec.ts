/**
 * NLB_SERVER_GROUP_BACKEND_QUOTA: the servers of each NLB server group against `nlb_quota_servergroup_noeci_servers_num`
 * (Quota Center value of the region, else the documented default 400; NLB "NLB quotas", docs/sources.md#nlb-quotas).
 * CCM puts every eligible node in the group of a Cluster-mode Service port (pkg/controller/service/nlbv2/server_groups.go
 * buildClusterBackends). The count is the listed servers (ListServerGroupServers), or the group's `ServerCount` when it
 * reports more. Starts from the fixture test/fixtures/NLB_SERVER_GROUP_BACKEND_QUOTA/pass.small-group: server group
 * sgp-web00000000000001 (named by CCM) holding the two nodes of a Cluster-mode Service.
 */
import { describe, expect, it } from 'vitest';
import { NLB_QUOTA_SERVER_GROUP_SERVERS, quotaUsageOf, type CheckResult } from '@app/domain';
import { nlbFixture, onlyResult, runCheck } from '../../test/nlb-fixture.util';
import { QUOTA_CENTER_QUOTA_OF_CHECK, QUOTA_USAGE_CHECK_IDS } from '../check.registry';

const ID = 'NLB_SERVER_GROUP_BACKEND_QUOTA';
const ACCOUNT = '1234567890123456';
const GROUP = 'sgp-web00000000000001';
const NAME = 'k8s.30080.TCP.web.default.c0123456789abcdef0123456789abcdef';
const CODE = 'nlb_quota_servergroup_noeci_servers_num';

/** The fixture with `n` servers listed in its group (copies of the first), `serverCount` as given, and the quota, when given. */
function fixture(n = 2, serverCount?: number, quota?: number) {
  const f = nlbFixture(ID, 'pass.small-group');
  const g = f.region.nlbServerGroups![0]!;
  const first = g.servers[0]!;
  g.servers = Array.from({ length: n }, (_, i) => ({ ...first, serverId: `i-node${String(i).padStart(4, '0')}` }));
  if (serverCount === undefined) delete g.serverCount;
  else g.serverCount = serverCount;
  if (quota !== undefined) f.region.quotas = [{ quotaActionCode: CODE, totalQuota: quota }];
  return f;
}

/** The one result of the check on `f`. */
function only(f: ReturnType<typeof fixture>): CheckResult {
  return onlyResult(ID, f.snapshot);
}

describe('NLB_SERVER_GROUP_BACKEND_QUOTA', () => {
  it('a group of two servers passes, naming the group, its name, the count and the share of the default 400', () => {
    const r = only(fixture(2, 2));
    expect(r.status).toBe('pass');
    expect(r.resource).toEqual({ kind: 'NlbServerGroup', id: GROUP, accountId: ACCOUNT, regionId: 'cn-hangzhou', name: NAME });
    expect(r.message).toBe(`NLB server group ${GROUP} (${NAME}) has 2 servers: 0.5 % of ${CODE} 400 (documented default)`);
    expect(r.figures).toEqual({ used: 2, limit: 400, ratio: 0.005, limitSource: 'default', quota: CODE });
  });

  it('390 servers of the default 400 are critical (97.5 %)', () => {
    const r = only(nlbFixture(ID, 'fail.cluster-mode-group-near-400'));
    expect(r).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(r.message).toBe(`NLB server group ${GROUP} (${NAME}) has 390 servers: 97.5 % of ${CODE} 400 (documented default)`);
  });

  it('counts ServerCount when it reports more servers than were listed, else the listed servers', () => {
    expect(only(fixture(2, 330)).figures).toMatchObject({ used: 330, ratio: 0.825 });
    expect(only(fixture(2, 330))).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(only(fixture(3, 1)).figures).toMatchObject({ used: 3 });
    expect(only(fixture(3)).figures).toMatchObject({ used: 3 });
    expect(only(fixture(0)).figures).toMatchObject({ used: 0 });
  });

  it('one server, and an unnamed group: the singular, and "unnamed" in place of the name (no name in the ref)', () => {
    const f = fixture(1);
    f.region.nlbServerGroups![0]!.name = '';
    const r = only(f);
    expect(r.message).toBe(`NLB server group ${GROUP} (unnamed) has 1 server: 0.3 % of ${CODE} 400 (documented default)`);
    expect(r.resource).toEqual({ kind: 'NlbServerGroup', id: GROUP, accountId: ACCOUNT, regionId: 'cn-hangzhou' });
  });

  it('grades against the Quota Center value: warning from 80 %, critical from 95 %', () => {
    expect(only(fixture(8, undefined, 10))).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(only(fixture(7, undefined, 10)).status).toBe('pass');
    expect(only(fixture(19, undefined, 20))).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(only(fixture(8, undefined, 10)).message).toBe(`NLB server group ${GROUP} (${NAME}) has 8 servers: 80 % of ${CODE} 10 (Quota Center)`);
  });

  it('one result per server group of the region, used by an NLB or not; none without groups; skipped where NLBs were not read', () => {
    const f = fixture(2);
    const other = structuredClone(f.region.nlbServerGroups![0]!);
    other.serverGroupId = 'sgp-left';
    other.relatedLoadBalancerIds = [];
    other.servers = [];
    f.region.nlbServerGroups!.push(other);
    const rs = runCheck(ID, f.snapshot);
    expect(rs.map((r) => [r.resource.id, r.figures?.used])).toEqual([
      ['sgp-left', 0],
      [GROUP, 2],
    ]);
    const none = fixture();
    none.region.nlbServerGroups = [];
    expect(runCheck(ID, none.snapshot)).toEqual([]);
    const s = only(nlbFixture(ID, 'skipped.nlb-not-read'));
    expect(s).toMatchObject({ status: 'skipped', resource: { kind: 'Region', id: 'cn-hangzhou' } });
    expect(s.message).toMatch(/^Not evaluated: NLB instances and server groups of cn-hangzhou were not read \(/);
  });

  it('is sampled as the use of nlb_quota_servergroup_noeci_servers_num (metrics, forecasts, quota plans)', () => {
    expect(QUOTA_CENTER_QUOTA_OF_CHECK.get(ID)).toBe(NLB_QUOTA_SERVER_GROUP_SERVERS);
    expect(quotaUsageOf(runCheck(ID, fixture(3).snapshot), QUOTA_USAGE_CHECK_IDS)).toEqual([
      expect.objectContaining({ checkId: ID, used: 3, limit: 400 }),
    ]);
  });
});
