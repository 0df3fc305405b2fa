/**
 * `npm run bench:forecast`: capacity-planning speed, one JSON line at the end.
 * - what-if: a 40-node `addNodes` step on one cluster of the 1M-backend bench fleet (bench/analyze.bench.ts's
 *   generator spec with 22 Services per cluster) vs one analysis (`runAudit`) of the whole fleet, timed in the
 *   same process; `whatIfRatio` = what-if seconds / analysis seconds (goal <= 2). CPU seconds beside wall.
 * - trends: `forecastTrends` over 100,000 series x 60 samples (goal <= 5 s).
 * - convergence: `replayConvergence` of 5,000 changed Services against the simulator's rate limiter (virtual time).
 * - peak RSS of the process.
 */
import { loadavg } from 'node:os';
import { runAudit } from '@app/checks';
import { RateLimiter } from '@app/fleet-sim';
import {
  backtestTrends,
  estimateConvergence,
  forecastTrends,
  generateHistories,
  parseScenario,
  replayConvergence,
  runWhatIf,
  type ServiceChange,
} from '@app/forecast';
import { backendsOf, millionBackendFleet, trendSeries } from './bench-support';

function timed<T>(fn: () => T): { value: T; seconds: number; cpuSeconds: number } {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const value = fn();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(c0);
  return { value, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

function main(): void {
  const now = new Date('2026-11-22T00:00:00Z');
  const snapshot = millionBackendFleet();
  const backends = backendsOf(snapshot);
  global.gc?.();
  const analysis = timed(() => runAudit(snapshot, { now }));
  const cluster = snapshot.accounts[0]!.regions[0]!.clusters[0]!.clusterId;
  const scenario = parseScenario({
    apiVersion: 'fleet-audit/v1',
    kind: 'Scenario',
    name: 'bench-40-nodes',
    steps: [{ addNodes: { cluster, count: 40 } }],
  });
  global.gc?.();
  const whatIf = timed(() => runWhatIf(snapshot, scenario, { now }));
  const step = whatIf.value.steps[0]!;

  // Trends: 100,000 series x 60 samples, 4-hourly scans over 10 days (inside the 14-day window).
  const series = trendSeries(100_000, 60, 7);
  global.gc?.();
  const trends = timed(() => forecastTrends(series, Date.parse('2026-11-22T00:00:00Z')));
  const backtest = backtestTrends(generateHistories(2000, 28, 42));

  const change = (i: number): ServiceChange => ({
    service: `s${i}`,
    createsLoadBalancer: true,
    groupsCreated: 2,
    groupsUpdated: 0,
    listenersCreated: 2,
    backendsAdded: [100, 100],
    backendsRemoved: [0, 0],
    backendsUpdated: [0, 0],
  });
  const changes = Array.from({ length: 5000 }, (_, i) => change(i));
  const limiter = new RateLimiter({ default: 5 });
  const replay = timed(() =>
    replayConvergence(changes, (a, api, t) => limiter.admit(a, api, t), { qps: { default: 5 } }),
  );
  const estimate = estimateConvergence(changes, { qps: { default: 5 } });

  const out = {
    backends,
    analysisSeconds: round(analysis.seconds),
    analysisCpuSeconds: round(analysis.cpuSeconds),
    whatIf40NodesSeconds: round(whatIf.seconds),
    whatIf40NodesCpuSeconds: round(whatIf.cpuSeconds),
    whatIfRatio: round(whatIf.seconds / analysis.seconds),
    whatIfCpuRatio: round(whatIf.cpuSeconds / analysis.cpuSeconds),
    whatIfQuotasChanged: step.quotas.length,
    whatIfFirstBreach: step.firstBreach
      ? `${step.firstBreach.checkId} ${step.firstBreach.resource.id}`
      : null,
    trendSeries: series.length,
    trendSamplesPerSeries: 60,
    trendSeconds: round(trends.seconds),
    trendCpuSeconds: round(trends.cpuSeconds),
    trendStatuses: trends.value.reduce<Record<string, number>>(
      (m, e) => ((m[e.status] = (m[e.status] ?? 0) + 1), m),
      {},
    ),
    backtest: {
      coverage: round(backtest.coverage),
      medianApe: round(backtest.medianApe),
      heldOut: backtest.heldOut,
    },
    convergence5000: {
      replaySeconds: replay.value.wallSeconds,
      estimateP50: estimate.wallSeconds.p50,
      replayCpuSeconds: round(replay.cpuSeconds),
    },
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    loadAvg1m: round(loadavg()[0] ?? 0),
  };
  console.log(JSON.stringify(out));
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

main();
