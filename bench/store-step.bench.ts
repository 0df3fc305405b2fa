/**
 * `npm run bench:store-step -- --clusters 500`: the store step of one scan alone, the part of
 * `bench:scale` that writes a scan, without its report and API parts, at a size that runs in a minute or two.
 *
 * On a fresh database (next to BENCH_DATABASE_URL, dropped afterwards) it generates the bench fleet of
 * `bench:scale` (`millionBackendSpec` with NLBs), analyses it in process, then stores it `--scans N` times (default
 * 1) with `storeAnalysis`, each into a scan of its own as a scan stores it. Per store it prints:
 *  - `storeSeconds`: wall seconds of `storeAnalysis` (the `store` phase: the scan made visible, then its snapshot
 *    encoded and written), `visibleSeconds` until the scan is visible (its last transaction committed; the rest of
 *    `storeSeconds` is the snapshot), `trendFitsAndStatisticsSeconds` the
 *    step a scan runs after it (`store.scans.refreshAfterStore`: ANALYZE and the quota trend fit refresh), with its
 *    own CPU figures (`refreshCpuSeconds`, `postgresCpuSecondsRefresh`);
 *  - `storeCpuSeconds`: CPU seconds this process spent in the store step (every thread: the main thread, zlib on
 *    libuv's pool, worker threads), `storeCpuSecondsUntilVisible` the part until the scan was visible;
 *  - `postgresCpuSeconds`: CPU seconds of every `postgres` process on this machine over the store step (its backends,
 *    and the exited ones through the postmaster's children time), when PostgreSQL runs here, and the part until the
 *    scan was visible (`postgresCpuSecondsUntilVisible`); other users' queries count too, so these are upper bounds on
 *    a shared machine; `ownPostgresCpuSeconds` and `ownPostgresCpuSecondsUntilVisible` count only the backends of
 *    the bench's own database (by process title), which other users of a shared server do not move, and only those
 *    alive at the second reading: the pool closes the COPY lanes' idle connections while the snapshot is encoded after
 *    the scan is visible, so `ownPostgresCpuSeconds` then misses their work (a lower bound; the part until visible is
 *    whole);
 *  - `onDisk`: rows and MiB (indexes included) per table after the stores.
 * With `--parts`, each piece of the step is also timed alone first (wall and CPU seconds): the snapshot's encoding
 * (`snapshotEncode`: its JSON lines compressed as the store compresses them, `encoding` says how; MiB of JSON and
 * compressed), the fleet graph's build, the quota samples. With `--profile <file>`, the first store is profiled from its
 * start until the scan is visible (V8's sampling profiler through `node:inspector`, 1 ms interval; main thread only)
 * and the profile written to `<file>` (a `.cpuprofile` for Chrome DevTools, or `speedscope`). Figures are noisy on a shared machine: the load average is printed
 * beside them. Prints one line per store and, last, one JSON object.
 */
import { buildFleetGraph, FleetIndex } from '@app/checks';
import { analyzeAndStore, storeAnalysis } from '@app/audit';
import { clustersOf, withSampleTeams } from '@app/domain';
import { Store } from '@app/store';
import { encodeSnapshotLines } from '../libs/store/src/scan-snapshot.repository';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { constants as perfConstants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { Client } from 'pg';
import { intFlag, loadAvg1m, millionBackendFleet, round2, withBenchDatabase } from './bench-support';

/** Wall and CPU seconds of `fn` (CPU of every thread of this process) and the garbage collections meanwhile. */
async function timed<T>(fn: () => Promise<T> | T): Promise<{ value: T; wallSeconds: number; cpuSeconds: number; gc: GcTally }> {
  const stopGc = gcTally();
  const cpu = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const value = await fn();
  const wallSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const used = process.cpuUsage(cpu);
  return { value, wallSeconds: round2(wallSeconds), cpuSeconds: round2((used.user + used.system) / 1e6), gc: await stopGc() };
}

/** Garbage collections seen by a `gc` PerformanceObserver, by kind: count and pause milliseconds. */
interface GcTally {
  scavenges: number;
  scavengeMs: number;
  markCompacts: number;
  markCompactMs: number;
  /** Incremental marking steps and weak-callback processing (V8 reports them as their own entries). */
  otherMs: number;
}

/**
 * Count the garbage collections of this process until `stop` is called (`perf_hooks` GC entries: each is a pause
 * of the main thread; concurrent marking on helper threads is not in them but is in the CPU seconds).
 * @returns `stop`, which resolves to the tally (milliseconds rounded to 0.1)
 */
function gcTally(): () => Promise<GcTally> {
  const t: GcTally = { scavenges: 0, scavengeMs: 0, markCompacts: 0, markCompactMs: 0, otherMs: 0 };
  const count = (entries: PerformanceEntry[]): void => {
    for (const e of entries as (PerformanceEntry & { detail?: { kind?: number } })[]) {
      const kind = e.detail?.kind;
      if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) {
        t.scavenges += 1;
        t.scavengeMs += e.duration;
      } else if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) {
        t.markCompacts += 1;
        t.markCompactMs += e.duration;
      } else t.otherMs += e.duration;
    }
  };
  const obs = new PerformanceObserver((list) => count(list.getEntries()));
  obs.observe({ entryTypes: ['gc'] });
  return async () => {
    // Node queues a collection's entry from the collector's callback: a synchronous `fn` sees its entries only after
    // a turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    count(obs.takeRecords());
    obs.disconnect();
    const r = (x: number) => Math.round(x * 10) / 10;
    return { ...t, scavengeMs: r(t.scavengeMs), markCompactMs: r(t.markCompactMs), otherMs: r(t.otherMs) };
  };
}

