/**
 * Helpers of the distributed-scan suites: a generated multi-account fleet served by the simulator,
 * unique Redis prefixes (the shared Redis on 6379 is never flushed, only our prefix's keys are
 * deleted), worker processes, and comparisons. Private redis-server / PostgreSQL servers come from
 * the shared starter bench/chaos/private-servers.ts (re-exported here).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { runScan, type ScanSummary } from '@app/audit';
import { generateFleet, loadScanConfig, type ScanConfig } from '@app/collectors';
import type { CoverageEntry, Finding, SkippedResult, WireFleet } from '@app/domain';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '@app/fleet-sim';
import { startWorker, type RunningWorker, type WorkerOptions } from '@app/worker';

/** Private redis-server / PostgreSQL starters: one implementation, shared with `npm run chaos`. */
export { startPrivateRedis, startPrivatePostgres, type PrivateRedis, type PrivatePostgres } from '../../bench/chaos/private-servers';

/** The shared Redis of the machine (never flushed: tests use a unique prefix each). */
export const SHARED_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Repository root. */
export const ROOT = join(__dirname, '..', '..');

/** A unique Redis key prefix for one test. */
export function uniquePrefix(label: string): string {
  return `test-${label}-${randomBytes(4).toString('hex')}`;
}

/**
 * Delete every key of a prefix: BullMQ's and the API budgets' (`<prefix>:*`) and Bottleneck's (`b_<prefix>:*`, from
 * libs/collectors' Bottleneck limiter with a Redis datastore).
 * Best effort (the Redis may be gone in restart tests).
 */
export async function deletePrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    for (const pattern of [`${prefix}:*`, `b_${prefix}:*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
    }
  } catch {
    // gone already
  } finally {
    redis.disconnect();
  }
}

/** A simulated fleet and its scan config. */
export interface TestFleet {
  sim: RunningSimulator;
  config: ScanConfig;
  /** The fleet the simulator serves (its account.yaml objects are the simulator's: a change applies at once). */
  fleet: WireFleet;
  close(): Promise<void>;
}

/**
 * Generate a multi-account fleet, serve it, and load the simulator's scan config with the given
 * collector settings (budgets, fast retries).
 */
export async function startTestFleet(
  spec: {
    seed: number;
    accounts: number;
    regions: string[];
    clusters: number;
    nodesPerCluster?: number;
    servicesPerCluster?: number;
  },
  collector: Partial<ScanConfig['collector']> = {},
  sim: Omit<SimulatorOptions, 'fleet'> = {},
): Promise<TestFleet> {
  const { fleet } = generateFleet({
    seed: spec.seed,
    accounts: spec.accounts,
    regions: spec.regions,
    clusters: spec.clusters,
    nodesPerCluster: spec.nodesPerCluster ?? 4,
    servicesPerCluster: spec.servicesPerCluster ?? 3,
    podsPerService: 2,
    trafficPolicy: { cluster: 0.5, local: 0.3, eni: 0.2 },
    ccmVersions: ['v2.12.3', 'v2.10.0', 'v1.9.3.313-g748f81e-aliyun'],
    shares: { orphaned: 0.2, reused: 0.2, misconfigured: 0.2, consoleReused: 0.1 },
  });
  const running = await startSimulator({ fleet, ...sim });
  const base = loadScanConfig(running.configPath);
  const config: ScanConfig = {
    ...base,
    // Short timeouts: the simulator answers at once; they also bound how long a killed worker's
    // API-budget slots stay taken (RedisRateLimiterPool: connect + read timeout + 5 s).
    alibabaCloud: { ...base.alibabaCloud, connectTimeoutMs: 1_000, readTimeoutMs: 4_000 },
    collector: { ...base.collector, retryBaseDelayMs: 10, retryMaxDelayMs: 200, ...collector },
  };
  return { sim: running, config, fleet, close: () => running.close() };
}

/** A local (in-process) scan of the same config: the reference the distributed scans must equal. */
export async function localScan(
  config: ScanConfig,
  now: Date,
): Promise<{ findings: Finding[]; coverage: CoverageEntry[]; summary: ScanSummary; skipped: SkippedResult[] }> {
  const outcome = await runScan({ source: { kind: 'live', config }, now });
  return {
    findings: outcome.findings,
    coverage: outcome.scan.coverage,
    summary: outcome.scan.summary,
    skipped: outcome.scan.skipped,
  };
}

/** The findings of a local scan. */
export async function localFindings(config: ScanConfig, now: Date): Promise<Finding[]> {
  return (await localScan(config, now)).findings;
}

/**
 * Start `n` in-process workers (each with its own Redis and PostgreSQL connections) on `prefix`, quiet, without
 * schedule or reconciler, knowing `config` by name (the simulator's config has a literal AccessKey: jobs name
 * the config, the workers take the key from their own copy, libs/queue queued-credentials.ts).
 * @param options overrides of the defaults
 */
export function startInProcessWorkers(
  n: number,
  base: { databaseUrl: string; prefix: string; config: ScanConfig },
  options: Partial<WorkerOptions> = {},
): Promise<RunningWorker[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      startWorker({
        databaseUrl: base.databaseUrl,
        redisUrl: SHARED_REDIS_URL,
        prefix: base.prefix,
        concurrency: { crawl: 3 },
        schedule: false,
        reconcile: false,
        logger: false,
        shutdownGraceMs: 1_000,
        name: `${base.prefix}-w${i}`,
        sources: [{ name: base.config.name, config: base.config }],
        ...options,
      }),
    ),
  );
}

/** Sorted fingerprints of findings. */
export function fingerprintsOf(findings: readonly Finding[]): string[] {
  return findings.map((f) => f.fingerprint).sort();
}

/**
 * The URL `fleet-audit serve` announced on its listening line (`API on http://HOST:PORT`), with the port it bound:
 * the tests start it with `--port 0`, as a port found free and closed again can be taken by another
 * process before the child binds it.
 * @returns undefined until the line is in `stderr`
 */
export function listeningUrl(stderr: string): string | undefined {
  return /API on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1];
}

/**
 * Output root of the suite's CLI build (`dist-test/apps/cli`, built once by test/global-setup.ts; it compiles every
 * app and lib, the worker's files included). A test never builds.
 */
export const WORKER_DIST = suiteBuildRoot();
/** Entry of the built worker app. */
export const WORKER_MAIN = join(WORKER_DIST, 'apps', 'worker', 'src', 'main.js');

/**
 * The root of the suite's CLI build (`FLEET_AUDIT_DIST`, set by test/global-setup.ts).
 * @throws Error when the global setup did not run (a file run outside vitest's integration project)
 */
export function suiteBuildRoot(): string {
  const root = process.env.FLEET_AUDIT_DIST;
  if (!root) throw new Error('FLEET_AUDIT_DIST is not set: run this file through vitest (test/global-setup.ts builds the CLI)');
  return root;
}

/**
 * Check the built worker app is there (test/global-setup.ts built it) so worker processes run the current code.
 * @throws Error naming the missing entry
 */
export function requireWorkerBuild(): void {
  if (!existsSync(WORKER_MAIN)) throw new Error(`the built worker is missing (${WORKER_MAIN}); test/global-setup.ts builds it`);
}

/** A worker process. */
export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** Output so far (stdout + stderr), for failure messages. */
  output(): string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
}

