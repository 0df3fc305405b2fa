import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fitTrendWindow, forecastTrend, forecastTrendWith, normalQuantile, projectTrend, resolveTrendSettings, theilSen, type QuotaObservation } from '../src/trend.model';
import { forecastFittedTrends, forecastTrends } from '../src/trends';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-20T00:00:00Z');

/** `n` daily samples ending at NOW: used = start + slope * day (+ noise[i]). */
function series(n: number, start: number, slope: number, limit: number, noise: (i: number) => number = () => 0): QuotaObservation[] {
  return Array.from({ length: n }, (_, i) => ({ at: NOW - (n - 1 - i) * DAY, used: start + slope * i + noise(i), limit }));
}

/** Deterministic pseudo-random in [-1, 1) (LCG), so the noisy fixtures are fixed. */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 31 - 1;
  };
}

describe('theilSen', () => {
  it('recovers an exact line and brackets it', () => {
    const t = [0, 1, 2, 3, 4, 5];
    const y = t.map((x) => 3 + 2 * x);
    const fit = theilSen(t, y, t.length, 0.8)!;
    expect(fit.slope).toBe(2);
    expect(fit.intercept).toBe(3);
    expect(fit.slopeLow).toBe(2);
    expect(fit.slopeHigh).toBe(2);
  });

  it('is not moved by one outlier where least squares is', () => {
    const t = Array.from({ length: 10 }, (_, i) => i);
    const y = t.map((x) => 10 + x);
    y[9] = 200; // one bad scan at the end
    const fit = theilSen(t, y, t.length, 0.8)!;
    expect(fit.slope).toBe(1);
    // OLS slope of the same points, for contrast.
    const mt = 4.5;
    const my = y.reduce((a, b) => a + b, 0) / 10;
    const ols = t.reduce((s, x, i) => s + (x - mt) * (y[i]! - my), 0) / t.reduce((s, x) => s + (x - mt) ** 2, 0);
    expect(ols).toBeGreaterThan(10);
  });

  /** Reference: the same order statistics from a full sort of every pairwise slope (no band, no selection). */
  function reference(t: number[], y: number[], coverage: number): { slope: number; slopeLow: number; slopeHigh: number } {
    const slopes: number[] = [];
    for (let i = 0; i < t.length; i++) for (let j = i + 1; j < t.length; j++) if (t[j] !== t[i]) slopes.push((y[j]! - y[i]!) / (t[j]! - t[i]!));
    slopes.sort((a, b) => a - b);
    const m = slopes.length;
    const n = t.length;
    const c = normalQuantile((1 + coverage) / 2) * Math.sqrt((n * (n - 1) * (2 * n + 5)) / 18);
    const low = Math.min(Math.max(Math.round((m - c) / 2) - 1, 0), m - 1);
    const high = Math.min(Math.max(Math.round((m + c) / 2), 0), m - 1);
    return { slope: (slopes[Math.floor((m - 1) / 2)]! + slopes[Math.ceil((m - 1) / 2)]!) / 2, slopeLow: slopes[low]!, slopeHigh: slopes[high]! };
  }

  it('the band pre-filter of long series selects exactly the order statistics a full sort gives', () => {
    // Long series (>= 256 pairwise slopes) take the band path; ties, constant series, heavy outliers and
    // irregular / repeated times exercise its fallback. Seeded, so a failure names its case.
    fc.assert(
      fc.property(
        fc.integer({ min: 23, max: 90 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom('noise', 'steps', 'constant', 'outliers', 'repeatedTimes'),
        fc.constantFrom(0.8, 0.99),
        (n, seed, shape, coverage) => {
          let x = seed >>> 0;
          const rnd = (): number => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32);
          const t = Array.from({ length: n }, (_, i) => (shape === 'repeatedTimes' ? Math.floor(i / 3) : i + rnd() * 0.5));
          let level = 0;
          const y = t.map((ti) => {
            if (shape === 'constant') return 7;
            if (shape === 'steps') return (level += rnd() < 0.3 ? 5 : 0);
            const v = 3 * ti + (rnd() - 0.5) * 20;
            return shape === 'outliers' && rnd() < 0.2 ? v * 50 : v;
          });
          const fit = theilSen(t, y, n, coverage)!;
          const want = reference(t, y, coverage);
          expect({ slope: fit.slope, slopeLow: fit.slopeLow, slopeHigh: fit.slopeHigh }).toEqual(want);
        },
      ),
      { seed: 20261124, numRuns: 150 },
    );
  });
});

describe('forecastTrend', () => {
  it('a steady climb: p50 time to exhaustion from the slope, p10 <= p50 <= p90', () => {
    const f = forecastTrend(series(10, 100, 5, 200), NOW);
    expect(f.status).toBe('ok');
    expect(f.slopePerDay).toBe(5);
    expect(f.used).toBe(145);
    expect(f.samples).toBe(10);
    // (200 - 145) / 5 = 11 days
    expect(f.secondsToExhaustion.p50).toBe(11 * 86_400);
    expect(f.exhaustsAt.p50).toBe('2026-12-01T00:00:00.000Z');
    expect(f.secondsToExhaustion.p10).toBe(11 * 86_400);
    expect(f.secondsToExhaustion.p90).toBe(11 * 86_400);
  });

  it('steps (quota counts move in jumps) give a slope and an interval around it', () => {
    // +20 every 3 days
    const obs = series(12, 0, 0, 300).map((o, i) => ({ ...o, used: 100 + 20 * Math.floor(i / 3) }));
    const f = forecastTrend(obs, NOW);
    expect(f.status).toBe('ok');
    expect(f.slopePerDay!).toBeGreaterThan(5);
    expect(f.slopePerDay!).toBeLessThan(8);
    expect(f.secondsToExhaustion.p10!).toBeLessThanOrEqual(f.secondsToExhaustion.p50!);
    expect(f.secondsToExhaustion.p50!).toBeLessThanOrEqual(f.secondsToExhaustion.p90!);
  });

  it('one outlier scan does not move the answer', () => {
    const clean = forecastTrend(series(14, 50, 2, 200), NOW);
    const spiked = forecastTrend(series(14, 50, 2, 200, (i) => (i === 6 ? 120 : 0)), NOW);
    expect(spiked.slopePerDay).toBe(clean.slopePerDay);
    expect(spiked.secondsToExhaustion.p50).toBe(clean.secondsToExhaustion.p50);
  });

  it('noise with 20 % spikes: p50 slope within 10 % of the truth, and the interval widens', () => {
    const r = lcg(7);
    const obs = series(40, 100, 3, 1000, (i) => r() * 4 + (i % 5 === 0 ? 40 : 0)).map((o) => ({ ...o, at: o.at }));
    const f = forecastTrend(obs, NOW, { windowDays: 60 });
    expect(f.status).toBe('ok');
    expect(Math.abs(f.slopePerDay! - 3) / 3).toBeLessThan(0.1);
    expect(f.secondsToExhaustion.p10!).toBeLessThan(f.secondsToExhaustion.p50!);
    expect(f.secondsToExhaustion.p90!).toBeGreaterThan(f.secondsToExhaustion.p50!);
  });

  it('a raised limit: the latest limit counts', () => {
    const obs = series(10, 100, 5, 200).map((o, i) => ({ ...o, limit: i < 8 ? 150 : 400 }));
    const f = forecastTrend(obs, NOW);
    expect(f.limit).toBe(400);
    expect(f.status).toBe('ok');
    expect(f.secondsToExhaustion.p50).toBe(((400 - 145) / 5) * 86_400);
  });

  it('insufficient data: fewer than 4 samples, or a span under 48 h', () => {
    expect(forecastTrend(series(3, 100, 5, 200), NOW).status).toBe('insufficient_data');
    const dense = Array.from({ length: 10 }, (_, i) => ({ at: NOW - i * 3_600_000, used: 100 + i, limit: 200 }));
    const f = forecastTrend(dense, NOW);
    expect(f.status).toBe('insufficient_data');
    expect(f.secondsToExhaustion).toEqual({ p10: null, p50: null, p90: null });
    expect(forecastTrend(series(3, 100, 5, 200), NOW, { minSamples: 3 }).status).toBe('ok');
  });

  it('the window drops old samples (default 14 days)', () => {
    const old = series(30, 0, 10, 1000); // 30 days
    const f = forecastTrend(old, NOW);
    expect(f.samples).toBe(15);
    expect(forecastTrend(old, NOW, { windowDays: 40 }).samples).toBe(30);
  });

  it('exhausted, flat and decreasing', () => {
    expect(forecastTrend(series(5, 200, 1, 200), NOW)).toMatchObject({ status: 'exhausted', secondsToExhaustion: { p10: 0, p50: 0, p90: 0 } });
    expect(forecastTrend(series(6, 120, 0, 200), NOW)).toMatchObject({ status: 'flat', slopePerDay: 0, exhaustsAt: { p50: null } });
    expect(forecastTrend(series(6, 120, -2, 200), NOW)).toMatchObject({ status: 'decreasing', slopePerDay: -2 });
  });
});

describe('forecastTrends', () => {
  it('sorts exhausted first, then the soonest p10', () => {
    const res = (id: string) => ({ kind: 'LoadBalancer' as const, id, accountId: 'a', regionId: 'r', clusterId: null });
    const out = forecastTrends(
      [
        { checkId: 'CLB_BACKEND_QUOTA', resource: res('lb-slow'), observations: series(10, 0, 1, 200) },
        { checkId: 'CLB_BACKEND_QUOTA', resource: res('lb-full'), observations: series(10, 200, 1, 200) },
        { checkId: 'CLB_BACKEND_QUOTA', resource: res('lb-fast'), observations: series(10, 0, 10, 200) },
        { checkId: 'CLB_BACKEND_QUOTA', resource: res('lb-new'), observations: series(2, 0, 10, 200) },
      ],
      NOW,
    );
    expect(out.map((e) => `${e.resource.id}:${e.status}`)).toEqual(['lb-full:exhausted', 'lb-fast:ok', 'lb-slow:ok', 'lb-new:insufficient_data']);
  });
});

describe('fitTrendWindow + projectTrend (stored fits)', () => {
  it('a window fitted once answers at any later clock exactly as refitting the same samples does', () => {
    const res = (id: string) => ({ kind: 'EcsInstance' as const, id, accountId: 'a', regionId: 'r', clusterId: 'c' });
    fc.assert(
      fc.property(
        fc.array(fc.record({ day: fc.integer({ min: 0, max: 13 }), hour: fc.integer({ min: 0, max: 23 }), used: fc.integer({ min: 0, max: 260 }) }), { minLength: 0, maxLength: 30 }),
        fc.integer({ min: 150, max: 250 }),
        fc.integer({ min: 0, max: 20 * 3_600_000 }),
        fc.integer({ min: 1, max: 6 }),
        (points, limit, later, minSamples) => {
          // Samples inside the 14-day window ending at NOW; the later clock keeps every one of them in its window.
          const obs = points.map((p) => ({ at: NOW - 13 * DAY + p.day * DAY - p.hour * 3_600_000, used: p.used, limit }))
            .filter((o) => o.at >= NOW - 14 * DAY + later && o.at <= NOW);
          const settings = resolveTrendSettings({ minSamples, minSpanHours: 1 });
          const fitted = fitTrendWindow(obs, NOW, settings);
          const at = NOW + later;
          expect(projectTrend(fitted, at, settings)).toEqual(forecastTrendWith(obs, at, settings));
          const series = [{ checkId: 'ECS_LB_ATTACHMENT_QUOTA', resource: res('i-1'), observations: obs }, { checkId: 'ECS_LB_ATTACHMENT_QUOTA', resource: res('i-2'), observations: obs.map((o) => ({ ...o, used: Math.max(0, o.used - 7) })) }];
          expect(forecastFittedTrends(series.map((s) => ({ checkId: s.checkId, resource: s.resource, window: fitTrendWindow(s.observations, NOW, settings) })), at, settings)).toEqual(
            forecastTrends(series, at, settings),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
