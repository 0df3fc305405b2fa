/**
 * `npm run bench:crawl`: how close a live crawl comes to the least time its QPS budget allows.
 *
 * A generated fleet (`generateFleet`, seed 1: 20 accounts, 1 region, 200 clusters of 100 nodes,
 * 50 one-port LoadBalancer Services per cluster = 10,000 CLBs) is served by the simulator in a
 * child process (its own core) with the OpenAPI limits of the real cloud's shape: 20 calls/s per
 * account and per API (fixed one-second windows, `Throttling.User` beyond). The scan runs with the
 * default budget `collector.qpsPerAccount` = 20 calls/s per account over all APIs.
 *
 * Lower bound: every OpenAPI call an account needs is drawn from its budget, so no crawl can end
 * before max over accounts of (that account's calls / qpsPerAccount); with `qpsPerApi` budgets the
 * bound would be the max over (account, API) of calls / budget, and there are none here. The calls
 * are the simulator's own counts (`sim.stats()`), Kubernetes calls excluded (they go to the
 * clusters, not the OpenAPI) and STS AssumeRole excluded (signed with the base key, outside the
 * audited accounts' budgets; the simulator books it on the management account).
 *
 * Prints progress lines, then as the LAST line one JSON object:
 * `{"apiCalls", "clbs", "lowerBoundSeconds", "wallSeconds", "ratio"}` (ratio = wall / lower bound;
 * the target is <= 1.15).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  CollectError,
  collectLiveFleet,
  createInMemoryRateLimiter,
  generateFleet,
  generateSpecSchema,
  loadScanConfig,
  rateLimiterOptionsOf,
  type ApiRateLimiter,
  type ScanConfig,
} from '@app/collectors';
import { startSimulator, type SimStats } from '@app/fleet-sim';

/** The benchmark fleet (`generate:` block). */
const SPEC = {
  seed: 1,
  accounts: 20,
  regions: ['cn-hangzhou'],
  clusters: 200,
  nodesPerCluster: 100,
  servicesPerCluster: 50,
};
/** Budget of the scan and limit of the simulator, calls per second per account (per API for the simulator). */
const QPS = 20;

type ToChild = { type: 'stats' } | { type: 'close' };
type FromChild =
  | { type: 'ready'; endpoint: string; configPath: string; accountIds: string[]; generateSeconds: number }
  | { type: 'stats'; stats: SimStats };

/** Child process: generate the fleet and serve it until told to close. */
async function runSimulatorChild(): Promise<void> {
  const t0 = process.hrtime.bigint();
  const { fleet } = generateFleet(generateSpecSchema.parse(SPEC), 'crawl-bench');
  const sim = await startSimulator({ fleet, qps: { default: QPS } });
  const generateSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const send = (m: FromChild) => process.send?.(m);
  process.on('message', (m: ToChild) => {
    if (m.type === 'stats') send({ type: 'stats', stats: sim.stats() });
    else void sim.close().then(() => process.exit(0));
  });
  send({
    type: 'ready',
    endpoint: sim.endpoint,
    configPath: sim.configPath,
    accountIds: sim.accountIds,
    generateSeconds,
  });
}

