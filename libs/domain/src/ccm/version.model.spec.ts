import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ccmVersionAtLeast, compareCcmVersions, compareCcmVersionTexts, newerCcmVersion, parseCcmVersion } from './version.model';

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

describe('compareCcmVersionTexts (no parse objects) against compareCcmVersions of the parses', () => {
  /** Texts near the accepted forms: parts drawn from version-like pieces, blanks, oversized numbers and stray marks. */
  const piece = fc.constantFrom('v', '1', '2', '9', '3', '0', '11', '276', '4096', '99999', '1234567890', '.', '-', '-g', 'g', 'abc', 'fb99107', 'aliyun', 'x1.2', ' ', '\t', '..', '-3', 'G', 'Z');
  const text = fc.oneof(
    fc.array(piece, { maxLength: 10 }).map((p) => p.join('')),
    fc
      .tuple(fc.nat(300), fc.nat(5000), fc.nat(5000), fc.option(fc.nat(3_000_000)), fc.option(fc.nat(500)), fc.option(fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: 1, maxLength: 8 })), fc.option(fc.constantFrom('aliyun', 'gabc.1', 'rc.1', 'g12')))
      .map(([M, m, p, b, c, h, s]) => `v${M}.${m}.${p}${b === null ? '' : `.${b}`}${c === null ? '' : `-${c}`}${h === null ? '' : `-g${h}`}${s === null ? '' : `-${s}`}`),
  );

  it('gives the same order, and undefined exactly where a text does not parse', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const pa = parseCcmVersion(a);
        const pb = parseCcmVersion(b);
        const want = pa && pb ? Math.sign(compareCcmVersions(pa, pb)) : undefined;
        const got = compareCcmVersionTexts(a, b);
        expect(got === undefined ? undefined : Math.sign(got)).toBe(want);
        expect(ccmVersionAtLeast(a, b)).toBe(want === undefined ? undefined : want >= 0);
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads the documented forms and the ones only the regex reads by backtracking', () => {
    expect(compareCcmVersionTexts('v1.9.3.276-g372aa98-aliyun', 'v1.9.3-164-g2105d2e-aliyun')).toBeGreaterThan(0);
    expect(compareCcmVersionTexts('v2.12.1-3-gabc', 'v2.12.1')).toBeGreaterThan(0);
    expect(compareCcmVersionTexts(' v2.11.2 ', 'v2.11.2')).toBe(0);
    expect(compareCcmVersionTexts('v2.1.0-gabc.1', 'v2.1.0')).toBe(0); // `gabc.1` is a suffix
    expect(compareCcmVersionTexts('v1.9.3.164-5-gabc', 'v1.9.3.164')).toBe(0); // the dotted build wins
    expect(compareCcmVersionTexts('v300.0.0', 'v2.0.0')).toBeGreaterThan(0); // too large to pack: parsed
    expect(compareCcmVersionTexts('v2.1', 'v2.1.0')).toBeUndefined();
    expect(compareCcmVersionTexts(undefined, 'v2.1.0')).toBeUndefined();
  });
});
