/**
 * The LB_REUSE_* checks of a Service that reuses a CLB (`...-loadbalancer-id`), what each answer says: the API server
 * CLB (clbv1/model_applier.go `isLoadBalancerReusable`), the VPC of an internal-facing CLB (NetworkConflict, seeds
 * 002/003), the address type (clbv1/loadbalancer.go `Update`), namespace/name collisions across clusters
 * (`VGroupNamedKey`), and listeners CCM does not manage without `force-override-listeners` (model_applier.go).
 * Each starts from the check's fixtures in test/fixtures/<CHECK_ID>, Service default/edge of cluster
 * c0123456789abcdef0123456789abcdef unless said otherwise.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '@app/domain';
import { nlbFixture as checkFixture, runCheck } from '../../test/nlb-fixture.util';

const C = 'c0123456789abcdef0123456789abcdef';
const C2 = 'c9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const P = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-';

/** The one result of resource `id`. */
function resultOf(results: CheckResult[], id = 'default/edge'): CheckResult {
  const r = results.filter((x) => x.resource.id === id);
  expect(r).toHaveLength(1);
  return r[0]!;
}

describe('LB_REUSE_OF_APISERVER', () => {
  const ID = 'LB_REUSE_OF_APISERVER';

  it('names every cluster whose API server CLB the Service reuses', () => {
    const f = checkFixture(ID, 'fail.apiserver-clb');
    const r = resultOf(runCheck(ID, f.snapshot));
    expect(r).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(r.message).toBe(`default/edge reuses CLB lb-api, the API server CLB of cluster ${C}`);
    expect(r.figures).toEqual({ loadBalancerId: 'lb-api', apiServerOf: [C] });

    const twin = structuredClone(f.cluster);
    twin.clusterId = C2;
    twin.kubernetes = undefined;
    f.region.clusters.push(twin);
    const both = resultOf(runCheck(ID, f.snapshot));
    expect(both.message).toBe(`default/edge reuses CLB lb-api, the API server CLB of cluster ${C}, ${C2}`);
    expect(both.figures).toEqual({ loadBalancerId: 'lb-api', apiServerOf: [C, C2] });
  });

  it('another CLB passes; a Service that reuses none has no result', () => {
    const r = resultOf(runCheck(ID, checkFixture(ID, 'pass.console-clb').snapshot));
    expect(r).toMatchObject({ status: 'pass', message: "default/edge reuses CLB lb-console, which is no cluster's API server CLB" });
    expect(r.figures).toEqual({ loadBalancerId: 'lb-console' });

    const f = checkFixture(ID, 'fail.apiserver-clb');
    delete f.kubernetes.services[0]!.annotations[`${P}id`];
    expect(runCheck(ID, f.snapshot)).toEqual([]);
  });
});

describe('LB_REUSE_CROSS_VPC', () => {
  const ID = 'LB_REUSE_CROSS_VPC';

  it("an internal-facing CLB of another VPC fails with NetworkConflict; of the cluster's VPC it passes", () => {
    const f = checkFixture(ID, 'fail.intranet-other-vpc');
    const r = resultOf(runCheck(ID, f.snapshot));
    expect(r).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(r.message).toBe(`default/edge reuses internal-facing CLB lb-int in vpc-other, but cluster ${C} is in vpc-main: NetworkConflict`);
    expect(r.figures).toEqual({ loadBalancerId: 'lb-int', loadBalancerVpcId: 'vpc-other', clusterVpcId: 'vpc-main' });

    const same = resultOf(runCheck(ID, checkFixture(ID, 'pass.intranet-same-vpc').snapshot));
    expect(same).toMatchObject({ status: 'pass', message: "default/edge reuses internal-facing CLB lb-int in the cluster's VPC vpc-main" });
    expect(same.figures).toEqual({ loadBalancerId: 'lb-int', loadBalancerVpcId: 'vpc-main', clusterVpcId: 'vpc-main' });
  });

  it('an internet-facing CLB passes whatever its VPC', () => {
    const r = resultOf(runCheck(ID, checkFixture(ID, 'pass.internet').snapshot));
    expect(r).toMatchObject({ status: 'pass', message: 'default/edge reuses internet CLB lb-pub: the VPC does not matter' });
    expect(r.figures).toEqual({ loadBalancerId: 'lb-pub', addressType: 'internet' });
  });

  it("is skipped naming the VPC that is unknown, the CLB's or the cluster's", () => {
    const cluster = resultOf(runCheck(ID, checkFixture(ID, 'skipped.vpc-unknown').snapshot));
    expect(cluster).toMatchObject({ status: 'skipped', reason: `VPC of cluster ${C} is unknown`, figures: { loadBalancerId: 'lb-int' } });

    const f = checkFixture(ID, 'fail.intranet-other-vpc');
    delete f.region.loadBalancers![0]!.vpcId;
    const clb = resultOf(runCheck(ID, f.snapshot));
    expect(clb).toMatchObject({ status: 'skipped', reason: 'VPC of CLB lb-int is unknown' });
    expect(clb.figures).toEqual({ loadBalancerId: 'lb-int' });
  });
});

