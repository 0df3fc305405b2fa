/**
 * `npm run bench:analyze`: time the analysis (index + every registered check, all enabled) on generated
 * fleets of about 500,000 and 1,000,000 backend-server entries: 500 clusters of 100 nodes with 11 or 22
 * LoadBalancer Services each, mostly Cluster mode (every Service's vServer group holds every node), with a
 * realistic share of Local-mode Services, two CCM versions, orphaned CLBs, reuse of CCM-created and of
 * console-created CLBs and misconfigured Services, so that the checks have work, not just the index. The
 * backend counts are printed as generated (11 and 22 Services instead of 10 and 20 make up for the
 * Local-mode Services, refused reuses and ENI-on-Flannel Services, which attach few or no backends).
 * About a quarter of the LoadBalancer Services are NLB Services (on the clusters whose CCM has the NLB
 * controller, with a few leaked server groups: `millionBackendSpec` with `nlb`); their server entries count as
 * backend entries, and the NLB figures (NLBs, server groups, servers, NLB findings) are printed per size.
 *
 * Flags: `--clusters N` (default 500) runs the same shape on N clusters, for a quick check; `--runs N` (default 1) runs
 * each size N times, each in a fresh child, and reports the run of median wall time (`seconds`; every run's wall time
 * in `runs`; exit 1 when the runs of one size give different digests); `--clb-only` generates
 * the fleet without NLB Services (the shape of the figures taken before NLB support); `--via-json` maps each
 * account from its JSON text, as production does (SDK responses and stored slices are parsed JSON: every string its
 * own object until the mapper interns it; the generator shares them); `--per-check` (below).
 *
 * Each size runs in its own child process, so its peak RSS is its own. Prints one line per size and, as
 * the last line, one JSON object:
 * `{"backends": {"500k": n, "1m": n}, "nlb": {"500k": {...}, "1m": {...}}, "seconds": {"500k": s, "1m": s}, "runs": {"500k": [s, ...], "1m": [s, ...]}, "cpuSeconds": {...}, "scaling":
 * s1m/s500k, "peakRssMiB": max, "checks": n, "loadAvg1m": x, "digest": {"500k": sha256, "1m": sha256}}`.
 * `nlb` holds `nlbs`, `serverGroups`, `unusedServerGroups`, `servers` (counts) and `findings` (NLB_* findings).
 * `digest` is the sha256 of the audit output (findings and every result) as JSON, taken after the timed span:
 * a change that must not alter behaviour keeps it (test/golden/README.md).
 * `seconds` is wall time of `runAudit` keeping what a scan keeps (`keepResultsOf` the quota checks: their results,
 * every skipped result, every finding and the counts; `analyzeSnapshot` without `keepResults`); a second, untimed
 * audit of the same fleet keeps every result for the digest (its wall time in `allResultsSeconds`), and what the timed
 * one kept must be that audit's, projected the same way (exit 1 otherwise); `cpuSeconds` is the process CPU time (user + system) over the same
 * span, which stays meaningful when other processes compete for the cores (`loadAvg1m` says how busy the
 * machine was); `systemSeconds` the kernel's share of it and `pageFaults` the minor page faults (fresh memory
 * touched). `probe` (`MachineProbe`, taken first, in a child of its own) says what the machine gives that hour:
 * the seconds to touch 1 GiB of fresh memory, the milliseconds of a fixed CPU-bound loop and the nanoseconds of a
 * random memory read; `probeAfter` is the same, taken after the runs. On the project's VMs the first was 3.3 s on a
 * day the 5,000-cluster analysis of the same code took 35-48 s wall, where it had taken 20-22 s the night before:
 * compare figures between runs with similar probes. `--per-check` adds each check's CPU time (one extra audit per check, after the timed run).
 * Each child runs with `--max-semi-space-size=64 --min-semi-space-size=64`, as the image does (Dockerfile ENTRYPOINT); BENCH_SEMI_SPACE_MB=0
 * gives V8's default young generation (16 MiB semi-spaces), BENCH_SEMI_SPACE_MB=N another size.
 *
 * Threads: `--threads N` (default `os.availableParallelism()`) runs each size also through the threaded analysis
 * (libs/audit `runThreadedAudit`) on N threads; `--threads 1` runs only the one-thread analysis above, and
 * `--threaded-only` only the threaded one. The generator builds the whole fleet at once (one random stream over
 * every cluster), so a child of its own (`--prepare`, not timed) generates it and writes one file per shard (an
 * account and its region: the account's mapped snapshot, `node:v8` serialized; `writeBenchShards`); each threaded run
 * is a fresh child whose threads each read only their shard's file, at most N at a time. Its `seconds` run from the
 * call to the merged output, reading the shard files included, with the work a scan asks of it: findings, skipped
 * results and the summary, no results' JSON (the one-thread span writes none either); `cpuSeconds` and `peakRssMiB`
 * are the whole process's (every thread's) over that run. The digest needs every result's JSON: the same child then
 * analyzes the shards again, untimed, keeping it (`shardSeconds`: the timed run's reading and analyzing, and, as
 * `json`, the second run's writing of the results' JSON bytes, each summed over the shards). The threaded digest is
 * computed from that output in the same bytes as the one-thread one, and a line compares them: exit 1 when they differ. The JSON line then carries `threaded`: `{"threads", "seconds",
 * "runs", "cpuSeconds", "shardSeconds", "scaling", "peakRssMiB", "digest"}`, by size as above.
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeSnapshot, runThreadedAudit } from '@app/audit';
import { CHECKS, QUOTA_USAGE_CHECK_IDS, runAudit, type StatusCounts } from '@app/checks';
import { quotaUsageOf, type CheckResult, type FleetSnapshot, type QuotaUsageSample } from '@app/domain';
import { backendsOf, intFlag, millionBackendFleet, nlbFiguresOf, writeBenchShards, type BenchShardFiles, type NlbFigures } from './bench-support';
import { probeJson, runProbe, type MachineProbe } from './machine-probe';

/** Young generation (semi-space) size of each child, MiB: the image's (Dockerfile), or V8's default with 0. */
const SEMI_SPACE_MB = Number(process.env.BENCH_SEMI_SPACE_MB ?? 64);

