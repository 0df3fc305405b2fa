import { describe, expect, it } from 'vitest';
import type { ColumnSpec } from './bulk-insert.util';
import { copyField, copyLine, copyLineEncoder, copyRowEncoder, dedupeRows } from './copy.util';
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

  it('compiles a column list into an encoder writing what copyField writes per column, read by path or by value', () => {
    interface Row {
      inner: { name: string | null; 'odd "key"\\': string };
      n?: number;
      ok: boolean;
      ids: string[];
      doc: unknown;
      json: string | null;
    }
    const columns: ColumnSpec<Row> = [
      ['name', 'text', (r) => r.inner.name, ['inner', 'name']],
      ['odd', 'text', (r) => r.inner['odd "key"\\'], ['inner', 'odd "key"\\']],
      ['n', 'integer', (r) => r.n],
      ['ratio', 'numeric', (r) => (r.n === undefined ? null : r.n / 3)],
      ['ok', 'boolean', (r) => r.ok, ['ok']],
      ['ids', 'text[]', (r) => r.ids, ['ids']],
      ['doc', 'jsonb', (r) => r.doc],
      ['json', 'json', (r) => r.json, ['json']],
    ];
    const rows: Row[] = [
      { inner: { name: 'a\tb\\c\u0000', 'odd "key"\\': '\\N' }, n: 7, ok: true, ids: ['x', 'y"z'], doc: { m: 'l\nm' }, json: '[1,\n2]' },
      { inner: { name: null, 'odd "key"\\': 'lone \ud800' }, ok: false, ids: [], doc: null, json: null },
    ];
    const line = copyLineEncoder(columns);
    expect(copyLineEncoder(columns)).toBe(line);
    for (const row of rows) {
      const expected = `scan-1\t${columns.map(([, kind, value]) => copyField(kind, value(row))).join('\t')}\n`;
      expect(line('scan-1', row)).toBe(expected);
      expect(copyLine(columns, 'scan-1', row)).toBe(expected);
      // Written straight into a Buffer: the same bytes as the line's UTF-8, after what the Buffer held.
      const into = copyRowEncoder(columns);
      const target = { buf: Buffer.alloc(4096, 0xee), pos: 5, limit: 4096 };
      expect(into(target, 'scan-1', row)).toBe(true);
      expect(target.buf.subarray(5, target.pos).toString('utf8')).toBe(expected);
      expect(target.pos - 5).toBe(Buffer.byteLength(expected));
      // Without the room for the row: false, and a caller that keeps its own offset sends nothing of it.
      expect(into({ buf: Buffer.alloc(64), pos: 0, limit: 20 }, 'scan-1', row)).toBe(false);
    }
  });

  it('writes ASCII, UTF-8, escapes and sanitised text into the Buffer as copyField writes them', () => {
    const columns: ColumnSpec<{ s: string; n: number }> = [
      ['s', 'text', (r) => r.s, ['s']],
      ['n', 'numeric', (r) => r.n, ['n']],
    ];
    const into = copyRowEncoder(columns);
    for (const s of ['plain-id', 'tab\there', 'back\\slash', 'crlf\r\n', 'nul\u0000', 'é名 mixed ascii first', '😀', 'lone \udc00', '']) {
      const target = { buf: Buffer.alloc(256), pos: 0, limit: 256 };
      expect(into(target, 'lead', { s, n: 0.1 + 0.2 })).toBe(true);
      expect(target.buf.subarray(0, target.pos).toString('utf8')).toBe(copyLine(columns, 'lead', { s, n: 0.1 + 0.2 }));
    }
  });

  it('writes numbers and text arrays into the Buffer as copyField writes them, digit by digit where it can', () => {
    const columns: ColumnSpec<{ i: unknown; n: unknown; a: unknown }> = [
      ['i', 'integer', (r) => r.i, ['i']],
      ['n', 'numeric', (r) => r.n, ['n']],
      ['a', 'text[]', (r) => r.a, ['a']],
    ];
    const into = copyRowEncoder(columns);
    const numbers: unknown[] = [0, -0, 7, 10, 99, 100, 30267, 2147483647, 2147483648, -1, 1.5, 1e21, Number.MAX_SAFE_INTEGER, '42', null];
    const arrays: unknown[] = [[], ['i-1'], ['10.0.0.1', '10.0.0.2'], ['a"b'], ['back\\slash'], ['tab\there'], ['nul\u0000'], ['é'], ['ok', 'lone \ud800'], [''], null];
    for (const [k, i] of numbers.entries()) {
      const row = { i, n: numbers[(k + 3) % numbers.length], a: arrays[k % arrays.length] };
      const target = { buf: Buffer.alloc(256), pos: 0, limit: 256 };
      expect(into(target, 'lead', row)).toBe(true);
      expect(target.buf.subarray(0, target.pos).toString('utf8')).toBe(copyLine(columns, 'lead', row));
    }
    for (const a of arrays) {
      const target = { buf: Buffer.alloc(256), pos: 0, limit: 256 };
      expect(into(target, 'lead', { i: 1, n: 2, a })).toBe(true);
      expect(target.buf.subarray(0, target.pos).toString('utf8')).toBe(copyLine(columns, 'lead', { i: 1, n: 2, a }));
      // Short of room at any byte: false, never a write past the limit.
      const line = Buffer.byteLength(copyLine(columns, 'lead', { i: 1, n: 2, a }));
      for (let limit = 0; limit < line; limit += 1) {
        const tight = { buf: Buffer.alloc(256, 0xee), pos: 0, limit };
        expect(into(tight, 'lead', { i: 1, n: 2, a })).toBe(false);
        expect(tight.buf.subarray(limit).every((x) => x === 0xee)).toBe(true);
      }
    }
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

  it('returns rows whose keys come in strictly increasing order as they are, and still drops keys equal as stored', () => {
    const sorted = [
      { a: 'a', b: null, v: 1 },
      { a: 'a', b: 'b', v: 2 },
      { a: 'ab', b: 'a', v: 3 },
      { a: 'b', b: '\ud83d\ude00', v: 4 },
    ];
    expect(dedupeRows(sorted, (r) => [r.a, r.b])).toBe(sorted);
    // In code-unit order, yet the same text once stored: a NUL is stored as U+2400.
    const sanitised = [
      { k: 'x\u0000', v: 1 },
      { k: 'x\u2400', v: 2 },
    ];
    expect(dedupeRows(sanitised, (r) => [r.k]).map((r) => r.v)).toEqual([1]);
    // A lone surrogate after the first row, too (stored as U+FFFD).
    const lone = [
      { k: 'a', v: 1 },
      { k: 'x\ud800', v: 2 },
      { k: 'x\ufffd', v: 3 },
    ];
    expect(dedupeRows(lone, (r) => [r.k]).map((r) => r.v)).toEqual([1, 2]);
    // null and undefined are the same stored value (NULL).
    const nulls = [
      { a: null, b: 'x', v: 1 },
      { a: undefined, b: 'x', v: 2 },
    ];
    expect(dedupeRows(nulls, (r) => [r.a, r.b]).map((r) => r.v)).toEqual([1]);
    // Equal neighbours, and a key that goes back.
    expect(dedupeRows([{ k: 'a' }, { k: 'b' }, { k: 'b' }], (r) => [r.k])).toEqual([{ k: 'a' }, { k: 'b' }]);
    expect(dedupeRows([{ k: 'b' }, { k: 'c' }, { k: 'a' }, { k: 'c' }], (r) => [r.k])).toEqual([{ k: 'b' }, { k: 'c' }, { k: 'a' }]);
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
    // The same rows in code-unit order of their raw keys: duplicates are neighbours, or equal only once stored.
    const raw = (x: string | null | undefined) => (x === null || x === undefined ? '' : `~${x}`);
    const inOrder = [...rows].sort((x, y) => {
      for (let j = 0; j < 3; j++) {
        const a = raw(x.k[j]);
        const b = raw(y.k[j]);
        if (a !== b) return a < b ? -1 : 1;
      }
      return x.i - y.i;
    });
    const seenInOrder = new Set<string>();
    const expectedInOrder = inOrder.filter((r) => {
      const k = r.k.map(norm).join(',');
      if (seenInOrder.has(k)) return false;
      seenInOrder.add(k);
      return true;
    });
    expect(dedupeRows(inOrder, (r) => r.k).map((r) => r.i)).toEqual(expectedInOrder.map((r) => r.i));
    const distinct = expectedInOrder.filter((r) => r.k.every((x) => x === null || x === undefined || !x.includes('\u0000')));
    expect(dedupeRows(distinct, (r) => r.k)).toBe(distinct);
  });
});
