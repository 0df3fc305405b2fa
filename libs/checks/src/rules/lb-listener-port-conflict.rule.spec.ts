/**
 * LB_LISTENER_PORT_CONFLICT: what each answer says. A CLB listener is one per port and transport (`udp`, or `tcp` for
 * tcp / http / https; clbv1/listeners.go `protocol()`), so two Services reusing a CLB on one port and transport fight
 * over it (seed 004 "Multiple Services cannot use the same listener port"); NLB listeners conflict when their protocol
 * and port, or port range, overlap (nlbv2/listeners.go `isListenerPortOverlapped`). Starts from the fixtures of
 * test/fixtures/LB_LISTENER_PORT_CONFLICT: `fail.same-port` (default/web and default/api reusing CLB
 * lb-bp1shared00000000000 on 80 and 443, api's 443 as https) and `fail.two-nlb-services-on-tcp-80` (default/a and
 * default/b reusing NLB nlb-user00000000000001 on TCP 80).
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '@app/domain';
import { nlbFixture as checkFixture, runCheck } from '../../test/nlb-fixture.util';

const ID = 'LB_LISTENER_PORT_CONFLICT';
const C = 'c0123456789abcdef0123456789abcdef';
const CLB = 'lb-bp1shared00000000000';
const NLB = 'nlb-user00000000000001';
const PROTOCOL_PORT = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-protocol-port';

/** The one result of load balancer `id`. */
function resultOf(results: CheckResult[], id: string): CheckResult {
  const r = results.filter((x) => x.resource.id === id);
  expect(r).toHaveLength(1);
  return r[0]!;
}

describe('LB_LISTENER_PORT_CONFLICT, CLB', () => {
  it('names each port and transport asked for by two Services, with the Services, sorted', () => {
    const r = resultOf(runCheck(ID, checkFixture(ID, 'fail.same-port').snapshot), CLB);
    expect(r).toMatchObject({ status: 'fail', severity: 'critical', resource: { kind: 'LoadBalancer' } });
    const conflicts = [`tcp/443 (${C}:default/api, ${C}:default/web)`, `tcp/80 (${C}:default/api, ${C}:default/web)`];
    expect(r.message).toBe(`CLB ${CLB} is used by 2 Services, and 2 listener ports are asked for by more than one: ${conflicts.join(', ')}`);
    expect(r.figures).toEqual({ services: [`${C}:default/api`, `${C}:default/web`], listenerPorts: 2, conflictingPorts: 2, conflicts });
  });

  it('one conflicting port is one; more than three are summed up', () => {
    const f = checkFixture(ID, 'fail.same-port');
    const webSvc = f.kubernetes.services.find((s) => s.name === 'web')!;
    webSvc.ports[1]!.port = 8443;
    const one = resultOf(runCheck(ID, f.snapshot), CLB);
    expect(one.message).toBe(`CLB ${CLB} is used by 2 Services, and 1 listener port is asked for by more than one: tcp/80 (${C}:default/api, ${C}:default/web)`);
    expect(one.figures).toMatchObject({ listenerPorts: 3, conflictingPorts: 1 });

    for (const s of f.kubernetes.services)
      s.ports = [80, 81, 82, 83].map((port) => ({ name: `p${port}`, protocol: 'TCP', port, targetPort: 8080, nodePort: 30000 + port }));
    delete f.kubernetes.services.find((s) => s.name === 'api')!.annotations[PROTOCOL_PORT];
    expect(resultOf(runCheck(ID, f.snapshot), CLB).message).toBe(
      `CLB ${CLB} is used by 2 Services, and 4 listener ports are asked for by more than one: ` +
        `tcp/80 (${C}:default/api, ${C}:default/web), tcp/81 (${C}:default/api, ${C}:default/web), tcp/82 (${C}:default/api, ${C}:default/web) (+1 more)`,
    );
  });

  it('udp and tcp on one port are two listeners; a protocol-port that does not parse leaves the port protocol', () => {
    const f = checkFixture(ID, 'fail.same-port');
    const api = f.kubernetes.services.find((s) => s.name === 'api')!;
    api.ports = [{ name: 'dns', protocol: 'UDP', port: 80, targetPort: 8080, nodePort: 31080 }];
    const r = resultOf(runCheck(ID, f.snapshot), CLB);
    expect(r.status).toBe('pass');
    expect(r.message).toBe(`CLB ${CLB} is used by 2 Services on distinct listener ports`);
    expect(r.figures).toEqual({ services: [`${C}:default/api`, `${C}:default/web`], listenerPorts: 3, conflictingPorts: 0 });

    api.ports = [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 31080 }];
    api.annotations[PROTOCOL_PORT] = 'udp:80';
    expect(resultOf(runCheck(ID, f.snapshot), CLB).status).toBe('pass');
    api.annotations[PROTOCOL_PORT] = 'udp80';
    expect(resultOf(runCheck(ID, f.snapshot), CLB).figures).toMatchObject({ conflictingPorts: 1 });
  });
});

