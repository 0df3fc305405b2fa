/**
 * `npm run bench:analyze`: time the analysis (index + every check) on generated fleets of about
 * 500,000 and 1,000,000 backend-server entries (500 clusters of 100 nodes with 10 or 20
 * Cluster-mode Services each: every Service's vServer group holds every node).
 *
 * Each size runs in its own child process, so its peak RSS is its own. Prints one line per size
 * and, as the last line, one JSON object:
 * `{"backends": {"500k": n, "1m": n}, "seconds": {"500k": s, "1m": s}, "scaling": s1m/s500k, "peakRssMiB": max}`.
 */
import { fork } from 'node:child_process';
import { mapWireFleet } from '@app/domain';
import { generateFleet, generateSpecSchema } from '@app/collectors';
import { runAudit } from '@app/checks';

interface SizeResult {
  backends: number;
  seconds: number;
  findings: number;
  results: number;
  peakRssMiB: number;
}

function measure(servicesPerCluster: number): SizeResult {
  const spec = generateSpecSchema.parse({
    seed: 42,
    accounts: 10,
    regions: ['cn-hangzhou'],
    clusters: 500,
    nodesPerCluster: 100,
    servicesPerCluster,
    podsPerService: 3,
    trafficPolicy: { cluster: 1, local: 0, eni: 0 },
    ccmVersions: ['v2.12.3'],
    shares: { orphaned: 0, reused: 0, misconfigured: 0 },
  });
  let snapshot = mapWireFleet(generateFleet(spec, 'bench').fleet);
  const backends = snapshot.accounts.reduce(
    (n, a) => n + a.regions.reduce((m, r) => m + (r.loadBalancers ?? []).reduce((k, lb) => k + lb.defaultBackendServers.length + lb.vServerGroups.reduce((j, g) => j + g.backendServers.length, 0), 0), 0),
    0,
  );
  global.gc?.();
  const now = new Date('2026-11-22T00:00:00Z');
  // One warm-up run on a small slice would distort nothing here; the figure is a single cold run, as a scan does.
  const t0 = process.hrtime.bigint();
  const out = runAudit(snapshot, { now });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const res = { backends, seconds, findings: out.findings.length, results: out.results.length, peakRssMiB: process.resourceUsage().maxRSS / 1024 };
  snapshot = undefined as never;
  return res;
}

async function runChild(services: number): Promise<SizeResult> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, ['--child', String(services)], { execArgv: ['--max-old-space-size=4096', '--expose-gc'] });
    child.once('message', (m) => resolve(m as SizeResult));
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`bench child exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--child');
  if (i >= 0) {
    const r = measure(Number(process.argv[i + 1]));
    process.send?.(r);
    return;
  }
  const half = await runChild(10);
  console.log(`500k: ${half.backends} backend entries analysed in ${half.seconds.toFixed(3)} s (${half.results} results, ${half.findings} findings), peak RSS ${half.peakRssMiB.toFixed(0)} MiB`);
  const full = await runChild(20);
  console.log(`1m:   ${full.backends} backend entries analysed in ${full.seconds.toFixed(3)} s (${full.results} results, ${full.findings} findings), peak RSS ${full.peakRssMiB.toFixed(0)} MiB`);
  console.log(
    JSON.stringify({
      backends: { '500k': half.backends, '1m': full.backends },
      seconds: { '500k': Number(half.seconds.toFixed(3)), '1m': Number(full.seconds.toFixed(3)) },
      scaling: Number((full.seconds / half.seconds).toFixed(3)),
      peakRssMiB: Math.round(Math.max(half.peakRssMiB, full.peakRssMiB)),
    }),
  );
}

void main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
