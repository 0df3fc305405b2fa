import { describe, expect, it } from 'vitest';
import { ANALYSIS_TIME_KEY, runOptionsOfScanRow, scanRowSettings } from './scan-row-settings.util';

describe('scan row settings', () => {
  it('round-trips audit settings and the analysis clock', () => {
    const settings = { quota: { warningRatio: 0.7 } };
    const row = scanRowSettings(settings, '2026-06-01T00:00:00.000Z');
    expect(row).toEqual({ quota: { warningRatio: 0.7 }, [ANALYSIS_TIME_KEY]: '2026-06-01T00:00:00.000Z' });
    expect(runOptionsOfScanRow(row)).toEqual({ settings, now: '2026-06-01T00:00:00.000Z' });
  });

  it('leaves out what was not set', () => {
    expect(scanRowSettings(undefined, undefined)).toEqual({});
    expect(runOptionsOfScanRow({})).toEqual({});
  });
});
