/**
 * NLB_SERVER_GROUP_ORPHANED: which server groups are left behind, and why (`orphanReason`). CCM finds the groups of a
 * Service by its two tags (pkg/controller/service/nlbv2/server_groups.go `getServerGroupTag`, `ListNLBServerGroups`,
 * tag v2.14.0: `kubernetes.do.not.delete` = the Service's default LB name, `ack.aliyun.com` = the cluster), and a
 * group CCM does not find is one it never deletes. Starts from the fixture `fail.leaked-by-ccm-before-v2-12-4`: NLB
 * Service `default/web` of cluster c0123…, its group `sgp-web…` used by its NLB, and a leaked tagged group
 * `sgp-leak…` of a deleted Service.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult, NlbServerGroup } from '@app/domain';
import { nlbFixture, runCheck } from '../../test/nlb-fixture.util';

const ID = 'NLB_SERVER_GROUP_ORPHANED';
const CLUSTER = 'c0123456789abcdef0123456789abcdef';
const WEB_OWNER = 'a5e4dbfc9c2ae4642b0335607860aef6';

/** The fixture, its leaked group replaced by `groups`. */
function fixture(...groups: NlbServerGroup[]) {
  const f = nlbFixture(ID, 'fail.leaked-by-ccm-before-v2-12-4');
  f.region.nlbServerGroups = [f.region.nlbServerGroups![0]!, ...groups];
  return f;
}

/** A server group no NLB uses, named `name`, with these tags and two servers. */
function group(id: string, name: string, tags: Record<string, string>, over: Partial<NlbServerGroup> = {}): NlbServerGroup {
  return {
    serverGroupId: id,
    name,
    type: 'Instance',
    relatedLoadBalancerIds: [],
    tags,
    servers: [
      { serverId: 'i-1', type: 'Ecs', port: 31000, weight: 100 },
      { serverId: 'i-2', type: 'Ecs', port: 31000, weight: 100 },
    ],
    ...over,
  };
}

/** The one result for a server group. */
function resultFor(results: CheckResult[], id: string): CheckResult {
  const r = results.filter((x) => x.resource.id === id);
  expect(r).toHaveLength(1);
  return r[0]!;
}

const tagged = (owner: string, cluster = CLUSTER) => ({ 'kubernetes.do.not.delete': owner, 'ack.aliyun.com': cluster });

