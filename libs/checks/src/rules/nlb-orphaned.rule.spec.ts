/**
 * NLB_ORPHANED: which CCM-created NLBs are orphans, why (`orphanReason`), and what the result says. CCM tags the NLBs it
 * creates with `kubernetes.do.not.delete` = the Service's default LB name and `ack.aliyun.com` = the cluster, and deletes
 * the NLB when its Service goes or stops being an NLB LoadBalancer Service (pkg/controller/service/nlbv2/nlb_controller.go
 * `cleanupLoadBalancerResources`, tag v2.14.0). Starts from the fixture `pass.owned-by-nlb-service`: NLB Service
 * `default/web` of cluster c0123…, its NLB `nlb-web…` with a listener described and a server group named by CCM.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '@app/domain';
import { nlbFixture, runCheck } from '../../test/nlb-fixture.util';

const ID = 'NLB_ORPHANED';
const CLUSTER = 'c0123456789abcdef0123456789abcdef';
const OWNER = 'a5e4dbfc9c2ae4642b0335607860aef6';
const NLB = 'nlb-web0000000000000001';

const fixture = () => nlbFixture(ID, 'pass.owned-by-nlb-service');

/** The one result for the NLB. */
function resultOf(results: CheckResult[]): CheckResult {
  const r = results.filter((x) => x.resource.id === NLB);
  expect(r).toHaveLength(1);
  return r[0]!;
}

describe('NLB_ORPHANED', () => {
  it('the NLB of a live NLB Service passes, naming the Service, with the tags and the Service it last served', () => {
    const r = resultOf(runCheck(ID, fixture().snapshot));
    expect(r.status).toBe('pass');
    expect(r.message).toBe(`NLB ${NLB} belongs to NLB Service default/web in cluster ${CLUSTER}`);
    expect(r.figures).toEqual({ ownerTag: OWNER, clusterId: CLUSTER, formerService: `default/web in cluster ${CLUSTER}`, service: 'default/web' });
  });

  it('a Service that is gone: service-gone, naming the tagged cluster and the Service the listeners name', () => {
    const f = fixture();
    f.kubernetes.services = [];
    const r = resultOf(runCheck(ID, f.snapshot));
    expect(r).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(r.message).toBe(
      `NLB ${NLB} was created by CCM (kubernetes.do.not.delete=${OWNER}) but no Service with that UID exists in cluster ${CLUSTER} ` +
        `(last served default/web in cluster ${CLUSTER})`,
    );
    expect(r.figures).toEqual({ ownerTag: OWNER, clusterId: CLUSTER, formerService: `default/web in cluster ${CLUSTER}`, orphanReason: 'service-gone' });
  });

  it('without the cluster tag the Service is searched in the clusters of the region; the server group names the Service', () => {
    const f = fixture();
    f.kubernetes.services = [];
    delete f.region.nlbs![0]!.tags['ack.aliyun.com'];
    f.region.nlbs![0]!.listeners[0]!.description = 'my listener';
    const r = resultOf(runCheck(ID, f.snapshot));
    expect(r.message).toBe(
      `NLB ${NLB} was created by CCM (kubernetes.do.not.delete=${OWNER}) but no Service with that UID exists in the clusters of cn-hangzhou ` +
        `(last served default/web in cluster ${CLUSTER})`,
    );
    expect(r.figures).toEqual({ ownerTag: OWNER, formerService: `default/web in cluster ${CLUSTER}`, orphanReason: 'service-gone' });
  });

  it('a listener description names the Service before a server group name does', () => {
    const f = fixture();
    f.kubernetes.services = [];
    f.region.nlbs![0]!.listeners[0]!.description = `k8s.80.TCP.api.shop.${CLUSTER}`;
    expect(resultOf(runCheck(ID, f.snapshot)).figures).toMatchObject({ formerService: `shop/api in cluster ${CLUSTER}` });
  });

  it('nothing names the Service it served: no "last served", no formerService', () => {
    const f = fixture();
    f.kubernetes.services = [];
    f.region.nlbs![0]!.listeners[0]!.description = 'my listener';
    f.region.nlbServerGroups = [];
    const r = resultOf(runCheck(ID, f.snapshot));
    expect(r.message).toBe(`NLB ${NLB} was created by CCM (kubernetes.do.not.delete=${OWNER}) but no Service with that UID exists in cluster ${CLUSTER}`);
    expect(r.figures).toEqual({ ownerTag: OWNER, clusterId: CLUSTER, orphanReason: 'service-gone' });
  });

  it('a tagged cluster that is gone: cluster-gone', () => {
    const f = fixture();
    f.region.nlbs![0]!.tags['ack.aliyun.com'] = 'c-deleted';
    const r = resultOf(runCheck(ID, f.snapshot));
    expect(r.status).toBe('fail');
    expect(r.message).toBe(`NLB ${NLB} was created by CCM for cluster c-deleted, which no longer exists (last served default/web in cluster ${CLUSTER})`);
    expect(r.figures).toEqual({ ownerTag: OWNER, clusterId: 'c-deleted', formerService: `default/web in cluster ${CLUSTER}`, orphanReason: 'cluster-gone' });
  });

  it('a Service that is no longer an NLB Service: service-not-nlb, with its type and class', () => {
    const noClass = fixture();
    delete noClass.kubernetes.services[0]!.loadBalancerClass;
    const r = resultOf(runCheck(ID, noClass.snapshot));
    expect(r.status).toBe('fail');
    expect(r.message).toBe(`NLB ${NLB} was created by CCM for Service default/web, which is no longer an NLB LoadBalancer Service (type LoadBalancer, no loadBalancerClass)`);
    expect(r.figures).toEqual({ ownerTag: OWNER, clusterId: CLUSTER, formerService: `default/web in cluster ${CLUSTER}`, orphanReason: 'service-not-nlb', service: 'default/web' });
    const other = fixture();
    other.kubernetes.services[0]!.loadBalancerClass = 'example.com/lb';
    expect(resultOf(runCheck(ID, other.snapshot)).message).toBe(
      `NLB ${NLB} was created by CCM for Service default/web, which is no longer an NLB LoadBalancer Service (type LoadBalancer, class example.com/lb)`,
    );
  });

  it('an NLB without the CCM owner tag is never an orphan; a region without NLBs passes once', () => {
    const f = fixture();
    f.kubernetes.services = [];
    delete f.region.nlbs![0]!.tags['kubernetes.do.not.delete'];
    const r = resultOf(runCheck(ID, f.snapshot));
    expect([r.status, r.message]).toEqual(['pass', `NLB ${NLB} was not created by CCM (no kubernetes.do.not.delete tag): never an orphan`]);
    const empty = fixture();
    empty.region.nlbs = [];
    expect(runCheck(ID, empty.snapshot).map((x) => [x.status, x.message])).toEqual([['pass', 'cn-hangzhou of account 1234567890123456 has no NLB']]);
  });
});
