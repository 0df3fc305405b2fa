/**
 * `npm run bench:trend-refresh`: how the quota trend-fit refresh a scan runs after its store
 * (`QuotaTrendRepository.refresh`, libs/store quota-trend.repository.ts) grows with the scans in its window. The
 * refresh reads every quota sample of every succeeded scan of the trend window (libs/forecast
 * DEFAULT_TREND_SETTINGS.windowDays, 14 days, and retention keeps every scan's samples 15 days) and refits every
 * series, so with the default hourly schedule its window holds up to 336 scans.
 *
 * On a fresh database it writes `--series N` (default 100,000) quota series, one sample per series per scan, for
 * hourly scans ending at a fixed clock, in steps: the scans of each step of `--scans a,b,c` (default 2,24,96) are
 * added to those before, then the refresh runs and is timed. Samples are generated in SQL (generate_series: the
 * bench times the refresh, not the store): twenty accounts, one region, a linear rise with a per-series slope. Each
 * scan's rows are written account by account, as a scan's store writes them (its samples come check by check, account
 * by account): the refresh reads one (check, account, region) group at a time, and rows of all groups interleaved
 * on every page made each group's read touch most of the table (5.5 s per group at 96 scans instead of a fraction).
 *
 * Prints one line per step and, last, one JSON object:
 * `{"bench":"trend-refresh","series":n,"steps":[{"scans","samples","seconds","cpuSeconds","samplesPerSecond","fits"}],"loadAvg1m"}`.
 * `seconds` is the wall time of `refresh` (one REPEATABLE READ transaction: the window's samples read group by
 * group, every series fitted, the fits written into the window's own table and attached as a partition of
 * `quota_trend_fits`, then the previous window's table detached and dropped); `cpuSeconds` this process's CPU over
 * it (reading the rows and the fits; the rest of the wall time is PostgreSQL's).
 */
import { Client } from 'pg';
import { Store } from '@app/store';
import { intFlag, loadAvg1m, round2, withBenchDatabase } from './bench-support';

const HOUR_MS = 3_600_000;
const NOW = new Date('2026-11-23T06:00:00Z');

/**
 * The step sizes of `--scans a,b,c`: increasing whole numbers of at least 1.
 * @throws Error naming the flag when the list is malformed or not increasing
 */
function scanSteps(argv: readonly string[] = process.argv): number[] {
  const i = argv.indexOf('--scans');
  const raw = i < 0 ? '2,24,96' : argv[i + 1] ?? '';
  const steps = raw.split(',').map((s) => Number(s.trim()));
  if (steps.length === 0 || steps.some((n, k) => !Number.isInteger(n) || n < 1 || (k > 0 && n <= steps[k - 1]!)))
    throw new Error(`--scans expects increasing whole numbers separated by commas (e.g. 2,24,96), got "${raw}"`);
  return steps;
}

/**
 * Add the scans `[from, to)` (scan k started k hours before NOW) and one sample per series for each: used rises by
 * `(i mod 7) / 10` per hour from `i mod 150`, capped at the limit 200. Each scan's partition of `quota_usage` is
 * attached first (as every store does: libs/store scan-partition.util.ts), and the statistics taken as a scan's
 * follow-up takes them (the new partitions, not the parent).
 */
async function addScans(client: Client, store: Store, series: number, from: number, to: number): Promise<void> {
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO scans (status, source, fleet_name, started_at, finished_at)
     SELECT 'succeeded', 'offline', 'bench-trend-refresh', $1::timestamptz - k * interval '1 hour', $1::timestamptz - k * interval '1 hour' + interval '5 minutes'
       FROM generate_series($2::int, $3::int - 1) k
     RETURNING id`,
    [NOW, from, to],
  );
  for (const r of rows) await store.scanPartitions.ensure(r.id);
  await client.query(
    `INSERT INTO quota_usage (scan_id, check_id, account_id, region_id, cluster_id, resource_kind, resource_id, used, "limit", ratio)
     SELECT s.id, 'CLB_BACKEND_QUOTA', '10000000000000' || lpad((i % 20)::text, 2, '0'), 'cn-hangzhou', 'c-' || (i % 500),
            'LoadBalancer', 'lb-bench-' || i, u.used, 200, u.used / 200.0
       FROM scans s CROSS JOIN generate_series(1, $3::int) i
       CROSS JOIN LATERAL (SELECT least(200, (i % 150) + floor((336 - extract(epoch FROM $1::timestamptz - s.started_at) / 3600) * (i % 7) / 10.0))::numeric AS used) u
      WHERE s.id = ANY($2::uuid[])
      ORDER BY s.started_at, i % 20, i`,
    [NOW, rows.map((r) => r.id), series],
  );
  await client.query('ANALYZE scans');
  if (await store.scanPartitions.partitioned()) await store.scanPartitions.analyzeNew();
  else await client.query('ANALYZE quota_usage');
}

async function main(): Promise<void> {
  const series = intFlag('series', 100_000);
  const steps = scanSteps();
  const out = await withBenchDatabase(async (url) => {
    const store = await Store.open({ connectionString: url, migrate: true, tokenHashKey: 'b'.repeat(64) });
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const results: { scans: number; samples: number; seconds: number; cpuSeconds: number; samplesPerSecond: number; fits: number }[] = [];
      let have = 0;
      for (const scans of steps) {
        await addScans(client, store, series, have, scans);
        have = scans;
        const t0 = performance.now();
        const cpu0 = process.cpuUsage();
        const window = await store.quotaTrends.refresh(new Date(NOW.getTime() + HOUR_MS));
        const cpu = process.cpuUsage(cpu0);
        const seconds = (performance.now() - t0) / 1000;
        const cpuSeconds = round2((cpu.user + cpu.system) / 1e6);
        const samples = series * scans;
        results.push({ scans, samples, seconds: round2(seconds), cpuSeconds, samplesPerSecond: Math.round(samples / seconds), fits: window.series });
        console.log(
          `${scans} scans in the window (${samples} samples): refreshed in ${round2(seconds)} s (${cpuSeconds} CPU s in this process), ${window.series} series fitted`,
        );
      }
      return results;
    } finally {
      await client.end();
      await store.close();
    }
  });
  console.log(JSON.stringify({ bench: 'trend-refresh', series, steps: out, loadAvg1m: loadAvg1m() }));
}

main().catch((e: unknown) => {
  console.error(`bench:trend-refresh failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
