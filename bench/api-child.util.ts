/**
 * What the API benches share (`bench:api`, `bench:scale`): the API served in a child process over a seeded
 * database, the child's CPU time over IPC, and latency percentiles. Not part of the product.
 */
import type { ChildProcess } from 'node:child_process';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { Store } from '@app/store';

/** Percentile (nearest rank) of ascending values, ms rounded to 0.1; null when there are none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[i]! * 10) / 10;
}

/** CPU time (user + system) the API child has used so far, µs: asked over IPC (see `serveApiChild`). */
export function childCpuMicros(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'cpuMicros' in m) {
        child.off('message', onMessage);
        resolve((m as { cpuMicros: number }).cpuMicros);
      }
    };
    child.on('message', onMessage);
    child.send('cpu');
  });
}

/**
 * In the child: serve the API (createApiApp, the production module) on a random port over `databaseUrl`, tell the
 * parent the port (`{port}`), answer `'cpu'` with `{cpuMicros}`, and close on `'stop'`.
 * @throws when the database cannot be opened or the app cannot listen
 */
export async function serveApiChild(opts: { databaseUrl: string; bootstrapToken: string; tokenHashKey: string }): Promise<void> {
  const store = await Store.open({ connectionString: opts.databaseUrl, tokenHashKey: opts.tokenHashKey, poolMax: 20 });
  const app = await createApiApp({ store, token: opts.bootstrapToken, scanLauncher: new UnavailableScanLauncher(), logger: false, auth: { maxFailures: 1_000_000 } });
  await app.listen(0, '127.0.0.1');
  process.send?.({ port: (app.getHttpServer().address() as { port: number }).port });
  process.on('message', (m: unknown) => {
    if (m === 'cpu') {
      const u = process.cpuUsage();
      process.send?.({ cpuMicros: u.user + u.system });
    }
    if (m === 'stop') void app.close().then(() => store.close()).then(() => process.exit(0));
  });
}
