/**
 * `npm run bench:admission [-- --rate R --seconds S --clusters N --targets T]`: latency of the admission webhook
 * (`POST /v1/admission/{cluster}`) at a fixed request rate, as the apiservers of several clusters call one central
 * API. A fresh database holds the 1M-backend bench fleet (`millionBackendFleet`, the fleet of bench:analyze and
 * bench:forecast: 500 clusters of 100 nodes and 22 LoadBalancer Services in 10 accounts, one region each;
 * `--clusters N` the same shape on N clusters) as one stored scan (`analyzeAndStore`, as a scan stores it). The API
 * (createApiApp, the production module) runs in a CHILD process so the load generator does not share its event loop;
 * autocannon sends AdmissionReviews at R reviews/s in all (default 200, `overallRate`) for S seconds (default 3: the
 * machine is shared) to T target clusters (default 4, in different accounts and regions), with a viewer token.
 * Every review is a different Service (its own name; 1 to 3 ports; Cluster or Local mode), so no answer is served
 * from the answers the API remembers: each is computed by the cluster's warm model.
 *
 * Before the measured run, a warm-up builds each target cluster's model (the first review of a cluster after a new
 * scan: one analysis of its region) and checks that a review is judged; its time is printed apart.
 * Prints the machine probe (bench/machine-probe.ts), p50 / p95 / p99 / max (ms, every response), the rate reached,
 * errors (non-2xx, timeouts), how many answers were "not judged" (fail-open), the API's CPU ms per review, the load
 * average, and one JSON line last. The API's CPU per review counts all its threads (the review models run in the review
 * threads, apps/api/src/admission/review-threads.ts); the event loop's busy time per review is printed beside it. The issue's target: p99 <= 50 ms at 200 reviews/s on the 1M-backend fleet.
 * `BENCH_ADMISSION_CPU_PROF=<dir>` writes a CPU profile of the API child there. `--repeat`: every measured review is one of
 * the four warm-up Services of its target (answered from memory), which gives the route's cost without the model.
 *
 * Arrivals (`--arrivals`): `steady` (default) sends one review every 1/R s whatever the answers (loadtest's
 * `requestsPerSecond`: an open loop, new connections opened as needed), as reviews reach a webhook while Services change;
 * `burst` is autocannon's `overallRate`, which sends each second's share at the start of the second on its
 * connections, one after another per connection, then waits for the next second (mcollina/autocannon#174): R reviews
 * arrive within a few milliseconds, so its latencies measure how fast the API drains a burst of R, not a rate.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { analyzeAndStore } from '@app/audit';
import { Store } from '@app/store';
import type { FleetSnapshot } from '@app/domain';
import { childCpuMicros, loadResultOf, measureLoad, serveApiChild, type LoadResult } from './api-child.util';
import { backendsOf, benchReviewService, intFlag, loadAvg1m, millionBackendFleet, withBenchDatabase } from './bench-support';
import { probeJson, runProbe } from './machine-probe';

const NOW = new Date('2026-11-22T00:00:00Z');
const BOOTSTRAP = `bench-admission-bootstrap-${randomBytes(12).toString('hex')}`;
const HASH_KEY = randomBytes(32).toString('hex');

/** The review of a new LoadBalancer Service `n` (its name, ports and traffic policy vary with `n`). */
function review(n: number): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `705ab4f5-6393-11e8-b7cc-${n.toString(16).padStart(12, '0')}`,
      kind: { group: '', version: 'v1', kind: 'Service' },
      resource: { group: '', version: 'v1', resource: 'services' },
      name: `bench-${n}`,
      namespace: 'shop',
      operation: 'CREATE',
      userInfo: { username: 'bench' },
      object: benchReviewService(n),
      oldObject: null,
      dryRun: false,
    },
  });
}

/** T clusters spread over the fleet's accounts (one region each): the first cluster of every (accounts / T)-th account. */
function targets(snapshot: FleetSnapshot, count: number): string[] {
  const accounts = snapshot.accounts;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const a = accounts[Math.floor((i * accounts.length) / count) % accounts.length]!;
    const clusters = a.regions.flatMap((r) => r.clusters);
    out.push(clusters[(i * 7) % clusters.length]!.name);
  }
  return out;
}

