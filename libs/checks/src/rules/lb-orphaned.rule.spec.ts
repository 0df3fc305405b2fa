/**
 * LB_ORPHANED: which CCM-created CLBs are orphans, why (`orphanReason`), and what each result says. CCM tags the CLBs it
 * creates with `kubernetes.do.not.delete` = the Service's default LB name ("a" + the UID without dashes) and
 * `ack.aliyun.com` = the cluster, and deletes the CLB when its Service is deleted or changes type (seeds 000/003 "When are
 * SLB instances automatically deleted?"; CCM pkg/controller/service/reconcile/annotation/annotations.go
 * GetDefaultLoadBalancerName). Starts from the fixtures of test/fixtures/LB_ORPHANED: `pass.service-exists` holds
 * LoadBalancer Service `default/web` of cluster c0123… and its CLB `lb-owned` with a vServer group named by CCM.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '@app/domain';
import { nlbFixture as checkFixture, runCheck } from '../../test/nlb-fixture.util';

const ID = 'LB_ORPHANED';
const CLUSTER = 'c0123456789abcdef0123456789abcdef';
const OTHER_CLUSTER = 'cfedcba9876543210fedcba9876543210';
const OWNER = 'a5e4dbfc9c2ae4642b0335607860aef6';
const ACCOUNT = '1234567890123456';

const owned = () => checkFixture(ID, 'pass.service-exists');

/** The one result for CLB `id`. */
function resultOf(results: CheckResult[], id = 'lb-owned'): CheckResult {
  const r = results.filter((x) => x.resource.id === id);
  expect(r).toHaveLength(1);
  return r[0]!;
}

