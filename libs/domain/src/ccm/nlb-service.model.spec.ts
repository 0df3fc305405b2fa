import { describe, expect, it } from 'vitest';
import { findServiceNlb, nlbListenersOverlap } from './nlb-service.model';
import { defaultLoadBalancerName, findServiceClb, reusedLoadBalancerId } from './service.model';
import { lbAnnotationKey } from './annotations.model';
import { LB_ANNOTATION } from './ccm.constants';
import { nlbNamedKey, parseNlbNamedKey } from './nlb-naming.model';
import { CCM_NLB_RAM_REQUIREMENTS } from './ram-actions.constants';
import { ccmRamRequirements } from './ram-actions.model';

const single = (port: number, protocol = 'TCP') => ({ port, protocol });
const range = (startPort: number, endPort: number, protocol = 'TCP') => ({ port: 0, startPort, endPort, protocol });

describe('nlbListenersOverlap', () => {
  // CCM pkg/controller/service/nlbv2/listeners_test.go TestIsListenerPortOverlapped (v2.14.0), all ten cases.
  it.each([
    [single(80), single(443), false],
    [single(80), single(80), true],
    [single(80), range(1, 100), true],
    [range(1, 100), single(80), true],
    [range(1, 100), range(101, 200), false],
    [range(101, 200), range(1, 100), false],
    [range(1, 101), range(101, 200), true],
    [range(101, 200), range(1, 101), true],
    [range(1, 102), range(50, 80), true],
    [range(50, 80), range(1, 102), true],
  ])('%o vs %o -> %s', (a, b, overlapped) => {
    expect(nlbListenersOverlap(a, b)).toBe(overlapped);
  });

  it('never across protocols (isListenerPortOverlapped compares ListenerProtocol first)', () => {
    expect(nlbListenersOverlap(single(53, 'TCP'), single(53, 'UDP'))).toBe(false);
  });
});

describe('NLB names', () => {
  it('round-trips k8s.{port}.{proto}.{svc}.{ns}.{cluster} and refuses other shapes (LoadNLBSGNamedKey)', () => {
    const name = nlbNamedKey(30080, 'TCP', 'web', 'default', 'c123');
    expect(name).toBe('k8s.30080.TCP.web.default.c123');
    expect(parseNlbNamedKey(name)).toEqual({ port: '30080', protocol: 'TCP', serviceName: 'web', namespace: 'default', clusterId: 'c123' });
    expect(parseNlbNamedKey('k8s/30080/web/default/c123')).toBeUndefined(); // the CLB form
    expect(parseNlbNamedKey('k8s.30080.TCP.web.v1.default.c123')).toBeUndefined(); // a dotted Service name: 7 parts
    expect(parseNlbNamedKey('my-group')).toBeUndefined();
  });
});

describe('NLB RAM actions', () => {
  it('counts the nlb:* actions only for clusters with NLB Services, by version (research/nlb.md 6)', () => {
    const without = ccmRamRequirements('v2.14.0', 'terway')!.map((r) => r.action);
    const withNlb = ccmRamRequirements('v2.14.0', 'terway', { kinds: ['nlb'] })!.map((r) => r.action);
    expect(without.filter((a) => a.startsWith('nlb:'))).toEqual(['nlb:ListAsynJobs']);
    expect(withNlb.filter((a) => a.startsWith('nlb:')).length).toBe(CCM_NLB_RAM_REQUIREMENTS.length + 1);
    const v25 = ccmRamRequirements('v2.5.0', 'terway', { kinds: ['nlb'] })!.map((r) => r.action);
    expect(v25).toContain('nlb:CreateServerGroup');
    expect(v25).not.toContain('nlb:LoadBalancerJoinSecurityGroup');
    expect(v25).not.toContain('nlb:ListAsynJobs');
  });
});

describe('findServiceClb / findServiceNlb with the keys a caller computed (ServiceLbKeys)', () => {
  const uid = '5c4e8a3a-1b2c-4d5e-8f90-123456789abc';
  const owner = defaultLoadBalancerName(uid);
  const lbs = { 'lb-a': 'A', 'lb-tagged': 'T', 'lb-named': 'N' } as Record<string, string>;
  // Tags and names as CCM sees them: `owner` tags lb-tagged in the first view, names lb-named in the second.
  const views = [
    { byId: (id: string) => lbs[id], byOwnerTag: (n: string) => (n === owner ? 'T' : undefined), byName: () => undefined },
    { byId: (id: string) => lbs[id], byOwnerTag: () => undefined, byName: (n: string) => (n === owner ? 'N' : undefined) },
    { byId: () => undefined, byOwnerTag: () => undefined, byName: () => undefined },
  ];
  const services = [
    { annotations: {}, uid },
    { annotations: {}, uid: '' },
    { annotations: { [lbAnnotationKey(LB_ANNOTATION.id)]: ' lb-a ' }, uid },
    { annotations: { [lbAnnotationKey(LB_ANNOTATION.id)]: 'lb-gone' }, uid },
    { annotations: { [lbAnnotationKey(LB_ANNOTATION.id)]: '   ' }, uid },
  ];

  it('finds what the lookup from the Service itself finds, for every way of finding and not finding', () => {
    for (const view of views)
      for (const service of services) {
        const keys = { reusedLbId: reusedLoadBalancerId(service), defaultLbName: service.uid ? defaultLoadBalancerName(service.uid) : '' };
        expect(findServiceClb(service, view, keys)).toEqual(findServiceClb(service, view));
        expect(findServiceNlb(service, view, keys)).toEqual(findServiceNlb(service, view));
      }
  });

  it('covers each way: by id, by tag, by name, an id that names nothing, none', () => {
    const by = (s: (typeof services)[number], v: (typeof views)[number]) => findServiceClb(s, v).by;
    expect([by(services[2]!, views[0]!), by(services[0]!, views[0]!), by(services[0]!, views[1]!), by(services[3]!, views[0]!), by(services[1]!, views[0]!)]).toEqual([
      'id',
      'tag',
      'name',
      'none',
      'none',
    ]);
  });

  it('uses the keys given (no parse of the annotations or UID again)', () => {
    const service = { annotations: {}, uid };
    expect(findServiceClb(service, views[0]!, { reusedLbId: 'lb-a', defaultLbName: owner })).toEqual({ clb: 'A', by: 'id' });
    expect(findServiceClb(service, views[0]!, { reusedLbId: undefined, defaultLbName: 'other' })).toEqual({ by: 'none' });
  });
});
