import { describe, expect, it } from 'vitest';
import { MAX_WARNING_RUNES, notJudgedWarning, warningText } from './admission.service';

describe('warningText', () => {
  it('turns control characters and white-space runs into one space (the apiserver drops a warning holding any)', () => {
    expect(warningText('fleet-audit: a\nb\t\tc\u0007d\r\n')).toBe('fleet-audit: a b c d');
  });

  it('cuts a long text to 120 runes, counting code points, not UTF-16 units', () => {
    expect(MAX_WARNING_RUNES).toBe(120);
    const cut = warningText('😀'.repeat(300));
    expect(Array.from(cut)).toHaveLength(120);
    expect(cut.endsWith('😀…')).toBe(true);
    expect(warningText('x'.repeat(120))).toBe('x'.repeat(120));
    expect(warningText('x'.repeat(121))).toBe(`${'x'.repeat(119)}…`);
  });

  it('cuts at a word near the end where there is one', () => {
    const text = 'fleet-audit: critical: CLB_LISTENER_QUOTA CLB lb-whatif000001 has 51 listeners: 102 % of its listener quota 50 (documented default)';
    expect(warningText(text)).toBe('fleet-audit: critical: CLB_LISTENER_QUOTA CLB lb-whatif000001 has 51 listeners: 102 % of its listener quota 50 …');
  });
});

describe('notJudgedWarning', () => {
  it('keeps what happened to the change at the end of one line of at most 120 runes, the reason cut', () => {
    expect(notJudgedWarning('the forecast pool is busy')).toBe('fleet-audit: not judged (the forecast pool is busy); the change is allowed');
    const long = notJudgedWarning(`cannot plan: ${'y'.repeat(200)}\nsecond line`);
    expect(Array.from(long)).toHaveLength(120);
    expect(long).toMatch(/^fleet-audit: not judged \(cannot plan: y+…\); the change is allowed$/);
  });
});
