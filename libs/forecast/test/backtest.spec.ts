import { describe, expect, it } from 'vitest';
import { CALIBRATION_HISTORIES, TREND_BAND, backtestTrends, calibrateTrendBand, generateHistories } from '@app/forecast';

describe('the calibrated trend band', () => {
  it('TREND_BAND is what the conformal calibration over CALIBRATION_HISTORIES gives', () => {
    const c = calibrateTrendBand(CALIBRATION_HISTORIES);
    console.log(`calibration: ${JSON.stringify(c)}`);
    expect(c.points).toBeGreaterThan(20_000);
    expect(c.low).toBeCloseTo(TREND_BAND.low, 2);
    expect(c.high).toBeCloseTo(TREND_BAND.high, 2);
  });

  it('the p10-p90 band holds 80 % +- 3 of the held-out scans of the backtest (README figure)', () => {
    const result = backtestTrends(generateHistories(2000, 28, 42));
    // The README quotes this line (npx vitest run libs/forecast/test/backtest.spec.ts).
    console.log(`backtest: ${JSON.stringify(result)}`);
    expect(result.heldOut).toBe(2000 * 7);
    expect(result.coverage).toBeGreaterThanOrEqual(0.77);
    expect(result.coverage).toBeLessThanOrEqual(0.83);
    expect(result.medianApe).toBeLessThan(0.1);
  });

  // Histories the calibration did not see: other seeds, other lengths (2 weeks of daily scans to 2 weeks of
  // hourly-length series) and horizons from a tenth to one and a half of the fitted span.
  const heldOut = [
    { count: 2000, samples: 14, seed: 9, holdOut: 0.25 },
    { count: 2000, samples: 14, seed: 82, holdOut: 0.3 },
    { count: 2000, samples: 20, seed: 81, holdOut: 0.5 },
    { count: 2000, samples: 28, seed: 77, holdOut: 0.5 },
    { count: 2000, samples: 60, seed: 7, holdOut: 0.25 },
    { count: 2000, samples: 60, seed: 78, holdOut: 0.6 },
    { count: 1000, samples: 100, seed: 5, holdOut: 0.25 },
    { count: 500, samples: 200, seed: 79, holdOut: 0.1 },
    { count: 200, samples: 336, seed: 80, holdOut: 0.2 },
  ];
  it.each(heldOut)('holds 80 % +- 3 on $count held-out histories of $samples scans, $holdOut held out (seed $seed)', ({ count, samples, seed, holdOut }) => {
    const { coverage } = backtestTrends(generateHistories(count, samples, seed), holdOut);
    console.log(`held-out: ${samples} scans, ${holdOut} held out, seed ${seed}: ${(coverage * 100).toFixed(1)} %`);
    expect(coverage).toBeGreaterThanOrEqual(0.77);
    expect(coverage).toBeLessThanOrEqual(0.83);
  });

  it('a narrower or wider band misses the target: the figure is calibration, not a loose bound', () => {
    const series = generateHistories(2000, 28, 42);
    expect(backtestTrends(series, 0.25, undefined, { ...TREND_BAND, low: TREND_BAND.low / 2, high: TREND_BAND.high / 2 }).coverage).toBeLessThan(0.7);
    expect(backtestTrends(series, 0.25, undefined, { ...TREND_BAND, low: TREND_BAND.low * 2, high: TREND_BAND.high * 2 }).coverage).toBeGreaterThan(0.9);
  });
});
