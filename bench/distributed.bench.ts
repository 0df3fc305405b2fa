/**
 * `npm run bench:distributed`: the analysis of a distributed scan of the `bench:analyze` fleet
 * (`millionBackendSpec`, about a quarter of the Services on NLB; `--clusters N`, default 500; `--accounts N`, default
 * 10, see `benchFleet`) through N worker
 * processes (`--workers N`, default 4), sharded (ANALYZE_SHARDS=true: one analyze-shard job per (account, region))
 * unless `--whole` (one analyze job holding the fleet). Each worker runs as the deployment runs it: node with
 * `--max-semi-space-size=64 --min-semi-space-size=64` (the image's ENTRYPOINT) and `--max-old-space-size=N` from `--worker-heap-mib N`
 * (default 1200, the worker heap of the Helm chart, `worker.heapMiB`, and of docker-compose, `WORKER_NODE_OPTIONS`;
 * `--worker-heap-mib 0`: Node's own limit, under which V8 lets garbage of earlier shards grow the heap before it
 * collects: 1,300-2,035 MiB per worker at 5,000 clusters in 10 accounts, against 1,212-1,244 MiB capped).
 *
 * It measures the ANALYSIS, not the crawl: the generated fleet's target slices are written straight into
 * `scan_targets` as the crawl jobs would write them (`saveSliceParts`: one account, region and cluster slice each,
 * a large region's in parts),
 * then the scan's analyze job is added with no crawl child, so it runs at once on the workers. Wall time is from
 * adding the job to the scan row `succeeded`. Each worker's peak RSS is its `VmHWM` (/proc/<pid>/status, read
 * before it is stopped; it includes the worker's boot, about 150 MiB).
 *
 * The findings digest is the sha256 of the scan's findings as read back through the store (sorted by
 * fingerprint, JSON with sorted keys), compared with the same digest of the in-process analysis of the same
 * fleet (`runAudit` over the snapshot assembled from the same slices, in a child process after the workers are
 * gone): exit 1 when they differ. Last line: one JSON object
 * `{"clusters", "accounts", "workers", "sharded", "shards", "findings", "wallSeconds", "peakRssMiB": [per worker], "digest", "inProcessDigest", "equal"}`.
 *
 * Needs PostgreSQL (BENCH_DATABASE_URL, a throw-away database is created and dropped) and Redis
 * (BENCH_REDIS_URL, default redis://127.0.0.1:6379; a unique key prefix, deleted afterwards). Stopped by SIGINT or
 * SIGTERM, it kills its workers, deletes its Redis keys and drops its database before exiting (`onBenchSignal`).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import IORedis from 'ioredis';
import { runAudit } from '@app/checks';
import { assembleWireFleet, generateFleet, scanConfigSchema, slicePartsOf, type ScanConfig, type TargetSlice } from '@app/collectors';
import { mapWireFleet, targetKey, type CoverageEntry, type Finding, type WireFleet } from '@app/domain';
import { BullScanJobQueue, DistributedScanClient } from '@app/queue';
import { Store } from '@app/store';
import { intFlag, loadAvg1m, millionBackendSpec, onBenchSignal, withBenchDatabase } from './bench-support';

const NOW = new Date('2026-11-22T00:00:00Z');
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const WORKER_MAIN = join(__dirname, '..', 'apps', 'worker', 'src', 'main.js');

/**
 * The generated fleet of the bench (the same as `bench:analyze`'s 1M-backend shape at `clusters`; its 10 accounts
 * have one region each, so 10 shards of clusters / 10 clusters). `accounts` (`--accounts N`) spreads the same
 * clusters over N accounts instead: `--clusters 500 --accounts 1` is one shard the size of a 5,000-cluster
 * fleet's shards.
 */
function benchFleet(clusters: number, accounts: number): WireFleet {
  return generateFleet({ ...millionBackendSpec(22, { clusters, nlb: true }), accounts }, 'bench').fleet;
}

/** The scan config naming the fleet's accounts and regions (no credentials: nothing is crawled). */
function configOf(fleet: WireFleet): ScanConfig {
  return scanConfigSchema.parse({
    name: fleet.name,
    accounts: fleet.accounts.map((a) => ({ accountId: a.account.accountId, name: a.account.name, regions: a.regions.map((r) => r.regionId) })),
  });
}

/**
 * The target slices crawl jobs would write for the fleet: one per account, (account, region) and cluster. With
 * `release`, each account's wire data is dropped from `fleet.accounts` once its slices are taken, so a caller that
 * writes the slices away does not keep the whole generated fleet alive to the end (at 5,000 clusters it is about
 * 2.4 GiB: next to the gzip work of the large region slices it brought the bench's heap near its limit, where V8
 * collects again and again: the slices took 119 s on one day and over 15 minutes on others).
 */
