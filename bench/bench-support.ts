/**
 * What several benches share: a throw-away PostgreSQL database, the 1M-backend generated fleet of
 * `bench:analyze` / `bench:forecast` / `bench:graph-store`, its backend count, the trends input of the
 * forecast benches, and rounding. Not part of the product; compiled with the benches by `nest build cli`.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { constants as osConstants, loadavg } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { Client } from 'pg';
import type { AuditShard } from '@app/audit';
import { generateFleet, generateSpecSchema, type GenerateSpec } from '@app/collectors';
import { mapWireFleet, type FleetSnapshot, type WireAccount } from '@app/domain';
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

/** Cleanups registered by `onBenchSignal`, run last-registered first. */
const signalCleanups: (() => Promise<void> | void)[] = [];
let signalHandled = false;

/** Runs every registered cleanup (errors reported, not thrown), then exits with 128 + the signal's number. */
async function runSignalCleanups(signal: NodeJS.Signals): Promise<void> {
  if (signalHandled) return;
  signalHandled = true;
  console.error(`bench: ${signal}: cleaning up before exiting`);
  for (const cleanup of [...signalCleanups].reverse()) {
    try {
      await cleanup();
    } catch (e) {
      console.error(`bench: cleanup failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  // Only SIGINT and SIGTERM are handled (`onBenchSignal`): both have a number (2, 15).
  process.exit(128 + osConstants.signals[signal]);
}

/**
 * Registers `cleanup` to run when the bench is stopped by SIGINT (Ctrl-C) or SIGTERM (`timeout`, a job runner):
 * what a bench's own `finally` does when it ends by itself (drop its throw-away database, stop its worker
 * processes, delete its Redis keys), which a signal would skip. Cleanups run last-registered first, each awaited;
 * one that throws is reported and the next still runs; then the process exits with 128 + the signal's number
 * (130, 143). Returns the function that unregisters it (call it where the `finally` has done the same work).
 */
export function onBenchSignal(cleanup: () => Promise<void> | void): () => void {
  if (signalCleanups.length === 0) {
    process.on('SIGINT', runSignalCleanups);
    process.on('SIGTERM', runSignalCleanups);
  }
  signalCleanups.push(cleanup);
  return () => {
    const i = signalCleanups.indexOf(cleanup);
    if (i >= 0) signalCleanups.splice(i, 1);
    if (signalCleanups.length === 0) {
      process.off('SIGINT', runSignalCleanups);
      process.off('SIGTERM', runSignalCleanups);
    }
  };
}

/**
 * Creates a fresh database `fleet_audit_bench_<8 hex>` next to BENCH_DATABASE_URL, runs `fn` with its URL and
 * drops it afterwards (WITH (FORCE): connections `fn` left open do not keep it), also when `fn` throws and when
 * the bench is stopped by SIGINT or SIGTERM (`onBenchSignal`). Returns what `fn` returns; rethrows what `fn` throws.
 * With `BENCH_KEEP_DATABASE=1` a run that ends normally keeps the database (its name is printed on stderr) for
 * inspection with `psql`; drop it by hand afterwards.
 */
export async function withBenchDatabase<T>(fn: (databaseUrl: string) => Promise<T>): Promise<T> {
  const base = benchAdminUrl();
  const name = `fleet_audit_bench_${randomBytes(4).toString('hex')}`;
  const drop = () => adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`, base);
  // Registered before the database exists: a signal during CREATE DATABASE still drops it (IF EXISTS otherwise).
  const unregister = onBenchSignal(drop);
  await adminQuery(`CREATE DATABASE "${name}"`, base).catch((e: unknown) => {
    unregister();
    throw e;
  });
  const url = new URL(base);
  url.pathname = `/${name}`;
  const keep = process.env.BENCH_KEEP_DATABASE === '1';
  let ended = false;
  try {
    const value = await fn(url.toString());
    ended = true;
    return value;
  } finally {
    unregister();
    if (keep && ended) process.stderr.write(`bench database kept (BENCH_KEEP_DATABASE=1): ${name}\n`);
    else await drop();
  }
}

/** Options of {@link millionBackendSpec}: the size knob and the NLB share. */
export interface BenchFleetOptions {
  /** Clusters in the fleet (default 500; a smaller number gives a quick run of the same shape). */
  clusters?: number;
  /**
   * Put about a quarter of the LoadBalancer Services on NLB (default false: the fleet the CLB-only figures
   * were taken on): see {@link millionBackendSpec}.
   */
  nlb?: boolean;
  /**
   * Map each account's wire form from its JSON text (`JSON.parse(JSON.stringify(...))`), as production does: the
   * crawl's SDK responses and the stored slices are parsed JSON, where every id, IP and description of every
   * backend entry is its own string, where the generator shares one string per node (default false).
   */
  viaJson?: boolean;
}

/**
 * The generate spec of the 1M-backend bench fleet: 10 accounts, 500 clusters x 100 nodes, `servicesPerCluster`
 * LoadBalancer Services each (default 22: about 1.05M backend servers), 95 % `externalTrafficPolicy: Cluster`.
 *
 * With `nlb`, the same number of Services per NLB-capable cluster is split CLB / NLB so that about a quarter
 * of the fleet's LoadBalancer Services are NLB Services (`spec.loadBalancerClass: alibabacloud.com/nlb`): only
 * the clusters whose CCM has the NLB controller (v2.5.0; the v2.12.3 half of the fleet) get NLB Services, so
 * they get `servicesPerCluster / 2` of them and every cluster `servicesPerCluster - servicesPerCluster / 4`
 * CLB Services; 20 % of a cluster's NLB Services leave a server group behind (the pre-v2.12.4 leak,
 * research/nlb.md 3.3). The backend-entry total stays about what the CLB-only fleet had.
 * @throws ZodError when `clusters` is not an integer in 0..100,000
 */
export function millionBackendSpec(servicesPerCluster = 22, options: BenchFleetOptions = {}): GenerateSpec {
  const nlbServicesPerCluster = options.nlb ? Math.round(servicesPerCluster / 2) : 0;
  return generateSpecSchema.parse({
    seed: 42,
    accounts: 10,
    regions: ['cn-hangzhou'],
    clusters: options.clusters ?? 500,
    nodesPerCluster: 100,
    servicesPerCluster: options.nlb
      ? servicesPerCluster - Math.round(servicesPerCluster / 4)
      : servicesPerCluster,
    ...(options.nlb ? { nlbServicesPerCluster } : {}),
    podsPerService: 3,
    trafficPolicy: { cluster: 0.95, local: 0.05, eni: 0 },
    ccmVersions: ['v2.12.3', 'v1.9.3.313-g748f81e-aliyun'],
    shares: {
      orphaned: 0.02,
      reused: 0.02,
      misconfigured: 0.05,
      consoleReused: 0.05,
      ...(options.nlb ? { nlbLeakedServerGroups: 0.2 } : {}),
    },
  });
}

/**
 * The 1M-backend bench fleet as a snapshot (`millionBackendSpec`, generated with the name `bench`). The generated
 * wire form is mapped one account at a time and each account's wire form dropped once mapped, as the worker's
 * loader maps one crawl target at a time: the same snapshot as `mapWireFleet` of the whole fleet (accounts sorted
 * by id, coverage by key), without the whole wire form and the whole snapshot alive together (at 5,000 clusters
 * that pair was 3.6 GB, more than the analysis itself needs).
 */
export function millionBackendFleet(servicesPerCluster = 22, options: BenchFleetOptions = {}): FleetSnapshot {
  const wire = generateFleet(millionBackendSpec(servicesPerCluster, options), 'bench').fleet;
  const accounts: FleetSnapshot['accounts'] = [];
  const wireAccounts: (WireAccount | undefined)[] = wire.accounts;
  for (let i = 0; i < wireAccounts.length; i++) {
    const account = options.viaJson ? (JSON.parse(JSON.stringify(wireAccounts[i]!)) as WireAccount) : wireAccounts[i]!;
    accounts.push(...mapWireFleet({ name: wire.name, accounts: [account], coverage: [] }).accounts);
    wireAccounts[i] = undefined;
    // Where the bench exposes the collector (`--expose-gc`), the dropped wire account is collected now rather than
    // when the heap next fills up, so the heap does not grow to hold both forms.
    (globalThis as { gc?: () => void }).gc?.();
  }
  const whole = mapWireFleet({ name: wire.name, accounts: [], coverage: wire.coverage });
  return { ...whole, accounts: accounts.sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0)) };
}

