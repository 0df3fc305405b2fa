/**
 * The distributed part of `npm run chaos`: faults against the worker fleet, on a
 * private redis-server and the chaos run's private PostgreSQL (bench/chaos/private-servers.ts),
 * with the simulator serving a generated multi-account fleet.
 *
 * 1. Redis restarts empty mid-scan (`redis-cli shutdown nosave`, then start): the waiting client
 *    and the workers' reconciler plan the scan again; it must end.
 * 2. A worker process (`fleet-audit worker`, built CLI) is SIGKILLed mid-scan: its job locks
 *    expire and an in-process worker retakes them; the scan must end.
 * 3. Every Redis key (every type) is then searched for the simulator's AccessKey secret and id.
 *
 * Each phase reports how its scan ended; the caller counts faults, endings and secrets.
 */
import { spawn } from 'node:child_process';
import type { ScanConfig } from '@app/collectors';
import { generateFleet, loadScanConfig } from '@app/collectors';
import { startSimulator } from '@app/fleet-sim';
import { BullScanJobQueue, DistributedScanClient } from '@app/queue';
import type { Store } from '@app/store';
import { startWorker, type RunningWorker } from '@app/worker';
import { startPrivateRedis } from './private-servers';
import { scanRedisForSecrets } from './redis-secrets';

/** What the distributed phases did. */
export interface DistributedChaosResult {
  scansRun: number;
  faultsInjected: number;
  /** How each scan ended: `succeeded`, `failed`, or `wait:<reason>` when it did not end in time. */
  endings: Record<string, number>;
  /** Keys read by the secret search, by Redis type. */
  redisKeysByType: Record<string, number>;
  /** Keys holding the AccessKey secret or id (0 expected). */
  redisSecretHits: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Run the distributed phases.
 * @param store the chaos run's store (its private PostgreSQL)
 * @param databaseUrl that PostgreSQL's URL (for the worker process)
 * @param cli path of `bin/fleet-audit.js` (built)
 * @param phase progress lines on stderr
 */
export async function distributedChaos(
  store: Store,
  databaseUrl: string,
  cli: string,
  phase: (name: string) => void,
): Promise<DistributedChaosResult> {
  const endings: Record<string, number> = {};
  const end = (k: string) => (endings[k] = (endings[k] ?? 0) + 1);
  let faults = 0;
  let scansRun = 0;
  const { fleet } = generateFleet({
    seed: 41,
    accounts: 2,
    regions: ['cn-hangzhou', 'cn-shanghai'],
    clusters: 6,
    nodesPerCluster: 4,
    servicesPerCluster: 3,
    podsPerService: 2,
    trafficPolicy: { cluster: 0.5, local: 0.3, eni: 0.2 },
    ccmVersions: ['v2.12.3', 'v2.10.0'],
    shares: { orphaned: 0.2, reused: 0.2, misconfigured: 0.2, consoleReused: 0.1 },
  });
  const sim = await startSimulator({ fleet });
  const redis = await startPrivateRedis();
  const workers: RunningWorker[] = [];
  const base = loadScanConfig(sim.configPath);
  // A low budget makes each scan last several seconds, so the faults land mid-scan.
  const config: ScanConfig = {
    ...base,
    alibabaCloud: { ...base.alibabaCloud, connectTimeoutMs: 1_000, readTimeoutMs: 4_000 },
    collector: { ...base.collector, qpsPerAccount: 6, maxConcurrentPerAccount: 3, retryBaseDelayMs: 10, retryMaxDelayMs: 200 },
  };
  const secrets = [config.credentials?.accessKeySecret ?? '', config.credentials?.accessKeyId ?? ''];
  const queue = new BullScanJobQueue({ redisUrl: redis.url });
  const client = new DistributedScanClient(store, queue);
  const inProcessWorker = async (name: string) => {
    const w = await startWorker({
      databaseUrl,
      redisUrl: redis.url,
      concurrency: { crawl: 3 },
      lockDurationMs: 2_000,
      stalledIntervalMs: 1_000,
      schedule: false,
      // Knows the config by name: resolves the jobs' credentials reference, re-plans lost scans.
      sources: [{ name: config.name, config }],
      reconcile: { intervalMs: 1_000, graceMs: 1_000, failLostAfterMs: 60_000 },
      logger: false,
      shutdownGraceMs: 1_000,
      name,
    });
    workers.push(w);
    return w;
  };
  const halfDone = async (scanId: string) => {
    for (let i = 0; i < 600; i++) {
      const p = await store.scanTargets.progress(scanId);
      if (p.done >= 2 && p.pending > 0) return;
      await sleep(100);
    }
  };
  const finish = async (payload: Awaited<ReturnType<DistributedScanClient['submit']>>) => {
    try {
      end((await client.waitFor(payload, { timeoutMs: 180_000, pollIntervalMs: 250 })).status);
    } catch (e) {
      end(`wait:${e instanceof Error ? e.name : 'error'}`);
    }
  };
  try {
    phase('Redis restart mid distributed scan');
    await inProcessWorker('chaos-w1');
    await inProcessWorker('chaos-w2');
    const first = await client.submit({ config });
    scansRun += 1;
    await halfDone(first.scanId);
    redis.shutdownNoSave();
    await sleep(1_000);
    await redis.start();
    faults += 1;
    await finish(first);

    phase('SIGKILL worker mid distributed scan');
    await Promise.all(workers.splice(0).map((w) => w.close()));
    let out = '';
    const victim = spawn(process.execPath, [cli, 'worker'], {
      env: {
        PATH: process.env.PATH ?? '',
        REDIS_URL: redis.url,
        DATABASE_URL: databaseUrl,
        SCAN_CONFIGS: sim.configPath,
        SCAN_SCHEDULE: '0 0 0 1 1 *',
        REPORT_SCHEDULE: 'off',
        WORKER_CONCURRENCY: '3',
        WORKER_LOCK_DURATION_MS: '2000',
        WORKER_STALLED_INTERVAL_MS: '1000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    victim.stdout.on('data', (d: Buffer) => (out += d.toString()));
    victim.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const victimExit = new Promise((r) => victim.once('exit', r));
    for (let i = 0; i < 1200 && !out.includes('ready') && victim.exitCode === null; i++) await sleep(100);
    if (!out.includes('ready')) throw new Error(`fleet-audit worker did not start: ${out.trim().slice(-500)}`);
    const second = await client.submit({ config });
    scansRun += 1;
    await halfDone(second.scanId);
    victim.kill('SIGKILL');
    await victimExit;
    faults += 1;
    await inProcessWorker('chaos-survivor');
    await finish(second);

    phase('secrets in Redis');
    const found = await scanRedisForSecrets(redis.url, ['*'], secrets);
    return { scansRun, faultsInjected: faults, endings, redisKeysByType: found.keysByType, redisSecretHits: found.hits.length };
  } finally {
    await Promise.all(workers.map((w) => w.close().catch(() => undefined)));
    await queue.close().catch(() => undefined);
    await redis.stop();
    await sim.close();
  }
}