interface SizeResult {
  /** Backend entries: CLB backend servers plus NLB server entries. */
  backends: number;
  /** NLB figures of the fleet, and the findings of the NLB_* checks. */
  nlb: NlbFigures & { findings: number; findingsByCheck: Record<string, number> };
  seconds: number;
  cpuSeconds: number;
  findings: number;
  results: number;
  checksWithResults: number;
  /** Registered checks that produced no result at all on this fleet (nothing in scope). */
  checksWithoutResults: string[];
  peakRssMiB: number;
  /** CPU time spent in the kernel over the same span, seconds (most of it page faults: fresh memory the analysis touches). */
  systemSeconds: number;
  /** Minor page faults over the same span (count; 4 KiB each): the fresh memory the analysis touched. */
  pageFaults: number;
  perCheckMs?: Record<string, number>;
  /** sha256 (hex) of the audit output as JSON: proves a refactoring left findings, skips and passes byte-identical. */
  digest: string;
  /**
   * Threaded runs: shards, and the seconds the threads spent reading their shards, analyzing them and writing their
   * results' JSON bytes (summed over the shards; wall time of each thread).
   */
  shardSeconds?: { shards: number; load: number; audit: number; json: number };
  /** One thread: wall seconds of the untimed second audit that keeps every result (for the digest). */
  allResultsSeconds?: number;
  /** One thread: whether what the timed audit kept is the full audit's, projected (`scanDigestOf`). */
  scanMatches?: boolean;
}

/** What the parent tells each child: the fleet's shape. */
interface FleetShape {
  clusters: number;
  nlb: boolean;
  /** Map each account from its JSON text (`BenchFleetOptions.viaJson`). */
  viaJson: boolean;
}

/**
 * sha256 (hex) of `JSON.stringify(out)`, hashed piece by piece: at 5,000 clusters the whole JSON is longer than the
 * longest string V8 can hold (about 512 MiB), so it is never built; the bytes hashed are the same.
 */
function digestOf(out: { results: readonly unknown[]; findings: readonly unknown[] }): string {
  const h = createHash('sha256');
  const list = (name: string, items: readonly unknown[], first: boolean) => {
    h.update(`${first ? '{' : ','}${JSON.stringify(name)}:[`);
    items.forEach((x, i) => h.update(`${i > 0 ? ',' : ''}${JSON.stringify(x)}`));
    h.update(']');
  };
  list('results', out.results, true);
  list('findings', out.findings, false);
  h.update('}');
  return h.digest('hex');
}

