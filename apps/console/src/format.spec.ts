import { describe, expect, it } from 'vitest';
import { age, pct, toCsv } from './format';

describe('console format helpers', () => {
  it('toCsv quotes what needs it and defuses spreadsheet formulas', () => {
    const text = toCsv(
      ['a', 'b', 'c'],
      [
        ['plain', 'with, comma', 'say "hi"\nnext line'],
        ['=HYPERLINK("x")', '+1', null],
      ],
    );
    // RFC 4180: CRLF line ends, fields with a comma, quote or line break quoted, quotes doubled.
    expect(text).toBe(
      'a,b,c\r\nplain,"with, comma","say ""hi""\nnext line"\r\n"\'=HYPERLINK(""x"")",\'+1,\r\n',
    );
  });

  it('pct and age read as the pages show them', () => {
    expect(pct(0.845)).toBe('85%');
    expect(pct(null)).toBe('–');
    const now = Date.parse('2026-11-29T12:00:00Z');
    expect(age('2026-11-29T11:59:30Z', now)).toBe('30 s ago');
    expect(age('2026-11-29T09:00:00Z', now)).toBe('3 h ago');
    expect(age('2026-11-26T12:00:00Z', now)).toBe('3 d ago');
  });
});
