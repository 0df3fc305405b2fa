/**
 * `npm run bench:retention`: a month of hourly scans of a generated fleet with retention on,
 * printing the database size once per simulated day: it must level off.
 *
 * The fleet is `millionBackendSpec` cut to `--clusters N` (default 2: 200 nodes, 44 LoadBalancer Services, a few
 * thousand backend servers). It is analysed once; every simulated hour stores that analysis as a new scan through
 * the store's own path (`storeAnalysis`: findings, quota samples with a growing `used`, the gzip snapshot, the fleet
 * graph, in one transaction) with the scan's start time on a simulated clock, then runs retention at that clock, as
 * the workers' cron does. Once per simulated day it runs a plain VACUUM (what autovacuum does over a real day; it
 * takes no lock that blocks reads or writes) and prints `pg_database_size`.
 *
 * The policy is the production one scaled so that a month shows every tier: 48 h whole, the day's last scan 7 days,
 * the week's last 2 weeks, quota samples 5 days (flags `--raw-hours`, `--daily-days`, `--weekly-weeks`,
 * `--quota-days`; the defaults, 48 h / 92 days / 52 weeks / 15 days, level off after a year the same way, at
 * 48 + 92 + ~40 whole scans). `--days N` (default 30) sets the length; a short run (`--days 3`) checks the set-up.
 * The store is a fresh database on BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres),
 * dropped afterwards. The last line is one JSON object with every day's figures.
 */
import { analyzeAndStore, storeAnalysis } from '@app/audit';
import { generateFleet } from '@app/collectors';
import { mapWireFleet, type FleetSnapshot, type QuotaUsageSample } from '@app/domain';
import { Store, type RetentionPolicy } from '@app/store';
import { intFlag, loadAvg1m, millionBackendSpec, round2, withBenchDatabase } from './bench-support';

const HOUR = 3_600_000;

/** One simulated day's figures. */
interface DayFigures {
  day: number;
  scans: number;
  wholeScans: number;
  databaseMiB: number;
  retentionSeconds: number;
}

async function main(): Promise<void> {
  const days = intFlag('days', 30);
  const clusters = intFlag('clusters', 2);
  const policy: RetentionPolicy = {
    rawHours: intFlag('raw-hours', 48),
    dailyDays: intFlag('daily-days', 7),
    weeklyWeeks: intFlag('weekly-weeks', 2),
    quotaDays: intFlag('quota-days', 5),
  };
  const snapshot: FleetSnapshot = mapWireFleet(generateFleet(millionBackendSpec(22, { clusters }), 'bench').fleet);
  const start = Date.UTC(2026, 0, 5);
  const analysis = await analyzeAndStore(snapshot, { scanId: 'bench', now: new Date(start) });
  process.stdout.write(`retention bench: ${days} days of hourly scans, ${clusters} clusters, ${analysis.findings.length} findings per scan, policy ${JSON.stringify(policy)}\n`);
  const out: DayFigures[] = [];
  await withBenchDatabase(async (url) => {
    const store = await Store.open({ connectionString: url, migrate: true });
    try {
      let retentionSeconds = 0;
      for (let h = 0; h < days * 24; h++) {
        const at = new Date(start + h * HOUR);
        const scan = await store.scans.create({ source: 'offline', fleetName: 'bench', startedAt: at });
        await storeAnalysis(store, scan.id, snapshot, { ...analysis, quotaUsage: growing(analysis.quotaUsage, h), finishedAt: new Date(at.getTime() + 60_000) });
        await store.scans.refreshAfterStore();
        const t0 = process.hrtime.bigint();
        await store.retention.run({ now: new Date(at.getTime() + 30 * 60_000), policy, batchRows: 5_000 });
        retentionSeconds += Number(process.hrtime.bigint() - t0) / 1e9;
        if ((h + 1) % 24 === 0) {
          await store.retentionRows.vacuum();
          const scans = await store.retentionRows.scans();
          const day: DayFigures = {
            day: (h + 1) / 24,
            scans: scans.length,
            wholeScans: scans.filter((s) => !s.pruned).length,
            databaseMiB: round2((await store.retentionRows.databaseSize()) / 1048576),
            retentionSeconds: round2(retentionSeconds),
          };
          retentionSeconds = 0;
          out.push(day);
          process.stdout.write(`day ${String(day.day).padStart(2)}: ${day.databaseMiB} MiB, ${day.scans} scans (${day.wholeScans} whole), retention ${day.retentionSeconds} s\n`);
        }
      }
    } finally {
      await store.close();
    }
  });
  process.stdout.write(`${JSON.stringify({ days: out, policy, clusters, peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024), loadAvg1m: loadAvg1m() })}\n`);
}

/**
 * The quota samples of hour `h`: every sample's `used` grown by 0.1 % of its limit per day (capped at the limit), so
 * the stored quota history is a trend as in a growing fleet.
 */
function growing(samples: readonly QuotaUsageSample[], h: number): QuotaUsageSample[] {
  return samples.map((s) => {
    const used = Math.min(s.limit, Math.round(s.used + (s.limit * 0.001 * h) / 24));
    return { ...s, used, ratio: used / s.limit };
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