function nextMessage<T extends FromChild['type']>(
  child: ChildProcess,
  type: T,
): Promise<Extract<FromChild, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: FromChild) => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as Extract<FromChild, { type: T }>);
    };
    const onExit = (code: number | null) => reject(new Error(`the simulator process exited with ${code}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * OpenAPI calls per account that the crawl needs from its budget: the simulator's counts without
 * Kubernetes calls, without AssumeRole, and without the answers that were throttling (those calls
 * are waste, not need; counted by the scanner per account).
 */
function neededCalls(stats: SimStats, throttled: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [account, byApi] of Object.entries(stats.calls)) {
    let n = 0;
    for (const [api, count] of Object.entries(byApi))
      if (!api.startsWith('k8s:') && api !== 'AssumeRole') n += count;
    out.set(account, n - (throttled.get(account) ?? 0));
  }
  return out;
}

async function main(): Promise<void> {
  const child = fork(__filename, ['--sim'], { execArgv: ['--max-old-space-size=6144'], stdio: 'inherit' });
  try {
    const ready = await nextMessage(child, 'ready');
    console.log(
      `simulator up at ${ready.endpoint}: ${ready.accountIds.length} accounts, fleet generated and indexed in ${ready.generateSeconds.toFixed(1)} s`,
    );
    const loaded = loadScanConfig(ready.configPath);
    const config: ScanConfig = {
      ...loaded,
      collector: { ...loaded.collector, qpsPerAccount: QPS, qpsPerApi: {} },
    };
    // The default limiter, wrapped to record when each account's calls start (for the idle-time line).
    const inner = createInMemoryRateLimiter(rateLimiterOptionsOf(config.collector));
    const starts = new Map<string, number[]>();
    const latencies: number[] = [];
    /** Throttled answers per account, as the scanner saw them (the simulator counts them as calls). */
    const throttledOf = new Map<string, number>();
    const rateLimiter: ApiRateLimiter = {
      schedule: (accountId, api, fn) =>
        inner.schedule(accountId, api, async () => {
          let list = starts.get(accountId);
          if (!list) starts.set(accountId, (list = []));
          const s0 = Date.now();
          list.push(s0);
          try {
            return await fn();
          } catch (e) {
            if (e instanceof CollectError && e.errorCode.startsWith('Throttling'))
              throttledOf.set(accountId, (throttledOf.get(accountId) ?? 0) + 1);
            throw e;
          } finally {
            latencies.push(Date.now() - s0);
          }
        }),
    };
    let last = 0;
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    let cpu = process.cpuUsage();
    const t0 = Date.now();
    const wire = await collectLiveFleet(config, {
      rateLimiter,
      onProgress: (e) => {
        const now = Date.now();
        if (now - last < 5000) return;
        const used = process.cpuUsage(cpu);
        cpu = process.cpuUsage();
        console.log(
          `[${((now - t0) / 1000).toFixed(1)} s] ${e.done}/${e.total} datasets read; scanner CPU ${(((used.user + used.system) / 1e3 / (now - (last || t0))) * 100).toFixed(0)}%, event-loop delay p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms`,
        );
        last = now;
        lag.reset();
      },
    });
    const wallSeconds = (Date.now() - t0) / 1000;
    await inner.close();
    child.send({ type: 'stats' } satisfies ToChild);
    const { stats } = await nextMessage(child, 'stats');

    const perAccount = neededCalls(stats, throttledOf);
    const lowerBoundSeconds = Math.max(...[...perAccount.values()].map((n) => n / QPS));
    const apiCalls = Object.values(stats.calls).reduce(
      (sum, byApi) =>
        sum + Object.entries(byApi).reduce((s, [api, n]) => s + (api.startsWith('k8s:') ? 0 : n), 0),
      0,
    );
    const k8sCalls = Object.values(stats.calls).reduce(
      (sum, byApi) =>
        sum + Object.entries(byApi).reduce((s, [api, n]) => s + (api.startsWith('k8s:') ? n : 0), 0),
      0,
    );
    const clbs = wire.accounts.reduce(
      (n, a) => n + a.regions.reduce((m, r) => m + (r.loadBalancers?.length ?? 0), 0),
      0,
    );
    const failed = wire.coverage.filter((c) => c.status === 'failed');
    const busiest = [...perAccount.entries()].sort((a, b) => b[1] - a[1])[0];
    console.log(
      `scan done in ${wallSeconds.toFixed(1)} s: ${wire.coverage.length} datasets (${failed.length} failed), ${clbs} CLBs, ` +
        `${apiCalls} OpenAPI calls + ${k8sCalls} Kubernetes calls, ${stats.throttled} throttled`,
    );
    console.log(
      `busiest account ${busiest?.[0]}: ${busiest?.[1]} calls needed at ${QPS}/s (${throttledOf.get(busiest?.[0] ?? '') ?? 0} more were throttled); ` +
        `peak observed ${Math.max(...Object.values(stats.maxObservedQps))} calls in one second for one account (the management account also gets the AssumeRole calls)`,
    );
    if (failed.length > 0) {
      const byCode = new Map<string, number>();
      for (const f of failed)
        byCode.set(`${f.api} ${f.errorCode ?? ''}`, (byCode.get(`${f.api} ${f.errorCode ?? ''}`) ?? 0) + 1);
      console.log(
        `failed datasets: ${[...byCode.entries()].map(([k, n]) => `${k} x${n}`).join(', ')}; e.g. ${failed[0]?.message ?? ''}`,
      );
    }
    const hot = Object.entries(stats.maxObservedQpsByAction)
      .flatMap(([account, byApi]) => Object.entries(byApi).map(([api, n]) => ({ account, api, n })))
      .filter((x) => x.n > QPS);
    if (hot.length > 0)
      console.log(
        `per-API windows over ${QPS}: ${hot.map((x) => `${x.account}/${x.api}=${x.n}`).join(', ')}`,
      );
    if (busiest) {
      const t = starts.get(busiest[0]) ?? [];
      // BENCH_TRACE=file: the busiest account's call starts per second of the scan, for analysis.
      if (process.env['BENCH_TRACE']) {
        const perSecond: number[] = [];
        for (const x of t) {
          const i = Math.floor((x - t0) / 1000);
          perSecond[i] = (perSecond[i] ?? 0) + 1;
        }
        writeFileSync(process.env['BENCH_TRACE'], JSON.stringify(Array.from(perSecond, (n) => n ?? 0)));
      }
      const span = ((t.at(-1) ?? t0) - (t[0] ?? t0)) / 1000;
      console.log(
        `busiest account's paced calls: ${t.length}, first at ${(((t[0] ?? t0) - t0) / 1000).toFixed(1)} s, last at ${(((t.at(-1) ?? t0) - t0) / 1000).toFixed(1)} s: ` +
          `${(t.length / Math.max(span, 0.001)).toFixed(2)} calls/s of a ${QPS}/s budget`,
      );
    }
    latencies.sort((a, b) => a - b);
    const pct = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
    console.log(
      `OpenAPI call latency: p50 ${pct(0.5)} ms, p90 ${pct(0.9)} ms, p99 ${pct(0.99)} ms, max ${pct(1)} ms`,
    );
    const ratio = wallSeconds / lowerBoundSeconds;
    console.log(
      JSON.stringify({
        apiCalls,
        clbs,
        lowerBoundSeconds: Number(lowerBoundSeconds.toFixed(2)),
        wallSeconds: Number(wallSeconds.toFixed(2)),
        ratio: Number(ratio.toFixed(3)),
      }),
    );
  } finally {
    child.send({ type: 'close' } satisfies ToChild);
  }
}

if (process.argv.includes('--sim')) void runSimulatorChild();
else
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
