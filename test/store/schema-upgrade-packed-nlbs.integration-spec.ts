/**
 * An NLB's server groups stored packed in a text column (migration 1800600000000), both ways, on a real PostgreSQL
 * holding a scan of the bundled sample fleet (which has NLBs with server groups and servers). Stored by the current
 * code, the column holds arrays of fields without their names, and the NLBs read back equal the scan's graph in its
 * stored form (`storedFleetGraph`). Down: the column is jsonb again with the named fields the code before the
 * migration wrote and read. Up over such rows: they keep their objects as text and read back the same, beside a
 * scan stored packed after the upgrade.
 */
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeAndStore } from '@app/audit';
import { buildFleetGraph } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import type { GraphNlb } from '@app/domain';
import { Store, storedFleetGraph, SYSTEM_PRINCIPAL } from '@app/store';
import { createTestDatabase, rollBackThrough, type TestDatabase } from './test-database.util';

const MIGRATION = '1800600000000_packed_graph_nlb_server_groups';
const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');

describe('upgrade to packed NLB server groups, with data', () => {
  let db: TestDatabase;
  let store: Store;
  let sql: Client;
  let expected: GraphNlb[];
  const snapshot = loadFleetDirectory(SAMPLE);

  /** Stores the sample fleet as a new scan; returns its id. */
  const storeScan = async (): Promise<string> => {
    const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name });
    await analyzeAndStore(snapshot, { scanId: scan.id, now: new Date('2026-12-01T00:00:00Z'), store });
    return scan.id;
  };
  /** Every NLB of a scan as the store serves it, by id. */
  const nlbsOf = async (scanId: string): Promise<GraphNlb[]> => (await store.graph.nlbsPage(scanId, SYSTEM_PRINCIPAL, { first: 1000 })).edges.map((e) => e.node);
  const columnType = async (): Promise<string> =>
    (await sql.query<{ t: string }>(`SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'graph_nlbs'::regclass AND attname = 'server_groups'`)).rows[0]!.t;
  /** The stored text of each NLB's server groups of a scan, by NLB id. */
  const storedText = async (scanId: string): Promise<string[]> =>
    (await sql.query<{ v: string }>(`SELECT server_groups::text AS v FROM graph_nlbs WHERE scan_id = $1 ORDER BY nlb_id`, [scanId])).rows.map((r) => r.v);

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    expected = [...storedFleetGraph(buildFleetGraph(snapshot)).nlbs].sort((a, b) => (a.nlbId < b.nlbId ? -1 : 1));
  });
  afterAll(async () => {
    await sql?.end();
    await store?.close();
    await db?.release();
  });

  it('the fixture has NLBs with servers (what this file needs)', () => {
    expect(expected.length).toBeGreaterThanOrEqual(2);
    expect(expected.some((n) => n.serverGroups.some((g) => g.servers.length > 0))).toBe(true);
  });

  let before: string;
  it('stored packed: arrays of fields without names, read back as the stored graph', async () => {
    before = await storeScan();
    expect(await columnType()).toBe('text');
    const texts = await storedText(before);
    expect(texts).toHaveLength(expected.length);
    for (const [i, text] of texts.entries()) {
      const groups = JSON.parse(text) as unknown[][];
      expect(groups).toHaveLength(expected[i]!.serverGroups.length);
      for (const g of groups) {
        expect(Array.isArray(g)).toBe(true);
        // Servers packed inline, or (migration 1800900000000) a reference to their list.
        if (Array.isArray(g[7])) for (const sv of g[7] as unknown[]) expect(Array.isArray(sv)).toBe(true);
        else expect(g[7]).toMatchObject({ serverList: expect.any(Number) });
      }
      expect(text).not.toContain('"serverId"');
    }
    expect(await nlbsOf(before)).toEqual(expected);
  });

  it('down: jsonb with the named fields again, which the store still reads the same', async () => {
    expect((await rollBackThrough(sql, MIGRATION)).at(-1)).toBe(MIGRATION);
    expect(await columnType()).toBe('jsonb');
    const { rows } = await sql.query<{ v: GraphNlb['serverGroups'] }>(`SELECT server_groups AS v FROM graph_nlbs WHERE scan_id = $1 ORDER BY nlb_id`, [before]);
    expect(rows.map((r) => r.v)).toEqual(expected.map((n) => n.serverGroups));
    // A store opened on the older schema (schema probes keep what they once found: columns are only ever added).
    await store.close();
    store = await Store.open({ connectionString: db.url, migrate: false });
    expect(await nlbsOf(before)).toEqual(expected);
  });

  it('up over rows of the jsonb form: they read back the same, beside a scan stored packed after it', async () => {
    await store.close();
    store = await Store.open({ connectionString: db.url, migrate: true });
    expect(await columnType()).toBe('text');
    expect((await storedText(before))[0]).toContain('"serverId"');
    expect(await nlbsOf(before)).toEqual(expected);
    const after = await storeScan();
    expect((await storedText(after))[0]).not.toContain('"serverId"');
    expect(await nlbsOf(after)).toEqual(expected);
  });
});
