/**
 * LB_NOT_FOUND_FOR_SERVICE: what each answer says. CCM finds a Service's CLB by the `loadbalancer-id` annotation, else
 * the `kubernetes.do.not.delete` tag, else the default name (pkg/provider/alibaba/slb/loadbalancer.go FindLoadBalancer),
 * and an NLB the same way (nlbv2 FindNLB); a Service that names a missing one, or that was synced to one CCM can no
 * longer find, fails every sync with "can not find loadbalancer, but it's defined in service" (seed 002 row 4;
 * research/nlb.md 3.3). Starts from the fixtures of test/fixtures/LB_NOT_FOUND_FOR_SERVICE: Service default/web
 * (UID 5e4dbfc9-..., default LB name a5e4dbfc9c2ae4642b0335607860aef6) with the address 47.96.10.20 (`fail.address-without-clb`:
 * CLB lb-bp1untagged000000000 holds it without the tag) or synced to NLB nlb-gone00000000000001 (`fail.nlb-deleted`).
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult, Clb, RegionSnapshot } from '@app/domain';
import { nlbFixture as checkFixture, runCheck } from '../../test/nlb-fixture.util';

const ID = 'LB_NOT_FOUND_FOR_SERVICE';
const OWNER = 'a5e4dbfc9c2ae4642b0335607860aef6';
const ANNOTATION = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id';
const LABEL = 'service.k8s.alibaba/loadbalancer-id';
const CANNOT_FIND = `CCM fails with "can not find loadbalancer, but it's defined in service"`;
const NLB_CANNOT_FIND = `CCM fails "alicloud: can not find loadbalancer, but it's defined in service"`;
const GONE = 'nlb-gone00000000000001';
const GONE_HOST = `${GONE}.cn-hangzhou.nlb.aliyuncsslb.com`;

/** The one result of default/web. */
function web(results: CheckResult[]): CheckResult {
  const r = results.filter((x) => x.resource.id === 'default/web');
  expect(r).toHaveLength(1);
  return r[0]!;
}