describe('LB_LISTENER_PORT_CONFLICT, NLB', () => {
  it('names each overlapping pair of listeners with the two Services', () => {
    const r = resultOf(runCheck(ID, checkFixture(ID, 'fail.two-nlb-services-on-tcp-80').snapshot), NLB);
    expect(r).toMatchObject({ status: 'fail', severity: 'critical', resource: { kind: 'NetworkLoadBalancer' } });
    const conflict = `TCP 80: ${C}:default/a and ${C}:default/b`;
    expect(r.message).toBe(`NLB ${NLB} is shared by 2 Services whose listeners overlap: ${conflict}`);
    expect(r.figures).toEqual({ services: 2, kind: 'NLB', conflicts: [conflict] });
  });

  it('TCP and UDP on one port do not overlap; a port range overlapping a port does, named by its range', () => {
    const pass = resultOf(runCheck(ID, checkFixture(ID, 'pass.nlb-tcp-and-udp-on-80').snapshot), NLB);
    expect(pass).toMatchObject({ status: 'pass', message: `NLB ${NLB} is shared by 2 Services on distinct listener ports` });
    expect(pass.figures).toEqual({ services: 2, kind: 'NLB' });

    const f = checkFixture(ID, 'fail.two-nlb-services-on-tcp-80');
    // A port range needs ENI backends (nlbv2/listeners.go: "listener port range can only be used for eni backend type service").
    f.cluster.networkPlugin = 'terway';
    f.kubernetes.services[0]!.annotations['service.beta.kubernetes.io/backend-type'] = 'eni';
    f.kubernetes.services[0]!.annotations['service.beta.kubernetes.io/alibaba-cloud-loadbalancer-listener-port-range'] = '70-100:80';
    f.kubernetes.services[1]!.ports[0]!.port = 90;
    expect(resultOf(runCheck(ID, f.snapshot), NLB).figures).toEqual({ services: 2, kind: 'NLB', conflicts: [`TCP 70-100: ${C}:default/a and ${C}:default/b`] });
  });

  it("one Service's own listeners never conflict; a Service whose listeners CCM cannot build adds none", () => {
    const f = checkFixture(ID, 'fail.two-nlb-services-on-tcp-80');
    const [a, b] = f.kubernetes.services;
    // a's two listeners overlap b's range, not each other's: only pairs of two Services count.
    f.cluster.networkPlugin = 'terway';
    b!.annotations['service.beta.kubernetes.io/backend-type'] = 'eni';
    b!.annotations['service.beta.kubernetes.io/alibaba-cloud-loadbalancer-listener-port-range'] = '90-95:90';
    a!.ports = [
      { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 },
      { name: 'http2', protocol: 'TCP', port: 81, targetPort: 8081, nodePort: 30081 },
    ];
    b!.ports = [{ name: 'http', protocol: 'TCP', port: 90, targetPort: 8080, nodePort: 30090 }];
    expect(resultOf(runCheck(ID, f.snapshot), NLB).status).toBe('pass');
    a!.ports[1]!.port = 93;
    expect(resultOf(runCheck(ID, f.snapshot), NLB).figures).toMatchObject({ conflicts: [`TCP 93: ${C}:default/a and ${C}:default/b`] });

    const g = checkFixture(ID, 'fail.two-nlb-services-on-tcp-80');
    g.kubernetes.services[1]!.annotations[PROTOCOL_PORT] = 'bogus';
    expect(resultOf(runCheck(ID, g.snapshot), NLB).status).toBe('pass');
  });

  it('an NLB one Service uses, or none, has no result; a Service whose NLB is not there counts for none', () => {
    const f = checkFixture(ID, 'fail.two-nlb-services-on-tcp-80');
    f.kubernetes.services[1]!.annotations['service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id'] = 'nlb-missing0000000001';
    expect(runCheck(ID, f.snapshot)).toEqual([]);
  });
});
