/**
 * CLB server groups holding their backend servers by reference (migration 1800700000000: `graph_server_lists`), both
 * ways, on a real PostgreSQL holding a scan of the bundled sample fleet (Cluster-mode Services, whose vServer groups
 * list the same nodes, beside Local-mode ones). Stored by the current code, the groups whose backends share port,
 * weight and type name a row of `graph_server_lists` and the others keep them inline; either way they read back equal
 * to the scan's graph in its stored form (`storedFleetGraph`). Down: every group holds its backends inline again, in
 * the text the code before the migration wrote (`backendsJson`). Up over such rows: they read back the same, beside a
 * scan stored by reference after the upgrade.
 */
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeAndStore } from '@app/audit';
import { buildFleetGraph } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import type { FleetGraph } from '@app/domain';
import { Store, storedFleetGraph, SYSTEM_PRINCIPAL } from '@app/store';
import { backendsJson } from '../../libs/store/src/fleet-graph.repository';
import { createTestDatabase, rollBackThrough, type TestDatabase } from './test-database.util';

const MIGRATION = '1800700000000_graph_server_lists';
const SAMPLE = join(__dirname, '..', '..', 'examples', 'fleets', 'sample');

describe('upgrade to server groups holding their servers by reference, with data', () => {
  let db: TestDatabase;
  let store: Store;
  let sql: Client;
  let graph: FleetGraph;
  const snapshot = loadFleetDirectory(SAMPLE);

  /** Stores the sample fleet as a new scan; returns its id. */
  const storeScan = async (): Promise<string> => {
    const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name });
    await analyzeAndStore(snapshot, { scanId: scan.id, now: new Date('2026-12-01T00:00:00Z'), store });
    return scan.id;
  };
  /** Every server group of a scan as the store serves it, CLB by CLB. */
  const groupsOf = async (scanId: string): Promise<FleetGraph['serverGroups']> =>
    [...(await store.graph.serverGroupsByLoadBalancerIds(scanId, graph.loadBalancers.map((l) => l.loadBalancerId), SYSTEM_PRINCIPAL)).values()].flat();
  /** How a scan's groups are stored: by reference (`list`) or inline, and the inline texts by (CLB, group). */
  const storedForms = async (scanId: string): Promise<{ list: number; inline: Map<string, string> }> => {
    const { rows } = await sql.query<{ k: string; backends: string | null; server_list: number | null }>(
      `SELECT load_balancer_id || '/' || vserver_group_id AS k, backends, ${MIGRATED ? 'server_list' : 'NULL::int AS server_list'} FROM graph_server_groups WHERE scan_id = $1`,
      [scanId],
    );
    return { list: rows.filter((r) => r.server_list !== null).length, inline: new Map(rows.filter((r) => r.backends !== null).map((r) => [r.k, r.backends!])) };
  };
  let MIGRATED = true;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await Store.open({ connectionString: db.url, migrate: true });
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    graph = storedFleetGraph(buildFleetGraph(snapshot));
  });
  afterAll(async () => {
    await sql?.end();
    await store?.close();
    await db?.release();
  });

  it('the fixture has server groups sharing one server list and groups that cannot (what this file needs)', () => {
    const shared = graph.serverGroups.filter((g) => g.backends.length > 1 && g.backends.every((b) => b.port === g.backends[0]!.port && b.weight === g.backends[0]!.weight));
    const lists = new Set(shared.map((g) => `${g.accountId}/${g.regionId}/${g.backends.map((b) => b.serverId).join()}`));
    expect(lists.size).toBeLessThan(shared.length);
    expect(graph.serverGroups.some((g) => g.backends.length === 0 || g.backends.some((b) => b.weight !== g.backends[0]!.weight))).toBe(true);
  });

  let before: string;
  it('stored by reference where the backends share port, weight and type, inline otherwise; read back as the stored graph', async () => {
    before = await storeScan();
    const forms = await storedForms(before);
    expect(forms.list).toBeGreaterThan(0);
    expect(forms.inline.size).toBeGreaterThan(0);
    expect(forms.list + forms.inline.size).toBe(graph.serverGroups.length);
    const { rows } = await sql.query<{ n: string; groups: string }>(
      `SELECT (SELECT count(*) FROM graph_server_lists WHERE scan_id = $1) AS n,
              (SELECT count(*) FROM (SELECT account_id, region_id, server_list FROM graph_server_groups WHERE scan_id = $1 AND server_list IS NOT NULL
                                     UNION SELECT account_id, region_id, unnest(server_lists) FROM graph_nlbs WHERE scan_id = $1) named) AS groups`,
      [before],
    );
    // Every list is named by a CLB server group or (migration 1800900000000) an NLB, and fewer lists than CLB groups hold them.
    expect(Number(rows[0]!.n)).toBe(Number(rows[0]!.groups));
    expect(Number(rows[0]!.n)).toBeLessThan(forms.list);
    expect(await groupsOf(before)).toEqual(graph.serverGroups);
  });

  it('down: every group inline again, in the text the store wrote before, which it still reads the same', async () => {
    expect((await rollBackThrough(sql, MIGRATION)).at(-1)).toBe(MIGRATION);
    MIGRATED = false;
    const forms = await storedForms(before);
    expect(forms.inline.size).toBe(graph.serverGroups.length);
    for (const g of graph.serverGroups) expect(forms.inline.get(`${g.loadBalancerId}/${g.vServerGroupId}`)).toBe(backendsJson(g.backends));
    expect((await sql.query(`SELECT to_regclass('graph_server_lists') AS t`)).rows[0].t).toBeNull();
  });

  it('up over inline rows: they read back the same, beside a scan stored by reference after it', async () => {
    await store.close();
    store = await Store.open({ connectionString: db.url, migrate: true });
    MIGRATED = true;
    expect((await storedForms(before)).list).toBe(0);
    expect(await groupsOf(before)).toEqual(graph.serverGroups);
    const after = await storeScan();
    expect((await storedForms(after)).list).toBeGreaterThan(0);
    expect(await groupsOf(after)).toEqual(graph.serverGroups);
  });
});
