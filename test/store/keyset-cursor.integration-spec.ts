/**
 * The keyset-cursor helper on real PostgreSQL: paging a mixed-direction order visits every row
 * exactly once even when rows are inserted before the cursor between pages.
 */
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, keysetAfter, keysetOrderBy, type KeysetColumn, StoreError } from '@app/store';
import { createTestDatabase, type TestDatabase } from './test-database.util';

const ORDER: KeysetColumn[] = [
  { expr: 'rank', dir: 'desc' },
  { expr: 'name', dir: 'asc' },
  { expr: 'id', dir: 'asc' },
];

describe('keyset cursors', () => {
  let db: TestDatabase;
  let c: Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    c = new Client({ connectionString: db.url });
    await c.connect();
    await c.query('CREATE TABLE t (id int PRIMARY KEY, rank int NOT NULL, name text NOT NULL)');
    await c.query(`INSERT INTO t SELECT g, g % 3, 'n' || (g % 7) FROM generate_series(1, 100) g`);
  });

  afterAll(async () => {
    await c?.end();
    await db?.release();
  });

  async function page(after: string | null, size: number): Promise<{ ids: number[]; next: string | null }> {
    const params: unknown[] = [];
    const param = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const where = after ? `WHERE ${keysetAfter(ORDER, decodeCursor(after, ORDER.length), param)}` : '';
    const rows = await c.query<{ id: number; rank: number; name: string }>(`SELECT id, rank, name FROM t ${where} ${keysetOrderBy(ORDER)} LIMIT ${param(size)}`, params);
    const last = rows.rows.at(-1);
    return { ids: rows.rows.map((r) => r.id), next: rows.rows.length === size && last ? encodeCursor([last.rank, last.name, last.id]) : null };
  }

  it('visits every original row exactly once while rows are inserted before the cursor', async () => {
    const expected = (await c.query<{ id: number }>(`SELECT id FROM t ${keysetOrderBy(ORDER)}`)).rows.map((r) => r.id);
    const seen: number[] = [];
    let cursor: string | null = null;
    let inserted = 1000;
    do {
      const p = await page(cursor, 7);
      seen.push(...p.ids);
      cursor = p.next;
      // A concurrent writer adds rows that sort before everything read so far (highest rank, first name).
      await c.query(`INSERT INTO t VALUES ($1, 9, 'a')`, [inserted++]);
    } while (cursor);
    expect(seen.filter((id) => id < 1000)).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('refuses malformed cursors with INVALID_ARGUMENT', () => {
    for (const bad of ['not-base64!', encodeCursor([1, 'x']), Buffer.from('{"a":1}').toString('base64url'), encodeCursor([1, 'x', null as unknown as number])]) {
      expect(() => decodeCursor(bad, 3)).toThrow(StoreError);
    }
    expect(decodeCursor(encodeCursor([2, 'n3', 17]), 3)).toEqual([2, 'n3', 17]);
  });
});
