/**
 * Test databases on the local PostgreSQL (STYLE.md G.38). The run's database is created and
 * migrated by `test/global-setup.ts`; suites that assert on global state ("latest succeeded
 * scan", totals) take a database of their own with `createTestDatabase`, so test files running
 * in parallel never see each other's rows. Teardown drops them all.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { inject } from 'vitest';

/**
 * URL of this run's migrated test database.
 * @throws Error when the global setup could not reach PostgreSQL
 */
export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL || inject('testDatabaseUrl');
  if (!url) {
    throw new Error(
      'TEST_DATABASE_URL is not set: test/global-setup.ts could not reach PostgreSQL on 127.0.0.1:5432 (user postgres, trust)',
    );
  }
  return url;
}

/** A database of one test file. */
export interface TestDatabase {
  /** Connection string (empty schema: open a Store with `migrate: true`). */
  url: string;
  /** Drop it (terminating leftover sessions). */
  drop(): Promise<void>;
}

/** Create an empty database named `<run database>_<random>` on the test server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const base = new URL(testDatabaseUrl());
  const runDb = base.pathname.slice(1);
  const name = `${runDb}_${randomBytes(4).toString('hex')}`;
  const adminUrl = new URL(base);
  adminUrl.pathname = '/postgres';
  const withAdmin = async (sql: string) => {
    const c = new Client({ connectionString: adminUrl.toString() });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await withAdmin(`CREATE DATABASE "${name}"`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => withAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
