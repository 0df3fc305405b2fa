/**
 * `flat`: result messages are stored flat; the value must never change, whatever the string
 * holds (white space at the ends, which `trim` would remove, non-ASCII, empty).
 */
import { describe, expect, it } from 'vitest';
import { flat } from '../src/result.util';

describe('flat', () => {
  it.each([
    '',
    ' ',
    'a',
    'Service default/web in Cluster mode attaches 300 backends',
    '  leading white space kept',
    'trailing white space kept \n',
    '\t both \u00a0',
    'non-ASCII × é 中文 ✓',
  ])('returns the same value for %j', (s) => {
    expect(flat(s)).toBe(s);
  });

  it('returns the same value for a long string built by template literals', () => {
    const parts = Array.from({ length: 50 }, (_, i) => `part ${i} `);
    let s = '';
    for (const p of parts) s = `${s}${p}`;
    expect(flat(s)).toBe(parts.join(''));
  });
});
