/**
 * Test databases on the local PostgreSQL (STYLE.md G.38). `test/global-setup.ts` migrates a template database once
 * per run; every test file takes a database of its own with `createTestDatabase`, a clone of that template
 * (`CREATE DATABASE x TEMPLATE t`: a file copy, no migration run), so test files running in parallel never see each
 * other's rows. `{ empty: true }` gives an unmigrated database (upgrade tests that apply older migrations first).
 * The run's teardown drops them all; a file only releases its own (`TestDatabase.release`).
 *
 * Each test database commits without waiting for its WAL to reach the disk (`synchronous_commit = off`, set on the
 * database: a clone does not inherit it): a commit then costs about 0.5 ms instead of 3 ms on this VM (1,000
 * single-row commits 0.56 s against 3.03 s), and the suite commits tens of thousands of times. A commit is still
 * atomic and visible at once; only a crash of the shared server could lose the last few, and no test crashes it (the
 * restart tests run a private server).
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, type QueryResultRow } from 'pg';
import { inject } from 'vitest';
import { findMigrationsDir, MIGRATIONS_TABLE } from '@app/store';

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
  /** Connection string (schema migrated to the latest migration unless created with `empty: true`). */
  url: string;
  /**
   * Release it when the file is done with it: it takes no more connections and its leftover sessions end now; the
   * run's teardown (test/global-setup.ts) drops it with the others. Not dropped here: DROP DATABASE forces an
   * immediate checkpoint in PostgreSQL 15 (src/backend/commands/dbcommands.c `dropdb`), and one per file (about 150
   * a run) flushed every other running file's dirty pages and made their next writes log full page images, for
   * databases about to be dropped anyway.
   */
  release(): Promise<void>;
}

/** Options of `createTestDatabase`. */
export interface TestDatabaseOptions {
  /** An empty database (no migration applied) instead of a clone of the migrated template. Default false. */
  empty?: boolean;
}

/** Attempts of a clone while another session still holds the template (PostgreSQL refuses, 55006). */
const CLONE_ATTEMPTS = 20;

/**
 * Create a database named `<run database>_<random>` on the test server: a clone of the run's migrated template,
 * or an empty one with `{ empty: true }`. The run's teardown drops it (`TestDatabase.release` says why not before).
 * @throws Error when the global setup could not reach PostgreSQL, or PostgreSQL refuses the database
 */
export async function createTestDatabase(opts: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const base = new URL(testDatabaseUrl());
  const runDb = base.pathname.slice(1);
  const template = process.env.TEST_DATABASE_TEMPLATE || inject('testDatabaseTemplate');
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
  if (opts.empty || !template) {
    await withAdmin(`CREATE DATABASE "${name}"`);
  } else {
    for (let attempt = 1; ; attempt++) {
      try {
        await withAdmin(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
        break;
      } catch (e) {
        // "source database ... is being accessed by other users": a concurrent clone; PostgreSQL does not wait.
        if ((e as { code?: string }).code !== '55006' || attempt >= CLONE_ATTEMPTS) throw e;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }
  await withAdmin(`ALTER DATABASE "${name}" SET synchronous_commit TO off`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    release: () =>
      withAdmin(
        `ALTER DATABASE "${name}" ALLOW_CONNECTIONS false; ` +
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
      ),
  };
}

/**
 * One statement (or several, without parameters) on a connection of its own to `url`, closed afterwards.
 * @returns the rows of the (last) statement
 */
export async function queryOnce<R extends QueryResultRow = Record<string, unknown>>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/**
 * Roll a migrated database back through migration `name`: the down step of every migration from the newest to `name`
 * (included), each followed by the removal of its row in the migrations table, so `Store.open({ migrate: true })`
 * applies them again in order.
 * @param sql a connection to the database
 * @returns the migrations rolled back, newest first
 * @throws Error when `name` is not a migration file, or one of them has no down step
 */
export async function rollBackThrough(sql: Client, name: string): Promise<string[]> {
  const dir = findMigrationsDir();
  const all = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => f.slice(0, -'.sql'.length))
    .sort();
  if (!all.includes(name)) throw new Error(`no migration ${name} in ${dir}`);
  const rolled = all.filter((m) => m >= name).reverse();
  for (const m of rolled) {
    const text = readFileSync(join(dir, `${m}.sql`), 'utf8');
    const at = text.indexOf('-- Down Migration');
    if (at < 0) throw new Error(`${m}.sql has no down step`);
    await sql.query(text.slice(at));
    await sql.query(`DELETE FROM ${MIGRATIONS_TABLE} WHERE name = $1`, [m]);
  }
  return rolled;
}
