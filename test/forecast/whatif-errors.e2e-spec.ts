/**
 * What-if errors through the API and the CLI:
 * - an invalid scenario is refused with every problem at once (libs/forecast parseScenario), through each transport:
 *   REST `POST /v1/forecasts/whatif` answers 400 VALIDATION_FAILED with one `issues` entry per problem
 *   (`body.<field>`, `body.steps.<i>.<field>`), GraphQL `whatIf` one BAD_USER_INPUT error whose message lists them,
 *   and `fleet-audit forecast whatif --scenario FILE` one error line listing them (exit 2);
 * - a forecast thread that fails outside a computation (its worker entry throws while loading) is one error line in
 *   the API's JSON log (the API module's ForecastPool onThreadError), no longer swallowed.
 * The API runs on a real PostgreSQL with the suite's build of the forecast worker (test/global-setup.ts); a scenario
 * is checked before any snapshot is read, so nothing needs to be scanned first.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableScanLauncher, createApiApp } from '@app/api';
import { defaultForecastWorkerEntry, type ForecastPool } from '@app/audit';
import { loadFleetDirectory } from '@app/collectors';
import { MAX_SCENARIO_ISSUES, MAX_SCENARIO_STEPS, parseScenario } from '@app/forecast';
import { Store } from '@app/store';
import { FORECAST_POOL } from '../../apps/api/src/forecasts/forecasts.service';
import { SAMPLE_FLEET, runCliInProcess } from '../cli/cli-run.util';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { freshNestjsPinoLogger } from '../api/nestjs-pino-reset.util';

const TOKEN = 'whatif-issues-e2e-token-0a1b2c3d4e5f';
const CLUSTER = 'c1e64668d4e11407d7227bc187533f952';
const HEADER = { apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: 'issues' };

interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  issues?: { path: string; message: string }[];
}

describe('what-if errors: scenario problems all at once (REST, GraphQL, CLI), forecast thread failures logged', () => {
  let db: TestDatabase;
  let store: Store;
  let app: INestApplication;
  const tmp = mkdtempSync(join(tmpdir(), 'whatif-errors-'));
  const whatIf = (body: unknown) => request(app.getHttpServer()).post('/v1/forecasts/whatif').set('Authorization', `Bearer ${TOKEN}`).send(body as object);

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url });
    app = await createApiApp({ store, token: TOKEN, scanLauncher: new UnavailableScanLauncher(), logger: false, forecasts: { workerEntry: defaultForecastWorkerEntry(process.env.FLEET_AUDIT_DIST) } });
    await app.init();
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.release();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('POST {} answers 400 with every missing header field in issues, and a message listing them', async () => {
    const res = await whatIf({}).expect(400);
    const body = res.body as ErrorBody;
    expect(body).toMatchObject({ statusCode: 400, error: 'VALIDATION_FAILED' });
    expect(body.issues).toEqual([
      { path: 'body.apiVersion', message: 'scenario field apiVersion: Invalid input: expected "fleet-audit/v1"' },
      { path: 'body.kind', message: 'scenario field kind: Invalid input: expected "Scenario"' },
      { path: 'body.name', message: 'scenario field name: Invalid input: expected string, received undefined' },
      { path: 'body.steps', message: 'scenario field steps: Invalid input: expected array, received undefined' },
    ]);
    expect(body.message).toBe(
      'scenario: 4 problems: field apiVersion: Invalid input: expected "fleet-audit/v1"; field kind: Invalid input: expected "Scenario"; ' +
        'field name: Invalid input: expected string, received undefined; field steps: Invalid input: expected array, received undefined',
    );
  });

  it('two bad steps: both listed, each at its step, after a good one; a step that is not an object at the step itself', async () => {
    const steps = [{ addNodes: { cluster: CLUSTER, count: 1 } }, { addNodes: { cluster: CLUSTER, count: 0 } }, { scalePods: { cluster: CLUSTER, service: 'shop/web', replicas: -1 } }];
    const body = (await whatIf({ ...HEADER, steps }).expect(400)).body as ErrorBody;
    expect(body.issues).toEqual([
      { path: 'body.steps.1.addNodes.count', message: expect.stringMatching(/^step 2 \(addNodes\) field addNodes\.count: /) },
      { path: 'body.steps.2.scalePods.replicas', message: expect.stringMatching(/^step 3 \(scalePods\) field scalePods\.replicas: /) },
    ]);
    expect(body.message).toBe(`scenario: 2 problems: ${body.issues![0]!.message}; ${body.issues![1]!.message}`);
    const notObject = (await whatIf({ ...HEADER, steps: [42, { addNodes: { cluster: CLUSTER, count: 0 } }] }).expect(400)).body as ErrorBody;
    expect(notObject.issues!.map((i) => i.path)).toEqual(['body.steps.0', 'body.steps.1.addNodes.count']);
    expect(notObject.issues![0]!.message).toMatch(/^step 1: expected an object with one key/);
  });

  it(`a scenario of garbage gets at most ${MAX_SCENARIO_ISSUES} issues, the message counting the rest`, async () => {
    const steps = Array.from({ length: MAX_SCENARIO_STEPS }, () => ({ addNodes: { count: 0 } }));
    const body = (await whatIf({ ...HEADER, steps }).expect(400)).body as ErrorBody;
    expect(body.issues).toHaveLength(MAX_SCENARIO_ISSUES);
    expect(body.message).toMatch(new RegExp(`^scenario: ${2 * MAX_SCENARIO_STEPS} problems: .*; and ${2 * MAX_SCENARIO_STEPS - MAX_SCENARIO_ISSUES} more$`));
  });

  it('GraphQL whatIf: one BAD_USER_INPUT error whose message and extensions.issues list every problem', async () => {
    const res = await request(app.getHttpServer())
      .post('/graphql')
      .set('Authorization', `Bearer ${TOKEN}`)
      .send({
        query: 'mutation($s: ScenarioInput!) { whatIf(input: $s) { scanId } }',
        variables: { s: { ...HEADER, apiVersion: 'v2', steps: [{ addNodes: { cluster: CLUSTER, count: 0 } }, { scalePods: { cluster: CLUSTER, service: 'shop/web', replicas: -1 } }] } },
      });
    const errors = (res.body as { errors?: { message: string; extensions?: { code?: string; issues?: { path: string; message: string }[] } }[] }).errors;
    expect(errors).toHaveLength(1);
    expect(errors![0]!.extensions?.code).toBe('BAD_USER_INPUT');
    // Every problem in extensions.issues too, as REST lists them, the paths naming the operation's `input` argument (array indices from 0, as JSON paths count).
    expect(errors![0]!.extensions?.issues?.map((i) => i.path)).toEqual(['input.apiVersion', 'input.steps.0.addNodes.count', 'input.steps.1.scalePods.replicas']);
    expect(errors![0]!.extensions?.issues?.[2]?.message).toMatch(/^step 2 \(scalePods\) field scalePods\.replicas: /);
    expect(errors![0]!.message).toMatch(
      /^scenario: 3 problems: field apiVersion: Invalid input: expected "fleet-audit\/v1"; step 1 \(addNodes\) field addNodes\.count: .*; step 2 \(scalePods\) field scalePods\.replicas: /,
    );
  });

  it('CLI forecast whatif: one error line naming the file and every problem, exit 2', async () => {
    const file = join(tmp, 'bad.yaml');
    writeFileSync(file, `apiVersion: fleet-audit/v1\nkind: Plan\nname: bad\nsteps:\n  - addNodes: { cluster: ${CLUSTER}, count: 0 }\n  - addPods: {}\n`);
    const r = await runCliInProcess(['forecast', 'whatif', '--fleet', SAMPLE_FLEET, '--scenario', file]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^fleet-audit: error: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: scenario: 3 problems: field kind: Invalid input: expected "Scenario"; ` +
          `step 1 \\(addNodes\\) field addNodes\\.count: [^\\n]*; step 2: unknown step "addPods" \\(expected one of [^\\n]*\\)\\n$`,
      ),
    );
  }, 120_000);

  it("logs a forecast thread that fails outside a computation as one error line of the API's JSON log", async () => {
    let logged = '';
    const destination = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logged += chunk.toString();
        cb();
      },
    });
    const broken = join(tmp, 'broken-forecast-worker.js');
    writeFileSync(broken, `throw new Error('forecast worker entry failed to load (test)');\n`);
    // This test reads its app's log lines: its own pino-http instance, not one an earlier file of this fork made.
    await freshNestjsPinoLogger();
    const logging = await createApiApp({ store, token: TOKEN, scanLauncher: new UnavailableScanLauncher(), log: { level: 'info', destination }, forecasts: { workerEntry: broken, timeBudgetMs: 600_000 } });
    try {
      await logging.init();
      // The app's own pool, on a snapshot of the sample fleet (no scan stored: the REST route would answer 404 first).
      const pool = logging.get<ForecastPool>(FORECAST_POOL);
      const scenario = parseScenario({ ...HEADER, steps: [{ addNodes: { cluster: CLUSTER, count: 1 } }] });
      await expect(pool.whatIf(loadFleetDirectory(SAMPLE_FLEET), scenario, { now: new Date() })).rejects.toThrow(
        'forecast thread failed before it ran the computation: forecast worker entry failed to load (test)',
      );
      const lines = logged
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { level?: unknown; context?: unknown; msg?: unknown; err?: unknown; stack?: unknown });
      const reports = lines.filter((l) => l.context === 'ForecastPool');
      expect(reports, logged).toEqual([
        expect.objectContaining({ level: 'error', msg: 'forecast thread failed outside a computation and was dropped: Error: forecast worker entry failed to load (test)' }),
      ]);
      expect(JSON.stringify(reports)).not.toContain('    at ');
    } finally {
      await logging.close();
    }
  }, 60_000);
});
