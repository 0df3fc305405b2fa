/**
 * Backtest of the trend model (research/next-features-anchors.md F3): fit on the first 75 % of each series,
 * and count how often the held-out scans fall inside the p10-p90 band the fit predicts for their time
 * (lower = level + 10th-percentile residual + low slope x dt, upper = level + 90th-percentile residual +
 * high slope x dt). Also reports the median absolute percentage error of the p50 line.
 */
import { DEFAULT_TREND_SETTINGS, TheilSenScratch, theilSen } from './trend.model';

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

/** @param holdOut share of each series held out at its end (default 0.25) */
export function backtestTrends(series: readonly BacktestSeries[], holdOut = 0.25, coverage = DEFAULT_TREND_SETTINGS.intervalCoverage): BacktestResult {
  let inside = 0;
  let total = 0;
  const apes: number[] = [];
  const scratch = new TheilSenScratch();
  for (const s of series) {
    const n = s.t.length;
    const fitN = Math.max(2, Math.floor(n * (1 - holdOut)));
    const t0 = s.t[fitN - 1]!;
    const t = s.t.slice(0, fitN).map((x) => x - t0);
    const fit = theilSen(t, s.y, fitN, coverage, scratch);
    if (!fit) continue;
    for (let i = fitN; i < n; i++) {
      const dt = s.t[i]! - t0;
      const lower = fit.intercept + fit.residualLow + Math.min(fit.slopeLow, fit.slope) * dt;
      const upper = fit.intercept + fit.residualHigh + Math.max(fit.slopeHigh, fit.slope) * dt;
      const actual = s.y[i]!;
      total++;
      if (actual >= lower && actual <= upper) inside++;
      if (actual !== 0) apes.push(Math.abs(fit.intercept + fit.slope * dt - actual) / Math.abs(actual));
    }
  }
  apes.sort((a, b) => a - b);
  return { series: series.length, heldOut: total, coverage: total ? inside / total : 0, medianApe: apes.length ? apes[Math.floor(apes.length / 2)]! : 0 };
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
