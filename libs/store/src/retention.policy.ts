/**
 * Which scans retention keeps: a pure function of the scans' start times, statuses and
 * the clock, so the worker's schedule, `fleet-audit retention run` and the tests agree on one plan.
 *
 * Tiers, by age (now - started_at):
 * - under `rawHours`: every scan is kept whole;
 * - under `dailyDays`: the last succeeded scan of each UTC day is kept whole;
 * - beyond, under `weeklyWeeks` weeks (`null`: forever): the last succeeded scan of each ISO week (UTC) is kept whole.
 * A scan not kept whole is *pruned* (findings, targets, snapshot and fleet graph deleted; its row and quota samples
 * kept) while younger than `quotaDays`, so quota trends read every sample of their window; older, it is deleted.
 * Running scans and the latest succeeded scan are never touched, whatever their age.
 *
 * Days are UTC calendar days and weeks ISO weeks (from Monday 00:00 UTC). The weekly report reads past scans as
 * "the latest succeeded scan at a time that is the last of its day" (libs/reports `retainedScanAt`), so it reads
 * the same scans whether or not retention has run.
 */

/** One scan as the planner sees it. */
export interface RetentionScan {
  id: string;
  status: 'running' | 'succeeded' | 'failed';
  /** Epoch ms of the scan's start (its observation time). */
  startedAt: number;
  /** Already pruned (its heavy rows are gone). */
  pruned: boolean;
}

/** The retention policy (config namespace `retention`). */
export interface RetentionPolicy {
  /** Keep every scan this many hours (>= 24, so a day is over before it is thinned). */
  rawHours: number;
  /** Keep the last scan of each UTC day this many days (>= 7, so a week is over before it is thinned). */
  dailyDays: number;
  /** Keep the last scan of each ISO week this many weeks; null: forever. */
  weeklyWeeks: number | null;
  /** Keep the quota samples of every succeeded scan this many days (the forecast trend window). */
  quotaDays: number;
}

/**
 * Defaults: every scan for 48 h; one a day for 92 days (the report's 12 weekly points reach 12 weeks back from
 * the period end, the diff base one week more: 91 days, plus a day of slack); one a week for 52 weeks (a year
 * of weekly points for year-over-year comparisons, and a bound: the store levels off at about 48 + 92 + 40 scans);
 * quota samples of every scan for 15 days (libs/forecast DEFAULT_TREND_SETTINGS.windowDays, 14, plus a day: the
 * report's forecast window ends at its last scan, up to a day before the clock retention measures ages with).
 */
export const DEFAULT_RETENTION_POLICY: Readonly<RetentionPolicy> = Object.freeze({ rawHours: 48, dailyDays: 92, weeklyWeeks: 52, quotaDays: 15 });

/** What to do with each scan. */
export interface RetentionPlan {
  /** Scans kept whole (ids). */
  keep: string[];
  /** Scans to prune (heavy rows deleted, row and quota samples kept). */
  prune: string[];
  /** Scans to delete with every row. */
  delete: string[];
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** 1970-01-05 (a Monday) 00:00 UTC: ISO weeks start on Mondays. */
const MONDAY_EPOCH_MS = 4 * DAY_MS;

/**
 * The UTC midnight starting the day holding `t` (epoch ms); the day is [that midnight, the next one).
 * @returns epoch ms
 */
export function dayStartOf(t: number): number {
  return Math.floor(t / DAY_MS) * DAY_MS;
}

/**
 * The Monday 00:00 UTC starting the ISO week holding `t` (epoch ms); the week is [that instant, a week later).
 * @returns epoch ms
 */
export function weekStartOf(t: number): number {
  return Math.floor((t - MONDAY_EPOCH_MS) / (7 * DAY_MS)) * 7 * DAY_MS + MONDAY_EPOCH_MS;
}

/**
 * Check a policy's bounds.
 * @throws RangeError naming the field and the bound
 */
export function assertRetentionPolicy(p: RetentionPolicy): void {
  const check = (ok: boolean, what: string) => {
    if (!ok) throw new RangeError(`retention policy: ${what}`);
  };
  check(Number.isInteger(p.rawHours) && p.rawHours >= 24, `rawHours must be an integer >= 24 (got ${p.rawHours})`);
  check(Number.isInteger(p.dailyDays) && p.dailyDays >= 7 && p.dailyDays * 24 >= p.rawHours, `dailyDays must be an integer >= 7 and cover rawHours (got ${p.dailyDays})`);
  check(p.weeklyWeeks === null || (Number.isInteger(p.weeklyWeeks) && p.weeklyWeeks >= 1), `weeklyWeeks must be a positive integer or null (got ${p.weeklyWeeks})`);
  check(Number.isInteger(p.quotaDays) && p.quotaDays >= 1, `quotaDays must be a positive integer (got ${p.quotaDays})`);
}

/**
 * Plan retention for `scans` at `now` under `policy`. Pure; order of `scans` does not matter; ties of start time
 * are broken by id, as scans are listed (`ORDER BY started_at DESC, id DESC`). Already pruned scans that stay
 * pruned are in no list.
 * @param now epoch ms
 * @throws RangeError for a policy out of bounds (assertRetentionPolicy)
 */
export function planRetention(scans: readonly RetentionScan[], now: number, policy: RetentionPolicy): RetentionPlan {
  assertRetentionPolicy(policy);
  const later = (a: RetentionScan, b: RetentionScan) => a.startedAt > b.startedAt || (a.startedAt === b.startedAt && a.id > b.id);
  const lastOf = new Map<string, RetentionScan>();
  let latest: RetentionScan | undefined;
  for (const s of scans) {
    if (s.status !== 'succeeded') continue;
    if (!latest || later(s, latest)) latest = s;
    for (const key of [`d${dayStartOf(s.startedAt)}`, `w${weekStartOf(s.startedAt)}`]) {
      const cur = lastOf.get(key);
      if (!cur || later(s, cur)) lastOf.set(key, s);
    }
  }
  const plan: RetentionPlan = { keep: [], prune: [], delete: [] };
  for (const s of scans) {
    const age = now - s.startedAt;
    const whole =
      s.status === 'running' ||
      s === latest ||
      age < policy.rawHours * HOUR_MS ||
      (age < policy.dailyDays * DAY_MS && lastOf.get(`d${dayStartOf(s.startedAt)}`) === s) ||
      ((policy.weeklyWeeks === null || age < policy.weeklyWeeks * 7 * DAY_MS) && lastOf.get(`w${weekStartOf(s.startedAt)}`) === s);
    if (whole) plan.keep.push(s.id);
    else if (s.status === 'succeeded' && age < policy.quotaDays * DAY_MS) {
      if (!s.pruned) plan.prune.push(s.id);
    } else plan.delete.push(s.id);
  }
  return plan;
}
