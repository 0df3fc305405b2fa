/**
 * `npm run bench:scale -- --clusters 5000`: the path after the analysis at fleet scale. On a fresh
 * database it stores two real scans of the generated bench fleet (`millionBackendSpec`: 100 nodes and 22
 * LoadBalancer Services per cluster, about a quarter on NLB; 5,000 clusters are about 10M backend entries), a week
 * apart, each analysed in process (`analyzeAndStore`) and stored by `storeAnalysis` as a scan stores it (findings,
 * skipped results, quota samples and the fleet graph: COPY in chunks, visible at once at the end, then the gzip
 * snapshot; libs/store scan-store.ts). The older scan runs without SERVICE_NO_CONNECTION_DRAIN, so the weekly diff has real new
 * findings. Then it times:
 *  - `storeSeconds`: the store step of each scan (the `store` phase) and the rows it wrote; `visibleSeconds` the part
 *    until the scan is visible to readers (the rest is its snapshot), `trendFitsAndStatisticsSeconds` the ANALYZE and quota trend fit refresh
 *    `complete` runs after it, `storeCpuSeconds` the CPU this process spent in the step (all its threads);
 *  - `report`: `loadReportInput` + `buildReport` and every render (target: within 60 s together);
 *  - `api`: the API (createApiApp, the production module, NODE_ENV=production) in a child process, driven by
 *    autocannon with a VARIED workload, not one repeated query: `/v1/findings` with each filter (check, severity,
 *    account, cluster, combined) and limit, and `after` cursors of real pages up to 20 deep; the fleet listings and
 *    objects (`/v1/clusters`, `/v1/load-balancers`, `/v1/nlbs`, `/v1/ecs-instances`, their `{id}` reads); quota
 *    listings and `/v1/forecasts/trends` with filters (an account's in pages of 100 with cursors; one account's
 *    unpaged answer, every series, is timed alone as `trendsAccountUnpagedMs`); nested GraphQL queries with varied
 *    arguments and cursors.
 *    Request k of the run is entry k mod n of the shuffled list. One mixed run (target p95 <= 50 ms, no error) and
 *    one shorter run per class, with p50/p95/p99/max (ms), requests per second and the API's CPU ms per request.
 *
 * Flags: `--clusters N` (default 5000), `--connections N` (default 20), `--duration S` (seconds of the mixed run,
 * default 30; each class run is a third of it). BENCH_SCALE_KEEP_DB=1 keeps the database (its name goes to
 * stderr), BENCH_SCALE_DB_NAME=<name> reuses one (nothing is generated or stored: only the report and API parts
 * run). The database is created next to BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 * Prints one line per part and, last, one JSON object.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { analyzeAndStore, storeAnalysis } from '@app/audit';
import { FleetIndex } from '@app/checks';
import { generateFleet } from '@app/collectors';
import { mapWireFleet } from '@app/domain';
import { buildReport, loadReportInput, renderReport, REPORT_FORMATS } from '@app/reports';
import { Store } from '@app/store';
import { adminQuery, benchAdminUrl, intFlag, loadAvg1m, millionBackendSpec, round2 } from './bench-support';
import { measureLoad, percentile, serveApiChild, type LoadResult } from './api-child.util';
import { probeJson, runProbe } from './machine-probe';

const DAY = 86_400_000;
const NOW = new Date('2026-11-23T06:00:00Z');
const BOOTSTRAP = `bench-scale-bootstrap-${randomBytes(12).toString('hex')}`;
const HASH_KEY = randomBytes(32).toString('hex');

/** One request of the workload. */
interface BenchRequest {
  /** Workload class (the per-class runs and the mix). */
  cls: 'findings' | 'fleet' | 'quotas' | 'graphql';
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}



/** Deterministic shuffle (xorshift), so two runs drive the same sequence. */
function shuffled<T>(items: readonly T[], seed = 7): T[] {
  const out = [...items];
  let x = seed;
  for (let i = out.length - 1; i > 0; i--) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const j = Math.abs(x) % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}


/**
 * Drive `requests` (round robin, request k = entry k mod n) for `seconds` over `connections` connections.
 * @throws when autocannon cannot run
 */
