/**
 * The chunked store of a scan (libs/store scan-store.ts) under faults, with readers polling the read path all along:
 * - a real PostgreSQL restart (`pg_ctl restart -m fast` on a private server, never the shared one) after some chunks
 *   committed: the store resumes, the scan completes once, no row twice, no chunk written twice;
 * - the store's connections terminated on the shared server (`pg_terminate_backend`): the same;
 * - a process storing a scan SIGKILLed after a chunk committed, then a new store attempt of the same scan (with
 *   other rows): exactly the new attempt's rows; and one killed and reaped instead: no row of it is left.
 * Every read sees either the previous scan whole or the new one whole, and the findings read generation moves once.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding, FleetSnapshot, QuotaUsageSample } from '@app/domain';
import { buildFleetGraph } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import { scanPartition, Store, SYSTEM_PRINCIPAL, type StoredChunk } from '@app/store';
import { startPrivatePostgres, type PrivatePostgres } from '../faults/private-postgres.util';
import { suiteBuildRoot } from '../worker/worker-test.util';
import { makeCoverage, makeFindings } from './finding.factory';
import { createTestDatabase, queryOnce, type TestDatabase } from './test-database.util';

/** Rows per table of the large scan: two chunks of findings and two of quota samples (50,000 rows a chunk). */
const LARGE = 75_000;

/** Rows per table of the new attempt after a killed one: other rows, fewer of them (one chunk each). */
const RETRY = 30_000;

/** One quota sample per finding, on the finding's resource. */
function samplesOf(findings: readonly Finding[]): QuotaUsageSample[] {
  return findings.map((f) => ({ checkId: f.checkId, resource: f.resource, used: 170, limit: 200, ratio: 0.85 }));
}

/** What one read of the latest scan saw. */
interface Seen {
  scanId: string | null;
  findings: number | null;
  samples: number;
  generation: number;
}

/**
 * Read the latest scan through the read path (read generation, findings page with its total, quota statistics) until
 * `until` settles, then once more: the last read kept starts after `until` settled, so it sees what a reader sees
 * once the store returned (a read started before the last commit and answered after it shows the scan before).
 * Reads failing while the server is away are counted, not kept.
 */
async function pollLatest(url: string, until: Promise<unknown>): Promise<{ seen: Seen[]; failed: number }> {
  const reader = await Store.open({ connectionString: url, onIdleError: () => undefined });
  let done = false;
  void until.finally(() => (done = true)).catch(() => undefined);
  const seen: Seen[] = [];
  let failed = 0;
  let lateFailures = 0;
  try {
    for (;;) {
      // Captured before the read: a read that starts once `until` settled is the last one.
      const last = done;
      try {
        const generation = await reader.generations.current();
        const page = await reader.findings.list({ limit: 1 }, SYSTEM_PRINCIPAL, generation);
        const stats = page.scanId ? await reader.quotaUsage.statsByCheck(page.scanId, SYSTEM_PRINCIPAL) : [];
        seen.push({ scanId: page.scanId, findings: page.total, samples: stats.reduce((n, s) => n + s.resources, 0), generation: generation.findings });
        if (last) break;
      } catch {
        failed += 1;
        // A server gone for good after `until` settled ends the reads (100 tries, about 5 s) instead of the test.
        if (last && ++lateFailures >= 100) break;
        // The server is restarting: wait for it instead of spinning on refused connections.
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } finally {
    await reader.close();
  }
  return { seen, failed };
}

/** Store a small scan, started now: the latest one readers see until the next scan created after it is stored. */
async function storePrevious(store: Store): Promise<string> {
  const scan = await store.scans.create({ source: 'offline', fleetName: 'chunked' });
  const findings = makeFindings(10, () => ({ checkId: 'prev-check' }));
  await store.scans.complete(scan.id, { findings, coverage: [makeCoverage()], quotaUsage: samplesOf(findings) });
  return scan.id;
}

/** Rows of a scan per table, and the store bookkeeping left for it. */
async function rowCounts(url: string, scanId: string): Promise<Record<string, number>> {
  const [row] = await queryOnce<Record<string, string>>(
    url,
    `SELECT (SELECT count(*) FROM findings WHERE scan_id = $1) AS findings,
            (SELECT count(DISTINCT fingerprint) FROM findings WHERE scan_id = $1) AS distinct_findings,
            (SELECT count(*) FROM quota_usage WHERE scan_id = $1) AS samples,
            (SELECT count(*) FROM scan_store_attempts WHERE scan_id = $1) AS attempts,
            (SELECT count(*) FROM scan_store_chunks WHERE scan_id = $1) AS chunks`,
    [scanId],
  );
  const counts = Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)]));
  // Findings and quota samples a store in flight staged in the scan's own tables, not yet partitions
  // (scan-partition.util.ts): rows written all the same.
  for (const [table, key] of [['findings', 'findings'], ['quota_usage', 'samples']] as const) {
    const own = scanPartition(table, scanId);
    const [staged] = await queryOnce<{ staged: boolean }>(url, `SELECT NOT relispartition AS staged FROM pg_class WHERE oid = to_regclass($1)`, [own]);
    if (!staged?.staged) continue;
    const distinct = table === 'findings' ? 'count(DISTINCT fingerprint)' : '0';
    const [n] = await queryOnce<{ n: string; d: string }>(url, `SELECT count(*) AS n, ${distinct} AS d FROM ${own}`);
    counts[key]! += Number(n!.n);
    if (table === 'findings') counts.distinct_findings! += Number(n!.d);
  }
  return counts;
}

