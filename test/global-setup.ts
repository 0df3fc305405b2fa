/**
 * Vitest global setup (STYLE.md G.38): create a fresh PostgreSQL database for this test run on
 * the local server, migrate it once, expose its URL, and drop it (and every per-file database
 * derived from it) at teardown.
 *
 * - URL: `process.env.TEST_DATABASE_URL` (inherited by the test workers) and `inject('testDatabaseUrl')`.
 * - Server: `TEST_PG_ADMIN_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`, trust auth).
 * - When the server is unreachable, unit tests still run; integration tests fail with a clear
 *   message from `test/store/test-database.util.ts` (CI starts Postgres in `.ci`, not here).
 */
import { Client } from 'pg';
import type { TestProject } from 'vitest/node';
import { Store } from '@app/store';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of this run's migrated test database ('' when PostgreSQL was unreachable). */
    testDatabaseUrl: string;
  }
}

const ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Create and migrate the run's database; returns the teardown that drops it. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const name = `fleet_audit_test_${process.pid}_${Date.now()}`;
  try {
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
  } catch (e) {
    process.stderr.write(
      `[global-setup] PostgreSQL at ${ADMIN_URL} is unreachable (${e instanceof Error ? e.message : String(e)}); ` +
        'integration and e2e tests will fail, unit tests run.\n',
    );
    project.provide('testDatabaseUrl', '');
    return async () => undefined;
  }
  const url = databaseUrl(name);
  const store = await Store.open({ connectionString: url, migrate: true });
  await store.close();
  process.env.TEST_DATABASE_URL = url;
  project.provide('testDatabaseUrl', url);

  return async () => {
    // The run's database and the per-file ones (`<name>_<suffix>`); FORCE ends leftover sessions.
    await admin(async (c) => {
      const rows = await c.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
        [name, `${name}\\_%`],
      );
      for (const { datname } of rows.rows) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    });
  };
}
