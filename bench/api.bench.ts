/**
 * `npm run bench:api`: latency of the API under load. A fresh database is seeded
 * with a generated fleet of 100 accounts whose latest scan holds BENCH_API_FINDINGS findings (default
 * 100,000; an older scan of the same fleet is stored too, so first/last sightings and diffs are real), the
 * fleet graph of a generated fleet of the same accounts (1,000 clusters, 10,000 LoadBalancer Services and
 * their CLBs, 20,000 ECS instances: `GRAPH_SPEC`, built by `buildFleetGraph` as a scan stores it) and
 * quota samples; the API (createApiApp, the production module) is started in a CHILD process on a random
 * port, so the load generator does not share its event loop (with NODE_ENV=production, as the image runs
 * it). autocannon (50 connections, 30 s each, both overridable) then drives:
 *  - `rest_findings_all`: GET /v1/findings (latest scan, default page of 100) with the bootstrap token;
 *  - `rest_findings_scoped`: the same with a viewer token scoped to 10 of the 100 accounts;
 *  - `graphql_nested`: a representative nested GraphQL query, when the build serves /graphql (else skipped).
 * Latency percentiles are computed from every response time (autocannon's `response` event; autocannon's
 * own summary has no p95). Errors = connection errors + timeouts + non-2xx responses. Target: p95 <= 50 ms,
 * zero errors. Prints one JSON line last; load average before/after is included (the machine is shared), and per
 * load `apiCpuMsPerRequest`: CPU time (user + system) the API process spent per request, which a loaded machine
 * distorts far less than latency.
 *
 * The database is created next to BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres)
 * as `fleet_audit_bench_<random>` and dropped at the end. Seeding is not timed.
 *
 * Knobs for iterating on the API (all optional): BENCH_API_KEEP_DB=1 keeps the seeded database (its name is
 * printed on stderr); BENCH_API_DB_NAME=<name> reuses such a database (no create, seed or drop);
 * BENCH_API_CPU_PROF=<dir> runs the API child with `--cpu-prof` writing its profile into <dir>.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Client } from 'pg';
import { mapWireFleet, type Finding, type QuotaUsageSample, type Severity } from '@app/domain';
import { buildFleetGraph, FleetIndex } from '@app/checks';
import { generateFleet, generateSpecSchema } from '@app/collectors';
import { Store } from '@app/store';
import { measureLoad, serveApiChild, type LoadResult } from './api-child.util';

const ACCOUNTS = 100;
const CLUSTERS_PER_ACCOUNT = 10;
const FINDINGS = Number(process.env.BENCH_API_FINDINGS ?? 100_000);
const CONNECTIONS = Number(process.env.BENCH_API_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_API_DURATION_S ?? 30);
const REUSE_DB = process.env.BENCH_API_DB_NAME;
const KEEP_DB = process.env.BENCH_API_KEEP_DB === '1';
const CPU_PROF_DIR = process.env.BENCH_API_CPU_PROF;
const BOOTSTRAP = `bench-api-bootstrap-${randomBytes(12).toString('hex')}`;
const HASH_KEY = randomBytes(32).toString('hex');
const CHECKS = ['CLB_BACKEND_QUOTA', 'LB_ORPHANED', 'LB_NO_BACKENDS', 'SERVICE_NO_CONNECTION_DRAIN', 'NODEPORT_RANGE_EXHAUSTION', 'CLUSTER_MODE_BLOWUP', 'SERVICE_EVENT_ERROR', 'LB_CONFIG_DRIFT'];
const SEVERITIES: Severity[] = ['info', 'warning', 'critical'];
const DAY = 86_400_000;

/** A representative nested query (accounts -> regions -> clusters -> services -> loadBalancer), for builds serving /graphql. */
const GRAPHQL_QUERY = `query Bench {
  accounts(first: 5) { edges { node { accountId regions(first: 2) { edges { node { regionId clusters(first: 5) { edges { node {
    clusterId services(first: 10) { edges { node { namespace name loadBalancer { loadBalancerId backendEntries } } } } } } } } } } } } } }`;

/** The generated fleet whose graph both scans store: 100 accounts x 2 regions x 5 clusters, 20 nodes and 10 LoadBalancer Services each. */
const GRAPH_SPEC = { seed: 1, accounts: ACCOUNTS, regions: ['cn-hangzhou', 'cn-beijing'], clusters: ACCOUNTS * CLUSTERS_PER_ACCOUNT, nodesPerCluster: 20, servicesPerCluster: 10, podsPerService: 2 };