function drive(child: ChildProcess, origin: string, requests: readonly BenchRequest[], seconds: number, connections: number): Promise<LoadResult> {
  let k = 0;
  const headers = { authorization: `Bearer ${BOOTSTRAP}`, 'content-type': 'application/json' };
  return measureLoad(child, {
    url: origin,
    connections,
    duration: seconds,
    headers,
    requests: [
      {
        setupRequest: (req) => {
          const r = requests[k++ % requests.length]!;
          // A fresh headers object each time: autocannon adds content-length to the one it is given, which a
          // GET after a POST would then carry with no body (the server waits for it).
          return r.body !== undefined
            ? { ...req, method: r.method, path: r.path, headers: { ...headers }, body: r.body }
            : { ...req, method: r.method, path: r.path, headers: { authorization: headers.authorization }, body: undefined };
        },
      },
    ],
  });
}

/**
 * Wait until the API is idle again: requests of an earlier run may still be in flight after autocannon returns.
 * Polls `/healthz` until it answers within 20 ms, for 120 s at the most.
 */
async function settled(origin: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const t = performance.now();
    await fetch(`${origin}/healthz`).then((r) => r.arrayBuffer());
    if (performance.now() - t < 20) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** GET `path` with the bootstrap token; the JSON body. @throws on a non-2xx answer (the workload must be valid). */
async function getJson<T>(origin: string, path: string): Promise<T> {
  const res = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${BOOTSTRAP}` } });
  if (!res.ok) throw new Error(`GET ${path} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  return (await res.json()) as T;
}

/** POST a GraphQL query; the JSON body. @throws on an error answer. */
async function graphql<T>(origin: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${origin}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BOOTSTRAP}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown[] };
  if (!res.ok || body.errors) throw new Error(`GraphQL answered ${res.status}: ${JSON.stringify(body.errors ?? body).slice(0, 300)}`);
  return body.data as T;
}

interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** The request and the `after` pages of a REST listing, following `nextCursor` up to `depth` pages. */
async function restPages(origin: string, cls: BenchRequest['cls'], path: string, depth: number): Promise<BenchRequest[]> {
  const out: BenchRequest[] = [{ cls, method: 'GET', path }];
  let cursor: string | null = (await getJson<Page<unknown>>(origin, path)).nextCursor;
  const sep = path.includes('?') ? '&' : '?';
  for (let i = 1; i < depth && cursor; i++) {
    const p = `${path}${sep}after=${encodeURIComponent(cursor)}`;
    out.push({ cls, method: 'GET', path: p });
    cursor = (await getJson<Page<unknown>>(origin, p)).nextCursor;
  }
  return out;
}

const GQL_FLEET = `query Fleet($first: Int!, $after: String) {
  accounts(first: $first, after: $after) { pageInfo { endCursor } edges { node { accountId regions(first: 2) { edges { node { regionId
    clusters(first: 5) { edges { node { clusterId services(first: 10) { edges { node { namespace name loadBalancer { loadBalancerId backendEntries } } } } } } } } } } } } } }`;
const GQL_FINDINGS = `query Findings($first: Int!, $after: String, $accountId: String, $checkId: String) {
  findings(first: $first, after: $after, accountId: $accountId, checkId: $checkId) { pageInfo { endCursor hasNextPage } edges { node { checkId severity message } } } }`;
const GQL_LBS = `query Lbs($accountId: String, $first: Int!) { loadBalancers(accountId: $accountId, first: $first) { edges { node { loadBalancerId } } } }`;

