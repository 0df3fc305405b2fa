/**
 * `npm run bench:scan-load`: does a big scan started through the API leave the API
 * responsive? Generates the 100-cluster fleet of `scan-load.fleet.ts` as an offline directory,
 * starts `fleet-audit serve --fleet <dir>` (the built CLI, without Redis: the in-process scan queue
 * running the scan in a child process) on a throwaway database of the local PostgreSQL, then POSTs
 * a scan of it and hammers `GET /healthz` with autocannon (10 connections) until the scan ends.
 *
 * Prints one JSON line:
 * `{"bench":"api-scan-load","clusters":100,"healthz":{"requests":n,"p50Ms":x,"p99Ms":x,"maxMs":x,"non2xx":n,"errors":n},
 *   "idleHealthz":{...},"scan":{"status":"succeeded","seconds":s,"findings":n},"targetP99Ms":100,"withinTarget":bool,"loadAvg1m":x}`.
 * `idleHealthz` is the same load for 3 s before the scan (the baseline); `eventLoopDuringScan` is
 * the API process's own event-loop delay (p99, max) over the scan, from its `/metrics` (`eventLoopIdle`:
 * over the idle phase), which says whether the API's own work or the machine's load delays it; `scan.seconds` is the
 * scan row's `finishedAt - startedAt` (enqueue to stored). `loadAvg1m` says how busy the machine
 * was (the figures are latencies under whatever else runs).
 *
 * Environment: `BENCH_PG_ADMIN_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`, trust
 * auth), `BENCH_CLUSTERS` (default 100). Exits 1 when the scan does not succeed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { freeTcpPort } from './chaos/private-servers';
import { SCAN_LOAD_FLEET, writeScanLoadFleet } from './scan-load.fleet';
import { packageRoot } from '../apps/cli/src/package-root.util';

/** The project root, found from this file in dist/ or any other output root of `nest build cli`. */
const ROOT = packageRoot();
const BIN = join(ROOT, 'bin', 'fleet-audit.js');
const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The target: /healthz p99 under 100 ms while a 100-cluster scan runs. */
const TARGET_P99_MS = 100;
const TOKEN = randomBytes(24).toString('hex');

/** Latency figures of one autocannon run, milliseconds and counts. */
interface HealthzFigures {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  errors: number;
}

async function admin(sql: string): Promise<void> {
  const c = new Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Start `serve` and resolve with its base URL once it listens. */
async function startServe(fleetDir: string, databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freeTcpPort();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--fleet', fleetDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, API_TOKEN: TOKEN, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', REDIS_URL: '' },
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /API on (http:\/\/[\d.]+:\d+)/.exec(buf);
      if (m) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${buf.trim().split('\n').pop() ?? ''}`)));
  });
}

/** Hammer /healthz until `until` resolves (or for `ms`). */
async function hammer(url: string, until: Promise<unknown>): Promise<HealthzFigures> {
  let instance: autocannon.Instance | undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon({ url: `${url}/healthz`, connections: 10, duration: 3600 }, (err, result) => (err ? reject(err) : resolve(result)));
  });
  await until;
  instance?.stop();
  const r = await done;
  return { requests: r.requests.total, p50Ms: r.latency.p50, p99Ms: r.latency.p99, maxMs: r.latency.max, non2xx: r.non2xx, errors: r.errors };
}

/**
 * The API process's event-loop delay since the previous read, milliseconds: `nodejs_eventloop_lag_p99_seconds`
 * and `_max_seconds` of its `/metrics` (prom-client over `monitorEventLoopDelay`, reset at each read).
 */
async function eventLoopDelay(url: string, headers: Record<string, string>): Promise<{ p99Ms: number | null; maxMs: number | null }> {
  const text = await (await fetch(`${url}/metrics`, { headers })).text();
  const ms = (name: string) => {
    const m = new RegExp(`^${name} ([\\d.e+-]+)$`, 'm').exec(text);
    return m ? Math.round(Number(m[1]) * 1000 * 10) / 10 : null;
  };
  return { p99Ms: ms('nodejs_eventloop_lag_p99_seconds'), maxMs: ms('nodejs_eventloop_lag_max_seconds') };
}

async function main(): Promise<void> {
  const clusters = Number(process.env.BENCH_CLUSTERS ?? SCAN_LOAD_FLEET.clusters);
  const dbName = `fleet_audit_bench_scan_load_${process.pid}`;
  const dbUrl = new URL(ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  const work = mkdtempSync(join(tmpdir(), 'bench-scan-load-'));
  const fleetDir = join(work, 'fleet');
  let serve: ChildProcess | undefined;
  await admin(`CREATE DATABASE ${dbName}`);
  try {
    writeScanLoadFleet(fleetDir, { ...SCAN_LOAD_FLEET, clusters });
    const started = await startServe(fleetDir, dbUrl.toString());
    serve = started.child;
    const { url } = started;
    const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
    // Reading /metrics resets the API's event-loop delay histogram (prom-client): read before and after each phase.
    await eventLoopDelay(url, headers);
    const idleHealthz = await hammer(url, new Promise((r) => setTimeout(r, 3_000)));
    const eventLoopIdle = await eventLoopDelay(url, headers);
    const post = await fetch(`${url}/v1/scans`, { method: 'POST', headers, body: JSON.stringify({ source: basename(fleetDir) }) });
    if (post.status !== 202) throw new Error(`POST /v1/scans answered ${post.status}: ${await post.text()}`);
    const { scanId } = (await post.json()) as { scanId: string };
    let scan: { status: string; startedAt: string; finishedAt: string | null; summary: { findings: number } | null } | undefined;
    const scanEnded = (async () => {
      for (;;) {
        await new Promise((r) => setTimeout(r, 500));
        const res = await fetch(`${url}/v1/scans/${scanId}`, { headers });
        scan = (await res.json()) as typeof scan;
        if (scan && scan.status !== 'running') return;
      }
    })();
    const healthz = await hammer(url, scanEnded);
    const eventLoopDuringScan = await eventLoopDelay(url, headers);
    const seconds = scan?.finishedAt ? (Date.parse(scan.finishedAt) - Date.parse(scan.startedAt)) / 1000 : null;
    const out = {
      bench: 'api-scan-load',
      node: process.version,
      clusters,
      healthz,
      idleHealthz,
      eventLoopIdle,
      eventLoopDuringScan,
      scan: { status: scan?.status, seconds, findings: scan?.summary?.findings ?? null },
      targetP99Ms: TARGET_P99_MS,
      withinTarget: healthz.p99Ms < TARGET_P99_MS && healthz.non2xx === 0 && healthz.errors === 0,
      loadAvg1m: Math.round(loadavg()[0] * 100) / 100,
    };
    process.stdout.write(`${JSON.stringify(out)}\n`);
    if (scan?.status !== 'succeeded') process.exitCode = 1;
  } finally {
    if (serve && serve.exitCode === null) {
      const exited = new Promise((r) => serve!.once('exit', r));
      serve.kill('SIGTERM');
      await exited;
    }
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:scan-load: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
