/**
 * What the API benches share (`bench:api`, `bench:scale`): the API served in a child process over a seeded
 * database, the child's CPU time over IPC, and latency percentiles. Not part of the product.
 */
import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
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

/** Latency and throughput of one autocannon run against the API child (ms, nearest-rank percentiles). */
export interface LoadResult {
  requests: number;
  /** Responses per second over the run. */
  rps: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  /** Connection errors + timeouts + non-2xx answers. */
  errors: number;
  non2xx: number;
  timeouts: number;
  /** CPU time (user + system) of the API child per request, ms. */
  apiCpuMsPerRequest: number | null;
}

/**
 * Run autocannon with `options` (its `duration` in seconds) against the API child, keeping every response time
 * for exact percentiles, and the child's CPU time over the run.
 * @throws when autocannon cannot run
 */
export async function measureLoad(child: ChildProcess, options: autocannon.Options & { duration: number }): Promise<LoadResult> {
  const times: number[] = [];
  const cpuBefore = await childCpuMicros(child);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (err, res) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(res)));
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
  const cpuMicros = (await childCpuMicros(child)) - cpuBefore;
  return loadResultOf(times, options.duration, cpuMicros, { errors: result.errors + result.timeouts + result.non2xx, non2xx: result.non2xx, timeouts: result.timeouts });
}

/**
 * The LoadResult of a run: `times` (ms, every answer; sorted here) over `seconds`, the API child's CPU µs over the run,
 * and the run's error counts.
 */
export function loadResultOf(times: number[], seconds: number, cpuMicros: number, failed: Pick<LoadResult, 'errors' | 'non2xx' | 'timeouts'>): LoadResult {
  times.sort((a, b) => a - b);
  return {
    requests: times.length,
    rps: Math.round((times.length / seconds) * 10) / 10,
    p50Ms: percentile(times, 50),
    p95Ms: percentile(times, 95),
    p99Ms: percentile(times, 99),
    maxMs: times.length ? Math.round(times[times.length - 1]! * 10) / 10 : null,
    ...failed,
    apiCpuMsPerRequest: times.length ? Math.round((cpuMicros / 1000 / times.length) * 1000) / 1000 : null,
  };
}
