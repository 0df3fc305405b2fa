/**
 * `npm run bench:graph-store`: time storing the fleet graph of a scan (issue 11 item 3), the part the graph
 * adds to a scan's completing transaction, on the bundled sample fleet and on the 1M-backend fleet of
 * `bench:analyze` (500 clusters x 100 nodes x 22 LoadBalancer Services, mostly Cluster mode).
 *
 * Per fleet: `buildFleetGraph` (seconds, from the snapshot and its index), then `scans.complete` with the
 * graph and no findings (seconds: the graph's INSERTs in one transaction), the rows per table and the
 * tables' size on disk (MiB, `pg_total_relation_size`). The store is a fresh database on the PostgreSQL of
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), dropped afterwards. Prints one
 * line per fleet and, as the last line, one JSON object with both and `loadAvg1m`.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { Client } from 'pg';
import { buildFleetGraph, FleetIndex } from '@app/checks';
import { generateFleet, generateSpecSchema, loadFleetDirectory } from '@app/collectors';
import { mapWireFleet, type FleetSnapshot } from '@app/domain';
import { Store } from '@app/store';

const TABLES = ['graph_regions', 'graph_clusters', 'graph_services', 'graph_load_balancers', 'graph_server_groups', 'graph_ecs_instances'];

interface FleetResult {
  backends: number;
  buildSeconds: number;
  storeSeconds: number;
  rows: Record<string, number>;
  mib: number;
}

function backendsOf(s: FleetSnapshot): number {
  let n = 0;
  for (const a of s.accounts)
    for (const r of a.regions)
      for (const lb of r.loadBalancers ?? []) n += lb.defaultBackendServers.length + lb.vServerGroups.reduce((k, g) => k + g.backendServers.length, 0);
  return n;
}

async function measure(store: Store, db: Client, snapshot: FleetSnapshot): Promise<FleetResult> {
  const t0 = process.hrtime.bigint();
  const graph = buildFleetGraph(snapshot, FleetIndex.build(snapshot));
  const buildSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const scan = await store.scans.create({ source: 'offline', fleetName: snapshot.name });
  const t1 = process.hrtime.bigint();
  await store.scans.complete(scan.id, { findings: [], coverage: [], graph });
  const storeSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
  const rows: Record<string, number> = {};
  let bytes = 0;
  for (const t of TABLES) {
    const r = await db.query<{ n: string; b: string }>(`SELECT (SELECT count(*) FROM ${t} WHERE scan_id = $1) AS n, pg_total_relation_size($2) AS b`, [scan.id, t]);
    rows[t] = Number(r.rows[0]!.n);
    bytes += Number(r.rows[0]!.b);
  }
  return { backends: backendsOf(snapshot), buildSeconds: round(buildSeconds), storeSeconds: round(storeSeconds), rows, mib: round(bytes / 1048576) };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

async function main(): Promise<void> {
  const base = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const name = `fleet_audit_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new Client({ connectionString: base.toString() });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const store = await Store.open({ connectionString: url.toString(), migrate: true });
  const db = new Client({ connectionString: url.toString() });
  await db.connect();
  try {
    const sample = await measure(store, db, loadFleetDirectory(join(__dirname, '..', '..', '..', '..', 'examples', 'fleets', 'sample')));
    process.stdout.write(`sample: ${JSON.stringify(sample)}\n`);
    const spec = generateSpecSchema.parse({
      seed: 42,
      accounts: 10,
      regions: ['cn-hangzhou'],
      clusters: 500,
      nodesPerCluster: 100,
      servicesPerCluster: 22,
      podsPerService: 3,
      trafficPolicy: { cluster: 0.95, local: 0.05, eni: 0 },
      ccmVersions: ['v2.12.3', 'v1.9.3.313-g748f81e-aliyun'],
      shares: { orphaned: 0.02, reused: 0.02, misconfigured: 0.05, consoleReused: 0.05 },
    });
    const big = await measure(store, db, mapWireFleet(generateFleet(spec, 'bench').fleet));
    process.stdout.write(`1m: ${JSON.stringify(big)}\n`);
    process.stdout.write(`${JSON.stringify({ sample, '1m': big, peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024), loadAvg1m: round(loadavg()[0]) })}\n`);
  } finally {
    await db.end();
    await store.close();
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:graph-store failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
