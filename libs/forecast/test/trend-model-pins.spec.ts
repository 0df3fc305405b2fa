/**
 * Pins of the trend model against oracles that do not share its code: published normal quantiles, a full sort of
 * every pairwise slope and residual, a bisection of the band edge, and hand-worked series (unsorted samples, a
 * window of two weeks of hourly scans, a clock after the latest scan, a quota exactly at its limit).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_TREND_SETTINGS,
  TREND_BAND,
  TheilSenScratch,
  bandScale,
  daysUntilEdge,
  fitTrendWindow,
  forecastTrend,
  forecastTrendWith,
  normalQuantile,
  projectTrend,
  resolveTrendSettings,
  theilSen,
  type QuotaObservation,
  type TheilSenFit,
} from '../src/trend.model';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-20T00:00:00Z');

/** Deterministic pseudo-random in [0, 1) (LCG). */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Type 7 quantile of a sorted copy (the definition `theilSen` documents). */
function quantile7(values: number[], q: number): number {
  const a = [...values].sort((x, y) => x - y);
  const pos = (a.length - 1) * q;
  const lo = Math.floor(pos);
  return lo === pos ? a[lo]! : a[lo]! + (a[lo + 1]! - a[lo]!) * (pos - lo);
}

/** Every field of a Theil-Sen fit from full sorts (no selection, no band pre-filter, no scratch). */
function referenceFit(t: number[], y: number[], coverage: number): TheilSenFit {
  const slopes: number[] = [];
  for (let i = 0; i < t.length; i++) for (let j = i + 1; j < t.length; j++) if (t[j] !== t[i]) slopes.push((y[j]! - y[i]!) / (t[j]! - t[i]!));
  slopes.sort((a, b) => a - b);
  const m = slopes.length;
  const n = t.length;
  // Sen's interval: z of (1 + coverage) / 2 from the published table values used below.
  const z = normalQuantile((1 + coverage) / 2);
  const c = z * Math.sqrt((n * (n - 1) * (2 * n + 5)) / 18);
  const low = Math.min(Math.max(Math.round((m - c) / 2) - 1, 0), m - 1);
  const high = Math.min(Math.max(Math.round((m + c) / 2), 0), m - 1);
  const slope = (slopes[Math.floor((m - 1) / 2)]! + slopes[Math.ceil((m - 1) / 2)]!) / 2;
  const raw = y.map((v, i) => v - slope * t[i]!);
  const intercept = quantile7(raw, 0.5);
  const residuals = raw.map((r) => r - intercept);
  const tail = (1 - coverage) / 2;
  return { slope, slopeLow: slopes[low]!, slopeHigh: slopes[high]!, intercept, residualLow: quantile7(residuals, tail), residualHigh: quantile7(residuals, 1 - tail) };
}

describe('normalQuantile', () => {
  // Published values of the standard normal quantile (Abramowitz & Stegun table 26.5; R qnorm).
  it.each([
    [0.5, 0],
    [0.6, 0.2533471031],
    [0.7, 0.5244005127],
    [0.8, 0.8416212336],
    [0.9, 1.2815515655],
    [0.95, 1.6448536270],
    [0.975, 1.9599639845],
    [0.98, 2.0537489106],
    [0.99, 2.3263478740],
    [0.995, 2.5758293035],
    [0.999, 3.0902323062],
    [0.1, -1.2815515655],
    [0.02, -2.0537489106],
    [0.01, -2.3263478740],
    [0.001, -3.0902323062],
    [1e-6, -4.7534243088],
    [0.3, -0.5244005127],
  ])('p = %s -> %s', (p, z) => {
    expect(Math.abs(normalQuantile(p) - z)).toBeLessThan(1e-8);
  });

  it('refuses a probability outside (0, 1)', () => {
    for (const p of [0, 1, -0.1, 1.5, Number.NaN]) expect(() => normalQuantile(p)).toThrow(new RangeError(`normalQuantile: p must be in (0, 1), got ${p}`));
  });
});

