/**
 * NLB server groups holding their servers by reference (migration 1800900000000: `graph_nlbs.server_lists`, rows of
 * `graph_server_lists`), both ways, on a real PostgreSQL holding a scan of the bundled sample fleet (an NLB Service in
 * Cluster mode, whose servers share port and weight across zones, and one whose servers have weights of their own).
 * Stored by the current code, a group whose servers share type, port, weight and status names a list (their ids, IPs
 * and zones) and the NLB names the lists its groups use; the others stay inline; the NLBs read back
 * equal to the scan's graph in its stored form (`storedFleetGraph`), by page and by id. Down: every group holds its
 * servers inline again, in the text the code before the migration wrote (`NlbServerGroupsJson` without lists), which
 * the store reads the same. Up over such rows: they read back the same, beside a scan stored by reference after it.
 */
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeAndStore } from '@app/audit';
import { buildFleetGraph } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import type { BuiltNlb, GraphNlb } from '@app/domain';
import { Store, storedFleetGraph, SYSTEM_PRINCIPAL } from '@app/store';
import { NlbServerGroupsJson } from '../../libs/store/src/fleet-graph.repository';
import { createTestDatabase, rollBackThrough, type TestDatabase } from './test-database.util';

const MIGRATION = '1800900000000_nlb_server_groups_by_reference';
const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');

describe('upgrade to NLB server groups holding their servers by reference, with data', () => {
  let db: TestDatabase;
  let store: Store;
  let sql: Client;
  let expected: GraphNlb[];
  let built: BuiltNlb[];
  const snapshot = loadFleetDirectory(SAMPLE);

  /** Stores the sample fleet as a new scan; returns its id. */
  const storeScan = async (): Promise<string> => {
    const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name });
    await analyzeAndStore(snapshot, { scanId: scan.id, now: new Date('2026-12-01T00:00:00Z'), store });
    return scan.id;
  };
  /** Every NLB of a scan as the store serves it, by page and by id (the two must agree). */
  const nlbsOf = async (scanId: string): Promise<GraphNlb[]> => {
    const page = (await store.graph.nlbsPage(scanId, SYSTEM_PRINCIPAL, { first: 1000 })).edges.map((e) => e.node);
    expect(await store.graph.nlbsByIds(scanId, page.map((n) => n.nlbId), SYSTEM_PRINCIPAL)).toEqual(page);
    return page;
  };
  /** How a scan's NLB server groups are stored: groups by reference, inline texts by NLB id, the lists named. */
  const storedForms = async (scanId: string, migrated: boolean): Promise<{ byReference: number; texts: Map<string, string>; named: number[][] }> => {
    const { rows } = await sql.query<{ nlb_id: string; server_groups: string; server_lists: number[] | null }>(
      `SELECT nlb_id, server_groups, ${migrated ? 'server_lists' : 'NULL::int[] AS server_lists'} FROM graph_nlbs WHERE scan_id = $1 ORDER BY nlb_id`,
      [scanId],
    );
    let byReference = 0;
    for (const r of rows) for (const g of JSON.parse(r.server_groups) as unknown[][]) if (!Array.isArray(g[7])) byReference += 1;
    return { byReference, texts: new Map(rows.map((r) => [r.nlb_id, r.server_groups])), named: rows.filter((r) => r.server_lists !== null).map((r) => r.server_lists!) };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    const graph = buildFleetGraph(snapshot);
    built = graph.nlbs;
    expected = [...storedFleetGraph(graph).nlbs].sort((a, b) => (a.nlbId < b.nlbId ? -1 : 1));
  });
  afterAll(async () => {
    await sql?.end();
    await store?.close();
    await db?.release();
  });

  it('the fixture has NLB server groups whose servers share port and weight in zones of their own, and one whose do not (what this file needs)', () => {
    const groups = expected.flatMap((n) => n.serverGroups);
    const uniform = (g: (typeof groups)[number]) => g.servers.every((s) => s.port === g.servers[0]!.port && s.weight === g.servers[0]!.weight);
    expect(groups.some((g) => g.servers.length > 1 && uniform(g) && new Set(g.servers.map((s) => s.zoneId)).size > 1)).toBe(true);
    expect(groups.some((g) => !uniform(g))).toBe(true);
  });

  let before: string;
  it('stored by reference where the servers share their fields; every list named is stored; read back as the stored graph', async () => {
    before = await storeScan();
    const forms = await storedForms(before, true);
    expect(forms.byReference).toBeGreaterThan(0);
    expect(forms.byReference).toBeLessThan(expected.flatMap((n) => n.serverGroups).length);
    expect(forms.named.length).toBeGreaterThan(0);
    const { rows } = await sql.query<{ missing: string }>(
      `SELECT count(*) AS missing FROM graph_nlbs n CROSS JOIN LATERAL unnest(n.server_lists) AS u (list)
        WHERE n.scan_id = $1 AND NOT EXISTS (SELECT 1 FROM graph_server_lists l WHERE l.scan_id = n.scan_id AND l.account_id = n.account_id AND l.region_id = n.region_id AND l.server_list = u.list)`,
      [before],
    );
    expect(Number(rows[0]!.missing)).toBe(0);
    expect(await nlbsOf(before)).toEqual(expected);
  });

  it('down: every group inline again, in the text the store wrote before, which it still reads the same', async () => {
    expect((await rollBackThrough(sql, MIGRATION)).at(-1)).toBe(MIGRATION);
    const forms = await storedForms(before, false);
    expect(forms.byReference).toBe(0);
    const json = new NlbServerGroupsJson();
    for (const n of built) expect(forms.texts.get(n.nlbId)).toBe(json.of(n.serverGroups));
    // A store opened on the older schema (schema probes keep what they once found: columns are only ever added).
    await store.close();
    store = await Store.open({ connectionString: db.url, migrate: false });
    expect(await nlbsOf(before)).toEqual(expected);
  });

  it('up over inline rows: they read back the same, beside a scan stored by reference after it', async () => {
    await store.close();
    store = await Store.open({ connectionString: db.url, migrate: true });
    expect((await storedForms(before, true)).byReference).toBe(0);
    expect(await nlbsOf(before)).toEqual(expected);
    const after = await storeScan();
    expect((await storedForms(after, true)).byReference).toBeGreaterThan(0);
    expect(await nlbsOf(after)).toEqual(expected);
    // A list its NLB names gone (never by the store's own writes): the read says which, instead of serving no servers.
    await sql.query('DELETE FROM graph_server_lists WHERE scan_id = $1 AND server_list IN (SELECT unnest(server_lists) FROM graph_nlbs WHERE scan_id = $1)', [after]);
    await expect(store.graph.nlbsPage(after, SYSTEM_PRINCIPAL, { first: 1000 })).rejects.toThrow(/names server list \d+, which is not stored/);
  });
});
