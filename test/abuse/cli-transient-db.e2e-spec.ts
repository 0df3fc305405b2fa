/**
 * A lost database connection exits 3 (transient) wherever it surfaces, with one line of our own,
 * also when the driver's error reaches the CLI unwrapped (the review: a PostgreSQL restart before a CLI scan's row was
 * created exited 2 with the raw driver message). Real driver errors from the shared PostgreSQL: a session terminated
 * by the server (57P01 admin_shutdown / "Connection terminated"), and a refused connection.
 */
import { Client } from 'pg';
import { describe, expect, it } from 'vitest';
import { describeError, EXIT_TRANSIENT, exitCodeOf } from '../../apps/cli/src/cli-error';
import { testDatabaseUrl } from '../store/test-database.util';

/**
 * A port where nothing listens: the discard port, below the range the system hands out for port 0, so no server of
 * the suite can hold it (a port found free and closed again could be taken before the command connects).
 */
const NOTHING_LISTENS = 9;

async function errorOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

describe('a raw driver error of a lost connection', () => {
  it('a session the server terminates mid-work: exit 3, our message', async () => {
    const victim = new Client({ connectionString: testDatabaseUrl() });
    await victim.connect();
    victim.on('error', () => undefined); // the terminated session also emits 'error'; the query's rejection is what we test
    const pid = (await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const admin = new Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    const e = await errorOf(async () => {
      const pending = victim.query('SELECT pg_sleep(5)');
      // Handled at once: it rejects while the terminate below is awaited, before `await pending` (else an unhandled
      // rejection that fails the run although every test passed); `await pending` still throws it.
      pending.catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await pending;
    });
    await admin.end();
    await victim.end().catch(() => undefined);
    expect(exitCodeOf(e)).toBe(EXIT_TRANSIENT);
    expect(describeError(e)).toMatch(/^the database is unavailable \(PostgreSQL connection lost/);
    expect(describeError(e)).not.toContain('terminating connection');
  });

  it('a refused connection: exit 3', async () => {
    const c = new Client({ connectionString: `postgres://postgres@127.0.0.1:${NOTHING_LISTENS}/none` });
    const e = await errorOf(() => c.connect());
    expect(exitCodeOf(e)).toBe(EXIT_TRANSIENT);
    expect(describeError(e)).toContain('ECONNREFUSED');
  });
});