async function main(): Promise<void> {
  const rate = intFlag('rate', 200);
  const seconds = intFlag('seconds', 3);
  const clusters = intFlag('clusters', 500);
  const targetCount = intFlag('targets', 4);
  // `--repeat`: every measured review is one of four Services (one per target), answered from the answers the API
  // remembers: what the route costs without the model (HTTP, NestJS, authentication, validation, serialisation).
  const repeat = process.argv.includes('--repeat');
  const arrivals = argValue('arrivals') ?? 'steady';
  if (arrivals !== 'steady' && arrivals !== 'burst') throw new Error(`--arrivals must be steady or burst, not ${arrivals}`);
  const probe = await runProbe();
  console.log(
    `machine probe: 1 GiB of fresh memory touched in ${probe.firstTouchSecondsPerGiB.toFixed(2)} s, a fixed CPU loop in ${probe.cpuLoopMs.toFixed(0)} ms, ` +
      `a random memory read in ${probe.memoryLatencyNs.toFixed(0)} ns; load average ${loadAvg1m()}`,
  );
  await withBenchDatabase(async (databaseUrl) => {
    const store = await Store.open({ connectionString: databaseUrl, migrate: true, tokenHashKey: HASH_KEY });
    let token: string;
    let names: string[];
    let backends: number;
    const t0 = Date.now();
    try {
      const snapshot = millionBackendFleet(22, { clusters });
      backends = backendsOf(snapshot);
      names = targets(snapshot, targetCount);
      const scan = await store.scans.create({ source: 'offline', startedAt: NOW });
      await analyzeAndStore(snapshot, { scanId: scan.id, now: NOW, store });
      await store.scans.refreshAfterStore();
      token = (await store.apiTokens.create({ role: 'viewer', accounts: null, teams: null, createdBy: 'bench', name: 'admission' })).token;
    } finally {
      await store.close();
    }
    console.log(`stored the bench fleet (${clusters} clusters, ${backends} backend entries) in ${((Date.now() - t0) / 1000).toFixed(1)} s; target clusters ${names.join(', ')}`);
    const child: ChildProcess = fork(__filename, ['--serve'], {
      env: { ...process.env, NODE_ENV: 'production', BENCH_DB_URL: databaseUrl, BENCH_BOOTSTRAP: BOOTSTRAP, BENCH_HASH_KEY: HASH_KEY },
      execArgv: ['--max-old-space-size=6144', '--max-semi-space-size=64', '--min-semi-space-size=64', ...(process.env.BENCH_ADMISSION_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_ADMISSION_CPU_PROF}`] : [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        child.once('message', (m: { port: number }) => resolve(m.port));
        child.once('exit', (code) => reject(new Error(`the API child exited early (code ${code})`)));
      });
      const origin = `http://127.0.0.1:${port}`;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      // Warm-up, not measured: the snapshot read, each target cluster's model built, the JIT; every review judged.
      let n = 0;
      const warm: Record<string, number> = {};
      for (const name of names) {
        const w0 = Date.now();
        const first = await fetch(`${origin}/v1/admission/${name}?timeout=30s`, { method: 'POST', headers, body: review(n++) }).then((r) => r.text());
        warm[name] = Date.now() - w0;
        if (!first.includes('"allowed":true') || first.includes('not judged')) throw new Error(`the warm-up review of ${name} was not judged: ${first.slice(0, 300)}`);
      }
      for (let i = 0; i < 40; i++) await fetch(`${origin}/v1/admission/${names[i % names.length]}?timeout=5s`, { method: 'POST', headers, body: review(n++) });
      console.log(`warm-up: first review of each target cluster (snapshot read, model built) ${Object.entries(warm).map(([k, v]) => `${k} ${v} ms`).join(', ')}`);
      let notJudged = 0;
      const eluBefore = await childElu(child);
      const next = (): { path: string; body: string } => {
        const i = n++;
        return { path: `/v1/admission/${names[i % names.length]}?timeout=5s`, body: review(repeat ? i % names.length : i) };
      };
      const result =
        arrivals === 'steady'
          ? await measureSteadyLoad(child, { origin, rate, seconds, headers, next, onBody: (body) => void (body.includes('not judged') && notJudged++) })
          : await measureLoad(child, {
              url: origin,
              connections: Math.min(50, rate),
              overallRate: rate,
              duration: seconds,
              requests: [{ method: 'POST', headers, setupRequest: (req: autocannon.Request) => ({ ...req, ...next() }) }],
              // Each answer is one small body chunk: count the fail-open ones.
              setupClient: (client) => client.on('body', (chunk: Buffer) => void (chunk.includes('not judged') && notJudged++)),
            });
      const eluAfter = await childElu(child);
      // The API's event loop (HTTP, NestJS, validation, serialisation; the models run in the review threads): its busy
      // time per review, wall ms (performance.eventLoopUtilization), against the whole process's CPU per review.
      const mainMsPerReview = result.requests ? Math.round(((eluAfter.active - eluBefore.active) / result.requests) * 1000) / 1000 : null;
      const out = {
        bench: 'admission',
        fleet: `bench (${clusters} clusters)`,
        backends,
        targets: names,
        rateAsked: rate,
        seconds,
        arrivals,
        repeat,
        ...result,
        mainMsPerReview,
        notJudged,
        warmUpMs: warm,
        probe: probeJson(probe),
        loadAvg1m: loadAvg1m(),
      };
      console.log(`admission at ${rate} reviews/s (${arrivals} arrivals) for ${seconds} s: ${result.rps} answered/s, p50 ${result.p50Ms} ms, p95 ${result.p95Ms} ms, p99 ${result.p99Ms} ms, max ${result.maxMs} ms`);
      console.log(
        `errors ${result.errors}, not judged (fail-open) ${notJudged} of ${result.requests}, API CPU ${result.apiCpuMsPerRequest} ms per review ` +
          `(all threads; the event loop busy ${mainMsPerReview} ms per review), load average ${out.loadAvg1m}`,
      );
      console.log(JSON.stringify(out));
    } finally {
      if (child.exitCode === null) {
        child.send('stop');
        await new Promise((r) => child.once('exit', r));
      }
    }
  });
}

/** The value of `--name V` or `--name=V`, if given. */
function argValue(name: string): string | undefined {
  const argv = process.argv;
  const i = argv.indexOf(`--${name}`);
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** loadtest's request function handed to a request generator (`http.request`'s shape). */
type RequestClient = (options: unknown, callback: unknown) => { write(body: string): void };

/** What `measureSteadyLoad` sends. */
interface SteadyLoad {
  origin: string;
  /** Reviews per second, one every 1/rate s. */
  rate: number;
  seconds: number;
  headers: Record<string, string>;
  /** The next review's path and body. */
  next: () => { path: string; body: string };
  /** Every answer's body. */
  onBody: (body: string) => void;
}

/**
 * Send reviews at a steady rate for `seconds` (loadtest, `requestsPerSecond`: one request every 1/rate s on a free
 * keep-alive connection, a new one opened when none is free, whatever the answers: an open loop) against the API child,
 * keeping every response time (ms, from the request's start to its answer's last byte) for exact percentiles, and the child's
 * CPU time over the run.
 * @throws when loadtest cannot run
 */
async function measureSteadyLoad(child: ChildProcess, load: SteadyLoad): Promise<LoadResult> {
  // loadtest is an ES module: imported, not required (this file is CommonJS).
  const { loadTest } = await import('loadtest');
  const times: number[] = [];
  let errors = 0;
  let non2xx = 0;
  const cpuBefore = await childCpuMicros(child);
  await new Promise<void>((resolve, reject) =>
    loadTest(
      {
        url: load.origin,
        method: 'POST',
        requestsPerSecond: load.rate,
        maxSeconds: load.seconds,
        agentKeepAlive: true,
        quiet: true,
        requestGenerator: (_params: unknown, options: { path?: string; headers?: Record<string, string> }, client: RequestClient, callback: unknown) => {
          const { path, body } = load.next();
          options.path = path;
          options.headers = { ...load.headers, 'content-length': String(Buffer.byteLength(body)) };
          // Timed here, to the microsecond (loadtest's own elapsed times are whole milliseconds).
          const t0 = performance.now();
          const request = client(options, (res: { once(event: 'end', listener: () => void): void }) => {
            res.once('end', () => times.push(performance.now() - t0));
            (callback as (res: unknown) => void)(res);
          });
          request.write(body);
          return request;
        },
        statusCallback: (error: unknown, result: { body?: string; statusCode?: number } | undefined) => {
          if (result?.body !== undefined) load.onBody(result.body);
          if (error) {
            errors++;
            if ((result?.statusCode ?? 0) >= 300) non2xx++;
          }
        },
      },
      (error: unknown) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve()),
    ),
  );
  const cpuMicros = (await childCpuMicros(child)) - cpuBefore;
  return loadResultOf(times, load.seconds, cpuMicros, { errors, non2xx, timeouts: 0 });
}

/** The API child's event-loop utilisation so far (`performance.eventLoopUtilization`: active and idle ms). */
function childElu(child: ChildProcess): Promise<{ active: number; idle: number }> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'elu' in m) {
        child.off('message', onMessage);
        resolve((m as { elu: { active: number; idle: number } }).elu);
      }
    };
    child.on('message', onMessage);
    child.send('elu');
  });
}

if (process.argv.includes('--serve')) {
  process.on('message', (m: unknown) => {
    if (m === 'elu') process.send?.({ elu: performance.eventLoopUtilization() });
  });
  serveApiChild({ databaseUrl: process.env.BENCH_DB_URL as string, bootstrapToken: process.env.BENCH_BOOTSTRAP as string, tokenHashKey: process.env.BENCH_HASH_KEY as string }).catch((e: unknown) => {
    process.stderr.write(`bench:admission server: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
} else {
  main().catch((e: unknown) => {
    process.stderr.write(`bench:admission: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
