/**
 * Schema migrations: the `.sql` files in `<repo>/migrations`, applied by node-pg-migrate 8.
 *
 * node-pg-migrate 8 is ESM-only, so it is loaded with a dynamic `import()` (kept as a real
 * `import()` in our CommonJS build under `module: nodenext`). Only `.sql` migrations are used:
 * they need no compilation, so the same files work from the repository and from `dist/`.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PoolClient } from 'pg';

/** Table in which node-pg-migrate records applied migrations (its default name). */
export const MIGRATIONS_TABLE = 'pgmigrations';

/**
 * Session-level advisory lock key held while migrating, so processes that start together (api,
 * workers) migrate one after another instead of failing on node-pg-migrate's non-blocking lock.
 * Arbitrary constant, distinct from node-pg-migrate's own `PG_MIGRATE_LOCK_ID`.
 */
const MIGRATION_LOCK_KEY = 4_180_733_911;

/**
 * The repository (or installed package) root's `migrations` directory: walk up from `start`
 * until a directory holds both `package.json` and `migrations/`. Works from `libs/store/src`
 * (tests) and from `dist/.../libs/store/src` (built CLI).
 * @throws Error when no such directory exists above `start`
 */
export function findMigrationsDir(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    const candidate = join(dir, 'migrations');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no migrations directory found above ${start}`);
    dir = parent;
  }
}

/**
 * Apply every pending migration in `dir` on `client`, in one transaction, under a blocking
 * advisory lock. Idempotent: a migrated database is left unchanged.
 * @param client a connected client (the store's pool client; on PGlite the only connection)
 * @param dir directory of `<timestamp>_<past_tense_name>.sql` files; other files are ignored
 * @returns names of the migrations applied now (empty when up to date)
 * @throws the driver's error when a migration fails (nothing is applied then)
 */
export async function runMigrations(client: PoolClient, dir: string): Promise<string[]> {
  const { runner } = await import('node-pg-migrate');
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    const applied = await runner({
      dbClient: client,
      dir,
      ignorePattern: '(?!.*\\.sql$).*',
      direction: 'up',
      migrationsTable: MIGRATIONS_TABLE,
      checkOrder: true,
      singleTransaction: true,
      // Our own blocking lock above replaces node-pg-migrate's try-lock.
      noLock: true,
      // Quiet: the caller reports what was applied; errors are thrown.
      log: () => undefined,
    });
    return applied.map((m) => m.name);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
  }
}