/**
 * CPU seconds of PostgreSQL on this machine, or undefined off Linux: `all`, user + system (own and waited-for
 * children) of every process named `postgres`; `own`, user + system of the backends serving `database` (a backend's
 * process title names its database: `postgres: <user> <database> <client> ...`), which other users of a shared server
 * do not move. `own` misses a backend of `database` that exited meanwhile (the store's pool keeps its connections).
 */
function postgresCpuSeconds(database?: string): { all: number; own: number } | undefined {
  try {
    let all = 0;
    let own = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let stat: string;
      let title = '';
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (database !== undefined) title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue; // ended meanwhile
      }
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
      all += f[11]! + f[12]! + f[13]! + f[14]!;
      if (database !== undefined && title.includes(` ${database} `)) own += f[11]! + f[12]!;
    }
    return { all: all / 100, own: own / 100 };
  } catch {
    return undefined;
  }
}

/** `b - a` of one figure of two `postgresCpuSeconds` readings, rounded; null when either is missing. */
function pgDelta(a: { all: number; own: number } | undefined, b: { all: number; own: number } | undefined, k: 'all' | 'own'): number | null {
  return a === undefined || b === undefined ? null : round2(b[k] - a[k]);
}

async function main(): Promise<void> {
  const clusters = intFlag('clusters', 500);
  const scans = intFlag('scans', 1);
  const parts = process.argv.includes('--parts');
  const at = process.argv.indexOf('--profile');
  const profileFile = at > 0 ? process.argv[at + 1] : undefined;
  if (at > 0 && (profileFile === undefined || profileFile.startsWith('--'))) throw new Error('--profile needs a file name');
  const NOW = new Date('2026-11-23T06:00:00Z');
  const out = await withBenchDatabase(async (url) => {
    const database = new URL(url).pathname.slice(1);
    const store = await Store.open({ connectionString: url, migrate: true, tokenHashKey: 'b'.repeat(64) });
    try {
      const gen = await timed(() => millionBackendFleet(22, { clusters, nlb: true }));
      const snapshot = gen.value;
      const index = FleetIndex.build(snapshot);
      const first = await store.scans.create({ source: 'offline', fleetName: 'bench-store', startedAt: NOW });
      const analysed = await timed(() => analyzeAndStore(snapshot, { scanId: first.id, now: NOW, index }));
      const analysis = analysed.value;
      console.log(
        `generated ${clusters} clusters in ${gen.wallSeconds} s; analysed in ${analysed.wallSeconds} s ` +
          `(${analysis.findings.length} findings, ${analysis.quotaUsage.length} quota samples, ${analysis.results.length} results kept); load ${loadAvg1m()}`,
      );
      const pieces: Record<string, unknown> = {};
      if (parts) {
        const enc = await timed(() => encodeSnapshotLines(snapshot));
        pieces.snapshotEncode = {
          encoding: enc.value.encoding,
          wallSeconds: enc.wallSeconds,
          cpuSeconds: enc.cpuSeconds,
          gc: enc.gc,
          rawMiB: round2(enc.value.rawBytes / 2 ** 20),
          compressedMiB: round2(enc.value.bytes.length / 2 ** 20),
        };
        const graph = await timed(() => buildFleetGraph(snapshot, index));
        pieces.fleetGraph = { wallSeconds: graph.wallSeconds, cpuSeconds: graph.cpuSeconds, gc: graph.gc };
        const quota = await timed(() => withSampleTeams(analysis.quotaUsage, clustersOf(snapshot), analysis.owners));
        pieces.quotaSamples = { wallSeconds: quota.wallSeconds, cpuSeconds: quota.cpuSeconds, gc: quota.gc, rows: quota.value.length };
        console.log(`parts alone: ${JSON.stringify(pieces)}; load ${loadAvg1m()}`);
      }
      const stores: Record<string, unknown>[] = [];
      for (let s = 0; s < scans; s++) {
        const scan = await store.scans.create({ source: 'offline', fleetName: 'bench-store', startedAt: new Date(NOW.getTime() + (s + 1) * 3_600_000) });
        const loadBefore = loadAvg1m();
        const pg0 = postgresCpuSeconds(database);
        const t0 = Date.now();
        let visibleSeconds = 0;
        let pgVisible: ReturnType<typeof postgresCpuSeconds>;
        const cpu0 = process.cpuUsage();
        let cpuVisible: NodeJS.CpuUsage = { user: 0, system: 0 };
        const session = s === 0 && profileFile !== undefined ? new Session() : undefined;
        let profiled: Promise<void> | undefined;
        if (session) {
          session.connect();
          await session.post('Profiler.enable');
          await session.post('Profiler.setSamplingInterval', { interval: 1000 });
          await session.post('Profiler.start');
        }
        const stored = await timed(() =>
          storeAnalysis(store, scan.id, snapshot, analysis, {
            index,
            onVisible: () => {
              visibleSeconds = (Date.now() - t0) / 1000;
              cpuVisible = process.cpuUsage(cpu0);
              pgVisible = postgresCpuSeconds(database);
              profiled = session?.post('Profiler.stop').then(({ profile }) => {
                writeFileSync(profileFile!, JSON.stringify(profile));
                session.disconnect();
              });
            },
          }),
        );
        await profiled;
        const pgStored = postgresCpuSeconds(database);
        // The step a scan runs after the store (scan-runner.ts), timed on its own.
        const refreshed = await timed(() => store.scans.refreshAfterStore());
        const pgRefreshed = postgresCpuSeconds(database);
        const row = {
          gc: stored.gc,
          heapUsedMiB: round2(process.memoryUsage().heapUsed / 2 ** 20),
          storeSeconds: stored.wallSeconds,
          visibleSeconds: round2(visibleSeconds),
          trendFitsAndStatisticsSeconds: refreshed.wallSeconds,
          storeCpuSeconds: stored.cpuSeconds,
          storeCpuSecondsUntilVisible: round2((cpuVisible.user + cpuVisible.system) / 1e6),
          refreshCpuSeconds: refreshed.cpuSeconds,
          postgresCpuSeconds: pgDelta(pg0, pgStored, 'all'),
          postgresCpuSecondsUntilVisible: pgDelta(pg0, pgVisible, 'all'),
          postgresCpuSecondsRefresh: pgDelta(pgStored, pgRefreshed, 'all'),
          ownPostgresCpuSeconds: pgDelta(pg0, pgStored, 'own'),
          ownPostgresCpuSecondsUntilVisible: pgDelta(pg0, pgVisible, 'own'),
          loadBefore,
          loadAfter: loadAvg1m(),
        };
        stores.push(row);
        console.log(`store ${s + 1}: ${JSON.stringify(row)}`);
      }
      // What the stores left on disk per table (rows and MiB with indexes, every stored scan together).
      const db = new Client({ connectionString: url });
      await db.connect();
      const tables = await db.query<{ relname: string; n: string; b: string }>(
        `SELECT relname, n_live_tup::text AS n, pg_total_relation_size(relid)::text AS b FROM pg_stat_user_tables
          WHERE relname IN ('findings', 'quota_usage', 'scan_snapshots', 'finding_fingerprints') OR relname LIKE 'graph_%' ORDER BY relname`,
      );
      await db.end();
      const onDisk = Object.fromEntries(tables.rows.map((r) => [r.relname, { rows: Number(r.n), mib: round2(Number(r.b) / 2 ** 20) }]));
      console.log(`on disk: ${JSON.stringify(onDisk)}`);
      return { clusters, findings: analysis.findings.length, parts: pieces, stores, onDisk };
    } finally {
      await store.close();
    }
  });
  console.log(JSON.stringify(out));
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:store-step: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
