/**
 * Time-to-exhaustion forecasts of quota series: a Theil-Sen slope (median of the pairwise slopes) over a
 * window of samples, and a p10-p90 band around that line whose width is calibrated on held-out scans
 * (split conformal prediction), turned into p10 / p50 / p90 times to exhaustion.
 *
 * Why Theil-Sen: quota usage moves in steps and single scans can be wrong (a half-read region, a transient
 * burst); the median of pairwise slopes tolerates up to 29.3 % corrupted points, where OLS (Prometheus
 * `predict_linear`) follows every outlier (research/next-features-anchors.md §1 "Method notes", citing
 * scikit-learn's Theil-Sen example). Sen's distribution-free interval of the slope is computed too (P. K. Sen,
 * "Estimates of the regression coefficient based on Kendall's tau", JASA 63 (1968) 1379-1389; the same interval
 * as R `mblm`/`zyp` and SciPy `stats.theilslopes(alpha=...)`) and kept with every stored fit.
 *
 * Why a calibrated band rather than Sen's interval plus residual quantiles: quota usage is a step process (a
 * random walk with drift), so the error of a forecast h days ahead grows with h in a way an interval of the slope
 * alone does not follow; at nominal 80 % that construction held 48 % of held-out scans, and 73.7 % even at a
 * nominal 99 %. The band here follows the random walk's error: for a walk with step variance s^2 per day fitted
 * over a span S, the spread of its residuals about the fitted line grows like s * sqrt(S), the slope's error like
 * s / sqrt(S), so the error h days ahead scales as (residual spread) * sqrt(c + r + r^2) with r = h / S. The two
 * multipliers of that scale (`TREND_BAND`) are the 10th and 90th percentiles of the normalised errors of held-out
 * scans over calibration histories (split conformal prediction: V. Vovk, A. Gammerman, G. Shafer, "Algorithmic
 * Learning in a Random World", 2005, ch. 2; J. Lei et al., "Distribution-free predictive inference for regression",
 * JASA 113 (2018) 1094-1111), reproduced by `calibrateTrendBand` (backtest.util.ts) and checked on histories the
 * calibration did not see (libs/forecast/README.md gives the figures).
 *
 * Pure: `now` is passed in, no I/O.
 */

/** Status of one series' forecast. */
export type TrendStatus = 'ok' | 'insufficient_data' | 'flat' | 'decreasing' | 'exhausted';

/** Settings of the trend model (all optional; defaults in `DEFAULT_TREND_SETTINGS`). */
export interface TrendSettings {
  /** Samples older than `now - windowDays` are ignored (days, default 14). */
  windowDays: number;
  /** Fewer samples in the window than this -> `insufficient_data` (count, default 4). */
  minSamples: number;
  /** Window samples spanning less than this -> `insufficient_data` (hours, default 48). */
  minSpanHours: number;
  /**
   * A slope whose change over this horizon is under one quota unit is `flat` (days, default 365): quota
   * counts are integers, so less than one unit a year is no trend.
   */
  flatHorizonDays: number;
  /**
   * Two-sided coverage of Sen's slope interval and of the residual quantiles a fit keeps (fraction, default 0.8:
   * the 10th and 90th percentiles of the residuals). The band's scale is half the spread between those two
   * residual quantiles, and `TREND_BAND` is calibrated for 0.8: another value changes the band's width and its
   * coverage is no longer the calibrated 80 %.
   */
  intervalCoverage: number;
}

/** The defaults (research/next-features-anchors.md F1: >= 4 scans spanning >= 48 h, window 14 d). */
export const DEFAULT_TREND_SETTINGS: Readonly<TrendSettings> = {
  windowDays: 14,
  minSamples: 4,
  minSpanHours: 48,
  flatHorizonDays: 365,
  intervalCoverage: 0.8,
};

/** One observation of a quota: when (epoch ms), units used and the limit in force then (counts). */
export interface QuotaObservation {
  at: number;
  used: number;
  limit: number;
}

/** Three quantiles of one answer. */
export interface Quantiles<T> {
  p10: T;
  p50: T;
  p90: T;
}

