/**
 * A throwaway PostgreSQL 15 server of one test file (issue 14 fault suite): `initdb` into a temp
 * directory, `pg_ctl start` on a free port, restart / stop at will, delete everything at the end.
 * Never the shared server on 5432. When the tests run as root the server runs as the `postgres`
 * system user (PostgreSQL refuses to run as root).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../worker/worker-test.util';

/** PostgreSQL binaries (Debian layout); override with PG_BIN. */
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A private PostgreSQL server. */
export interface PrivatePostgres {
  /** URL of its `postgres` database (user postgres, trust auth, 127.0.0.1). */
  url: string;
  port: number;
  /** Stop fast (connections are terminated: SQLSTATE 57P01). */
  stop(): void;
  /** Start again on the same port and data directory. */
  start(): void;
  /** Stop and start (`pg_ctl restart -m fast`). */
  restart(): void;
  /** Stop and delete the data directory. */
  destroy(): void;
}

function run(args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const cmd = asRoot ? 'runuser' : args[0];
  const argv = asRoot ? ['-u', 'postgres', '--', ...args] : args.slice(1);
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${args.slice(0, 2).join(' ')} failed: ${(r.stderr || r.stdout || '').trim().split('\n').slice(-2).join(' ')}`);
}

/** Create and start a private PostgreSQL server (about 2 s). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'fleet-audit-pg-'));
  const data = join(dir, 'data');
  chmodSync(dir, 0o755);
  if (process.getuid?.() === 0) {
    const pw = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(pw.stdout.trim()), Number(gid.stdout.trim()));
  }
  run([join(PG_BIN, 'initdb'), '-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const opts = `-p ${port} -k ${dir} -h 127.0.0.1 -c fsync=off -c max_connections=60`;
  const start = () => run([join(PG_BIN, 'pg_ctl'), '-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => run([join(PG_BIN, 'pg_ctl'), '-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    restart: () => run([join(PG_BIN, 'pg_ctl'), '-D', data, '-o', opts, '-l', join(dir, 'log'), '-m', 'fast', '-w', 'restart']),
    destroy: () => {
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
