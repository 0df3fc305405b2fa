/**
 * The lean findings and quota samples (migrations 1800300000000: two indexes no read needs, and 1800300000001: a
 * finding's remediation and source stored once per wording in `finding_texts`), with data in the tables. Scans are
 * stored with today's code through both writers (COPY chunks, and the single-transaction INSERTs), with findings
 * whose texts are their check's (stored by reference) and findings whose texts are not (kept in the row). Every
 * reader's answer is taken, the two migrations are rolled back with their own down steps (the texts must be back in
 * every row, the indexes back), the answers must be the same on the older schema, then a Store migrates forward
 * again (the up step converts the stored rows) and the answers must still be the same; retention runs over them.
 * Migrations 1800400000000 (the gzip bytes stored without pglz) and 1800400000001 (the check keyset index) roll back
 * and forward with them: the columns' storage and the indexes follow, and the snapshot stored before reads back the
 * same.
 */
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeAndStore } from '@app/audit';
import { CHECKS } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import { ALL_ACCOUNTS, DEFAULT_RETENTION_POLICY, Store, SYSTEM_PRINCIPAL, type Scoped } from '@app/store';
import { makeCoverage, makeFinding, makeFindings } from './finding.factory';
import { createTestDatabase, rollBackThrough, type TestDatabase } from './test-database.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const ALL: Scoped = { accountScope: ALL_ACCOUNTS };
/** The oldest migration rolled back (every newer one goes first: `rollBackThrough`). */
const ROLLED_THROUGH = '1800300000000_dropped_redundant_quota_and_finding_indexes';
const WINDOW = { since: new Date('2026-10-01T00:00:00Z'), until: new Date('2026-12-01T00:00:00Z') };

/**
 * `attstorage` of the columns holding bytes the service gzips itself (scan_shards.snapshot, scan_snapshots.snapshot,
 * scan_targets.slice_gz, in that order): `e` (EXTERNAL, migration 1800400000000) or `x` (EXTENDED, before it).
 */
async function compressedBytesStorage(sql: Client): Promise<string[]> {
  const { rows } = await sql.query<{ s: string }>(
    `SELECT a.attstorage AS s FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      WHERE (c.relname, a.attname) IN (('scan_snapshots', 'snapshot'), ('scan_shards', 'snapshot'), ('scan_targets', 'slice_gz'))
      ORDER BY c.relname, a.attname`,
  );
  return rows.map((r) => r.s);
}

/** Which of the indexes the migrations under test drop or create exist, by name. */
async function changedIndexes(sql: Client): Promise<string[]> {
  const { rows } = await sql.query<{ n: string }>(
    `SELECT indexname AS n FROM pg_indexes
      WHERE indexname IN ('quota_usage_resource_idx', 'findings_fingerprint_idx', 'findings_scan_check_idx', 'findings_scan_check_keyset_idx') ORDER BY 1`,
  );
  return rows.map((r) => r.n);
}

