import { describe, expect, it } from 'vitest';
import { copyField, copyLine, dedupeRows } from './copy.util';
import { storableJson } from './sql.util';

describe('COPY text format (copy.util)', () => {
  it('escapes backslash, newline, carriage return and tab, and writes NULL as \\N', () => {
    expect(copyField('text', 'a\\b\nc\rd\te')).toBe('a\\\\b\\nc\\rd\\te');
    expect(copyField('text', null)).toBe('\\N');
    expect(copyField('jsonb', undefined)).toBe('\\N');
    // A value that is literally `\N` is data, not NULL.
    expect(copyField('text', '\\N')).toBe('\\\\N');
  });

  it('sanitises text as the INSERT path does: NUL and lone surrogates replaced, pairs kept', () => {
    expect(copyField('text', 'x\u0000y')).toBe('x\u2400y');
    expect(copyField('text', 'lone \ud800 end')).toBe('lone \ufffd end');
    expect(copyField('text', 'pair 😀')).toBe('pair 😀');
  });

  it('writes arrays as quoted array literals, JSON with its escapes doubled, numbers and booleans as PostgreSQL reads them', () => {
    expect(copyField('text[]', ['10.0.0.1', 'a"b', 'c\\d', ''])).toBe('{"10.0.0.1","a\\\\"b","c\\\\\\\\d",""}');
    expect(copyField('text[]', [])).toBe('{}');
    expect(copyField('text[]', ['i-1', '10.0.0.1'])).toBe('{"i-1","10.0.0.1"}');
    // One element to escape or sanitise: every element as the general path writes it.
    expect(copyField('text[]', ['ok', 'tab\there', 'nul\u0000', 'lone \ud800'])).toBe('{"ok","tab\\there","nul\u2400","lone \ufffd"}');
    expect(copyField('jsonb', { m: 'line\nnext', n: 'nul\u0000' })).toBe(storableJson({ m: 'line\nnext', n: 'nul\u0000' }).replaceAll('\\', '\\\\'));
    expect(copyField('json', '[["i-1",null,80,100,"ecs"]]')).toBe('[["i-1",null,80,100,"ecs"]]');
    // JSON text as given may hold a raw newline or tab (a pretty-printed document): COPY-escaped.
    expect(copyField('json', '[\n\t"a\\"b"\r]')).toBe('[\\n\\t"a\\\\"b"\\r]');
    // jsonb without a backslash is sent as JSON.stringify wrote it.
    expect(copyField('jsonb', [{ port: 80, name: 'k8s/80/svc', ips: ['10.0.0.1'], none: null }])).toBe(JSON.stringify([{ port: 80, name: 'k8s/80/svc', ips: ['10.0.0.1'], none: null }]));
    expect(copyField('jsonb', { s: 'lone \ud800 quote " back \\' })).toBe(storableJson({ s: 'lone \ud800 quote " back \\' }).replaceAll('\\', '\\\\'));
    expect(copyField('numeric', 0.85)).toBe('0.85');
    expect(copyField('integer', 42)).toBe('42');
    expect(copyField('boolean', true)).toBe('t');
    expect(copyField('boolean', false)).toBe('f');
  });

  it('writes one line per row: the scan id, then the columns in order, tab-separated', () => {
    const line = copyLine<{ id: string; n: number | null }>(
      [
        ['id', 'text', (r) => r.id],
        ['n', 'integer', (r) => r.n],
      ],
      'scan-1',
      { id: 'lb\t1', n: null },
    );
    expect(line).toBe('scan-1\tlb\\t1\t\\N\n');
  });

  it('keeps the first row of each key, comparing keys as they are stored (after sanitising)', () => {
    const rows = [
      { k: 'a', v: 1 },
      { k: 'b', v: 2 },
      { k: 'a', v: 3 },
      { k: 'x\u0000', v: 4 },
      { k: 'x\u2400', v: 5 },
    ];
    expect(dedupeRows(rows, (r) => [r.k]).map((r) => r.v)).toEqual([1, 2, 4]);
    // Parts of a composite key do not run into each other.
    const pairs = [
      { a: 'ab', b: 'c' },
      { a: 'a', b: 'bc' },
    ];
    expect(dedupeRows(pairs, (r) => [r.a, r.b])).toHaveLength(2);
    // Nothing to drop: the same array back.
    expect(dedupeRows(pairs, (r) => [r.a, r.b])).toBe(pairs);
  });

  it('keeps the first row of each key among many, as a key string per row would (composite keys, nulls, sanitised text)', () => {
    const parts = ['a', 'b', 'x\u0000', 'x\u2400', null, undefined, '\u0001', ''];
    const rows = Array.from({ length: 20_000 }, (_, i) => ({
      k: [parts[i % parts.length], `id-${i % 1_000}`, parts[(i >> 3) % parts.length]] as (string | null | undefined)[],
      i,
    }));
    const norm = (x: string | null | undefined) => (x === null || x === undefined ? 'null' : JSON.stringify(x.replace('\u0000', '\u2400')));
    const seen = new Set<string>();
    const expected = rows.filter((r) => {
      const k = r.k.map(norm).join(',');
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    expect(expected.length).toBeLessThan(rows.length);
    expect(dedupeRows(rows, (r) => r.k).map((r) => r.i)).toEqual(expected.map((r) => r.i));
  });
});
