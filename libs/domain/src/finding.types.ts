/**
 * Check results and findings: the public contract of reports, the API, waivers and metrics
 * (`../shared/checks.md`, "Every finding carries").
 */

/** Severity of a check or finding (checks.md "Severity"). Ordered: info < warning < critical. */
export type Severity = 'info' | 'warning' | 'critical';

/** All severities, lowest first. */
export const SEVERITIES: readonly Severity[] = ['info', 'warning', 'critical'];

/** Numeric rank of a severity (info 0, warning 1, critical 2), for `--fail-on` and sorting. */
export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

/**
 * The kinds of resource a finding can be about, as the keys of an interface so that a load-balancer kind's module
 * adds its own (`declare module`, beside its `LoadBalancerKind.resourceKinds`) instead of a list here naming every
 * kind. The run-time list is `RESOURCE_KINDS` (resource-kinds.ts).
 */
export interface ResourceKinds {
  Account: true;
  Region: true;
  Cluster: true;
  Node: true;
  Service: true;
  LoadBalancer: true;
  VServerGroup: true;
  NetworkLoadBalancer: true;
  NlbServerGroup: true;
  NlbServer: true;
  EcsInstance: true;
  VSwitch: true;
  RamRole: true;
}

/** Kind of resource a finding is about (a key of {@link ResourceKinds}). */
export type ResourceKind = keyof ResourceKinds;

/**
 * The resource a result is about. `id` is the cloud id (`lb-...`, `i-...`, cluster id) or, for
 * Kubernetes objects, `namespace/name`.
 */
export interface ResourceRef {
  kind: ResourceKind;
  id: string;
  accountId: string;
  regionId: string;
  clusterId?: string;
  /**
   * The name of the cluster `clusterId` names (cluster.json `name`, DescribeClusterDetail `name`), set on findings
   * by `runAudit` so that people read `storefront` rather than `c81faa03...`. Not part of the
   * resource's identity (fingerprints ignore it): a cluster can be renamed.
   */
  clusterName?: string;
  /**
   * The team owning that cluster (libs/domain owners.ts `teamOf`: the audit settings' `owners`, else the cluster's
   * team tag), set with `clusterName`; not part of the identity either (a cluster can change hands).
   */
  team?: string;
  namespace?: string;
  name?: string;
}

/** Measured figures of a result; quota checks set `used`, `limit` (counts) and `ratio` (0..1+). */
export interface Figures {
  used?: number;
  limit?: number;
  /** used / limit, a fraction (0.8 = 80 %). */
  ratio?: number;
  [key: string]: number | string | boolean | string[] | undefined;
}

/** Outcome of evaluating one check on one resource (STYLE.md F.28: never a silent pass). */
export type ResultStatus = 'pass' | 'fail' | 'skipped';

/** One evaluated (check, resource) pair. */
export interface CheckResult {
  checkId: string;
  status: ResultStatus;
  /** Severity of a failure (may depend on figures, e.g. warning at 80 %, critical at 95 %). */
  severity: Severity;
  resource: ResourceRef;
  /**
   * What was measured, with the figures, in one sentence. A passing result's message may be built when read (an own
   * enumerable accessor, libs/checks `lazyPassResult`): JSON, spread, `Object.keys` and structured clone see the text.
   */
  message: string;
  /** For `skipped`: why the check could not be evaluated (which data was not read). */
  reason?: string;
  figures?: Figures;
}

/** A failed result, enriched for output: the JSON contract of `fleet-audit scan --format json`. */
export interface Finding {
  checkId: string;
  severity: Severity;
  resource: ResourceRef;
  message: string;
  remediation: string;
  /** Citations: seed file, CCM source file, API doc. */
  source: string;
  /** Stable hash of check id + resource key (hex, 32 chars). */
  fingerprint: string;
  used?: number;
  limit?: number;
  ratio?: number;
  /** Any further figures the check measured. */
  figures?: Figures;
}

/**
 * A (check, resource) pair that was not evaluated, and why (which data was not read, or which other
 * check reports the resource). Stored with the scan and printed with it: what the scan makes no claim
 * about (STYLE.md F.28).
 */
export interface SkippedResult {
  checkId: string;
  resource: ResourceRef;
  reason: string;
}

/**
 * The skipped results of an audit, in result order.
 * @param results every evaluated (check, resource) pair
 */
export function skippedResultsOf(results: readonly CheckResult[]): SkippedResult[] {
  const out: SkippedResult[] = [];
  for (const r of results)
    if (r.status === 'skipped') out.push({ checkId: r.checkId, resource: r.resource, reason: r.reason ?? r.message });
  return out;
}

/**
 * One quota measurement of a scan: a (check, resource) result whose figures carry `used` and `limit`
 * (counts) — CLB backend servers, CLB listeners, CLB instances per region, CLBs per ECS instance,
 * NodePorts per cluster, CCM scale — whether it passed or failed. Stored per scan for metrics, alerts and
 * forecasts (docs/architecture.md "The one data flow": "findings, quota usage samples").
 */
export interface QuotaUsageSample {
  checkId: string;
  resource: ResourceRef;
  /** Units of the quota in use (count). */
  used: number;
  /** The effective quota (count, > 0). */
  limit: number;
  /** used / limit (fraction; 0.84 = 84 %). */
  ratio: number;
}

/**
 * The quota samples of an audit: every result (pass or fail) of the given checks with finite numeric
 * `used` and a positive `limit` in its figures, in result order.
 * @param results every evaluated (check, resource) pair
 * @param checkIds the checks that measure a quota (libs/checks `QUOTA_USAGE_CHECK_IDS`); other checks may
 *   quote a quota in their figures (CLUSTER_MODE_BLOWUP quotes its CLB's backend quota) without owning it
 */
export function quotaUsageOf(results: readonly CheckResult[], checkIds: ReadonlySet<string>): QuotaUsageSample[] {
  const out: QuotaUsageSample[] = [];
  for (const r of results) {
    if (!checkIds.has(r.checkId)) continue;
    const sample = quotaSampleOf(r);
    if (sample !== undefined) out.push(sample);
  }
  return out;
}

/**
 * The quota sample of one result of a quota check (`quotaUsageOf`'s rule for one result): `undefined` when it was
 * skipped, or its figures carry no finite numeric `used` or no positive `limit`. The sample shares the result's
 * resource ref.
 */
export function quotaSampleOf(r: CheckResult): QuotaUsageSample | undefined {
  if (r.status === 'skipped') return undefined;
  const used = r.figures?.used;
  const limit = r.figures?.limit;
  if (typeof used !== 'number' || typeof limit !== 'number' || !Number.isFinite(used) || !(limit > 0)) return undefined;
  return { checkId: r.checkId, resource: r.resource, used, limit, ratio: used / limit };
}
