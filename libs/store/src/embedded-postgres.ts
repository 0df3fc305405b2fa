/**
 * Embedded PostgreSQL for the zero-setup mode (docs/architecture.md "Running modes"): PGlite
 * (PostgreSQL compiled to WASM) served over the PostgreSQL wire protocol on 127.0.0.1 by
 * pglite-socket, so the same `pg` code path serves both back ends.
 *
 * PGlite runs in a worker thread of this process: its start (WASM compile, `initdb`, ~5 CPU-seconds
 * on a fresh in-memory cluster) and its queries then run beside the caller's event loop instead of
 * blocking it, so `demo` scans while the database starts.
 *
 * A fresh in-memory cluster is created by running `initdb` inside PGlite; with `templateCacheDir`,
 * the migrated schema is kept as a `dumpDataDir` tarball keyed by the PGlite version and the
 * migrations' contents, and later starts load it with `loadDataDir` instead (about a third of the
 * CPU of `initdb` + migrations). PGlite API: https://pglite.dev/docs/api (`dumpDataDir`, `loadDataDir`).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { findMigrationsDir } from './migrate.util';

/** A running embedded PostgreSQL. */
export interface EmbeddedPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (no password; loopback only). */
  connectionString: string;
  /**
   * Pool size to use on it: 1. The socket server accepts one connection at a time and queues
   * queries of others in ways that block inside transactions (STACK.md pitfall 17).
   */
  poolMax: 1;
  /**
   * Where the database came from: `dataDir` (the given directory), `template` (the cached migrated
   * schema: migrating applies nothing) or `initdb` (a new empty cluster).
   */
  origin: 'dataDir' | 'template' | 'initdb';
  /**
   * Keep this database as the migrated-schema template of later starts. Call it right after
   * migrating and before writing any data (the template is a copy of the whole cluster).
   * @returns the template file written, or undefined when there is nothing to do (no
   *   `templateCacheDir`, or the database did not come from `initdb`)
   * @throws Error when the cache directory or file cannot be written (the database is unaffected)
   */
  saveTemplate(): Promise<string | undefined>;
  /** Stop the socket server, close the database and end its thread (close the Store first). */
  close(): Promise<void>;
}

/** Options of `startEmbeddedPostgres`. */
export interface EmbeddedPostgresOptions {
  /** Directory to keep the database in across runs; default: in memory (lost on close). */
  dataDir?: string;
  /**
   * Directory of migrated-schema templates for in-memory databases (see `defaultTemplateCacheDir`);
   * default: none (every start runs `initdb`). Ignored with `dataDir`.
   */
  templateCacheDir?: string;
  /** The `.sql` migrations the template must match (default: `<package root>/migrations`). */
  migrationsDir?: string;
}

/**
 * `$XDG_CACHE_HOME/ack-fleet-audit` or `~/.cache/ack-fleet-audit` (XDG Base Directory
 * Specification: https://specifications.freedesktop.org/basedir-spec/latest/: a relative XDG_CACHE_HOME is
 * ignored).
 * @param env the environment to read XDG_CACHE_HOME from (the CLI passes @app/config's `processEnvironment()`;
 *   libs/store reads no environment of its own)
 */
export function defaultTemplateCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'ack-fleet-audit');
}

const requireHere = createRequire(__filename);

/**
 * File name of the template for this PGlite version and these migrations:
 * `pglite-<version>-<sha256 of every migration's name and content, 16 hex>.tar.gz`. Any change
 * to a migration or to PGlite selects another file.
 * @throws Error when the migrations directory cannot be read
 */
export function templateFileName(migrationsDir: string = findMigrationsDir()): string {
  const pkg = JSON.parse(readFileSync(join(dirname(requireHere.resolve('@electric-sql/pglite')), '..', 'package.json'), 'utf8')) as { version: string };
  const hash = createHash('sha256');
  for (const f of readdirSync(migrationsDir).filter((n) => n.endsWith('.sql')).sort()) {
    hash.update(`${f}\n`);
    hash.update(readFileSync(join(migrationsDir, f)));
  }
  return `pglite-${pkg.version}-${hash.digest('hex').slice(0, 16)}.tar.gz`;
}

