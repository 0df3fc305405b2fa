import { describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION_POLICY, dayStartOf, planRetention, weekStartOf, type RetentionPolicy, type RetentionScan } from './retention.policy';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Monday 2026-03-30 00:00 UTC: the simulated clock. */
const NOW = Date.UTC(2026, 2, 30);

const scan = (id: string, startedAt: number, over: Partial<RetentionScan> = {}): RetentionScan => ({ id, status: 'succeeded', startedAt, pruned: false, ...over });

/** Hourly scans from `NOW - days` up to the last hour before NOW, ids h<index>. */
const hourly = (days: number): RetentionScan[] => Array.from({ length: days * 24 }, (_, i) => scan(`h${String(i).padStart(5, '0')}`, NOW - days * DAY + i * HOUR));

describe('planRetention', () => {
  it('cuts days at UTC midnight and ISO weeks at Monday 00:00 UTC', () => {
    expect(dayStartOf(Date.UTC(2026, 2, 3, 13))).toBe(Date.UTC(2026, 2, 3));
    expect(dayStartOf(Date.UTC(2026, 2, 4))).toBe(Date.UTC(2026, 2, 4));
    // 2026-03-30 is a Monday: Wednesday 25th is in the week starting Monday 23rd.
    expect(weekStartOf(Date.UTC(2026, 2, 25, 9))).toBe(Date.UTC(2026, 2, 23));
    expect(weekStartOf(Date.UTC(2026, 2, 30))).toBe(Date.UTC(2026, 2, 30));
    expect(weekStartOf(Date.UTC(2026, 2, 29, 23, 59))).toBe(Date.UTC(2026, 2, 23));
  });

  it('keeps every scan of the raw window, the last of each day, prunes the rest inside the quota window, deletes older', () => {
    const policy: RetentionPolicy = { rawHours: 48, dailyDays: 10, weeklyWeeks: 2, quotaDays: 5 };
    const scans = hourly(21);
    const plan = planRetention(scans, NOW, policy);
    const byId = new Map(scans.map((s) => [s.id, s]));
    const ages = (ids: string[]) => ids.map((id) => NOW - byId.get(id)!.startedAt);
    // Raw window: the 47 scans younger than 48 h; then the day's last (23:00) younger than 10 days; then the ISO week's
    // last (Sunday 23:00) younger than 2 weeks: those are 1 h and 7 d 1 h old, already kept (14 d 1 h is too old).
    const kept = ages(plan.keep);
    expect(kept.filter((a) => a < 48 * HOUR)).toHaveLength(47);
    const older = plan.keep.map((id) => byId.get(id)!).filter((s) => NOW - s.startedAt >= 48 * HOUR);
    expect(older.every((s) => new Date(s.startedAt).getUTCHours() === 23)).toBe(true);
    const olderDays = older.map((s) => Math.round((NOW - s.startedAt - HOUR) / DAY)).sort((a, b) => a - b);
    expect(olderDays).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    // Pruned: succeeded non-keepers younger than 5 days (older than 48 h); everything else goes.
    expect(ages(plan.prune).every((a) => a >= 48 * HOUR && a < 5 * DAY)).toBe(true);
    expect(plan.prune).toHaveLength(3 * 24 - 3);
    expect(plan.keep.length + plan.prune.length + plan.delete.length).toBe(scans.length);
    expect(ages(plan.delete).every((a) => a >= 5 * DAY)).toBe(true);
  });

  it('never touches running scans or the latest succeeded scan, whatever their age', () => {
    const old = NOW - 400 * DAY;
    const scans = [scan('running', old, { status: 'running' }), scan('latest', old + DAY), scan('older', old), scan('failed', old + 2 * DAY, { status: 'failed' })];
    const plan = planRetention(scans, NOW, DEFAULT_RETENTION_POLICY);
    expect(plan.keep.sort()).toEqual(['latest', 'running']);
    expect(plan.delete.sort()).toEqual(['failed', 'older']);
  });

  it('keeps weekly scans forever with weeklyWeeks null, and deletes failed scans past the raw window', () => {
    const scans = [scan('w-old', NOW - 1000 * DAY), scan('w-old-earlier', NOW - 1000 * DAY - HOUR), scan('f', NOW - 3 * DAY, { status: 'failed' }), scan('latest', NOW - HOUR)];
    const plan = planRetention(scans, NOW, { ...DEFAULT_RETENTION_POLICY, weeklyWeeks: null });
    expect(plan.keep.sort()).toEqual(['latest', 'w-old']);
    expect(plan.delete.sort()).toEqual(['f', 'w-old-earlier']);
  });

  it('does not list pruned scans again, and breaks ties of start time by id as scans are listed', () => {
    const t = NOW - 5 * DAY + 3 * HOUR;
    const scans = [scan('a', t), scan('b', t), scan('p', t - HOUR, { pruned: true }), scan('latest', NOW - HOUR)];
    const plan = planRetention(scans, NOW, DEFAULT_RETENTION_POLICY);
    expect(plan.keep.sort()).toEqual(['b', 'latest']);
    expect(plan.prune).toEqual(['a']);
    expect(plan.delete).toEqual([]);
  });

  it('rejects a policy out of bounds, naming the field', () => {
    expect(() => planRetention([], NOW, { ...DEFAULT_RETENTION_POLICY, rawHours: 12 })).toThrow(/rawHours must be an integer >= 24/);
    expect(() => planRetention([], NOW, { ...DEFAULT_RETENTION_POLICY, dailyDays: 3 })).toThrow(/dailyDays/);
    expect(() => planRetention([], NOW, { ...DEFAULT_RETENTION_POLICY, weeklyWeeks: 0 })).toThrow(/weeklyWeeks/);
    expect(planRetention([], NOW, DEFAULT_RETENTION_POLICY)).toEqual({ keep: [], prune: [], delete: [] });
  });
});
