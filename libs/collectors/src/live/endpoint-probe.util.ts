/**
 * Dial an API server before listing: one TCP connection to the kubeconfig's server, closed at once.
 *
 * Why: an intranet endpoint outside the crawler's network does not answer at all (its SYN goes
 * nowhere) or is refused, and client-node reports either as the failure of whichever list ran first,
 * after the request timeout and every retry. A failed dial is a fact about the network path, which
 * the coverage must name with the endpoint and the fix (cluster-endpoint.ts), not a list error.
 */
import { connect } from 'node:net';

/** Why a dial failed: a Node network error code (`ECONNREFUSED`, `EHOSTUNREACH`, ...) or `ConnectTimeout`. */
export class DialError extends Error {
  override readonly name = 'DialError';
  /** @param code the socket error code, or `ConnectTimeout` */
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Host and port of an API server URL (`https://host[:port]/path`: 443 / 80 when no port is given). */
export function hostPortOf(server: string): { host: string; port: number } | undefined {
  let u: URL;
  try {
    u = new URL(server);
  } catch {
    return undefined;
  }
  const port = u.port !== '' ? Number(u.port) : u.protocol === 'http:' ? 80 : 443;
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  return { host, port };
}

/**
 * Open and close one TCP connection to `server`.
 * @param timeoutMs how long the connection may take, milliseconds
 * @param signal abandons the dial (resolves: the caller checks its own signal)
 * @throws DialError when the connection cannot be made (refused, unreachable, name not resolved, timed out)
 */
export function dialServer(server: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const hp = hostPortOf(server);
  if (!hp) return Promise.reject(new DialError('InvalidServer', `not a URL: ${server}`));
  return new Promise<void>((resolve, reject) => {
    const socket = connect({ host: hp.host, port: hp.port });
    const done = (err?: DialError) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    const onAbort = () => done();
    const timer = setTimeout(
      () => done(new DialError('ConnectTimeout', `no connection to ${hp.host}:${hp.port} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => done());
    socket.once('error', (e: NodeJS.ErrnoException) =>
      done(new DialError(e.code ?? 'ConnectError', `${e.code ?? 'error'} connecting to ${hp.host}:${hp.port}`)),
    );
  });
}