/**
 * The worker thread's code (CommonJS, `eval`): start PGlite (data directory, template or
 * `initdb`), serve it on 127.0.0.1, then answer `dump` and `close` messages. Package paths come
 * resolved from the caller, so it works from the sources (tests) and from `dist/`.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync, writeFileSync, renameSync, rmSync } = require('node:fs');
const { threadId } = require('node:worker_threads');
(async () => {
  const { PGlite } = require(workerData.pglite);
  const { PGLiteSocketServer } = require(workerData.socket);
  let db;
  let origin = 'initdb';
  if (workerData.dataDir !== undefined) {
    db = await PGlite.create(workerData.dataDir);
    origin = 'dataDir';
  } else {
    if (workerData.template !== undefined) {
      try {
        db = await PGlite.create({ loadDataDir: new Blob([readFileSync(workerData.template)]) });
        origin = 'template';
      } catch {
        db = undefined; // unreadable or corrupt template: start from initdb (and save a new one)
      }
    }
    if (db === undefined) db = await PGlite.create();
  }
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  try {
    await server.start();
  } catch (e) {
    await db.close();
    throw e;
  }
  parentPort.on('message', async (m) => {
    try {
      if (m.type === 'dump') {
        const blob = await db.dumpDataDir('gzip');
        const tmp = m.path + '.' + process.pid + '-' + threadId + '.tmp';
        try {
          writeFileSync(tmp, Buffer.from(await blob.arrayBuffer()));
          renameSync(tmp, m.path);
        } finally {
          rmSync(tmp, { force: true });
        }
        parentPort.postMessage({ type: 'done', id: m.id });
      } else if (m.type === 'close') {
        await server.stop();
        await db.close();
        parentPort.postMessage({ type: 'done', id: m.id });
        parentPort.close();
      }
    } catch (e) {
      parentPort.postMessage({ type: 'error', id: m.id, message: e && e.message ? e.message : String(e) });
    }
  });
  parentPort.postMessage({ type: 'ready', conn: server.getServerConn(), origin });
})().catch((e) => parentPort.postMessage({ type: 'failed', message: e && e.message ? e.message : String(e) }));
`;

/** Messages from the worker thread. */
type FromWorker =
  | { type: 'ready'; conn: string; origin: EmbeddedPostgres['origin'] }
  | { type: 'failed'; message: string }
  | { type: 'done'; id: number }
  | { type: 'error'; id: number; message: string };

/**
 * Start PGlite in a worker thread and serve it on 127.0.0.1 on a free port.
 * @throws Error with PGlite's / the socket server's message when the database cannot start (e.g. a
 *   corrupt dataDir), or when the worker thread dies
 */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  let templatePath: string | undefined;
  if (opts.dataDir === undefined && opts.templateCacheDir !== undefined) {
    templatePath = join(opts.templateCacheDir, templateFileName(opts.migrationsDir));
  }
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      pglite: requireHere.resolve('@electric-sql/pglite'),
      socket: requireHere.resolve('@electric-sql/pglite-socket'),
      ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}),
      ...(templatePath !== undefined && existsSync(templatePath) ? { template: templatePath } : {}),
    },
  });
  const pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let dead: Error | undefined;
  const ready = new Promise<{ conn: string; origin: EmbeddedPostgres['origin'] }>((resolve, reject) => {
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'ready') resolve(m);
      else if (m.type === 'failed') reject(new Error(`embedded PostgreSQL (PGlite) did not start: ${m.message}`));
      else {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.type === 'done') p?.resolve();
        else p?.reject(new Error(m.message));
      }
    });
    const onDeath = (e: Error) => {
      dead = e;
      reject(e);
      for (const p of pending.values()) p.reject(e);
      pending.clear();
    };
    worker.on('error', (e) => onDeath(new Error(`embedded PostgreSQL (PGlite) thread failed: ${e.message}`)));
    worker.on('exit', (code) => onDeath(new Error(`embedded PostgreSQL (PGlite) thread exited (code ${code})`)));
  });
  const request = (msg: { type: 'dump'; path: string } | { type: 'close' }): Promise<void> => {
    if (dead) return Promise.reject(dead);
    const id = nextId++;
    return new Promise<void>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...msg, id });
    });
  };
  let started: { conn: string; origin: EmbeddedPostgres['origin'] };
  try {
    started = await ready;
  } catch (e) {
    await worker.terminate();
    throw e;
  }
  const port = Number(started.conn.slice(started.conn.lastIndexOf(':') + 1));
  let closing: Promise<void> | undefined;
  return {
    connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
    poolMax: 1,
    origin: started.origin,
    saveTemplate: async () => {
      if (templatePath === undefined || started.origin !== 'initdb') return undefined;
      mkdirSync(dirname(templatePath), { recursive: true });
      await request({ type: 'dump', path: templatePath });
      return templatePath;
    },
    close: () => {
      closing ??= (async () => {
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        try {
          await request({ type: 'close' });
        } finally {
          if (!dead) await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000).unref())]);
          if (!dead) await worker.terminate();
        }
      })();
      return closing;
    },
  };
}