describe('theilSen against full sorts', () => {
  /** Times and values of one generated series (`n` samples of a shape, seeded). */
  function series(n: number, seed: number, shape: 'noise' | 'steps' | 'shuffled' | 'repeatedTimes' | 'integers'): { t: number[]; y: number[] } {
    const rnd = lcg(seed);
    let t = Array.from({ length: n }, (_, i) => (shape === 'repeatedTimes' ? Math.floor(i / 2) : i + rnd() * 0.5));
    if (shape === 'shuffled') t = t.map((v) => ({ v, k: rnd() })).sort((a, b) => a.k - b.k).map((e) => e.v);
    let level = 0;
    const y = t.map((ti) => (shape === 'steps' ? (level += rnd() < 0.3 ? 5 : 0) : shape === 'integers' ? Math.floor(ti) * 2 + Math.floor(rnd() * 3) : 3 * ti + (rnd() - 0.5) * 20));
    return { t, y };
  }

  /** Every field of `theilSen`'s fit equals the full-sort reference (or no fit with fewer than two distinct times). */
  function expectReference(t: number[], y: number[], coverage: number, scratch?: TheilSenScratch): void {
    const fit = theilSen(t, y, t.length, coverage, scratch);
    if (new Set(t).size < 2) {
      expect(fit).toBeUndefined();
      return;
    }
    const want = referenceFit(t, y, coverage);
    expect(fit!.slope).toBe(want.slope);
    expect(fit!.slopeLow).toBe(want.slopeLow);
    expect(fit!.slopeHigh).toBe(want.slopeHigh);
    expect(fit!.intercept).toBeCloseTo(want.intercept, 9);
    expect(fit!.residualLow).toBeCloseTo(want.residualLow, 9);
    expect(fit!.residualHigh).toBeCloseTo(want.residualHigh, 9);
  }

  it('long series (up to two weeks of hourly scans), every shape: every field matches the sorted reference', () => {
    // The cost of a fit grows with n^2: a few long series here, many short ones in the property below.
    const scratch = new TheilSenScratch();
    const shapes = ['noise', 'steps', 'shuffled', 'repeatedTimes', 'integers'] as const;
    for (const [i, n] of [120, 200, 336].entries()) {
      for (const [k, shape] of shapes.entries()) {
        const { t, y } = series(n, 31 * i + k, shape);
        expectReference(t, y, [0.8, 0.9, 0.99][(i + k) % 3]!, k % 2 === 0 ? scratch : undefined);
      }
    }
  });

  it('a staircase whose evenly strided sample of slopes misses the lower rank of the interval: the fit is still exact', () => {
    // Steps of 1,000 every 9 samples with +-50 wiggles: 2,211 pairwise slopes, and the 256 the band pre-filter samples
    // place its lower bound above the slope of rank 986 (found by search), so the band cannot hold it.
    const y = [
      0, -50, -100, 150, -200, 250, 300, 350, 400, 1000, 1050, 1100, 850, 1200, 1250, 1300, 650, 600, 2000, 1950, 2100, 2150, 2200, 2250, 2300, 2350,
      2400, 3000, 3050, 3100, 2850, 3200, 3250, 3300, 3350, 3400, 4000, 3950, 3900, 4150, 4200, 4250, 3700, 3650, 3600, 5000, 5050, 4900, 4850, 5200,
      4750, 5300, 4650, 4600, 6000, 5950, 6100, 5850, 5800, 6250, 6300, 5650, 6400, 7000, 6950, 6900, 6850,
    ];
    expectReference(y.map((_, i) => i), y, 0.8);
  });

  it('every field matches the sorted reference, for unsorted times, ties, repeated times and series of 2 to 80 samples', () => {
    const scratch = new TheilSenScratch();
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 80 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom('noise', 'steps', 'shuffled', 'repeatedTimes', 'integers'),
        fc.constantFrom(0.8, 0.9, 0.99),
        fc.boolean(),
        (n, seed, shape, coverage, shared) => {
          const { t, y } = series(n, seed, shape);
          expectReference(t, y, coverage, shared ? scratch : undefined);
        },
      ),
      { seed: 20261129, numRuns: 300 },
    );
  });

  it('one scratch serves series of growing and shrinking sizes with the same answers as fresh ones', () => {
    const scratch = new TheilSenScratch();
    for (const n of [3, 40, 5, 180, 12, 300, 2]) {
      const rnd = lcg(n);
      const t = Array.from({ length: n }, (_, i) => i);
      const y = t.map((x) => x * 1.5 + Math.floor(rnd() * 10));
      expect(theilSen(t, y, n, 0.8, scratch)).toEqual(theilSen(t, y, n, 0.8));
    }
  });

  it('Sen interval bounds widen with the coverage asked', () => {
    const rnd = lcg(3);
    const t = Array.from({ length: 30 }, (_, i) => i);
    const y = t.map((x) => 2 * x + (rnd() - 0.5) * 30);
    const narrow = theilSen(t, y, 30, 0.5)!;
    const wide = theilSen(t, y, 30, 0.99)!;
    expect(wide.slopeLow).toBeLessThan(narrow.slopeLow);
    expect(wide.slopeHigh).toBeGreaterThan(narrow.slopeHigh);
    expect(wide.residualLow).toBeLessThan(narrow.residualLow);
    expect(wide.residualHigh).toBeGreaterThan(narrow.residualHigh);
    // the memoised z follows the coverage when the same scratch alternates between two
    const scratch = new TheilSenScratch();
    expect(theilSen(t, y, 30, 0.5, scratch)).toEqual(narrow);
    expect(theilSen(t, y, 30, 0.99, scratch)).toEqual(wide);
    expect(theilSen(t, y, 30, 0.5, scratch)).toEqual(narrow);
  });

  it('only the first n points count', () => {
    const t = [0, 1, 2, 3, 4, 5];
    const y = [0, 1, 2, 3, 100, -100];
    expect(theilSen(t, y, 4, 0.8)).toEqual(referenceFit(t.slice(0, 4), y.slice(0, 4), 0.8));
  });
});

