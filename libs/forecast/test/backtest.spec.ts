import { describe, expect, it } from 'vitest';
import { backtestTrends, generateHistories } from '@app/forecast';

describe('backtestTrends (README figure)', () => {
  it('the p10-p90 band holds most held-out scans of generated step histories', () => {
    const result = backtestTrends(generateHistories(2000, 28, 42));
    // The README quotes this line (npx vitest run libs/forecast/test/backtest.spec.ts).
    console.log(`backtest: ${JSON.stringify(result)}`);
    expect(result.heldOut).toBe(2000 * 7);
    expect(result.coverage).toBeGreaterThan(0.7);
    expect(result.medianApe).toBeLessThan(0.1);
  });
});
