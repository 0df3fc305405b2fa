/**
 * Backtest and calibration of the trend model (research/next-features-anchors.md F3): fit on the first part of
 * each history, and compare the held-out scans with the p10-p90 band the fit predicts for their time
 * (trend.model.ts `TREND_BAND`, `bandScale`). Also reports the median absolute percentage error of the p50 line.
 */
import { DEFAULT_TREND_SETTINGS, TheilSenScratch, TREND_BAND, bandScale, theilSen, type TheilSenFit } from './trend.model';

/** One series of (time in days, used) points. */
export interface BacktestSeries {
  t: number[];
  y: number[];
}

/** Coverage of the p10-p90 band on held-out points (fraction), and the p50 line's median APE (fraction). */
export interface BacktestResult {
  series: number;
  heldOut: number;
  coverage: number;
  medianApe: number;
}

/** One held-out scan: its fit, the span fitted (days), days after the fit's latest sample, and the value seen. */
interface HeldOutPoint {
  fit: TheilSenFit;
  spanDays: number;
  h: number;
  actual: number;
}

/**
 * Every held-out scan of `series`: each history is fitted on its first `1 - holdOut` share (at least two
 * samples) at `coverage`; the rest are the held-out points. Histories without a fit (fewer than two distinct
 * times) give none.
 */
function heldOutPoints(series: readonly BacktestSeries[], holdOut: number, coverage: number, visit: (p: HeldOutPoint) => void): void {
  const scratch = new TheilSenScratch();
  for (const s of series) {
    const n = s.t.length;
    const fitN = Math.max(2, Math.floor(n * (1 - holdOut)));
    const t0 = s.t[fitN - 1]!;
    const t = s.t.slice(0, fitN).map((x) => x - t0);
    const fit = theilSen(t, s.y, fitN, coverage, scratch);
    if (!fit) continue;
    const spanDays = -t[0]!;
    for (let i = fitN; i < n; i++) visit({ fit: { ...fit }, spanDays, h: s.t[i]! - t0, actual: s.y[i]! });
  }
}

/**
 * Backtest of the band: the share of held-out scans inside `[p50 + low * scale, p50 + high * scale]` and the
 * p50 line's median absolute percentage error (scans of 0 left out of the APE).
 * @param holdOut share of each series held out at its end (default 0.25)
 * @param band the band's multipliers (default the calibrated `TREND_BAND`)
 */
export function backtestTrends(
  series: readonly BacktestSeries[],
  holdOut = 0.25,
  coverage = DEFAULT_TREND_SETTINGS.intervalCoverage,
  band: Readonly<{ low: number; high: number; floor: number }> = TREND_BAND,
): BacktestResult {
  let inside = 0;
  let total = 0;
  const apes: number[] = [];
  heldOutPoints(series, holdOut, coverage, ({ fit, spanDays, h, actual }) => {
    const line = fit.intercept + fit.slope * h;
    const scale = bandScale(fit, spanDays, h, band.floor);
    total++;
    if (actual >= line + band.low * scale && actual <= line + band.high * scale) inside++;
    if (actual !== 0) apes.push(Math.abs(line - actual) / Math.abs(actual));
  });
  apes.sort((a, b) => a - b);
  return { series: series.length, heldOut: total, coverage: total ? inside / total : 0, medianApe: apes.length ? apes[Math.floor(apes.length / 2)]! : 0 };
}

/** A set of histories the band is calibrated or checked on: `count` histories of `samples` daily scans, `holdOut` held out. */
export interface HistorySet {
  count: number;
  samples: number;
  seed: number;
  holdOut: number;
}

/**
 * The histories `TREND_BAND` is calibrated on: short and long windows (14 to 150 daily scans), horizons of a
 * third to a whole fitted span. Seeds 1001-1007; the backtest and the held-out checks use other seeds.
 */
export const CALIBRATION_HISTORIES: readonly HistorySet[] = [
  { count: 1500, samples: 14, seed: 1001, holdOut: 0.25 },
  { count: 1000, samples: 20, seed: 1002, holdOut: 0.5 },
  { count: 1000, samples: 28, seed: 1003, holdOut: 0.25 },
  { count: 1000, samples: 40, seed: 1004, holdOut: 0.5 },
  { count: 500, samples: 60, seed: 1005, holdOut: 0.25 },
  { count: 300, samples: 100, seed: 1006, holdOut: 0.25 },
  { count: 300, samples: 150, seed: 1007, holdOut: 0.5 },
];

/**
 * Split conformal calibration of the band: over the held-out scans of `sets`, the normalised error
 * `(actual - p50 line) / bandScale` of each (scans where the scale is 0 count as 0 when on the line and as
 * +-Infinity otherwise), and its `(1 - target) / 2` and `(1 + target) / 2` quantiles (type 7). With tens of
 * thousands of scans the finite-sample correction of conformal quantiles ((n + 1) / n) is below 0.01 %.
 * @param target the band's coverage (fraction, default 0.8: p10-p90)
 * @returns the multipliers and the number of held-out scans they rest on
 */
export function calibrateTrendBand(sets: readonly HistorySet[], target = 0.8, floor = TREND_BAND.floor): { low: number; high: number; floor: number; points: number } {
  const scores: number[] = [];
  for (const set of sets) {
    heldOutPoints(generateHistories(set.count, set.samples, set.seed), set.holdOut, DEFAULT_TREND_SETTINGS.intervalCoverage, ({ fit, spanDays, h, actual }) => {
      const d = actual - (fit.intercept + fit.slope * h);
      const scale = bandScale(fit, spanDays, h, floor);
      scores.push(scale > 0 ? d / scale : d === 0 ? 0 : d > 0 ? Infinity : -Infinity);
    });
  }
  scores.sort((a, b) => a - b);
  const quantile = (q: number): number => {
    const pos = (scores.length - 1) * q;
    const lo = Math.floor(pos);
    if (pos === lo) return scores[lo]!;
    return scores[lo]! + (scores[lo + 1]! - scores[lo]!) * (pos - lo);
  };
  return { low: quantile((1 - target) / 2), high: quantile((1 + target) / 2), floor, points: scores.length };
}

/**
 * Generated quota histories for the backtest and the bench: `count` series of `samples` daily scans, each a
 * step process (on a day, with probability `stepChance`, usage jumps by a Service's or a node's worth of
 * backends), with small noise and one scan in twenty half-read (usage reported low). Deterministic per seed.
 */
export function generateHistories(count: number, samples: number, seed = 1): BacktestSeries[] {
  let x = seed >>> 0;
  const rnd = () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
  const out: BacktestSeries[] = [];
  for (let s = 0; s < count; s++) {
    const stepChance = 0.2 + rnd() * 0.6;
    const stepSize = 1 + Math.floor(rnd() * 20);
    let level = Math.floor(rnd() * 100);
    const t: number[] = [];
    const y: number[] = [];
    for (let i = 0; i < samples; i++) {
      if (rnd() < stepChance) level += stepSize;
      const noisy = level + Math.round((rnd() - 0.5) * 2);
      t.push(i);
      y.push(rnd() < 0.05 ? Math.floor(noisy / 2) : noisy);
    }
    out.push({ t, y });
  }
  return out;
}