/** Account `i`'s UID as the fleet generator makes it (libs/collectors fleet.generator.ts), so findings, quotas, tokens and the graph agree. */
function account(i: number): string {
  return String(1_000_000_000_000_000 + i * 7919 + GRAPH_SPEC.seed);
}

/** Finding k of the fleet in scan `w` (0 older, 1 latest): 5 % churn between the scans, 1 % severity drift. */
function finding(k: number, w: number): Finding {
  const a = k % ACCOUNTS;
  const c = Math.floor(k / ACCOUNTS) % CLUSTERS_PER_ACCOUNT;
  const checkId = CHECKS[k % CHECKS.length];
  const id = `lb-${k.toString(36).padStart(8, '0')}`;
  return {
    checkId,
    severity: SEVERITIES[(k + (k % 100 === 0 ? w : 0)) % 3],
    resource: { kind: 'LoadBalancer', id, accountId: account(a), regionId: a % 2 === 0 ? 'cn-hangzhou' : 'cn-beijing', clusterId: `c-${a}-${c}` },
    message: `CLB ${id} uses 170 of 200 backend servers (85 %)`,
    remediation: 'Raise the quota or split Services across CLBs.',
    source: 'seeds/001_clb_quotas.txt',
    fingerprint: createHash('sha256').update(`${checkId}\0${id}`).digest('hex').slice(0, 32),
    used: 170,
    limit: 200,
    ratio: 0.85,
  };
}

function quotaSamples(w: number): QuotaUsageSample[] {
  return Array.from({ length: 5000 }, (_, i) => ({
    checkId: 'CLB_BACKEND_QUOTA',
    resource: { kind: 'LoadBalancer' as const, id: `lb-q${i}`, accountId: account(i % ACCOUNTS), regionId: 'cn-hangzhou', clusterId: `c-${i % ACCOUNTS}-0` },
    used: Math.min(200, 80 + (i % 100) + w * 3),
    limit: 200,
    ratio: Math.min(200, 80 + (i % 100) + w * 3) / 200,
  }));
}

/** Services (with their CLB) in an answer of GRAPHQL_QUERY: the nested query must read real graph rows, not empty lists. */
function countGraphqlServices(body: string): number {
  return (body.match(/"loadBalancerId"/g) ?? []).length;
}




