/**
 * What several benches share: a throw-away PostgreSQL database, the 1M-backend generated fleet of
 * `bench:analyze` / `bench:forecast` / `bench:graph-store`, its backend count, the trends input of the
 * forecast benches, and rounding. Not part of the product; compiled with the benches by `nest build cli`.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Client } from 'pg';
import { generateFleet, generateSpecSchema, type GenerateSpec } from '@app/collectors';
import { mapWireFleet, type FleetSnapshot } from '@app/domain';
import { generateHistories, type QuotaSeries } from '@app/forecast';

/** Where bench databases are created (BENCH_DATABASE_URL; default the local PostgreSQL's `postgres` database). */
export function benchAdminUrl(): URL {
  return new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
}

/** Runs one SQL statement on the admin database (CREATE / DROP DATABASE). Throws pg's error. */
export async function adminQuery(sql: string, adminUrl: URL = benchAdminUrl()): Promise<void> {
  const c = new Client({ connectionString: adminUrl.toString() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/**
 * Creates a fresh database `fleet_audit_bench_<8 hex>` next to BENCH_DATABASE_URL, runs `fn` with its URL and
 * drops it afterwards (WITH (FORCE): connections `fn` left open do not keep it), also when `fn` throws.
 * Returns what `fn` returns; rethrows what `fn` throws.
 */
export async function withBenchDatabase<T>(fn: (databaseUrl: string) => Promise<T>): Promise<T> {
  const base = benchAdminUrl();
  const name = `fleet_audit_bench_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"`, base);
  const url = new URL(base);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`, base);
  }
}

/**
 * The generate spec of the 1M-backend bench fleet: 10 accounts, 500 clusters x 100 nodes, `servicesPerCluster`
 * LoadBalancer Services each (default 22: about 1.05M backend servers), 95 % `externalTrafficPolicy: Cluster`.
 */
export function millionBackendSpec(servicesPerCluster = 22): GenerateSpec {
  return generateSpecSchema.parse({
    seed: 42,
    accounts: 10,
    regions: ['cn-hangzhou'],
    clusters: 500,
    nodesPerCluster: 100,
    servicesPerCluster,
    podsPerService: 3,
    trafficPolicy: { cluster: 0.95, local: 0.05, eni: 0 },
    ccmVersions: ['v2.12.3', 'v1.9.3.313-g748f81e-aliyun'],
    shares: { orphaned: 0.02, reused: 0.02, misconfigured: 0.05, consoleReused: 0.05 },
  });
}

/** The 1M-backend bench fleet as a snapshot (`millionBackendSpec`, generated with the name `bench`). */
export function millionBackendFleet(servicesPerCluster = 22): FleetSnapshot {
  return mapWireFleet(generateFleet(millionBackendSpec(servicesPerCluster), 'bench').fleet);
}

/** Backend servers of every CLB of a snapshot (default server group + every vServer group), a count. */
export function backendsOf(s: FleetSnapshot): number {
  let n = 0;
  for (const a of s.accounts)
    for (const r of a.regions)
      for (const lb of r.loadBalancers ?? [])
        n +=
          lb.defaultBackendServers.length + lb.vServerGroups.reduce((k, g) => k + g.backendServers.length, 0);
  return n;
}

/**
 * The trends input of the forecast benches: `count` CLB_BACKEND_QUOTA series of `samples` 4-hourly samples
 * from 2026-11-12T00:00Z (limit 2,000), from `generateHistories(count, samples, seed)`.
 */
export function trendSeries(count: number, samples: number, seed: number): QuotaSeries[] {
  const t0 = Date.parse('2026-11-12T00:00:00Z');
  return generateHistories(count, samples, seed).map((h, i) => ({
    checkId: 'CLB_BACKEND_QUOTA',
    resource: {
      kind: 'LoadBalancer',
      id: `lb-${i}`,
      accountId: '1',
      regionId: 'cn-hangzhou',
      clusterId: null,
    },
    observations: h.y.map((used, j) => ({ at: t0 + j * 4 * 3_600_000, used, limit: 2000 })),
  }));
}

/** `x` rounded to 2 decimals. */
export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** The 1-minute load average, rounded to 2 decimals (printed by every bench: the machine is shared). */
export function loadAvg1m(): number {
  return round2(loadavg()[0]);
}
