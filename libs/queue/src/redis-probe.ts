/**
 * Readiness probe of Redis for `/readyz` (API) and the worker's health endpoint: one dedicated
 * connection that never queues commands while disconnected (`enableOfflineQueue: false`), so a
 * probe of a Redis that is down fails at once instead of waiting for a reconnect, and that
 * reconnects every half second in the background so the probe turns green as soon as Redis is back.
 * ioredis options: https://github.com/redis/ioredis/blob/main/API.md (RedisOptions).
 */
import IORedis from 'ioredis';

/** How long a PING may take before the probe says Redis is down (milliseconds). */
export const REDIS_PROBE_TIMEOUT_MS = 2_000;

/** A Redis readiness probe. */
export interface RedisProbe {
  /**
   * Resolves when Redis answers PING within `REDIS_PROBE_TIMEOUT_MS`.
   * @throws Error naming why (not connected, timeout, the server's error); never the URL
   */
  ping(): Promise<void>;
  /** Close the connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * Open a probe connection to `redisUrl` (sensitive: never logged or put in errors).
 * Does not wait for the connection: `ping` fails until it is up.
 */
export function createRedisProbe(redisUrl: string): RedisProbe {
  const client = new IORedis(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: REDIS_PROBE_TIMEOUT_MS,
    retryStrategy: () => 500,
    lazyConnect: false,
  });
  // Connection errors surface through `ping`; without a listener ioredis would log each retry.
  client.on('error', () => undefined);
  let closed = false;
  return {
    ping: async () => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          client.ping(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${REDIS_PROBE_TIMEOUT_MS} ms`)), REDIS_PROBE_TIMEOUT_MS);
          }),
        ]);
      } finally {
        clearTimeout(timer);
      }
    },
    close: async () => {
      if (closed) return;
      closed = true;
      client.disconnect();
    },
  };
}