/** Start `node dist/.../worker/main.js` with the given environment and wait for its ready line. */
export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [WORKER_MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  await new Promise<void>((resolve, reject) => {
    // Generous: on a loaded machine a Nest worker takes tens of seconds to boot.
    const timer = setTimeout(() => reject(new Error(`worker did not get ready: ${out}`)), 180_000);
    const onData = () => {
      if (out.includes('"worker":"ready"')) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}) before ready: ${out}`));
    });
  }).catch((e: unknown) => {
    child.kill('SIGKILL');
    throw e;
  });
  return { child, pid: child.pid ?? -1, output: () => out, exited };
}

/** Poll `fn` until it returns a truthy value (or time out). */
export async function eventually<T>(
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Coverage without its messages (they carry per-request ids): target, dataset, status, code. */
export function coverageShape(coverage: readonly CoverageEntry[]): string[] {
  return coverage
    .map((c) =>
      [c.accountId, c.regionId ?? '', c.clusterId ?? '', c.api, c.status, c.errorCode ?? ''].join('|'),
    )
    .sort();
}

/**
 * Compare a scan that survived a crash or a Redis restart with the local scan: either the same
 * coverage and findings, or extra `failed` coverage entries (an explicit gap, each with a message)
 * and no finding the local scan does not have.
 * @returns how many extra gaps there were
 */
export function expectSameOrExplicitGap(
  actual: { findings: readonly Finding[]; coverage: readonly CoverageEntry[] },
  local: { findings: readonly Finding[]; coverage: readonly CoverageEntry[] },
  expectFn: (value: unknown, message?: string) => { toEqual(v: unknown): void; toBe(v: unknown): void },
): number {
  const localShape = new Set(coverageShape(local.coverage));
  const extra = actual.coverage.filter(
    (c) => c.status === 'failed' && !localShape.has(coverageShape([c])[0]),
  );
  if (extra.length === 0) {
    expectFn(coverageShape(actual.coverage)).toEqual(coverageShape(local.coverage));
    expectFn(actual.findings).toEqual(local.findings);
  } else {
    for (const g of extra)
      expectFn((g.message ?? '').length > 0, `gap ${coverageShape([g])[0]} names its cause`).toBe(true);
    const known = new Set(local.findings.map((f) => f.fingerprint));
    for (const f of actual.findings)
      expectFn(known.has(f.fingerprint), `finding ${f.fingerprint} is one of the local scan's`).toBe(true);
  }
  return extra.length;
}
