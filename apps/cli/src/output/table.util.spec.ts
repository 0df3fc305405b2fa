import { describe, expect, it } from 'vitest';
import { fitColumnWidths, renderTable, tableStyleFor } from './table.util';

const ANSI = new RegExp(String.fromCharCode(27) + '\\[');
const head = ['status', 'check', 'resource', 'used/limit', 'exhausts in p10 / p50 / p90', 'p50 date'];
const rows = Array.from({ length: 5 }, (_, i) => [
  'ok',
  'CLB_BACKEND_SERVER_QUOTA_AND_A_VERY_LONG_CHECK_NAME',
  `LoadBalancer lb-bp1${'x'.repeat(30)}${i}`,
  '150/200',
  '12.3 d / 20.1 d / 41.0 d',
  '2026-12-12',
]);

describe('renderTable', () => {
  it('fits every line in the width and wraps long cells', () => {
    for (const width of [80, 100, 120, 200]) {
      const text = renderTable(head, rows, { width, color: false });
      for (const line of text.split('\n')) expect(line.length, `${width}: ${line}`).toBeLessThanOrEqual(width);
      // Every row is there (short cells stay whole), and the long cells' characters too (wrapped).
      expect(text.split('2026-12-12').length - 1).toBe(rows.length);
      const chars = (t: string) => t.replace(/[│┌┐└┘├┤┬┴┼─\s]/g, '').length;
      expect(chars(text)).toBe(chars([...head, ...rows.flat()].join('')));
    }
  });

  it('has no colour codes unless colour is wanted; the header is never red', () => {
    expect(renderTable(head, rows, { width: 120, color: false })).not.toMatch(ANSI);
    const coloured = renderTable(head, rows, { width: 120, color: true });
    expect(coloured).toMatch(ANSI);
    expect(coloured).not.toContain('\u001b[31m');
  });

  it('colours only a terminal, never with NO_COLOR, and takes its width', () => {
    expect(tableStyleFor({ isTTY: false, columns: 300 })).toEqual({ width: 120, color: false });
    const tty = tableStyleFor({ isTTY: true, columns: 97 });
    expect(tty.width).toBe(97);
  });
});

describe('fitColumnWidths', () => {
  it('keeps natural widths that fit, shrinks the widest first otherwise, never below the minimum', () => {
    expect(fitColumnWidths([5, 10, 20], 100)).toEqual([5, 10, 20]);
    const fitted = fitColumnWidths([10, 60, 80], 100);
    expect(fitted.reduce((a, b) => a + b, 0) + 3 * 3 + 1).toBeLessThanOrEqual(100);
    expect(fitted[0]).toBe(10);
    expect(Math.abs(fitted[1] - fitted[2])).toBeLessThanOrEqual(1);
    expect(fitColumnWidths([50, 50, 50], 10).every((w) => w >= 6)).toBe(true);
    // An id (longest word 23) keeps its width; the wide free-text column gives way instead.
    const withFloor = fitColumnWidths([8, 36, 70], 100, [8, 23, 10]);
    expect(withFloor[1]).toBeGreaterThanOrEqual(23);
    expect(withFloor.reduce((a, b) => a + b, 0) + 3 * 3 + 1).toBeLessThanOrEqual(100);
  });
});