describe('LB_REUSE_ADDRESS_TYPE_MISMATCH', () => {
  const ID = 'LB_REUSE_ADDRESS_TYPE_MISMATCH';
  const CLB = 'lb-bp1console000000000';

  it("an address-type other than the CLB's fails with CCM's error", () => {
    const r = resultOf(runCheck(ID, checkFixture(ID, 'fail.internet-service-on-intranet-clb').snapshot));
    expect(r).toMatchObject({ status: 'fail', severity: 'critical' });
    expect(r.message).toBe(
      `default/edge asks for address-type internet but reuses intranet CLB ${CLB}: CCM fails with "can not change LoadBalancer AddressType once created"`,
    );
    expect(r.figures).toEqual({ loadBalancerId: CLB, loadBalancerAddressType: 'intranet', serviceAddressType: 'internet' });
  });

  it("the same type, or no annotation (CCM keeps the CLB's), passes", () => {
    const same = resultOf(runCheck(ID, checkFixture(ID, 'pass.intranet-matches').snapshot));
    expect(same).toMatchObject({ status: 'pass', message: `default/edge reuses intranet CLB ${CLB}, as its address-type asks` });
    expect(same.figures).toEqual({ loadBalancerId: CLB, loadBalancerAddressType: 'intranet', serviceAddressType: 'intranet' });

    const none = resultOf(runCheck(ID, checkFixture(ID, 'pass.no-annotation').snapshot));
    expect(none).toMatchObject({ status: 'pass', message: `default/edge reuses intranet CLB ${CLB} without an address-type annotation: CCM keeps the CLB's type` });
    expect(none.figures).toEqual({ loadBalancerId: CLB, loadBalancerAddressType: 'intranet' });
  });
});

describe('LB_REUSE_NAME_COLLISION', () => {
  const ID = 'LB_REUSE_NAME_COLLISION';
  const CLB = 'lb-bp1shared00000000000';

  it('names each namespace/name used in two clusters, with the clusters, sorted', () => {
    const r = resultOf(runCheck(ID, checkFixture(ID, 'fail.same-namespace-name').snapshot), CLB);
    expect(r).toMatchObject({ status: 'fail', severity: 'warning', resource: { kind: 'LoadBalancer' } });
    const name = `default/web in ${C} and ${C2}`;
    expect(r.message).toBe(`CLB ${CLB} is reused by 2 clusters, and 1 Service name repeats across them: ${name}`);
    expect(r.figures).toEqual({ clusters: [C, C2], services: 2, collisions: 1, names: [name] });
  });

  it('lists clusters and names sorted, whatever the order of the snapshot', () => {
    const f = checkFixture(ID, 'fail.same-namespace-name');
    f.region.clusters.reverse();
    for (const cluster of f.region.clusters) {
      const other = structuredClone(cluster.kubernetes!.services[0]!);
      other.name = 'zeta';
      other.uid = `${other.uid ?? ''}-zeta`;
      cluster.kubernetes!.services.unshift(other);
    }
    const r = resultOf(runCheck(ID, f.snapshot), CLB);
    const names = [`default/web in ${C} and ${C2}`, `default/zeta in ${C} and ${C2}`];
    expect(r.message).toBe(`CLB ${CLB} is reused by 2 clusters, and 2 Service names repeat across them: ${names.join(', ')}`);
    expect(r.figures).toEqual({ clusters: [C, C2], services: 4, collisions: 2, names });
  });

  it('distinct names pass; a CLB shared within one cluster has no result', () => {
    const r = resultOf(runCheck(ID, checkFixture(ID, 'pass.distinct-names').snapshot), CLB);
    expect(r).toMatchObject({ status: 'pass', message: `CLB ${CLB} is reused by 2 clusters with distinct Service namespace/names` });
    expect(r.figures).toEqual({ clusters: [C, C2], services: 2, collisions: 0 });

    const f = checkFixture(ID, 'fail.same-namespace-name');
    const second = f.region.clusters.pop()!;
    const moved = second.kubernetes!.services[0]!;
    moved.name = 'web2';
    f.kubernetes.services.push(moved);
    expect(runCheck(ID, f.snapshot)).toEqual([]);
  });
});

