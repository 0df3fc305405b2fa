/**
 * The forecast pool (libs/audit ForecastPool: piscina threads running the suite's built forecast-worker.js, from
 * FLEET_AUDIT_DIST, test/global-setup.ts) on the bundled sample fleet, without the API:
 * - threads stay warm: a second what-if runs on the thread of the first (no thread started: piscina's thread count
 *   and threadId, not a timing), and a warm thread's answers equal the in-process ones after other computations ran
 *   on it (no state carried from one computation to the next);
 * - the input errors come back typed (ScenarioError with step, field and every issue, HeadroomOptionError) and keep
 *   the thread;
 * - a thread that fails outside a computation (its worker entry throws while loading) is reported to onThreadError;
 * - a full queue refuses at once (synchronously decided, before anything runs);
 * - past the time budget the running computation's thread is terminated, and the next computation works (on a new
 *   thread); past the heap budget the same, with the memory budget named;
 * - close() refuses the waiting and stops the running computations, and later calls; an idle warm thread does not
 *   keep a process alive; the worker entry resolves from a build root and a missing build is named.
 * The time budget test runs a wrapper of the built worker that spins forever on a scenario named `spin-forever`
 * (any budget is exceeded, deterministically), answers a scenario named `many-issues` with the built worker's answer
 * to a ScenarioError of several issues (thrown by the built parseScenario in the thread: runWhatIf's own errors have
 * one), and hands every other request to the real worker.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ForecastBudgetError, ForecastBusyError, ForecastPool, defaultForecastWorkerEntry, type ForecastPoolOptions } from '@app/audit';
import { loadFleetDirectory } from '@app/collectors';
import { HeadroomOptionError, ScenarioError, headroomOfSnapshot, parseScenario, runWhatIf, type Scenario } from '@app/forecast';
import { ROOT } from '../cli/cli-run.util';
import { thrownBy } from '../thrown.util';

const CLUSTER = 'c1e64668d4e11407d7227bc187533f952';
const NOW = new Date('2026-11-20T00:00:00Z');
const SUITE_DIST = process.env.FLEET_AUDIT_DIST!;
const ENTRY = defaultForecastWorkerEntry(SUITE_DIST);
const snapshot = loadFleetDirectory(join(ROOT, 'examples', 'fleets', 'sample'));

function scenario(name: string, steps: unknown[]): Scenario {
  return parseScenario({ apiVersion: 'fleet-audit/v1', kind: 'Scenario', name, steps });
}
const addNodes = (count: number, steps = 1) => scenario(`add-${count}x${steps}`, Array.from({ length: steps }, () => ({ addNodes: { cluster: CLUSTER, count } })));
const SMALL = addNodes(10);
/** 10 steps of 5,000 nodes (the schema's largest): about 150 MB of heap, 3-5 s. */
const HEAVY = addNodes(5000, 10);
const SPIN = scenario('spin-forever', [{ addNodes: { cluster: CLUSTER, count: 1 } }]);
/** The answer as it crosses a thread boundary (structured clone), for comparing with an in-process one. */
const inProcess = (s: Scenario) => runWhatIf(snapshot, s, { now: NOW });

const tmp = mkdtempSync(join(tmpdir(), 'forecast-pool-'));
/** A scenario of several problems (header and steps), checked in the thread by the built parseScenario. */
const MANY_ISSUES = { apiVersion: 'fleet-audit/v1', kind: 'Plan', name: 'many-issues', steps: [{ addNodes: { count: 0 } }, 42] };
/**
 * The built worker, wrapped: `spin-forever` never answers (a computation no budget fits), `many-issues` answers what
 * the built worker answers for the ScenarioError of MANY_ISSUES (its errorAnswer), the rest as built.
 */
const SPINNING_ENTRY = join(tmp, 'spinning-forecast-worker.js');
writeFileSync(
  SPINNING_ENTRY,
  `const forecastTask = require(${JSON.stringify(ENTRY)}).default;
module.exports = function spinningForecastTask(request) {
  if (request.kind === 'whatIf' && request.scenario.name === 'spin-forever') for (;;);
  if (request.kind === 'whatIf' && request.scenario.name === 'many-issues') {
    const { errorAnswer } = require(${JSON.stringify(join(SUITE_DIST, 'libs', 'audit', 'src', 'forecast-compute.js'))});
    const { parseScenario } = require(${JSON.stringify(join(SUITE_DIST, 'libs', 'forecast', 'src', 'index.js'))});
    try {
      parseScenario(${JSON.stringify(MANY_ISSUES)});
    } catch (e) {
      return errorAnswer(e);
    }
  }
  return forecastTask(request);
};
`,
);
/** A worker entry that throws while its thread loads it (before any computation reaches the thread). */
const BROKEN_ENTRY = join(tmp, 'broken-forecast-worker.js');
writeFileSync(BROKEN_ENTRY, `throw new Error('forecast worker entry failed to load (test)');\n`);
/** A worker entry that ends its thread while it loads, with no error (`process.exit`). */
const EXITING_ENTRY = join(tmp, 'exiting-forecast-worker.js');
writeFileSync(EXITING_ENTRY, `process.exit(3);\n`);