/**
 * The same digest as `digestOf` from a threaded analysis: its results' JSON pieces (`ThreadedAudit.resultsJson`, in
 * result order, each results joined by `,`) and its findings, hashed in the same bytes.
 */
function threadedDigestOf(resultsJson: readonly Uint8Array[], findings: readonly unknown[]): string {
  const h = createHash('sha256');
  h.update('{"results":[');
  resultsJson.forEach((piece, i) => {
    if (i > 0) h.update(',');
    h.update(piece);
  });
  h.update('],"findings":[');
  findings.forEach((x, i) => h.update(`${i > 0 ? ',' : ''}${JSON.stringify(x)}`));
  h.update(']}');
  return h.digest('hex');
}

/**
 * Threaded child: the analysis of the shard files `prepared` (`writeBenchShards`, written by another child) on
 * `threads` threads (`runThreadedAudit`), each thread reading only its shard's file; timed from the call to the
 * merged output, the shards' reading included. CPU time and peak RSS are the process's (every thread's).
 */
async function measureThreaded(prepared: BenchShardFiles, threads: number): Promise<SizeResult> {
  const now = new Date('2026-11-22T00:00:00Z');
  global.gc?.();
  const c0 = process.cpuUsage();
  const f0 = process.resourceUsage().minorPageFault;
  const t0 = process.hrtime.bigint();
  // Timed as a scan runs it: without the results' JSON (a scan keeps only findings, skipped results and the summary),
  // so both sides of the comparison do the same work; the one-thread span builds no JSON either.
  const out = await runThreadedAudit(prepared.shards, { threads, now });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(c0);
  const pageFaults = process.resourceUsage().minorPageFault - f0;
  // Read before the digest's run: its results' JSON (about 1 GiB at 5,000 clusters) is the bench's, not the analysis's.
  const peakRssMiB = process.resourceUsage().maxRSS / 1024;
  // The digest needs every result as JSON: a second, untimed analysis of the same shards keeps them.
  const forDigest = await runThreadedAudit(prepared.shards, { threads, now, resultsJson: true });
  const nlbFindings = out.findings.filter((f) => f.checkId.startsWith('NLB_'));
  const findingsByCheck: Record<string, number> = {};
  for (const f of nlbFindings) findingsByCheck[f.checkId] = (findingsByCheck[f.checkId] ?? 0) + 1;
  const withResults = Object.keys(out.summary.byCheckStatus);
  const { pass, fail, skipped } = out.summary.results;
  return {
    backends: prepared.backends,
    nlb: { ...prepared.nlb, findings: nlbFindings.length, findingsByCheck },
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    systemSeconds: cpu.system / 1e6,
    pageFaults,
    findings: out.findings.length,
    results: pass + fail + skipped,
    checksWithResults: withResults.length,
    checksWithoutResults: CHECKS.map((c) => c.id).filter((id) => !withResults.includes(id)),
    peakRssMiB,
    digest: threadedDigestOf(forDigest.resultsJson ?? [], forDigest.findings),
    shardSeconds: {
      shards: out.timings.length,
      load: out.timings.reduce((n, t) => n + t.loadMs, 0) / 1000,
      audit: out.timings.reduce((n, t) => n + t.auditMs, 0) / 1000,
      json: forDigest.timings.reduce((n, t) => n + t.jsonMs, 0) / 1000,
    },
  };
}

/**
 * sha256 (hex) of what a scan's analysis keeps, in `digestOf`'s bytes: the kept results (the skipped ones), the
 * findings, the result counts per check and the quota samples. Taken of a full audit projected the same way (its
 * skipped results, its counts, `quotaUsageOf` of every result), it must be the same: what the scan keeps is the full
 * audit's, result for result and sample for sample.
 */
function scanDigestOf(out: {
  results: readonly CheckResult[];
  findings: readonly unknown[];
  counts: Readonly<Record<string, StatusCounts>>;
  quotaUsage: readonly QuotaUsageSample[];
}): string {
  const h = createHash('sha256');
  h.update(digestOf(out));
  h.update(JSON.stringify(out.counts));
  for (const sample of out.quotaUsage) h.update(JSON.stringify(sample));
  return h.digest('hex');
}

