/**
 * Thread entry of the forecast pool (`ForecastPool`, forecast-pool.ts): piscina loads this module once per thread
 * and calls its default export once per computation, with a what-if or headroom request received as plain data
 * (structured clone); the answer goes back the same way, so the API's event loop stays free while it computes
 *. Built by `nest build cli` next to forecast-pool.js (`dist/apps/cli/libs/audit/src/forecast-worker.js`).
 *
 * The forecast code (forecast-compute.ts and the libraries it imports) is loaded by the thread's first computation,
 * not when the thread starts: a failure while loading it (a broken build, a heap budget too small to load it) then
 * fails that computation with its own error (piscina would only report a thread that fails before its first task
 * as a pool event and leave the task waiting for a thread until its time budget). Later computations on the same
 * thread find it loaded (the warm path: no thread start, no module loading).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a relative `require`: the build rewrites path aliases only in static imports (as apps/cli/src/lazy) */
import type { ForecastWorkerAnswer, ForecastWorkerRequest } from './forecast-pool';

type ForecastCompute = typeof import('./forecast-compute');

/** The forecast code, once the thread's first computation has loaded it. */
let compute: ForecastCompute | undefined;

/**
 * Computes one request on this thread (piscina's task handler).
 * @returns the answer; the caller's input errors and unexpected failures are answers too, never thrown (a thread
 *   that runs out of its heap budget is stopped by V8 and the pool reports it)
 */
export default function forecastTask(request: ForecastWorkerRequest): ForecastWorkerAnswer {
  compute ??= require('./forecast-compute') as ForecastCompute;
  return compute.answer(request);
}
