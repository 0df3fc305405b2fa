import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoNestLogger, LoggerModule } from 'nestjs-pino';
import { logDestination, loggerOptions } from '@app/telemetry';
import type { RateLimiterOptions } from '@app/collectors';
import { BullScanJobQueue, createRedisProbe, DistributedScanClient, RedisRateLimiterPool, ScanScopeLock } from '@app/queue';
import { Store, startScanReaper } from '@app/store';
import { rateLimiterFactory } from './scan/rate-limiter.factory';
import { WorkerModule } from './worker.module';
import { startWorkerHealthServer, type WorkerHealthServer } from './worker-health.server';
import { resolveWorkerOptions, type WorkerOptions } from './worker.options';

/** A started worker. */
export interface RunningWorker {
  /** The Nest application context (tests reach services through it). */
  app: INestApplicationContext;
  /** `http://host:port` of the health endpoint (`/healthz`, `/readyz`) when `options.health` was given. */
  healthUrl?: string;
  /**
   * Graceful stop: no new jobs, in-flight jobs finish within `shutdownGraceMs` or go back to the
   * queue, then every connection closes. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Start a worker in this process: opens (and migrates) the store, connects to Redis, and starts
 * consuming the scan queues, the schedule and the reconciler.
 * @throws StoreError UNAVAILABLE when PostgreSQL cannot be reached; RangeError for bad options;
 *   Error for an invalid cron expression
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const o = resolveWorkerOptions(options);
  const redis = { redisUrl: o.redisUrl, ...(o.prefix !== undefined ? { prefix: o.prefix } : {}) };
  const store = await Store.open({
    connectionString: o.databaseUrl,
    migrate: o.migrate,
    onIdleError: () => undefined,
  });
  const queue = new BullScanJobQueue({ ...redis, policies: o.policies, reachWaitMs: o.reachWaitMs });
  const limiters = o.rateLimiterFor ? undefined : new RedisRateLimiterPool(redis);
  const forBudget =
    o.rateLimiterFor ??
    ((budget: RateLimiterOptions, callTimeoutMs: number) =>
      (limiters as RedisRateLimiterPool).forBudget(budget, callTimeoutMs));
  const scopes = new ScanScopeLock(redis);
  const client = new DistributedScanClient(store, queue);
  const closeAdapters = async () => {
    await Promise.allSettled([queue.close(), limiters?.close(), scopes.close()]);
    await store.close();
  };
  let app: INestApplicationContext;
  try {
    const module = WorkerModule.register({
        options: o,
        store,
        queue,
        rateLimiterFor: rateLimiterFactory(forBudget),
        rateLimiterControl: { dropWaiting: () => limiters?.dropWaiting() ?? Promise.resolve() },
        scopes,
        client,
      });
    if (o.log) {
      const log = o.log;
      module.imports = [
        ...(module.imports ?? []),
        LoggerModule.forRoot({
          pinoHttp: [
            loggerOptions({ level: log.level, name: 'worker' }),
            logDestination({ ...(log.pretty !== undefined ? { pretty: log.pretty } : {}), ...(log.destination ? { destination: log.destination } : {}) }),
          ],
        }),
      ];
    }
    app = await NestFactory.createApplicationContext(module, o.log ? { bufferLogs: true, abortOnError: false } : { logger: o.logger, abortOnError: false });
    if (o.log) app.useLogger(app.get(PinoNestLogger));
    await app.init();
  } catch (e) {
    await closeAdapters();
    throw e;
  }
  let health: WorkerHealthServer | undefined;
  const redisProbe = options.health ? createRedisProbe(o.redisUrl) : undefined;
  if (options.health && redisProbe) {
    try {
      health = await startWorkerHealthServer({
        port: options.health.port,
        ...(options.health.host !== undefined ? { host: options.health.host } : {}),
        database: () => store.ping(),
        redis: () => redisProbe.ping(),
      });
    } catch (e) {
      await redisProbe.close();
      await app.close();
      await closeAdapters();
      throw e;
    }
  }
  // Fails offline/live scans whose owner died (e.g. `serve` SIGKILLed mid-scan), also when no API runs.
  const stopReaper = startScanReaper(store.scans, { ...(options.scanLease ?? {}), onError: () => undefined });
  let closing: Promise<void> | undefined;
  return {
    app,
    ...(health ? { healthUrl: health.url } : {}),
    close: () => {
      closing ??= (async () => {
        // Not ready any more from the first moment of the drain.
        await health?.close();
        await redisProbe?.close();
        stopReaper();
        await app.close();
        await closeAdapters();
      })();
      return closing;
    },
  };
}
