import { describe, expect, it } from 'vitest';
import { annotationMinimumVersion, unsupportedAnnotations } from './annotation-versions.model';

const P = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-';

describe('annotation minimum versions (ACK doc column, research 3b)', () => {
  it.each([
    [`${P}backend-label`, 'v1.9.3'],
    [`${P}master-zoneid`, 'v1.9.3.10-gfb99107-aliyun'],
    [`${P}id`, 'v1.9.3.105-gfd4e547-aliyun'],
    [`${P}remove-unscheduled-backend`, 'v1.9.3.164-g2105d2e-aliyun'],
    ['service.beta.kubernetes.io/backend-type', 'v1.9.3.164-g2105d2e-aliyun'],
    [`${P}delete-protection`, 'v1.9.3.313-g748f81e-aliyun'],
    [`${P}connection-drain`, 'v2.0.1'],
    [`${P}preserve-lb-on-delete`, 'v2.10.0'],
    [`${P}ignore-weight-update`, 'v2.11.1'],
    ['service.beta.kubernetes.io/alicloud-loadbalancer-ip', 'v2.7.0'],
  ])('%s needs %s', (key, min) => {
    expect(annotationMinimumVersion(key, 'clb')?.minimumVersion).toBe(min);
  });

  it('does not judge keys it does not know', () => {
    expect(annotationMinimumVersion(`${P}made-up`, 'clb')).toBeUndefined();
    expect(
      annotationMinimumVersion('kubectl.kubernetes.io/last-applied-configuration', 'clb'),
    ).toBeUndefined();
  });

  it('lists what an old CCM does not support', () => {
    const annotations = {
      [`${P}connection-drain`]: 'on',
      [`${P}connection-drain-timeout`]: '30',
      [`${P}address-type`]: 'intranet',
      [`${P}preserve-lb-on-delete`]: 'true',
    };
    expect(
      unsupportedAnnotations(annotations, 'v1.9.3.380-gd6d0962-aliyun', 'clb')?.map((a) => a.key),
    ).toEqual([`${P}connection-drain`, `${P}connection-drain-timeout`, `${P}preserve-lb-on-delete`]);
    expect(unsupportedAnnotations(annotations, 'v2.10.0', 'clb')).toEqual([]);
    expect(unsupportedAnnotations(annotations, 'unknown', 'clb')).toBeUndefined();
  });

  it('requires v2.5.0 for any NLB annotation and more for newer ones', () => {
    expect(annotationMinimumVersion(`${P}zone-maps`, 'nlb')?.minimumVersion).toBe('v2.5.0');
    expect(annotationMinimumVersion(`${P}listener-port-range`, 'nlb')?.minimumVersion).toBe('v2.11.4');
    expect(annotationMinimumVersion('service.beta.kubernetes.io/backend-type', 'nlb')).toBeUndefined();
  });

  it('names the NLB controller\'s minimum as the source of an NLB annotation the tables do not list', () => {
    expect(annotationMinimumVersion(`${P}zone-maps`, 'nlb')).toEqual({
      suffix: 'zone-maps',
      minimumVersion: 'v2.5.0',
      source: 'ACK doc "Configure NLB using annotations": NLB requires CCM v2.5.0 or later',
    });
  });

  it('lists the unsupported annotations sorted by key, whatever order the Service writes them in', () => {
    const annotations = { [`${P}preserve-lb-on-delete`]: 'true', [`${P}connection-drain`]: 'on' };
    expect(unsupportedAnnotations(annotations, 'v2.0.0', 'clb')?.map((a) => a.key)).toEqual([`${P}connection-drain`, `${P}preserve-lb-on-delete`]);
  });
});