describe('LB_REUSE_LISTENERS_NOT_MANAGED', () => {
  const ID = 'LB_REUSE_LISTENERS_NOT_MANAGED';
  const CLB = 'lb-bp1console000000000';
  const NOT_MANAGED = `default/edge reuses CLB ${CLB} without force-override-listeners "true", so CCM creates no listener`;

  it('force-override-listeners "true" passes: CCM manages the listeners', () => {
    const r = resultOf(runCheck(ID, checkFixture(ID, 'pass.force-override').snapshot));
    expect(r).toMatchObject({ status: 'pass', message: `default/edge reuses CLB ${CLB} with force-override-listeners "true": CCM manages its listeners` });
    expect(r.figures).toEqual({ loadBalancerId: CLB, forceOverride: true });
  });

  it("a listener made outside CCM forwarding to the Service's group passes", () => {
    const r = resultOf(runCheck(ID, checkFixture(ID, 'pass.console-listener').snapshot));
    expect(r).toMatchObject({ status: 'pass', message: `default/edge reuses CLB ${CLB} without force-override-listeners; every port has a listener (made outside CCM)` });
    expect(r.figures).toEqual({ loadBalancerId: CLB, forceOverride: false, ports: 1, portsWithoutListener: 0, portsForwardedElsewhere: 0 });
  });

  it('names the ports without a listener and the listeners forwarding elsewhere', () => {
    const missing = resultOf(runCheck(ID, checkFixture(ID, 'fail.no-listener').snapshot));
    expect(missing).toMatchObject({ status: 'fail', severity: 'warning', message: `${NOT_MANAGED}: no listener on tcp/80` });
    expect(missing.figures).toEqual({
      loadBalancerId: CLB,
      forceOverride: false,
      ports: 1,
      portsWithoutListener: 1,
      portsForwardedElsewhere: 0,
      missingListeners: ['tcp/80'],
      misroutedListeners: [],
    });

    const f = checkFixture(ID, 'fail.listener-forwards-elsewhere');
    const misrouted = resultOf(runCheck(ID, f.snapshot));
    expect(misrouted.message).toBe(`${NOT_MANAGED}: listeners forward to other vServer groups: tcp/80 -> rsp-bp1legacy000`);
    expect(misrouted.figures).toMatchObject({ portsWithoutListener: 0, portsForwardedElsewhere: 1, missingListeners: [], misroutedListeners: ['tcp/80 -> rsp-bp1legacy000'] });

    f.kubernetes.services[0]!.ports.push({ name: 'https', protocol: 'TCP', port: 443, targetPort: 8443, nodePort: 30443 });
    expect(resultOf(runCheck(ID, f.snapshot)).message).toBe(
      `${NOT_MANAGED}: no listener on tcp/443; listeners forward to other vServer groups: tcp/80 -> rsp-bp1legacy000`,
    );
  });

  it('a listener of another port or transport is not the port\'s; one without a vServer group is not judged', () => {
    const f = checkFixture(ID, 'pass.console-listener');
    const listener = f.region.loadBalancers![0]!.listeners[0]!;
    listener.protocol = 'udp';
    expect(resultOf(runCheck(ID, f.snapshot)).figures).toMatchObject({ missingListeners: ['tcp/80'] });
    listener.protocol = 'tcp';
    listener.port = 81;
    expect(resultOf(runCheck(ID, f.snapshot)).figures).toMatchObject({ missingListeners: ['tcp/80'] });

    const g = checkFixture(ID, 'fail.listener-forwards-elsewhere');
    delete g.region.loadBalancers![0]!.listeners[0]!.vServerGroupId;
    expect(resultOf(runCheck(ID, g.snapshot)).status).toBe('pass');
  });

  it("the Service's groups: vgroup-port's, and CCM's named by NodePort or by targetPort (else the port)", () => {
    const f = checkFixture(ID, 'fail.listener-forwards-elsewhere');
    const svc = f.kubernetes.services[0]!;
    svc.annotations[`${P}vgroup-port`] = 'rsp-bp1legacy000:80';
    expect(resultOf(runCheck(ID, f.snapshot)).status).toBe('pass');
    // vgroup-port that does not parse names no group; protocol-port that does not parse leaves the port protocol.
    svc.annotations[`${P}vgroup-port`] = 'rsp-bp1legacy000';
    svc.annotations[`${P}protocol-port`] = 'tcp80';
    expect(resultOf(runCheck(ID, f.snapshot)).figures).toMatchObject({ misroutedListeners: ['tcp/80 -> rsp-bp1legacy000'] });

    const g = checkFixture(ID, 'pass.console-listener');
    const group = g.region.loadBalancers![0]!.vServerGroups[0]!;
    group.name = `k8s/8080/edge/default/${C}`;
    expect(resultOf(runCheck(ID, g.snapshot)).status).toBe('pass');
    delete g.kubernetes.services[0]!.ports[0]!.targetPort;
    expect(resultOf(runCheck(ID, g.snapshot)).status).toBe('fail');
    group.name = `k8s/80/edge/default/${C}`;
    expect(resultOf(runCheck(ID, g.snapshot)).status).toBe('pass');
  });
});