describe('LB_ORPHANED', () => {
  it('the CLB of a live LoadBalancer Service passes, naming the Service and its cluster', () => {
    const r = resultOf(runCheck(ID, owned().snapshot));
    expect(r.status).toBe('pass');
    expect(r.message).toBe(`CLB lb-owned belongs to LoadBalancer Service default/web in cluster ${CLUSTER}`);
    expect(r.figures).toEqual({ ownerTag: OWNER, clusterId: CLUSTER, formerService: `default/web in cluster ${CLUSTER}`, service: 'default/web' });
  });

  it('a Service that is gone: service-gone, naming the tagged cluster and the Service its vServer group names', () => {
    const f = owned();
    f.kubernetes.services = [];
    const r = resultOf(runCheck(ID, f.snapshot));
    expect(r).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(r.message).toBe(
      `CLB lb-owned was created by CCM (kubernetes.do.not.delete=${OWNER}) but no Service with that UID exists in cluster ${CLUSTER} ` +
        `(last served default/web in cluster ${CLUSTER})`,
    );
    expect(r.figures).toEqual({ ownerTag: OWNER, clusterId: CLUSTER, formerService: `default/web in cluster ${CLUSTER}`, orphanReason: 'service-gone' });
  });

  it('without the cluster tag the owner is searched in the clusters of the region; nothing named: no "last served"', () => {
    const f = owned();
    f.kubernetes.services = [];
    const clb = f.region.loadBalancers![0]!;
    delete clb.tags['ack.aliyun.com'];
    clb.vServerGroups[0]!.name = 'my group';
    const r = resultOf(runCheck(ID, f.snapshot));
    expect(r.message).toBe(`CLB lb-owned was created by CCM (kubernetes.do.not.delete=${OWNER}) but no Service with that UID exists in the clusters of cn-hangzhou`);
    expect(r.figures).toEqual({ ownerTag: OWNER, orphanReason: 'service-gone' });
  });

  it('a listener description names the former Service when no vServer group does; a vServer group comes first', () => {
    const f = owned();
    f.kubernetes.services = [];
    const clb = f.region.loadBalancers![0]!;
    clb.vServerGroups[0]!.name = 'my group';
    clb.listeners = [{ port: 443, protocol: 'tcp', description: `k8s/443/api/shop/${CLUSTER}` }];
    expect(resultOf(runCheck(ID, f.snapshot)).figures).toMatchObject({ formerService: `shop/api in cluster ${CLUSTER}` });
    clb.vServerGroups[0]!.name = `k8s/30080/web/default/${CLUSTER}`;
    expect(resultOf(runCheck(ID, f.snapshot)).figures).toMatchObject({ formerService: `default/web in cluster ${CLUSTER}` });
    clb.vServerGroups[0]!.name = 'my group';
    clb.listeners[0]!.description = 'my listener';
    expect(resultOf(runCheck(ID, f.snapshot)).figures).toEqual({ ownerTag: OWNER, clusterId: CLUSTER, orphanReason: 'service-gone' });
  });

  it('without the cluster tag, a Service of the same default name in another account or region is not the owner', () => {
    for (const move of ['account', 'region'] as const) {
      const f = owned();
      const clb = f.region.loadBalancers![0]!;
      delete clb.tags['ack.aliyun.com'];
      // The Service's cluster moves to another account (or region); the CLB stays in the first one, now with no cluster.
      const account = f.snapshot.accounts[0]!;
      const moved = structuredClone(f.region);
      moved.loadBalancers = [];
      if (move === 'region') {
        moved.regionId = 'cn-beijing';
        for (const c of moved.clusters) c.regionId = 'cn-beijing';
        account.regions.push(moved);
      } else {
        const other = structuredClone(account);
        other.accountId = '6543210987654321';
        for (const c of moved.clusters) c.accountId = other.accountId;
        moved.accountId = other.accountId;
        other.regions = [moved];
        f.snapshot.accounts.push(other);
      }
      f.region.clusters = [];
      const r = resultOf(runCheck(ID, f.snapshot));
      expect([move, r.status, r.figures?.orphanReason]).toEqual([move, 'fail', 'service-gone']);
    }
  });

  it('with the cluster tag, a Service of the same default name in another cluster of the region is not the owner', () => {
    const f = owned();
    const other = structuredClone(f.cluster);
    other.clusterId = OTHER_CLUSTER;
    other.name = 'other';
    f.region.clusters.push(other);
    f.kubernetes.services = [];
    const r = resultOf(runCheck(ID, f.snapshot));
    expect([r.status, r.figures?.orphanReason]).toEqual(['fail', 'service-gone']);
  });

  it('a tagged cluster that is gone: cluster-gone, with the Service it last served', () => {
    const f = checkFixture(ID, 'fail.cluster-gone');
    const r = resultOf(runCheck(ID, f.snapshot), 'lb-gone');
    expect(r.status).toBe('fail');
    expect(r.message).toBe(`CLB lb-gone was created by CCM for cluster ${OTHER_CLUSTER}, which no longer exists (last served default/web in cluster ${OTHER_CLUSTER})`);
    expect(r.figures).toMatchObject({ ownerTag: OWNER, clusterId: OTHER_CLUSTER, orphanReason: 'cluster-gone' });
    const named = owned();
    named.region.loadBalancers![0]!.tags['ack.aliyun.com'] = OTHER_CLUSTER;
    named.snapshot.coverage = [{ accountId: ACCOUNT, regionId: 'cn-hangzhou', api: 'cs', status: 'ok' }] as typeof named.snapshot.coverage;
    const n = resultOf(runCheck(ID, named.snapshot));
    expect(n.message).toBe(`CLB lb-owned was created by CCM for cluster ${OTHER_CLUSTER}, which no longer exists (last served default/web in cluster ${CLUSTER})`);
    expect(n.figures).toEqual({ ownerTag: OWNER, clusterId: OTHER_CLUSTER, formerService: `default/web in cluster ${CLUSTER}`, orphanReason: 'cluster-gone' });
    named.region.loadBalancers![0]!.vServerGroups[0]!.name = 'my group';
    expect(resultOf(runCheck(ID, named.snapshot)).message).toBe(`CLB lb-owned was created by CCM for cluster ${OTHER_CLUSTER}, which no longer exists`);
  });

  it('a Service that changed type: service-not-loadbalancer, with its type', () => {
    const f = owned();
    f.kubernetes.services[0]!.type = 'NodePort';
    const r = resultOf(runCheck(ID, f.snapshot));
    expect(r.status).toBe('fail');
    expect(r.message).toBe('CLB lb-owned was created by CCM for Service default/web, which is now type NodePort');
    expect(r.figures).toEqual({
      ownerTag: OWNER,
      clusterId: CLUSTER,
      formerService: `default/web in cluster ${CLUSTER}`,
      orphanReason: 'service-not-loadbalancer',
      service: 'default/web',
    });
  });

  it('the API server CLB is never an orphan, tagged or not; CLBs without the CCM tag are not judged', () => {
    const results = runCheck(ID, checkFixture(ID, 'pass.apiserver-and-console').snapshot);
    const api = resultOf(results, 'lb-apiserver');
    expect([api.status, api.message]).toEqual(['pass', `CLB lb-apiserver is the API server CLB of cluster ${CLUSTER}: never an orphan`]);
    expect(results.filter((r) => r.resource.id === 'lb-console' || r.resource.id === 'lb-reused')).toEqual([]);
  });

  it('cannot tell when the tagged cluster was not read, or when the cluster list was not read', () => {
    const k = resultOf(runCheck(ID, checkFixture(ID, 'skipped.kubernetes-not-read').snapshot), 'lb-x');
    expect(k.status).toBe('skipped');
    expect(k.message).toBe(`Not evaluated: Kubernetes objects of cluster ${CLUSTER} were not read`);
    expect(k.figures).toMatchObject({ ownerTag: OWNER, clusterId: CLUSTER });
    const list = owned();
    list.region.loadBalancers![0]!.tags['ack.aliyun.com'] = OTHER_CLUSTER;
    list.snapshot.coverage = [{ accountId: ACCOUNT, regionId: 'cn-hangzhou', api: 'cs', status: 'failed', errorCode: 'Throttling.User', message: 'Request was denied due to user flow control.' }] as typeof list.snapshot.coverage;
    const l = resultOf(runCheck(ID, list.snapshot));
    expect(l.status).toBe('skipped');
    expect(l.message).toBe('Not evaluated: the cluster list of cn-hangzhou was not read (Request was denied due to user flow control.)');
    const failed = checkFixture(ID, 'skipped.kubernetes-not-read');
    failed.snapshot.coverage = [
      { accountId: ACCOUNT, regionId: 'cn-hangzhou', clusterId: CLUSTER, api: 'kubernetes', status: 'failed', errorCode: 'Forbidden', message: 'the kubeconfig was refused' },
    ] as typeof failed.snapshot.coverage;
    expect(resultOf(runCheck(ID, failed.snapshot), 'lb-x').message).toBe(
      `Not evaluated: Kubernetes objects of cluster ${CLUSTER} were not read (the kubeconfig was refused)`,
    );
    const region = resultOf(runCheck(ID, checkFixture(ID, 'skipped.region-not-fully-read').snapshot), 'lb-old');
    expect(region.status).toBe('skipped');
    expect(region.message).toBe(
      'Not evaluated: cannot search every cluster for the owner of a0b6a2c1e7d3f4e2a9c4b1a2b3c4d5e6: Kubernetes objects of clusters cfedcba9876543210fedcba9876543210 were not read',
    );
    expect(region.figures).toEqual({ ownerTag: 'a0b6a2c1e7d3f4e2a9c4b1a2b3c4d5e6' });
  });
});
