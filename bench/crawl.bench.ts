/**
 * `npm run bench:crawl`: how close a live crawl comes to the least time its QPS budget allows.
 *
 * A generated fleet (`generateFleet`, seed 1: 20 accounts, 1 region, 200 clusters of 100 nodes,
 * 38 one-port CLB Services per cluster = 7,600 CLBs, and 19 one-port NLB Services on each of the 134
 * clusters whose CCM has the NLB controller (v2.12.3 and v2.10.0; v1.9.3 has none) = 2,546 NLBs, a
 * quarter of the 10,146 LoadBalancer Services, with 2 leaked NLB server groups per such cluster) is
 * served by the simulator in a child process (its own core) with the OpenAPI limits of the real
 * cloud's shape: 20 calls/s per account and per API, the NLB APIs included (research/nlb.md 5: 20/s
 * for the NLB reads; fixed one-second windows, `Throttling.User` beyond). The scan runs with the
 * default budget `collector.qpsPerAccount` = 20 calls/s per account over all APIs, NLB ones included.
 *
 * Flags: `--clusters N` (default 200; accounts = min(20, N)) runs the same shape on N clusters, for a
 * quick check; `--clb-only` generates the fleet of the figures taken before NLB support (50 CLB
 * Services per cluster, no NLB).
 *
 * Lower bound: every OpenAPI call an account needs is drawn from its budget, so no crawl can end
 * before the max of: over accounts, (that account's calls on the shared budget / qpsPerAccount);
 * over (account, API in `qpsPerApi`), (calls / that API's budget); and over (account, API), (calls /
 * the simulator's per-API limit), since no API can be answered faster than its own limit (the NLB
 * APIs among them). With the bench's budgets (no `qpsPerApi`, per-API limit = shared budget) the first
 * term decides, and it counts the NLB calls. The calls are the simulator's own counts
 * (`sim.stats()`), Kubernetes calls excluded (they go to the clusters, not the OpenAPI), STS
 * AssumeRole excluded (signed with the base key, outside the audited accounts' budgets; the
 * simulator books it on the management account), and throttled answers excluded (waste, not need).
 *
 * Prints progress lines, the NLB figures (NLBs, server groups, servers, NLB calls per API and the
 * busiest account's least NLB time), then as the LAST line one JSON object:
 * `{"apiCalls", "clbs", "nlbs", "nlbServerGroups", "nlbServers", "nlbApiCalls": {api: n},
 * "lowerBoundSeconds", "wallSeconds", "ratio"}` (ratio = wall / lower bound; the target is <= 1.15).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  COLLECTOR_CALLS,
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
import { intFlag } from './bench-support';

/** Clusters of the benchmark fleet (`--clusters N`, default 200). */
const CLUSTERS = intFlag('clusters', 200);
/** `--clb-only`: the fleet without NLB Services. */
const CLB_ONLY = process.argv.includes('--clb-only');
/** NLB Services per cluster whose CCM has the NLB controller (unless `--clb-only`). */
const NLB_SERVICES_PER_CLUSTER = 19;
/** The benchmark fleet (`generate:` block). */
const SPEC = {
  seed: 1,
  accounts: Math.min(20, CLUSTERS),
  regions: ['cn-hangzhou'],
  clusters: CLUSTERS,
  nodesPerCluster: 100,
  ...(CLB_ONLY
    ? { servicesPerCluster: 50 }
    : {
        servicesPerCluster: 38,
        nlbServicesPerCluster: NLB_SERVICES_PER_CLUSTER,
        shares: { nlbLeakedServerGroups: 0.1 },
      }),
};
/** Budget of the scan and limit of the simulator, calls per second per account (per API for the simulator). */
const QPS = 20;
/** The NLB 2022-04-30 actions the crawl calls (Quota Center's ListProductQuotas is shared with SLB). */
const NLB_APIS: readonly string[] = COLLECTOR_CALLS.filter((c) => c.service === 'nlb').map((c) => c.action);

/** The budgets the lower bound divides by, calls per second. */
interface Budgets {
  /** Shared budget per account over every API without its own budget. */
  qpsPerAccount: number;
  /** APIs with their own budget per account. */
  qpsPerApi: Readonly<Record<string, number>>;
  /** The simulator's limit per account and API. */
  simQpsPerApi: number;
}

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
 * OpenAPI calls per account and API that the crawl needs: the simulator's counts without Kubernetes
 * calls, without AssumeRole, and without the answers that were throttling (those calls are waste,
 * not need; counted by the scanner per account and API, keyed `account API`).
 */
function neededCalls(
  stats: SimStats,
  throttled: ReadonlyMap<string, number>,
): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const [account, byApi] of Object.entries(stats.calls)) {
    const mine = new Map<string, number>();
    for (const [api, count] of Object.entries(byApi))
      if (!api.startsWith('k8s:') && api !== 'AssumeRole')
        mine.set(api, count - (throttled.get(`${account} ${api}`) ?? 0));
    out.set(account, mine);
  }
  return out;
}

/** One term of the lower bound: who and which budget it is, and its seconds. */
interface BoundTerm {
  account: string;
  /** `shared` for the account's shared budget, else the API. */
  budget: string;
  calls: number;
  seconds: number;
}

/**
 * The least time the crawl can take (see the module comment): the largest of the shared-budget terms per
 * account, the `qpsPerApi` terms per (account, API) and the simulator's per-API terms per (account, API).
 * @returns every term, largest first (the first one is the bound); empty when no call was needed
 */
