/**
 * Worker-thread entry of the forecast pool (`ForecastPool`, forecast-pool.ts): runs one what-if or headroom
 * computation on a snapshot it receives as plain data (`workerData`, structured clone) and posts one
 * `ForecastWorkerAnswer`, so the API's event loop stays free while it computes (issue 23 item 1).
 * Built by `nest build cli` next to forecast-pool.js (`dist/apps/cli/libs/audit/src/forecast-worker.js`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { HeadroomOptionError, ScenarioError, headroomOfSnapshot, runWhatIf } from '@app/forecast';
import type { ForecastWorkerAnswer, ForecastWorkerRequest } from './forecast-pool';

/** Runs the request; errors of the caller's input come back as typed answers, anything else as `failed`. */
function answer(req: ForecastWorkerRequest): ForecastWorkerAnswer {
  try {
    if (req.kind === 'whatIf') return { ok: true, value: runWhatIf(req.snapshot, req.scenario, req.options) };
    return { ok: true, value: headroomOfSnapshot(req.snapshot, req.options) };
  } catch (e) {
    if (e instanceof ScenarioError) return { ok: false, error: { kind: 'scenario', message: e.message, step: e.step, field: e.field } };
    if (e instanceof HeadroomOptionError) return { ok: false, error: { kind: 'headroomOption', message: e.message } };
    return { ok: false, error: { kind: 'failed', message: e instanceof Error ? e.message : String(e) } };
  }
}

parentPort?.postMessage(answer(workerData as ForecastWorkerRequest));
