/**
 * Trends-only bench: `forecastTrends` over the same generated input as `bench/forecast.bench.ts`
 * (100,000 series x 60 samples, `generateHistories(100_000, 60, 7)`), without building the 1M-backend
 * fleet. Prints one JSON line with wall and CPU seconds (process.cpuUsage: user + system, the figure to
 * trust on a shared machine) and a hash of the output (unchanged by speed work).
 *
 * Run: `npm run bench:forecast-trends`.
 */
import { createHash } from 'node:crypto';
import { forecastTrends } from '@app/forecast';
import { trendSeries } from './bench-support';

const series = trendSeries(100_000, 60, 7);
global.gc?.();
const cpu0 = process.cpuUsage();
const wall0 = performance.now();
const out = forecastTrends(series, Date.parse('2026-11-22T00:00:00Z'));
const cpu = process.cpuUsage(cpu0);
const wall = (performance.now() - wall0) / 1000;
console.log(
  JSON.stringify({
    trendSeries: series.length,
    trendSamplesPerSeries: 60,
    trendSeconds: Number(wall.toFixed(3)),
    trendCpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(3)),
    outputSha256: createHash('sha256').update(JSON.stringify(out)).digest('hex').slice(0, 16),
  }),
);
