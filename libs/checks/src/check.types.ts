import type { CheckResult, FleetSnapshot, QuotaDefinition, ResourceKind, ResourceRef, Severity } from '@app/domain';
import type { AuditSettings } from './audit-settings.types';
import type { FleetIndex, ServiceEntry } from './fleet-index';

/**
 * Categories of checks, one per section of the catalogue (checks.md): `quota` "Quotas and capacity",
 * `ownership` "Ownership and reuse", `version` "CCM version and RAM permissions", `configuration` "Service
 * configuration". A check's category is the section checks.md lists it in.
 */
export type CheckCategory = 'quota' | 'ownership' | 'version' | 'configuration';

/** Everything a check may read: the snapshot, its index (built once), the frozen clock and settings. */
export interface CheckContext {
  snapshot: FleetSnapshot;
  index: FleetIndex;
  /** The analysis clock (STYLE.md F.25: no `Date.now()` in rules). */
  now: Date;
  /** Resolved settings (defaults merged with overrides). */
  settings: AuditSettings;
  /** The run's fast-path switch (`FastPathSwitch`); absent = fast paths on, not counted. */
  fastPaths?: FastPathSwitch;
  /** The run's one-Service filter (`ServiceFilter`); absent = every check judges every Service. */
  serviceFilter?: ServiceFilter;
  /**
   * Set when the run does not keep this check's pass results (`RunAuditOptions.keepResultsOf`): its `evaluate` then
   * returns its fail and skipped results only and counts its passes here, so no list holds them (a pass dies young
   * instead of being carried to the old generation: 1.3M passes on a 10M-entry fleet). Absent = every result returned.
   */
  passTally?: PassTally;
}

/**
 * The passes a check counted instead of returning them (`CheckContext.passTally`), a count; with `sample`, the run's
 * hook for the quota samples of the results the check pushes.
 */
export interface PassTally {
  passes: number;
  /**
   * Called with each pass and fail result the check pushes, in push order, when the run samples the check's quota use
   * (`RunAuditOptions.quotaSamplesOf`): the passes are counted, never kept, so their samples are taken here.
   */
  sample?: (result: CheckResult) => void;
  /** Set by `resultSinkOf` when the check pushes its results through the tally's sink (every scoped check does). */
  routed?: boolean;
  /**
   * The run's `RunAuditOptions.resultsAbout`: a result about a resource it refuses is dropped by the sink before it
   * is counted or sampled.
   */
  about?: (resource: ResourceRef) => boolean;
}

/**
 * Where a check puts its results: an array, or, when the run keeps no pass of the check (`CheckContext.passTally`),
 * a sink that counts the passes and keeps the rest (`resultSinkOf`). Checks only push into it.
 */
export interface ResultSink {
  /** Adds one result; returns a count as `Array.prototype.push` does (not to be relied on). */
  push(result: CheckResult): number;
}

/**
 * Which Services the `service` and `reusedClb` scope checks `checkIds` judge in one audit run (the others judge
 * every Service): those `accepts` takes, before the check's own `applies`. What a caller that keeps the other
 * Services' results from an earlier run asks for (the admission review model judges the reviewed Service alone).
 */
export interface ServiceFilter {
  checkIds: ReadonlySet<string>;
  accepts(se: ServiceEntry): boolean;
}

/**
 * Whether the rules try their proven shortcuts (LB_CONFIG_DRIFT's Cluster-mode match) before the full comparison,
 * and how many Services a shortcut answered for (count). One object per audit run, owned by its caller: a test turns
 * the shortcuts off to show the results are the same without them, and reads `taken` to show they were exercised.
 */
export interface FastPathSwitch {
  enabled: boolean;
  taken: number;
}

/**
 * A check: one small pure unit with fixed metadata (STYLE.md F.24). `id` is a public contract
 * (reports, waivers, metrics labels, alerts): never rename or reuse one (checks.md).
 */
export interface CheckDefinition {
  /** Stable id, `/^[A-Z][A-Z0-9_]+$/` (checks.md). */
  id: string;
  /** One line, at most 80 characters. */
  title: string;
  category: CheckCategory;
  /** Kind of resource each result is about (region-level `skipped` results use `Region`). */
  resourceKind: ResourceKind;
  /** Severity of a failure unless the result says otherwise (figure-dependent) or settings override it. */
  defaultSeverity: Severity;
  /** What the check measures and why it matters. */
  description: string;
  /** What to do about a failure: text from the seed documents, plus the docs URL. */
  remediation: string;
  /** Citations: seed file + section, CCM source file, API doc. */
  source: string;
  /**
   * Paths of the `AuditSettings` values the check reads besides `checks.<id>` (e.g. `quota.warningRatio`);
   * the generated catalogue lists them with their defaults.
   */
  settings?: readonly string[];
  /**
   * The check measures the use of one quota: its results carry `used` and `limit` figures that `quotaUsageOf`
   * samples for metrics, alerts and forecasts (`QUOTA_USAGE_CHECK_IDS` lists the checks that say so).
   */
  quotaUsage?: true;
  /**
   * The Quota Center quota the check measures (code, product, documented default and adjustability), which a quota
   * plan asks to raise (libs/forecast quota-plan.ts). Absent on a quota-usage check whose limit no Quota Center
   * application raises (the NodePort range, a vSwitch's free IPs).
   */
  quota?: QuotaDefinition;
  /**
   * Evaluates every resource in scope: one `pass`, `fail` or `skipped` result per resource (never a
   * silent pass for data that was not read). Pure: no I/O, no clock other than `ctx.now`; never throws
   * on odd input. Returns a new array the caller owns (`runAudit` keeps it, rewrites and empties it).
   */
  evaluate(ctx: CheckContext): CheckResult[];
}
