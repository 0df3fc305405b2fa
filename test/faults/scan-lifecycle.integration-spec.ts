/**
 * No scan left running: every path that creates a scan row ends it.
 *
 * - PostgreSQL restarting (`pg_ctl restart -m fast` on a private server, never the shared one)
 *   while a scan stores its findings: the store retries, the scan succeeds, no unhandled 'error'.
 * - PostgreSQL gone for good during the store: one StoreError UNAVAILABLE line, and once it is
 *   back the reaper fails the row (its owner stopped heartbeating).
 * - POST /v1/scans on a configured fleet that became invalid: the row fails, naming the file.
 * - The API's reaper fails running scans whose heartbeat expired (owner SIGKILLed), and leaves
 *   alive and distributed ones alone.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalScanLauncher } from '@app/audit';
import { Store, StoreError, SYSTEM_PRINCIPAL } from '@app/store';
import { makeCoverage, makeFindings } from '../store/finding.factory';
import { eventually } from '../worker/worker-test.util';
import { startPrivatePostgres, type PrivatePostgres } from './private-postgres.util';

const SAMPLE = join(__dirname, '../../examples/fleets/sample');

describe('no scan left running', () => {
  let pg: PrivatePostgres;
  let store: Store;

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    store = await Store.open({ connectionString: pg.url, migrate: true, onIdleError: () => undefined });
  });
  afterAll(async () => {
    await store?.close().catch(() => undefined);
    pg?.destroy();
  });

  it('a PostgreSQL restart during the store is ridden over: the scan succeeds with every finding', async () => {
    const scan = await store.scans.create({ source: 'offline', fleetName: 'restart' });
    const findings = makeFindings(30_000);
    const completing = store.scans.complete(scan.id, { findings, coverage: [makeCoverage()] });
    await new Promise((r) => setTimeout(r, 40));
    pg.restart();
    const done = await completing;
    expect(done.status).toBe('succeeded');
    const page = await store.findings.list({ scanId: scan.id, limit: 1 }, SYSTEM_PRINCIPAL);
    expect(page.total).toBe(30_000);
  });

  it('PostgreSQL gone for good: complete ends in one StoreError UNAVAILABLE line; the reaper fails the row once it is back', async () => {
    const scan = await store.scans.create({ source: 'offline', fleetName: 'gone' });
    pg.stop();
    let err: unknown;
    try {
      await store.scans.complete(scan.id, { findings: makeFindings(10), coverage: [makeCoverage()] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('UNAVAILABLE');
    expect((err as StoreError).message).toMatch(/^cannot store scan [0-9a-f-]+: PostgreSQL connection lost \(7 attempts\)/);
    expect((err as StoreError).message).not.toContain('\n');
    pg.start();
    expect((await store.scans.get(scan.id))?.status).toBe('running');
    await eventually(async () => {
      const reaped = await store.scans.reapExpired(100);
      return reaped.includes(scan.id);
    }, 10_000, 'the reaper to fail the scan');
    const after = await store.scans.get(scan.id);
    expect(after?.status).toBe('failed');
    expect(after?.error).toMatch(/^interrupted: /);
  }, 60_000);

  it('POST /v1/scans of a configured fleet that became invalid fails the row, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-invalid-'));
    try {
      cpSync(SAMPLE, dir, { recursive: true });
      const errors: unknown[] = [];
      const launcher = new LocalScanLauncher(store, [{ name: 'sample', source: { kind: 'offline', fleetDir: dir } }], (e) => errors.push(e));
      writeFileSync(join(dir, 'fleet.yaml'), 'name: [unclosed\n');
      const { scanId } = await launcher.launch({});
      await launcher.drain();
      const scan = await store.scans.get(scanId);
      expect(scan?.status).toBe('failed');
      expect(scan?.error).toContain('fleet.yaml');
      expect(errors).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the reaper fails leased scans without a heartbeat and leaves alive and distributed ones alone', async () => {
    const dead = await store.scans.create({ source: 'offline', fleetName: 'dead' });
    const alive = await store.scans.create({ source: 'live', fleetName: 'alive' });
    const distributed = await store.scans.create({ source: 'distributed', fleetName: 'distributed' });
    const admin = new Client({ connectionString: pg.url });
    await admin.connect();
    await admin.query(`UPDATE scans SET heartbeat_at = now() - interval '1 minute' WHERE id = $1`, [dead.id]);
    await admin.end();
    await store.scans.heartbeat(alive.id);
    const reaped = await store.scans.reapExpired(30_000);
    expect(reaped).toContain(dead.id);
    expect(reaped).not.toContain(alive.id);
    expect(reaped).not.toContain(distributed.id);
    expect((await store.scans.get(dead.id))?.error).toBe('interrupted: the process running this scan stopped (no heartbeat for 30 s)');
    expect((await store.scans.get(alive.id))?.status).toBe('running');
    expect((await store.scans.get(distributed.id))?.status).toBe('running');
  });
});