/**
 * The timed audit of `measure`: a single cold run of a scan's analyze step (`analyzeSnapshot` without `keepResults`:
 * every registered check, keeping the skipped results, every finding, the counts and the quota samples), as a scan
 * runs it (no warm-up). Its output is dropped on return, before the full audit runs.
 */
function timedScanAudit(snapshot: FleetSnapshot, now: Date): { seconds: number; cpu: NodeJS.CpuUsage; pageFaults: number; peakRssMiB: number; scanDigest: string; scanFindings: number; samples: number } {
  const c0 = process.cpuUsage();
  const f0 = process.resourceUsage().minorPageFault;
  const t0 = process.hrtime.bigint();
  const scan = analyzeSnapshot(snapshot, { scanId: 'bench', now });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(c0);
  const pageFaults = process.resourceUsage().minorPageFault - f0;
  // Read before the full audit: its every result is the digest's, not the scan's.
  const peakRssMiB = process.resourceUsage().maxRSS / 1024;
  const scanDigest = scanDigestOf({ ...scan, counts: scan.summary.byCheckStatus });
  return { seconds, cpu, pageFaults, peakRssMiB, scanDigest, scanFindings: scan.findings.length, samples: scan.quotaUsage.length };
}

function measure(servicesPerCluster: number, shape: FleetShape, perCheck: boolean): SizeResult {
  const snapshot = millionBackendFleet(servicesPerCluster, shape);
  const nlbFigures = nlbFiguresOf(snapshot);
  const backends = backendsOf(snapshot) + nlbFigures.servers;
  global.gc?.();
  const now = new Date('2026-11-22T00:00:00Z');
  const timed = timedScanAudit(snapshot, now);
  global.gc?.();
  // The digest needs every result: an untimed second audit keeps them (its wall time is printed as `allResultsSeconds`).
  const t1 = process.hrtime.bigint();
  const out = runAudit(snapshot, { now });
  const allResultsSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
  const projected = scanDigestOf({
    results: out.results.filter((r) => r.status === 'skipped'),
    findings: out.findings,
    counts: Object.fromEntries(out.counts),
    quotaUsage: quotaUsageOf(out.results, QUOTA_USAGE_CHECK_IDS),
  });
  const scanMatches = projected === timed.scanDigest && timed.scanFindings === out.findings.length && timed.samples > 0;
  const nlbFindings = out.findings.filter((f) => f.checkId.startsWith('NLB_'));
  const findingsByCheck: Record<string, number> = {};
  for (const f of nlbFindings) findingsByCheck[f.checkId] = (findingsByCheck[f.checkId] ?? 0) + 1;
  const res: SizeResult = {
    backends,
    nlb: { ...nlbFigures, findings: nlbFindings.length, findingsByCheck },
    seconds: timed.seconds,
    cpuSeconds: (timed.cpu.user + timed.cpu.system) / 1e6,
    systemSeconds: timed.cpu.system / 1e6,
    pageFaults: timed.pageFaults,
    findings: out.findings.length,
    results: out.results.length,
    checksWithResults: new Set(out.results.map((r) => r.checkId)).size,
    checksWithoutResults: CHECKS.map((c) => c.id).filter((id) => !out.results.some((r) => r.checkId === id)),
    peakRssMiB: timed.peakRssMiB,
    digest: digestOf(out),
    allResultsSeconds,
    scanMatches,
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

/**
 * Runs a child of this script in `mode` and resolves with the one message it sends.
 * @param mode `--child` (one thread), `--prepare` (write the shard files into `extra[0]`), `--threaded` (analyze them)
 */
async function runChild(services: number, shape: FleetShape, perCheck: boolean, mode = '--child', extra: string[] = []): Promise<SizeResult> {
  return new Promise((resolve, reject) => {
    const args = [
      mode,
      String(services),
      ...extra,
      '--clusters',
      String(shape.clusters),
      ...(shape.nlb ? [] : ['--clb-only']),
      ...(shape.viaJson ? ['--via-json'] : []),
    ];
    const child = fork(__filename, [...args, ...(perCheck ? ['--per-check'] : [])], {
      // The young generation the image runs with (Dockerfile ENTRYPOINT); BENCH_SEMI_SPACE_MB=0 measures V8's default.
      execArgv: ['--max-old-space-size=8192', '--expose-gc', ...(SEMI_SPACE_MB > 0 ? [`--max-semi-space-size=${SEMI_SPACE_MB}`, `--min-semi-space-size=${SEMI_SPACE_MB}`] : [])],
    });
    child.once('message', (m) => resolve(m as SizeResult));
    child.once('exit', (code) =>
      code === 0 ? undefined : reject(new Error(`bench child exited with ${code}`)),
    );
  });
}

function line(label: string, r: SizeResult): string {
  const byCheck = Object.entries(r.nlb.findingsByCheck)
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([id, n]) => `${id} ${n}`)
    .join(', ');
  return (
    `${label} ${r.backends} backend entries analysed in ${r.seconds.toFixed(3)} s wall, ${r.cpuSeconds.toFixed(3)} s CPU ` +
    `(${r.results} results from ${r.checksWithResults} checks, ${r.findings} findings), peak RSS ${r.peakRssMiB.toFixed(0)} MiB\n` +
    `      ${r.systemSeconds.toFixed(3)} s of the CPU in the kernel; ${r.pageFaults} page faults (${((r.pageFaults * 4096) / 2 ** 20).toFixed(0)} MiB of fresh memory touched)\n` +
    `      NLB: ${r.nlb.nlbs} NLBs, ${r.nlb.listeners} listeners, ${r.nlb.serverGroups} server groups (${r.nlb.unusedServerGroups} used by no NLB), ` +
    `${r.nlb.servers} server entries; ${r.nlb.findings} NLB findings${byCheck ? ` (${byCheck})` : ''}` +
    (r.allResultsSeconds !== undefined
      ? `\n      the same audit keeping every result (untimed, for the digest): ${r.allResultsSeconds.toFixed(3)} s wall; ` +
        `what the timed audit kept ${r.scanMatches ? 'is' : 'is NOT'} that audit's, projected`
      : '')
  );
}

/** Only the count fields of the NLB figures, for the JSON line. */
function nlbJson(r: SizeResult): Omit<SizeResult['nlb'], 'findingsByCheck' | 'listeners'> {
  const { nlbs, serverGroups, unusedServerGroups, servers, findings } = r.nlb;
  return { nlbs, serverGroups, unusedServerGroups, servers, findings };
}

async function main(): Promise<void> {
  const perCheck = process.argv.includes('--per-check');
  const runs = intFlag('runs', 1);
  const shape: FleetShape = {
    clusters: intFlag('clusters', 500),
    nlb: !process.argv.includes('--clb-only'),
    viaJson: process.argv.includes('--via-json'),
  };
  const i = process.argv.indexOf('--child');
  if (i >= 0) {
    const r = measure(Number(process.argv[i + 1]), shape, perCheck);
    process.send?.(r);
    return;
  }
  const p = process.argv.indexOf('--prepare');
  if (p >= 0) {
    process.send?.(writeBenchShards(Number(process.argv[p + 1]), shape, process.argv[p + 2]!));
    return;
  }
  const t = process.argv.indexOf('--threaded');
  if (t >= 0) {
    const prepared = JSON.parse(process.argv[t + 2]!) as BenchShardFiles;
    process.send?.(await measureThreaded(prepared, Number(process.argv[t + 3])));
    return;
  }
  const threads = intFlag('threads', availableParallelism());
  const single = !process.argv.includes('--threaded-only');
  const load = loadavg()[0] ?? 0;
  console.log(
    `${CHECKS.length} checks registered, all enabled; load average (1 min) ${load.toFixed(2)}; ` +
      `${shape.clusters} clusters, ${shape.nlb ? 'about a quarter of the Services on NLB' : 'CLB only'}` +
      `${shape.viaJson ? ', each account mapped from its JSON text' : ''}; ` +
      `young generation ${SEMI_SPACE_MB > 0 ? `${SEMI_SPACE_MB} MiB semi-spaces (as the image runs)` : "V8's default"}`,
  );
  const probeText = (p: MachineProbe) =>
    `1 GiB of fresh memory touched in ${p.firstTouchSecondsPerGiB.toFixed(2)} s, ` +
    `a fixed CPU-bound loop of 100M steps in ${p.cpuLoopMs.toFixed(0)} ms, a random memory read in ${p.memoryLatencyNs.toFixed(0)} ns`;
  const probe = await runProbe();
  console.log(`machine probe: ${probeText(probe)} (compare figures only between runs with similar probes)`);
  const halfRuns = single ? await runSize('500k:', 11, shape, perCheck, runs) : [];
  const fullRuns = single ? await runSize('1m:  ', 22, shape, perCheck, runs) : [];
  const halfThreaded = threads > 1 ? await runThreadedSize(`500k on ${threads} threads:`, 11, shape, runs, threads) : [];
  const fullThreaded = threads > 1 ? await runThreadedSize(`1m on ${threads} threads:  `, 22, shape, runs, threads) : [];
  const half = medianRun(single ? halfRuns : halfThreaded);
  const full = medianRun(single ? fullRuns : fullThreaded);
  const all = [...halfRuns, ...halfThreaded].map((r) => r.digest).concat([...fullRuns, ...fullThreaded].map((r) => r.digest));
  const digestsDiffer =
    [...halfRuns, ...halfThreaded].some((r) => r.digest !== half.digest) || [...fullRuns, ...fullThreaded].some((r) => r.digest !== full.digest) || all.length === 0;
  const projectionDiffers = [...halfRuns, ...fullRuns].some((r) => r.scanMatches === false);
  if (threads > 1 && single) {
    const th = medianRun(halfThreaded);
    const tf = medianRun(fullThreaded);
    console.log(
      `threads=1 against threads=${threads}: 500k ${half.seconds.toFixed(3)} s -> ${th.seconds.toFixed(3)} s wall, ${half.peakRssMiB.toFixed(0)} -> ${th.peakRssMiB.toFixed(0)} MiB peak, ` +
        `digest ${half.digest.slice(0, 16)} ${half.digest === th.digest ? '==' : '!='} ${th.digest.slice(0, 16)}; ` +
        `1m ${full.seconds.toFixed(3)} s -> ${tf.seconds.toFixed(3)} s wall, ${full.peakRssMiB.toFixed(0)} -> ${tf.peakRssMiB.toFixed(0)} MiB peak, ` +
        `digest ${full.digest.slice(0, 16)} ${full.digest === tf.digest ? '==' : '!='} ${tf.digest.slice(0, 16)}`,
    );
  }
  // Taken again after the runs: the machine can change within one run of this bench.
  const probeAfter = await runProbe();
  console.log(`machine probe after the runs: ${probeText(probeAfter)}`);
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
      nlb: { '500k': nlbJson(half), '1m': nlbJson(full) },
      seconds: { '500k': Number(half.seconds.toFixed(3)), '1m': Number(full.seconds.toFixed(3)) },
      runs: { '500k': halfRuns.map((r) => Number(r.seconds.toFixed(3))), '1m': fullRuns.map((r) => Number(r.seconds.toFixed(3))) },
      allResultsSeconds: { '500k': halfRuns.map((r) => Number(r.allResultsSeconds!.toFixed(3))), '1m': fullRuns.map((r) => Number(r.allResultsSeconds!.toFixed(3))) },
      cpuSeconds: { '500k': Number(half.cpuSeconds.toFixed(3)), '1m': Number(full.cpuSeconds.toFixed(3)) },
      systemSeconds: { '500k': Number(half.systemSeconds.toFixed(3)), '1m': Number(full.systemSeconds.toFixed(3)) },
      pageFaults: { '500k': half.pageFaults, '1m': full.pageFaults },
      probe: probeJson(probe),
      probeAfter: probeJson(probeAfter),
      scaling: Number((full.seconds / half.seconds).toFixed(3)),
      peakRssMiB: Math.round(Math.max(...halfRuns.map((r) => r.peakRssMiB), ...fullRuns.map((r) => r.peakRssMiB))),
      checks: CHECKS.length,
      loadAvg1m: Number(load.toFixed(2)),
      digest: { '500k': half.digest, '1m': full.digest },
      ...(threads > 1 ? { threaded: threadedJson(threads, halfThreaded, fullThreaded) } : {}),
    }),
  );
  if (digestsDiffer) {
    console.error('the runs of one size gave different digests (runs, or threads=1 against threaded): the analysis is not deterministic, or the merge not exact');
    process.exitCode = 1;
  }
  if (projectionDiffers) {
    console.error('what the timed (scan) audit kept differs from the full audit projected the same way: keepResultsOf changed the output');
    process.exitCode = 1;
  }
}

