import { describe, expect, it } from 'vitest';
import { parseCcmNamedKey, vServerGroupName } from './naming.model';

describe('vServer group / listener names', () => {
  it('builds k8s/{port}/{svc}/{ns}/{clusterId}', () => {
    expect(vServerGroupName(30080, 'web', 'default', 'c123')).toBe('k8s/30080/web/default/c123');
  });

  it('parses names written by CCM, including named targetPorts (TestSyncVGroups: k8s/tcp/test/default/clusterid)', () => {
    expect(parseCcmNamedKey('k8s/tcp/test/default/clusterid')).toEqual({
      port: 'tcp',
      serviceName: 'test',
      namespace: 'default',
      clusterId: 'clusterid',
    });
    expect(parseCcmNamedKey('k8s/30080/web/default/c123')?.port).toBe('30080');
  });

  it.each([
    '',
    'my-vgroup',
    'k8s/80/web/default',
    'k8s/80/web/default/c1/extra',
    'x8s/80/web/default/c1',
    'k8s//web/default/c1',
  ])('treats %j as user-managed', (text) => {
    expect(parseCcmNamedKey(text)).toBeUndefined();
  });
});
