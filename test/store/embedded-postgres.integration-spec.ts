/**
 * The embedded path (PGlite behind pglite-socket, one connection): migrations and every
 * repository method work on it as on the PostgreSQL server, and a data directory persists.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultTemplateCacheDir,
  FINDING_ROWS_PER_INSERT,
  Store,
  StoreError,
  startEmbeddedPostgres,
  templateFileName,
  type EmbeddedPostgres,
  SYSTEM_PRINCIPAL,
} from '@app/store';
import { loadFleetDirectory } from '@app/collectors';
import { makeCoverage, makeFinding, makeFindings } from './finding.factory';

/** Every PGlite start runs initdb or loads a template in WASM: slow on a busy 2-core machine. */
const PGLITE_TIMEOUT_MS = 300_000;

describe('startEmbeddedPostgres (PGlite)', () => {
  let pg: EmbeddedPostgres;
  let store: Store;
  /** The template cache of this file: `pg` runs initdb, is migrated and saves its template here before any data. */
  let cacheDir: string;
  let templateFile: string | undefined;

  // One initdb (about 7 CPU seconds in WASM; a start from the template about 2) for the shared database and the template
  // the cases below start from, where what they show is not initdb itself.
  beforeAll(async () => {
    cacheDir = mkdtempSync(join(tmpdir(), 'fleet-audit-pglite-cache-'));
    pg = await startEmbeddedPostgres({ templateCacheDir: cacheDir });
    store = await Store.open({ connectionString: pg.connectionString, migrate: true, poolMax: pg.poolMax });
    templateFile = await pg.saveTemplate();
  }, PGLITE_TIMEOUT_MS);

  afterAll(async () => {
    await store?.close();
    await pg?.close();
    if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
  });

  it('serves on loopback with a single-connection pool', () => {
    expect(pg.connectionString).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    expect(pg.poolMax).toBe(1);
  });

  it('is migrated, and migrating again applies nothing', async () => {
    expect(await store.migrate()).toEqual([]);
  });

  it('runs every repository method', async () => {
    const t1 = new Date('2026-03-01T00:00:00Z');
    const t2 = new Date('2026-03-08T00:00:00Z');
    const a = await store.scans.create({ source: 'offline', fleetName: 'sample', startedAt: t1 });
    const shared = makeFinding({ severity: 'critical', resource: { id: 'lb-shared' } });
    await store.scans.complete(a.id, { findings: [shared, makeFinding({ resource: { id: 'lb-a' } })], coverage: [makeCoverage()] });
    const b = await store.scans.create({ source: 'offline', fleetName: 'sample', startedAt: t2 });
    const doneB = await store.scans.complete(b.id, {
      findings: [shared, makeFinding({ checkId: 'nodeport-overlap', severity: 'info', resource: { id: 'c-beta', kind: 'Cluster', clusterId: 'c-beta' } })],
      coverage: [makeCoverage()],
    });
    expect(doneB.summary).toEqual({ findings: 2, bySeverity: { info: 1, warning: 0, critical: 1 }, byCheck: { 'clb-backend-quota': 1, 'nodeport-overlap': 1 } });
    // Re-completing is idempotent here too.
    await store.scans.complete(b.id, { findings: [shared], coverage: [] });

    const failed = await store.scans.create({ source: 'live', startedAt: new Date('2026-03-09T00:00:00Z') });
    await store.scans.fail(failed.id, 'nothing could be read');

    expect((await store.scans.latestSucceeded(SYSTEM_PRINCIPAL))?.id).toBe(b.id);
    expect(await store.scans.get(failed.id)).toMatchObject({ status: 'failed', error: 'nothing could be read' });
    const scans = await store.scans.list({ limit: 2 }, SYSTEM_PRINCIPAL);
    expect(scans.total).toBe(3);
    expect(scans.items.map((s) => s.id)).toEqual([failed.id, b.id]);

    const page = await store.findings.list({}, SYSTEM_PRINCIPAL);
    expect(page).toMatchObject({ scanId: b.id, total: 1 });
    expect(page.items[0]).toMatchObject({
      fingerprint: shared.fingerprint,
      ratio: 0.85,
      used: 170,
      limit: 200,
      firstSeenAt: t1.toISOString(),
      lastSeenAt: t2.toISOString(),
    });
    const filtered = await store.findings.list({ scanId: a.id, severity: 'warning', accountId: shared.resource.accountId, clusterId: 'c-alpha' }, SYSTEM_PRINCIPAL);
    expect(filtered.items.map((f) => f.resource.id)).toEqual(['lb-a']);
    expect((await store.findings.list({ scanId: a.id, checkId: 'clb-backend-quota', limit: 1, offset: 1 }, SYSTEM_PRINCIPAL)).items).toHaveLength(1);
    expect(await store.findings.forScan(a.id, SYSTEM_PRINCIPAL)).toHaveLength(2);
    await expect(store.scans.fail(b.id, 'late')).rejects.toBeInstanceOf(StoreError);
  });

  it('inserts in chunks over the single connection', async () => {
    const n = FINDING_ROWS_PER_INSERT + 500;
    const scan = await store.scans.create({ source: 'distributed' });
    await store.scans.complete(scan.id, { findings: makeFindings(n), coverage: [] });
    expect((await store.findings.list({ scanId: scan.id, limit: 1 }, SYSTEM_PRINCIPAL)).total).toBe(n);
  });

  // The one-transaction store of the single connection writes the snapshot with an INSERT: a binary
  // `COPY ... FROM STDIN (FORMAT binary)` there never finishes on PGlite (the demo hung after its findings), and the
  // store refuses one on a store without COPY lanes (ScanSnapshotRepository.copyCompressed).
  it("stores a scan's fleet snapshot in its one transaction and reads it back", async () => {
    const sample = loadFleetDirectory(join(__dirname, '..', '..', 'examples', 'fleets', 'sample'));
    const scan = await store.scans.create({ source: 'offline', fleetName: 'pglite-snapshot' });
    await store.scans.complete(scan.id, { findings: [makeFinding()], coverage: [makeCoverage()], snapshot: sample });
    const latest = await store.snapshots.latest();
    expect(latest?.scanId).toBe(scan.id);
    expect(JSON.stringify(latest?.snapshot)).toBe(JSON.stringify(sample));
    await expect(store.snapshots.copyCompressed(undefined as never, scan.id, { encoding: 'gzip+json', parts: [], bytes: 0, rawBytes: 0 })).rejects.toThrow(/binary COPY/);
  }, 60_000);

  it('names the template after the PGlite version and the migrations, in the XDG cache directory', () => {
    expect(templateFileName()).toMatch(/^pglite-\d+\.\d+\.\d+-[0-9a-f]{16}\.tar\.gz$/);
    expect(defaultTemplateCacheDir({ XDG_CACHE_HOME: '/var/cache/x' })).toBe('/var/cache/x/ack-fleet-audit');
    expect(defaultTemplateCacheDir({ XDG_CACHE_HOME: 'relative' })).toMatch(/\/\.cache\/ack-fleet-audit$/);
  });

  // The four cases below start PGlite instances of their own (own worker thread, own port; a data directory or a
  // corrupt cache of their own, or this file's template, which they only read): they run side by side, each start
  // (initdb or a template in WASM, seconds of CPU) waiting on its own thread instead of one after the other.
  it.concurrent('keeps data in a data directory across restarts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fleet-audit-pglite-'));
    try {
      const first = await startEmbeddedPostgres({ dataDir });
      const s1 = await Store.open({ connectionString: first.connectionString, migrate: true, poolMax: first.poolMax });
      const scan = await s1.scans.create({ source: 'offline', fleetName: 'persisted' });
      await s1.scans.complete(scan.id, { findings: [makeFinding()], coverage: [] });
      await s1.close();
      await first.close();

      const second = await startEmbeddedPostgres({ dataDir });
      const s2 = await Store.open({ connectionString: second.connectionString, migrate: true, poolMax: second.poolMax });
      try {
        expect(await s2.scans.get(scan.id)).toMatchObject({ fleetName: 'persisted', status: 'succeeded' });
        expect((await s2.findings.list({}, SYSTEM_PRINCIPAL)).total).toBe(1);
      } finally {
        await s2.close();
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, PGLITE_TIMEOUT_MS);

  it.concurrent('caches the migrated schema as a template: the next start loads it and migrating applies nothing', async () => {
    // The shared database ran initdb, was migrated, and saved its template before any case wrote data (beforeAll);
    // the scans the cases above and this one stored in it since are not in the template.
    expect(pg.origin).toBe('initdb');
    expect(templateFile).toBe(join(cacheDir, templateFileName()));
    expect(existsSync(templateFile!)).toBe(true);
    await store.scans.create({ source: 'offline', fleetName: 'after-template' });

    const second = await startEmbeddedPostgres({ templateCacheDir: cacheDir });
    expect(second.origin).toBe('template');
    expect(await second.saveTemplate()).toBeUndefined();
    const s2 = await Store.open({ connectionString: second.connectionString, poolMax: second.poolMax });
    try {
      expect(await s2.migrate()).toEqual([]);
      expect(await s2.pendingMigrations()).toEqual([]);
      expect((await s2.scans.list({ limit: 10 }, SYSTEM_PRINCIPAL)).total).toBe(0);
      const scan = await s2.scans.create({ source: 'offline', fleetName: 'on-template' });
      await s2.scans.complete(scan.id, { findings: [makeFinding()], coverage: [makeCoverage()] });
      expect((await s2.findings.list({}, SYSTEM_PRINCIPAL)).total).toBe(1);
    } finally {
      await s2.close();
      await second.close();
    }
  }, PGLITE_TIMEOUT_MS);

  it.concurrent('starts from initdb when the cached template is corrupt', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'fleet-audit-pglite-cache-'));
    try {
      writeFileSync(join(cacheDir, templateFileName()), 'not a tarball');
      const pgc = await startEmbeddedPostgres({ templateCacheDir: cacheDir });
      const sc = await Store.open({ connectionString: pgc.connectionString, migrate: true, poolMax: pgc.poolMax });
      try {
        expect(pgc.origin).toBe('initdb');
        expect(await sc.pendingMigrations()).toEqual([]);
      } finally {
        await sc.close();
        await pgc.close();
      }
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  }, PGLITE_TIMEOUT_MS);

  it.concurrent('close is idempotent and a closed database refuses connections', async () => {
    const p = await startEmbeddedPostgres({ templateCacheDir: cacheDir });
    expect(p.origin).toBe('template');
    await Promise.all([p.close(), p.close()]);
    await expect(Store.open({ connectionString: p.connectionString, poolMax: 1 })).rejects.toBeInstanceOf(StoreError);
  }, PGLITE_TIMEOUT_MS);
});
