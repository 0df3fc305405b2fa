/**
 * Vitest global setup (STYLE.md G.38), once per `vitest run`:
 *
 * 1. PostgreSQL: create a template database `<run>_tmpl` and migrate it ONCE; every test file then takes a
 *    database of its own cloned from it (`CREATE DATABASE x TEMPLATE <run>_tmpl`, test/store/test-database.util.ts)
 *    instead of creating one and running every migration. The run's own database `<run>` (a clone too) is exposed
 *    as `process.env.TEST_DATABASE_URL` / `inject('testDatabaseUrl')`; the template's name as
 *    `TEST_DATABASE_TEMPLATE` / `inject('testDatabaseTemplate')`. Teardown drops them all (`<run>` and `<run>_*`).
 *    Each commits without waiting for the disk (`synchronous_commit = off`: see test-database.util.ts).
 * 2. The built CLI: `npm run build:suite` (`nest build cli` with apps/cli/tsconfig.suite.json) into `dist-test/apps/cli` (nest's tsc
 *    builder, which rewrites the @app/* aliases: STACK.md pitfall 12), only when a source file is newer than the
 *    last build. `dist-test/` is not `dist/`, so a `nest build` beside the suite (every `npm run bench:*`) cannot
 *    delete it mid-run. `FLEET_AUDIT_DIST` (read by bin/fleet-audit.js) points the spawned CLI at it. No test builds.
 *
 * - Server: `TEST_PG_ADMIN_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`, trust auth).
 * - When the server is unreachable, unit tests still run; integration tests fail with a clear message from
 *   `test/store/test-database.util.ts` (CI starts Postgres in `.ci/run`, not here).
 * - `SKIP_TEST_BUILD=1` skips step 2 (unit-only runs; a spawning test then fails with "not built yet"), or, with
 *   `FLEET_AUDIT_DIST=DIR`, runs the CLI built in DIR (one's own build while others test in the same checkout).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import type { TestProject } from 'vitest/node';
import { Store } from '@app/store';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of this run's migrated test database ('' when PostgreSQL was unreachable). */
    testDatabaseUrl: string;
    /** Name of the migrated template database the per-file databases are cloned from ('' when unreachable). */
    testDatabaseTemplate: string;
  }
}

const ROOT = join(__dirname, '..');
const ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Databases the teardown drops at once, each on a connection of its own: drops that wait together share the checkpoint
 * each forces (40 drops took 6.8 s one after another, 4.6 s eight at a time, 1.2 s all at once), within PostgreSQL's
 * default 100 connections.
 */
const DROPS_AT_ONCE = 32;

/** Root of the suite's CLI build (`dist-test/apps/cli`, the outDir of apps/cli/tsconfig.suite.json). */
export const SUITE_DIST = join(ROOT, 'dist-test', 'apps', 'cli');
/** Source folders compiled into the CLI build (apps/cli/tsconfig.app.json `include`). */
const BUILD_INPUTS = ['apps', 'libs', 'bench', 'examples', 'nest-cli.json', 'tsconfig.json', 'package.json'];
const STAMP = join(ROOT, 'dist-test', '.sources');
/** The CLI entry of `npm run build` (dist/, the package's own build). */
const DIST_MAIN = join(ROOT, 'dist', 'apps', 'cli', 'apps', 'cli', 'src', 'main.js');

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

/** Newest modification time (ms) and count of the non-test `.ts`/`.json` files under the build inputs. */
function sourceState(): string {
  let newest = 0;
  let count = 0;
  const visit = (p: string) => {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const e of readdirSync(p)) if (e !== 'node_modules' && e !== 'dist' && e !== 'fixtures') visit(join(p, e));
      return;
    }
    if (!/\.(ts|json)$/.test(p) || /\.(spec|integration-spec|e2e-spec)\.ts$/.test(p)) return;
    count++;
    newest = Math.max(newest, st.mtimeMs);
  };
  for (const i of BUILD_INPUTS) visit(join(ROOT, i));
  return `${count}:${newest}`;
}

/**
 * Build the CLI into dist-test/ unless the last build saw the same sources (stamp: file count and newest mtime).
 * @throws Error with the compiler output when the build fails
 */
