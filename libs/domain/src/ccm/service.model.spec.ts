import { describe, expect, it } from 'vitest';
import { k8sService } from '../../test/k8s-objects.factory';
import type { K8sService } from '../snapshot.types';
import {
  clusterDefaultsToEni,
  defaultLoadBalancerName,
  needClb,
  needNlb,
  reusedLoadBalancerId,
  serviceTrafficPolicy,
} from './service.model';

const svc = k8sService;

describe('defaultLoadBalancerName', () => {
  it('matches the CCM fixture (annotations_test.go TestGetDefaultLoadBalancerName, seed 000 recipe)', () => {
    expect(defaultLoadBalancerName('5e4dbfc9-c2ae-4642-b033-5607860aef6a')).toBe(
      'a5e4dbfc9c2ae4642b0335607860aef6',
    );
  });

  it('keeps short UIDs whole', () => {
    expect(defaultLoadBalancerName('abc-def')).toBe('aabcdef');
  });
});

describe('needClb / needNlb (helper.NeedCLB, NeedNLB)', () => {
  it.each<[string, Partial<K8sService>, boolean, boolean]>([
    ['plain LoadBalancer', {}, true, false],
    ['NodePort', { type: 'NodePort' }, false, false],
    ['NLB class', { loadBalancerClass: 'alibabacloud.com/nlb' }, false, true],
    ['other class', { loadBalancerClass: 'example.com/lb' }, false, false],
    [
      'service.beta.kubernetes.io/class set',
      { annotations: { 'service.beta.kubernetes.io/class': 'other' } },
      false,
      false,
    ],
    ['empty service class', { annotations: { 'service.beta.kubernetes.io/class': '' } }, true, false],
    // TestIsTunnelTypeService: key presence even with an empty value.
    [
      'tunnel-type key with empty value',
      { annotations: { 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-tunnel-type': '' } },
      false,
      false,
    ],
  ])('%s', (_name, over, clb, nlb) => {
    expect(needClb(svc(over))).toBe(clb);
    expect(needNlb(svc(over))).toBe(nlb);
  });
});

describe('reusedLoadBalancerId', () => {
  it('reads the new prefix, then the legacy one, ignoring blanks', () => {
    expect(reusedLoadBalancerId(svc())).toBeUndefined();
    expect(
      reusedLoadBalancerId(
        svc({ annotations: { 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id': 'lb-1' } }),
      ),
    ).toBe('lb-1');
    expect(
      reusedLoadBalancerId(
        svc({ annotations: { 'service.beta.kubernetes.io/alicloud-loadbalancer-id': 'lb-old' } }),
      ),
    ).toBe('lb-old');
    expect(
      reusedLoadBalancerId(
        svc({ annotations: { 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id': ' ' } }),
      ),
    ).toBeUndefined();
  });
});

describe('serviceTrafficPolicy (GetServiceTrafficPolicy)', () => {
  const flannel = { networkPlugin: 'flannel' as const, created: '2024-01-01T00:00:00Z' };
  const newTerway = { networkPlugin: 'terway' as const, created: '2021-03-01T00:00:00Z' };
  const oldTerway = { networkPlugin: 'terway' as const, created: '2020-01-01T00:00:00Z' };

  it.each<[string, Partial<K8sService>, { networkPlugin: 'flannel' | 'terway'; created?: string }, string]>([
    ['Flannel default Cluster', {}, flannel, 'cluster'],
    ['Flannel Local', { externalTrafficPolicy: 'Local' }, flannel, 'local'],
    [
      'eni annotation wins',
      { annotations: { 'service.beta.kubernetes.io/backend-type': 'eni' } },
      flannel,
      'eni',
    ],
    ['new Terway defaults to ENI', { externalTrafficPolicy: 'Local' }, newTerway, 'eni'],
    ['old Terway keeps ecs', { externalTrafficPolicy: 'Local' }, oldTerway, 'local'],
    [
      'explicit ecs on new Terway',
      { annotations: { 'service.beta.kubernetes.io/backend-type': 'ecs' } },
      newTerway,
      'cluster',
    ],
  ])('%s', (_name, over, cluster, expected) => {
    expect(serviceTrafficPolicy(svc(over), cluster).policy).toBe(expected);
  });

  it('marks the Terway default as assumed when the creation time is unknown', () => {
    expect(clusterDefaultsToEni({ networkPlugin: 'terway' })).toEqual({ eni: true, assumed: true });
    expect(clusterDefaultsToEni({ networkPlugin: 'terway', created: '2020-08-10T00:00:00Z' })).toEqual({
      eni: true,
      assumed: false,
    });
    expect(serviceTrafficPolicy(svc(), { networkPlugin: 'terway' })).toEqual({
      policy: 'eni',
      basis: 'cluster-default',
      assumed: true,
    });
  });
});
