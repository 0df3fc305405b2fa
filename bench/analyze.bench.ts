/**
 * `npm run bench:analyze`: time the analysis (index + every registered check, all enabled) on generated
 * fleets of about 500,000 and 1,000,000 backend-server entries: 500 clusters of 100 nodes with 11 or 22
 * LoadBalancer Services each, mostly Cluster mode (every Service's vServer group holds every node), with a
 * realistic share of Local-mode Services, two CCM versions, orphaned CLBs, reuse of CCM-created and of
 * console-created CLBs and misconfigured Services, so that the checks have work, not just the index. The
 * backend counts are printed as generated (11 and 22 Services instead of 10 and 20 make up for the
 * Local-mode Services, refused reuses and ENI-on-Flannel Services, which attach few or no backends).
 *
 * Each size runs in its own child process, so its peak RSS is its own. Prints one line per size and, as
 * the last line, one JSON object:
 * `{"backends": {"500k": n, "1m": n}, "seconds": {"500k": s, "1m": s}, "cpuSeconds": {...}, "scaling":
 * s1m/s500k, "peakRssMiB": max, "checks": n, "loadAvg1m": x, "digest": {"500k": sha256, "1m": sha256}}`.
 * `digest` is the sha256 of the audit output (findings and every result) as JSON, taken after the timed span:
 * a change that must not alter behaviour keeps it (test/golden/README.md).
 * `seconds` is wall time of `runAudit`; `cpuSeconds` is the process CPU time (user + system) over the same
 * span, which stays meaningful when other processes compete for the cores (`loadAvg1m` says how busy the
 * machine was). `--per-check` adds each check's CPU time (one extra audit per check, after the timed run).
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { CHECKS, runAudit } from '@app/checks';
import { backendsOf, millionBackendFleet } from './bench-support';

interface SizeResult {
  backends: number;
  seconds: number;
  cpuSeconds: number;
  findings: number;
  results: number;
  checksWithResults: number;
  /** Registered checks that produced no result at all on this fleet (nothing in scope). */
  checksWithoutResults: string[];
  peakRssMiB: number;
  perCheckMs?: Record<string, number>;
  /** sha256 (hex) of the audit output as JSON: proves a refactoring left findings, skips and passes byte-identical. */
  digest: string;
}

function measure(servicesPerCluster: number, perCheck: boolean): SizeResult {
  const snapshot = millionBackendFleet(servicesPerCluster);
  const backends = backendsOf(snapshot);
  global.gc?.();
  const now = new Date('2026-11-22T00:00:00Z');
  // A single cold run, as a scan does (no warm-up): default settings enable every registered check.
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const out = runAudit(snapshot, { now });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(c0);
  const res: SizeResult = {
    backends,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    findings: out.findings.length,
    results: out.results.length,
    checksWithResults: new Set(out.results.map((r) => r.checkId)).size,
    checksWithoutResults: CHECKS.map((c) => c.id).filter((id) => !out.results.some((r) => r.checkId === id)),
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    digest: createHash('sha256').update(JSON.stringify(out)).digest('hex'),
  };
  if (perCheck) {
    res.perCheckMs = {};
    for (const c of CHECKS) {
      const checks = Object.fromEntries(
        CHECKS.filter((x) => x.id !== c.id).map((x) => [x.id, { enabled: false }]),
      );
      const c1 = process.cpuUsage();
      runAudit(snapshot, { now, settings: { checks } });
      const u = process.cpuUsage(c1);
      res.perCheckMs[c.id] = Math.round((u.user + u.system) / 1000);
    }
  }
  return res;
}

async function runChild(services: number, perCheck: boolean): Promise<SizeResult> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, ['--child', String(services), ...(perCheck ? ['--per-check'] : [])], {
      execArgv: ['--max-old-space-size=4096', '--expose-gc'],
    });
    child.once('message', (m) => resolve(m as SizeResult));
    child.once('exit', (code) =>
      code === 0 ? undefined : reject(new Error(`bench child exited with ${code}`)),
    );
  });
}

function line(label: string, r: SizeResult): string {
  return (
    `${label} ${r.backends} backend entries analysed in ${r.seconds.toFixed(3)} s wall, ${r.cpuSeconds.toFixed(3)} s CPU ` +
    `(${r.results} results from ${r.checksWithResults} checks, ${r.findings} findings), peak RSS ${r.peakRssMiB.toFixed(0)} MiB`
  );
}

async function main(): Promise<void> {
  const perCheck = process.argv.includes('--per-check');
  const i = process.argv.indexOf('--child');
  if (i >= 0) {
    const r = measure(Number(process.argv[i + 1]), perCheck);
    process.send?.(r);
    return;
  }
  const load = loadavg()[0] ?? 0;
  console.log(`${CHECKS.length} checks registered, all enabled; load average (1 min) ${load.toFixed(2)}`);
  const half = await runChild(11, perCheck);
  console.log(line('500k:', half));
  const full = await runChild(22, perCheck);
  console.log(line('1m:  ', full));
  console.log(
    `checks without results (nothing in scope on this fleet): ${full.checksWithoutResults.join(', ') || 'none'}`,
  );
  if (full.perCheckMs) {
    const rows = Object.entries(full.perCheckMs).sort((a, b) => b[1] - a[1]);
    console.log('CPU ms per check on 1m (each alone, index build included):');
    for (const [id, ms] of rows) console.log(`  ${id.padEnd(34)} ${String(ms).padStart(6)}`);
  }
  console.log(
    JSON.stringify({
      backends: { '500k': half.backends, '1m': full.backends },
      seconds: { '500k': Number(half.seconds.toFixed(3)), '1m': Number(full.seconds.toFixed(3)) },
      cpuSeconds: { '500k': Number(half.cpuSeconds.toFixed(3)), '1m': Number(full.cpuSeconds.toFixed(3)) },
      scaling: Number((full.seconds / half.seconds).toFixed(3)),
      peakRssMiB: Math.round(Math.max(half.peakRssMiB, full.peakRssMiB)),
      checks: CHECKS.length,
      loadAvg1m: Number(load.toFixed(2)),
      digest: { '500k': half.digest, '1m': full.digest },
    }),
  );
}

void main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