describe('LB_NOT_FOUND_FOR_SERVICE, CLB', () => {
  it('a found CLB passes, saying how CCM found it', () => {
    for (const [file, by] of [
      ['pass.found-by-tag', 'tag'],
      ['pass.found-by-name', 'name'],
    ] as const) {
      const r = web(runCheck(ID, checkFixture(ID, file).snapshot));
      expect(r.status).toBe('pass');
      expect(r.message).toBe(`default/web uses CLB lb-bp1web000000000000 (found by ${by})`);
      expect(r.figures).toEqual({ loadBalancerId: 'lb-bp1web000000000000', foundBy: by });
    }
  });

  it('an address no CLB is found for: the default name, and the CLB holding the address without the tag or with another', () => {
    const f = checkFixture(ID, 'fail.address-without-clb');
    const r = web(runCheck(ID, f.snapshot));
    expect(r).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(r.message).toBe(
      `default/web has the load balancer address 47.96.10.20 but no CLB in cn-hangzhou is tagged kubernetes.do.not.delete=${OWNER} or named so; ` +
        `CLB lb-bp1untagged000000000 holds 47.96.10.20 but has no kubernetes.do.not.delete tag: ${CANNOT_FIND}`,
    );
    expect(r.figures).toEqual({ reason: 'status', addresses: ['47.96.10.20'], defaultLbName: OWNER, loadBalancerWithAddress: 'lb-bp1untagged000000000' });

    f.region.loadBalancers![0]!.tags['kubernetes.do.not.delete'] = 'aother';
    expect(web(runCheck(ID, f.snapshot)).message).toContain('; CLB lb-bp1untagged000000000 holds 47.96.10.20 but is tagged kubernetes.do.not.delete=aother: ');
  });

  it('without a CLB holding the address: no hint; a hostname counts as an address; the label is named', () => {
    const f = checkFixture(ID, 'fail.address-without-clb');
    f.region.loadBalancers![0]!.address = '47.96.10.99';
    const svc = f.kubernetes.services[0]!;
    svc.ingress = [{ hostname: 'web.example.com' }, { ip: '47.96.10.21' }];
    svc.labels[LABEL] = 'lb-bp1labelled00000000';
    const r = web(runCheck(ID, f.snapshot));
    expect(r.message).toBe(
      `default/web has the load balancer address web.example.com, 47.96.10.21 but no CLB in cn-hangzhou is tagged kubernetes.do.not.delete=${OWNER} or named so ` +
        `(label ${LABEL}=lb-bp1labelled00000000): ${CANNOT_FIND}`,
    );
    expect(r.figures).toEqual({
      reason: 'status',
      addresses: ['web.example.com', '47.96.10.21'],
      defaultLbName: OWNER,
      labelledLoadBalancerId: 'lb-bp1labelled00000000',
    });
    // A CLB without an address never holds the Service's.
    delete f.region.loadBalancers![0]!.address;
    expect(web(runCheck(ID, f.snapshot)).figures).not.toHaveProperty('loadBalancerWithAddress');
  });

  it('a Service without an address, or being deleted, passes: CCM will create the CLB', () => {
    const pending = web(runCheck(ID, checkFixture(ID, 'pass.pending-new-service').snapshot));
    expect(pending).toMatchObject({ status: 'pass', message: 'default/web has no CLB and no load balancer address yet: CCM will create one' });
    expect(pending.figures).toEqual({ foundBy: 'none' });

    const f = checkFixture(ID, 'fail.address-without-clb');
    f.kubernetes.services[0]!.deletionTimestamp = '2026-11-01T00:00:00Z';
    expect(web(runCheck(ID, f.snapshot)).status).toBe('pass');
    // An ingress entry with neither an IP nor a hostname is no address.
    const g = checkFixture(ID, 'fail.address-without-clb');
    g.kubernetes.services[0]!.ingress = [{}];
    expect(web(runCheck(ID, g.snapshot)).status).toBe('pass');
  });

  it('an annotation naming a missing CLB fails, naming where a CLB of that id is when it is in another account or region', () => {
    const f = checkFixture(ID, 'fail.annotation-names-deleted-clb');
    const r = web(runCheck(ID, f.snapshot));
    expect(r.message).toBe(
      'default/web names CLB lb-bp1released0000000000 in its loadbalancer-id annotation, which does not exist in account 1234567890123456 / cn-hangzhou',
    );
    expect(r.figures).toEqual({ loadBalancerId: 'lb-bp1released0000000000', reason: 'annotation' });

    const other: RegionSnapshot = { accountId: '1234567890123456', regionId: 'cn-beijing', clusters: [], loadBalancers: [] };
    const clb = structuredClone(checkFixture(ID, 'pass.found-by-tag').region.loadBalancers![0]!) as Clb;
    clb.loadBalancerId = 'lb-bp1released0000000000';
    clb.regionId = 'cn-beijing';
    other.loadBalancers = [clb];
    f.snapshot.accounts[0]!.regions.push(other);
    expect(web(runCheck(ID, f.snapshot)).message).toBe(
      'default/web names CLB lb-bp1released0000000000 in its loadbalancer-id annotation, which does not exist in account 1234567890123456 / cn-hangzhou ' +
        '(a CLB with that id is in 1234567890123456 / cn-beijing)',
    );
  });
});

