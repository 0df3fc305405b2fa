/**
 * `npm run bench:forecast-pool [-- --runs N]`: latency of a small what-if through the API's ForecastPool, cold
 * against warm, on the bundled sample fleet (one `addNodes` step of 10 nodes in cluster
 * c1e64668d4e11407d7227bc187533f952, the what-if of bench:whatif-size at its smallest).
 * - `inProcess`: `runWhatIf` on the calling thread (the computation alone), median of N after a warm-up;
 * - `cold`: a fresh pool per what-if (`idleTimeoutMs: 0`, closed after it), so each one starts a thread and loads
 *   the forecast code, as every what-if did when each ran in a worker of its own: median, min, max of N;
 * - `warm`: one pool, N what-ifs one after the other on its one warm thread (the pool's default idle timeout keeps
 *   it): the first (cold) and the median, min, max of the rest; the run fails (exit 1) unless all ran on one thread
 *   (`ForecastPool.stats.threadsStarted` = 1);
 * - the CPU time of the whole process per what-if (`process.cpuUsage`, every thread), cold and warm;
 * - the process's RSS with no pool thread, with the warm thread idle after the small what-ifs, with it idle after
 *   the largest accepted step (addNodes 5,000: the heap a warm thread holds until its idle timeout), and after close.
 * Prints one line per phase and, last, one JSON object
 * `{"bench":"forecast-pool","runs":N,"whatIfMs":{...},"cpuMsPerWhatIf":{...},"rssMiB":{...},"loadAvg1m":x}`.
 * Run it alone: the figures are wall times.
 */
import { ForecastPool } from '@app/audit';
import { loadFleetDirectory } from '@app/collectors';
import type { FleetSnapshot } from '@app/domain';
import { MAX_ADD_NODES, parseScenario, runWhatIf, type Scenario } from '@app/forecast';
import { intFlag, loadAvg1m, median, round2 } from './bench-support';
import { sampleFleetDir } from '../apps/cli/src/package-root.util';

const CLUSTER = 'c1e64668d4e11407d7227bc187533f952';
const NOW = new Date('2026-11-20T00:00:00Z');

/** One addNodes step of `count` nodes, through the scenario schema as the API parses it. */
function addNodes(count: number): Scenario {
  return parseScenario({ apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: `add-${count}`, steps: [{ addNodes: { cluster: CLUSTER, count } }] });
}

/** Wall ms of `fn`, and the process's CPU ms (all threads) meanwhile. */
async function timed(fn: () => Promise<unknown>): Promise<{ ms: number; cpuMs: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** min / median / max of a list of ms, rounded to 2 decimals. */
function spread(xs: number[]): { min: number; median: number; max: number } {
  return { min: round2(Math.min(...xs)), median: round2(median(xs)), max: round2(Math.max(...xs)) };
}

const rssMiB = () => round2(process.memoryUsage().rss / 2 ** 20);

async function main(): Promise<number> {
  const runs = intFlag('runs', 20);
  const snapshot: FleetSnapshot = loadFleetDirectory(sampleFleetDir());
  const small = addNodes(10);
  const options = { now: NOW };

  runWhatIf(snapshot, small, options); // warm-up (JIT)
  const inProcess: number[] = [];
  for (let i = 0; i < runs; i++) inProcess.push((await timed(async () => runWhatIf(snapshot, small, options))).ms);
  console.log(`in-process: median ${median(inProcess).toFixed(1)} ms`);

  const cold: number[] = [];
  const coldCpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const pool = new ForecastPool({ idleTimeoutMs: 0 });
    const t = await timed(() => pool.whatIf(snapshot, small, options));
    await pool.close();
    cold.push(t.ms);
    coldCpu.push(t.cpuMs);
  }
  console.log(`cold (a thread per what-if): median ${median(cold).toFixed(1)} ms, ${median(coldCpu).toFixed(1)} ms CPU`);

  const rssNoThread = rssMiB();
  const pool = new ForecastPool();
  try {
    const first = await timed(() => pool.whatIf(snapshot, small, options));
    const warm: number[] = [];
    const warmCpu: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = await timed(() => pool.whatIf(snapshot, small, options));
      warm.push(t.ms);
      warmCpu.push(t.cpuMs);
    }
    const { threadsStarted } = pool.stats;
    console.log(`warm (one pool): first ${first.ms.toFixed(1)} ms, then median ${median(warm).toFixed(1)} ms, ${median(warmCpu).toFixed(1)} ms CPU; threads started ${threadsStarted}`);
    if (threadsStarted !== 1) {
      console.error(`bench:forecast-pool: ${runs + 1} what-ifs on one pool started ${threadsStarted} threads, expected 1`);
      return 1;
    }
    const rssWarmIdle = rssMiB();
    await pool.whatIf(snapshot, addNodes(MAX_ADD_NODES), options);
    const rssAfterLargestIdle = rssMiB();
    await pool.close();
    const rssAfterClose = rssMiB();
    console.log(`RSS: no pool thread ${rssNoThread} MiB, warm thread idle ${rssWarmIdle} MiB, idle after addNodes ${MAX_ADD_NODES} ${rssAfterLargestIdle} MiB, closed ${rssAfterClose} MiB`);
    console.log(
      JSON.stringify({
        bench: 'forecast-pool',
        runs,
        whatIf: 'addNodes 10, sample fleet',
        whatIfMs: { inProcess: spread(inProcess), cold: spread(cold), warmFirst: round2(first.ms), warm: spread(warm) },
        cpuMsPerWhatIf: { cold: round2(median(coldCpu)), warm: round2(median(warmCpu)) },
        rssMiB: { noThread: rssNoThread, warmIdle: rssWarmIdle, afterLargestIdle: rssAfterLargestIdle, afterClose: rssAfterClose },
        loadAvg1m: loadAvg1m(),
      }),
    );
    return 0;
  } finally {
    await pool.close();
  }
}

// exitCode, not exit(): the process must end by itself once the pools are closed (no thread keeps it alive).
main().then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exitCode = 1;
  },
);