/** Build the varied workload from what the stored scan holds (ids, filters, real cursors). */
async function workload(origin: string): Promise<BenchRequest[]> {
  const out: BenchRequest[] = [];
  const clusters = (await getJson<Page<{ clusterId: string; accountId: string; regionId: string }>>(origin, '/v1/clusters?limit=100')).items;
  const accounts = [...new Set(clusters.map((c) => c.accountId))].slice(0, 8);
  const checks = ['CLB_BACKEND_QUOTA', 'CLUSTER_MODE_BLOWUP', 'LB_CONFIG_DRIFT', 'ECS_LB_ATTACHMENT_QUOTA', 'LB_ORPHANED', 'SERVICE_NO_CONNECTION_DRAIN', 'NLB_SERVER_ADDED_QUOTA', 'LB_RENAME_TAG_MISSING'];
  // Findings: each filter alone and combined, three page sizes, real cursors to 20 pages deep.
  out.push(...(await restPages(origin, 'findings', '/v1/findings', 20)));
  out.push(...(await restPages(origin, 'findings', '/v1/findings?limit=500', 5)));
  for (const checkId of checks) out.push(...(await restPages(origin, 'findings', `/v1/findings?checkId=${checkId}&limit=50`, 6)));
  for (const severity of ['critical', 'warning', 'info']) out.push(...(await restPages(origin, 'findings', `/v1/findings?severity=${severity}`, 6)));
  for (const a of accounts) {
    out.push(...(await restPages(origin, 'findings', `/v1/findings?accountId=${a}`, 4)));
    out.push(...(await restPages(origin, 'findings', `/v1/findings?accountId=${a}&severity=warning&checkId=CLUSTER_MODE_BLOWUP`, 2)));
  }
  for (const c of clusters.slice(0, 12)) out.push(...(await restPages(origin, 'findings', `/v1/findings?clusterId=${c.clusterId}&limit=20`, 3)));
  // Fleet graph listings and objects.
  out.push(...(await restPages(origin, 'fleet', '/v1/clusters', 10)));
  for (const a of accounts) {
    out.push(...(await restPages(origin, 'fleet', `/v1/clusters?accountId=${a}`, 2)));
    out.push(...(await restPages(origin, 'fleet', `/v1/load-balancers?accountId=${a}&owner=ccm`, 3)));
    out.push(...(await restPages(origin, 'fleet', `/v1/nlbs?accountId=${a}`, 2)));
    out.push(...(await restPages(origin, 'fleet', `/v1/ecs-instances?accountId=${a}&minLoadBalancers=10`, 3)));
  }
  const lbs = (await getJson<Page<{ loadBalancerId: string }>>(origin, `/v1/load-balancers?limit=40`)).items;
  for (const lb of lbs) out.push({ cls: 'fleet', method: 'GET', path: `/v1/load-balancers/${lb.loadBalancerId}` });
  const ecs = (await getJson<Page<{ instanceId: string }>>(origin, `/v1/ecs-instances?limit=40`)).items;
  for (const e of ecs) out.push({ cls: 'fleet', method: 'GET', path: `/v1/ecs-instances/${e.instanceId}` });
  const nlbs = (await getJson<Page<{ nlbId: string }>>(origin, `/v1/nlbs?limit=20`)).items;
  for (const n of nlbs) out.push({ cls: 'fleet', method: 'GET', path: `/v1/nlbs/${n.nlbId}` });
  // Quotas and trends.
  out.push(...(await restPages(origin, 'quotas', '/v1/quotas?minRatio=0.5', 6)));
  for (const a of accounts.slice(0, 4)) {
    out.push(...(await restPages(origin, 'quotas', `/v1/quotas?accountId=${a}&checkId=ECS_LB_ATTACHMENT_QUOTA`, 3)));
    // An account's trends in pages (some 60,000 series each at 5,000 clusters: the unpaged answer is timed alone, below).
    let path: string | null = `/v1/forecasts/trends?accountId=${a}&minSamples=2&minSpanHours=1&limit=100`;
    for (let p = 0; p < 3 && path; p++) {
      out.push({ cls: 'quotas', method: 'GET', path });
      const cursor: string | null = (await getJson<{ nextCursor: string | null }>(origin, path)).nextCursor;
      path = cursor ? `/v1/forecasts/trends?accountId=${a}&minSamples=2&minSpanHours=1&limit=100&after=${encodeURIComponent(cursor)}` : null;
    }
  }
  for (const c of clusters.slice(0, 4)) out.push({ cls: 'quotas', method: 'GET', path: `/v1/forecasts/trends?clusterId=${c.clusterId}&minSamples=2&minSpanHours=1` });
  // GraphQL: nested fleet pages with real cursors, findings with filters and cursors, CLB listings per account.
  let after: string | null = null;
  for (let i = 0; i < 6; i++) {
    const variables: Record<string, unknown> = { first: 3 + (i % 3), ...(after ? { after } : {}) };
    out.push({ cls: 'graphql', method: 'POST', path: '/graphql', body: JSON.stringify({ query: GQL_FLEET, variables }) });
    after = (await graphql<{ accounts: { pageInfo: { endCursor: string | null } } }>(origin, GQL_FLEET, variables)).accounts.pageInfo.endCursor;
    if (!after) break;
  }
  for (const [i, a] of accounts.entries()) {
    let cursor: string | null = null;
    for (let p = 0; p < 3; p++) {
      const variables: Record<string, unknown> = { first: 50, accountId: a, checkId: checks[i % checks.length], ...(cursor ? { after: cursor } : {}) };
      out.push({ cls: 'graphql', method: 'POST', path: '/graphql', body: JSON.stringify({ query: GQL_FINDINGS, variables }) });
      const page: { findings: { pageInfo: { endCursor: string | null; hasNextPage: boolean } } } = await graphql(origin, GQL_FINDINGS, variables);
      if (!page.findings.pageInfo.hasNextPage) break;
      cursor = page.findings.pageInfo.endCursor;
    }
    out.push({ cls: 'graphql', method: 'POST', path: '/graphql', body: JSON.stringify({ query: GQL_LBS, variables: { accountId: a, first: 100 } }) });
  }
  return shuffled(out);
}

