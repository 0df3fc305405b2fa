/**
 * `npm run bench:graph-store`: time storing the fleet graph of a scan, the part the graph
 * adds to a scan's completing transaction, on the bundled sample fleet and on the 1M-backend fleet of
 * `bench:analyze` (500 clusters x 100 nodes x 22 LoadBalancer Services, mostly Cluster mode).
 *
 * Per fleet: `buildFleetGraph` (seconds, from the snapshot and its index), then `scans.complete` with the
 * graph and no findings (seconds: the graph's INSERTs in one transaction), the rows per table and the
 * tables' size on disk (MiB, `pg_total_relation_size`). The store is a fresh database on the PostgreSQL of
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), dropped afterwards. Prints one
 * line per fleet and, as the last line, one JSON object with both and `loadAvg1m`.
 */
import { Client } from 'pg';
import { buildFleetGraph, FleetIndex } from '@app/checks';
import { loadFleetDirectory } from '@app/collectors';
import type { FleetSnapshot } from '@app/domain';
import { Store } from '@app/store';
import { backendsOf, loadAvg1m, millionBackendFleet, round2, withBenchDatabase } from './bench-support';
import { sampleFleetDir } from '../apps/cli/src/package-root.util';

const TABLES = [
  'graph_regions',
  'graph_clusters',
  'graph_services',
  'graph_load_balancers',
  'graph_server_groups',
  'graph_ecs_instances',
];

interface FleetResult {
  backends: number;
  buildSeconds: number;
  storeSeconds: number;
  rows: Record<string, number>;
  mib: number;
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
    const r = await db.query<{ n: string; b: string }>(
      `SELECT (SELECT count(*) FROM ${t} WHERE scan_id = $1) AS n, pg_total_relation_size($2) AS b`,
      [scan.id, t],
    );
    rows[t] = Number(r.rows[0]!.n);
    bytes += Number(r.rows[0]!.b);
  }
  return {
    backends: backendsOf(snapshot),
    buildSeconds: round2(buildSeconds),
    storeSeconds: round2(storeSeconds),
    rows,
    mib: round2(bytes / 1048576),
  };
}

async function main(): Promise<void> {
  await withBenchDatabase(async (url) => {
    const store = await Store.open({ connectionString: url, migrate: true });
    const db = new Client({ connectionString: url });
    await db.connect();
    try {
      const sample = await measure(
        store,
        db,
        loadFleetDirectory(sampleFleetDir()),
      );
      process.stdout.write(`sample: ${JSON.stringify(sample)}\n`);
      const big = await measure(store, db, millionBackendFleet());
      process.stdout.write(`1m: ${JSON.stringify(big)}\n`);
      process.stdout.write(
        `${JSON.stringify({ sample, '1m': big, peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024), loadAvg1m: loadAvg1m() })}\n`,
      );
    } finally {
      await db.end();
      await store.close();
    }
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:graph-store failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
