import { describe, expect, it } from 'vitest';
import { ccmVersionAtLeast, compareCcmVersions, newerCcmVersion, parseCcmVersion } from './version.model';

describe('parseCcmVersion', () => {
  it.each([
    // Formats from research/ccm-behaviour.md 4 and seeds 000/001.
    [
      'v1.9.3.276-g372aa98-aliyun',
      { major: 1, minor: 9, patch: 3, build: 276, commit: '372aa98', suffix: 'aliyun' },
    ],
    [
      'v1.9.3.10-gfb99107-aliyun',
      { major: 1, minor: 9, patch: 3, build: 10, commit: 'fb99107', suffix: 'aliyun' },
    ],
    ['v2.11.2', { major: 2, minor: 11, patch: 2, build: 0 }],
    ['v2.12.1-3-gabc', { major: 2, minor: 12, patch: 1, build: 3, commit: 'abc' }],
    // One ACK doc writes the describe form of v1.9.3.164.
    [
      'v1.9.3-164-g2105d2e-aliyun',
      { major: 1, minor: 9, patch: 3, build: 164, commit: '2105d2e', suffix: 'aliyun' },
    ],
    ['2.14.0', { major: 2, minor: 14, patch: 0, build: 0 }],
    [' v1.9.3 ', { major: 1, minor: 9, patch: 3, build: 0 }],
  ])('parses %s', (text, expected) => {
    expect(parseCcmVersion(text)).toMatchObject(expected);
  });

  it.each(['', 'latest', 'v2', 'v2.x.1', 'registry/acs/cloud-controller-manager:v2.1.0', undefined, null])(
    'returns undefined for %s',
    (text) => {
      expect(parseCcmVersion(text)).toBeUndefined();
    },
  );
});

describe('compareCcmVersions', () => {
  const cmp = (a: string, b: string) =>
    Math.sign(compareCcmVersions(parseCcmVersion(a)!, parseCcmVersion(b)!));

  it.each([
    ['v1.9.3.276-g372aa98-aliyun', 'v1.9.3.164-g2105d2e-aliyun', 1],
    ['v1.9.3.59-ge3bc999-aliyun', 'v1.9.3.105-gfd4e547-aliyun', -1], // compares N numerically, not as text
    ['v1.9.3-164-g2105d2e-aliyun', 'v1.9.3.164-g2105d2e-aliyun', 0],
    ['v1.9.3.380-gd6d0962-aliyun', 'v2.0.1', -1],
    ['v2.12.1-3-gabc', 'v2.12.1', 1],
    ['v2.12.1-3-gabc', 'v2.12.3', -1],
    ['v2.10.0', 'v2.9.1', 1],
    ['v2.11.2', 'v2.11.2', 0],
  ])('%s vs %s -> %i', (a, b, expected) => {
    expect(cmp(a, b)).toBe(expected);
  });
});

describe('ccmVersionAtLeast / newerCcmVersion', () => {
  it('answers against documented minimums', () => {
    expect(ccmVersionAtLeast('v1.9.3.313-g748f81e-aliyun', 'v1.9.3.276-g372aa98-aliyun')).toBe(true);
    expect(ccmVersionAtLeast('v2.10.0', 'v2.11.2')).toBe(false);
    expect(ccmVersionAtLeast('garbage', 'v2.11.2')).toBeUndefined();
  });

  it('picks the newer version and tolerates one unparseable side', () => {
    expect(newerCcmVersion('v2.10.0', 'v2.12.1')).toBe('v2.12.1');
    expect(newerCcmVersion('v2.14.0', 'v2.12.1')).toBe('v2.14.0');
    expect(newerCcmVersion(undefined, 'v2.12.1')).toBe('v2.12.1');
    expect(newerCcmVersion('x', 'y')).toBeUndefined();
  });
});