describe('LB_NOT_FOUND_FOR_SERVICE, NLB', () => {
  it('a found NLB passes, saying how CCM found it', () => {
    const r = web(runCheck(ID, checkFixture(ID, 'pass.nlb-found-by-tag').snapshot));
    expect(r).toMatchObject({ status: 'pass', message: 'default/web uses NLB nlb-web0000000000000001 (found by tag)' });
    expect(r.figures).toEqual({ loadBalancerId: 'nlb-web0000000000000001', foundBy: 'tag' });
  });

  it('a Service synced to an NLB that is gone names its label and hostname; each alone is enough', () => {
    const f = checkFixture(ID, 'fail.nlb-deleted');
    const r = web(runCheck(ID, f.snapshot));
    expect(r).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(r.message).toBe(
      `default/web was synced to an NLB, but the NLB it points at (label ${GONE}, hostname ${GONE_HOST}) no longer exists: ${NLB_CANNOT_FIND}`,
    );
    expect(r.figures).toEqual({ kind: 'NLB', labelLoadBalancerId: GONE, hostname: GONE_HOST });

    const svc = f.kubernetes.services[0]!;
    const ingress = svc.ingress;
    svc.ingress = [];
    const byLabel = web(runCheck(ID, f.snapshot));
    expect(byLabel.message).toBe(`default/web was synced to an NLB, but the NLB it points at (label ${GONE}) no longer exists: ${NLB_CANNOT_FIND}`);
    expect(byLabel.figures).toEqual({ kind: 'NLB', labelLoadBalancerId: GONE });

    svc.ingress = ingress;
    delete svc.labels[LABEL];
    const byHost = web(runCheck(ID, f.snapshot));
    expect(byHost.message).toBe(`default/web was synced to an NLB, but the NLB it points at (hostname ${GONE_HOST}) no longer exists: ${NLB_CANNOT_FIND}`);
    expect(byHost.figures).toEqual({ kind: 'NLB', hostname: GONE_HOST });
  });

  it('an NLB that lost its tag and default name is named, found by the label or by the hostname', () => {
    const found = checkFixture(ID, 'pass.nlb-found-by-tag').region.nlbs![0]!;
    found.tags = {};
    found.name = 'renamed';
    const lost = `default/web was synced to an NLB, but NLB nlb-web0000000000000001 still exists but lost its kubernetes.do.not.delete tag and default name, so CCM cannot find it: ${NLB_CANNOT_FIND}`;

    const f = checkFixture(ID, 'fail.nlb-deleted');
    f.region.nlbs = [structuredClone(found)];
    const svc = f.kubernetes.services[0]!;
    svc.labels[LABEL] = 'nlb-web0000000000000001';
    svc.ingress = [];
    const r = web(runCheck(ID, f.snapshot));
    expect(r.message).toBe(lost);
    expect(r.figures).toEqual({ kind: 'NLB', labelLoadBalancerId: 'nlb-web0000000000000001', loadBalancerId: 'nlb-web0000000000000001' });

    delete svc.labels[LABEL];
    svc.ingress = [{ hostname: 'nlb-web0000000000000001.cn-hangzhou.nlb.aliyuncsslb.com' }];
    expect(web(runCheck(ID, f.snapshot)).message).toBe(lost);
    // The label names an NLB that is gone while the hostname is the renamed one's: the hostname finds it.
    svc.labels[LABEL] = GONE;
    expect(web(runCheck(ID, f.snapshot)).figures).toMatchObject({ loadBalancerId: 'nlb-web0000000000000001' });
  });

  it('an NLB Service that never synced passes; one whose annotation names a missing NLB fails', () => {
    const f = checkFixture(ID, 'fail.nlb-deleted');
    const svc = f.kubernetes.services[0]!;
    svc.ingress = [];
    delete svc.labels[LABEL];
    const r = web(runCheck(ID, f.snapshot));
    expect(r).toMatchObject({ status: 'pass', message: 'default/web has no NLB yet and points at none: CCM will create one' });

    svc.annotations[ANNOTATION] = 'nlb-missing0000000001';
    const named = web(runCheck(ID, f.snapshot));
    expect(named).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(named.message).toBe(
      'default/web names NLB nlb-missing0000000001 in its loadbalancer-id annotation, which does not exist in cn-hangzhou: CCM fails "can not find loadbalancer"',
    );
    expect(named.figures).toEqual({ loadBalancerId: 'nlb-missing0000000001', kind: 'NLB' });
  });

  it('a region whose NLBs were not read is skipped naming the gap', () => {
    const r = web(runCheck(ID, checkFixture(ID, 'skipped.nlb-not-read').snapshot));
    expect(r.status).toBe('skipped');
    expect(r.reason).toMatch(/^NLB instances and server groups of cn-hangzhou were not read/);
  });
});