/** What the readers answer for the stored scans: full reads, pages (REST and GraphQL), counts, quota history. */
async function answers(store: Store, scanIds: readonly string[]): Promise<unknown> {
  const out: unknown[] = [];
  for (const scanId of scanIds) {
    const all = await store.findings.forScan(scanId, SYSTEM_PRINCIPAL);
    const pages: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.findings.list({ scanId, limit: 7, ...(cursor ? { cursor } : {}) }, ALL);
      pages.push(page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const relay = await store.findings.page({ scanId }, { first: 1000 }, ALL);
    out.push({
      all,
      pages,
      relay: relay.page.edges.map((e) => [e.cursor, e.node]),
      counts: await store.findings.countsByCheckAndSeverity(scanId, ALL),
      quotas: await store.quotaUsage.forScan(scanId, ALL),
    });
  }
  out.push(await store.quotaUsage.history(WINDOW));
  const first = (await store.quotaUsage.history(WINDOW))[0];
  if (first) out.push(await store.quotaUsage.history({ ...WINDOW, checkId: first.checkId, accountId: first.resource.accountId, regionId: first.resource.regionId }));
  out.push(await store.scanDiffs.diff({ scanId: scanIds[1]!, againstScanId: scanIds[0]!, limit: 1000 }, ALL));
  return out;
}

describe('upgrade across the lean findings and quota samples (1800300000000-1800300000001), with data', () => {
  let db: TestDatabase;
  let scanIds: string[];
  let before: unknown;
  /** The latest stored fleet snapshot as read before the rollback. */
  let snapshotBefore: unknown;
  /** The sample fleet's findings as stored by today's code: [fingerprint, remediation, source] by fingerprint. */
  let textsBefore: [string, string, string][];

  /** Every finding's stored texts after COALESCE with its reference, by scan and fingerprint. */
  async function storedTexts(sql: Client, withTexts: boolean): Promise<[string, string, string][]> {
    const q = withTexts
      ? `SELECT f.fingerprint, COALESCE(f.remediation, t.remediation) AS remediation, COALESCE(f.source, t.source) AS source
           FROM findings f LEFT JOIN finding_texts t ON t.id = f.texts_id ORDER BY f.scan_id, f.fingerprint`
      : 'SELECT fingerprint, remediation, source FROM findings ORDER BY scan_id, fingerprint';
    return (await sql.query<{ fingerprint: string; remediation: string; source: string }>(q)).rows.map((r) => [r.fingerprint, r.remediation, r.source]);
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    const snapshot = loadFleetDirectory(SAMPLE);
    const checkId = CHECKS[0]!.id;
    // Written by the chunked store (COPY) and by the single-transaction store (INSERTs).
    for (const chunkedStore of [true, false]) {
      const store = await Store.open({ connectionString: db.url, migrate: true, chunkedStore });
      try {
        const at = new Date(chunkedStore ? '2026-11-01T00:00:00Z' : '2026-11-02T00:00:00Z');
        const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name, startedAt: at });
        await analyzeAndStore(snapshot, { scanId: scan.id, now: at, store });
        const other = await store.scans.create({ source: 'offline', fleetName: 'factory', startedAt: at });
        // A registered check with its own texts, a reworded one, and checks the registry does not know.
        const findings = [
          makeFinding({ checkId, remediation: CHECKS[0]!.remediation, source: CHECKS[0]!.source, resource: { id: 'lb-registry' } }),
          makeFinding({ checkId, remediation: 'Reworded for this one resource.', source: CHECKS[0]!.source, resource: { id: 'lb-reworded' } }),
          ...makeFindings(3),
        ];
        await store.scans.complete(other.id, { findings, coverage: [makeCoverage()] });
      } finally {
        await store.close();
      }
    }
    const store = await Store.open({ connectionString: db.url, migrate: true });
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      scanIds = (await sql.query<{ id: string }>(`SELECT id FROM scans WHERE fleet_name <> 'factory' ORDER BY started_at`)).rows.map((r) => r.id);
      before = await answers(store, scanIds);
      snapshotBefore = (await store.snapshots.latest())?.snapshot;
      expect(snapshotBefore).toBeDefined();
      expect(await compressedBytesStorage(sql)).toEqual(['e', 'e', 'e']);
      textsBefore = await storedTexts(sql, true);
    } finally {
      await store.close();
      await sql.end();
    }
  }, 180_000);

  afterAll(async () => {
    await db?.release();
  });

  it('stores texts equal to their check by reference and any other texts in the row, from both writers', async () => {
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      const { rows } = await sql.query<{ fleet: string; by_ref: string; inline: string }>(
        `SELECT s.fleet_name AS fleet, count(*) FILTER (WHERE f.texts_id IS NOT NULL AND f.remediation IS NULL AND f.source IS NULL) AS by_ref,
                count(*) FILTER (WHERE f.texts_id IS NULL AND f.remediation IS NOT NULL AND f.source IS NOT NULL) AS inline
           FROM findings f JOIN scans s ON s.id = f.scan_id GROUP BY s.id, s.fleet_name ORDER BY s.started_at, s.fleet_name`,
      );
      // Per store: the sample fleet's findings all by reference; the factory scan's registered finding by reference,
      // the reworded one and the unknown checks' in the row.
      for (const r of rows) {
        if (r.fleet === 'factory') expect([Number(r.by_ref), Number(r.inline)]).toEqual([1, 4]);
        else expect([Number(r.by_ref) > 0, Number(r.inline)]).toEqual([true, 0]);
      }
      expect(rows).toHaveLength(4);
      // One row per wording, shared by both writers.
      const texts = await sql.query<{ n: string }>('SELECT count(*) AS n FROM finding_texts');
      expect(Number(texts.rows[0]!.n)).toBe(CHECKS.length);
    } finally {
      await sql.end();
    }
  });

  it('rolls back to rows holding their texts and the dropped indexes, and the older schema reads the same', async () => {
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      expect((await rollBackThrough(sql, ROLLED_THROUGH)).at(-1)).toBe(ROLLED_THROUGH);
      const cols = await sql.query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'findings' AND column_name = 'texts_id'`);
      expect(cols.rows).toEqual([]);
      expect((await sql.query(`SELECT to_regclass('finding_texts') AS t`)).rows[0]).toEqual({ t: null });
      expect(await changedIndexes(sql)).toEqual(['findings_fingerprint_idx', 'findings_scan_check_idx', 'quota_usage_resource_idx']);
      expect(await storedTexts(sql, false)).toEqual(textsBefore);
      expect(await compressedBytesStorage(sql)).toEqual(['x', 'x', 'x']);
    } finally {
      await sql.end();
    }
    const older = await Store.open({ connectionString: db.url, migrate: false });
    try {
      expect(await answers(older, scanIds)).toEqual(before);
    } finally {
      await older.close();
    }
  });

  it('migrates the stored rows forward again: shared wordings by reference, every answer the same, retention runs', async () => {
    const store = await Store.open({ connectionString: db.url, migrate: true });
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      expect(await storedTexts(sql, true)).toEqual(textsBefore);
      // Every wording two findings share is stored once; the reworded finding and the factory's own texts (each one
      // finding per scan, but the same in the two factory scans) follow the same rule.
      const single = await sql.query<{ n: string }>(
        `SELECT count(*) AS n FROM findings f WHERE f.texts_id IS NULL
            AND (SELECT count(*) FROM findings g WHERE g.check_id = f.check_id AND g.remediation = f.remediation AND g.source = f.source) > 1`,
      );
      expect(Number(single.rows[0]!.n)).toBe(0);
      expect(await answers(store, scanIds)).toEqual(before);
      // The gzip bytes stored out of line without pglz again; the snapshot stored before reads the same.
      expect(await compressedBytesStorage(sql)).toEqual(['e', 'e', 'e']);
      expect((await store.snapshots.latest())?.snapshot).toEqual(snapshotBefore);
      expect(await changedIndexes(sql)).toEqual(['findings_scan_check_keyset_idx']);
      const now = new Date('2026-12-01T00:00:00Z');
      const run = await store.retention.run({ now, policy: DEFAULT_RETENTION_POLICY, batchRows: 100 });
      expect(run.status).toBe('done');
    } finally {
      await sql.end();
      await store.close();
    }
  });
});
