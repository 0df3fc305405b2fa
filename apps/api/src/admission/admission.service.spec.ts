import { describe, expect, it } from 'vitest';
import { MAX_WARNING_RUNES, warningText } from './admission.service';

describe('warningText', () => {
  it('turns control characters and white-space runs into one space (the apiserver drops a warning holding any)', () => {
    expect(warningText('fleet-audit: a\nb\t\tc\u0007d\r\n')).toBe('fleet-audit: a b c d');
  });

  it('cuts a long text to 256 runes, counting code points, not UTF-16 units', () => {
    const cut = warningText('😀'.repeat(300));
    expect(Array.from(cut)).toHaveLength(MAX_WARNING_RUNES);
    expect(cut.endsWith('😀…')).toBe(true);
    expect(warningText('x'.repeat(256))).toBe('x'.repeat(256));
  });
});