/** The forecast of one series (units: counts, counts per day, seconds, ISO 8601 times). */
export interface TrendForecast {
  status: TrendStatus;
  /** Latest observed usage (count). */
  used: number;
  /** Latest limit (count): Quota Center raises change it, the latest one counts. */
  limit: number;
  /** Theil-Sen slope, units per day; null when there were too few samples to fit one. */
  slopePerDay: number | null;
  /** Samples in the window (count). */
  samples: number;
  /**
   * Seconds from `now` until usage reaches the limit: p10 (early: the band's upper edge reaches it), p50 (the
   * fitted line), p90 (late: the band's lower edge). 0 when exhausted; null where the status has no answer (flat,
   * decreasing, insufficient data) or, for p90 only, when the lower edge never reaches the limit (the data does
   * not rule out growth slower than the band widens).
   */
  secondsToExhaustion: Quantiles<number | null>;
  /** `now + secondsToExhaustion`, ISO 8601 (null where the seconds are null). */
  exhaustsAt: Quantiles<string | null>;
}

/** The standard normal quantile for probability `p` (Acklam's rational approximation, |error| < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be in (0, 1), got ${p}`);
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/**
 * The k-th smallest (0-based) of `a[from..to]` by in-place quickselect (Hoare partition, median-of-three
 * pivot); linear on average. Reorders the range.
 */
