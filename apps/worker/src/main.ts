/**
 * Standalone worker process: `REDIS_URL=... DATABASE_URL=... node dist/apps/worker/apps/worker/src/main.js`
 * (the CLI's `fleet-audit worker` does the same with flags). Validates its environment once
 * (fails fast naming the bad variables), then consumes the scan queues until SIGTERM / SIGINT,
 * when it drains gracefully (in-flight jobs finish or go back to the queue).
 *
 * Prints one line on stdout when ready: `{"worker":"ready","pid":<pid>}`.
 */
import 'reflect-metadata';
import { loadScanConfig } from '@app/collectors';
import { processEnvironment } from '@app/config';
import { startWorker } from './worker-app.factory';
import { loadWorkerConfig, workerOptionsFromConfig } from './worker-config';

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
    process.stderr.write(`worker: ${signal}: draining\n`);
    await worker.close();
    process.exit(0);
  };
  process.once('SIGINT', (s) => void shutdown(s));
  process.once('SIGTERM', (s) => void shutdown(s));
}

bootstrap().catch((e: unknown) => {
  process.stderr.write(`worker: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
