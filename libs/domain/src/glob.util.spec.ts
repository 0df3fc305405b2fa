import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, globMatches, globWildcardCount, hasGlobWildcard } from './glob.util';

/** The backtracking RegExp reading of a glob: correct, and fine on the short strings fast-check draws. */
function reference(pattern: string, text: string, single = true): boolean {
  const source = [...pattern].map((c) => (c === '*' ? '.*' : single && c === '?' ? '.' : c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, 's').test(text);
}

describe('globMatches', () => {
  it('matches ids as the waiver and what-if globs mean them', () => {
    expect(globMatches('lb-bp1*', 'lb-bp1abc')).toBe(true);
    expect(globMatches('lb-bp1*', 'lb-bp2abc')).toBe(false);
    expect(globMatches('storefront/*', 'storefront/web')).toBe(true);
    expect(globMatches('*', '')).toBe(true);
    expect(globMatches('*/web', 'a/b/web')).toBe(true);
    expect(globMatches('i-2ze????', 'i-2zeabcd')).toBe(true);
    expect(globMatches('i-2ze????', 'i-2zeabc')).toBe(false);
    expect(globMatches('a?c', 'a?c', { singleCharacterWildcard: false })).toBe(true);
    expect(globMatches('a?c', 'abc', { singleCharacterWildcard: false })).toBe(false);
    expect(globMatches('slb:Describe*', 'SLB:DESCRIBELOADBALANCERS', { caseInsensitive: true })).toBe(true);
    expect(globMatches('a.b', 'axb')).toBe(false);
    expect(globMatches('a\nb*', 'a\nbc')).toBe(true);
  });

  it('agrees with the RegExp reading on random patterns and texts', () => {
    const alphabet = fc.constantFrom('a', 'b', '/', '*', '?', '.');
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 8 }), fc.string({ unit: fc.constantFrom('a', 'b', '/', '.', '*', '?'), maxLength: 10 }), fc.boolean(), (pattern, text, single) => {
        expect(globMatches(pattern, text, { singleCharacterWildcard: single })).toBe(reference(pattern, text, single));
      }),
      { numRuns: 3000 },
    );
  });

  it('needs at most (pattern + 1) x (text + 1) steps: the star patterns that hang a backtracking RegExp return at once', () => {
    // Twelve stars then a character absent from the id: a RegExp tries every way to split the id among the stars.
    const id = 'lb-'.padEnd(4000, 'x');
    expect(globMatches('************#', id)).toBe(false);
    expect(globMatches('*a*a*a*a*a*a*a*a*b', 'a'.repeat(4000))).toBe(false);
    expect(globMatches('*a*a*a*a*a*a*a*a*b', `${'a'.repeat(4000)}b`)).toBe(true);
  });

  it('compiles an exact id to equality and counts wildcards', () => {
    expect(compileGlob('lb-1')('lb-1')).toBe(true);
    expect(compileGlob('lb-1')('lb-10')).toBe(false);
    expect(compileGlob('LB-*', { caseInsensitive: true })('lb-9')).toBe(true);
    expect(compileGlob('A?', { singleCharacterWildcard: false, caseInsensitive: true })('a?')).toBe(true);
    expect(hasGlobWildcard('a?b')).toBe(true);
    expect(hasGlobWildcard('a?b', { singleCharacterWildcard: false })).toBe(false);
    expect(globWildcardCount('************#')).toBe(12);
    expect(globWildcardCount('i-2ze??*')).toBe(3);
  });
});
