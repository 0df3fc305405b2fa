/**
 * Upgrading a database that holds data from the schema before this session's migrations: the ECS-to-NLB links
 * (1798700000000), the regions' NLB server-group counts (1798800000000), retention (1798900000000) and the shards of
 * sharded analysis (1799000000000), the account indexes of the graph (1799100000000), the compressed target slices (1799200000000), target slices in
 * parts (1799300000000), the stored quota trend fits (1799400000000), the ECS attachments by reference
 * (1800200000000, whose up step moves stored rows into the shared sets and down step back), lz4 for the graph's
 * large values (1800200000001), the bulk tables without foreign keys (1800200000002), and the lean findings and
 * quota samples (1800300000000-1800300000001: schema-upgrade-lean-findings.integration-spec.ts checks their rows). A scan of the
 * bundled sample fleet is stored with today's code, then these migrations are rolled back with their own
 * down steps (so the rows are in the older schema's shape, the new columns and table gone) and the Store opened
 * again migrates them forward. The older rows must read back, with the new fields at their documented defaults,
 * and retention must run over them. (schema-upgrade.integration-spec.ts covers the earlier migrations.)
 */
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeAndStore } from '@app/audit';
import { loadFleetDirectory } from '@app/collectors';
import { ALL_ACCOUNTS, DEFAULT_RETENTION_POLICY, Store, SYSTEM_PRINCIPAL, type Scoped } from '@app/store';
import { createTestDatabase, rollBackThrough, type TestDatabase } from './test-database.util';

const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');
const ALL: Scoped = { accountScope: ALL_ACCOUNTS };
/** The oldest migration rolled back (every newer one goes first: `rollBackThrough`). */
const ROLLED_THROUGH = '1798700000000_added_graph_ecs_nlbs';

describe('upgrade across the NLB graph and retention migrations, with data', () => {
  let db: TestDatabase;
  let store: Store;
  let scanId: string;
  let findingsBefore: string[];
  let fingerprintsBefore: number;
  /** Every ECS instance's CLB ids as stored before the rollback (instance id -> ids). */
  let ecsLoadBalancersBefore: [string, string[]][];

  beforeAll(async () => {
    db = await createTestDatabase();
    const first = await Store.open({ connectionString: db.url, migrate: true });
    try {
      const snapshot = loadFleetDirectory(SAMPLE);
      const scan = await first.scans.create({ source: 'offline', fleetName: snapshot.name, startedAt: new Date('2026-11-01T00:00:00Z') });
      scanId = scan.id;
      await analyzeAndStore(snapshot, { scanId, now: new Date('2026-11-01T00:00:00Z'), store: first });
      const ecs = await first.graph.ecsInstancesPage(scanId, ALL, { first: 500 }, {});
      ecsLoadBalancersBefore = ecs.edges.map(({ node }) => [node.instanceId, node.loadBalancerIds]);
    } finally {
      await first.close();
    }
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      findingsBefore = (await sql.query<{ fingerprint: string }>('SELECT fingerprint FROM findings WHERE scan_id = $1 ORDER BY fingerprint', [scanId])).rows.map((r) => r.fingerprint);
      fingerprintsBefore = Number((await sql.query<{ n: string }>('SELECT count(*) AS n FROM finding_fingerprints')).rows[0]!.n);
      expect((await rollBackThrough(sql, ROLLED_THROUGH)).at(-1)).toBe(ROLLED_THROUGH);
      // The older schema really is in place: none of the new columns or tables.
      const cols = await sql.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_name IN ('graph_ecs_instances', 'graph_regions', 'scans')
           AND column_name IN ('nlb_ids', 'nlb_server_group_ids', 'unused_nlb_server_groups', 'nlb_server_group_count', 'pruned_at')`,
      );
      expect(cols.rows).toEqual([]);
      expect((await sql.query(`SELECT to_regclass('retention_removed') AS t`)).rows[0]).toEqual({ t: null });
    } finally {
      await sql.end();
    }
    store = await Store.open({ connectionString: db.url, migrate: true });
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    await db?.release();
  });

  it('keeps the older scan, its findings and its fingerprints', async () => {
    const scan = await store.scans.get(scanId);
    expect(scan?.status).toBe('succeeded');
    expect(findingsBefore.length).toBeGreaterThan(0);
    const stored = await store.findings.forScan(scanId, SYSTEM_PRINCIPAL);
    expect(stored.map((f) => f.fingerprint).sort()).toEqual(findingsBefore);
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      expect(Number((await sql.query<{ n: string }>('SELECT count(*) AS n FROM finding_fingerprints')).rows[0]!.n)).toBe(fingerprintsBefore);
      expect((await sql.query('SELECT pruned_at FROM scans WHERE id = $1', [scanId])).rows).toEqual([{ pruned_at: null }]);
    } finally {
      await sql.end();
    }
  });

  it('reads the older graph with the new NLB fields at their defaults, and each ECS instance with its CLBs', async () => {
    const page = await store.graph.ecsInstancesPage(scanId, ALL, { first: 500 }, {});
    expect(page.edges.length).toBeGreaterThan(0);
    // The CLB ids moved to the shared attachment sets (1800200000000) and back (its down step), then forward again.
    expect(ecsLoadBalancersBefore.some(([, ids]) => ids.length > 0)).toBe(true);
    expect(page.edges.map(({ node }) => [node.instanceId, node.loadBalancerIds])).toEqual(ecsLoadBalancersBefore);
    for (const { node } of page.edges) {
      expect(node.nlbIds).toEqual([]);
      expect(node.nlbServerGroupIds).toEqual([]);
    }
    const regions = await store.graph.regionsWithNlbData(scanId, ALL);
    for (const r of regions) expect(r.unusedNlbServerGroups).toEqual([]);
  });

  it('runs retention over the older data (dry run, then for real: nothing is due for the one latest scan)', async () => {
    const now = new Date('2026-12-01T00:00:00Z');
    const dry = await store.retention.run({ now, policy: DEFAULT_RETENTION_POLICY, batchRows: 100, dryRun: true });
    const real = await store.retention.run({ now, policy: DEFAULT_RETENTION_POLICY, batchRows: 100 });
    expect(real.status).toBe('done');
    expect({ pruned: real.scansPruned, deleted: real.scansDeleted }).toEqual({ pruned: dry.scansPruned, deleted: dry.scansDeleted });
    // The latest succeeded scan is never removed.
    expect({ pruned: real.scansPruned, deleted: real.scansDeleted }).toEqual({ pruned: 0, deleted: 0 });
    expect((await store.scans.get(scanId))?.status).toBe('succeeded');
  });
});
