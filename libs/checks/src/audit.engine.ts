import { quotaSampleOf, severityRank, teamOf, type CheckResult, type Finding, type FleetSnapshot, type OwnerSettings, type QuotaUsageSample, type ResourceRef, type Severity } from '@app/domain';
import type { AuditSettings, PartialAuditSettings } from './audit-settings.types';
import { resolveAuditSettings } from './audit-settings.util';
import { CHECKS, CHECK_IDS } from './check.registry';
import type { CheckContext, FastPathSwitch, PassTally, ServiceFilter } from './check.types';
import { FleetIndex } from './fleet-index';
import { compareResourceKeys, fingerprintOf, resourceKeyOf } from './fingerprint.util';
import { serviceRef, withResultResource } from './result.util';
import { withLbOwner } from './clb-owner';
import { lbOwners } from './lb-refs';

/** Options of `runAudit`. */
export interface RunAuditOptions {
  /** The analysis clock (frozen in tests). */
  now: Date;
  /** Overrides merged over `DEFAULT_AUDIT_SETTINGS`. */
  settings?: PartialAuditSettings;
  /**
   * `settings` resolved already (`resolveAuditSettings(settings, CHECK_IDS)`), used instead of resolving them again: for
   * a caller that audits many times with the same settings (the admission review model, a few audits per review).
   */
  resolvedSettings?: AuditSettings;
  /** The snapshot's index when the caller built one already (it is shared, e.g. with `buildFleetGraph`); built here otherwise. */
  index?: FleetIndex;
  /** The fast-path switch of this run (`FastPathSwitch`); absent = fast paths on. */
  fastPaths?: FastPathSwitch;
  /** The Services some checks judge in this run (`ServiceFilter`); absent = every check judges every Service. */
  serviceFilter?: ServiceFilter;
  /**
   * The checks whose pass and fail results the output keeps (`AuditOutput.results`); absent = every check's. A stored
   * scan keeps none (an empty set) and takes the quota checks' samples instead (`quotaSamplesOf`): of 2.5M results on
   * a 10M-entry fleet it keeps the few thousand skipped ones. Skipped results are kept for every check;
   * `AuditOutput.counts` counts every result either way, and the findings are the same.
   */
  keepResultsOf?: ReadonlySet<string>;
  /**
   * The checks whose quota samples the output carries (`AuditOutput.quotaUsage`: libs/domain `quotaSampleOf` of each
   * of their pass and fail results, in `quotaUsageOf`'s order). Taken as the check runs, so a scan keeps a small
   * sample per quota measurement instead of the result it came from: with `keepResultsOf` leaving those checks out,
   * their passes are counted and sampled, never kept (1.0M results on a 10M-entry fleet). Absent = no samples.
   */
  quotaSamplesOf?: ReadonlySet<string>;
  /**
   * The resources this run reports on; a result about any other resource is dropped as the check pushes it, before it
   * is counted, kept, sampled or made a finding. A sharded analysis's shard that is not its account's lead drops the
   * account's own results (region ''), which the lead shard reports (libs/audit analyze-shard.ts). Absent = every result.
   */
  resultsAbout?: (resource: ResourceRef) => boolean;
}

/** Evaluated (check, resource) pairs by status (counts). */
export interface StatusCounts {
  pass: number;
  fail: number;
  skipped: number;
}

/** Output of `runAudit`. */
export interface AuditOutput {
  /**
   * Every evaluated (check, resource) pair: pass, fail and skipped; sorted by check id, then resource key. With
   * `RunAuditOptions.keepResultsOf`, only those checks' results and every skipped result, in the same order.
   */
  results: CheckResult[];
  /** Failed results enriched for output; sorted by severity (critical first), check id, resource id. */
  findings: Finding[];
  /** Every evaluated pair counted by status, per check id (every check that produced a result), sorted by check id. */
  counts: Map<string, StatusCounts>;
  /**
   * With `RunAuditOptions.quotaSamplesOf`: the quota samples of those checks, equal to `quotaUsageOf` of every result
   * (check id order, then resource key, ties in result order); absent otherwise.
   */
  quotaUsage?: QuotaUsageSample[];
}

/**
 * The resource with `clusterName` set from the snapshot's cluster (`ClusterSnapshot.name`) when it names a cluster
 * of the snapshot that has a name, and `team` when the cluster has an owning team (libs/domain `teamOf` with
 * `owners`, the audit settings' owners); the resource itself otherwise.
 */
