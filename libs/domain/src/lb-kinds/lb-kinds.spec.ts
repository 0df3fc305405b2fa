import { describe, expect, it } from 'vitest';
import { k8sService } from '../../test/k8s-objects.factory';
import { ANNOTATION_SERVICE_CLASS, FINALIZER_CLB, FINALIZER_NLB, NLB_LOAD_BALANCER_CLASS } from '../ccm/ccm.constants';
import { CCM_RAM_REQUIREMENTS } from '../ccm/ram-actions.constants';
import { ccmRamRequirements } from '../ccm/ram-actions.model';
import { COVERAGE_DATASETS } from '../coverage-datasets';
import { LB_KIND_RESOURCE_KINDS, RESOURCE_KINDS } from '../resource-kinds';
import { CLB_KIND, KIND_DATA, LB_KINDS, LOAD_BALANCER_KIND_IDS, NLB_DATA, NLB_KIND, emptyKindWire, kindOfService, kindsInUse, loadBalancerKind } from './index';

const clbService = k8sService({ name: 'web', namespace: 'shop' });
const nlbService = k8sService({ name: 'api', namespace: 'shop', loadBalancerClass: NLB_LOAD_BALANCER_CLASS });

describe('the load-balancer kinds', () => {
  it('are registered once each, with the ids the API and the fleet graph use', () => {
    expect(LB_KINDS.map((k) => k.id)).toEqual([...LOAD_BALANCER_KIND_IDS]);
    expect(loadBalancerKind('nlb')).toBe(NLB_KIND);
    expect(() => loadBalancerKind('alb' as never)).toThrow(/unknown load-balancer kind alb/);
    expect(Object.isFrozen(CLB_KIND) && Object.isFrozen(NLB_KIND) && Object.isFrozen(LB_KINDS)).toBe(true);
  });

  it("add their own resource kinds after the others', region-scoped, each once", () => {
    expect(LB_KIND_RESOURCE_KINDS).toEqual(LB_KINDS.flatMap((k) => k.resourceKinds ?? []));
    expect(NLB_KIND.resourceKinds).toEqual(['NetworkLoadBalancer', 'NlbServerGroup', 'NlbServer']);
    expect(CLB_KIND.resourceKinds).toBeUndefined();
    expect(RESOURCE_KINDS.slice(-LB_KIND_RESOURCE_KINDS.length)).toEqual(LB_KIND_RESOURCE_KINDS);
    expect(RESOURCE_KINDS).toContain('LoadBalancer');
    expect(new Set(RESOURCE_KINDS).size).toBe(RESOURCE_KINDS.length);
    expect(Object.isFrozen(RESOURCE_KINDS) && Object.isFrozen(LOAD_BALANCER_KIND_IDS)).toBe(true);
  });

  it('take the Services CCM NeedCLB / NeedNLB give them, and no other', () => {
    expect(kindOfService(clbService)).toBe(CLB_KIND);
    expect(kindOfService(nlbService)).toBe(NLB_KIND);
    expect(kindOfService(k8sService({ loadBalancerClass: 'example.com/other' }))).toBeUndefined();
    expect(kindOfService(k8sService({ annotations: { [ANNOTATION_SERVICE_CLASS]: 'alibabacloud.com/alb' } }))).toBeUndefined();
    expect(kindOfService(k8sService({ type: 'ClusterIP' }))).toBeUndefined();
    expect(kindsInUse([nlbService, clbService, nlbService])).toEqual(['clb', 'nlb']);
    expect(kindsInUse([nlbService])).toEqual(['nlb']);
    expect(kindsInUse([])).toEqual([]);
    // A Service no controller takes counts for no kind.
    expect(kindsInUse([k8sService({ type: 'ClusterIP' }), nlbService])).toEqual(['nlb']);
  });

  it('name themselves and their backend groups as the consoles do (messages and the catalogue use these words)', () => {
    expect([CLB_KIND.title, CLB_KIND.groupNoun, CLB_KIND.quotaProductCode, CLB_KIND.ramService]).toEqual(['CLB', 'vServer group', 'slb', 'slb']);
    expect([NLB_KIND.title, NLB_KIND.groupNoun, NLB_KIND.quotaProductCode, NLB_KIND.ramService]).toEqual(['NLB', 'server group', 'nlb', 'nlb']);
  });

  it('own their finalizer (CCM ServiceFinalizer, NLBFinalizer) and their controller minimum', () => {
    expect(CLB_KIND.finalizer).toBe(FINALIZER_CLB);
    expect(NLB_KIND.finalizer).toBe(FINALIZER_NLB);
    expect(CLB_KIND.minimumCcmVersion).toBeUndefined();
    expect(NLB_KIND.minimumCcmVersion).toBe('v2.5.0');
  });

  it('name backend groups as CCM does and read back only their own kind of name', () => {
    const clbName = CLB_KIND.groupName(30080, 'TCP', 'web', 'shop', 'c1');
    const nlbName = NLB_KIND.groupName(30080, 'TCP', 'web', 'shop', 'c1');
    expect(clbName).toBe('k8s/30080/web/shop/c1');
    expect(nlbName).toBe('k8s.30080.TCP.web.shop.c1');
    expect(CLB_KIND.parseGroupName(clbName)).toEqual({ port: '30080', serviceName: 'web', namespace: 'shop', clusterId: 'c1' });
    expect(NLB_KIND.parseGroupName(nlbName)).toEqual({ port: '30080', protocol: 'TCP', serviceName: 'web', namespace: 'shop', clusterId: 'c1' });
    expect(CLB_KIND.parseGroupName(nlbName)).toBeUndefined();
    expect(NLB_KIND.parseGroupName(clbName)).toBeUndefined();
    expect(NLB_KIND.parseGroupName('my-group')).toBeUndefined();
  });

  it('count against their own product quotas; the NLB server groups per region cannot be raised', () => {
    for (const kind of LB_KINDS) {
      expect(kind.quotas.length).toBeGreaterThan(0);
      for (const q of kind.quotas) {
        expect(q.productCode, q.quotaActionCode).toBe(kind.quotaProductCode);
        expect(q.quotaActionCode.startsWith(`${kind.quotaProductCode}_quota_`), q.quotaActionCode).toBe(true);
        expect(q.defaultValue).toBeGreaterThan(0);
      }
    }
    const codes = LB_KINDS.flatMap((k) => k.quotas.map((q) => q.quotaActionCode));
    expect(new Set(codes).size).toBe(codes.length);
    const fixed = LB_KINDS.flatMap((k) => k.quotas.filter((q) => !q.adjustable).map((q) => q.quotaActionCode));
    expect(fixed).toEqual(['nlb_quota_servergroups_num']);
  });

  it("list the RAM actions of their own API, which count only where the cluster has the kind's Services", () => {
    for (const kind of LB_KINDS) {
      expect(kind.ramRequirements.length).toBeGreaterThan(0);
      for (const r of kind.ramRequirements) expect(r.action.startsWith(`${kind.ramService}:`), r.action).toBe(true);
    }
    expect(CLB_KIND.ramRequirements).toEqual(CCM_RAM_REQUIREMENTS.filter((r) => r.action.startsWith('slb:')));
    const withoutNlb = ccmRamRequirements('v2.14.0', 'terway', { kinds: ['clb'] })!.map((r) => r.action);
    const withNlb = ccmRamRequirements('v2.14.0', 'terway', { kinds: ['clb', 'nlb'] })!.map((r) => r.action);
    for (const r of NLB_KIND.ramRequirements) {
      expect(withNlb).toContain(r.action);
      expect(withoutNlb).not.toContain(r.action);
    }
  });

  it("judge an annotation's minimum CCM version by the kind's controller", () => {
    const key = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-server-group-type';
    expect(NLB_KIND.annotationMinimumVersion(key)?.minimumVersion).toBe('v2.8.0');
    // An annotation the NLB tables do not list still needs the NLB controller (v2.5.0).
    expect(NLB_KIND.annotationMinimumVersion('service.beta.kubernetes.io/alibaba-cloud-loadbalancer-spec')?.minimumVersion).toBe('v2.5.0');
    expect(CLB_KIND.annotationMinimumVersion(key)).toBeUndefined();
    expect(CLB_KIND.annotationMinimumVersion('service.beta.kubernetes.io/backend-type')?.minimumVersion).toBe('v1.9.3.164-g2105d2e-aliyun');
    expect(NLB_KIND.annotationMinimumVersion('service.beta.kubernetes.io/backend-type')).toBeUndefined();
  });

  it('write servers in their default shape: ECS ids for nodes, ENIs for pods', () => {
    expect(CLB_KIND.serverShape).toEqual({ node: 'ecs', pod: 'eni' });
    expect(NLB_KIND.serverShape).toEqual({ node: 'ecs', pod: 'eni', nodeNameNilTrailer: ' ' });
  });

  it('declare their data path once: NLB has one, CLB keeps its own; every dataset, file and list is consistent', () => {
    expect(KIND_DATA).toEqual(LB_KINDS.flatMap((k) => (k.data ? [k.data] : [])));
    expect(KIND_DATA).toContain(NLB_DATA);
    expect(CLB_KIND.data).toBeUndefined();
    expect(COVERAGE_DATASETS.slice(0, 2 + KIND_DATA.length + 1)).toEqual(['ram', 'slb', ...KIND_DATA.map((d) => d.dataset), 'ecs']);
    expect(new Set(COVERAGE_DATASETS).size).toBe(COVERAGE_DATASETS.length);
    for (const data of KIND_DATA) {
      expect(COVERAGE_DATASETS).toContain(data.dataset);
      expect(data.files.map((f) => f.list)).toEqual([...data.lists]);
      expect(data.lists).toContain(data.instanceList);
      for (const ref of data.references) expect(data.lists).toEqual(expect.arrayContaining([ref.list, ref.to]));
      expect(data.product.maxResults.min).toBeLessThanOrEqual(data.product.maxResults.default);
      expect(data.product.maxResults.default).toBeLessThanOrEqual(data.product.maxResults.max);
      // Simulated and crawled actions are the same: the crawl calls only what the simulator serves.
      expect(data.actions.every((a) => data.simulator.lists.some((l) => l.action === a))).toBe(true);
      // A region without resources is one page of each List* the crawl must call.
      expect(Object.keys(data.plannedCalls(emptyKindWire(data), data.product.maxResults.max)).every((a) => data.actions.includes(a))).toBe(true);
    }
    expect(NLB_DATA.plannedCalls(emptyKindWire(NLB_DATA), 100)).toEqual({ ListLoadBalancers: 1, ListListeners: 0, ListServerGroups: 1, ListServerGroupServers: 0 });
    expect(NLB_DATA.product.endpoint('cn-shanghai')).toBe('nlb.cn-shanghai.aliyuncs.com');
  });
});