function select(a: Float64Array, from: number, to: number, k: number, s: TheilSenScratch): number {
  let lo = from;
  let hi = to;
  while (hi > lo) {
    const j = partition(a, lo, hi, s);
    const i = s.partitionRight;
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}

/**
 * One Hoare partition step of `a[lo..hi]` around a median-of-three pivot, the step of `select` and `multiSelect`:
 * afterwards `[lo, j] <= pivot`, `(j, i) == pivot`, `[i, hi] >= pivot`.
 * @returns `j`; `i` is left in `s.partitionRight` (no allocation per step)
 */
function partition(a: Float64Array, lo: number, hi: number, s: TheilSenScratch): number {
  const mid = (lo + hi) >>> 1;
  // median of three to the middle
  if (a[mid]! < a[lo]!) swap(a, mid, lo);
  if (a[hi]! < a[lo]!) swap(a, hi, lo);
  if (a[hi]! < a[mid]!) swap(a, hi, mid);
  const pivot = a[mid]!;
  let i = lo;
  let j = hi;
  while (i <= j) {
    while (a[i]! < pivot) i++;
    while (a[j]! > pivot) j--;
    if (i <= j) {
      swap(a, i, j);
      i++;
      j--;
    }
  }
  s.partitionRight = i;
  return j;
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

/**
 * The work space of Theil-Sen fits (`theilSen`, `fitTrendWindow`): buffers that grow to the largest series fitted
 * (doubling, never shrinking) and the normal quantile of the last coverage asked. A caller fitting many series passes
 * one scratch to every fit (one allocation per run instead of one per series); the fits are synchronous, so one series
 * uses it at a time. Owned by that caller's run, never shared between concurrent runs.
 */
export class TheilSenScratch {
  /** The pairwise slopes of a fit (n(n-1)/2 of n samples). */
  slopes = new Float64Array(256);
  /** The residuals of a fit (n). */
  residuals = new Float64Array(32);
  /** A window's sample times and values (`fitTrendWindow`; n each). */
  t = new Float64Array(32);
  y = new Float64Array(32);
  /** The slopes inside `bandAround`'s band, `bandSize` of them. */
  band = new Float64Array(256);
  bandSize = 0;
  /** `bandAround`'s evenly strided sample of the slopes. */
  readonly sample = new Float64Array(BAND_SAMPLE);
  /** The ranks `multiSelect` places (ascending). */
  readonly ranks = new Int32Array(4);
  /** Start of the right part left by the last `partition` (its `i`). */
  partitionRight = 0;
  /** `zOf`'s memo: the last coverage and its normal quantile. */
  zCoverage = NaN;
  zValue = NaN;
}

/** A Theil-Sen fit: slope (units per time unit of `t`), its interval, and the residual spread. */
export interface TheilSenFit {
  slope: number;
  slopeLow: number;
  slopeHigh: number;
  /** Median of `y - slope * t` (the line's value at t = 0). */
  intercept: number;
  /** Lower / upper residual quantiles at the interval's coverage (residual = y - fitted). */
  residualLow: number;
  residualHigh: number;
}

/**
 * Fits a Theil-Sen line to points `(t[i], y[i])`, i < n. Pairs with equal `t` are skipped. The slope
 * interval is Sen's: with N pairwise slopes sorted and C = z * sqrt(n(n-1)(2n+5)/18) (z the normal quantile
 * of (1 + coverage) / 2; the variance of Kendall's S without tie correction), the bounds are the slopes of
 * rank round((N - C) / 2) and round((N + C) / 2) (clamped to the range). O(n^2) pairs, selected in linear time.
 *
 * @param scratch the work space (default: a new one; pass one per run when fitting many series)
 * @returns undefined when fewer than two distinct times exist
 */
export function theilSen(
  t: ArrayLike<number>,
  y: ArrayLike<number>,
  n: number,
  coverage: number,
  scratch: TheilSenScratch = new TheilSenScratch(),
): TheilSenFit | undefined {
  const s = scratch;
  const pairs = (n * (n - 1)) / 2;
  if (s.slopes.length < pairs) s.slopes = new Float64Array(Math.max(pairs, s.slopes.length * 2));
  const buf = s.slopes; // local alias: the hot loop must not reload the property
  let m = 0;
  for (let i = 0; i < n; i++) {
    const ti = t[i]!;
    const yi = y[i]!;
    for (let j = i + 1; j < n; j++) {
      const dt = t[j]! - ti;
      if (dt === 0) continue;
      buf[m++] = (y[j]! - yi) / dt;
    }
  }
  if (m === 0) return undefined;
  const mid = (m - 1) / 2;
  const midLo = Math.floor(mid);
  const midHi = Math.ceil(mid);
  const z = zOf(coverage, s);
  const c = z * Math.sqrt((n * (n - 1) * (2 * n + 5)) / 18);
  const lowRank = Math.min(Math.max(Math.round((m - c) / 2) - 1, 0), m - 1);
  const highRank = Math.min(Math.max(Math.round((m + c) / 2), 0), m - 1);
  // One selection pass for all four order statistics (ascending ranks, duplicates allowed).
  // lowRank <= midLo <= midHi <= highRank always holds (c >= 0, round half up), so the ranks ascend.
  // Narrow the selection to a band of slopes that holds ranks lowRank..highRank (see `bandAround`); the
  // four order statistics are then selected within the band, shifted by the count of slopes below it.
  const below = m >= BAND_MIN_SLOPES ? bandAround(buf, m, lowRank, highRank, s) : -1;
  const sel = below >= 0 ? s.band : buf;
  const shift = below >= 0 ? below : 0;
  const last = below >= 0 ? s.bandSize - 1 : m - 1;
  const ranks = s.ranks;
  ranks[0] = lowRank - shift;
  ranks[1] = midLo - shift;
  ranks[2] = midHi - shift;
  ranks[3] = highRank - shift;
  multiSelect(sel, 0, last, 0, 3, s);
  const slope = (sel[midLo - shift]! + sel[midHi - shift]!) / 2;
  const slopeLow = sel[lowRank - shift]!;
  const slopeHigh = sel[highRank - shift]!;
  if (s.residuals.length < n) s.residuals = new Float64Array(Math.max(n, s.residuals.length * 2));
  const r = s.residuals;
  for (let i = 0; i < n; i++) r[i] = y[i]! - slope * t[i]!;
  const intercept = quantileOf(r, n, 0.5, s);
  for (let i = 0; i < n; i++) r[i] = r[i]! - intercept;
  const tail = (1 - coverage) / 2;
  const residualLow = quantileOf(r, n, tail, s);
  const residualHigh = quantileOf(r, n, 1 - tail, s);
  return { slope, slopeLow, slopeHigh, intercept, residualLow, residualHigh };
}

/** `normalQuantile((1 + coverage) / 2)`, memoised in the scratch for the last coverage (one setting per run). */
function zOf(coverage: number, s: TheilSenScratch): number {
  if (coverage !== s.zCoverage) {
    s.zValue = normalQuantile((1 + coverage) / 2);
    s.zCoverage = coverage;
  }
  return s.zValue;
}

/** Below this many pairwise slopes the band pre-filter does not pay; select in the whole buffer. */
const BAND_MIN_SLOPES = 256;
/** Slopes sampled (evenly strided) to place the band's bounds. */
const BAND_SAMPLE = 256;
/** Half-width margin of the band around the sampled quantiles, in binomial standard deviations of the sample. */
const BAND_MARGIN_SD = 2.5;

/**
 * Floyd-Rivest style pre-filter (R. W. Floyd, R. L. Rivest, "Expected time bounds for selection", CACM 18
 * (1975) 165-172): estimates from an evenly strided sample of the `m` slopes two bounds whose ranks bracket
 * `lowRank..highRank` with a margin of `BAND_MARGIN_SD` standard deviations, then copies the slopes between
 * the bounds into `s.band` (branch-free, one pass) and counts those below. Selecting four ranks among the
 * ~40 % of slopes in the band costs about half of selecting them among all (most of the cost of a fit is
 * the mispredicted branches of partitioning).
 *
 * @returns the count of slopes below the band when the band provably holds every requested rank
 *   (`s.band[0..s.bandSize)`), or -1 when the sample missed (rare; then select in `buf` instead).
 *   Exact either way: the order statistics are the same values.
 */
function bandAround(buf: Float64Array, m: number, lowRank: number, highRank: number, scratch: TheilSenScratch): number {
  const s = BAND_SAMPLE;
  const stride = m / s;
  const sampleBuf = scratch.sample;
  for (let i = 0; i < s; i++) sampleBuf[i] = buf[Math.floor(i * stride)]!;
  const margin = BAND_MARGIN_SD * Math.sqrt(s * 0.25);
  const sLow = Math.floor((lowRank / m) * s - margin);
  const sHigh = Math.ceil(((highRank + 1) / m) * s + margin);
  const lowBound = sLow <= 0 ? -Infinity : select(sampleBuf, 0, s - 1, sLow, scratch);
  const highBound = sHigh >= s - 1 ? Infinity : select(sampleBuf, Math.max(sLow, 0), s - 1, sHigh, scratch);
  if (scratch.band.length < m) scratch.band = new Float64Array(Math.max(m, scratch.band.length * 2));
  const band = scratch.band;
  let nb = 0;
  let below = 0;
  for (let i = 0; i < m; i++) {
    const x = buf[i]!;
    band[nb] = x;
    nb += +(x >= lowBound) & +(x <= highBound);
    below += +(x < lowBound);
  }
  if (below > lowRank || below + nb <= highRank) return -1;
  scratch.bandSize = nb;
  return below;
}

/**
 * Places the order statistics of ranks `s.ranks[rFrom..rTo]` (ascending, 0-based) of `a[from..to]` at their
 * sorted positions in one recursive partitioning (Hoare partition, median-of-three pivot, as `select`):
 * each partition step serves every requested rank at once, so four ranks cost about one and a half
 * quickselects instead of four. Reorders the range.
 */
function multiSelect(a: Float64Array, from: number, to: number, rFrom: number, rTo: number, s: TheilSenScratch): void {
  const ranks = s.ranks;
  let lo = from;
  const hi = to;
  while (rFrom <= rTo && hi > lo) {
    if (rFrom === rTo) {
      select(a, lo, hi, ranks[rFrom]!, s);
      return;
    }
    const j = partition(a, lo, hi, s);
    const i = s.partitionRight;
    // [lo, j] <= pivot, (j, i) == pivot, [i, hi] >= pivot. Ranks in the gap are already in place.
    let leftEnd = rFrom - 1;
    while (leftEnd < rTo && ranks[leftEnd + 1]! <= j) leftEnd++;
    let rightStart = leftEnd + 1;
    while (rightStart <= rTo && ranks[rightStart]! < i) rightStart++;
    if (leftEnd >= rFrom) multiSelect(a, lo, j, rFrom, leftEnd, s);
    rFrom = rightStart;
    lo = i;
  }
}

/** Quantile `q` of `a[0..n)` with linear interpolation between order statistics (type 7). Reorders `a`. */
function quantileOf(a: Float64Array, n: number, q: number, s: TheilSenScratch): number {
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const v = select(a, 0, n - 1, lo, s);
  if (pos === lo) return v;
  const w = select(a, lo + 1, n - 1, lo + 1, s);
  return v + (w - v) * (pos - lo);
}

const DAY_MS = 86_400_000;

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

const NONE: Readonly<Quantiles<null>> = { p10: null, p50: null, p90: null };

/**
 * The calibrated p10-p90 band (see the file header): the edges h days after the latest sample are
 * `level + slope * h + q * scale(h)` with q = `low` (p90 time, the lower edge) or `high` (p10 time, the upper
 * edge) and `scale(h) = (residualHigh - residualLow) / 2 * sqrt(floor + r + r^2)`, r = h / span.
 * - `low`, `high`: the 10th / 90th percentiles of the normalised held-out errors (dimensionless);
 * - `floor`: the part of the error that does not shrink with the horizon (the scan noise and a step just after
 *   the latest sample), as a share of the residual spread squared; 0.1 held coverage within 78.5-81.5 % across
 *   history lengths 14-336 and horizons of 0.1-1.5 spans, where 0 and 0.2 drifted to 62 % and 85 % at the ends.
 * Reproduce with `calibrateTrendBand(CALIBRATION_HISTORIES)` (backtest.util.ts); a unit test holds these values
 * to it. Valid for `intervalCoverage` 0.8.
 */
export const TREND_BAND: Readonly<{ low: number; high: number; floor: number }> = { low: -4.86, high: 4.026, floor: 0.1 };

/**
 * The band's scale h days after the latest sample of a fit over `spanDays` days: half the spread between the
 * fit's residual quantiles times sqrt(floor + r + r^2), r = h / spanDays (counts).
 * @param spanDays the span of the fitted samples (days, > 0; a fit has two distinct times at least)
 * @param h days after the latest sample (>= 0)
 */
export function bandScale(fit: TheilSenFit, spanDays: number, h: number, floor = TREND_BAND.floor): number {
  const r = h / spanDays;
  return ((fit.residualHigh - fit.residualLow) / 2) * Math.sqrt(floor + r + r * r);
}

/**
 * Days after the latest sample until the band edge `q` (TREND_BAND.low or .high; 0 for the fitted line)
 * reaches `limit`: the least h >= 0 with `intercept + slope * h + q * bandScale(h) >= limit`, in closed form.
 * The edge is concave and increasing for q >= 0 and convex for q < 0, so once above the limit it stays above:
 * squaring `q * scale(h) = gap - slope * h` gives a quadratic in h whose least root on the right side of the
 * square (sign of `gap - slope * h` equal to the sign of q) is the crossing.
 * @returns 0 when the edge is at or above the limit at h = 0; null when it never reaches it
 */
export function daysUntilEdge(fit: TheilSenFit, spanDays: number, limit: number, q: number, floor = TREND_BAND.floor): number | null {
  if (fit.intercept + q * bandScale(fit, spanDays, 0, floor) >= limit) return 0;
  const gap = limit - fit.intercept;
  const k = q * ((fit.residualHigh - fit.residualLow) / 2);
  if (k === 0) return fit.slope > 0 ? gap / fit.slope : null;
  // k^2 (floor + h/S + h^2/S^2) = (gap - slope h)^2  ->  a h^2 + b h + c = 0
  const s2 = spanDays * spanDays;
  const a = fit.slope * fit.slope - (k * k) / s2;
  const b = -2 * gap * fit.slope - (k * k) / spanDays;
  const c = gap * gap - k * k * floor;
  const roots: number[] = [];
  if (a === 0) {
    if (b !== 0) roots.push(-c / b);
  } else {
    const disc = b * b - 4 * a * c;
    if (disc >= 0) {
      const sq = Math.sqrt(disc);
      roots.push((-b - sq) / (2 * a), (-b + sq) / (2 * a));
    }
  }
  let best: number | null = null;
  for (const h of roots) {
    // The root of the unsquared equation: q * scale >= 0 exactly when q >= 0.
    if (!(h >= 0) || (gap - fit.slope * h >= 0) !== k > 0) continue;
    if (best === null || h < best) best = h;
  }
  return best;
}

/**
 * Forecasts one quota series.
 *
 * Status rules, in order: `exhausted` when the latest `used >= limit`; `insufficient_data` with fewer than
 * `minSamples` samples in the window or a span under `minSpanHours`; `flat` when |slope| x `flatHorizonDays`
 * < 1 unit; `decreasing` when the slope is negative; else `ok`. Times to exhaustion (seconds from `now`) for
 * `ok`: p50 = (limit - level) / slope where level is the fitted line at the latest sample (robust to one bad
 * latest scan); p10 and p90 = when the upper and lower edges of the calibrated band (`TREND_BAND`,
 * `daysUntilEdge`) reach the limit, p90 null when the lower edge never does. Each is counted from the latest
 * sample and clamped at 0.
 *
 * @param observations the series' samples in any order (epoch ms, counts)
 * @param now the forecast clock (epoch ms)
 * @param settings partial overrides of `DEFAULT_TREND_SETTINGS`
 */
export function forecastTrend(
  observations: readonly QuotaObservation[],
  now: number,
  settings: Partial<TrendSettings> = {},
): TrendForecast {
  return forecastTrendWith(observations, now, resolveTrendSettings(settings));
}

/** `DEFAULT_TREND_SETTINGS` with `settings` applied (resolve once per run, not per series). */
export function resolveTrendSettings(settings: Partial<TrendSettings> = {}): TrendSettings {
  return { ...DEFAULT_TREND_SETTINGS, ...settings };
}

/**
 * What a forecast needs of a series' window, fitted once: the window's sample count, span and
 * latest sample, and the Theil-Sen fit. Everything here depends only on the samples in the window and the
 * interval coverage, never on the clock: `projectTrend` turns it into the forecast at any `now`, so a fit
 * stored when a scan completes (libs/store quota trend fits) answers every request over the same samples.
 * Units: counts, epoch ms, ms; slopes in units per day.
 */
export interface TrendFit {
  /** Samples in the window (count). */
  samples: number;
  /** Time from the first to the latest sample of the window (ms; 0 without samples). */
  spanMs: number;
  /**
   * Time of the latest sample of the window (epoch ms); null without one (then `used` / `limit` are those of
   * the latest sample outside the window, or 0).
   */
  latestAt: number | null;
  /** Whether the series has any sample at all (false: nothing can be exhausted). */
  hasLatest: boolean;
  /** Usage and limit of the latest sample (counts). */
  used: number;
  limit: number;
  /** The Theil-Sen fit over the window's samples (t in days before the latest sample); null with fewer than two distinct times. */
  fit: TheilSenFit | null;
}

/**
 * The window part of a forecast: the samples of `observations` in `[now - windowDays, now]` and their
 * Theil-Sen fit at `s.intervalCoverage` (`projectTrend` does the rest).
 * @param observations the series' samples in any order (epoch ms, counts)
 * @param scratch the fit's work space (default: a new one; pass one per run when fitting many series)
 */
export function fitTrendWindow(
  observations: readonly QuotaObservation[],
  now: number,
  s: TrendSettings,
  scratch: TheilSenScratch = new TheilSenScratch(),
): TrendFit {
  const from = now - s.windowDays * DAY_MS;
  // Fast path (the store returns series ordered by time): no copy, no sort. Otherwise filter and sort.
  let sorted = true;
  for (let i = 1; i < observations.length; i++) {
    if (observations[i]!.at < observations[i - 1]!.at) {
      sorted = false;
      break;
    }
  }
  const ordered = sorted ? observations : [...observations].sort((a, b) => a.at - b.at);
  let first = 0;
  while (first < ordered.length && ordered[first]!.at < from) first++;
  let end = first;
  while (end < ordered.length && ordered[end]!.at <= now) end++;
  const n = end - first;
  const latest = n > 0 ? ordered[end - 1] : ordered[ordered.length - 1];
  const used = latest?.used ?? 0;
  const limit = latest?.limit ?? 0;
  const span = n > 0 ? ordered[end - 1]!.at - ordered[first]!.at : 0;
  const latestAt = n > 0 ? ordered[end - 1]!.at : null;
  const base = { samples: n, spanMs: span, latestAt, hasLatest: latest !== undefined, used, limit };
  // An exhausted series is fitted too: its forecast is "now" whatever the trend, but a quota plan still needs the
  // trend of a quota at its limit (how much more it will take).
  if (scratch.t.length < n) {
    scratch.t = new Float64Array(Math.max(n, scratch.t.length * 2));
    scratch.y = new Float64Array(scratch.t.length);
  }
  const t = scratch.t;
  const y = scratch.y;
  const t0 = latestAt ?? now;
  for (let i = 0; i < n; i++) {
    const o = ordered[first + i]!;
    t[i] = (o.at - t0) / DAY_MS; // days relative to the latest sample (<= 0)
    y[i] = o.used;
  }
  return { ...base, fit: (n >= 2 ? theilSen(t, y, n, s.intervalCoverage, scratch) : undefined) ?? null };
}

/**
 * `forecastTrend` with settings already resolved (`resolveTrendSettings`); the per-series hot path.
 * @param scratch the fit's work space (default: a new one; pass one per run when forecasting many series)
 */
export function forecastTrendWith(
  observations: readonly QuotaObservation[],
  now: number,
  s: TrendSettings,
  scratch: TheilSenScratch = new TheilSenScratch(),
): TrendForecast {
  return projectTrend(fitTrendWindow(observations, now, s, scratch), now, s);
}

/**
 * The forecast at `now` of a fitted window (`fitTrendWindow` with the same `intervalCoverage`): the status
 * rules and times to exhaustion of `forecastTrend`. Cheap (no samples): a request over stored fits costs this
 * per series.
 */
export function projectTrend(w: TrendFit, now: number, s: TrendSettings): TrendForecast {
  const { used, limit, samples: n, fit } = w;
  const base = { used, limit, samples: n };
  if (w.hasLatest && used >= limit) {
    return {
      status: 'exhausted',
      ...base,
      slopePerDay: null,
      secondsToExhaustion: { p10: 0, p50: 0, p90: 0 },
      exhaustsAt: { p10: iso(now), p50: iso(now), p90: iso(now) },
    };
  }
  const t0 = w.latestAt ?? now;
  const slopePerDay = fit ? fit.slope : null;
  if (n < s.minSamples || w.spanMs < s.minSpanHours * 3_600_000 || !fit) {
    return { status: 'insufficient_data', ...base, slopePerDay, secondsToExhaustion: NONE, exhaustsAt: NONE };
  }
  if (Math.abs(fit.slope) * s.flatHorizonDays < 1) {
    return { status: 'flat', ...base, slopePerDay: fit.slope, secondsToExhaustion: NONE, exhaustsAt: NONE };
  }
  if (fit.slope < 0) {
    return { status: 'decreasing', ...base, slopePerDay: fit.slope, secondsToExhaustion: NONE, exhaustsAt: NONE };
  }
  const spanDays = w.spanMs / DAY_MS;
  const lag = (now - t0) / 1000;
  const seconds = (days: number | null): number | null => (days === null ? null : Math.max(0, days * 86_400 - lag));
  const p50 = seconds(daysUntilEdge(fit, spanDays, limit, 0));
  const p10 = seconds(daysUntilEdge(fit, spanDays, limit, TREND_BAND.high));
  const p90 = seconds(daysUntilEdge(fit, spanDays, limit, TREND_BAND.low));
  const at = (sec: number | null) => (sec === null ? null : now + Math.round(sec * 1000));
  const secondsToExhaustion = { p10: round(p10), p50: round(p50), p90: round(p90) };
  return {
    status: 'ok',
    ...base,
    slopePerDay: fit.slope,
    secondsToExhaustion,
    exhaustsAt: { p10: iso(at(secondsToExhaustion.p10)), p50: iso(at(secondsToExhaustion.p50)), p90: iso(at(secondsToExhaustion.p90)) },
  };
}

function round(x: number | null): number | null {
  return x === null ? null : Math.round(x);
}
