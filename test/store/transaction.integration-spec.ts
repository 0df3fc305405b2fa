/**
 * `withTransaction` (libs/store/src/transaction.util.ts), the store's one BEGIN / COMMIT helper, on the real
 * PostgreSQL at 127.0.0.1:5432: commit, rollback, and a connection that dies inside the transaction (its
 * backend terminated), which must neither crash the process nor go back to the pool; `listenForClientErrors`: a
 * connection held between two statements whose backend is terminated neither crashes the process nor is pooled.
 */
import { Client, Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenForClientErrors, withTransaction } from '@app/store';
import { createTestDatabase, type TestDatabase } from './test-database.util';

describe('withTransaction (PostgreSQL)', () => {
  let db: TestDatabase;
  let pool: Pool;
  const poolErrors: Error[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = new Pool({ connectionString: db.url, max: 2 });
    // As in the store (libs/store/src/store.ts): a destroyed connection's late socket error (EPIPE after the
    // ROLLBACK written to a dead backend) is re-emitted by the pool, which must have a listener.
    pool.on('error', (e) => poolErrors.push(e));
    await pool.query('CREATE TABLE tx_probe (id int PRIMARY KEY)');
  });

  afterAll(async () => {
    await pool?.end();
    await db?.release();
  });

  const ids = async (): Promise<number[]> => (await pool.query<{ id: number }>('SELECT id FROM tx_probe ORDER BY id')).rows.map((r) => r.id);

  it('commits what the callback wrote and returns its value', async () => {
    const out = await withTransaction(pool, async (client) => {
      await client.query('INSERT INTO tx_probe (id) VALUES (1), (2)');
      return 'done';
    });
    expect(out).toBe('done');
    expect(await ids()).toEqual([1, 2]);
  });

  it('rolls back everything when the callback throws, rethrows that error and returns the connection', async () => {
    const failure = new Error('callback failed');
    await expect(
      withTransaction(pool, async (client) => {
        await client.query('INSERT INTO tx_probe (id) VALUES (3)');
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await ids()).toEqual([1, 2]);
    // A duplicate key fails inside PostgreSQL: the same rollback, the driver's error unchanged.
    await expect(withTransaction(pool, (client) => client.query('INSERT INTO tx_probe (id) VALUES (4), (1)'))).rejects.toMatchObject({ code: '23505' });
    expect(await ids()).toEqual([1, 2]);
    expect(pool.totalCount).toBeGreaterThan(0); // healthy connections are kept for the next caller
  });

  it('discards a connection that died inside the transaction (no crash, not returned to the pool)', async () => {
    await pool.query('SELECT 1'); // at least one idle connection in the pool
    const admin = new Client({ connectionString: db.url });
    await admin.connect();
    let killedPid = 0;
    try {
      const run = withTransaction(pool, async (client) => {
        killedPid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        await admin.query('SELECT pg_terminate_backend($1)', [killedPid]);
        await client.query('INSERT INTO tx_probe (id) VALUES (5)');
      });
      await expect(run).rejects.toThrow();
    } finally {
      await admin.end();
    }
    expect(await ids()).toEqual([1, 2]);
    // Every later transaction runs on another backend: the dead connection was destroyed, not pooled.
    for (let i = 0; i < 3; i += 1) {
      const pid = await withTransaction(pool, async (client) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
      expect(pid).not.toBe(killedPid);
    }
  });

  it('listenForClientErrors: a held connection whose backend is terminated between two statements is no uncaught error', async () => {
    const guarded = listenForClientErrors(new Pool({ connectionString: db.url, max: 1 }));
    guarded.on('error', () => undefined);
    const admin = new Client({ connectionString: db.url });
    await admin.connect();
    const held = await guarded.connect();
    let released = false;
    try {
      const pid = (await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      // Checked out, no query running: pg-pool has taken its own listener off this connection.
      expect(held.listenerCount('error')).toBe(1);
      const ended = new Promise<void>((resolve) => held.once('end', () => resolve()));
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      // The FATAL (57P01) and the closed socket arrive with no query active: emitted as 'error' on the
      // connection, which without the listener would end the test process.
      await ended;
      await expect(held.query('SELECT 1')).rejects.toThrow();
      held.release();
      released = true;
      // pg-pool destroyed the dead connection on release instead of handing it out again.
      const next = (await guarded.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      expect(next).not.toBe(pid);
    } finally {
      if (!released) held.release(true);
      await admin.end();
      await guarded.end();
    }
  });
});
