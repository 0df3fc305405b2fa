import { describe, expect, it } from 'vitest';
import { getLbAnnotation, lbAnnotationKey, lbAnnotationSuffixOf } from './annotations.model';

describe('getLbAnnotation (annotations_test.go TestGet)', () => {
  it('prefers the new prefix over the legacy alicloud- prefix', () => {
    const annotations = {
      'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-spec': 'slb.s2.small',
      'service.beta.kubernetes.io/alicloud-loadbalancer-spec': 'slb.s1.small',
    };
    expect(getLbAnnotation(annotations, 'spec')).toBe('slb.s2.small');
  });

  it('falls back to the legacy prefix, and a present-but-empty new key still wins', () => {
    expect(getLbAnnotation({ 'service.beta.kubernetes.io/alicloud-loadbalancer-spec': 'x' }, 'spec')).toBe(
      'x',
    );
    expect(
      getLbAnnotation(
        {
          'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-spec': '',
          'service.beta.kubernetes.io/alicloud-loadbalancer-spec': 'x',
        },
        'spec',
      ),
    ).toBe('');
    expect(getLbAnnotation({}, 'spec')).toBeUndefined();
  });

  it('builds and splits keys', () => {
    expect(lbAnnotationKey('id')).toBe('service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id');
    expect(lbAnnotationSuffixOf('service.beta.kubernetes.io/alicloud-loadbalancer-backend-label')).toEqual({
      suffix: 'backend-label',
      legacy: true,
    });
    expect(lbAnnotationSuffixOf('service.beta.kubernetes.io/backend-type')).toBeUndefined();
  });
});