function buildCliOnce(): void {
  const state = sourceState();
  if (existsSync(join(SUITE_DIST, 'apps', 'cli', 'src', 'main.js')) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === state)
    return;
  const started = Date.now();
  // `npm install` (the `prepare` script) or `npm run build` has just built the same sources with the same compiler
  // options into dist/ (apps/cli/tsconfig.suite.json only moves outDir): copy that build instead of compiling
  // again (.ci/run on a clean clone saved one full `nest build`). Fresh means written after the newest source.
  const newest = Number(state.split(':')[1]);
  const built = statSync(DIST_MAIN, { throwIfNoEntry: false });
  if (built && built.mtimeMs > newest) {
    rmSync(SUITE_DIST, { recursive: true, force: true });
    cpSync(join(ROOT, 'dist', 'apps', 'cli'), SUITE_DIST, { recursive: true });
    writeFileSync(STAMP, state);
    process.stderr.write(`[global-setup] copied the fresh dist/ build into dist-test/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    return;
  }
  const r = spawnSync('npm', ['run', '--silent', 'build:suite'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (r.status !== 0 || !existsSync(join(SUITE_DIST, 'apps', 'cli', 'src', 'main.js'))) {
    throw new Error(`[global-setup] npm run build:suite (nest build cli into dist-test/) failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  }
  mkdirSync(join(ROOT, 'dist-test'), { recursive: true });
  writeFileSync(STAMP, state);
  process.stderr.write(`[global-setup] built the CLI into dist-test/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

/** Create the template (migrated once) and the run's database; returns the teardown that drops them. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.SKIP_TEST_BUILD !== '1') {
    buildCliOnce();
    process.env.FLEET_AUDIT_DIST = SUITE_DIST;
  } else {
    // A build of one's own (several people testing in one checkout each keep theirs): FLEET_AUDIT_DIST names it.
    process.env.FLEET_AUDIT_DIST ??= SUITE_DIST;
  }

  const name = `fleet_audit_test_${process.pid}_${Date.now()}`;
  const template = `${name}_tmpl`;
  try {
    await admin((c) => c.query(`CREATE DATABASE ${template}`));
  } catch (e) {
    process.stderr.write(
      `[global-setup] PostgreSQL at ${ADMIN_URL} is unreachable (${e instanceof Error ? e.message : String(e)}); ` +
        'integration and e2e tests will fail, unit tests run.\n',
    );
    project.provide('testDatabaseUrl', '');
    project.provide('testDatabaseTemplate', '');
    return async () => undefined;
  }
  /** Drop databases of this run, `DROPS_AT_ONCE` at a time (FORCE ends leftover sessions). */
  const drop = async (names: string[]) => {
    const queue = [...names];
    await Promise.all(
      Array.from({ length: Math.min(DROPS_AT_ONCE, queue.length) }, () =>
        admin(async (c) => {
          for (let n = queue.shift(); n !== undefined; n = queue.shift()) await c.query(`DROP DATABASE IF EXISTS "${n}" WITH (FORCE)`);
        }),
      ),
    );
  };
  const perFile = `${name}\\_%`;
  // Every database of the run is dropped here, the files' ones included (`TestDatabase.release` says why not by each
  // file): several at once, as each DROP DATABASE waits for the checkpoint it forces (PostgreSQL 15), about 0.1-0.2 s.
  const dropAll = async () => {
    // The template, the run's database and the per-file ones (`<name>_<suffix>`).
    await admin((c) => c.query(`UPDATE pg_database SET datistemplate = false WHERE datname = $1`, [template]).catch(() => undefined));
    const rows = await admin((c) => c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`, [name, perFile]));
    await drop(rows.rows.map((r) => r.datname));
  };
  try {
    const store = await Store.open({ connectionString: databaseUrl(template), migrate: true });
    await store.close();
    // No session may stay on a template while it is cloned; mark it so nobody connects by mistake.
    await admin((c) => c.query(`ALTER DATABASE ${template} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`));
    await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
    await admin((c) => c.query(`ALTER DATABASE ${name} SET synchronous_commit TO off`));
  } catch (e) {
    await dropAll();
    throw e;
  }
  const url = databaseUrl(name);
  process.env.TEST_DATABASE_URL = url;
  process.env.TEST_DATABASE_TEMPLATE = template;
  project.provide('testDatabaseUrl', url);
  project.provide('testDatabaseTemplate', template);
  return dropAll;
}