describe('ForecastPool: warm piscina threads with the budgets of a worker per computation', () => {
  const pools: ForecastPool[] = [];
  const pool = (opts: ForecastPoolOptions = {}) => {
    const p = new ForecastPool({ workerEntry: ENTRY, timeBudgetMs: 60_000, ...opts });
    pools.push(p);
    return p;
  };
  afterEach(async () => {
    for (const p of pools.splice(0)) await p.close();
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('runs the second what-if on the warm thread of the first, and every answer equals the in-process one', async () => {
    const p = pool();
    expect(p.stats).toEqual({ threads: 0, threadIds: [], threadsStarted: 0, completed: 0 });
    expect(await p.whatIf(snapshot, SMALL, { now: NOW })).toEqual(inProcess(SMALL));
    const first = p.stats;
    expect(first).toMatchObject({ threads: 1, threadsStarted: 1, completed: 1 });
    // Idle a moment (well under the default idle timeout of 60 s: a pool that stops idle threads at once fails here).
    await new Promise((r) => setTimeout(r, 100));
    // Other computations on the same thread (a larger what-if, Services added, headroom), then the first again.
    const services = scenario('services', [{ addServices: { cluster: CLUSTER, namespace: 'shop', count: 20 } }, { addNodes: { cluster: CLUSTER, count: 50 } }]);
    expect(await p.whatIf(snapshot, services, { now: NOW })).toEqual(inProcess(services));
    expect(await p.headroom(snapshot, { now: NOW })).toEqual(headroomOfSnapshot(snapshot, { now: NOW }));
    expect(await p.whatIf(snapshot, SMALL, { now: NOW })).toEqual(inProcess(SMALL));
    expect(p.stats).toEqual({ threads: 1, threadIds: first.threadIds, threadsStarted: 1, completed: 4 });
  });

  it('gives the input errors typed, as the in-process calls throw them, and keeps the thread', async () => {
    const p = pool();
    const unknownCluster = scenario('unknown', [{ addNodes: { cluster: CLUSTER, count: 1 } }, { addNodes: { cluster: 'no-such-cluster', count: 1 } }]);
    const e = await p.whatIf(snapshot, unknownCluster, { now: NOW }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ScenarioError);
    expect(e).toMatchObject({ step: 2, field: 'addNodes.cluster', code: 'SCENARIO_INVALID' });
    expect((e as Error).message).toMatch(/^step 2 \(addNodes\) field addNodes\.cluster: /);
    expect((e as ScenarioError).issues).toEqual([{ message: (e as Error).message, step: 2, field: 'addNodes.cluster' }]);
    expect(() => inProcess(unknownCluster)).toThrow((e as Error).message);
    const h = await p.headroom(snapshot, { now: NOW, like: 'node-99', clusterIds: [CLUSTER] }).catch((x: unknown) => x);
    expect(h).toBeInstanceOf(HeadroomOptionError);
    expect(h).toMatchObject({ option: 'like', code: 'HEADROOM_OPTION_INVALID', message: `--like: unknown node "node-99" in cluster ${CLUSTER}` });
    expect(p.stats).toMatchObject({ threads: 1, threadsStarted: 1, completed: 2 });
  });

  it('carries every issue of a ScenarioError across the thread boundary', async () => {
    const p = pool({ workerEntry: SPINNING_ENTRY });
    const e = await p.whatIf(snapshot, scenario('many-issues', [{ addNodes: { cluster: CLUSTER, count: 1 } }]), { now: NOW }).catch((x: unknown) => x);
    const local = thrownBy(ScenarioError, () => parseScenario(MANY_ISSUES));
    expect(local.issues).toHaveLength(4);
    expect(e).toBeInstanceOf(ScenarioError);
    expect(e).toMatchObject({ message: local.message, step: local.step, field: local.field, code: 'SCENARIO_INVALID' });
    expect((e as ScenarioError).issues).toEqual(local.issues);
  });

  it('reports a thread that fails outside a computation (its entry throws while loading) to onThreadError, and fails the computation waiting for it at once', async () => {
    const reported: unknown[] = [];
    // A time budget far above the test's timeout: the computation must fail as soon as its thread does, not at it.
    const p = pool({ workerEntry: BROKEN_ENTRY, timeBudgetMs: 600_000, onThreadError: (error) => reported.push(error) });
    const failed = await p.whatIf(snapshot, SMALL, { now: NOW }).then(() => undefined, (e: unknown) => e);
    expect(failed).not.toBeInstanceOf(ForecastBudgetError);
    expect((failed as Error).message).toBe('forecast thread failed before it ran the computation: forecast worker entry failed to load (test)');
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(Error);
    expect((reported[0] as Error).message).toBe('forecast worker entry failed to load (test)');
    // A report that throws is ignored (it would otherwise throw out of piscina's event dispatch, uncaught).
    let calls = 0;
    const throwing = pool({
      workerEntry: BROKEN_ENTRY,
      timeBudgetMs: 600_000,
      onThreadError: () => {
        calls++;
        throw new Error('the report failed');
      },
    });
    await expect(throwing.whatIf(snapshot, SMALL, { now: NOW })).rejects.toThrow(/^forecast thread failed before it ran the computation/);
    expect(calls).toBe(1);
    // The next computation starts a thread again (and fails the same way, promptly, since the entry still throws).
    await expect(throwing.whatIf(snapshot, SMALL, { now: NOW })).rejects.toThrow(/^forecast thread failed before it ran the computation/);
    expect(calls).toBe(2);
  }, 30_000);

  it('fails the computation at once when its thread exits while loading without an error (process.exit)', async () => {
    const reported: unknown[] = [];
    const p = pool({ workerEntry: EXITING_ENTRY, timeBudgetMs: 600_000, onThreadError: (error) => reported.push(error) });
    await expect(p.whatIf(snapshot, SMALL, { now: NOW })).rejects.toThrow('forecast thread failed before it ran the computation: the thread exited before it was ready');
    expect(p.load).toEqual({ running: 0, queued: 0 });
    // Piscina reports no 'error' for an exit; the next computation starts a thread again and fails the same way.
    expect(reported).toEqual([]);
    await expect(p.whatIf(snapshot, SMALL, { now: NOW })).rejects.toThrow(/^forecast thread failed before it ran the computation/);
  }, 30_000);

  it('refuses one more than the running and waiting ones at once, and runs those', async () => {
    const p = pool({ concurrency: 1, maxQueued: 1, timeBudgetMs: 30_000 });
    const running = p.whatIf(snapshot, SMALL, { now: NOW });
    const waiting = p.whatIf(snapshot, SMALL, { now: NOW });
    expect(p.load).toEqual({ running: 1, queued: 1 });
    let settled = false;
    const refused = p.whatIf(snapshot, SMALL, { now: NOW }).finally(() => (settled = true));
    await Promise.resolve();
    // Refused in the same turn of the event loop, before the running one could even reach its thread.
    expect(settled).toBe(true);
    expect(p.stats.completed).toBe(0);
    const e = await refused.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ForecastBusyError);
    expect(e).toMatchObject({ retryAfterSeconds: 30, message: 'forecast queue full (1 running, 1 waiting): retry in 30 s' });
    expect(await running).toEqual(inProcess(SMALL));
    expect(await waiting).toEqual(inProcess(SMALL));
    // The slot is given back right after the answer (once no stopped thread is left to wait for).
    await new Promise((r) => setImmediate(r));
    expect(p.load).toEqual({ running: 0, queued: 0 });
  });

  it('terminates the thread of a computation past the time budget; the next one works on a new thread', async () => {
    // The budget counts from the hand-over to piscina, a new thread's start included (seconds on a slow VM): 6 s
    // leaves the computation on the thread started after the kill room to load and answer.
    const p = pool({ workerEntry: SPINNING_ENTRY, timeBudgetMs: 6000 });
    expect(await p.whatIf(snapshot, SMALL, { now: NOW })).toEqual(inProcess(SMALL));
    const [warm] = p.stats.threadIds;
    const t0 = performance.now();
    const e = await p.whatIf(snapshot, SPIN, { now: NOW }).catch((x: unknown) => x);
    const elapsed = performance.now() - t0;
    expect(e).toBeInstanceOf(ForecastBudgetError);
    expect((e as Error).message).toBe('forecast over its time budget of 6 s: use fewer or smaller steps');
    // Stopped at its budget, not before; it ran on the warm thread (no thread started: threadsStarted stays 1), which
    // is gone: terminated, not left spinning.
    expect(elapsed).toBeGreaterThanOrEqual(5900);
    expect(p.stats).toMatchObject({ threads: 0, threadsStarted: 1 });
    // The next computation waits for that thread's exit (its slot is held until then: the exit comes as an event,
    // after this turn), then gets a new thread.
    const next = p.whatIf(snapshot, SMALL, { now: NOW });
    expect(p.load).toEqual({ running: 1, queued: 1 });
    expect(await next).toEqual(inProcess(SMALL));
    expect(p.stats).toMatchObject({ threads: 1, threadsStarted: 2 });
    expect(p.stats.threadIds).not.toContain(warm);
  }, 30_000);

  it('names the memory budget when a thread runs out of its heap; the next computation works on a new thread', async () => {
    // 48 MB: three times what a small what-if needs (16 MB), a third of what 10 steps of 5,000 nodes need (about 150 MB).
    const p = pool({ maxOldGenerationSizeMb: 48 });
    expect(await p.whatIf(snapshot, SMALL, { now: NOW })).toEqual(inProcess(SMALL));
    const [warm] = p.stats.threadIds;
    const e = await p.whatIf(snapshot, HEAVY, { now: NOW }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ForecastBudgetError);
    expect((e as Error).message).toBe('forecast over its memory budget of 48 MB: use fewer or smaller steps');
    expect(await p.whatIf(snapshot, SMALL, { now: NOW })).toEqual(inProcess(SMALL));
    expect(p.stats).toMatchObject({ threads: 1, threadsStarted: 2, completed: 3 });
    expect(p.stats.threadIds).not.toContain(warm);
  }, 60_000);

  it('close() stops the running computation, refuses the waiting ones and later calls, and leaves no thread', async () => {
    const p = pool({ workerEntry: SPINNING_ENTRY, concurrency: 1, maxQueued: 2 });
    const running = p.whatIf(snapshot, SPIN, { now: NOW }).catch((x: unknown) => x);
    const waiting = p.whatIf(snapshot, SMALL, { now: NOW }).catch((x: unknown) => x);
    // Let the spinning one reach its thread.
    while (p.stats.threadsStarted === 0) await new Promise((r) => setTimeout(r, 10));
    await p.close();
    for (const e of [await running, await waiting]) {
      expect(e).toBeInstanceOf(ForecastBusyError);
      expect(e).toMatchObject({ message: 'the API is shutting down', retryAfterSeconds: 5 });
    }
    expect(p.stats.threads).toBe(0);
    await expect(p.whatIf(snapshot, SMALL, { now: NOW })).rejects.toThrow('the API is shutting down');
  });

  it('an idle warm thread does not keep a process alive (the compiled pool, its default entry next to it)', () => {
    const script = `
const { ForecastPool } = require(${JSON.stringify(join(SUITE_DIST, 'libs', 'audit', 'src', 'forecast-pool.js'))});
const { loadFleetDirectory } = require(${JSON.stringify(join(SUITE_DIST, 'libs', 'collectors', 'src', 'index.js'))});
const pool = new ForecastPool({ idleTimeoutMs: 600000 });
pool.whatIf(loadFleetDirectory(${JSON.stringify(join(ROOT, 'examples', 'fleets', 'sample'))}), ${JSON.stringify(SMALL)}, { now: new Date(${JSON.stringify(NOW)}) })
  .then((r) => console.log(JSON.stringify({ steps: r.steps.length, threads: pool.stats.threads })));
`;
    const t0 = Date.now();
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // Ended by itself with its thread still warm (10 minutes of idle timeout left), not killed by the timeout.
    expect(JSON.parse(r.stdout)).toEqual({ steps: 1, threads: 1 });
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  it('resolves the worker entry under a build root, and names a missing build', async () => {
    expect(defaultForecastWorkerEntry('/srv/fleet-audit/dist-test/apps/cli')).toBe('/srv/fleet-audit/dist-test/apps/cli/libs/audit/src/forecast-worker.js');
    expect(ENTRY).toBe(join(SUITE_DIST, 'libs', 'audit', 'src', 'forecast-worker.js'));
    const missing = join(tmp, 'dist', 'libs', 'audit', 'src', 'forecast-worker.js');
    await expect(pool({ workerEntry: missing }).whatIf(snapshot, SMALL, { now: NOW })).rejects.toThrow(
      `the forecast worker entry ${missing} does not exist; build with \`nest build cli\``,
    );
  });
});