/** Every read saw the previous scan whole or the new one whole, and the generation moved once, with the scan. */
function expectWholeReads(seen: readonly Seen[], previous: string, next: string, nextCount: number): void {
  expect(seen.length).toBeGreaterThan(0);
  for (const s of seen) {
    if (s.scanId === previous) expect([s.findings, s.samples]).toEqual([10, 10]);
    else expect([s.scanId, s.findings, s.samples]).toEqual([next, nextCount, nextCount]);
  }
  const generations = [...new Set(seen.map((s) => s.generation))].sort((a, b) => a - b);
  expect(generations.length).toBeLessThanOrEqual(2);
  if (generations.length === 2) expect(generations[1] - generations[0]).toBe(1);
}

/** A scan of ten findings stored with the sample fleet's snapshot: the latest snapshot until a later scan stores one. */
async function storeWithSnapshot(store: Store, checkId: string): Promise<{ sample: FleetSnapshot; findings: Finding[]; previous: string }> {
  const sample = loadFleetDirectory(join(__dirname, '..', '..', 'examples', 'fleets', 'sample'));
  const findings = makeFindings(10, () => ({ checkId }));
  const scan = await store.scans.create({ source: 'offline', fleetName: checkId });
  await store.scans.complete(scan.id, { findings, coverage: [makeCoverage()], snapshot: sample });
  return { sample, findings, previous: scan.id };
}

/**
 * Run `fn` with a BEFORE INSERT row trigger on `scan_snapshots` whose PL/pgSQL body is `body`, and a connection of its
 * own (given to `fn`; it may be cut by a restart); the trigger is dropped afterwards on a fresh connection.
 */
async function withSnapshotTrigger(url: string, body: string, fn: (client: Client) => Promise<void>): Promise<void> {
  await queryOnce(url, `CREATE FUNCTION test_snapshot_trigger() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} END $$;
             CREATE TRIGGER test_snapshot_trigger BEFORE INSERT ON scan_snapshots FOR EACH ROW EXECUTE FUNCTION test_snapshot_trigger()`);
  const client = new Client({ connectionString: url });
  // A restart in `fn` ends this session: its error event is expected, not a crash.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end().catch(() => undefined);
    await queryOnce(url, 'DROP TRIGGER IF EXISTS test_snapshot_trigger ON scan_snapshots; DROP FUNCTION IF EXISTS test_snapshot_trigger()');
  }
}

/**
 * Complete scan `scanId` with `findings` and `sample`'s snapshot while `holder` holds advisory lock 4242, which a
 * trigger made by `withSnapshotTrigger` takes before a snapshot row is written: resolves once the scan is visible.
 * @returns the store's promise, in an object (an async function returning it would wait for it): observed, a failure is
 *   the caller's to await
 */
