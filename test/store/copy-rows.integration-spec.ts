/**
 * The COPY engine (libs/store copy.util.ts `copyRows`) on a real PostgreSQL: rows encoded straight into the 1 MiB
 * Buffer it sends (`copyRowEncoder`), a row that does not fit in what is left of it sent after the Buffer (encoded
 * again into the empty one), and a row longer than a whole Buffer written as its line (`copyLineEncoder`). Every row
 * reads back as written: escapes, NULLs, UTF-8 and sanitised text included.
 */
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ColumnSpec } from '../../libs/store/src/bulk-insert.util';
import { copyRows } from '../../libs/store/src/copy.util';
import { createTestDatabase, type TestDatabase } from './test-database.util';

interface Row {
  id: string;
  n: number | null;
  body: string | null;
  ok: boolean;
}

const COLUMNS: ColumnSpec<Row> = [
  ['id', 'text', (r) => r.id, ['id']],
  ['n', 'integer', (r) => r.n],
  ['body', 'text', (r) => r.body, ['body']],
  ['ok', 'boolean', (r) => r.ok, ['ok']],
];

describe('copyRows on PostgreSQL (rows straight into the Buffer, across Buffers, longer than one)', () => {
  let db: TestDatabase;
  let pool: Pool;
  const SCAN = '00000000-0000-4000-8000-000000000001';

  beforeAll(async () => {
    db = await createTestDatabase({ empty: true });
    pool = new Pool({ connectionString: db.url, max: 1 });
    await pool.query('CREATE TABLE copy_rows_test (scan_id uuid NOT NULL, id text NOT NULL, n integer, body text, ok boolean NOT NULL)');
  });
  afterAll(async () => {
    await pool?.end();
    await db?.release();
  });

  it('writes every row once, as written, whatever Buffer it lands in', async () => {
    const rows: Row[] = [];
    // About 1.1 KiB per row: a Buffer holds some 950 of them, so rows end mid-Buffer and do not fit many times.
    for (let i = 0; i < 5_000; i += 1) rows.push({ id: `i-${i}`, n: i % 7 === 0 ? null : i, body: `${'x'.repeat(1_100 + (i % 13))}${i}`, ok: i % 2 === 0 });
    rows.push({ id: 'special', n: -1, body: 'tab\there\nnew line \\ back é名 😀 nul\u0000 lone \ud800', ok: true });
    // Longer than a whole Buffer (3 MiB of two-byte text): written as its line.
    rows.push({ id: 'long', n: 2, body: '名'.repeat(1_500_000), ok: false });
    rows.push({ id: 'after-long', n: null, body: null, ok: true });
    const client = await pool.connect();
    try {
      expect(await copyRows(client, 'copy_rows_test', COLUMNS, SCAN, rows)).toBe(rows.length);
    } finally {
      client.release();
    }
    const { rows: back } = await pool.query<Row & { scan_id: string }>('SELECT scan_id, id, n, body, ok FROM copy_rows_test');
    expect(back).toHaveLength(rows.length);
    const byId = new Map(back.map((r) => [r.id, r]));
    for (const r of rows) {
      const got = byId.get(r.id)!;
      expect(got.scan_id).toBe(SCAN);
      expect(got.n).toBe(r.n);
      expect(got.ok).toBe(r.ok);
      // Stored sanitised (NUL and a lone surrogate replaced), as the INSERT path stores text.
      expect(got.body).toBe(r.id === 'special' ? 'tab\there\nnew line \\ back é名 😀 nul\u2400 lone \ufffd' : r.body);
    }
  });
});
