/**
 * `startScan` / `runScan` on a store that is still starting (the demo: embedded PostgreSQL starting in its thread
 * while the fleet is read): the outcome is handed out (`analyzed`) before any row exists, then the scan is
 * stored exactly as with a ready store; a store that never starts rejects the scan (nothing is lost
 * silently); bad offline input writes nothing; a scan that read nothing is recorded as failed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScan, ScanFailedError, startScan } from '@app/audit';
import { Store, SYSTEM_PRINCIPAL } from '@app/store';
import { createTestDatabase, type TestDatabase } from '../store/test-database.util';

const SAMPLE = join(__dirname, '../../examples/fleets/sample');
const NOW = new Date('2026-06-01T00:00:00Z');

describe('runScan with a deferred store (Promise<Store>)', () => {
  let db: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
  });

  afterAll(async () => {
    await store?.close();
    await db?.release();
  });

  it('hands the outcome over before the store is ready, then stores it as a ready store would', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const storeReady = gate.then(() => store);
    const scan = startScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: NOW }, storeReady);
    const analyzed = await scan.analyzed;
    const rowBefore = await store.scans.get(analyzed.scan.id);
    release();
    const outcome = await scan.stored;
    expect(analyzed).toBe(outcome);
    expect(rowBefore ?? undefined).toBeUndefined();
    expect(outcome.findings.length).toBeGreaterThan(0);
    const stored = await store.scans.get(outcome.scan.id);
    expect(stored).toMatchObject({ status: 'succeeded', fleetName: outcome.scan.fleetName, startedAt: outcome.scan.startedAt });
    expect(stored?.summary).toMatchObject({ findings: outcome.scan.summary.findings });
    const findings = await store.findings.forScan(outcome.scan.id, SYSTEM_PRINCIPAL);
    expect(findings.map((f) => f.fingerprint).sort()).toEqual(outcome.findings.map((f) => f.fingerprint).sort());

    // The same fleet through a ready store gives the same findings.
    const direct = await runScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: NOW }, store);
    expect(direct.findings.map((f) => f.fingerprint).sort()).toEqual(outcome.findings.map((f) => f.fingerprint).sort());
  });

  it('rejects when the store never starts, after the findings were shown', async () => {
    const scan = startScan({ source: { kind: 'offline', fleetDir: SAMPLE }, now: NOW }, Promise.reject(new Error('embedded PostgreSQL (PGlite) did not start: disk full')));
    // The findings were handed out all the same.
    expect((await scan.analyzed).findings.length).toBeGreaterThan(0);
    await expect(scan.stored).rejects.toThrow('disk full');
  });

  it('writes nothing for a malformed fleet directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-audit-deferred-'));
    try {
      writeFileSync(join(dir, 'fleet.yaml'), 'name: [unclosed\n');
      const before = (await store.scans.list({ limit: 100 }, SYSTEM_PRINCIPAL)).total;
      await expect(runScan({ source: { kind: 'offline', fleetDir: dir }, now: NOW }, Promise.resolve(store))).rejects.toThrow();
      expect((await store.scans.list({ limit: 100 }, SYSTEM_PRINCIPAL)).total).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('records a live scan that read nothing as failed once the store is up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-audit-deferred-'));
    try {
      mkdirSync(dir, { recursive: true });
      const configPath = join(dir, 'scan.yaml');
      // Nothing listens on port 9 (discard) of 127.0.0.1: every call fails, so nothing is read.
      writeFileSync(
        configPath,
        JSON.stringify({
          name: 'unreachable',
          alibabaCloud: { endpoint: '127.0.0.1:9', protocol: 'http' },
          credentials: { accessKeyId: 'LTAI-test-key', accessKeySecret: 'test-secret' },
          accounts: [{ accountId: '1234567890123456', name: 'a', regions: ['cn-hangzhou'] }],
          collector: { maxAttempts: 1 },
        }),
      );
      const { loadScanConfig } = await import('@app/collectors');
      const config = loadScanConfig(configPath);
      const err = await runScan({ source: { kind: 'live', config, configPath }, now: NOW }, Promise.resolve(store)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ScanFailedError);
      const row = await store.scans.get((err as ScanFailedError).scanId);
      expect(row).toMatchObject({ status: 'failed', fleetName: 'unreachable' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