async function completeUntilVisible(store: Store, holder: Client, scanId: string, findings: Finding[], sample: FleetSnapshot): Promise<{ completing: Promise<unknown> }> {
  await holder.query('SELECT pg_advisory_lock(4242)');
  let visible!: () => void;
  const becameVisible = new Promise<void>((resolve) => (visible = resolve));
  const completing = store.scans.complete(scanId, { findings, coverage: [makeCoverage()], snapshot: sample, onVisible: () => visible() });
  completing.catch(() => undefined);
  await Promise.race([becameVisible, completing]);
  return { completing };
}

/** The body of a snapshot trigger that waits for advisory lock 4242 (`completeUntilVisible`). */
const HOLD_SNAPSHOT = 'PERFORM pg_advisory_xact_lock(4242); RETURN NEW;';

/** The snapshot forecasts read is scan `scanId`'s, equal to `sample`. */
async function expectLatestSnapshot(store: Store, scanId: string, sample: FleetSnapshot): Promise<void> {
  const latest = await store.snapshots.latest();
  expect(latest?.scanId).toBe(scanId);
  expect(JSON.stringify(latest?.snapshot)).toBe(JSON.stringify(sample));
}

/** Each chunk reported once: none was written twice. */
function expectChunksOnce(chunks: readonly StoredChunk[]): void {
  const keys = chunks.map((c) => `${c.table}/${c.chunk}`);
  expect(new Set(keys).size).toBe(keys.length);
  expect(keys.sort()).toEqual(['findings/0', 'findings/1', 'quota_usage/0', 'quota_usage/1']);
}

describe('chunked store: a real PostgreSQL restart in the middle (private server)', () => {
  let pg: PrivatePostgres;
  let store: Store;

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    store = await Store.open({ connectionString: pg.url, migrate: true, onIdleError: () => undefined });
  }, 120_000);
  afterAll(async () => {
    await store?.close().catch(() => undefined);
    pg?.destroy();
  });

  it('resumes after the restart: the scan completes once, no row or chunk twice, readers never see part of it', async () => {
    const previous = await storePrevious(store);
    const scan = await store.scans.create({ source: 'offline', fleetName: 'chunked' });
    const findings = makeFindings(LARGE);
    const admin = async (sql: string) => (await queryOnce(pg.url, sql))[0]!;
    const startedBefore = String((await admin('SELECT pg_postmaster_start_time() AS t')).t);
    const chunks: StoredChunk[] = [];
    let restarting: Promise<void> | undefined;
    const completing = store.scans.complete(scan.id, {
      findings,
      coverage: [makeCoverage()],
      quotaUsage: samplesOf(findings),
      onChunk: (c) => {
        chunks.push(c);
        // After the second chunk committed, the whole server restarts under the store.
        if (chunks.length === 2) restarting = pg.restartAsync();
      },
    });
    const reads = pollLatest(pg.url, completing);
    const done = await completing;
    await restarting;
    const { seen, failed } = await reads;

    expect(done.status).toBe('succeeded');
    expect(String((await admin('SELECT pg_postmaster_start_time() AS t')).t)).not.toBe(startedBefore);
    expectChunksOnce(chunks);
    expect(await rowCounts(pg.url, scan.id)).toEqual({ findings: LARGE, distinct_findings: LARGE, samples: LARGE, attempts: 0, chunks: 0 });
    expectWholeReads(seen, previous, scan.id, LARGE);
    // The readers were cut off by the restart too, and read the new scan whole after it.
    expect(failed).toBeGreaterThan(0);
    expect(seen.at(-1)?.scanId).toBe(scan.id);
  }, 180_000);

  it('a restart while the snapshot of a visible scan is written: written once after it, the scan visible throughout', async () => {
    const { sample, findings } = await storeWithSnapshot(store, 'restart-snapshot');
    await withSnapshotTrigger(pg.url, HOLD_SNAPSHOT, async (holder) => {
      const next = await store.scans.create({ source: 'offline', fleetName: 'restart-snapshot' });
      const { completing } = await completeUntilVisible(store, holder, next.id, findings, sample);
      // The snapshot's COPY waits in the trigger; the restart cuts it (and ends the lock's session).
      for (let waiting = 0; waiting === 0; ) {
        const r = await holder.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
        waiting = r.rows[0]!.n;
        if (waiting === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const before = (await holder.query<{ t: string }>('SELECT pg_postmaster_start_time()::text AS t')).rows[0]!.t;
      await pg.restartAsync();
      expect((await store.scans.get(next.id))?.status).toBe('succeeded');
      await completing;
      await expectLatestSnapshot(store, next.id, sample);
      expect((await queryOnce<{ t: string }>(pg.url, 'SELECT pg_postmaster_start_time()::text AS t'))[0]!.t).not.toBe(before);
      expect(await queryOnce(pg.url, 'SELECT count(*)::int AS n FROM scan_snapshots WHERE scan_id = $1', [next.id])).toEqual([{ n: 1 }]);
    });
  }, 120_000);
});

