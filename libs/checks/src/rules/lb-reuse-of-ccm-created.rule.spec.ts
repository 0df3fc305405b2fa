/**
 * LB_REUSE_OF_CCM_CREATED: what each answer says. CCM refuses to reuse a CLB or NLB that carries its ownership tags
 * (`kubernetes.do.not.delete`, `ack.aliyun.com`): clbv1/model_applier.go `isLoadBalancerReusable`, nlbv2/model_applier.go
 * `isNLBReusable` ("the loadbalancer <id> can not be reused, can not reuse loadbalancer created by kubernetes").
 * Starts from the fixtures of test/fixtures/LB_REUSE_OF_CCM_CREATED: `fail.own-clb-marked-reused` (Service default/web
 * reusing its own CCM-created CLB lb-web), `fail.reuses-other-service-clb` (default/edge reusing default/web's CLB) and
 * `fail.nlb-reuses-ccm-created-nlb` (NLB Service default/reuser reusing the NLB CCM created for default/web).
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '@app/domain';
import { nlbFixture as checkFixture, runCheck } from '../../test/nlb-fixture.util';

const ID = 'LB_REUSE_OF_CCM_CREATED';
const CLUSTER = 'c0123456789abcdef0123456789abcdef';
const OWNER = 'a5e4dbfc9c2ae4642b0335607860aef6';
const REFUSED = 'CCM refuses: "can not reuse loadbalancer created by kubernetes"';
const NLB = 'nlb-web0000000000000001';

/** The one result of Service `id`. */
function resultOf(results: CheckResult[], id: string): CheckResult {
  const r = results.filter((x) => x.resource.id === id);
  expect(r).toHaveLength(1);
  return r[0]!;
}

describe('LB_REUSE_OF_CCM_CREATED, CLB', () => {
  it("a Service reusing its own CCM-created CLB: ownServiceClb, and deleting it no longer deletes the CLB", () => {
    const r = resultOf(runCheck(ID, checkFixture(ID, 'fail.own-clb-marked-reused').snapshot), 'default/web');
    expect(r).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(r.message).toBe(
      'default/web reuses CLB lb-web, its own CCM-created CLB, edited to be "reused": deleting the Service will no longer delete the CLB; ' + REFUSED,
    );
    expect(r.figures).toEqual({ loadBalancerId: 'lb-web', ownServiceClb: true, ownerTag: OWNER, clusterTag: CLUSTER });
  });

  it("another Service's CLB names that Service; an owner tag no Service has names the tag; the cluster tag alone names the cluster", () => {
    const f = checkFixture(ID, 'fail.reuses-other-service-clb');
    const r = resultOf(runCheck(ID, f.snapshot), 'default/edge');
    expect(r.message).toBe(`default/edge reuses CLB lb-web, created by CCM for Service default/web in cluster ${CLUSTER}; ${REFUSED}`);
    expect(r.figures).toEqual({ loadBalancerId: 'lb-web', ownServiceClb: false, ownerTag: OWNER, clusterTag: CLUSTER });

    const clb = f.region.loadBalancers!.find((c) => c.loadBalancerId === 'lb-web')!;
    clb.tags['kubernetes.do.not.delete'] = 'a00000000000000000000000000000000';
    expect(resultOf(runCheck(ID, f.snapshot), 'default/edge').message).toBe(
      `default/edge reuses CLB lb-web, created by CCM (kubernetes.do.not.delete=a00000000000000000000000000000000); ${REFUSED}`,
    );

    delete clb.tags['kubernetes.do.not.delete'];
    const byCluster = resultOf(runCheck(ID, f.snapshot), 'default/edge');
    expect(byCluster.message).toBe(`default/edge reuses CLB lb-web, managed by ACK for cluster ${CLUSTER} (ack.aliyun.com); ${REFUSED}`);
    expect(byCluster.figures).toStrictEqual({ loadBalancerId: 'lb-web', ownServiceClb: false, clusterTag: CLUSTER });

    clb.tags = { 'kubernetes.do.not.delete': OWNER };
    expect(resultOf(runCheck(ID, f.snapshot), 'default/edge').figures).toStrictEqual({ loadBalancerId: 'lb-web', ownServiceClb: false, ownerTag: OWNER });
  });

  it('a CLB without the ownership tags passes', () => {
    const r = resultOf(runCheck(ID, checkFixture(ID, 'pass.console-clb').snapshot), 'default/edge');
    expect(r.status).toBe('pass');
    expect(r.message).toBe('default/edge reuses CLB lb-console, which carries no CCM ownership tag');
    expect(r.figures).toEqual({ loadBalancerId: 'lb-console' });
  });

  it('a Service without a UID owns no CLB, even one whose owner tag is empty', () => {
    const f = checkFixture(ID, 'fail.own-clb-marked-reused');
    const web = f.kubernetes.services.find((s) => s.name === 'web')!;
    web.uid = '';
    f.region.loadBalancers!.find((c) => c.loadBalancerId === 'lb-web')!.tags['kubernetes.do.not.delete'] = '';
    const r = resultOf(runCheck(ID, f.snapshot), 'default/web');
    expect(r.message).toBe(`default/web reuses CLB lb-web, created by CCM (kubernetes.do.not.delete=); ${REFUSED}`);
    expect(r.figures).toMatchObject({ ownServiceClb: false, ownerTag: '' });
  });

  it('the API server CLB is left to LB_REUSE_OF_APISERVER, read or not; a CLB not in the region is left to LB_NOT_FOUND_FOR_SERVICE', () => {
    const f = checkFixture(ID, 'fail.reuses-other-service-clb');
    f.cluster.apiServerLoadBalancerId = 'lb-web';
    const r = resultOf(runCheck(ID, f.snapshot), 'default/edge');
    expect(r).toMatchObject({ status: 'skipped', reason: 'CLB lb-web is an API server CLB: reported by LB_REUSE_OF_APISERVER' });
    expect(r.figures).toEqual({ loadBalancerId: 'lb-web' });

    const missing = resultOf(runCheck(ID, checkFixture(ID, 'skipped.clb-not-found').snapshot), 'default/edge');
    expect(missing).toMatchObject({
      status: 'skipped',
      reason: 'CLB lb-missing is not among the CLB instances of cn-hangzhou (see LB_NOT_FOUND_FOR_SERVICE)',
      figures: { loadBalancerId: 'lb-missing' },
    });
  });

  it('judges only Services that reuse a load balancer', () => {
    const f = checkFixture(ID, 'fail.own-clb-marked-reused');
    for (const s of f.kubernetes.services) delete s.annotations['service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id'];
    expect(runCheck(ID, f.snapshot)).toEqual([]);
  });
});