/** Child: serve the API over the seeded database (`serveApiChild`). */
function serve(): Promise<void> {
  return serveApiChild({ databaseUrl: process.env.BENCH_SCALE_DB_URL as string, bootstrapToken: process.env.BENCH_SCALE_BOOTSTRAP as string, tokenHashKey: process.env.BENCH_SCALE_HASH_KEY as string });
}

/** Generate, analyse and store the two scans; the store figures. */
async function seed(url: string, clusters: number): Promise<Record<string, unknown>> {
  const t0 = Date.now();
  const snapshot = mapWireFleet(generateFleet(millionBackendSpec(22, { clusters, nlb: true }), 'bench-scale').fleet);
  const generateSeconds = (Date.now() - t0) / 1000;
  const index = FleetIndex.build(snapshot);
  const store = await Store.open({ connectionString: url, migrate: true, tokenHashKey: HASH_KEY });
  const scans: Record<string, unknown>[] = [];
  try {
    for (const w of [0, 1]) {
      const scan = await store.scans.create({ source: 'offline', fleetName: 'bench-scale', startedAt: new Date(NOW.getTime() - (1 - w) * 7 * DAY) });
      const phases: Record<string, number> = {};
      let started = 0;
      const onPhase = (phase: 'analyze' | 'store', done: 0 | 1): void => {
        if (done === 0) started = Date.now();
        else phases[phase] = (Date.now() - started) / 1000;
      };
      const analysis = await analyzeAndStore(snapshot, {
        scanId: scan.id,
        now: new Date(NOW.getTime() - (1 - w) * 7 * DAY),
        index,
        ...(w === 0 ? { settings: { checks: { SERVICE_NO_CONNECTION_DRAIN: { enabled: false } } } } : {}),
        onPhase,
      });
      // The store step as a scan runs it (storeAnalysis), timed to the moment the scan is visible and to its end, then
      // the step a scan runs after it (the table statistics and quota trend fits: `refreshAfterStore`), timed alone.
      let visibleSeconds = 0;
      const cpu = process.cpuUsage();
      await storeAnalysis(store, scan.id, snapshot, analysis, { onPhase, index, onVisible: () => (visibleSeconds = (Date.now() - started) / 1000) });
      const cpuUsed = process.cpuUsage(cpu);
      const storeSeconds = phases.store ?? 0;
      const refreshStart = Date.now();
      await store.scans.refreshAfterStore();
      const refreshSeconds = (Date.now() - refreshStart) / 1000;
      scans.push({
        analyzeSeconds: round2(phases.analyze ?? 0),
        storeSeconds: round2(storeSeconds),
        visibleSeconds: round2(visibleSeconds),
        trendFitsAndStatisticsSeconds: round2(refreshSeconds),
        storeCpuSeconds: round2((cpuUsed.user + cpuUsed.system) / 1e6),
        findings: analysis.findings.length,
        skipped: analysis.skipped.length,
      });
      console.log(
        `scan ${w === 0 ? 'older ' : 'latest'}: analysed in ${(phases.analyze ?? 0).toFixed(1)} s, stored in ${storeSeconds.toFixed(1)} s ` +
          `(visible after ${visibleSeconds.toFixed(1)} s; ${((cpuUsed.user + cpuUsed.system) / 1e6).toFixed(1)} CPU s in this process), then statistics and trend fits in ${refreshSeconds.toFixed(1)} s (` +
          `${analysis.findings.length} findings; load ${loadAvg1m()})`,
      );
    }
  } finally {
    await store.close();
  }
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('ANALYZE');
    const rows = await c.query<{ relname: string; n: string }>(
      `SELECT relname, n_live_tup::text AS n FROM pg_stat_user_tables WHERE relname IN ('findings', 'quota_usage', 'scan_snapshots') OR relname LIKE 'graph_%' ORDER BY relname`,
    );
    const size = await c.query<{ s: string }>('SELECT pg_database_size(current_database())::text AS s');
    return {
      generateSeconds: round2(generateSeconds),
      scans,
      rows: Object.fromEntries(rows.rows.map((r) => [r.relname, Number(r.n)])),
      databaseMiB: Math.round(Number(size.rows[0]!.s) / 2 ** 20),
    };
  } finally {
    await c.end();
  }
}

