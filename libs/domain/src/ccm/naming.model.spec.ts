import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ccmNameParts, parseCcmNamedKey, vServerGroupName } from './naming.model';

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

describe('ccmNameParts', () => {
  /** The plain parse it replaces: split, then check the prefix, the count and every part. */
  const reference = (text: string | undefined, separator: string, count: number): string[] | undefined => {
    if (!text) return undefined;
    const [prefix, ...parts] = text.split(separator);
    return prefix !== 'k8s' || parts.length !== count || parts.some((p) => p === '') ? undefined : parts;
  };

  it('answers as the plain split-and-check parse on random texts near CCM names, for both separators', () => {
    const pieces = ['k8s', 'k8', 'K8s', 'k8sx', '', '30080', 'web', 'default', 'c1', 'tcp', '/', '.', '//', '..'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), fc.constantFrom('/', '.'), fc.integer({ min: 0, max: 6 }), (bits, sep, count) => {
        const text = bits.join('');
        expect(ccmNameParts(text, sep, count)).toEqual(reference(text, sep, count));
      }),
      { numRuns: 3000 },
    );
    expect(ccmNameParts(undefined, '/', 4)).toBeUndefined();
    expect(ccmNameParts('k8s', '/', 0)).toEqual(reference('k8s', '/', 0));
    expect(ccmNameParts('k8s/', '/', 1)).toBeUndefined();
    expect(ccmNameParts('k8s.80.TCP.web.default.c1', '.', 5)).toEqual(['80', 'TCP', 'web', 'default', 'c1']);
  });
});