/** The shard files of the bench fleet (`writeBenchShards`) and the fleet's figures. */
export interface BenchShardFiles {
  /** One per (account, region), accounts in id order: each a `snapshotFile` shard of `runThreadedAudit`. */
  shards: AuditShard[];
  /** Backend entries of the fleet (CLB backend servers plus NLB server entries; count). */
  backends: number;
  nlb: NlbFigures;
}

/**
 * The 1M-backend bench fleet (`millionBackendFleet`'s) written as one file per shard (an account and one of its
 * regions) into `dir`: each the shard's snapshot (the account with that one region, the coverage of the account and
 * region) serialized with `node:v8`, what a thread of the threaded analysis reads back as its shard
 * (`AuditShardSource` `snapshotFile`). The generator builds the whole fleet at once (one random stream over every
 * cluster), so the fleet is generated here, once, and each thread reads only its shard's file. Each account is
 * mapped and written, then dropped, as `millionBackendFleet` maps them.
 * @throws Error from the file system
 */
export function writeBenchShards(servicesPerCluster: number, options: BenchFleetOptions, dir: string): BenchShardFiles {
  const wire = generateFleet(millionBackendSpec(servicesPerCluster, options), 'bench').fleet;
  const wireAccounts: (WireAccount | undefined)[] = wire.accounts;
  const order = wire.accounts.map((a, i) => ({ id: a.account.accountId, i })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const out: BenchShardFiles = { shards: [], backends: 0, nlb: { nlbs: 0, listeners: 0, serverGroups: 0, unusedServerGroups: 0, servers: 0 } };
  for (const { i } of order) {
    const account = options.viaJson ? (JSON.parse(JSON.stringify(wireAccounts[i]!)) as WireAccount) : wireAccounts[i]!;
    const mapped = mapWireFleet({ name: wire.name, accounts: [account], coverage: [] }).accounts[0]!;
    wireAccounts[i] = undefined;
    const accountCoverage = wire.coverage.filter((c) => c.accountId === mapped.accountId);
    mapped.regions.forEach((region, k) => {
      const snapshot: FleetSnapshot = {
        ...mapWireFleet({ name: wire.name, accounts: [], coverage: accountCoverage.filter((c) => !c.regionId || c.regionId === region.regionId) }),
        accounts: [{ ...mapped, regions: [region] }],
      };
      const nlb = nlbFiguresOf(snapshot);
      out.backends += backendsOf(snapshot) + nlb.servers;
      for (const key of Object.keys(nlb) as (keyof NlbFigures)[]) out.nlb[key] += nlb[key];
      const file = join(dir, `shard-${out.shards.length}.v8`);
      writeFileSync(file, serialize(snapshot));
      // The account's lowest region leads it (mapWireFleet sorts the regions by id).
      out.shards.push({ key: `region/${mapped.accountId}/${region.regionId}`, lead: k === 0, source: { kind: 'snapshotFile', file } });
    });
    (globalThis as { gc?: () => void }).gc?.();
  }
  return out;
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

/** NLB figures of a snapshot, counts over every region. */
export interface NlbFigures {
  nlbs: number;
  listeners: number;
  serverGroups: number;
  /** Server groups no NLB uses (empty `RelatedLoadBalancerIds`: the leaked ones among them). */
  unusedServerGroups: number;
  /** Server entries over every server group (the NLB part of the backend entries). */
  servers: number;
}

/** Counts the NLBs, listeners, server groups (and the unused ones) and servers of a snapshot. */
export function nlbFiguresOf(s: FleetSnapshot): NlbFigures {
  const f: NlbFigures = { nlbs: 0, listeners: 0, serverGroups: 0, unusedServerGroups: 0, servers: 0 };
  for (const a of s.accounts)
    for (const r of a.regions) {
      for (const nlb of r.nlbs ?? []) {
        f.nlbs += 1;
        f.listeners += nlb.listeners.length;
      }
      for (const g of r.nlbServerGroups ?? []) {
        f.serverGroups += 1;
        f.servers += g.servers.length;
        if (g.relatedLoadBalancerIds.length === 0) f.unusedServerGroups += 1;
      }
    }
  return f;
}

/**
 * The value of a `--name N` flag of the command line as an integer of at least `min` (default 1: a positive one), or
 * `fallback` when absent.
 * @throws Error naming the flag when the value is not such an integer
 */
export function intFlag(name: string, fallback: number, argv: readonly string[] = process.argv, min = 1): number {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const raw = argv[i + 1];
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name} expects ${min === 1 ? 'a positive integer' : `an integer of at least ${min}`}, got ${raw ?? 'nothing'}`);
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

/** The middle value of a non-empty list (the lower middle for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

/** `x` rounded to 2 decimals. */
export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** The 1-minute load average, rounded to 2 decimals (printed by every bench: the machine is shared). */
export function loadAvg1m(): number {
  return round2(loadavg()[0]);
}

/** Clock ticks per second of /proc times (USER_HZ; 100 on Linux). */
const USER_HZ = 100;

/**
 * CPU milliseconds (user + system) from a /proc stat line: `own` = the process's threads
 * (fields 14+15), `children` = its waited-for children (fields 16+17); undefined off Linux.
 */
export function procCpuMs(pid: number | 'self', which: 'own' | 'children'): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at field 3.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
    const [u, s] = which === 'own' ? [f[11], f[12]] : [f[13], f[14]];
    return Math.round(((u + s) * 1000) / USER_HZ);
  } catch {
    return undefined;
  }
}

/**
 * The Service of admission review `n` of bench:admission and bench:admission-model: a new LoadBalancer Service
 * `shop/bench-<n>` with 1 to 3 ports, in Local mode for every fourth `n` and Cluster mode otherwise.
 */
export function benchReviewService(n: number): Record<string, unknown> {
  const ports = 1 + (n % 3);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `bench-${n}`, namespace: 'shop' },
    spec: {
      type: 'LoadBalancer',
      externalTrafficPolicy: n % 4 === 0 ? 'Local' : 'Cluster',
      selector: { app: `bench-${n}` },
      ports: Array.from({ length: ports }, (_, i) => ({ name: `p${i}`, port: 8000 + i, targetPort: 8080 })),
    },
  };
}
