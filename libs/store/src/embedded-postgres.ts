/**
 * Embedded PostgreSQL for the zero-setup mode (ARCHITECTURE.md "Running modes"): PGlite
 * (PostgreSQL compiled to WASM, in this process) served over the PostgreSQL wire protocol on
 * 127.0.0.1 by pglite-socket, so the same `pg` code path serves both back ends.
 */

/** A running embedded PostgreSQL. */
export interface EmbeddedPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (no password; loopback only). */
  connectionString: string;
  /**
   * Pool size to use on it: 1. The socket server accepts one connection at a time and queues
   * queries of others in ways that block inside transactions (STACK.md pitfall 17).
   */
  poolMax: 1;
  /** Stop the socket server and close the database (close the Store first). */
  close(): Promise<void>;
}

/** Options of `startEmbeddedPostgres`. */
export interface EmbeddedPostgresOptions {
  /** Directory to keep the database in across runs; default: in memory (lost on close). */
  dataDir?: string;
}

/**
 * Start PGlite and serve it on 127.0.0.1 on a free port.
 * @throws the PGlite / socket error when the database cannot start (e.g. a corrupt dataDir)
 */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  // Loaded on demand: the WASM build is large and only the embedded mode needs it.
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = opts.dataDir === undefined ? await PGlite.create() : await PGlite.create(opts.dataDir);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  try {
    await server.start();
  } catch (e) {
    await db.close();
    throw e;
  }
  const conn = server.getServerConn();
  const port = Number(conn.slice(conn.lastIndexOf(':') + 1));
  return {
    connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
    poolMax: 1,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}