describe('daysUntilEdge against a bisection of the edge', () => {
  /** The edge's value h days after the latest sample (the band's definition, evaluated directly). */
  const edge = (fit: TheilSenFit, span: number, q: number, h: number) => fit.intercept + fit.slope * h + q * bandScale(fit, span, h);
  /** Least h in [0, H] with edge >= limit by bisection; null when edge(H) stays below. */
  function bisect(fit: TheilSenFit, span: number, limit: number, q: number): number | null {
    if (edge(fit, span, q, 0) >= limit) return 0;
    let hi = 1;
    while (edge(fit, span, q, hi) < limit) {
      hi *= 2;
      if (hi > 1e9) return null;
    }
    let lo = 0;
    for (let i = 0; i < 200; i++) {
      const mid = (lo + hi) / 2;
      if (edge(fit, span, q, mid) >= limit) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  it('crosses where the edge reaches the limit, for the line, the upper and the lower edge', () => {
    fc.assert(
      fc.property(
        // hundredths: realistic magnitudes, no subnormal slopes whose crossing lies beyond any horizon
        fc.integer({ min: -500, max: 4_000 }),
        fc.integer({ min: 0, max: 2_000 }),
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 100, max: 6_000 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.constantFrom(0, TREND_BAND.low, TREND_BAND.high),
        (slope100, spread100, intercept100, span100, gap100, q) => {
          const [slope, spread, intercept, span, gap] = [slope100, spread100, intercept100, span100, gap100].map((v) => v / 100) as [number, number, number, number, number];
          const fit: TheilSenFit = { slope, slopeLow: slope, slopeHigh: slope, intercept, residualLow: -spread / 2, residualHigh: spread / 2 };
          const limit = intercept + gap;
          const got = daysUntilEdge(fit, span, limit, q);
          const want = bisect(fit, span, limit, q);
          if (want === null) {
            expect(got).toBeNull();
            return;
          }
          expect(got).not.toBeNull();
          expect(Math.abs(got! - want)).toBeLessThanOrEqual(1e-6 * Math.max(1, want));
        },
      ),
      { seed: 20261129, numRuns: 2000 },
    );
  });

  it('an edge whose far-out growth equals the slope (the quadratic degenerates to a line) crosses where bisection says', () => {
    // k^2 / span^2 = slope^2 exactly: the h^2 terms cancel (a = 0) and the crossing is the linear root.
    const fit: TheilSenFit = { slope: 1, slopeLow: 1, slopeHigh: 1, intercept: 0, residualLow: -1, residualHigh: 1 };
    const upper = daysUntilEdge(fit, 4.026, 10, TREND_BAND.high)!;
    expect(upper).toBeGreaterThan(0);
    expect(Math.abs(upper - bisect(fit, 4.026, 10, TREND_BAND.high)!)).toBeLessThan(1e-9);
    // the lower edge of the same shape tends to intercept - span / 2 and never reaches a limit above it
    expect(daysUntilEdge(fit, 4.86, 10, TREND_BAND.low)).toBeNull();
    expect(bisect(fit, 4.86, 10, TREND_BAND.low)).toBeNull();
  });

  it('worked cases: a line, an edge already over the limit, a lower edge that never gets there', () => {
    const line: TheilSenFit = { slope: 2, slopeLow: 2, slopeHigh: 2, intercept: 10, residualLow: 0, residualHigh: 0 };
    expect(daysUntilEdge(line, 10, 30, TREND_BAND.high)).toBe(10);
    expect(daysUntilEdge(line, 10, 10, 0)).toBe(0);
    expect(daysUntilEdge({ ...line, slope: 0 }, 10, 30, 0)).toBeNull();
    const wide: TheilSenFit = { slope: 0.1, slopeLow: 0, slopeHigh: 1, intercept: 10, residualLow: -5, residualHigh: 5 };
    // the upper edge starts at 10 + 4.026 * 5 * sqrt(0.1) = 16.37: a limit of 16 is already reached
    expect(daysUntilEdge(wide, 10, 16, TREND_BAND.high)).toBe(0);
    expect(daysUntilEdge(wide, 10, 17, TREND_BAND.high)).toBeGreaterThan(0);
    // the lower edge grows at 0.1 - 4.86 * 5 / 10 < 0 per day far out: it never reaches 11
    expect(daysUntilEdge(wide, 10, 11, TREND_BAND.low)).toBeNull();
    // the band's scale at h = span is the spread times sqrt(0.1 + 1 + 1)
    expect(bandScale(wide, 10, 10)).toBeCloseTo(5 * Math.sqrt(2.1), 12);
    expect(bandScale(wide, 10, 0)).toBeCloseTo(5 * Math.sqrt(0.1), 12);
  });
});

describe('forecastTrend, pinned', () => {
  /** A noisy climb of `n` samples `stepMs` apart ending at NOW. */
  function climb(n: number, stepMs: number, seed: number, limit: number): QuotaObservation[] {
    const rnd = lcg(seed);
    let level = 100;
    return Array.from({ length: n }, (_, i) => {
      if (rnd() < 0.3) level += 3;
      return { at: NOW - (n - 1 - i) * stepMs, used: level + Math.floor(rnd() * 3), limit };
    });
  }

  it('unsorted samples give the same forecast as the same samples in time order', () => {
    const obs = climb(40, 8 * HOUR, 11, 400);
    const rnd = lcg(5);
    const shuffled = obs.map((o) => ({ o, k: rnd() })).sort((a, b) => a.k - b.k).map((e) => e.o);
    expect(shuffled).not.toEqual(obs);
    expect(forecastTrend(shuffled, NOW)).toEqual(forecastTrend(obs, NOW));
  });

  it('two weeks of hourly scans (336 samples): the fit is that of a full sort over every sample in the window', () => {
    const obs = climb(400, HOUR, 12, 2_000);
    const f = forecastTrend(obs, NOW);
    const inWindow = obs.filter((o) => o.at >= NOW - 14 * DAY);
    expect(f.samples).toBe(inWindow.length);
    expect(inWindow.length).toBe(337);
    const latest = inWindow[inWindow.length - 1]!.at;
    const ref = referenceFit(inWindow.map((o) => (o.at - latest) / DAY), inWindow.map((o) => o.used), DEFAULT_TREND_SETTINGS.intervalCoverage);
    expect(f.slopePerDay).toBe(ref.slope);
    const gap = 2_000 - ref.intercept;
    expect(f.secondsToExhaustion.p50).toBe(Math.round((gap / ref.slope) * 86_400));
  });

  it('a clock after the latest scan takes the time since it off every answer, second for second', () => {
    const obs = climb(20, 12 * HOUR, 13, 600); // 9.5 days: the later window still holds every sample
    const at = forecastTrend(obs, NOW);
    const later = forecastTrend(obs, NOW + 3 * DAY + 7_000);
    expect(at.status).toBe('ok');
    for (const k of ['p10', 'p50', 'p90'] as const) {
      if (at.secondsToExhaustion[k] === null) continue;
      expect(later.secondsToExhaustion[k]).toBe(Math.max(0, at.secondsToExhaustion[k]! - 3 * 86_400 - 7));
      expect(later.exhaustsAt[k]).toBe(at.exhaustsAt[k]);
    }
  });

  it('a quota exactly at its limit is exhausted now; one unit under it is not', () => {
    const at = Array.from({ length: 6 }, (_, i) => ({ at: NOW - (5 - i) * DAY, used: 190 + 2 * i, limit: 200 }));
    expect(forecastTrend(at, NOW)).toEqual({
      status: 'exhausted',
      used: 200,
      limit: 200,
      samples: 6,
      slopePerDay: null,
      secondsToExhaustion: { p10: 0, p50: 0, p90: 0 },
      exhaustsAt: { p10: '2026-11-20T00:00:00.000Z', p50: '2026-11-20T00:00:00.000Z', p90: '2026-11-20T00:00:00.000Z' },
    });
    const under = at.map((o) => ({ ...o, used: o.used - 1 }));
    const f = forecastTrend(under, NOW);
    expect(f.status).toBe('ok');
    expect(f.used).toBe(199);
    // slope 2 per day, one unit left: half a day on the line
    expect(f.secondsToExhaustion.p50).toBe(43_200);
  });

  it('p10 <= p50 <= p90 whenever they exist, and p10 comes from the upper edge of the calibrated band', () => {
    fc.assert(
      fc.property(fc.integer({ min: 6, max: 60 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (n, seed) => {
        const obs = climb(n, 6 * HOUR, seed, 300);
        const s = resolveTrendSettings({});
        const w = fitTrendWindow(obs, NOW, s);
        const f = projectTrend(w, NOW, s);
        if (f.status !== 'ok') return;
        const { p10, p50, p90 } = f.secondsToExhaustion;
        expect(p10).not.toBeNull();
        expect(p10!).toBeLessThanOrEqual(p50!);
        if (p90 !== null) expect(p90).toBeGreaterThanOrEqual(p50!);
        const span = w.spanMs / DAY;
        expect(p10).toBe(Math.round(Math.max(0, daysUntilEdge(w.fit!, span, f.limit, TREND_BAND.high)! * 86_400)));
      }),
      { seed: 7, numRuns: 200 },
    );
  });

  it('p10, p50 and p90 of a worked series are where the calibrated band (-4.86, 4.026, floor 0.1) reaches the limit', () => {
    // Eight daily scans climbing 2 a day with +-1 of alternating noise, limit 150; the fit from full sorts, the
    // band's edges written out with the calibrated constants, and each crossing found by bisection.
    const obs = Array.from({ length: 8 }, (_, i) => ({ at: NOW - (7 - i) * DAY, used: 100 + 2 * i + (i % 2 === 0 ? 1 : -1), limit: 150 }));
    const ref = referenceFit(obs.map((o) => (o.at - NOW) / DAY), obs.map((o) => o.used), 0.8);
    const half = (ref.residualHigh - ref.residualLow) / 2;
    const edge = (q: number, h: number) => ref.intercept + ref.slope * h + q * half * Math.sqrt(0.1 + h / 7 + (h / 7) ** 2);
    const crossing = (q: number): number | null => {
      let hi = 1;
      while (edge(q, hi) < 150) if ((hi *= 2) > 1e6) return null;
      let lo = 0;
      for (let i = 0; i < 100; i++) [lo, hi] = edge(q, (lo + hi) / 2) >= 150 ? [lo, (lo + hi) / 2] : [(lo + hi) / 2, hi];
      return Math.round(hi * 86_400);
    };
    const f = forecastTrend(obs, NOW);
    expect(f.status).toBe('ok');
    expect(f.slopePerDay).toBe(ref.slope);
    expect(f.secondsToExhaustion.p50).toBe(crossing(0));
    expect(f.secondsToExhaustion.p10).toBe(crossing(4.026));
    const p90 = crossing(-4.86);
    expect(p90).not.toBeNull();
    expect(f.secondsToExhaustion.p90).toBe(p90);
    expect(f.secondsToExhaustion.p10!).toBeLessThan(f.secondsToExhaustion.p50!);
    expect(f.secondsToExhaustion.p90!).toBeGreaterThan(f.secondsToExhaustion.p50!);
    expect(f.exhaustsAt.p10).toBe(new Date(NOW + f.secondsToExhaustion.p10! * 1000).toISOString());
    expect(f.exhaustsAt.p90).toBe(new Date(NOW + p90! * 1000).toISOString());
  });

  it('a p90 the data cannot give is null in seconds and in date; two samples fit a line when two are enough', () => {
    // Noisy and slow: the lower edge of the band never reaches the limit.
    const noisy = Array.from({ length: 10 }, (_, i) => ({ at: NOW - (9 - i) * DAY, used: 100 + i * 0.5 + (i % 2 === 0 ? 20 : -20), limit: 400 }));
    const f = forecastTrend(noisy, NOW);
    expect(f.status).toBe('ok');
    expect(f.secondsToExhaustion.p90).toBeNull();
    expect(f.exhaustsAt.p90).toBeNull();
    expect(f.exhaustsAt.p10).not.toBeNull();
    const two = [{ at: NOW - 3 * DAY, used: 10, limit: 100 }, { at: NOW, used: 16, limit: 100 }];
    const fit = forecastTrend(two, NOW, { minSamples: 2 });
    expect(fit).toMatchObject({ status: 'ok', slopePerDay: 2, samples: 2 });
    expect(fit.secondsToExhaustion.p50).toBe(42 * 86_400);
  });

  it('with nothing in the window, used and limit are those of the series\' last sample, whatever its time', () => {
    const obs = [{ at: NOW - 30 * DAY, used: 5, limit: 9 }, { at: NOW + DAY, used: 8, limit: 12 }];
    expect(forecastTrend(obs, NOW)).toMatchObject({ status: 'insufficient_data', samples: 0, used: 8, limit: 12 });
    const onlyOld = [{ at: NOW - 30 * DAY, used: 5, limit: 9 }];
    expect(forecastTrend(onlyOld, NOW)).toMatchObject({ used: 5, limit: 9 });
  });

  it('the window: a sample exactly windowDays old counts, one after now does not', () => {
    const obs = [
      { at: NOW - 14 * DAY, used: 100, limit: 500 },
      { at: NOW - 14 * DAY - 1, used: 0, limit: 500 },
      { at: NOW - 7 * DAY, used: 107, limit: 500 },
      { at: NOW - 3 * DAY, used: 111, limit: 500 },
      { at: NOW, used: 114, limit: 500 },
      { at: NOW + 1, used: 499, limit: 500 },
    ];
    const f = forecastTrend(obs, NOW);
    expect(f.samples).toBe(4);
    expect(f.used).toBe(114);
    expect(f.slopePerDay).toBe(1);
  });

  it('samples that all share one time fit no line: insufficient data even when the count and span thresholds are off', () => {
    const same = [0, 1, 2].map((i) => ({ at: NOW - DAY, used: 100 + i, limit: 400 }));
    expect(forecastTrend(same, NOW, { minSamples: 2, minSpanHours: 0 })).toMatchObject({ status: 'insufficient_data', samples: 3, slopePerDay: null });
  });

  it('a clock past the p10 crossing clamps it at 0 seconds, exhausting now', () => {
    // An exact line (no residual spread: the band has no width): 170 + 10 a day reaches 200 in 3 days.
    const obs = Array.from({ length: 8 }, (_, i) => ({ at: NOW - (7 - i) * DAY, used: 100 + 10 * i, limit: 200 }));
    expect(forecastTrend(obs, NOW).secondsToExhaustion).toEqual({ p10: 3 * 86_400, p50: 3 * 86_400, p90: 3 * 86_400 });
    const late = forecastTrend(obs, NOW + 5 * DAY);
    expect(late.status).toBe('ok');
    expect(late.secondsToExhaustion).toEqual({ p10: 0, p50: 0, p90: 0 });
    expect(late.exhaustsAt.p50).toBe(new Date(NOW + 5 * DAY).toISOString());
  });

  it('a slope of exactly one unit per flatHorizonDays is a trend; flat, decreasing and insufficient data have no times', () => {
    // 0.25 a day is exact in binary: 0.25 x 4 days is exactly one unit.
    const quarter = Array.from({ length: 8 }, (_, i) => ({ at: NOW - (7 - i) * DAY, used: 100 + 0.25 * i, limit: 400 }));
    expect(forecastTrend(quarter, NOW, { flatHorizonDays: 4 }).status).toBe('ok');
    const flat = forecastTrend(quarter, NOW, { flatHorizonDays: 3.5 });
    expect(flat.status).toBe('flat');
    const none = { secondsToExhaustion: { p10: null, p50: null, p90: null }, exhaustsAt: { p10: null, p50: null, p90: null } };
    expect(flat).toStrictEqual({ status: 'flat', used: 101.75, limit: 400, samples: 8, slopePerDay: 0.25, ...none });
    const down = forecastTrend(quarter.map((o) => ({ ...o, used: 300 - o.used })), NOW);
    expect(down).toStrictEqual({ status: 'decreasing', used: 198.25, limit: 400, samples: 8, slopePerDay: -0.25, ...none });
    expect(forecastTrend(quarter.slice(5), NOW)).toStrictEqual({ status: 'insufficient_data', used: 101.75, limit: 400, samples: 3, slopePerDay: 0.25, ...none });
  });

  it('the thresholds are inclusive where the documentation says so', () => {
    // exactly minSamples samples spanning exactly minSpanHours: enough
    const four = [0, 16, 32, 48].map((h, i) => ({ at: NOW - (48 - h) * HOUR, used: 100 + 3 * i, limit: 400 }));
    expect(forecastTrend(four, NOW).status).toBe('ok');
    expect(forecastTrend(four.slice(1), NOW, { minSamples: 3 }).status).toBe('insufficient_data'); // 32 h span
    expect(forecastTrend(four, NOW, { minSamples: 5 }).status).toBe('insufficient_data');
    // a slope of exactly one unit a year is a trend; a little less is flat
    const perYear = (slope: number) => Array.from({ length: 8 }, (_, i) => ({ at: NOW - (7 - i) * DAY, used: 100 + slope * i, limit: 400 }));
    expect(forecastTrend(perYear(1 / 365), NOW).status).toBe('ok');
    expect(forecastTrend(perYear(0.99 / 365), NOW).status).toBe('flat');
    expect(forecastTrend(perYear(-1 / 365), NOW).status).toBe('decreasing');
    expect(forecastTrend(perYear(-0.99 / 365), NOW).status).toBe('flat');
  });

  it('an empty series is insufficient data with nothing used; a series only older than the window keeps its latest value', () => {
    expect(forecastTrend([], NOW)).toMatchObject({ status: 'insufficient_data', used: 0, limit: 0, samples: 0, slopePerDay: null });
    const old = [{ at: NOW - 30 * DAY, used: 5, limit: 9 }, { at: NOW - 20 * DAY, used: 7, limit: 10 }];
    expect(forecastTrend(old, NOW)).toMatchObject({ status: 'insufficient_data', used: 7, limit: 10, samples: 0 });
    const oldFull = [{ at: NOW - 30 * DAY, used: 10, limit: 10 }];
    expect(forecastTrend(oldFull, NOW).status).toBe('exhausted');
  });

  it('forecastTrendWith reuses one scratch across series with the answers of fresh fits', () => {
    const s = resolveTrendSettings({});
    const scratch = new TheilSenScratch();
    for (const [n, seed] of [[10, 1], [336, 2], [20, 3], [400, 4]] as const) {
      const obs = climb(n, HOUR, seed, 5_000);
      expect(forecastTrendWith(obs, NOW, s, scratch)).toEqual(forecastTrend(obs, NOW));
    }
  });
});