function* slicesOf(fleet: WireFleet, options: { release?: boolean } = {}): Generator<TargetSlice> {
  // The coverage entries of each target, grouped once (one filter over the whole list per slice was 5,020 x 25,000
  // comparisons at 5,000 clusters).
  const coverageByTarget = new Map<string, CoverageEntry[]>();
  const keyOf = (accountId: string, regionId?: string, clusterId?: string) => JSON.stringify([accountId, regionId ?? null, clusterId ?? null]);
  for (const c of fleet.coverage) {
    const key = keyOf(c.accountId, c.regionId, c.clusterId);
    const list = coverageByTarget.get(key);
    if (list) list.push(c);
    else coverageByTarget.set(key, [c]);
  }
  const coverageOf = (accountId: string, regionId?: string, clusterId?: string): CoverageEntry[] =>
    coverageByTarget.get(keyOf(accountId, regionId, clusterId)) ?? [];
  const accounts: (WireFleet['accounts'][number] | undefined)[] = fleet.accounts;
  for (let i = 0; i < accounts.length; i++) {
    const a = accounts[i]!;
    const accountId = a.account.accountId;
    yield { target: { kind: 'account', accountId }, ...(a.ram ? { ram: a.ram } : {}), coverage: coverageOf(accountId) };
    for (const r of a.regions) {
      const { clusters, ...region } = r;
      yield {
        target: { kind: 'region', accountId, regionId: r.regionId },
        region,
        clusterIds: clusters.map((c) => c.detail.cluster_id),
        coverage: coverageOf(accountId, r.regionId),
      };
      for (const cluster of clusters) {
        const clusterId = cluster.detail.cluster_id;
        yield { target: { kind: 'cluster', accountId, regionId: r.regionId, clusterId }, cluster, coverage: coverageOf(accountId, r.regionId, clusterId) };
      }
    }
    if (options.release) accounts[i] = undefined;
  }
}

/** JSON with object keys sorted at every level (the store's jsonb does not keep key order). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** sha256 of the findings sorted by fingerprint, as canonical JSON. */
function findingsDigest(findings: readonly Finding[]): string {
  const sorted = [...findings].sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
  return createHash('sha256').update(canonical(sorted)).digest('hex');
}

/** Child mode: the in-process analysis of the same slices; sends its digest and findings count. */
function inProcessDigest(clusters: number, accounts: number): { digest: string; findings: number } {
  const fleet = benchFleet(clusters, accounts);
  const snapshot = mapWireFleet(assembleWireFleet(configOf(fleet), [...slicesOf(fleet)]));
  const { findings } = runAudit(snapshot, { now: NOW });
  return { digest: findingsDigest(findings), findings: findings.length };
}

interface Worker {
  child: ChildProcess;
  output: () => string;
  exited: Promise<unknown>;
}

