/**
 * Throwaway PostgreSQL 15 and Redis servers for the test suites (test/faults, test/worker) and
 * `npm run chaos`: the ONE starter of private servers (it lives under bench/ because `nest build
 * cli` compiles bench/ but not test/; the tests import it from here).
 *
 * - PostgreSQL: `initdb` into a temp directory, `pg_ctl start` on a free port, restart / stop at
 *   will, delete everything at the end. When run as root the server runs as the `postgres` system
 *   user (PostgreSQL refuses to run as root).
 * - Redis: `redis-server` on a free loopback port without persistence, so a shutdown loses every key.
 *
 * Never the shared servers on 5432 / 6379.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PostgreSQL binaries (Debian layout); override with PG_BIN. */
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A free TCP port on 127.0.0.1. */
export function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** A private PostgreSQL server. */
export interface PrivatePostgres {
  /** URL of its `postgres` database (user postgres, trust auth, 127.0.0.1). */
  url: string;
  port: number;
  /** Stop fast (connections are terminated: SQLSTATE 57P01). */
  stop(): void;
  /** Start again on the same port and data directory. */
  start(): void;
  /** Stop and start (`pg_ctl restart -m fast`), blocking. */
  restart(): void;
  /** The same without blocking this process's event loop (the restart runs in a child). */
  restartAsync(): Promise<void>;
  /** Stop and delete the data directory. */
  destroy(): void;
}

function argvOf(args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...args]] : [args[0], args.slice(1)];
}

function run(args: string[]): void {
  const [cmd, argv] = argvOf(args);
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${args.slice(0, 2).join(' ')} failed: ${(r.stderr || r.stdout || '').trim().split('\n').slice(-2).join(' ')}`);
}

function runAsync(args: string[]): Promise<void> {
  const [cmd, argv] = argvOf(args);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.slice(0, 2).join(' ')} exited ${code}`))));
  });
}

/**
 * Bind attempts of a private server: a port found free (`freeTcpPort`) is closed again before the server binds it,
 * so another process can take it in between; the server is then started on another free port.
 */
const BIND_ATTEMPTS = 5;

/**
 * Create and start a private PostgreSQL server (about 2 s), on another free port when the one found was taken before
 * the server bound it.
 * @throws Error from initdb or pg_ctl (the last lines of its output), or when no port could be bound
 */
export async function startPrivatePostgres(options: PrivateServerOptions = {}): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-audit-pg-'));
  const data = join(dir, 'data');
  chmodSync(dir, 0o755);
  if (process.getuid?.() === 0) {
    const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(uid.stdout.trim()), Number(gid.stdout.trim()));
  }
  run([join(PG_BIN, 'initdb'), '-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const ctl = (...a: string[]) => [join(PG_BIN, 'pg_ctl'), '-D', data, ...a];
  const log = join(dir, 'log');
  let port: number;
  let opts = '';
  const start = () => run(ctl('-o', opts, '-l', log, '-w', 'start'));
  const stop = () => run(ctl('-m', 'fast', '-w', 'stop'));
  for (let attempt = 1; ; attempt++) {
    port = await (options.portSource ?? freeTcpPort)();
    opts = `-p ${port} -k ${dir} -h 127.0.0.1 -c fsync=off -c max_connections=100`;
    try {
      start();
      break;
    } catch (e) {
      // The server's log says why it did not start; only a taken port is worth another attempt.
      const taken = /could not bind .* Address already in use/.test(readFileSync(log, { encoding: 'utf8', flag: 'a+' }));
      if (!taken || attempt === BIND_ATTEMPTS) {
        rmSync(dir, { recursive: true, force: true });
        throw e;
      }
      writeFileSync(log, '');
    }
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    restart: () => run(ctl('-o', opts, '-l', log, '-m', 'fast', '-w', 'restart')),
    restartAsync: () => runAsync(ctl('-o', opts, '-l', log, '-m', 'fast', '-w', 'restart')),
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

/** A redis-server of our own (restart tests), on loopback, without persistence. */
export interface PrivateRedis {
  url: string;
  port: number;
  /** `redis-cli shutdown nosave`: every key is lost. */
  shutdownNoSave(): void;
  /** Start it again on the same port (empty). */
  start(): Promise<void>;
  /** Stop it for good. */
  stop(): Promise<void>;
}

/** A redis-server that exited before it answered: it could not bind its port (another process holds it). */
class RedisPortTakenError extends Error {}

/** Options of the private server starters. */
export interface PrivateServerOptions {
  /** Where each attempt's port comes from (tests of the retry); default `freeTcpPort`. */
  portSource?: () => Promise<number>;
}

/**
 * Start a private redis-server on a free port (needs `redis-server` and `redis-cli` on PATH), on another free port
 * when the one found was taken before the server bound it. The server counts as started once the Redis answering on
 * its port reports the child's own process id (`INFO server`): another process's server on that port does not count.
 * @throws Error when it does not answer within 10 s, or when every attempt's port was taken
 */
export async function startPrivateRedis(options: PrivateServerOptions = {}): Promise<PrivateRedis> {
  let port = 0;
  let child: ChildProcess | undefined;
  /** The process id of the Redis answering on the port, or undefined when none answers. */
  const answeringPid = (): number | undefined => {
    // Bounded: a process on the port that is not Redis may accept the connection and never answer.
    const out = spawnSync('redis-cli', ['-p', String(port), 'info', 'server'], { encoding: 'utf8', timeout: 2_000 }).stdout ?? '';
    const m = /^process_id:(\d+)/m.exec(out);
    return m ? Number(m[1]) : undefined;
  };
  const start = async () => {
    const c = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    child = c;
    const deadline = Date.now() + 10_000;
    // Until the child itself answers: a server that cannot bind its port exits at once, so another process's server
    // answering there meanwhile is only waited out.
    for (;;) {
      const pid = answeringPid();
      if (pid !== undefined && pid === c.pid) return;
      if (c.exitCode !== null || c.signalCode !== null)
        throw new RedisPortTakenError(
          `redis-server could not serve port ${port}: it exited (${c.exitCode ?? c.signalCode})${pid !== undefined ? `; process ${pid} answers there` : ''}`,
        );
      if (Date.now() > deadline) {
        c.kill('SIGKILL');
        throw new Error(`redis-server on ${port} did not start within 10 s`);
      }
      await new Promise((res) => setTimeout(res, 100));
    }
  };
  const shutdownNoSave = () => {
    spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { encoding: 'utf8' });
  };
  for (let attempt = 1; ; attempt++) {
    port = await (options.portSource ?? freeTcpPort)();
    try {
      await start();
      break;
    } catch (e) {
      if (!(e instanceof RedisPortTakenError) || attempt === BIND_ATTEMPTS) throw e;
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    shutdownNoSave,
    start,
    stop: async () => {
      shutdownNoSave();
      const c = child;
      if (c && c.exitCode === null && c.signalCode === null) {
        await new Promise<void>((res) => {
          const t = setTimeout(() => {
            c.kill('SIGKILL');
            res();
          }, 3_000);
          c.once('exit', () => {
            clearTimeout(t);
            res();
          });
        });
      }
    },
  };
}