function lowerBoundTerms(needed: ReadonlyMap<string, ReadonlyMap<string, number>>, b: Budgets): BoundTerm[] {
  const terms: BoundTerm[] = [];
  for (const [account, byApi] of needed) {
    let shared = 0;
    for (const [api, calls] of byApi) {
      const own = b.qpsPerApi[api];
      if (own === undefined) shared += calls;
      else terms.push({ account, budget: api, calls, seconds: calls / own });
      terms.push({ account, budget: `${api} (simulator limit)`, calls, seconds: calls / b.simQpsPerApi });
    }
    terms.push({ account, budget: 'shared', calls: shared, seconds: shared / b.qpsPerAccount });
  }
  return terms.sort((x, y) => y.seconds - x.seconds);
}

async function main(): Promise<void> {
  const child = fork(__filename, ['--sim', ...process.argv.slice(2).filter((a) => a !== '--sim')], {
    execArgv: ['--max-old-space-size=6144'],
    stdio: 'inherit',
  });
  try {
    const ready = await nextMessage(child, 'ready');
    console.log(
      `simulator up at ${ready.endpoint}: ${ready.accountIds.length} accounts, fleet generated and indexed in ${ready.generateSeconds.toFixed(1)} s`,
    );
    console.log(
      `fleet: ${SPEC.clusters} clusters of ${SPEC.nodesPerCluster} nodes, ${SPEC.servicesPerCluster} CLB Services per cluster` +
        (CLB_ONLY
          ? ', no NLB'
          : `, ${NLB_SERVICES_PER_CLUSTER} NLB Services per cluster whose CCM has the NLB controller`),
    );
    const loaded = loadScanConfig(ready.configPath);
    const budgets: Budgets = { qpsPerAccount: QPS, qpsPerApi: {}, simQpsPerApi: QPS };
    const config: ScanConfig = {
      ...loaded,
      collector: { ...loaded.collector, qpsPerAccount: budgets.qpsPerAccount, qpsPerApi: budgets.qpsPerApi },
    };
    // The default limiter, wrapped to record when each account's calls start (for the idle-time line).
    const inner = createInMemoryRateLimiter(rateLimiterOptionsOf(config.collector));
    const starts = new Map<string, number[]>();
    const latencies: number[] = [];
    /**
     * Throttled answers per account and per `account API`, as the scanner saw them (the simulator counts them as
     * calls).
     */
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
            if (e instanceof CollectError && e.errorCode.startsWith('Throttling')) {
              throttledOf.set(accountId, (throttledOf.get(accountId) ?? 0) + 1);
              const key = `${accountId} ${api}`;
              throttledOf.set(key, (throttledOf.get(key) ?? 0) + 1);
            }
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

    const needed = neededCalls(stats, throttledOf);
    const perAccount = new Map(
      [...needed].map(([a, byApi]) => [a, [...byApi.values()].reduce((x, y) => x + y, 0)]),
    );
    const terms = lowerBoundTerms(needed, budgets);
    const lowerBoundSeconds = terms[0]?.seconds ?? 0;
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
    const nlbs = wire.accounts.reduce(
      (n, a) => n + a.regions.reduce((m, r) => m + (r.nlb?.loadBalancers.length ?? 0), 0),
      0,
    );
    const nlbGroups = wire.accounts.flatMap((a) => a.regions.flatMap((r) => r.nlb?.serverGroups ?? []));
    const nlbServers = wire.accounts.reduce(
      (n, a) => n + a.regions.reduce((m, r) => m + (r.nlb?.servers.length ?? 0), 0),
      0,
    );
    const nlbApiCalls: Record<string, number> = {};
    for (const api of NLB_APIS)
      nlbApiCalls[api] = Object.values(stats.calls).reduce((n, byApi) => n + (byApi[api] ?? 0), 0);
    const failed = wire.coverage.filter((c) => c.status === 'failed');
    const busiest = [...perAccount.entries()].sort((a, b) => b[1] - a[1])[0];
    console.log(
      `scan done in ${wallSeconds.toFixed(1)} s: ${wire.coverage.length} datasets (${failed.length} failed), ${clbs} CLBs, ` +
        `${apiCalls} OpenAPI calls + ${k8sCalls} Kubernetes calls, ${stats.throttled} throttled`,
    );
    console.log(
      `NLB: ${nlbs} NLBs, ${nlbGroups.length} server groups (${nlbGroups.filter((g) => (g.RelatedLoadBalancerIds ?? []).length === 0).length} used by no NLB), ${nlbServers} servers; ` +
        `calls ${NLB_APIS.map((api) => `${api} ${nlbApiCalls[api]}`).join(', ')} (${Object.values(nlbApiCalls).reduce((x, y) => x + y, 0)} of ${apiCalls})`,
    );
    if (busiest) {
      const mine = needed.get(busiest[0]) ?? new Map<string, number>();
      const nlbCalls = NLB_APIS.reduce((n, api) => n + (mine.get(api) ?? 0), 0);
      const top = NLB_APIS.map((api) => ({ api, n: mine.get(api) ?? 0 })).sort((x, y) => y.n - x.n)[0];
      console.log(
        `lower bound ${lowerBoundSeconds.toFixed(2)} s from ${terms[0]?.account} / ${terms[0]?.budget} (${terms[0]?.calls} calls); ` +
          `busiest account's NLB calls ${nlbCalls} = ${(nlbCalls / QPS).toFixed(2)} s of its shared budget, ` +
          `its busiest NLB API ${top?.api} ${top?.n} calls = ${((top?.n ?? 0) / QPS).toFixed(2)} s at the ${QPS}/s per-API limit`,
      );
    }
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
        nlbs,
        nlbServerGroups: nlbGroups.length,
        nlbServers,
        nlbApiCalls,
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
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