describe('chunked store on the shared server: terminated connections and a killed process', () => {
  let db: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, onIdleError: () => undefined });
  });
  afterAll(async () => {
    await store?.close();
    await db?.release();
  });

  it("resumes after the store's connections are terminated: complete once, no row or chunk twice, whole reads", async () => {
    const previous = await storePrevious(store);
    const scan = await store.scans.create({ source: 'offline', fleetName: 'chunked' });
    const findings = makeFindings(LARGE);
    const chunks: StoredChunk[] = [];
    let terminated: Promise<number> | undefined;
    const terminate = async (): Promise<number> => {
      const c = new Client({ connectionString: db.url });
      await c.connect();
      try {
        const r = await c.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = 'ack-fleet-audit' AND pid <> pg_backend_pid()`,
        );
        return r.rowCount ?? 0;
      } finally {
        await c.end();
      }
    };
    const completing = store.scans.complete(scan.id, {
      findings,
      coverage: [makeCoverage()],
      quotaUsage: samplesOf(findings),
      onChunk: (c) => {
        chunks.push(c);
        if (chunks.length === 1) terminated = terminate();
      },
    });
    const reads = pollLatest(db.url, completing);
    const done = await completing;
    const { seen } = await reads;

    expect(done.status).toBe('succeeded');
    expect(await terminated).toBeGreaterThan(0);
    expectChunksOnce(chunks);
    expect(await rowCounts(db.url, scan.id)).toEqual({ findings: LARGE, distinct_findings: LARGE, samples: LARGE, attempts: 0, chunks: 0 });
    expectWholeReads(seen, previous, scan.id, LARGE);
  }, 180_000);

  it('records the sightings while the lanes still write, seen only with the scan: until it is visible, the previous sightings', async () => {
    // A server that ends transactions idle for a second (as a managed PostgreSQL may): the final transaction waits on
    // the lanes longer than that, idle, and must not be ended (new sessions take the setting: a store of its own).
    await queryOnce(db.url, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET idle_in_transaction_session_timeout = 1000', current_database()); END $$`);
    const limited = await Store.open({ connectionString: db.url, onIdleError: () => undefined });
    const previous = await storePrevious(limited);
    const scan = await limited.scans.create({ source: 'offline', fleetName: 'chunked' });
    // Ten findings seen by the previous scan too (same check and resources), the rest (a check of their own) first now.
    const findings = makeFindings(LARGE, (i) => ({ checkId: i < 10 ? 'prev-check' : 'sightings-check' }));
    const again = findings[0]!.fingerprint;
    const fresh = findings[20]!.fingerprint;
    const sightings = async (): Promise<{ fingerprint: string; last_scan_id: string }[]> =>
      queryOnce(db.url, 'SELECT fingerprint, last_scan_id FROM finding_fingerprints WHERE fingerprint = ANY($1) ORDER BY fingerprint', [[again, fresh]]);
    expect(await sightings()).toEqual([{ fingerprint: again, last_scan_id: previous }]);
    // The quota samples' chunks wait on advisory lock 4242 (held here) before they commit: the findings are stored.
    const holder = new Client({ connectionString: db.url });
    const probe = new Client({ connectionString: db.url });
    await holder.connect();
    await probe.connect();
    await holder.query('SELECT pg_advisory_lock(4242)');
    await queryOnce(
      db.url,
      `CREATE FUNCTION test_chunk_trigger() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.part = 'quota_usage' THEN PERFORM pg_advisory_xact_lock(4242); END IF; RETURN NEW; END $$;
       CREATE TRIGGER test_chunk_trigger BEFORE INSERT ON scan_store_chunks FOR EACH ROW EXECUTE FUNCTION test_chunk_trigger()`,
    );
    try {
      const completing = limited.scans.complete(scan.id, { findings, coverage: [makeCoverage()], quotaUsage: samplesOf(findings) });
      completing.catch(() => undefined);
      // The final transaction holds the row of the fingerprint seen again once it recorded the sightings.
      let locked = false;
      for (let i = 0; i < 1200 && !locked; i += 1) {
        try {
          // A statement of its own: the row lock is let go when it ends.
          await probe.query('SELECT 1 FROM finding_fingerprints WHERE fingerprint = $1 FOR UPDATE NOWAIT', [again]);
        } catch (e) {
          if ((e as { code?: string }).code !== '55P03') throw e;
          locked = true;
        }
        if (!locked) await new Promise((r) => setTimeout(r, 50));
      }
      expect(locked).toBe(true);
      const [running] = await queryOnce<{ status: string }>(db.url, 'SELECT status FROM scans WHERE id = $1', [scan.id]);
      expect(running!.status).toBe('running');
      // Recorded, not committed: readers see the previous sighting and no row of a fingerprint seen first now.
      expect(await sightings()).toEqual([{ fingerprint: again, last_scan_id: previous }]);
      // Idle longer than the server's timeout before the lanes go on.
      await new Promise((r) => setTimeout(r, 1500));
      await holder.query('SELECT pg_advisory_unlock(4242)');
      expect((await completing).status).toBe('succeeded');
      expect(await sightings()).toEqual(
        [
          { fingerprint: again, last_scan_id: scan.id },
          { fingerprint: fresh, last_scan_id: scan.id },
        ].sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : 1)),
      );
    } finally {
      await holder.end();
      await probe.end();
      await limited.close();
      await queryOnce(db.url, 'DROP TRIGGER IF EXISTS test_chunk_trigger ON scan_store_chunks; DROP FUNCTION IF EXISTS test_chunk_trigger()');
      await queryOnce(db.url, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I RESET idle_in_transaction_session_timeout', current_database()); END $$`);
    }
  }, 180_000);

  /** Start the child storing `count` rows into scan `scanId`; SIGKILL it once a chunk committed. */
  async function killMidStore(scanId: string, count: number): Promise<void> {
    const child = spawn(process.execPath, [join(__dirname, 'chunked-store.child.mjs'), db.url, scanId, String(count)], {
      env: { PATH: process.env.PATH ?? '', FLEET_AUDIT_DIST: suiteBuildRoot() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(String(signal ?? code))));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('"chunk"')) resolve();
      });
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      void exited.then((how) => reject(new Error(`the child ended (${how}) before a chunk committed: ${out}`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(out).not.toContain('"stored"');
  }

  it('a process killed mid-store, then a new attempt with other rows: exactly the new rows, visible once', async () => {
    const previous = await storePrevious(store);
    const scan = await store.scans.create({ source: 'offline', fleetName: 'chunked' });
    await killMidStore(scan.id, LARGE);
    // Killed mid-store: part of it is in the tables, under the running scan, which readers do not see.
    const half = await rowCounts(db.url, scan.id);
    expect(half.attempts).toBe(1);
    expect(half.chunks).toBeGreaterThan(0);
    expect(half.findings + half.samples).toBeGreaterThan(0);
    expect((await store.scans.get(scan.id))?.status).toBe('running');
    expect((await store.findings.list({ limit: 1 }, SYSTEM_PRINCIPAL)).scanId).toBe(previous);

    const findings = makeFindings(RETRY, (i) => ({ checkId: `retry-${i % 3}` }));
    const completing = store.scans.complete(scan.id, { findings, coverage: [makeCoverage()], quotaUsage: samplesOf(findings) });
    const reads = pollLatest(db.url, completing);
    expect((await completing).status).toBe('succeeded');
    const { seen } = await reads;
    expect(await rowCounts(db.url, scan.id)).toEqual({ findings: RETRY, distinct_findings: RETRY, samples: RETRY, attempts: 0, chunks: 0 });
    expectWholeReads(seen, previous, scan.id, RETRY);
    const page = await store.findings.list({ limit: 1, checkId: 'clb-backend-quota' }, SYSTEM_PRINCIPAL);
    expect(page.total).toBe(0);
  }, 180_000);

  it('a process killed mid-store and its scan reaped: the scan fails and keeps none of its rows', async () => {
    const scan = await store.scans.create({ source: 'offline', fleetName: 'chunked-reaped' });
    await killMidStore(scan.id, LARGE);
    expect((await rowCounts(db.url, scan.id)).chunks).toBeGreaterThan(0);
    expect(await store.scans.reapExpired(1)).toContain(scan.id);
    expect((await store.scans.get(scan.id))?.status).toBe('failed');
    expect(await rowCounts(db.url, scan.id)).toEqual({ findings: 0, distinct_findings: 0, samples: 0, attempts: 0, chunks: 0 });
  }, 180_000);

  it('a fleet graph still being built: findings and samples are written meanwhile, the graph joins, its ECS table is attached', async () => {
    const sample = loadFleetDirectory(join(__dirname, '..', '..', 'examples', 'fleets', 'sample'));
    const graph = buildFleetGraph(sample);
    const scan = await store.scans.create({ source: 'offline', fleetName: 'chunked-later-graph' });
    const findings = makeFindings(LARGE);
    const before: StoredChunk[] = [];
    let release!: () => void;
    const built = new Promise<void>((resolve) => (release = resolve));
    const chunks: StoredChunk[] = [];
    const done = store.scans.complete(scan.id, {
      findings,
      coverage: [makeCoverage()],
      quotaUsage: samplesOf(findings),
      // The graph arrives only once the chunks of the ready rows are committed.
      graph: built.then(() => graph),
      onChunk: (c) => {
        chunks.push(c);
        if (chunks.length === 4) {
          before.push(...chunks);
          release();
        }
      },
    });
    expect((await done).status).toBe('succeeded');
    expect(new Set(before.map((c) => c.table))).toEqual(new Set(['findings', 'quota_usage']));
    expect(chunks.slice(4).every((c) => c.table.startsWith('graph_'))).toBe(true);
    const counts = await rowCounts(db.url, scan.id);
    expect(counts).toMatchObject({ findings: LARGE, samples: LARGE, attempts: 0, chunks: 0 });
    const [ecs] = await queryOnce<{ n: string; attached: boolean }>(
      db.url,
      `SELECT (SELECT count(*) FROM graph_ecs_instances WHERE scan_id = $1) AS n, (SELECT relispartition FROM pg_class WHERE oid = to_regclass($2)) AS attached`,
      [scan.id, scanPartition('graph_ecs_instances', scan.id)],
    );
    expect(Number(ecs!.n)).toBe(graph.ecsInstances.length);
    expect(ecs!.attached).toBe(true);
    const services = await queryOnce<{ n: string }>(db.url, 'SELECT count(*) AS n FROM graph_services WHERE scan_id = $1', [scan.id]);
    expect(Number(services[0]!.n)).toBe(graph.services.length);
  }, 180_000);

  it('a fleet graph that cannot be built: the store fails with its error and keeps no row of the scan', async () => {
    const scan = await store.scans.create({ source: 'offline', fleetName: 'chunked-graph-failed' });
    const findings = makeFindings(RETRY);
    const failure = new Error('graph build failed');
    await expect(
      store.scans.complete(scan.id, { findings, coverage: [makeCoverage()], quotaUsage: samplesOf(findings), graph: Promise.reject(failure) }),
    ).rejects.toBe(failure);
    expect((await store.scans.get(scan.id))?.status).toBe('running');
    expect(await rowCounts(db.url, scan.id)).toEqual({ findings: 0, distinct_findings: 0, samples: 0, attempts: 0, chunks: 0 });
  }, 180_000);

  it('stores the snapshot with a binary COPY from its compressed parts: read back the same, its size recorded, also when a succeeded scan is stored again', async () => {
    const sample = loadFleetDirectory(join(__dirname, '..', '..', 'examples', 'fleets', 'sample'));
    const scan = await store.scans.create({ source: 'offline', fleetName: 'chunked-snapshot' });
    const findings = makeFindings(10, () => ({ checkId: 'snapshot-check' }));
    const raw = async (): Promise<{ n: number; rawBytes: number; encoding: string | undefined; text: string }> => {
      const c = new Client({ connectionString: db.url });
      await c.connect();
      try {
        const r = await c.query<{ encoding: string; snapshot: Buffer; bytes_raw: string }>('SELECT encoding, snapshot, bytes_raw FROM scan_snapshots WHERE scan_id = $1', [
          scan.id,
        ]);
        const first = r.rows[0];
        return { n: r.rows.length, rawBytes: Number(first?.bytes_raw), encoding: first?.encoding, text: first ? gunzipSync(first.snapshot).toString('utf8') : '' };
      } finally {
        await c.end();
      }
    };
    for (let round = 0; round < 2; round += 1) {
      // The second round completes the succeeded scan again: its result replaced in one transaction.
      await store.scans.complete(scan.id, { findings, coverage: [makeCoverage()], snapshot: sample });
      const stored = await raw();
      expect(stored.n).toBe(1);
      expect(stored.encoding).toBe('gzip+json');
      expect(stored.rawBytes).toBe(Buffer.byteLength(stored.text));
      await expectLatestSnapshot(store, scan.id, sample);
    }
  }, 60_000);

  it('makes the scan visible before its snapshot is written: until the snapshot commits, forecasts read the previous scan\'s', async () => {
    const { sample, findings, previous } = await storeWithSnapshot(store, 'visible-first');
    await withSnapshotTrigger(db.url, HOLD_SNAPSHOT, async (holder) => {
      const next = await store.scans.create({ source: 'offline', fleetName: 'visible-first' });
      const { completing } = await completeUntilVisible(store, holder, next.id, findings, sample);
      // The findings are served from the new scan; the snapshot is not written yet, so forecasts read the previous one.
      expect((await store.scans.get(next.id))?.status).toBe('succeeded');
      expect((await store.findings.list({ limit: 1 }, SYSTEM_PRINCIPAL)).scanId).toBe(next.id);
      expect((await store.snapshots.latest())?.scanId).toBe(previous);
      expect(await store.snapshots.latestScanId()).toBe(previous);
      await holder.query('SELECT pg_advisory_unlock(4242)');
      await completing;
      await expectLatestSnapshot(store, next.id, sample);
    });
  }, 60_000);

  it('a snapshot PostgreSQL refuses after the scan is visible: the scan stays succeeded, the error says it is stored, forecasts keep the previous snapshot', async () => {
    const { sample, findings, previous } = await storeWithSnapshot(store, 'snapshot-refused');
    await withSnapshotTrigger(db.url, "RAISE EXCEPTION 'snapshot refused by the test';", async () => {
      const next = await store.scans.create({ source: 'offline', fleetName: 'snapshot-refused' });
      const failed = await store.scans.complete(next.id, { findings, coverage: [makeCoverage()], quotaUsage: samplesOf(findings), snapshot: sample }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failed).toBeInstanceOf(Error);
      expect((failed as Error).message).toMatch(new RegExp(`^scan ${next.id} is stored and visible, but its fleet snapshot could not be stored .*snapshot refused by the test`));
      expect((failed as { code?: string }).code).toBe('CONFLICT');
      expect((await store.scans.get(next.id))?.status).toBe('succeeded');
      expect(await rowCounts(db.url, next.id)).toEqual({ findings: 10, distinct_findings: 10, samples: 10, attempts: 0, chunks: 0 });
      expect((await store.snapshots.latest())?.scanId).toBe(previous);
    });
  }, 60_000);
});
