/**
 * A fleet whose `services.yaml` holds a YAML alias chain under `managedFields` ("billion laughs") must not stall the
 * API: `POST /v1/scans` of it through the in-process scan queue ends `failed` with the loader's error naming the file
 * and the line, at 10 and at 100 alias levels alike, and `/healthz` answers within 0.5 s (median) while the scan runs,
 * never as late as a blocked event loop would (the unbounded expansion took 47.6 s at 10 levels). The next
 * scan of the same queue (the bundled sample) then runs: the queue is not held. The real app (createApiApp) on a real
 * PostgreSQL database, the scan in a child process of the suite's CLI build (test/global-setup.ts).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '@app/api';
import { QueuedScanLauncher } from '@app/audit';
import { Store } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { eventually, suiteBuildRoot } from '../worker/worker-test.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const SERVICES = 'accounts/1987654321098765/regions/cn-hangzhou/clusters/c75849719d4432e7378507410f099fa74/kubernetes/services.yaml';
const SCAN_CHILD = join(suiteBuildRoot(), 'libs', 'audit', 'src', 'scan-child.js');
const TOKEN = 'yaml-alias-scan-e2e-token-3f9a1c';
const auth = { Authorization: `Bearer ${TOKEN}` };
/** `/healthz` bound while a scan runs (milliseconds, median): the scan runs in a child process, off the event loop. */
const HEALTHZ_BOUND_MS = 500;
/** No single `/healthz` answer may take this long (milliseconds): room for a busy CI machine, far below a blocked loop. */
const HEALTHZ_CEILING_MS = 5_000;

/** `levels` anchors, each a list of nine aliases of the previous one, as mapping entries indented by `indent`. */
function aliasChain(levels: number, indent: number): string {
  const pad = ' '.repeat(indent);
  const lines = [`${pad}a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]`];
  for (let i = 1; i < levels; i += 1) lines.push(`${pad}a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

/** A copy of the sample fleet with the chain under the first Service's `managedFields`. */
function chainedFleet(dir: string, levels: number): void {
  cpSync(SAMPLE, dir, { recursive: true });
  const file = join(dir, ...SERVICES.split('/'));
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf('    metadata:\n') + '    metadata:\n'.length;
  writeFileSync(file, `${text.slice(0, at)}      managedFields:\n        - manager: probe\n${aliasChain(levels, 10)}${text.slice(at)}`);
}

describe('a YAML alias chain in a fleet scanned through the API', { timeout: 300_000 }, () => {
  let db: TestDatabase;
  let store: Store;
  let work: string;
  let app: INestApplication;
  let launcher: QueuedScanLauncher;

  beforeAll(async () => {
    if (!existsSync(SCAN_CHILD)) throw new Error(`the built scan child is missing (${SCAN_CHILD}); test/global-setup.ts builds it`);
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    work = mkdtempSync(join(tmpdir(), 'yaml-alias-scan-'));
    chainedFleet(join(work, 'chain10'), 10);
    chainedFleet(join(work, 'chain100'), 100);
    launcher = new QueuedScanLauncher({
      store,
      databaseUrl: db.url,
      sources: [
        { name: 'chain10', source: { kind: 'offline', fleetDir: join(work, 'chain10') } },
        { name: 'chain100', source: { kind: 'offline', fleetDir: join(work, 'chain100') } },
        { name: 'sample', source: { kind: 'offline', fleetDir: SAMPLE } },
      ],
      onError: () => undefined,
      childEntry: SCAN_CHILD,
    });
    app = await createApiApp({ store, token: TOKEN, scanLauncher: launcher, logger: false });
    await app.init();
  }, 600_000);

  afterAll(async () => {
    await launcher?.close(0);
    await app?.close();
    await store?.close();
    await db?.release();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** Polls `/healthz` while `until` is pending; returns the answer times (milliseconds), sorted. */
  async function healthzTimes(until: Promise<unknown>): Promise<number[]> {
    let done = false;
    void until.finally(() => (done = true));
    const times: number[] = [];
    while (!done) {
      const start = performance.now();
      const res = await request(app.getHttpServer()).get('/healthz');
      times.push(performance.now() - start);
      expect(res.status).toBe(200);
      await new Promise((r) => setImmediate(r));
    }
    return times.sort((a, b) => a - b);
  }

  const ended = (id: string) =>
    eventually(async () => {
      const s = await store.scans.get(id);
      return s && s.status !== 'running' ? s : undefined;
    }, 120_000, `scan ${id} to end`);

  it.each([10, 100])('%i levels: the scan fails naming the file and line, /healthz stays under 0.5 s, the queue moves on', async (levels) => {
    const res = await request(app.getHttpServer()).post('/v1/scans').set(auth).send({ source: `chain${levels}` });
    expect(res.status).toBe(202);
    const end = ended(res.body.scanId);
    const times = await healthzTimes(end);
    const scan = await end;
    expect(scan.status).toBe('failed');
    expect(scan.error).toContain(SERVICES);
    expect(scan.error).toMatch(/line \d+\): YAML whose aliases \(\*name\) expand it to at most [\d,]+ nodes/);
    expect(times[Math.floor(times.length / 2)]!).toBeLessThan(HEALTHZ_BOUND_MS);
    expect(times[times.length - 1]!).toBeLessThan(HEALTHZ_CEILING_MS);
    const next = await request(app.getHttpServer()).post('/v1/scans').set(auth).send({ source: 'sample' });
    expect(next.status).toBe(202);
    expect((await ended(next.body.scanId)).status).toBe('succeeded');
  });
});