describe('NLB_SERVER_GROUP_ORPHANED', () => {
  it('a tagged group whose Service is gone: service-gone, with the figures and the slot it holds', () => {
    const f = fixture(group('sgp-gone', `k8s.31000.TCP.gone.default.${CLUSTER}`, tagged('a0b6a2c1e7d3f4e2a9c4b1a2b3c4d5e6')));
    const r = resultFor(runCheck(ID, f.snapshot), 'sgp-gone');
    expect(r).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(r.figures).toEqual({
      serverGroupName: `k8s.31000.TCP.gone.default.${CLUSTER}`,
      servers: 2,
      usedByNlb: false,
      ownerTag: 'a0b6a2c1e7d3f4e2a9c4b1a2b3c4d5e6',
      orphanReason: 'service-gone',
    });
    expect(r.message).toBe(
      `NLB server group sgp-gone (named for default/gone in cluster ${CLUSTER}) was created by CCM ` +
        '(kubernetes.do.not.delete=a0b6a2c1e7d3f4e2a9c4b1a2b3c4d5e6) but no Service with that UID exists; no NLB uses it: ' +
        'it holds one of the cn-hangzhou server-group slots',
    );
  });

  it('a tagged group whose cluster is gone: cluster-gone', () => {
    const f = fixture(group('sgp-c', `k8s.31000.TCP.gone.default.c-deleted`, tagged('a0b6a2c1e7d3f4e2a9c4b1a2b3c4d5e6', 'c-deleted')));
    const r = resultFor(runCheck(ID, f.snapshot), 'sgp-c');
    expect(r.status).toBe('fail');
    expect(r.figures).toMatchObject({ orphanReason: 'cluster-gone', usedByNlb: false });
    expect(r.message).toContain('but its cluster no longer exists; no NLB uses it');
  });

  it('a tagged group whose Service is no longer an NLB Service: service-not-nlb', () => {
    const f = fixture(group('sgp-w2', `k8s.31000.TCP.web.default.${CLUSTER}`, tagged(WEB_OWNER)));
    delete f.kubernetes.services[0]!.loadBalancerClass;
    const r = resultFor(runCheck(ID, f.snapshot), 'sgp-w2');
    expect(r.status).toBe('fail');
    expect(r.figures).toMatchObject({ orphanReason: 'service-not-nlb' });
    expect(r.message).toContain('but Service default/web is no longer an NLB LoadBalancer Service');
  });

  it('a tagged group related to an NLB but used by no listener counts as used: the message does not say "no NLB uses it"', () => {
    const f = fixture(
      group('sgp-rel', `k8s.31000.TCP.gone.default.${CLUSTER}`, tagged('a0b6a2c1e7d3f4e2a9c4b1a2b3c4d5e6'), {
        relatedLoadBalancerIds: ['nlb-web0000000000000001'],
      }),
    );
    const r = resultFor(runCheck(ID, f.snapshot), 'sgp-rel');
    expect(r.status).toBe('fail');
    expect(r.figures).toMatchObject({ usedByNlb: true, orphanReason: 'service-gone' });
    expect(r.message).toBe(
      `NLB server group sgp-rel (named for default/gone in cluster ${CLUSTER}) was created by CCM ` +
        '(kubernetes.do.not.delete=a0b6a2c1e7d3f4e2a9c4b1a2b3c4d5e6) but no Service with that UID exists: ' +
        'it holds one of the cn-hangzhou server-group slots',
    );
  });

  it('a tagged group is searched in the cluster its tag names, not the one its name gives', () => {
    const f = fixture(group('sgp-tc', 'k8s.31000.TCP.web.default.c-other', tagged(WEB_OWNER)));
    expect(resultFor(runCheck(ID, f.snapshot), 'sgp-tc').status).toBe('pass');
  });

  it('a group with the owner tag only and a name CCM did not give is searched in the clusters of its region', () => {
    const live = fixture(group('sgp-o1', 'my-group', { 'kubernetes.do.not.delete': WEB_OWNER }));
    expect(resultFor(runCheck(ID, live.snapshot), 'sgp-o1').status).toBe('pass');
    const gone = fixture(group('sgp-o2', 'my-group', tagged('a0b6a2c1e7d3f4e2a9c4b1a2b3c4d5e6')));
    const r = resultFor(runCheck(ID, gone.snapshot), 'sgp-o2');
    expect(r.figures).toMatchObject({ orphanReason: 'service-gone' });
    expect(r.message).toBe(
      'NLB server group sgp-o2 was created by CCM (kubernetes.do.not.delete=a0b6a2c1e7d3f4e2a9c4b1a2b3c4d5e6) but no Service ' +
        'with that UID exists; no NLB uses it: it holds one of the cn-hangzhou server-group slots',
    );
  });

  it('a tagged group a listener forwards to counts as used even without RelatedLoadBalancerIds', () => {
    const f = fixture(group('sgp-lsn', `k8s.31000.TCP.gone.default.${CLUSTER}`, tagged('a0b6a2c1e7d3f4e2a9c4b1a2b3c4d5e6')));
    f.region.nlbs![0]!.listeners.push({ listenerId: 'lsn-2', protocol: 'TCP', port: 81, serverGroupId: 'sgp-lsn' });
    expect(resultFor(runCheck(ID, f.snapshot), 'sgp-lsn').figures).toMatchObject({ usedByNlb: true });
  });

  it("the group of a live NLB Service passes, naming it", () => {
    const r = resultFor(runCheck(ID, fixture().snapshot), 'sgp-web00000000000001');
    expect(r.status).toBe('pass');
    expect(r.message).toBe('NLB server group sgp-web00000000000001 belongs to NLB Service default/web');
    expect(r.figures).toMatchObject({ usedByNlb: true, ownerTag: WEB_OWNER, servers: 2 });
  });

  it('a tagged group without the cluster tag is matched in the cluster its name gives', () => {
    const f = fixture(group('sgp-nc', `k8s.31000.TCP.web.default.${CLUSTER}`, { 'kubernetes.do.not.delete': WEB_OWNER }));
    expect(resultFor(runCheck(ID, f.snapshot), 'sgp-nc').status).toBe('pass');
  });

  it('an untagged k8s.* group no NLB uses, named for a Service that is gone: untagged-unused', () => {
    const f = fixture(group('sgp-kept', `k8s.31001.TCP.gone.default.${CLUSTER}`, {}));
    const r = resultFor(runCheck(ID, f.snapshot), 'sgp-kept');
    expect(r.status).toBe('fail');
    expect(r.figures).toEqual({ serverGroupName: `k8s.31001.TCP.gone.default.${CLUSTER}`, servers: 2, usedByNlb: false, orphanReason: 'untagged-unused' });
    expect(r.message).toBe(
      `NLB server group sgp-kept (k8s.31001.TCP.gone.default.${CLUSTER}) is named by CCM for Service default/gone in cluster ${CLUSTER}, ` +
        'which is no longer an NLB Service, carries no CCM tag and no NLB uses it (left by preserve-lb-on-delete)',
    );
  });

  it('an untagged k8s.* group of a cluster that is gone says so', () => {
    const f = fixture(group('sgp-kc', 'k8s.31001.TCP.gone.default.c-deleted', {}));
    const r = resultFor(runCheck(ID, f.snapshot), 'sgp-kc');
    expect(r.figures).toMatchObject({ orphanReason: 'untagged-unused' });
    expect(r.message).toContain('in cluster c-deleted, which cluster no longer exists');
  });

  it('an untagged k8s.* group named for a live NLB Service passes; for a Service that is not NLB it fails', () => {
    const live = fixture(group('sgp-k2', `k8s.31001.TCP.web.default.${CLUSTER}`, {}));
    const r = resultFor(runCheck(ID, live.snapshot), 'sgp-k2');
    expect(r.status).toBe('pass');
    expect(r.message).toBe('NLB server group sgp-k2 is named for NLB Service default/web, which exists');
    const clb = fixture(group('sgp-k3', `k8s.31001.TCP.web.default.${CLUSTER}`, {}));
    delete clb.kubernetes.services[0]!.loadBalancerClass;
    expect(resultFor(runCheck(ID, clb.snapshot), 'sgp-k3').figures).toMatchObject({ orphanReason: 'untagged-unused' });
  });

  it('an untagged k8s.* group used by an NLB, or not named by CCM, was not created by CCM: pass', () => {
    const used = fixture(group('sgp-u', `k8s.31001.TCP.gone.default.${CLUSTER}`, {}, { relatedLoadBalancerIds: ['nlb-x'] }));
    const r = resultFor(runCheck(ID, used.snapshot), 'sgp-u');
    expect(r.status).toBe('pass');
    expect(r.message).toBe('NLB server group sgp-u was not created by CCM (no kubernetes.do.not.delete tag, used by an NLB)');
    const mine = fixture(group('sgp-m', 'my-group', {}));
    const m = resultFor(runCheck(ID, mine.snapshot), 'sgp-m');
    expect(m.status).toBe('pass');
    expect(m.message).toBe('NLB server group sgp-m was not created by CCM (no kubernetes.do.not.delete tag)');
  });

  it("an untagged k8s.* group of a cluster whose Kubernetes objects were not read is skipped", () => {
    const f = fixture(group('sgp-s', `k8s.31001.TCP.gone.default.${CLUSTER}`, {}));
    delete f.cluster.kubernetes;
    const r = resultFor(runCheck(ID, f.snapshot), 'sgp-s');
    expect(r.status).toBe('skipped');
    expect(r.reason ?? r.message).toBe(`Kubernetes objects of cluster ${CLUSTER} were not read`);
    expect(r.figures).toMatchObject({ serverGroupName: `k8s.31001.TCP.gone.default.${CLUSTER}`, usedByNlb: false });
  });

  it('a tagged group of a cluster whose Kubernetes objects were not read is skipped', () => {
    const f = fixture(group('sgp-t', `k8s.31000.TCP.gone.default.${CLUSTER}`, tagged('a0b6a2c1e7d3f4e2a9c4b1a2b3c4d5e6')));
    delete f.cluster.kubernetes;
    const r = resultFor(runCheck(ID, f.snapshot), 'sgp-t');
    expect(r.status).toBe('skipped');
    expect(r.figures).toMatchObject({ ownerTag: 'a0b6a2c1e7d3f4e2a9c4b1a2b3c4d5e6' });
  });

  it('a region without server groups passes once for the region', () => {
    const f = fixture();
    f.region.nlbServerGroups = [];
    const results = runCheck(ID, f.snapshot);
    expect(results.map((r) => [r.status, r.message])).toEqual([['pass', 'cn-hangzhou of account 1234567890123456 has no NLB server group']]);
  });
});
