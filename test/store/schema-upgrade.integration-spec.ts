/**
 * Upgrading a database that holds data from the schema before the keyset index (1797000000000), the fleet
 * graph (1797300000000) and the scoped waivers and reports (1797400000000): the data written by the older
 * schema reads back through today's repositories, under today's policy layer (a token scoped
 * to some accounts sees only their findings, waivers and reports). Only the fingerprint re-key migration
 * (1796500000001) had such a test (test/faults/fingerprint-identity.integration-spec.ts); fresh databases are
 * covered by every other spec.
 *
 * The older data is written as the older code did: findings through a Store opened on the older migrations
 * (its `scans.complete` writes no graph), waivers and reports with the SQL of that schema (today's
 * repositories write `created_by_token`, which did not exist yet).
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsScope, findMigrationsDir, Store, SYSTEM_PRINCIPAL, type Principal } from '@app/store';
import { makeCoverage, makeFindings } from './finding.factory';
import { createTestDatabase, type TestDatabase } from './test-database.util';

const A = '1000000000000001';
const B = '2000000000000002';
/** The first migration this test upgrades across. */
const FIRST_NEW = '1797000000000';

const viewerOf = (accounts: string[]): Principal => ({ role: 'viewer', kind: 'token', tokenId: 'upgrade-test', accountScope: accountsScope(accounts) });

describe(`upgrade of a database written before migration ${FIRST_NEW}`, () => {
  let db: TestDatabase;
  let oldDir: string;
  let store: Store;
  let newerScan: string;
  let olderScan: string;

  beforeAll(async () => {
    db = await createTestDatabase({ empty: true });
    oldDir = mkdtempSync(join(tmpdir(), 'migrations-before-keyset-'));
    const all = findMigrationsDir();
    const older = readdirSync(all).filter((f) => f < FIRST_NEW);
    expect(older.length).toBeGreaterThan(5);
    for (const f of older) cpSync(join(all, f), join(oldDir, f));

    const before = await Store.open({ connectionString: db.url, migrate: true, migrationsDir: oldDir });
    try {
      // 30 findings per scan: even ones in account A, odd ones in B, three severities.
      const findings = makeFindings(30, (i) => ({
        severity: (['info', 'warning', 'critical'] as const)[i % 3],
        resource: { accountId: i % 2 === 0 ? A : B },
      }));
      const s1 = await before.scans.create({ source: 'offline', startedAt: new Date('2026-10-01T00:00:00Z') });
      await before.scans.complete(s1.id, { findings: findings.slice(0, 20), coverage: [makeCoverage()] });
      const s2 = await before.scans.create({ source: 'offline', startedAt: new Date('2026-10-08T00:00:00Z') });
      await before.scans.complete(s2.id, { findings, coverage: [makeCoverage(), makeCoverage({ accountId: B })] });
      olderScan = s1.id;
      newerScan = s2.id;
    } finally {
      await before.close();
    }
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      await sql.query(
        `INSERT INTO waivers (check_id, account_id, resource, owner, reason, category, created_by, created_at, expires_at)
         VALUES ('clb-backend-quota', $1, 'lb-0000*', 'team-a', 'accepted until the CLB split lands', 'accepted-risk', 'cli', now(), now() + interval '30 days'),
                ('clb-backend-quota', $2, 'lb-00001', 'team-b', 'mitigated by a second CLB in front', 'mitigated', 'cli', now(), now() + interval '30 days')`,
        [A, B],
      );
      for (const scope of ['all', A, `${A},${B}`])
        await sql.query(
          `INSERT INTO reports (period_key, scope_key, status, finished_at, summary, document) VALUES ('2026-10-05T06:00', $1, 'ready', now(), '{"findings": 1}', '{}')`,
          [scope],
        );
    } finally {
      await sql.end();
    }
    store = await Store.open({ connectionString: db.url, migrate: true });
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    await db?.release();
    if (oldDir) rmSync(oldDir, { recursive: true, force: true });
  });

  it('findings of the older scans page with keyset cursors exactly as a full read, per scope', async () => {
    for (const [scope, accountsSeen] of [[SYSTEM_PRINCIPAL, [A, B]], [viewerOf([A]), [A]], [viewerOf([B]), [B]]] as const) {
      const everything = await store.findings.forScan(newerScan, scope);
      const paged: string[] = [];
      let page = await store.findings.list({ scanId: newerScan, limit: 7 }, scope);
      const total = page.total;
      for (;;) {
        paged.push(...page.items.map((f) => f.fingerprint));
        if (page.nextCursor === null) break;
        page = await store.findings.list({ cursor: page.nextCursor, limit: 7 }, scope);
      }
      expect(total).toBe(everything.length);
      expect(new Set(paged)).toEqual(new Set(everything.map((f) => f.fingerprint)));
      expect(paged).toHaveLength(everything.length);
      const accounts = new Set(everything.map((f) => f.resource.accountId));
      expect([...accounts].sort()).toEqual(accountsSeen);
    }
    // History across the upgrade: a finding seen in both scans keeps its first sighting.
    const first = (await store.findings.forScan(newerScan, SYSTEM_PRINCIPAL)).find((f) => f.resource.id === 'lb-00000');
    expect(first?.firstSeenAt).toBe('2026-10-01T00:00:00.000Z');
    expect(first?.lastSeenAt).toBe('2026-10-08T00:00:00.000Z');
  });

  it('older scans have no stored fleet graph, and say so', async () => {
    expect(await store.graph.hasGraph(newerScan)).toBe(false);
    expect(await store.graph.hasGraph(olderScan)).toBe(false);
  });

  it('waivers written before created_by_token read back with no creating token, within their account scope', async () => {
    const all = await store.waivers.list({ scope: SYSTEM_PRINCIPAL });
    expect(all.map((w) => w.owner).sort()).toEqual(['team-a', 'team-b']);
    expect(all.every((w) => w.createdByToken === null)).toBe(true);
    expect((await store.waivers.list({ scope: viewerOf([A]) })).map((w) => w.owner)).toEqual(['team-a']);
    expect((await store.waivers.list({ scope: viewerOf([B]) })).map((w) => w.owner)).toEqual(['team-b']);
  });

  it('reports get their account set from the stored scope key: a scoped token sees only reports within its scope', async () => {
    const keys = async (p: Principal) => (await store.reports.list({ limit: 100 }, p)).items.map((r) => r.scopeKey).sort();
    expect(await keys(SYSTEM_PRINCIPAL)).toEqual([A, `${A},${B}`, 'all'].sort());
    expect(await keys(viewerOf([A]))).toEqual([A]);
    expect(await keys(viewerOf([A, B]))).toEqual([A, `${A},${B}`].sort());
    expect(await keys(viewerOf([B]))).toEqual([]);
  });
});