/** Drive one request shape with autocannon (`measureLoad`). */
function load(child: ChildProcess, url: string, opts: { method?: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<LoadResult> {
  return measureLoad(child, { url, connections: CONNECTIONS, duration: DURATION_S, method: opts.method ?? 'GET', headers: opts.headers, ...(opts.body ? { body: opts.body } : {}) });
}

/** Child: serve the API over the seeded database (`serveApiChild`). */
function serve(): Promise<void> {
  return serveApiChild({ databaseUrl: process.env.BENCH_API_DB_URL as string, bootstrapToken: process.env.BENCH_API_BOOTSTRAP as string, tokenHashKey: process.env.BENCH_API_HASH_KEY as string });
}

async function main(): Promise<void> {
  const base = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const name = REUSE_DB ?? `fleet_audit_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new Client({ connectionString: base.toString() });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  if (!REUSE_DB) await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  let child: ChildProcess | undefined;
  const loadBefore = Math.round(loadavg()[0] * 100) / 100;
  try {
    const store = await Store.open({ connectionString: url.toString(), migrate: true, tokenHashKey: HASH_KEY });
    const seedStart = Date.now();
    const now = Date.now();
    const snapshot = REUSE_DB ? undefined : mapWireFleet(generateFleet(generateSpecSchema.parse(GRAPH_SPEC), 'bench-api').fleet);
    const graph = snapshot ? buildFleetGraph(snapshot, FleetIndex.build(snapshot)) : undefined;
    for (const w of REUSE_DB ? [] : [0, 1]) {
      const start = w * Math.floor(FINDINGS * 0.05);
      const scan = await store.scans.create({ source: 'offline', fleetName: 'bench-api', startedAt: new Date(now - (1 - w) * 7 * DAY - 3_600_000) });
      await store.scans.complete(scan.id, {
        findings: Array.from({ length: FINDINGS }, (_, i) => finding(start + i, w)),
        coverage: Array.from({ length: ACCOUNTS }, (_, a) => ({ accountId: account(a), regionId: 'cn-hangzhou', api: 'slb' as const, status: 'ok' as const })),
        quotaUsage: quotaSamples(w),
        ...(graph ? { graph } : {}),
      });
      // The step after a store, as a scan runs it: the trends requests read the fits it keeps.
      await store.scans.refreshAfterStore();
    }
    const scoped = await store.apiTokens.create({ role: 'viewer', accounts: Array.from({ length: 10 }, (_, i) => account(i * 10)), createdBy: 'bench', name: 'bench-scoped' });
    const stored = new Client({ connectionString: url.toString() });
    await stored.connect();
    const findingRows = Number((await stored.query<{ n: string }>('SELECT count(*) AS n FROM findings')).rows[0].n);
    if (!REUSE_DB) await stored.query('ANALYZE');
    await stored.end();
    await store.close();
    const seedSeconds = Math.round((Date.now() - seedStart) / 100) / 10;

    child = fork(__filename, ['--serve'], {
      // NODE_ENV=production as in the image (Dockerfile): graphql-js skips its development-only checks.
      env: { ...process.env, NODE_ENV: 'production', BENCH_API_DB_URL: url.toString(), BENCH_API_BOOTSTRAP: BOOTSTRAP, BENCH_API_HASH_KEY: HASH_KEY },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      ...(CPU_PROF_DIR ? { execArgv: [...process.execArgv, '--cpu-prof', '--cpu-prof-dir', CPU_PROF_DIR] } : {}),
    });
    const port = await new Promise<number>((resolve, reject) => {
      child!.once('message', (m: { port: number }) => resolve(m.port));
      child!.once('exit', (code) => reject(new Error(`the API child exited early (code ${code})`)));
    });
    const origin = `http://127.0.0.1:${port}`;
    const bootstrap = { authorization: `Bearer ${BOOTSTRAP}` };
    // Warm-up (JIT, pool, plans), not measured.
    for (let i = 0; i < 20; i++) await fetch(`${origin}/v1/findings`, { headers: bootstrap }).then((r) => r.arrayBuffer());
    const probe = await fetch(`${origin}/v1/findings`, { headers: bootstrap }).then((r) => r.json() as Promise<{ total: number; items: unknown[] }>);

    const results: Record<string, unknown> = {};
    results.rest_findings_all = await load(child, `${origin}/v1/findings`, { headers: bootstrap });
    results.rest_findings_scoped = await load(child, `${origin}/v1/findings`, { headers: { authorization: `Bearer ${scoped.token}` } });
    const gql = await fetch(`${origin}/graphql`, { method: 'POST', headers: { ...bootstrap, 'content-type': 'application/json' }, body: JSON.stringify({ query: GRAPHQL_QUERY }) });
    const gqlBody = await gql.text();
    if (gql.status === 404) results.graphql_nested = { skipped: 'this build serves no /graphql' };
    else if (gql.status !== 200 || gqlBody.includes('"errors"')) results.graphql_nested = { skipped: `probe answered ${gql.status}: ${gqlBody.slice(0, 200)}` };
    else if (countGraphqlServices(gqlBody) === 0) throw new Error(`the GraphQL probe found no Services (the fleet graph was not stored?): ${gqlBody.slice(0, 200)}`);
    else {
      results.graphql_nested_services = countGraphqlServices(gqlBody);
      results.graphql_nested_bytes = Buffer.byteLength(gqlBody);
      results.graphql_nested = await load(child, `${origin}/graphql`, {
        method: 'POST',
        headers: { ...bootstrap, 'content-type': 'application/json' },
        body: JSON.stringify({ query: GRAPHQL_QUERY }),
      });
    }
    process.stdout.write(
      `${JSON.stringify({
        bench: 'api',
        storedFindings: findingRows,
        latestScanFindings: probe.total,
        pageSize: probe.items.length,
        connections: CONNECTIONS,
        durationSeconds: DURATION_S,
        seedSeconds,
        targetP95Ms: 50,
        ...results,
        loadAvg1mBefore: loadBefore,
        loadAvg1mAfter: Math.round(loadavg()[0] * 100) / 100,
      })}\n`,
    );
  } finally {
    if (child && child.exitCode === null) {
      child.send('stop');
      await new Promise((r) => child!.once('exit', r));
    }
    if (REUSE_DB || KEEP_DB) process.stderr.write(`bench:api: database ${name} kept (BENCH_API_DB_NAME=${name} reuses it)\n`);
    else await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

if (process.argv.includes('--serve')) {
  serve().catch((e: unknown) => {
    process.stderr.write(`bench:api server: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
} else {
  main().catch((e: unknown) => {
    process.stderr.write(`bench:api: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
