/**
 * The store's one transaction helper: every BEGIN / COMMIT of libs/store goes through `withTransaction`.
 */
import type { Pool, PoolClient } from 'pg';

/**
 * Give every connection `pool` opens an `'error'` listener of its own for its whole life.
 *
 * pg-pool listens on a connection only while it is idle (and `pool.query` while its one query runs): a connection
 * held by a caller between two statements has no listener, and node-postgres emits the server's FATAL (57P01 when
 * PostgreSQL restarts or the backend is terminated) as an `'error'` event on it when no query is active. Without a
 * listener that event is an uncaught exception that ends the process. Nothing is lost by ignoring it here: the
 * connection is marked unusable, the holder's next query rejects with the error, and its release (with that error,
 * or by pg-pool's own check of the connection) destroys it instead of pooling it.
 * @param pool a pool of the store (its 'connect' event is emitted once per new connection)
 * @returns `pool`
 */
export function listenForClientErrors(pool: Pool): Pool {
  pool.on('connect', (client) => {
    client.on('error', ignoreConnectionError);
  });
  return pool;
}

function ignoreConnectionError(): void {
  // See listenForClientErrors: the failing query reports the error to its caller.
}

/**
 * Run `fn` in a transaction on one pooled client: BEGIN, then COMMIT when `fn` resolves, ROLLBACK when it
 * (or COMMIT) throws, and rethrow that error unchanged.
 *
 * Failure handling (node-postgres, node-postgres.com/apis/pool#releasing-clients):
 * - while checked out, the client has an `'error'` listener: a connection that dies (PostgreSQL restarts,
 *   the backend is terminated) emits `'error'` on the client, and without a listener that event would crash
 *   the process; the query in flight rejects on its own;
 * - a connection that emitted `'error'` or could not even ROLLBACK is released with that error, which makes
 *   the pool destroy it instead of handing a connection in an unknown transaction state to the next caller;
 * - a destroyed connection can still emit a late socket error (EPIPE for the ROLLBACK written to a dead
 *   backend); pg-pool re-emits it on the pool, so the pool must have an `'error'` listener (the store's has).
 *
 * Everything inside must use `client`: with PGlite the pool has a single connection, so a query on the pool
 * would wait for this transaction forever.
 * @param pool the store's connection pool
 * @param fn the work of the transaction, on the transaction's client
 * @returns what `fn` resolved to
 * @throws whatever `pool.connect()`, BEGIN, `fn` or COMMIT threw (a ROLLBACK failure is not thrown: it only
 *   discards the connection)
 */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (e: Error) => {
    broken = e;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken ??= rollbackError;
    });
    throw e;
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}
