/**
 * Scans off the API's event loop: `POST /v1/scans` without Redis goes to the
 * bounded in-process queue (libs/audit QueuedScanLauncher), which runs one scan at a time in a child
 * process (`libs/audit/src/scan-child.js` of the suite's CLI build, dist-test/, built by test/global-setup.ts).
 * The real app (createApiApp) on a real PostgreSQL database, through HTTP with supertest; fleets
 * are the bundled sample, a broken copy of it, a generated 30-cluster fleet (bench/scan-load.fleet.ts) and a
 * generated one-cluster fleet for scans whose content no test reads (only their order and status).
 *
 * One app for the file: each test plugs its own queue (a new QueuedScanLauncher with that test's options) into it
 * through a ScanLauncher that forwards to the current queue, so the app's POST /v1/scans reaches that queue as if
 * it had been built around it (an app per test cost a Nest + GraphQL boot each, on a machine that is busy forking
 * scan children).
 *
 * No timing is asserted: "off the event loop" is shown by `/healthz` answering while the scan is
 * still running, and speed figures are in `npm run bench:scan-load`.
 */
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, type ScanLauncher } from '@app/api';
import { QueuedScanLauncher, runScan, type QueuedScanLauncherOptions } from '@app/audit';
import { Store, SYSTEM_PRINCIPAL } from '@app/store';
import type { ScanEventSink } from '@app/telemetry';
import { writeScanLoadFleet } from '../../bench/scan-load.fleet';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';
import { eventually, suiteBuildRoot } from '../worker/worker-test.util';

const ROOT = join(__dirname, '..', '..');
const SAMPLE = join(ROOT, 'examples', 'fleets', 'sample');
/** The scan child of the suite's CLI build (a test never builds). */
const SCAN_CHILD = join(suiteBuildRoot(), 'libs', 'audit', 'src', 'scan-child.js');
const TOKEN = 'scan-queue-e2e-token-5c1d9e0a7b';
const auth = { Authorization: `Bearer ${TOKEN}` };

/** Events of the scan lifecycle, in order: `started:<id>`, `completed:<id>`, `failed:<id>`. */
function recordingSink(into: string[]): ScanEventSink {
  const push = (fields: Record<string, unknown>) => {
    const kind = String(fields.event).replace(/^scan\./, '');
    if (['started', 'completed', 'failed'].includes(kind)) into.push(`${kind}:${String(fields.scanId)}`);
  };
  return { info: push, warn: push, error: push };
}

