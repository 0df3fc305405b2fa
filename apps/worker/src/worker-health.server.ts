/**
 * The worker's health endpoint: a worker has no API, so Docker Compose and
 * Kubernetes probe this tiny HTTP server instead (node:http, no framework).
 *
 * - `GET /healthz`: liveness, 200 while the process serves requests at all;
 * - `GET /readyz`: 200 when PostgreSQL and Redis both answer within 2 s, else 503; the body names
 *   each dependency: `{"status":"ready"|"not_ready","database":"up"|"down","redis":"up"|"down"}`
 *   (the same words as the API's `/readyz`).
 *
 * Kubernetes probes: https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How long one dependency may take to answer (milliseconds). */
export const HEALTH_CHECK_TIMEOUT_MS = 2_000;

/** Options of `startWorkerHealthServer`. */
export interface WorkerHealthOptions {
  /** TCP port (0: any free port). */
  port: number;
  /** Interface to bind (default 127.0.0.1; `0.0.0.0` in a Kubernetes pod so the kubelet reaches it). */
  host?: string;
  /** Resolves when PostgreSQL answers (e.g. `() => store.ping()`). */
  database: () => Promise<unknown>;
  /** Resolves when Redis answers (e.g. `RedisProbe.ping`). */
  redis: () => Promise<unknown>;
}

/** A running health server. */
export interface WorkerHealthServer {
  /** `http://host:port`. */
  url: string;
  /** Stop listening. Idempotent. */
  close(): Promise<void>;
}

async function up(check: () => Promise<unknown>): Promise<'up' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([check(), new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), HEALTH_CHECK_TIMEOUT_MS)))]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Serve `/healthz` and `/readyz` until closed.
 * @throws Error (EADDRINUSE, EACCES ...) when the port cannot be bound
 */
export async function startWorkerHealthServer(o: WorkerHealthOptions): Promise<WorkerHealthServer> {
  const host = o.host ?? '127.0.0.1';
  const server: Server = createServer((req, res) => {
    const send = (code: number, body: object) => {
      res.writeHead(code, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { error: 'method not allowed' });
    if (path === '/healthz') return send(200, { status: 'ok' });
    if (path !== '/readyz') return send(404, { error: 'not found: use /healthz or /readyz' });
    void Promise.all([up(o.database), up(o.redis)]).then(([database, redis]) => {
      const ready = database === 'up' && redis === 'up';
      send(ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', database, redis });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