async function main(): Promise<void> {
  const clusters = intFlag('clusters', 5000);
  const connections = intFlag('connections', 20);
  const duration = intFlag('duration', 30);
  const reuse = process.env.BENCH_SCALE_DB_NAME;
  const base = benchAdminUrl();
  const name = reuse ?? `fleet_audit_bench_${randomBytes(4).toString('hex')}`;
  const url = new URL(base);
  url.pathname = `/${name}`;
  if (!reuse) await adminQuery(`CREATE DATABASE "${name}"`, base);
  const loadBefore = loadAvg1m();
  // The machine first (bench/machine-probe.ts): figures compare only between runs with similar probes.
  const probe = await runProbe();
  console.log(
    `machine probe: 1 GiB of fresh memory touched in ${probe.firstTouchSecondsPerGiB.toFixed(2)} s, a fixed CPU-bound loop of ` +
      `100M steps in ${probe.cpuLoopMs.toFixed(0)} ms, a random memory read in ${probe.memoryLatencyNs.toFixed(0)} ns; load ${loadBefore}`,
  );
  let child: ChildProcess | undefined;
  try {
    const stored = reuse ? { reused: name } : await seed(url.toString(), clusters);

    const store = await Store.open({ connectionString: url.toString(), migrate: true, tokenHashKey: HASH_KEY });
    let report: Record<string, unknown>;
    let trendFits: Record<string, unknown>;
    try {
      // The quota trend fits of the window ending now (the step after each store refreshes them; a database stored before
      // they existed gets them here): what the trends requests read. A no-op when they are current.
      const tf = process.hrtime.bigint();
      const window = await store.quotaTrends.refresh(new Date());
      trendFits = { seconds: round2(Number(process.hrtime.bigint() - tf) / 1e9), series: window.series, scans: window.scanCount };
      console.log(`trend fits: ${window.series} series over ${window.scanCount} scans, current after ${trendFits.seconds} s`);
      const t0 = process.hrtime.bigint();
      const doc = buildReport(await loadReportInput(store, { now: new Date(NOW.getTime() + 3_600_000) }));
      const buildSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const render: Record<string, number> = {};
      for (const format of REPORT_FORMATS) {
        const t = process.hrtime.bigint();
        renderReport(doc, format);
        render[format] = round2(Number(process.hrtime.bigint() - t) / 1e9);
      }
      const total = buildSeconds + Object.values(render).reduce((a, b) => a + b, 0);
      report = { buildSeconds: round2(buildSeconds), renderSeconds: render, totalSeconds: round2(total), findings: doc.summary.findings, changes: doc.summary.changes, targetSeconds: 60 };
      console.log(`report: built in ${buildSeconds.toFixed(1)} s, rendered in ${(total - buildSeconds).toFixed(1)} s (${doc.summary.findings} findings)`);
    } finally {
      await store.close();
    }

    child = fork(__filename, ['--serve'], {
      env: { ...process.env, NODE_ENV: 'production', BENCH_SCALE_DB_URL: url.toString(), BENCH_SCALE_BOOTSTRAP: BOOTSTRAP, BENCH_SCALE_HASH_KEY: HASH_KEY },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // BENCH_SCALE_CPU_PROF=<dir>: the API child writes a CPU profile there (as bench:api's BENCH_API_CPU_PROF).
      execArgv: process.env.BENCH_SCALE_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_SCALE_CPU_PROF] : [],
    });
    const port = await new Promise<number>((resolve, reject) => {
      child!.once('message', (m: { port: number }) => resolve(m.port));
      child!.once('exit', (code) => reject(new Error(`the API child exited early (code ${code})`)));
    });
    const origin = `http://127.0.0.1:${port}`;
    const requests = await workload(origin);
    // Warm-up (JIT, pool, plans): one pass over the workload, not measured.
    // Every request must answer 2xx here, so an error in a timed run is the load's, never a bad request. The
    // second pass times each distinct request alone (one at a time): the slowest are printed.
    const alone: { r: BenchRequest; ms: number }[] = [];
    for (const pass of [0, 1]) for (const r of requests) {
      const t = performance.now();
      const res = await fetch(`${origin}${r.path}`, { method: r.method, headers: { authorization: `Bearer ${BOOTSTRAP}`, 'content-type': 'application/json' }, ...(r.body ? { body: r.body } : {}) });
      const text = await res.text();
      if (!res.ok || (r.cls === 'graphql' && text.includes('"errors"'))) throw new Error(`${r.method} ${r.path} answered ${res.status}: ${text.slice(0, 200)}`);
      if (pass === 1) alone.push({ r, ms: performance.now() - t });
    }
    alone.sort((a, b) => b.ms - a.ms);
    // One account's whole trends answer (every series, soonest first), alone: what a client asking without paging waits.
    const firstAccount = (await getJson<Page<{ accountId: string }>>(origin, '/v1/clusters?limit=1')).items[0]!.accountId;
    const unpagedPath = `/v1/forecasts/trends?accountId=${firstAccount}&minSamples=2&minSpanHours=1`;
    const tu = performance.now();
    const unpaged = await getJson<{ trends: unknown[] }>(origin, unpagedPath);
    const trendsAccountUnpagedMs = Math.round((performance.now() - tu) * 10) / 10;
    console.log(`trends of one account unpaged (${unpaged.trends.length} entries), alone: ${trendsAccountUnpagedMs} ms`);
    const slowest = alone.slice(0, 8).map((x) => ({ ms: Math.round(x.ms * 10) / 10, request: `${x.r.method} ${x.r.path}${x.r.body ? ` ${x.r.body.slice(0, 90)}` : ''}` }));
    for (const x of slowest) console.log(`  alone ${String(x.ms).padStart(7)} ms  ${x.request.slice(0, 160)}`);
    const aloneSorted = alone.map((x) => x.ms).sort((a, b) => a - b);
    const byClass = (cls: BenchRequest['cls']) => requests.filter((r) => r.cls === cls);
    await settled(origin);
    const mixed = await drive(child, origin, requests, duration, connections);
    console.log(`api mixed (${requests.length} distinct requests): p50 ${mixed.p50Ms} ms, p95 ${mixed.p95Ms} ms, p99 ${mixed.p99Ms} ms, ${mixed.rps} req/s, ${mixed.errors} errors`);
    const classes: Record<string, LoadResult & { distinct: number }> = {};
    // Trends (class quotas) last: their requests still in flight when a run ends would otherwise delay the next
    // class's first requests. Before each run, wait until the API answers /healthz promptly again.
    for (const cls of ['findings', 'fleet', 'graphql', 'quotas'] as const) {
      await settled(origin);
      const list = byClass(cls);
      classes[cls] = { distinct: list.length, ...(await drive(child, origin, list, Math.max(5, Math.round(duration / 3)), connections)) };
      console.log(`api ${cls.padEnd(8)} (${list.length} distinct): p50 ${classes[cls].p50Ms} ms, p95 ${classes[cls].p95Ms} ms, p99 ${classes[cls].p99Ms} ms, ${classes[cls].rps} req/s, ${classes[cls].errors} errors`);
    }
    console.log(
      JSON.stringify({
        bench: 'scale',
        clusters,
        stored,
        trendFits,
        report,
        api: { connections, durationSeconds: duration, distinctRequests: requests.length, targetP95Ms: 50, aloneP50Ms: percentile(aloneSorted, 50), aloneP95Ms: percentile(aloneSorted, 95), trendsAccountUnpagedMs, slowest, mixed, classes },
        peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
        probe: probeJson(probe),
        loadAvg1mBefore: loadBefore,
        loadAvg1mAfter: loadAvg1m(),
      }),
    );
  } finally {
    if (child && child.exitCode === null) {
      child.send('stop');
      await new Promise((r) => child!.once('exit', r));
    }
    if (reuse || process.env.BENCH_SCALE_KEEP_DB === '1') process.stderr.write(`bench:scale: database ${name} kept (BENCH_SCALE_DB_NAME=${name} reuses it)\n`);
    else await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`, base);
  }
}

if (process.argv.includes('--serve')) {
  serve().catch((e: unknown) => {
    process.stderr.write(`bench:scale server: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
} else {
  main().catch((e: unknown) => {
    process.stderr.write(`bench:scale: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
