/**
 * `npm run chaos`: the fault suite as one run with figures. Everything destructive runs
 * against a throwaway PostgreSQL of its own (bench/chaos/private-servers.ts), never the shared one.
 *
 * Phases (each counts the faults it injects and how every scan ended):
 * 1. store under restart: offline scans of generated fleets stored while PostgreSQL restarts;
 * 2. API under restart: parallel GET /v1/findings, /v1/scans, /healthz while PostgreSQL restarts
 *    (every answer must be 200 / 503, never 500);
 * 3. parallel POSTs: 20 POST /v1/scans at once on the in-process launcher;
 * 4. SIGKILL of `fleet-audit serve` mid-scan, then the reaper (a short lease) ends the row;
 * 5. fuzzed fleets (fast-check, seeded: CHAOS_SEED, CHAOS_FUZZ_RUNS);
 * 6. `fleet-audit scan --database-url` with nothing listening, and with the private PostgreSQL
 *    stopped while the scan runs: exit 2 with exactly one stderr line each;
 * 7. distributed scans (bench/chaos/distributed-chaos.ts, a private redis-server): Redis restarting
 *    empty mid-scan, a `fleet-audit worker` SIGKILLed mid-scan, then every Redis key searched for the
 *    simulator's AccessKey secret and id.
 * Then: scans left running (after one reaper sweep, as every `serve` and `worker` runs), and the
 * API token (a secret) searched for in every PostgreSQL row, every HTTP answer and the serve
 * process's output.
 *
 * Prints one JSON line: {"scansRun", "faultsInjected", "scansLeftRunning", "scanEndings",
 * "storedScans", "http": {status: count}, "http500", "secretsFound", "redis": {"keysByType",
 * "secretHits"}, "cliStoreFailure": [{"case", "exit", "stderrLines"}], "fuzz": {"seed", "cases",
 * "endings"}, "seconds"}. Exit code 0 when scansLeftRunning, http500, secretsFound and fuzz crashes
 * are all 0 and every store failure exited 2 with one line, else 1.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createApiApp, UnavailableScanLauncher } from '@app/api';
import { LocalScanLauncher, runScan } from '@app/audit';
import { Store } from '@app/store';
import { fuzzFleets } from './fleet-fuzz';
import { distributedChaos } from './distributed-chaos';
import { freeTcpPort, startPrivatePostgres } from './private-servers';

const ROOT = join(__dirname, '../../../../..');
const SAMPLE = join(ROOT, 'examples/fleets/sample');
const CLI = join(ROOT, 'bin/fleet-audit.js');
const TOKEN = `chaos-secret-token-${process.pid}-${Date.now()}`;

const phase = (name: string) => process.stderr.write(`chaos: ${name}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function generatedFleet(root: string, name: string, clusters: number): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'fleet.yaml'), `name: ${name}\ngenerate:\n  seed: 14\n  accounts: 2\n  regions: [cn-hangzhou, cn-beijing]\n  clusters: ${clusters}\n  nodesPerCluster: 20\n  servicesPerCluster: 8\n`);
  return dir;
}

async function main(): Promise<number> {
  const t0 = Date.now();
  const pg = await startPrivatePostgres();
  const work = mkdtempSync(join(tmpdir(), 'fleet-chaos-'));
  const http: Record<string, number> = {};
  const bodies: string[] = [];
  let faults = 0;
  let scansRun = 0;
  const scanEndings: Record<string, number> = {};
  const count = (m: Record<string, number>, k: string | number) => (m[String(k)] = (m[String(k)] ?? 0) + 1);
  let store: Store | undefined;
  let serveOutput = '';
  try {
    store = await Store.open({ connectionString: pg.url, migrate: true, onIdleError: () => undefined });
    const fleet = generatedFleet(work, 'chaos-60', 60);

    phase('store under restart');
    // 1. store under restart
    for (let i = 0; i < 3; i++) {
      scansRun += 1;
      const scan = runScan({ source: { kind: 'offline', fleetDir: fleet } }, store).then(
        (o) => o.scan.status,
        (e: unknown) => `error:${e instanceof Error ? e.name : 'unknown'}`,
      );
      await sleep(300 + i * 400);
      await pg.restartAsync();
      faults += 1;
      count(scanEndings, await scan);
    }

    phase('API under restart');
    // 2. API under restart
    const app = await createApiApp({ store, token: TOKEN, scanLauncher: new UnavailableScanLauncher(), logger: false });
    const port = await freeTcpPort();
    await app.listen(port, '127.0.0.1');
    const paths = ['/v1/findings?limit=50', '/v1/scans', '/healthz', '/v1/findings?severity=critical'];
    let stop = false;
    const load = async () => {
      for (let n = 0; !stop; n++) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}${paths[n % paths.length]}`, { headers: { authorization: `Bearer ${TOKEN}` } });
          count(http, res.status);
          bodies.push(await res.text());
        } catch {
          count(http, 'network-error');
        }
      }
    };
    const loaders = Array.from({ length: 8 }, load);
    await sleep(500);
    await pg.restartAsync();
    faults += 1;
    await sleep(1500);
    stop = true;
    await Promise.all(loaders);
    await app.close();

    phase('parallel POSTs');
    // 3. parallel POSTs on the in-process launcher
    const launcher = new LocalScanLauncher(store, [{ name: 'sample', source: { kind: 'offline', fleetDir: SAMPLE } }]);
    const app2 = await createApiApp({ store, token: TOKEN, scanLauncher: launcher, logger: false });
    const port2 = await freeTcpPort();
    await app2.listen(port2, '127.0.0.1');
    const posts = await Promise.all(
      Array.from({ length: 20 }, () => fetch(`http://127.0.0.1:${port2}/v1/scans`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })),
    );
    for (const r of posts) {
      count(http, r.status);
      bodies.push(await r.text());
    }
    faults += 1;
    scansRun += posts.filter((r) => r.status === 202).length;
    await launcher.drain();
    await app2.close();

    phase('SIGKILL serve');
    // 4. SIGKILL of serve mid-scan
    const big = generatedFleet(work, 'chaos-400', 400);
    const port3 = await freeTcpPort();
    const serveEnv: NodeJS.ProcessEnv = { ...process.env, API_TOKEN: TOKEN };
    delete serveEnv.REDIS_URL; // scans run in the serve process (the in-process launcher)
    const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port3), '--fleet', big, '--database-url', pg.url], {
      env: serveEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d: Buffer) => (serveOutput += d.toString()));
    child.stderr.on('data', (d: Buffer) => (serveOutput += d.toString()));
    for (let i = 0; i < 600 && !serveOutput.includes('API on') && child.exitCode === null; i++) await sleep(100);
    if (!serveOutput.includes('API on')) throw new Error(`serve did not start: ${serveOutput.trim().slice(-2000)}`);
    const launched = await fetch(`http://127.0.0.1:${port3}/v1/scans`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    count(http, launched.status);
    const { scanId } = (await launched.json()) as { scanId: string };
    scansRun += 1;
    await sleep(700);
    child.kill('SIGKILL');
    faults += 1;
    await new Promise((r) => child.once('exit', r));
    await sleep(1200);
    const reaped = await store.scans.reapExpired(1000);
    count(scanEndings, reaped.includes(scanId) ? 'interrupted' : `sigkill:${(await store.scans.get(scanId))?.status}`);

    phase('fuzz');
    // 5. fuzzed fleets
    const seed = Number(process.env.CHAOS_SEED ?? 2026);
    const fuzz = await fuzzFleets(SAMPLE, Number(process.env.CHAOS_FUZZ_RUNS ?? 60), seed);
    if (fuzz.failure) process.stderr.write(`fuzz crash (replay with CHAOS_SEED=${seed}): ${JSON.stringify(fuzz.failure)}\n`);

    phase('CLI store failure');
    // 6. the CLI on a store failure: exit 2, one line on stderr, never a stack trace or exit 1
    const cliStoreFailure: { case: string; exit: number | null; stderrLines: number; line: string }[] = [];
    const runCli = (args: string[], during?: (child: ReturnType<typeof spawn>) => Promise<void>) =>
      new Promise<{ exit: number | null; stderr: string }>((resolve) => {
        const c = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        c.once('exit', (code) => resolve({ exit: code, stderr }));
        void during?.(c);
      });
    const record = (name: string, r: { exit: number | null; stderr: string }) => {
      const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
      cliStoreFailure.push({ case: name, exit: r.exit, stderrLines: lines.length, line: lines[0] ?? '' });
      count(scanEndings, `cli:${name}:exit-${r.exit}`);
    };
    const deadPort = await freeTcpPort();
    record('nothing listening', await runCli(['scan', '--fleet', fleet, '--format', 'json', '--database-url', `postgres://postgres@127.0.0.1:${deadPort}/fleet`]));
    faults += 1;
    scansRun += 1;
    const watcher = new Client({ connectionString: pg.url });
    await watcher.connect();
    const before = await watcher.query<{ n: string }>(`SELECT count(*) AS n FROM scans`);
    record(
      'PostgreSQL stopped mid-scan',
      await runCli(['scan', '--fleet', big, '--format', 'json', '--database-url', pg.url], async () => {
        for (let i = 0; i < 600; i++) {
          const now = await watcher.query<{ n: string }>(`SELECT count(*) AS n FROM scans`);
          if (Number(now.rows[0].n) > Number(before.rows[0].n)) break;
          await sleep(100);
        }
        await watcher.end().catch(() => undefined);
        // Down until the CLI gave up (its store retries ride over a short restart: phase 1).
        pg.stop();
        faults += 1;
      }),
    );
    pg.start();
    scansRun += 1;

    // 7. distributed scans: Redis restart, worker SIGKILL, secrets in Redis
    const dist = await distributedChaos(store, pg.url, CLI, phase);
    scansRun += dist.scansRun;
    faults += dist.faultsInjected;
    for (const [k, n] of Object.entries(dist.endings)) scanEndings[`distributed:${k}`] = (scanEndings[`distributed:${k}`] ?? 0) + n;

    // The reaper sweep every `serve` and `worker` runs: leased scans whose owner died end `failed`.
    await sleep(1_200);
    const swept = await store.scans.reapExpired(1_000);
    if (swept.length > 0) scanEndings['reaped:interrupted'] = (scanEndings['reaped:interrupted'] ?? 0) + swept.length;

    // Verdicts
    const admin = new Client({ connectionString: pg.url });
    await admin.connect();
    const running = await admin.query<{ n: string }>(`SELECT count(*) AS n FROM scans WHERE status = 'running'`);
    const dump = await admin.query<{ t: string }>(
      `SELECT string_agg(t, ' ') AS t FROM (SELECT row_to_json(s)::text AS t FROM scans s UNION ALL SELECT row_to_json(f)::text FROM findings f) x`,
    );
    const statuses = await admin.query<{ status: string; n: string }>(`SELECT status, count(*) AS n FROM scans GROUP BY status ORDER BY status`);
    await admin.end();
    const secretsFound =
      [dump.rows[0]?.t ?? '', bodies.join('\n'), serveOutput].filter((t) => t.includes(TOKEN)).length + dist.redisSecretHits;
    const summary = {
      scansRun,
      faultsInjected: faults,
      scansLeftRunning: Number(running.rows[0].n),
      scanEndings,
      storedScans: Object.fromEntries(statuses.rows.map((r) => [r.status, Number(r.n)])),
      http,
      http500: http['500'] ?? 0,
      secretsFound,
      redis: { keysByType: dist.redisKeysByType, secretHits: dist.redisSecretHits },
      cliStoreFailure,
      fuzz: { seed: fuzz.seed, cases: fuzz.cases, endings: fuzz.endings },
      seconds: Math.round((Date.now() - t0) / 1000),
    };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    const cliOk = cliStoreFailure.every((c) => c.exit === 2 && c.stderrLines === 1);
    return summary.scansLeftRunning === 0 && summary.http500 === 0 && secretsFound === 0 && fuzz.endings.crash === 0 && cliOk ? 0 : 1;
  } finally {
    await store?.close().catch(() => undefined);
    pg.destroy();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`chaos: error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(2);
  },
);