export function withClusterName(resource: ResourceRef, index: FleetIndex, owners?: OwnerSettings): ResourceRef {
  if (resource.clusterId === undefined || resource.clusterName !== undefined) return resource;
  const cluster = index.clusterById.get(resource.clusterId)?.cluster;
  const name = cluster?.name;
  if (!name) return resource;
  const team = teamOf(cluster, owners);
  // Key order of the JSON contract: the name right after the id it names, then namespace and name. A key loop,
  // not an object rest pattern: the rest copy was 2% of a 10M-entry analysis.
  const out: Record<string, unknown> = {};
  for (const k in resource) if (k !== 'namespace' && k !== 'name') out[k] = resource[k as keyof ResourceRef];
  out['clusterName'] = name;
  if (team !== undefined) out['team'] = team;
  if (resource.namespace !== undefined) out['namespace'] = resource.namespace;
  if (resource.name !== undefined) out['name'] = resource.name;
  return out as unknown as ResourceRef;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Whether an owned load-balancer ref (`withLbOwner`'s result) stands for `ref`: the same fields besides the owning
 * cluster. Key order need not be compared: every load-balancer ref is built by `lbRef` (result.util.ts) or
 * check-scope's ref of an unread CLB, both in the contract's order (kind, id, accountId, regionId, name).
 */
function sameLbRefFields(owned: ResourceRef, ref: ResourceRef): boolean {
  return (
    owned.kind === ref.kind &&
    owned.accountId === ref.accountId &&
    owned.regionId === ref.regionId &&
    owned.name === ref.name &&
    owned.namespace === ref.namespace &&
    ref.clusterName === undefined &&
    ref.team === undefined
  );
}

/**
 * Runs every enabled check over a snapshot: builds the index once, evaluates each check, applies the
 * per-check severity override, sets each CLB and NLB result's owning cluster (clb-owner.ts), and turns failures into findings (remediation, source, fingerprint,
 * `used` / `limit` / `ratio` copied to the top level, the resource's `clusterName` from the snapshot).
 *
 * A check that throws (a bug: rules must not) does not abort the audit: it yields one `skipped` result
 * per account naming the error, so the gap is visible.
 *
 * @throws AuditSettingsError when `options.settings` is invalid
 */
export function runAudit(snapshot: FleetSnapshot, options: RunAuditOptions): AuditOutput {
  const settings = options.resolvedSettings ?? resolveAuditSettings(options.settings, CHECK_IDS);
  const index = options.index ?? FleetIndex.build(snapshot);
  const ctx: CheckContext = {
    snapshot,
    index,
    now: options.now,
    settings,
    ...(options.fastPaths ? { fastPaths: options.fastPaths } : {}),
    ...(options.serviceFilter ? { serviceFilter: options.serviceFilter } : {}),
  };
  const perCheck: { id: string; results: CheckResult[]; sorted: boolean; counts: StatusCounts; samples?: QuotaUsageSample[] }[] = [];
  const keepResultsOf = options.keepResultsOf;
  const quotaSamplesOf = options.quotaSamplesOf;
  const about = options.resultsAbout;
  // The Service refs in key order, built before the checks run (they share them): what `KeyOrderScan` follows.
  const serviceRefs = serviceRefsInKeyOrder(index);
  const findings: Finding[] = [];
  // The finding resource (with its cluster name) per result resource: the findings of one Service share it.
  const named = new Map<ResourceRef, ResourceRef>();
  const namedOf = (ref: ResourceRef): ResourceRef => {
    let n = named.get(ref);
    if (n === undefined) named.set(ref, (n = withClusterName(ref, index, settings.owners)));
    return n;
  };
  // The owning cluster of each CLB and NLB (lb-refs.ts `lbOwners`), set on their results so their
  // samples and findings carry it. The refs rules build with `clbRef` / `nlbRef` carry it already (one per load
  // balancer, lb-refs.ts); a ref built otherwise (check-scope's ref of a CLB whose region was not read) is given
  // it here: one owned copy per load balancer, shared by the results of every check of it. A ref with other fields
  // than the cached one's gets its own copy.
  const ownedById = new Map<string, ResourceRef>();
  const ownedOf = (ref: ResourceRef): ResourceRef => {
    const owners = lbOwners(index);
    if (!owners.has(ref.id)) return ref;
    const o = ownedById.get(ref.id);
    if (o !== undefined && sameLbRefFields(o, ref)) return o;
    const copy = withLbOwner(ref, owners);
    if (o === undefined) ownedById.set(ref.id, copy);
    return copy;
  };
  // What a result's resource becomes in the output: a load balancer's ref without its owning cluster gets it.
  const ownedResource = (ref: ResourceRef): ResourceRef =>
    (ref.kind === 'LoadBalancer' || ref.kind === 'NetworkLoadBalancer') && ref.clusterId === undefined ? ownedOf(ref) : ref;
  for (const check of CHECKS) {
    const cs = settings.checks[check.id];
    if (cs?.enabled === false) continue;
    // A check whose passes are not kept counts them instead of returning them (`CheckContext.passTally`).
    const tally: PassTally | undefined =
      keepResultsOf !== undefined && !keepResultsOf.has(check.id) ? { passes: 0, ...(about ? { about } : {}) } : undefined;
    // The check's quota samples, in result order (sorted with its results below). A check that routes its results
    // through the tally's sink hands each pass and fail to `sample` as it pushes it; otherwise they are taken from
    // the list it returns, in the loop below.
    const samples: QuotaUsageSample[] | undefined = quotaSamplesOf?.has(check.id) ? [] : undefined;
    if (tally && samples)
      tally.sample = (result) => {
        const sample = quotaSampleOf(result);
        if (sample === undefined) return;
        const resource = ownedResource(sample.resource);
        samples.push(resource === sample.resource ? sample : { ...sample, resource });
      };
    let checkResults: CheckResult[];
    // Whether `resultsAbout` has been applied to the list already: by the tally's sink, as the check pushed them.
    let aboutApplied = false;
    try {
      checkResults = check.evaluate(tally ? { ...ctx, passTally: tally } : ctx);
      aboutApplied = tally?.routed === true;
    } catch (e) {
      if (tally) tally.passes = 0;
      if (samples) samples.length = 0;
      const message = e instanceof Error ? e.message : String(e);
      checkResults = snapshot.accounts.map((a) => ({
        checkId: check.id,
        status: 'skipped' as const,
        severity: check.defaultSeverity,
        resource: { kind: 'Account' as const, id: a.accountId, accountId: a.accountId, regionId: '' },
        message: `Not evaluated: check ${check.id} failed: ${message}`,
        reason: `check ${check.id} failed: ${message}`,
      }));
    }
    // The results about resources the run does not report on (`resultsAbout`), dropped in place, unless the tally's sink
    // dropped them as the check pushed them (not the skipped results of a check that threw: those are made here).
    if (about !== undefined && !aboutApplied) {
      let kept = 0;
      for (let i = 0; i < checkResults.length; i++) if (about(checkResults[i]!.resource)) checkResults[kept++] = checkResults[i]!;
      checkResults.length = kept;
    }
    // The check's own list is kept (a copy of it was 2.5M pushes on a 10M-entry fleet), rewritten in place where
    // the settings override the severity.
    const severity = cs?.severity;
    if (severity) for (let i = 0; i < checkResults.length; i++) checkResults[i] = withResultResource(checkResults[i]!, checkResults[i]!.resource, severity);
    const results = checkResults;
    // Whether the list is in resource-key order is learnt in the same pass as its findings: one read of each result
    // (2.5M on a 10M-entry fleet, scattered over the heap) instead of a second pass when the lists are ordered.
    const scan = new KeyOrderScan(serviceRefs);
    const counts: StatusCounts = { pass: tally?.passes ?? 0, fail: 0, skipped: 0 };
    const sampleHere = samples !== undefined && tally?.routed !== true;
    for (let i = 0; i < results.length; i++) {
      let result = results[i]!;
      const resource = ownedResource(result.resource);
      if (resource !== result.resource) results[i] = result = withResultResource(result, resource);
      scan.push(result.resource);
      counts[result.status]++;
      if (sampleHere) {
        const sample = quotaSampleOf(result);
        if (sample !== undefined) samples.push(sample);
      }
      if (result.status !== 'fail') continue;
      const f = result.figures;
      // Optional fields assigned in the contract's key order (not spread: 200,000 findings of a 10M-entry fleet).
      const finding: Finding = {
        checkId: result.checkId,
        severity: result.severity,
        resource: namedOf(result.resource),
        message: result.message,
        remediation: check.remediation,
        source: check.source,
        fingerprint: fingerprintOf(result.checkId, result.resource),
      };
      if (f?.used !== undefined) finding.used = f.used;
      if (f?.limit !== undefined) finding.limit = f.limit;
      if (f?.ratio !== undefined) finding.ratio = f.ratio;
      if (f) finding.figures = f;
      findings.push(finding);
    }
    // A check whose pass and fail results are not kept keeps its skipped ones, in list order (sorted below as the
    // whole list would be: the sort is stable), and its list is dropped at once, not held until the audit ends.
    if (tally !== undefined && results.length > 0) {
      const skipped = counts.skipped === 0 ? [] : results.filter((r) => r.status === 'skipped');
      results.length = 0;
      perCheck.push({ id: check.id, results: skipped, sorted: false, counts, ...(samples ? { samples } : {}) });
    } else perCheck.push({ id: check.id, results, sorted: scan.sorted, counts, ...(samples ? { samples } : {}) });
  }
  // Sort per check (results of a check share its id), then concatenate in check-id order: the same order as
  // one sort by (check id, resource key), with smaller sorts, comparing resources without building their keys.
  perCheck.sort((a, b) => compareStrings(a.id, b.id));
  // Allocated once at its final size (2.5M results on a 10M-entry fleet: growing it by pushes left copies behind),
  // and each check's own list emptied once copied.
  const results: CheckResult[] = new Array<CheckResult>(perCheck.reduce((n, c) => n + c.results.length, 0));
  let at = 0;
  const counts = new Map<string, StatusCounts>();
  const quotaUsage: QuotaUsageSample[] | undefined = quotaSamplesOf ? [] : undefined;
  for (const { id, results: list, sorted, counts: c, samples } of perCheck) {
    if (c.pass + c.fail + c.skipped > 0) counts.set(id, c);
    const order = sorted ? undefined : resultOrder(list);
    if (order === undefined) for (let i = 0; i < list.length; i++) results[at++] = list[i]!;
    else for (const i of order) results[at++] = list[i]!;
    list.length = 0;
    if (quotaUsage && samples) {
      // The samples in their results' order: the same stable order by resource key.
      const sampleOrder = resultOrder(samples);
      if (sampleOrder === undefined) for (const s of samples) quotaUsage.push(s);
      else for (const i of sampleOrder) quotaUsage.push(samples[i]!);
    }
  }
  return { results, findings: sortFindings(findings), counts, ...(quotaUsage ? { quotaUsage } : {}) };
}

/**
 * `AuditOutput.counts` of a list of results: every result counted by status, per check id (every check with a
 * result), sorted by check id.
 */
export function statusCountsOf(results: readonly CheckResult[]): Map<string, StatusCounts> {
  const byCheck = new Map<string, StatusCounts>();
  for (const r of results) {
    let c = byCheck.get(r.checkId);
    if (c === undefined) byCheck.set(r.checkId, (c = { pass: 0, fail: 0, skipped: 0 }));
    c[r.status]++;
  }
  return new Map([...byCheck.entries()].sort(([a], [b]) => compareStrings(a, b)));
}

/**
 * The ResourceRefs of the index's Services (`serviceRef`, shared by every result about a Service) in index order, when
 * that order is resource-key order (`compareResourceKeys` never decreasing: the mappers sort accounts, regions,
 * clusters and Services by id); `undefined` otherwise. What `KeyOrderScan` matches a Service check's results against.
 */
export function serviceRefsInKeyOrder(index: FleetIndex): ResourceRef[] | undefined {
  const refs = new Array<ResourceRef>(index.services.length);
  for (let i = 0; i < refs.length; i++) {
    refs[i] = serviceRef(index.services[i]!);
    if (i > 0 && compareResourceKeys(refs[i - 1]!, refs[i]!) > 0) return undefined;
  }
  return refs;
}

/**
 * Whether a list's resources come in resource-key order (`compareResourceKeys` never decreasing: what `resultOrder`
 * answers `undefined` for), learnt from the resources pushed one at a time. While they are the index's Service refs
 * (`serviceRefsInKeyOrder`: the same objects, in their order, each any number of times, some left out) one pointer
 * comparison per resource answers (a Service check emits its results so: 1.6M results on a 10M-entry fleet); from the
 * first other resource on, each is compared with the one before by key.
 */
export class KeyOrderScan {
  /** Whether every resource pushed so far came in key order. */
  sorted = true;
  private following: boolean;
  private at = -1;
  private previous: ResourceRef | undefined;

  /** @param refs the Service refs in key order, or `undefined` (then every resource is compared by key) */
  constructor(private readonly refs: readonly ResourceRef[] | undefined) {
    this.following = refs !== undefined;
  }

  /** The next resource of the list. */
  push(resource: ResourceRef): void {
    if (!this.sorted) return;
    const refs = this.refs;
    if (this.following && refs !== undefined && !(this.at >= 0 && refs[this.at] === resource)) {
      let j = this.previous === undefined && resource.kind !== 'Service' ? refs.length : this.at + 1;
      while (j < refs.length && refs[j] !== resource) j++;
      if (j < refs.length) this.at = j;
      else this.following = false;
    }
    if (!this.following && this.previous !== undefined && compareResourceKeys(this.previous, resource) > 0) this.sorted = false;
    this.previous = resource;
  }
}

/** Lists in at most this many sorted runs are merged (`resultOrder`); more are sorted by key strings (`keyOrder`). */
const MAX_MERGED_RUNS = 16;

/**
 * The positions of a check's results in resource-key order, ties in list order, or `undefined` when the list is in
 * that order already. Most checks emit in snapshot order, which the mappers sort by id: one pass finds the sorted
 * runs. A combined CLB + NLB check emits two (its CLB part, then its NLB part), merged in one more pass; a list in
 * many runs (a check emitting per server group) is sorted by key strings (`keyOrder`).
 */
export function resultOrder(list: readonly { readonly resource: ResourceRef }[]): Iterable<number> | undefined {
  const starts = [0];
  for (let i = 1; i < list.length; i++) {
    if (compareResourceKeys(list[i - 1]!.resource, list[i]!.resource) <= 0) continue;
    starts.push(i);
    if (starts.length > MAX_MERGED_RUNS) return keyOrder(list);
  }
  if (starts.length === 1) return undefined;
  starts.push(list.length);
  // Merge the runs pairwise, the earlier run first on ties (a stable merge).
  let runs: number[][] = [];
  for (let r = 0; r + 1 < starts.length; r++) runs.push(Array.from({ length: starts[r + 1]! - starts[r]! }, (_, k) => starts[r]! + k));
  while (runs.length > 1) {
    const next: number[][] = [];
    for (let r = 0; r < runs.length; r += 2) {
      const a = runs[r]!;
      const b = runs[r + 1];
      if (!b) {
        next.push(a);
        continue;
      }
      const out = new Array<number>(a.length + b.length);
      let i = 0;
      let j = 0;
      let k = 0;
      while (i < a.length && j < b.length)
        out[k++] = compareResourceKeys(list[b[j]!]!.resource, list[a[i]!]!.resource) < 0 ? b[j++]! : a[i++]!;
      while (i < a.length) out[k++] = a[i++]!;
      while (j < b.length) out[k++] = b[j++]!;
      next.push(out);
    }
    runs = next;
  }
  return runs[0]!;
}

/**
 * The positions of `list` in resource-key order (`resourceKeyOf`, compared as strings), ties in list order
 * (`positionsByKey`): the lists of a check that emits per server group come in thousands of sorted runs on a
 * 10M-entry fleet.
 */
export function keyOrder(list: readonly { readonly resource: ResourceRef }[]): Iterable<number> {
  return positionsByKey(
    list.length,
    (i) => {
      const key = resourceKeyOf(list[i]!.resource);
      return key.includes('\u0000') ? undefined : key;
    },
    (a, b) => compareResourceKeys(list[a]!.resource, list[b]!.resource),
  );
}

/**
 * Positions 0..n-1 ordered by `keyOf` (code-unit order), ties by position. Each key is built once with its position
 * appended (fixed width, after a NUL, which sorts before any character a key holds) and the keys are sorted by the
 * engine's own string sort, without a JavaScript comparison per pair. Where `keyOf` answers `undefined` (a key part
 * holding a NUL, never in ids the clouds and Kubernetes give) the positions are sorted with `compare` instead, which
 * must order as the keys do.
 */
function positionsByKey(
  n: number,
  keyOf: (i: number) => string | undefined,
  compare: (a: number, b: number) => number,
): number[] {
  const width = Math.max(1, (n - 1).toString(36).length);
  const keys = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const key = keyOf(i);
    if (key === undefined) return Array.from({ length: n }, (_, j) => j).sort((a, b) => compare(a, b) || a - b);
    keys[i] = `${key}\u0000${i.toString(36).padStart(width, '0')}`;
  }
  keys.sort();
  return keys.map((k) => parseInt(k.slice(k.length - width), 36));
}

/**
 * Findings in output order: severity (critical first), check id, resource id, fingerprint; ties keep their order.
 * Grouped by severity and check first (a check's findings are contiguous), then each group sorted by resource id
 * and fingerprint: the same order as one sort on the four keys, with cheaper comparisons (200,000 findings on a
 * 10M-entry fleet). The threaded analysis (libs/audit threaded-audit.ts) merges its shards' findings with it.
 * @returns a new array; `findings` is not changed
 */
export function sortFindings(findings: Finding[]): Finding[] {
  const bySeverity = new Map<Severity, Map<string, Finding[]>>();
  for (const f of findings) {
    let byCheck = bySeverity.get(f.severity);
    if (!byCheck) bySeverity.set(f.severity, (byCheck = new Map()));
    const list = byCheck.get(f.checkId);
    if (list) list.push(f);
    else byCheck.set(f.checkId, [f]);
  }
  const out: Finding[] = [];
  for (const severity of [...bySeverity.keys()].sort((a, b) => severityRank(b) - severityRank(a))) {
    const byCheck = bySeverity.get(severity)!;
    for (const checkId of [...byCheck.keys()].sort(compareStrings)) {
      const list = byCheck.get(checkId)!;
      for (const i of findingOrder(list)) out.push(list[i]!);
    }
  }
  return out;
}

/**
 * Lists each in `sortFindings` order merged into one in that order: the same array as `sortFindings` of their
 * concatenation (a stable merge: on equal keys the earlier list's finding first, as a stable sort of the
 * concatenation keeps them), with about n * log2(lists) comparisons and no key strings built. The threaded analysis
 * (libs/audit threaded-audit.ts) merges its shards' findings with it: each shard's are in `runAudit` order already,
 * so only the merge of the lists is left to the one thread that holds them all.
 * @param lists the lists, each sorted as `sortFindings` sorts; not changed
 * @returns a new array
 */
export function mergeSortedFindings(lists: readonly (readonly Finding[])[]): Finding[] {
  let runs: (readonly Finding[])[] = lists.filter((l) => l.length > 0);
  if (runs.length === 0) return [];
  if (runs.length === 1) return [...runs[0]!];
  // Merged pairwise, earlier lists first, so that on equal keys the earlier list's finding comes first.
  while (runs.length > 1) {
    const next: (readonly Finding[])[] = [];
    for (let r = 0; r < runs.length; r += 2) {
      const a = runs[r]!;
      const b = runs[r + 1];
      if (b === undefined) {
        next.push(a);
        continue;
      }
      const out = new Array<Finding>(a.length + b.length);
      let i = 0;
      let j = 0;
      let k = 0;
      while (i < a.length && j < b.length) out[k++] = compareFindings(b[j]!, a[i]!) < 0 ? b[j++]! : a[i++]!;
      while (i < a.length) out[k++] = a[i++]!;
      while (j < b.length) out[k++] = b[j++]!;
      next.push(out);
    }
    runs = next;
  }
  // Two lists or more: the last merge built a new array.
  return runs[0] as Finding[];
}

/** The order `sortFindings` gives: severity (critical first), check id, resource id, fingerprint, each in code-unit order. */
function compareFindings(x: Finding, y: Finding): number {
  if (x.severity !== y.severity) return severityRank(y.severity) - severityRank(x.severity);
  return compareStrings(x.checkId, y.checkId) || compareStrings(x.resource.id, y.resource.id) || compareStrings(x.fingerprint, y.fingerprint);
}

/**
 * The positions of one (severity, check) group of findings sorted by resource id, then fingerprint, ties in list
 * order: `positionsByKey` on `id`, NUL, the 32 hex characters of the fingerprint.
 */
export function findingOrder(list: readonly Finding[]): Iterable<number> {
  return positionsByKey(
    list.length,
    (i) => {
      const { resource, fingerprint } = list[i]!;
      return resource.id.includes('\u0000') || fingerprint.includes('\u0000') ? undefined : `${resource.id}\u0000${fingerprint}`;
    },
    (a, b) =>
      compareStrings(list[a]!.resource.id, list[b]!.resource.id) || compareStrings(list[a]!.fingerprint, list[b]!.fingerprint),
  );
}