describe('LB_REUSE_OF_CCM_CREATED, NLB', () => {
  it("an NLB Service reusing another Service's NLB: CCM's isNLBReusable message, the NLB's tags in the figures", () => {
    const f = checkFixture(ID, 'fail.nlb-reuses-ccm-created-nlb');
    const r = resultOf(runCheck(ID, f.snapshot), 'default/reuser');
    expect(r).toMatchObject({ status: 'fail', severity: 'critical' });
    const ccm = `CCM refuses: "the loadbalancer ${NLB} can not be reused, can not reuse loadbalancer created by kubernetes."`;
    expect(r.message).toBe(`default/reuser reuses NLB ${NLB}, created by CCM for Service default/web in cluster ${CLUSTER}; ${ccm}`);
    expect(r.figures).toEqual({ loadBalancerId: NLB, kind: 'NLB', ownerTag: OWNER, clusterTag: CLUSTER });

    const nlb = f.region.nlbs![0]!;
    nlb.tags = { 'kubernetes.do.not.delete': 'a00000000000000000000000000000000' };
    const unknownOwner = resultOf(runCheck(ID, f.snapshot), 'default/reuser');
    expect(unknownOwner.message).toBe(`default/reuser reuses NLB ${NLB}, created by CCM (kubernetes.do.not.delete=a00000000000000000000000000000000); ${ccm}`);
    expect(unknownOwner.figures).toStrictEqual({ loadBalancerId: NLB, kind: 'NLB', ownerTag: 'a00000000000000000000000000000000' });

    nlb.tags = { 'ack.aliyun.com': CLUSTER };
    const byCluster = resultOf(runCheck(ID, f.snapshot), 'default/reuser');
    expect(byCluster.message).toBe(`default/reuser reuses NLB ${NLB}, managed by ACK for cluster ${CLUSTER} (ack.aliyun.com); ${ccm}`);
    expect(byCluster.figures).toStrictEqual({ loadBalancerId: NLB, kind: 'NLB', clusterTag: CLUSTER });
  });

  it('a Service reusing its own CCM-created NLB is told so', () => {
    const f = checkFixture(ID, 'fail.nlb-reuses-ccm-created-nlb');
    f.kubernetes.services.find((s) => s.name === 'web')!.annotations['service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id'] = NLB;
    const r = resultOf(runCheck(ID, f.snapshot), 'default/web');
    expect(r.message).toBe(
      `default/web reuses NLB ${NLB}, its own CCM-created NLB, edited to be "reused"; CCM refuses: "the loadbalancer ${NLB} can not be reused, can not reuse loadbalancer created by kubernetes."`,
    );
  });

  it('an NLB without the ownership tags passes; an NLB not in the region and an unread region are skipped', () => {
    const pass = resultOf(runCheck(ID, checkFixture(ID, 'pass.nlb-reuses-user-nlb').snapshot), 'default/reuser');
    expect(pass).toMatchObject({ status: 'pass', message: 'default/reuser reuses NLB nlb-user00000000000001, which carries no CCM ownership tag' });
    expect(pass.figures).toEqual({ loadBalancerId: 'nlb-user00000000000001' });

    const f = checkFixture(ID, 'pass.nlb-reuses-user-nlb');
    f.region.nlbs = [];
    const missing = resultOf(runCheck(ID, f.snapshot), 'default/reuser');
    expect(missing).toMatchObject({
      status: 'skipped',
      reason: 'NLB nlb-user00000000000001 is not among the NLB instances of cn-hangzhou (see LB_NOT_FOUND_FOR_SERVICE)',
      figures: { loadBalancerId: 'nlb-user00000000000001' },
    });

    const unread = resultOf(runCheck(ID, checkFixture(ID, 'skipped.nlb-not-read').snapshot), 'default/reuser');
    expect(unread.status).toBe('skipped');
    expect(unread.reason).toMatch(/^NLB instances and server groups of cn-hangzhou were not read/);
    expect(unread.figures).toEqual({ loadBalancerId: 'nlb-user00000000000001' });
  });
});