/**
 * Runs one size `runs` times, each in a fresh child (`runChild`), printing each run's lines, and, after more than
 * one, the median, minimum and maximum wall time: on the project's VMs the same code's 5,000-cluster figure moved by
 * up to 2x between runs within an hour, so one run is a weak figure.
 */
async function runSize(label: string, services: number, shape: FleetShape, perCheck: boolean, runs: number): Promise<SizeResult[]> {
  const out: SizeResult[] = [];
  for (let k = 1; k <= runs; k++) {
    const r = await runChild(services, shape, perCheck);
    out.push(r);
    console.log(line(runs > 1 ? `${label} (run ${k} of ${runs})` : label, r));
  }
  if (runs > 1) {
    const walls = out.map((r) => r.seconds).sort((a, b) => a - b);
    console.log(
      `      ${label.trim()} median of ${runs} runs ${medianRun(out).seconds.toFixed(3)} s wall (min ${walls[0]!.toFixed(3)} s, max ${walls[walls.length - 1]!.toFixed(3)} s)`,
    );
  }
  return out;
}

/**
 * Runs one size `runs` times on `threads` threads: the fleet's shard files are written once by a child of their own
 * (`--prepare`: the generator builds the whole fleet, which is not part of the analysis), then each run analyzes them
 * in a fresh child (`--threaded`), whose peak RSS is the threads' and the merge's. Prints each run's lines and, after
 * more than one, the median, minimum and maximum wall time.
 */