/** Start one worker process and wait for its ready line. */
async function startWorkerProcess(env: Record<string, string>): Promise<Worker> {
  const child = spawn(process.execPath, ['--max-semi-space-size=64', '--min-semi-space-size=64', WORKER_MAIN], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not get ready: ${out}`)), 180_000);
    const poll = setInterval(() => {
      if (!out.includes('"worker":"ready"')) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve();
    }, 100);
    void exited.then(() => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`worker exited before ready: ${out}`));
    });
  });
  return { child, output: () => out, exited };
}

/** Peak resident set of a process (VmHWM, MiB). */
function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function deletePrefix(prefix: string): Promise<void> {
  const redis = new IORedis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

async function main(): Promise<void> {
  const clusters = intFlag('clusters', 500);
  const accounts = intFlag('accounts', 10);
  const i = process.argv.indexOf('--child');
  if (i >= 0) {
    process.send?.(inProcessDigest(clusters, accounts));
    return;
  }
  const workers = intFlag('workers', 4);
  const sharded = !process.argv.includes('--whole');
  // 0: no cap (Node's own limit).
  const heapMiB = intFlag('worker-heap-mib', 1200, process.argv, 0);
  console.log(
    `bench:distributed: ${clusters} clusters in ${accounts} accounts, ${workers} worker processes, ${sharded ? 'sharded analysis (ANALYZE_SHARDS=true)' : 'whole-fleet analysis (ANALYZE_SHARDS=false)'}; ` +
      `load average (1 min) ${loadAvg1m().toFixed(2)}. Measures the ANALYSIS only: the crawl results are written straight into scan_targets, as crawl jobs would.`,
  );
  await withBenchDatabase(async (databaseUrl) => {
    const store = await Store.open({ connectionString: databaseUrl, migrate: true });
    const prefix = `fa-bench-dist-${randomBytes(4).toString('hex')}`;
    const running: Worker[] = [];
    // Stopped by a signal (Ctrl-C, `timeout`): the workers are killed and the Redis keys deleted before
    // `withBenchDatabase` drops the database (cleanups run last-registered first).
    const stopWorkersAndKeys = async () => {
      for (const w of running) w.child.kill('SIGKILL');
      await deletePrefix(prefix);
    };
    const unregister = onBenchSignal(stopWorkersAndKeys);
    try {
      const scanId = randomUUID();
      let config: ScanConfig;
      let targets = 0;
      {
        const t0 = Date.now();
        const fleet = benchFleet(clusters, accounts);
        config = configOf(fleet);
        await store.scans.create({ id: scanId, source: 'distributed', fleetName: config.name, settings: { now: NOW.toISOString() } });
        // Each slice serialised off the heap (a Buffer) while the generated fleet is released account by account,
        // then written one at a time from its Buffer: the writes run with the heap of one slice, as a crawl job's
        // do. Written straight from the 2.4 GiB generated fleet (5,000 clusters), every garbage collection the
        // writes caused marked the whole fleet again: 450 slices a minute, 5,020 slices in over 10 minutes.
        const serialized: (Buffer | undefined)[] = [];
        for (const slice of slicesOf(fleet, { release: true })) serialized.push(serialize(slice));
        for (let i = 0; i < serialized.length; i++) {
          const slice = deserialize(serialized[i]!) as TargetSlice;
          serialized[i] = undefined;
          await store.scanTargets.saveSliceParts(scanId, targetKey(slice.target), slice.target, slicePartsOf(slice));
          targets += 1;
        }
        console.log(`wrote ${targets} target slices (${config.accounts.length} accounts) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      }
      const env = {
        DATABASE_URL: databaseUrl,
        REDIS_URL,
        FLEET_AUDIT_QUEUE_PREFIX: prefix,
        ANALYZE_SHARDS: String(sharded),
        WORKER_ANALYZE_CONCURRENCY: '1',
        SCAN_SCHEDULE: '0 0 0 1 1 *',
        REPORT_SCHEDULE: 'off',
        RETENTION_SCHEDULE: 'off',
        LOG_LEVEL: 'warn',
        // The old-space cap the deployment sets next to the pod's memory limit (`--worker-heap-mib N`, 0: none); the
        // image's 64 MiB semi-spaces are on the worker's command line (startWorkerProcess: NODE_OPTIONS refuses the minimum).
        NODE_OPTIONS: heapMiB > 0 ? `--max-old-space-size=${heapMiB}` : '',
      };
      running.push(...(await Promise.all(Array.from({ length: workers }, () => startWorkerProcess(env)))));
      const queue = new BullScanJobQueue({ redisUrl: REDIS_URL, prefix });
      let wallSeconds: number;
      let findings: Finding[];
      try {
        const t0 = process.hrtime.bigint();
        await queue.addScanFlow({ scanId, config, now: NOW.toISOString() }, []);
        const client = new DistributedScanClient(store, queue);
        const scan = await client.waitFor({ scanId, config }, { timeoutMs: 3_600_000, pollIntervalMs: 100 });
        wallSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
        findings = (await client.outcomeOf(scan)).findings;
      } finally {
        await queue.close();
      }
      const peaks = running.map((w) => Math.round(peakRssMiB(w.child.pid ?? -1)));
      for (const w of running) w.child.kill('SIGTERM');
      await Promise.all(running.map((w) => w.exited));
      running.length = 0;
      const shards = (await store.scanShards.listForScan(scanId)).length;
      const digest = findingsDigest(findings);
      const local = await new Promise<{ digest: string; findings: number }>((resolve, reject) => {
        const child = fork(__filename, ['--child', '--clusters', String(clusters), '--accounts', String(accounts)], { execArgv: ['--max-old-space-size=8192'] });
        child.once('message', (m) => resolve(m as { digest: string; findings: number }));
        child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`in-process child exited with ${code}`))));
      });
      const equal = digest === local.digest && findings.length === local.findings;
      console.log(
        `${sharded ? `${shards} shards` : 'one analyze job'} on ${workers} workers: ${findings.length} findings in ${wallSeconds.toFixed(2)} s wall; ` +
          `peak RSS per worker ${peaks.map((p) => `${p} MiB`).join(', ')}; digest ${digest.slice(0, 16)} ${equal ? '==' : '!='} in-process ${local.digest.slice(0, 16)} (${local.findings} findings)`,
      );
      console.log(JSON.stringify({ clusters, accounts, workers, workerHeapMiB: heapMiB || null, sharded, shards, findings: findings.length, wallSeconds: Math.round(wallSeconds * 100) / 100, peakRssMiB: peaks, digest, inProcessDigest: local.digest, equal }));
      if (!equal) process.exitCode = 1;
    } finally {
      unregister();
      await stopWorkersAndKeys();
      await store.close();
    }
  });
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