// Each scan forks a Node.js process that loads the libraries: seconds on a loaded machine.
describe('POST /v1/scans through the in-process scan queue (e2e)', { timeout: 300_000 }, () => {
  let db: TestDatabase;
  let store: Store;
  let work: string;
  let big: string;
  let broken: string;
  let tiny: string;
  let shared: INestApplication;
  const launchers: QueuedScanLauncher[] = [];
  /** The queue the app's POST /v1/scans reaches: the one the running test started. */
  let current: QueuedScanLauncher | undefined;
  const forwarding: ScanLauncher = {
    launch: (r) => current!.launch(r),
    sourceNames: () => current!.sourceNames(),
  };

  /** A new queue with the sources sample, big, broken and tiny, plugged into the app. */
  function start(opts: Partial<QueuedScanLauncherOptions> = {}): { app: INestApplication; launcher: QueuedScanLauncher; errors: unknown[] } {
    const errors: unknown[] = [];
    const launcher = new QueuedScanLauncher({
      store,
      databaseUrl: db.url,
      sources: [
        { name: 'sample', source: { kind: 'offline', fleetDir: SAMPLE } },
        { name: 'big', source: { kind: 'offline', fleetDir: big } },
        { name: 'broken', source: { kind: 'offline', fleetDir: broken } },
        { name: 'tiny', source: { kind: 'offline', fleetDir: tiny } },
        // One scan per source runs at a time (a second launch joins it): sources of their own to queue three.
        { name: 'tiny2', source: { kind: 'offline', fleetDir: tiny } },
        { name: 'tiny3', source: { kind: 'offline', fleetDir: tiny } },
      ],
      onError: (e) => errors.push(e),
      childEntry: SCAN_CHILD,
      ...opts,
    });
    launchers.push(launcher);
    current = launcher;
    return { app: shared, launcher, errors };
  }

  /** What an in-process scan of the sample finds (the reference of the children's results), computed once. */
  let sampleReference: ReturnType<typeof runScan> | undefined;
  const reference = () => (sampleReference ??= runScan({ source: { kind: 'offline', fleetDir: SAMPLE } }));

  beforeAll(async () => {
    // The child runs from the suite's CLI build (test/global-setup.ts); a test never builds.
    if (!existsSync(SCAN_CHILD)) throw new Error(`the built scan child is missing (${SCAN_CHILD}); test/global-setup.ts builds it`);
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    work = mkdtempSync(join(tmpdir(), 'scan-queue-'));
    big = join(work, 'big');
    writeScanLoadFleet(big, { clusters: 30, nodesPerCluster: 30, servicesPerCluster: 12 });
    broken = join(work, 'broken');
    cpSync(SAMPLE, broken, { recursive: true });
    writeFileSync(join(broken, 'fleet.yaml'), 'name: [unclosed\n');
    tiny = join(work, 'tiny');
    writeScanLoadFleet(tiny, { clusters: 1, nodesPerCluster: 2, servicesPerCluster: 1 });
    // More launches than a token's default budget per minute (10): this file launches about 15 in a minute.
    shared = await createApiApp({ store, token: TOKEN, scanLauncher: forwarding, logger: false, scanLaunchesPerMinute: 1_000 });
    await shared.init();
  }, 600_000);

  afterAll(async () => {
    for (const l of launchers) await l.close(0);
    await shared?.close();
    await store?.close();
    await db?.release();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const scanOf = async (id: string) => (await store.scans.get(id))!;
  const ended = (id: string, timeoutMs = 120_000) =>
    eventually(async () => {
      const s = await scanOf(id);
      return s.status !== 'running' ? s : undefined;
    }, timeoutMs, `scan ${id} to end`);

  it('answers 202 at once with the scan id and its Location; the child stores what an in-process scan finds', async () => {
    const { app, launcher } = start();
    const res = await request(app.getHttpServer()).post('/v1/scans').set(auth).send({ source: 'sample' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ scanId: expect.stringMatching(/^[0-9a-f-]{36}$/), joined: false });
    expect(res.headers.location).toBe(`/v1/scans/${res.body.scanId}`);
    // Answered before the scan ran: the row is still running and held by the queue.
    expect((await scanOf(res.body.scanId)).status).toBe('running');
    const s = await ended(res.body.scanId);
    expect(s.status).toBe('succeeded');
    const ref = await reference();
    expect(s.summary?.findings).toBe(ref.scan.summary.findings);
    expect(s.summary?.findings).toBeGreaterThan(0);
    const findings = await request(app.getHttpServer()).get(`/v1/findings?scanId=${s.id}&limit=1000`).set(auth);
    expect(findings.body.total).toBe(ref.findings.length);
    // The child exits after the statistics and trend fits that follow the store.
    await eventually(async () => launcher.status().running === undefined, 60_000, 'the child to exit');
    expect(launcher.status()).toEqual({ waiting: [] });
  });

  // Three scans (two waiting at once, so FIFO and LIFO differ) of the one-cluster fleet: only order and status are read.
  it('runs scans one at a time, in launch order', async () => {
    const events: string[] = [];
    const { app, launcher } = start({ events: recordingSink(events) });
    const ids: string[] = [];
    for (const source of ['tiny', 'tiny2', 'tiny3']) ids.push((await request(app.getHttpServer()).post('/v1/scans').set(auth).send({ source })).body.scanId);
    // The first runs (its child forked), the other two wait in launch order.
    expect(launcher.status()).toMatchObject({ running: { scanId: ids[0] }, waiting: [ids[1], ids[2]] });
    for (const id of ids) expect((await ended(id)).status).toBe('succeeded');
    // The child stores the row, then the queue logs `scan.completed` once the child has answered.
    await eventually(async () => events.length === 6, 60_000, 'the last scan.completed event');
    expect(events).toEqual(ids.flatMap((id) => [`started:${id}`, `completed:${id}`]));
    const finished = await Promise.all(ids.map(async (id) => (await scanOf(id)).finishedAt!));
    expect([...finished].sort()).toEqual(finished);
  });

  it('refuses with 429, Retry-After and an error body past the queue depth, creating no row; shutdown ends held scans interrupted', async () => {
    const { app, launcher } = start({ queueDepth: 1 });
    const http = () => request(app.getHttpServer());
    const running = (await http().post('/v1/scans').set(auth).send({ source: 'big' })).body.scanId as string;
    const waiting = await http().post('/v1/scans').set(auth).send({ source: 'sample' });
    expect(waiting.status).toBe(202);
    const before = (await store.scans.list({ limit: 1 }, SYSTEM_PRINCIPAL)).total;
    // Another source: a second launch of `sample` would join its waiting scan.
    const refused = await http().post('/v1/scans').set(auth).send({ source: 'tiny' });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(refused.body).toEqual({
      statusCode: 429,
      error: 'SCAN_QUEUE_FULL',
      message: 'scan queue full: 1 scan running and 1 waiting (SCAN_QUEUE_DEPTH=1); retry later',
    });
    expect((await store.scans.list({ limit: 1 }, SYSTEM_PRINCIPAL)).total).toBe(before);
    expect(launcher.status()).toMatchObject({ running: { scanId: running }, waiting: [waiting.body.scanId] });

    await launcher.close(0);
    expect((await scanOf(waiting.body.scanId)).error).toBe('interrupted: the API shut down before this scan started');
    const r = await scanOf(running);
    expect(r.status).toBe('failed');
    expect(r.error).toBe('interrupted: the API shut down while this scan ran');
    const late = await http().post('/v1/scans').set(auth).send({ source: 'sample' });
    expect(late.status).toBe(503);
    expect(late.body.error).toBe('UNAVAILABLE');
  });

  it('a scan that fails in the child ends failed with its one-line reason', async () => {
    const { app, errors } = start();
    const id = (await request(app.getHttpServer()).post('/v1/scans').set(auth).send({ source: 'broken' })).body.scanId as string;
    const s = await ended(id);
    expect(s.status).toBe('failed');
    expect(s.error).toContain('fleet.yaml');
    expect(s.error).not.toContain('\n');
    // The child fails the row itself; the queue then reports it (onError: serve's stderr line).
    await eventually(async () => errors.length === 1, 30_000, 'the failure to be reported');
  });

  it('a child that crashes (SIGKILL) ends its scan failed, and the queue goes on with the next one', async () => {
    const { app, launcher } = start();
    const http = () => request(app.getHttpServer());
    const victim = (await http().post('/v1/scans').set(auth).send({ source: 'big' })).body.scanId as string;
    const next = (await http().post('/v1/scans').set(auth).send({ source: 'tiny' })).body.scanId as string;
    const pid = await eventually(async () => launcher.status().running?.pid, 30_000, 'the scan child to start');
    process.kill(pid, 'SIGKILL');
    const s = await ended(victim);
    expect(s.status).toBe('failed');
    expect(s.error).toBe('interrupted: the scan process stopped (signal SIGKILL) before it finished');
    expect((await ended(next)).status).toBe('succeeded');
  });

  it('/healthz and reads answer while a big scan runs in the child', async () => {
    const { app, launcher } = start();
    const http = () => request(app.getHttpServer());
    const id = (await http().post('/v1/scans').set(auth).send({ source: 'big' })).body.scanId as string;
    await eventually(async () => launcher.status().running?.pid, 30_000, 'the scan child to start');
    for (let i = 0; i < 5; i++) {
      expect((await http().get('/healthz')).status).toBe(200);
      expect((await http().get(`/v1/scans/${id}`).set(auth)).body.status).toBe('running');
    }
    // Answered before the scan finished: the same scan is still the running one.
    expect(launcher.status().running?.scanId).toBe(id);
    const s = await ended(id, 240_000);
    expect(s.status).toBe('succeeded');
    expect(s.summary).toMatchObject({ clusters: 30 });
  });

  it('without a database URL the child analyses and this process stores (embedded PGlite, demo)', async () => {
    const { app } = start({ databaseUrl: undefined });
    const id = (await request(app.getHttpServer()).post('/v1/scans').set(auth).send({ source: 'sample' })).body.scanId as string;
    const s = await ended(id);
    expect(s.status).toBe('succeeded');
    const ref = await reference();
    expect(s.summary?.findings).toBe(ref.scan.summary.findings);
    expect(s.coverage).toEqual(ref.scan.coverage);
    // The scan's fleet graph is stored with it: the graph routes answer for this scan as for one stored in process.
    const clusters = await request(app.getHttpServer()).get('/v1/clusters?limit=1000').set(auth);
    expect(clusters.status).toBe(200);
    expect(clusters.body.scanId).toBe(id);
    expect(clusters.body.items).toHaveLength(ref.scan.summary.clusters);
    expect(ref.scan.summary.clusters).toBeGreaterThan(0);
  });
});
