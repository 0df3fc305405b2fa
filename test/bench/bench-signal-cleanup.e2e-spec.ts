/**
 * A bench stopped by a signal cleans up what it made (`bench:distributed` stopped by `timeout`'s
 * SIGTERM left its throw-away `fleet_audit_bench_*` database behind, its workers running and its Redis keys in place).
 * A real bench process (the suite's build of bench/bench-support.ts) holds a throw-away database and a second
 * cleanup of its own; the test signals it and reads pg_database.
 *
 * The database lives on a private PostgreSQL server, not the suite's shared one: DROP DATABASE waits for the
 * immediate checkpoint it forces (PostgreSQL 15, dbcommands.c `dropdb`), and on the shared server that checkpoint
 * writes and syncs every other running file's dirty pages: 1-6 s with a few files running, past the test's minute
 * once in a full clean-clone run. What this file checks is the bench's signal handling, not that server's load.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivatePostgres, type PrivatePostgres } from '../faults/private-postgres.util';

/** The private server (`beforeAll`) and its admin URL. */
let server: PrivatePostgres | undefined;
let adminUrl = '';

/** The bench process: a throw-away database, then a cleanup that records whether the database still exists. */
const BENCH_SCRIPT = `
const { writeFileSync } = require('node:fs');
const { Client } = require('pg');
const support = require(process.env.SUPPORT);
support.withBenchDatabase(async (url) => {
  const name = new URL(url).pathname.slice(1);
  support.onBenchSignal(async () => {
    const c = new Client({ connectionString: process.env.BENCH_DATABASE_URL });
    await c.connect();
    const n = (await c.query('SELECT count(*)::int AS n FROM pg_database WHERE datname = $1', [name])).rows[0].n;
    await c.end();
    writeFileSync(process.env.MARKER, 'database present during the later cleanup: ' + n);
  });
  // An open session on the database, as a bench's store keeps one: DROP ... WITH (FORCE) must not wait for it.
  const held = new Client({ connectionString: url });
  await held.connect();
  held.on('error', () => undefined);
  console.log('READY ' + name);
  await new Promise(() => undefined);
});
`;

async function databaseExists(name: string): Promise<boolean> {
  const c = new Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await c.end();
  }
}

async function stopBenchWith(signal: 'SIGINT' | 'SIGTERM'): Promise<{ name: string; code: number | null; marker: string; stderr: string }> {
  const dist = process.env.FLEET_AUDIT_DIST;
  if (!dist) throw new Error('FLEET_AUDIT_DIST is not set: the suite build (test/global-setup.ts) did not run');
  const support = join(dist, 'bench', 'bench-support.js');
  if (!existsSync(support)) throw new Error(`${support} is not built`);
  const marker = join(await mkdtemp(join(tmpdir(), 'bench-signal-')), 'marker');
  // The bench's own node_modules resolve `pg` from the repository root (the script runs with the root as cwd).
  const child = spawn(process.execPath, ['-e', BENCH_SCRIPT], {
    cwd: join(__dirname, '..', '..'),
    env: { ...process.env, SUPPORT: support, MARKER: marker, BENCH_DATABASE_URL: adminUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const name = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /READY (\S+)/.exec(stdout);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`bench exited (${code}) before it was ready: ${stderr}`)));
  });
  expect(await databaseExists(name)).toBe(true);
  child.kill(signal);
  const code = await exited;
  return { name, code, marker: existsSync(marker) ? readFileSync(marker, 'utf8') : '', stderr };
}

describe('a bench stopped by a signal (onBenchSignal, withBenchDatabase)', () => {
  beforeAll(async () => {
    server = await startPrivatePostgres();
    adminUrl = server.url;
  }, 60_000);
  afterAll(() => server?.destroy());

  it('SIGTERM: the later cleanup runs first, then the database is dropped; exit 143', async () => {
    const { name, code, marker, stderr } = await stopBenchWith('SIGTERM');
    expect(code).toBe(143);
    expect(marker).toBe('database present during the later cleanup: 1');
    expect(stderr).toContain('bench: SIGTERM: cleaning up before exiting');
    expect(await databaseExists(name)).toBe(false);
  });

  it('SIGINT (Ctrl-C): the database is dropped; exit 130', async () => {
    const { name, code } = await stopBenchWith('SIGINT');
    expect(code).toBe(130);
    expect(await databaseExists(name)).toBe(false);
  });
});
