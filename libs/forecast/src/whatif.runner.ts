/**
 * The what-if runner: applies a scenario step by step to a copy of a snapshot, re-runs the CCM model
 * (`ScenarioApplier`) and the whole check catalogue (`runAudit`) after each step, and reports per step the quotas
 * whose use changed, the first breach, the findings that appeared, resolved or changed severity (by
 * fingerprint) and the headroom of the step's cluster; plus the CCM convergence estimate of the whole scenario.
 *
 * Scope: every check's verdict on a resource depends only on the snapshot data of its account and region
 * (quotas are per region, CLBs and ECS instances are regional, clusters live in one region), so the audit runs
 * on the (account, region) pairs the scenario touches, before and after each step. Findings elsewhere cannot
 * change. This keeps a 40-node step on a million-backend fleet under two analyses of the whole fleet.
 *
 * Deterministic: same scenario + same snapshot + same `now` and settings = byte-identical JSON.
 */
import { QUOTA_USAGE_CHECK_IDS, resourceKeyOf, runAudit, type AuditOutput, type PartialAuditSettings, type RunAuditOptions } from '@app/checks';
import { quotaUsageOf, severityRank, type Finding, type FleetSnapshot, type QuotaUsageSample, type ResourceRef, type Severity } from '@app/domain';
import { estimateConvergence, type ConvergenceEstimate, type ConvergenceSettings } from './convergence.model';
import { computeHeadroom, type HeadroomEntry } from './headroom.model';
import type { ServiceChange } from './convergence.model';
import { ScenarioApplier } from './scenario.apply';
import { locateCluster } from './scenario.location';
import { ScenarioError, type Scenario, type ScenarioStep } from './scenario.schema';

/** Use of one quota (counts; ratio = used / limit). */
export interface QuotaUse {
  used: number;
  limit: number;
  ratio: number;
}

/** A quota whose use a step changed. */
export interface QuotaChange {
  checkId: string;
  resource: ResourceRef;
  before: QuotaUse;
  after: QuotaUse;
}

/** A finding in a step's diff. */
export interface FindingRef {
  fingerprint: string;
  checkId: string;
  severity: Severity;
  resource: ResourceRef;
  message: string;
}

/** A finding whose severity a step changed. */
export interface SeverityChange {
  fingerprint: string;
  checkId: string;
  resource: ResourceRef;
  before: Severity;
  after: Severity;
}

/** The result of one step. */
export interface WhatIfStep {
  name: string;
  quotas: QuotaChange[];
  /** The first quota entry of the step with `after.used > after.limit`, or null. */
  firstBreach: QuotaChange | null;
  findings: { appeared: FindingRef[]; resolved: FindingRef[]; severityChanged: SeverityChange[] };
  /** Headroom of the step's cluster after the step. */
  headroom: HeadroomEntry[];
}

/** The JSON contract of `forecast whatif` and `POST /v1/forecasts/whatif`. */
export interface WhatIfResult {
  scenario: string;
  steps: WhatIfStep[];
  /** CCM's work to apply the whole scenario, and how long it takes. */
  convergence: ConvergenceEstimate;
}

