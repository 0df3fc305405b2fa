/**
 * Standalone worker process: `REDIS_URL=... DATABASE_URL=... node dist/apps/worker/apps/worker/src/main.js`
 * (the CLI's `fleet-audit worker` does the same with flags). Validates its environment once
 * (fails fast naming the bad variables), then consumes the scan queues until SIGTERM / SIGINT,
 * when it drains gracefully (in-flight jobs finish or go back to the queue).
 *
 * Prints one line on stdout when ready: `{"worker":"ready","pid":<pid>}`. Every other line it writes (draining, a
 * failure) is a JSON log object on stderr, like its logs (libs/telemetry createLogger): a log collector parses each.
 */
import 'reflect-metadata';
import { loadScanConfig } from '@app/collectors';
import { processEnvironment } from '@app/config';
import { createLogger } from '@app/telemetry';
import { startWorker } from './worker-app.factory';
import { loadWorkerConfig, workerOptionsFromConfig } from './worker-config';

/** Status and failure lines on stderr, as JSON log objects (pino: level label, ISO time, pid, hostname, name). */
const status = createLogger({ name: 'worker', pretty: false, destination: process.stderr });

async function bootstrap(): Promise<void> {
  const config = loadWorkerConfig(processEnvironment());
  const worker = await startWorker({
    ...workerOptionsFromConfig(config, loadScanConfig),
    // LOG_LEVEL: JSON log lines on stdout (pretty on a TTY).
    log: { level: config.log.level },
    name: `worker-${process.pid}`,
  });
  process.stdout.write(`${JSON.stringify({ worker: 'ready', pid: process.pid })}\n`);
  const shutdown = async (signal: NodeJS.Signals) => {
    status.info({ event: 'worker.draining', signal }, `worker: ${signal}: draining`);
    await worker.close();
    process.exit(0);
  };
  process.once('SIGINT', (s) => void shutdown(s));
  process.once('SIGTERM', (s) => void shutdown(s));
}

bootstrap().catch((e: unknown) => {
  status.error({ event: 'worker.failed' }, `worker: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
