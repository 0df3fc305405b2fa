import { describe, expect, it } from 'vitest';
import { K8S_RESOURCES } from './k8s-resources.constants';
import { parseFieldSelector, parseLabelSelector } from './k8s-selector.util';
import { K8sStatusError } from './k8s-status.util';

const obj = (labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  metadata: { name: 'x', namespace: 'ns', labels },
  ...extra,
});
const pods = K8S_RESOURCES.find((r) => r.name === 'pods');

describe(parseLabelSelector.name, () => {
  it.each([
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app', true],
    ['!app', false],
    ['tier in (front, back)', true],
    ['tier notin (front)', false],
    ['app=web,tier=front', true],
    ['app=web,tier=back', false],
    ['missing!=x', true],
  ])('%s -> %s', (selector, expected) => {
    expect(parseLabelSelector(selector)(obj({ app: 'web', tier: 'front' }))).toBe(expected);
  });

  it('rejects what it cannot parse with a 400 Status', () => {
    expect(() => parseLabelSelector('app=(web')).toThrow(K8sStatusError);
  });
});

describe(parseFieldSelector.name, () => {
  it('matches supported fields and rejects unsupported ones like the API server', () => {
    if (!pods) throw new Error('pods resource missing');
    const pod = obj({}, { spec: { nodeName: 'n1' }, status: { phase: 'Running' } });
    expect(parseFieldSelector('spec.nodeName=n1,status.phase!=Failed', pods)(pod)).toBe(true);
    expect(parseFieldSelector('metadata.namespace=other', pods)(pod)).toBe(false);
    expect(() => parseFieldSelector('spec.containers=x', pods)).toThrow(
      'field label not supported: spec.containers',
    );
  });
});
