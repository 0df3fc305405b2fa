/**
 * `npm run bench:whatif-size`: cost of one `addNodes` what-if step against its size, on the
 * bundled sample fleet (examples/fleets/sample, cluster c1e64668d4e11407d7227bc187533f952, the one the security
 * review used), one JSON line per size and a summary line.
 * - in-process `runWhatIf` for 1,000 / 2,000 / 5,000 (the schema's maximum, MAX_ADD_NODES) / 10,000 / 20,000 nodes;
 *   sizes over the maximum are built as Scenario objects directly (the schema refuses them) only to show the
 *   growth: `msPer1000Nodes` stays about flat when the cost is near-linear (the review saw 0.33 s / 5.4 s / 15.9 s
 *   for 2,000 / 10,000 / 20,000 before the O(n^2) name check was removed);
 * - the largest accepted step through the API's ForecastPool (worker thread, structured clone of the snapshot in and
 *   the result out) beside the in-process time, and how long the calling thread's event loop was blocked meanwhile
 *   (the longest gap of a 10 ms interval timer).
 * Run it alone (`heavy --exclusive`): the figures are wall times.
 */
import { ForecastPool } from '@app/audit';
import { loadFleetDirectory } from '@app/collectors';
import { MAX_ADD_NODES, runWhatIf, type Scenario } from '@app/forecast';
import { sampleFleetDir } from '../apps/cli/src/package-root.util';

const CLUSTER = 'c1e64668d4e11407d7227bc187533f952';
const NOW = new Date('2026-11-20T00:00:00Z');

/** One addNodes step of `count` nodes, built without the schema (which caps `count` at MAX_ADD_NODES). */
function addNodes(count: number): Scenario {
  return { apiVersion: 'fleet-audit/v1', kind: 'Scenario', name: `add-${count}`, steps: [{ kind: 'addNodes', index: 1, name: '1. addNodes', args: { cluster: CLUSTER, count } }] };
}

async function main(): Promise<void> {
  const snapshot = loadFleetDirectory(sampleFleetDir());
  runWhatIf(snapshot, addNodes(100), { now: NOW }); // warm-up (JIT)
  const rows: { nodes: number; seconds: number; msPer1000Nodes: number }[] = [];
  for (const nodes of [1_000, 2_000, MAX_ADD_NODES, 10_000, 20_000]) {
    const t0 = process.hrtime.bigint();
    runWhatIf(snapshot, addNodes(nodes), { now: NOW });
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const row = { nodes, seconds: +seconds.toFixed(3), msPer1000Nodes: +((seconds * 1e6) / nodes).toFixed(1) };
    rows.push(row);
    console.log(JSON.stringify({ kind: 'in-process', ...row }));
  }
  const pool = new ForecastPool({ timeBudgetMs: 120_000 });
  let last = performance.now();
  let maxGapMs = 0;
  const tick = setInterval(() => {
    const t = performance.now();
    maxGapMs = Math.max(maxGapMs, t - last);
    last = t;
  }, 10);
  const t0 = performance.now();
  await pool.whatIf(snapshot, addNodes(MAX_ADD_NODES), { now: NOW });
  const poolSeconds = (performance.now() - t0) / 1000;
  clearInterval(tick);
  await pool.close();
  const per = rows.map((r) => r.msPer1000Nodes);
  console.log(
    JSON.stringify({
      bench: 'whatif-size',
      largestAcceptedNodes: MAX_ADD_NODES,
      inProcessSeconds: Object.fromEntries(rows.map((r) => [r.nodes, r.seconds])),
      msPer1000NodesMinMax: [Math.min(...per), Math.max(...per)],
      poolSeconds: +poolSeconds.toFixed(3),
      callerEventLoopMaxGapMs: +maxGapMs.toFixed(1),
    }),
  );
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
