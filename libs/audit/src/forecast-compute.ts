/**
 * The computation a forecast thread runs (forecast-worker.ts loads it on the thread's first request): one what-if or
 * headroom on a snapshot received as plain data. Each request arrives as a fresh structured clone, so nothing one
 * computation does to its snapshot is seen by the next one on the same thread.
 */
import { HeadroomOptionError, ScenarioError, headroomOfSnapshot, runWhatIf } from '@app/forecast';
import type { ForecastWorkerAnswer, ForecastWorkerRequest } from './forecast-pool';

/**
 * Runs the request.
 * @returns the value; the caller's input errors (ScenarioError with its step, field and issues, HeadroomOptionError) as
 *   typed answers, anything else as `failed` with its message (never thrown: a thread's answer is plain data)
 */
export function answer(req: ForecastWorkerRequest): ForecastWorkerAnswer {
  try {
    if (req.kind === 'whatIf') return { ok: true, value: runWhatIf(req.snapshot, req.scenario, req.options) };
    return { ok: true, value: headroomOfSnapshot(req.snapshot, req.options) };
  } catch (e) {
    return errorAnswer(e);
  }
}

/**
 * The answer of a computation that threw `e`, as plain data the pool rebuilds the error from: a ScenarioError as
 * `{ kind: 'scenario', message, step?, field?, issues }` (every issue: `{ message, step?, field? }`), a
 * HeadroomOptionError as `{ kind: 'headroomOption', message }`, anything else as `{ kind: 'failed', message }`.
 */
export function errorAnswer(e: unknown): Extract<ForecastWorkerAnswer, { ok: false }> {
  if (e instanceof ScenarioError) return { ok: false, error: { kind: 'scenario', message: e.message, step: e.step, field: e.field, issues: [...e.issues] } };
  if (e instanceof HeadroomOptionError) return { ok: false, error: { kind: 'headroomOption', message: e.message } };
  return { ok: false, error: { kind: 'failed', message: e instanceof Error ? e.message : String(e) } };
}
