/**
 * What-ifs and headroom run in the forecast worker pool (libs/audit ForecastPool, worker threads
 * with a time and heap budget), not on the API's event loop. On the sample fleet stored in PostgreSQL:
 * - while the largest accepted what-if step runs (addNodes 5,000, the schema's maximum), /healthz answers fast;
 * - an oversized scenario is refused with its reason (400 naming the limit), one over the time budget with 422;
 * - a full forecast queue answers 429 with Retry-After (REST; GraphQL maps the same ApiError);
 * - the pool's answer equals the in-process `runWhatIf` on the same snapshot (results unchanged).
 * The worker runs from the suite's build (test/global-setup.ts, FLEET_AUDIT_DIST).
 */
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { defaultForecastWorkerEntry, latestSnapshot, runScan } from '@app/audit';
import { MAX_ADD_NODES, parseScenario, runWhatIf } from '@app/forecast';
import { Store } from '@app/store';
import { ROOT } from '../cli/cli-run.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const TOKEN = 'whatif-offloop-token-0123456789abcdef';
const CLUSTER = 'c1e64668d4e11407d7227bc187533f952';
const NOW = new Date('2026-11-20T00:00:00Z');

function scenario(steps: unknown[]) {
  return { apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'offloop', steps };
}
const LARGEST = scenario([{ addNodes: { cluster: CLUSTER, count: MAX_ADD_NODES } }]);

describe('what-if off the event loop', () => {
  let db: TestDatabase;
  let store: Store;
  const apps: INestApplication[] = [];

  // The worker from the suite's build (test/global-setup.ts sets FLEET_AUDIT_DIST).
  const workerEntry = defaultForecastWorkerEntry(process.env.FLEET_AUDIT_DIST);

  async function makeApp(forecasts: Record<string, number>): Promise<INestApplication> {
    const a = await createApiApp({ store, token: TOKEN, scanLauncher: new UnavailableScanLauncher(), logger: false, forecasts: { ...forecasts, workerEntry } });
    await a.init();
    apps.push(a);
    return a;
  }
  function whatIf(a: INestApplication, body: unknown) {
    return request(a.getHttpServer()).post('/v1/forecasts/whatif').set('Authorization', `Bearer ${TOKEN}`).send(body as object);
  }
  /** The same scenario through GraphQL `whatIf` (the same forecast pool and budgets). */
  function gqlWhatIf(a: INestApplication, body: unknown) {
    return request(a.getHttpServer())
      .post('/graphql')
      .set('Authorization', `Bearer ${TOKEN}`)
      .send({ query: 'mutation($s: ScenarioInput!) { whatIf(input: $s) { scanId } }', variables: { s: body } });
  }
  const gqlCode = (res: request.Response) => (res.body as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url });
    await runScan({ source: { kind: 'offline', fleetDir: `${ROOT}/examples/fleets/sample` }, now: NOW, observedAt: NOW }, store);
  }, 120_000);

  afterAll(async () => {
    for (const a of apps) await a.close();
    await store?.close();
    await db?.release();
  });

  it('/healthz answers fast while the largest accepted what-if runs, and the answer equals the in-process one', async () => {
    const app = await makeApp({ timeBudgetMs: 120_000 });
    const server = app.getHttpServer();
    let finished = false;
    const started = Date.now();
    const run = whatIf(app, LARGEST).then((r) => {
      finished = true;
      return r;
    });
    const latencies: number[] = [];
    while (!finished) {
      const t0 = performance.now();
      await request(server).get('/healthz').expect(200);
      latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 25));
    }
    const res = await run;
    const elapsed = Date.now() - started;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const sorted = [...latencies].sort((a, b) => a - b);
    const max = sorted[sorted.length - 1];
    console.log(`what-if addNodes ${MAX_ADD_NODES}: ${elapsed} ms; /healthz during it: ${latencies.length} polls, p50 ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, max ${max.toFixed(1)} ms`);
    // Not a timing figure (those are in bench:whatif-size): a what-if computed on the event loop would stall every
    // poll for about the whole run, so few polls would complete and one would wait most of the run. Off the loop,
    // polls keep completing and none waits anywhere near that long, however loaded the machine is.
    expect(latencies.length).toBeGreaterThan(3);
    expect(max).toBeLessThan(Math.max(250, elapsed / 3));
    // Results identical to the in-process computation on the same stored snapshot.
    const s = await latestSnapshot(store);
    const local = runWhatIf(s.snapshot, parseScenario(LARGEST), { now: new Date(s.observedAt) });
    expect(res.body).toEqual(JSON.parse(JSON.stringify({ scanId: s.scanId, ...local })));
  }, 180_000);

  it('refuses an oversized scenario with its reason, and one over the time budget with 422', async () => {
    const app = await makeApp({ timeBudgetMs: 1 });
    const big = await whatIf(app, scenario([{ addNodes: { cluster: CLUSTER, count: 20_000 } }])).expect(400);
    expect(big.body.message).toMatch(/step 1 \(addNodes\) field addNodes\.count: at most 5000 nodes per step/);
    const many = await whatIf(app, scenario(Array.from({ length: 101 }, () => ({ addNodes: { cluster: CLUSTER, count: 1 } })))).expect(400);
    expect(many.body.message).toMatch(/at most 100 steps/);
    const services = await whatIf(app, scenario([{ addServices: { cluster: CLUSTER, namespace: 'x', count: 1001 } }])).expect(400);
    expect(services.body.message).toMatch(/at most 1000 Services per step/);
    const slow = await whatIf(app, LARGEST).expect(422);
    expect(slow.body).toMatchObject({ error: 'FORECAST_TOO_LARGE' });
    expect(slow.body.message).toMatch(/over its time budget of 0\.001 s/);
    // GraphQL answers the same refusal with the same HTTP status and code.
    const gqlSlow = await gqlWhatIf(app, LARGEST);
    expect([gqlSlow.status, gqlCode(gqlSlow)]).toEqual([422, 'FORECAST_TOO_LARGE']);
  }, 60_000);

  it('a full forecast queue answers 429 with Retry-After', async () => {
    const app = await makeApp({ concurrency: 1, maxQueued: 1, timeBudgetMs: 120_000 });
    const running = whatIf(app, LARGEST).then((r) => r);
    // Let the first one start, then queue one more: the pool now holds 1 running + 1 waiting.
    await new Promise((r) => setTimeout(r, 100));
    const waiting = whatIf(app, LARGEST).then((r) => r);
    await new Promise((r) => setTimeout(r, 100));
    const refused = await whatIf(app, LARGEST).expect(429);
    expect(refused.headers['retry-after']).toBe('120');
    expect(refused.body.message).toMatch(/forecast queue full \(1 running, 1 waiting\): retry in 120 s/);
    const gqlRefused = await gqlWhatIf(app, LARGEST);
    expect([gqlRefused.status, gqlCode(gqlRefused)]).toEqual([429, 'RATE_LIMITED']);
    expect((await running).status).toBe(200);
    expect((await waiting).status).toBe(200);
  }, 180_000);
});