async function runThreadedSize(label: string, services: number, shape: FleetShape, runs: number, threads: number): Promise<SizeResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'fa-bench-shards-'));
  try {
    const prepared = (await runChild(services, shape, false, '--prepare', [dir])) as unknown as BenchShardFiles;
    const out: SizeResult[] = [];
    for (let k = 1; k <= runs; k++) {
      const r = await runChild(services, shape, false, '--threaded', [JSON.stringify(prepared), String(threads)]);
      out.push(r);
      console.log(line(runs > 1 ? `${label} (run ${k} of ${runs})` : label, r));
      const s = r.shardSeconds!;
      console.log(
        `      ${s.shards} shards: ${s.load.toFixed(3)} s reading them, ${s.audit.toFixed(3)} s analyzing them and ${s.json.toFixed(3)} s writing their results' JSON (in the digest's run), summed over the threads`,
      );
    }
    if (runs > 1) {
      const walls = out.map((r) => r.seconds).sort((a, b) => a - b);
      console.log(
        `      ${label.trim()} median of ${runs} runs ${medianRun(out).seconds.toFixed(3)} s wall (min ${walls[0]!.toFixed(3)} s, max ${walls[walls.length - 1]!.toFixed(3)} s)`,
      );
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The threaded runs' figures for the JSON line (median runs). */
function threadedJson(threads: number, half: readonly SizeResult[], full: readonly SizeResult[]): Record<string, unknown> {
  const h = medianRun(half);
  const f = medianRun(full);
  return {
    threads,
    seconds: { '500k': Number(h.seconds.toFixed(3)), '1m': Number(f.seconds.toFixed(3)) },
    runs: { '500k': half.map((r) => Number(r.seconds.toFixed(3))), '1m': full.map((r) => Number(r.seconds.toFixed(3))) },
    cpuSeconds: { '500k': Number(h.cpuSeconds.toFixed(3)), '1m': Number(f.cpuSeconds.toFixed(3)) },
    shardSeconds: { '500k': h.shardSeconds, '1m': f.shardSeconds },
    scaling: Number((f.seconds / h.seconds).toFixed(3)),
    peakRssMiB: Math.round(Math.max(...half.map((r) => r.peakRssMiB), ...full.map((r) => r.peakRssMiB))),
    digest: { '500k': h.digest, '1m': f.digest },
  };
}

/**
 * The run of median wall time (of an even number of runs, the faster of the two middle ones): its figures are
 * reported for the size, all from one run rather than mixed.
 */
function medianRun(runs: readonly SizeResult[]): SizeResult {
  const sorted = [...runs].sort((a, b) => a.seconds - b.seconds);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

void main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