/** Options of `runWhatIf`. */
export interface WhatIfOptions {
  /** The analysis clock. */
  now: Date;
  settings?: PartialAuditSettings;
  convergence?: Partial<ConvergenceSettings>;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The accounts / regions of `snapshot` that hold the given clusters, copied deeply (the rest is left out). */
export function scopedCopy(snapshot: FleetSnapshot, clusterIds: ReadonlySet<string>): FleetSnapshot {
  const regionKeys = new Set<string>();
  for (const a of snapshot.accounts)
    for (const r of a.regions) if (r.clusters.some((c) => clusterIds.has(c.clusterId))) regionKeys.add(`${a.accountId}/${r.regionId}`);
  const accounts = snapshot.accounts
    .map((a) => ({ ...a, regions: a.regions.filter((r) => regionKeys.has(`${a.accountId}/${r.regionId}`)) }))
    .filter((a) => a.regions.length > 0);
  const accountIds = new Set(accounts.map((a) => a.accountId));
  const coverage = snapshot.coverage.filter(
    (c) => accountIds.has(c.accountId) && (c.regionId === undefined || regionKeys.has(`${c.accountId}/${c.regionId}`)),
  );
  return structuredClone({ name: snapshot.name, accounts, coverage });
}

/** The key of a check's result on a resource (quota samples, results and findings of one audit are unique by it). */
export function sampleKeyOf(checkId: string, resource: ResourceRef): string {
  return `${checkId}\u0000${resourceKeyOf(resource)}`;
}

/** Quota samples by `sampleKeyOf`. */
export function sampleMap(samples: readonly QuotaUsageSample[]): Map<string, QuotaUsageSample> {
  const m = new Map<string, QuotaUsageSample>();
  for (const s of samples) m.set(sampleKeyOf(s.checkId, s.resource), s);
  return m;
}

function findingRef(f: Finding): FindingRef {
  return { fingerprint: f.fingerprint, checkId: f.checkId, severity: f.severity, resource: f.resource, message: f.message };
}

function sortFindings<T extends { severity?: Severity; checkId: string; resource: ResourceRef; fingerprint: string }>(list: T[]): T[] {
  return list.sort(
    (a, b) =>
      (b.severity ? severityRank(b.severity) : 0) - (a.severity ? severityRank(a.severity) : 0) ||
      cmp(a.checkId, b.checkId) ||
      cmp(resourceKeyOf(a.resource), resourceKeyOf(b.resource)) ||
      cmp(a.fingerprint, b.fingerprint),
  );
}

/** Applies the applier's NodePort overflow (ports the API server would refuse) to the NodePort samples. */
export function withOverflow(samples: QuotaUsageSample[], overflow: ReadonlyMap<string, number>): QuotaUsageSample[] {
  if (overflow.size === 0) return samples;
  return samples.map((s) => {
    const extra = s.checkId === 'NODEPORT_RANGE_EXHAUSTION' ? (overflow.get(s.resource.id) ?? 0) : 0;
    return extra ? { ...s, used: s.used + extra, ratio: (s.used + extra) / s.limit } : s;
  });
}

/** What one step changed: the quotas whose use moved, the first breach, the findings' diff (a `WhatIfStep` less its name and headroom). */
export type StepDiff = Pick<WhatIfStep, 'quotas' | 'firstBreach' | 'findings'>;

/**
 * The diff of two audits of the same scope, before and after a step: quota samples compared by check and resource
 * key (a sample gone after the step counts as used 0), findings by fingerprint; each list in a fixed order (quotas by
 * check id and resource key, findings by severity, check id, resource key, fingerprint). The what-if runner and the
 * admission review model (cluster-review.model.ts) share it, so both report a change the same way.
 * @param prevSamples / nextSamples the quota samples of each audit keyed by `sampleKeyOf`
 */
export function diffAudits(
  prev: Pick<AuditOutput, 'findings'>,
  prevSamples: ReadonlyMap<string, QuotaUsageSample>,
  next: Pick<AuditOutput, 'findings'>,
  nextSamples: ReadonlyMap<string, QuotaUsageSample>,
): StepDiff {
  const quotas: QuotaChange[] = [];
  for (const [key, a] of nextSamples) {
    const b = prevSamples.get(key);
    if (b && b.used === a.used && b.limit === a.limit) continue;
    quotas.push({
      checkId: a.checkId,
      resource: a.resource,
      before: b ? { used: b.used, limit: b.limit, ratio: b.ratio } : { used: 0, limit: a.limit, ratio: 0 },
      after: { used: a.used, limit: a.limit, ratio: a.ratio },
    });
  }
  for (const [key, b] of prevSamples) {
    if (nextSamples.has(key)) continue;
    quotas.push({ checkId: b.checkId, resource: b.resource, before: { used: b.used, limit: b.limit, ratio: b.ratio }, after: { used: 0, limit: b.limit, ratio: 0 } });
  }
  quotas.sort((x, y) => cmp(x.checkId, y.checkId) || cmp(resourceKeyOf(x.resource), resourceKeyOf(y.resource)));
  const prevF = new Map(prev.findings.map((f) => [f.fingerprint, f]));
  const nextF = new Map(next.findings.map((f) => [f.fingerprint, f]));
  const appeared: FindingRef[] = [];
  const resolved: FindingRef[] = [];
  const severityChanged: SeverityChange[] = [];
  for (const [fp, f] of nextF) {
    const o = prevF.get(fp);
    if (!o) appeared.push(findingRef(f));
    else if (o.severity !== f.severity)
      severityChanged.push({ fingerprint: fp, checkId: f.checkId, resource: f.resource, before: o.severity, after: f.severity });
  }
  for (const [fp, f] of prevF) if (!nextF.has(fp)) resolved.push(findingRef(f));
  return {
    quotas,
    firstBreach: quotas.find((q) => q.after.used > q.after.limit) ?? null,
    findings: { appeared: sortFindings(appeared), resolved: sortFindings(resolved), severityChanged: sortFindings(severityChanged) },
  };
}

/**
 * `runAudit` of a snapshot the applier changes in place between audits: fresh region objects each time, since the
 * checks memoise per-region views by object (libs/checks nlb-index).
 */
export function auditChanged(snapshot: FleetSnapshot, options: Pick<WhatIfOptions, 'now' | 'settings'> & Pick<RunAuditOptions, 'resolvedSettings'>): AuditOutput {
  return runAudit(
    { ...snapshot, accounts: snapshot.accounts.map((a) => ({ ...a, regions: a.regions.map((r) => ({ ...r })) })) },
    { now: options.now, ...(options.settings ? { settings: options.settings } : {}), ...(options.resolvedSettings ? { resolvedSettings: options.resolvedSettings } : {}) },
  );
}

/**
 * Runs a scenario.
 * @throws ScenarioError naming the step and field for unknown clusters, nodes, Services or CLBs
 * @throws AuditSettingsError for invalid settings
 */
export function runWhatIf(snapshot: FleetSnapshot, scenario: Scenario, options: WhatIfOptions): WhatIfResult {
  const clusterIds = new Set<string>();
  // Steps name a cluster by id or by name: resolved once here, then every step carries the id.
  const resolvedSteps = scenario.steps.map((step) => {
    const loc = locateCluster(snapshot, step.args.cluster);
    if ('error' in loc) throw new ScenarioError(`step ${step.index} (${step.kind}) field ${step.kind}.cluster: ${loc.error}`, step.index, `${step.kind}.cluster`);
    clusterIds.add(loc.cluster.clusterId);
    return { ...step, args: { ...step.args, cluster: loc.cluster.clusterId } } as ScenarioStep;
  });
  const copy = scopedCopy(snapshot, clusterIds);
  const audit = (s: FleetSnapshot) => auditChanged(s, options);
  const applier = new ScenarioApplier(copy);
  let prev = audit(copy);
  let prevSamples = sampleMap(quotaUsageOf(prev.results, QUOTA_USAGE_CHECK_IDS));
  const steps: WhatIfStep[] = [];
  const allChanges: ServiceChange[] = [];
  for (const step of resolvedSteps) {
    const change = applier.apply(step);
    for (const c of change.services) allChanges.push({ ...c, cluster: step.args.cluster });
    const next = audit(copy);
    const nextSampleList = withOverflow(quotaUsageOf(next.results, QUOTA_USAGE_CHECK_IDS), applier.nodePortOverflow);
    const nextSamples = sampleMap(nextSampleList);
    const diff = diffAudits(prev, prevSamples, next, nextSamples);
    steps.push({
      name: step.name,
      ...diff,
      headroom: computeHeadroom(copy, nextSampleList, { clusterIds: [step.args.cluster], ...(options.settings?.owners ? { owners: options.settings.owners } : {}) }),
    });
    prev = next;
    prevSamples = nextSamples;
  }
  return { scenario: scenario.name, steps, convergence: estimateConvergence(allChanges, options.convergence) };
}
