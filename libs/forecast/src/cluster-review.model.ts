/**
 * A warm model of one cluster for admission reviews: what `plan` answers for ONE Service applied to the cluster
 * (manifest-plan.ts, the `applyServices` what-if step), computed on a slice of the cluster's region instead of the
 * whole region, so that one review costs a small audit rather than two analyses of the region.
 *
 * The slice (copied from the snapshot and frozen once per snapshot and cluster): the cluster's account with only the
 * cluster's region, holding
 * - the cluster itself (nodes, Services, pods, endpoint slices);
 * - the CLBs, NLBs and NLB server groups the cluster can touch ("full": a tag value or a backend on one of its nodes'
 *   ECS instances, an id, name or address one of its Services names);
 * - the ECS instances of its nodes, the region's vSwitches and quotas.
 * A full CLB drops its backends on other clusters' nodes (one that other clusters' nodes are behind too counts as
 * shared, below). The region's other load balancers and server groups are kept apart as frozen stubs (no listeners, backends or
 * servers): the checks that count over the whole region (the instance quotas, a vSwitch's users; found when the model
 * is built, as the checks whose results on the slice's own resources change when the stubs are added) run on the
 * slice with the stubs, every other check on the slice without them, so a review audits a cluster, not a region.
 * Where those region checks read of the slice only its CLBs' ids and vSwitches and the Services naming a vSwitch
 * (SIGNED_REGION_CHECKS), their results are kept by that signature and a review with the same one reuses them.
 *
 * Of the checks left to the slice, the Service checks (found when the model is built, as the checks whose results on
 * each Service of the cluster and on the load balancers it names are the same with the Service alone in the cluster,
 * and that say nothing else there) run on the reviewed Service alone (its load balancers, the nodes, pods and ECS
 * instances as they are); their baseline results stand for every other Service. The others (those that count over
 * the cluster: a node's attachments, the NodePort range, Cluster-mode blowup) run on the whole slice, but for the
 * counting checks (COUNTING_CHECKS): each ECS instance's attachments are its baseline count plus what the step moved,
 * and Cluster-mode blowup judges the reviewed Service alone while no count the step moved reaches a quota ratio.
 *
 * A review copies only what the what-if step writes (the cluster's lists, the CLB of the Service it updates); the
 * rest stays shared and frozen, and a write to it (a change reaching further than foreseen) makes the review start
 * again on a deep copy of the slice.
 *
 * Exactness. `plan` diffs two audits of the whole region (whatif.runner.ts). The slice gives the same diff where each
 * result the change moves is one the slice computes as the region does. That is checked, not assumed: when the
 * model is built, the slice's baseline results are compared with the region's, result by result (status, severity,
 * message, figures), and every result that differs (or that the region does not have, or that the region has and the
 * slice does not) is untrusted. A review whose
 * diff moves an untrusted result, or whose Service names a load balancer or server group held as a stub or one that
 * another cluster's Services use too (a CLB reused across clusters: the slice lacks those Services), gets no answer
 * from the model (a `fallback`): the caller then runs the whole what-if. libs/forecast/test/cluster-review.model.spec.ts
 * and cluster-review.bench-shape.spec.ts compare the model's answers with `planManifests` Service by Service on the
 * sample fleet and on the bench fleet's shape.
 *
 * Not computed: the headroom after the change (`WhatIfStep.headroom` is empty; a review does not report it).
 */
import { createHash } from 'node:crypto';
import { CHECK_IDS, FleetIndex, QUOTA_USAGE_CHECK_IDS, resolveAuditSettings, resourceKeyOf, runAudit, type AuditOutput, type AuditSettings, type PartialAuditSettings, type RunAuditOptions, type ServiceFilter } from '@app/checks';
import {
  coverageKey,
  defaultLoadBalancerName,
  getLbAnnotation,
  LB_ANNOTATION,
  needClb,
  quotaUsageOf,
  type AccountSnapshot,
  type Clb,
  type ClusterSnapshot,
  type CheckResult,
  type Finding,
  type FleetSnapshot,
  type K8sEndpointSlice,
  type K8sService,
  type K8sServiceWire,
  type Nlb,
  type NlbServerGroup,
  type QuotaUsageSample,
  type RegionSnapshot,
} from '@app/domain';
import { estimateConvergence, type ConvergenceSettings, type ServiceChange } from './convergence.model';
import { planResultOf, preparePlan, type PlanResult } from './manifest-plan';
import { ScenarioApplier, type ExpectedGroupsMemo } from './scenario.apply';
import { auditChanged, diffAudits, sampleKeyOf, sampleMap, withOverflow, type QuotaChange, type StepDiff, type WhatIfResult } from './whatif.runner';

/** Options of a review model: the analysis clock and settings `plan` would be given. */
export interface ClusterReviewOptions {
  now: Date;
  settings?: PartialAuditSettings;
  convergence?: Partial<ConvergenceSettings>;
}

/** The region's own baseline results (`resultText` digests), keyed by `sampleKeyOf`, shared by the models of the region's clusters. */
export interface RegionBaseline {
  accountId: string;
  regionId: string;
  results: ReadonlyMap<string, string>;
}

/** Why a review model gave no answer (the caller runs the whole what-if instead). */
export type ReviewFallbackReason = 'names-stub' | 'shared-lb' | 'untrusted-result' | 'shared-object';

/** A review model's answer: the plan, or why the whole what-if is needed. */
export type ReviewAnswer = { plan: PlanResult } | { fallback: ReviewFallbackReason; detail: string };

/**
 * What a result says, as compared between the slice and the region (status, severity, message, figures): a SHA-256
 * of them, 16 bytes base64, so that a region's baseline (22,000 results, 8 MB, for a 50-cluster region of the
 * 1M-backend bench fleet) stays small while models are built from it.
 */
function resultText(r: CheckResult): string {
  return createHash('sha256').update(JSON.stringify([r.status, r.severity, r.message, r.figures ?? null])).digest('base64').slice(0, 22);
}

function resultTexts(results: readonly CheckResult[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const r of results) m.set(sampleKeyOf(r.checkId, r.resource), resultText(r));
  return m;
}

function regionOf(snapshot: FleetSnapshot, clusterId: string): { account: AccountSnapshot; region: RegionSnapshot; cluster: ClusterSnapshot } {
  for (const account of snapshot.accounts)
    for (const region of account.regions)
      for (const cluster of region.clusters) if (cluster.clusterId === clusterId) return { account, region, cluster };
  throw new Error(`cluster ${clusterId} is not in the snapshot`);
}

function coverageOf(snapshot: FleetSnapshot, accountId: string, regionId: string): FleetSnapshot['coverage'] {
  return snapshot.coverage.filter((c) => c.accountId === accountId && (c.regionId === undefined || c.regionId === regionId));
}

/**
 * The coverage a slice of cluster `clusterId` keeps: of the region's entries (`coverageOf`), the failed ones of the
 * cluster itself or of its region or account, the last one of each key (`coverageKey`). The audit reads coverage only
 * through `FleetIndex.failedCoverage` (libs/checks fleet-index.ts: a map by key, the last entry of a key winning, asked
 * only of the slice's own cluster, region and account, and answering only a failed entry), so every answer is the
 * same, while each of a review's audits no longer keys the region's other clusters' entries (258 on a 50-cluster
 * region of the bench fleet: half the index build of a review's slice).
 */
function sliceCoverage(regional: FleetSnapshot['coverage'], clusterId: string): FleetSnapshot['coverage'] {
  const last = new Map<string, FleetSnapshot['coverage'][number]>();
  for (const c of regional) if (c.clusterId === undefined || c.clusterId === clusterId) last.set(coverageKey(c), c);
  return [...last.values()].filter((c) => c.status === 'failed');
}

/**
 * The region's baseline audit as the what-if runs it (one account, one region, its coverage), results keyed.
 * Costs one analysis of the region: build it once per snapshot and region and share it between the region's clusters.
 * @throws Error when the cluster is not in the snapshot
 */
export function regionBaseline(snapshot: FleetSnapshot, clusterId: string, options: ClusterReviewOptions): RegionBaseline {
  const { account, region } = regionOf(snapshot, clusterId);
  const scoped: FleetSnapshot = { name: snapshot.name, accounts: [{ ...account, regions: [region] }], coverage: coverageOf(snapshot, account.accountId, region.regionId) };
  return { accountId: account.accountId, regionId: region.regionId, results: resultTexts(auditChanged(scoped, options).results) };
}

/** What a Service names of the load balancers: its annotation values, its ingress addresses, the name CCM gives its CLB. */
function namedBy(svc: K8sService): Set<string> {
  const out = new Set<string>();
  for (const v of Object.values(svc.annotations ?? {})) for (const part of String(v).split(',')) out.add(part.trim());
  for (const ing of svc.ingress ?? []) for (const v of Object.values(ing)) if (typeof v === 'string') out.add(v);
  if (svc.uid) out.add(defaultLoadBalancerName(svc.uid));
  return out;
}

function tagged(tags: Readonly<Record<string, string>> | undefined, set: ReadonlySet<string>): boolean {
  return Object.values(tags ?? {}).some((v) => set.has(v));
}

/** A CLB one of `set` names: by a tag value, its id, name or address. */
function clbNamed(c: Clb, set: ReadonlySet<string>): boolean {
  return tagged(c.tags, set) || set.has(c.loadBalancerId) || set.has(c.name) || (c.address !== undefined && set.has(c.address));
}

/** An NLB one of `set` names: by a tag value, its id, name or DNS name. */
function nlbNamed(n: Nlb, set: ReadonlySet<string>): boolean {
  return tagged(n.tags, set) || set.has(n.loadBalancerId) || (n.name !== undefined && set.has(n.name)) || (n.dnsName !== undefined && set.has(n.dnsName));
}

/** An NLB server group one of `set` names (a tag value, its id or name) or that serves one of the NLBs `nlbIds`. */
function groupNamed(g: NlbServerGroup, set: ReadonlySet<string>, nlbIds: ReadonlySet<string>): boolean {
  return tagged(g.tags, set) || set.has(g.serverGroupId) || set.has(g.name) || g.relatedLoadBalancerIds.some((id) => nlbIds.has(id));
}

/** `namespace/name` of a Service. */
function serviceKey(svc: { namespace: string; name: string }): string {
  return `${svc.namespace}/${svc.name}`;
}

/** Most Services of a cluster whose results decide the Service checks when a model is built (each one small audit). */
const MAX_WITNESSES = 64;

/**
 * Region checks whose results on a review's region depend on the review's slice only through `regionSignature`
 * (the CLBs' ids, vSwitches and order, and the Services that name a vSwitch), given the stubs, nodes, ECS instances,
 * vSwitches and quotas the model shares between reviews:
 * - `CLB_INSTANCE_QUOTA` reads how many CLBs the region has (libs/checks clb-instance-quota.rule.ts);
 * - `VSWITCH_IP_EXHAUSTION` reads each CLB's id and `vSwitchId` in list order, the `vswitch-id` annotation of the
 *   cluster's CLB Services, and its nodes' vSwitches (vswitch-ip-exhaustion.rule.ts `vSwitchUsage`).
 * When every region check of a model is one of these, a review whose signature an earlier review had reuses that
 * review's region results (`regionMemo`) instead of auditing the region's stubs again: a new Service without a
 * `vswitch-id` annotation adds one CLB of the same id and vSwitch as every other new Service.
 */
const SIGNED_REGION_CHECKS: ReadonlySet<string> = new Set(['CLB_INSTANCE_QUOTA', 'VSWITCH_IP_EXHAUSTION']);

/**
 * The counting checks: cluster checks that a review of one CLB Service answers from the counts its step moves
 * (`countingPart`) rather than by judging every ECS instance and every Service of the whole slice again:
 * - `ECS_LB_ATTACHMENT_QUOTA` counts, per ECS instance, the CLBs that list it as a backend (libs/checks
 *   ecs-lb-attachment-quota.rule.ts over `FleetIndex.ecsAttachments`: a server counts on a CLB where its first entry
 *   there, default group first, is an ECS backend; `attachedEcs`). A review's count of each instance is its baseline
 *   count less the CLBs the step changed as they were, plus them as they are; an instance whose count moves keeps a
 *   passing result with the new use (`used / limit` under `quota.warningRatio` and `quota.criticalRatio`, as the rule
 *   judges it), else the review runs the check on the whole slice (a finding's text is the rule's).
 * - `CLUSTER_MODE_BLOWUP` judges each CLB Service (cluster-mode-blowup.rule.ts) by its own node selection, endpoint
 *   slices and CLB, and by the attachment counts of its eligible nodes: the review's audit of the slice judges the
 *   reviewed Service alone (a `ServiceFilter`); every other Service's baseline result stands. The rule reads the
 *   counts only as the busiest eligible node (against `quota.criticalRatio`: the severity) and the busiest node
 *   attached only by Cluster mode (against `quota.warningRatio`: the failure); the nodes whose count the step moved
 *   stay under both ratios before and after (above), the others keep their counts, so each of those comparisons,
 *   hence each other Service's status and severity, stays as it was (only the figures of its message could move,
 *   which no diff reads).
 * The counts are checked against the slice's baseline results when the model is built: a model where one differs
 * runs both checks on every Service of the whole slice.
 */
const COUNTING_CHECKS: ReadonlySet<string> = new Set(['ECS_LB_ATTACHMENT_QUOTA', 'CLUSTER_MODE_BLOWUP']);

const BLOWUP: ReadonlySet<string> = new Set(['CLUSTER_MODE_BLOWUP']);

/**
 * The checks that read CLBs' backend entries, directly or through what the index derives from them (`FleetIndex`
 * `clbBackendStats`, `ecsAttachments`, `attachmentRanking`, `vServerGroupShape`, the `ecs` scope): libs/checks rules
 * clb-backend-quota, cluster-mode-blowup, ecs-lb-attachment-quota, lb-config-drift and lb-no-backends. Every other
 * check reads a CLB's id, name, tags, address, listeners and vServer groups, never their backends.
 */
const BACKEND_READERS: ReadonlySet<string> = new Set(['CLB_BACKEND_QUOTA', 'CLUSTER_MODE_BLOWUP', 'ECS_LB_ATTACHMENT_QUOTA', 'LB_CONFIG_DRIFT', 'LB_NO_BACKENDS']);

/**
 * A CLB as the audit of a review answered from the counts reads one that is not the reviewed Service's (`blindAudit`):
 * the same CLB without backends (its default group and its vServer groups emptied). Of its backends, only that
 * audit's CLUSTER_MODE_BLOWUP reads anything, and only through each ECS instance's count of CLBs
 * (`FleetIndex.attachmentRanking`) and the entries of the reviewed Service's own CLB (never a twin): the model keeps
 * each instance's count over the CLBs it twins (`twinCounts`, `attachedEcs`) and hands it to the audit's index
 * (`FleetIndexOptions.attachmentsOutside`), so the index's pass over the backends walks only the reviewed Service's
 * CLBs instead of every entry of every group (3 x 100 for a 3-port Cluster-mode Service on 100 nodes).
 */
function backendTwin(clb: Clb): Clb {
  return deepFreeze({ ...clb, defaultBackendServers: [], vServerGroups: clb.vServerGroups.map((v) => ({ ...v, backendServers: [] })) });
}

/**
 * `auditChanged` (whatif.runner.ts) with a one-Service filter: `runAudit` of the slice with fresh region objects (the
 * checks memoise per-region views by object, and a review changed the slice since the last audit of it).
 */
function auditFiltered(snapshot: FleetSnapshot, options: Pick<RunAuditOptions, 'now' | 'settings' | 'resolvedSettings' | 'serviceFilter'>): AuditOutput {
  return runAudit({ ...snapshot, accounts: snapshot.accounts.map((a) => ({ ...a, regions: a.regions.map((r) => ({ ...r })) })) }, options);
}

/**
 * The servers a CLB counts as attached ECS instances: each server id whose first entry on the CLB (the default group
 * first, then the vServer groups in order) is of type `ecs` (FleetIndex `regionBackendStats`).
 */
function attachedEcs(clb: Clb): Set<string> {
  const seen = new Set<string>();
  const out = new Set<string>();
  for (const g of [clb.defaultBackendServers, ...clb.vServerGroups.map((v) => v.backendServers)])
    for (const b of g) {
      if (seen.has(b.serverId)) continue;
      seen.add(b.serverId);
      if (b.type === 'ecs') out.add(b.serverId);
    }
  return out;
}

/** Whether two lists hold the same entries (the same objects) in the same order; both absent counts as the same. */
function sameEntries<T>(a: readonly T[] | undefined, b: readonly T[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Whether two lists hold the same entries (the same objects) in the same order once the entries `skip` accepts are
 * left out of both (`sameEntries` of the two filtered lists, without building them).
 */
function sameEntriesExcept<T>(a: readonly T[], b: readonly T[], skip: (x: T) => boolean): boolean {
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && skip(a[i]!)) i++;
    while (j < b.length && skip(b[j]!)) j++;
    if (i === a.length || j === b.length) return i === a.length && j === b.length;
    if (a[i] !== b[j]) return false;
    i++;
    j++;
  }
}

/** Whether two objects hold the same values (the same objects) under every key but `except`. */
function sameFields(a: object, b: object, except: ReadonlySet<string>): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const k of Object.keys(x)) if (!except.has(k) && x[k] !== y[k]) return false;
  for (const k of Object.keys(y)) if (!except.has(k) && !(k in x)) return false;
  return true;
}

const REGION_LISTS: ReadonlySet<string> = new Set(['clusters', 'loadBalancers', 'nlbs', 'nlbServerGroups']);
const CLUSTER_LISTS: ReadonlySet<string> = new Set(['kubernetes']);
const KUBERNETES_LISTS: ReadonlySet<string> = new Set(['services', 'endpointSlices', 'pods']);

/** Region results kept per model (`regionMemo`), by signature; the memo starts again when full. */
const MAX_REGION_MEMO = 32;

/** Freezes a value and everything it holds. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

/** A write to a frozen object (strict mode): what a review meets when a change reaches past what it copied. */
function isFrozenWrite(e: unknown): boolean {
  return e instanceof TypeError && /read.only|frozen|not extensible|Cannot (assign|add|delete|define)/i.test(e.message);
}

/** One kind of load balancer list of the region, split: the full entries (the slice's) and the stubs, with their positions. */
interface SplitList<T> {
  /** Each entry of the region's list: the full entry's index in `full`, or the stub. */
  order: ({ full: number } | { stub: T })[];
  full: T[];
}

function split<T>(list: readonly T[] | undefined, touched: (x: T) => boolean, stub: (x: T) => T): SplitList<T> | undefined {
  if (!list) return undefined;
  const out: SplitList<T> = { order: [], full: [] };
  for (const x of list) {
    if (touched(x)) out.order.push({ full: out.full.push(x) - 1 });
    else out.order.push({ stub: stub(x) });
  }
  return out;
}

/**
 * The region's list with the stubs back in place: the review's list (`now`) in the region's order where its
 * entries are still the ones it started with (`started`), then the entries the step added.
 */
function withStubs<T>(s: SplitList<T>, started: readonly T[], now: readonly T[]): T[] {
  const present = new Set(now);
  const placed = new Set<T>();
  const out: T[] = [];
  for (const o of s.order) {
    if ('stub' in o) out.push(o.stub);
    else {
      const x = started[o.full]!;
      if (present.has(x)) {
        out.push(x);
        placed.add(x);
      }
    }
  }
  for (const x of now) if (!placed.has(x)) out.push(x);
  return out;
}

/** The results and findings of one audit, or of one part of a review. */
type AuditPart = Pick<AuditOutput, 'results' | 'findings'>;

/** The Service checks' part of a review (`servicePart`): their results on the Service alone, and the load balancers it names. */
interface ServicePart {
  own: AuditPart;
  ids: ReadonlySet<string>;
}

/**
 * The counting checks' part of a review (`countingPart`): the ECS instances whose count the step moved (by id) with
 * their new quota samples, and the filter that has the review's audit of the slice judge the reviewed Service alone.
 */
interface CountingPart {
  moved: ReadonlySet<string>;
  samples: QuotaUsageSample[];
  filter?: ServiceFilter;
}

/** What a review reads of a baseline result or finding to know whether it keeps it (`keeps`). */
interface BaselineItem {
  checkId: string;
  kind: string;
  id: string;
  /** `namespace/name` of a Service of the model's cluster; undefined for anything else. */
  service: string | undefined;
}

/** The slice of one review: the snapshot the what-if step changes, and how to put the stubs back for the region checks. */
interface ReviewCopy {
  slice: FleetSnapshot;
  region: RegionSnapshot;
  started: { clbs: Clb[]; nlbs: Nlb[]; groups: NlbServerGroup[] };
}

/**
 * The model of one cluster of one snapshot (see the file comment). Build it once per (snapshot, cluster) and keep it
 * while the snapshot is the latest; `review` never changes it.
 */
export class ClusterReviewModel {
  private readonly account: AccountSnapshot;
  private readonly region: RegionSnapshot;
  private readonly cluster: ClusterSnapshot;
  private readonly coverage: FleetSnapshot['coverage'];
  private readonly clbs: SplitList<Clb> | undefined;
  /** The CLB list the region checks run with: `clbs`, or its stubs without their tags where that changes nothing. */
  private readonly wideClbs: SplitList<Clb> | undefined;
  /**
   * The region checks' results of earlier reviews by `regionSignature`, when every region check is one of
   * SIGNED_REGION_CHECKS (else undefined: each review audits the region).
   */
  private readonly regionMemo: Map<string, Pick<AuditOutput, 'results' | 'findings'>> | undefined;
  private readonly nlbs: SplitList<Nlb> | undefined;
  private readonly groups: SplitList<NlbServerGroup> | undefined;
  /** Per Service of the cluster (`namespace/name`): the full CLBs it names (copied when a review updates it). */
  private readonly clbsOfService = new Map<string, number[]>();
  /** Ids of the stubbed load balancers and server groups: a Service naming one is not judged by the slice. */
  private readonly stubIds: ReadonlySet<string>;
  /**
   * Ids of the full load balancers other clusters' Services also use (a CLB reused across clusters): the slice
   * lacks those Services, so a review that names one, or updates a Service on one, is not judged by the slice.
   */
  private readonly sharedIds: ReadonlySet<string>;
  /** Checks that count over the whole region: run on the slice with the stubs. */
  readonly regionChecks: ReadonlySet<string>;
  /**
   * Service checks: those whose results on a Service and on the load balancers it names are the same with the
   * Service alone in the cluster as with all its Services, and that say nothing of anything else there (found when
   * the model is built, Service by Service of the cluster). A review runs them on the reviewed Service alone
   * (`servicePart`) and keeps their baseline results on everything else.
   */
  readonly serviceChecks: ReadonlySet<string>;
  /**
   * The counting checks this model answers from counts (`countingPart`): ECS_LB_ATTACHMENT_QUOTA when it is a cluster
   * check here, enabled, and its counts passed the check of the model's build, with CLUSTER_MODE_BLOWUP when that is
   * a cluster check too; empty: both run on every Service of the whole slice.
   */
  readonly countingChecks: ReadonlySet<string>;
  /** `clusterSettings` less ECS_LB_ATTACHMENT_QUOTA: what a review answered by `countingPart` runs on the whole slice. */
  private readonly clusterSettingsUncounted: PartialAuditSettings;
  /**
   * Each frozen CLB of the slice with its `backendTwin`, when a review answered from the counts audits the slice with
   * the twins of the CLBs the reviewed Service does not name (`blindAudit`): only when no check of that audit but
   * CLUSTER_MODE_BLOWUP reads backends (BACKEND_READERS) and, on a witness Service of the cluster, that audit's
   * results with the twins were those without them (checked when the model is built); else empty.
   */
  private readonly twins = new Map<Clb, Clb>();
  /** Each twinned CLB's attached ECS instances (`attachedEcs`), and per instance how many twinned CLBs attach it: what a review's twins leave out of its audit's backend pass. */
  private readonly twinAttached = new Map<Clb, string[]>();
  private readonly twinCounts = new Map<string, number>();
  /** The baseline's ECS_LB_ATTACHMENT_QUOTA result of each ECS instance, by its id. */
  private readonly ecsResults = new Map<string, CheckResult>();
  /**
   * Per ECS instance of `ecsResults`: its result's key (`sampleKeyOf`), its place in the order of the diff's quotas
   * (by `resourceKeyOf`), that key string, and whether the result is untrusted: what a review's moved counts are
   * diffed with, without building the keys again for every review.
   */
  private readonly ecsKeys = new Map<string, { sample: string; order: number; resourceKey: string; untrusted: boolean }>();
  /** The baseline's results and findings of the counting checks. */
  private readonly countingBaseline: Pick<AuditOutput, 'results' | 'findings'>;
  /** What each Service of the cluster names (`namedBy`), by `namespace/name`. */
  private readonly namesOf = new Map<string, Set<string>>();
  /** The quota ratios of the model's settings (`quota.warningRatio`, `quota.criticalRatio`). */
  private readonly quotaRatios: { warningRatio: number; criticalRatio: number };
  /** Each settings object of the model (`sliceSettings`, ...) resolved once (`resolveAuditSettings`), for the audits of every review (`audit`). */
  private readonly resolved = new Map<PartialAuditSettings, AuditSettings>();
  private readonly sliceSettings: PartialAuditSettings;
  private readonly regionSettings: PartialAuditSettings;
  /** The slice's checks less the Service checks: what a review still runs on the whole slice. */
  private readonly clusterSettings: PartialAuditSettings;
  private readonly serviceSettings: PartialAuditSettings;
  /** The baseline's results and findings of the Service checks. */
  private readonly serviceBaseline: Pick<AuditOutput, 'results' | 'findings'>;
  /** Per load balancer and server group id of the slice: the Services of the cluster (`namespace/name`) that name it. */
  private readonly lbUsers = new Map<string, string[]>();
  private readonly baseline: Pick<AuditOutput, 'results' | 'findings'>;
  private readonly baselineSamples: ReadonlyMap<string, QuotaUsageSample>;
  /** Each baseline quota sample by its key (`baselineSamples`), with what `keeps` reads of its result. */
  private readonly sampleItems = new Map<string, { sample: QuotaUsageSample; item: BaselineItem }>();
  /** Each baseline finding by its fingerprint (the last of a fingerprint, as `diffAudits` keys them), with what `keeps` reads of it. */
  private readonly findingItems = new Map<string, { finding: Finding; item: BaselineItem }>();
  /** The CCM model's answers for the slice's frozen Services, shared by the reviews' appliers. */
  private readonly expectedMemo: ExpectedGroupsMemo = new WeakMap();
  /** Result keys whose slice result differs from the region's (or that the region does not have). */
  private readonly untrusted: ReadonlySet<string>;
  /** Result keys of the slice's baseline. */
  private readonly sliceKeys: ReadonlySet<string>;
  /**
   * The region's baseline results (shared with the region's other models): a review result the slice's baseline lacks
   * but the region's has (a vSwitch only other clusters used, which the review's Service names) is untrusted too.
   */
  private readonly regionResults: ReadonlyMap<string, string>;
  /**
   * Reviews answered so far with the Service checks run on the Service alone, and with every check on the whole
   * slice; reviews whose region checks' results came from `regionMemo`; reviews whose counting checks came from
   * `countingPart`.
   */
  readonly answered = { serviceAlone: 0, wholeSlice: 0, regionRemembered: 0, counted: 0 };
  /**
   * Counts for diagnostics and the bench: the slice's baseline results, the untrusted ones, full and stub CLBs, the
   * region, Service and counting checks, and the CLBs with a twin for the audits answered from the counts (`twins`).
   */
  readonly size: { results: number; untrusted: number; fullClbs: number; stubClbs: number; regionChecks: number; serviceChecks: number; countingChecks: number; twinClbs: number };

  /**
   * @param snapshot the fleet snapshot (read only: the slice is a copy)
   * @param clusterId the cluster's id
   * @param baseline `regionBaseline` of the same snapshot, cluster region and options
   * @throws Error when the cluster is not in the snapshot or the baseline is of another region
   */
  constructor(
    snapshot: FleetSnapshot,
    readonly clusterId: string,
    baseline: RegionBaseline,
    private readonly options: ClusterReviewOptions,
  ) {
    const found = regionOf(snapshot, clusterId);
    if (baseline.accountId !== found.account.accountId || baseline.regionId !== found.region.regionId)
      throw new Error(`the baseline is of ${baseline.accountId}/${baseline.regionId}, not of cluster ${clusterId}'s region`);
    this.coverage = sliceCoverage(coverageOf(snapshot, found.account.accountId, found.region.regionId), clusterId);
    const k8s = found.cluster.kubernetes;
    const nodeEcs = new Set((k8s?.nodes ?? []).map((n) => n.ecsInstanceId).filter((x): x is string => x !== undefined));
    // What the cluster's Services name: ids, addresses, the names CCM gives their CLBs.
    const named = new Set<string>([clusterId]);
    for (const svc of k8s?.services ?? []) for (const v of namedBy(svc)) named.add(v);
    const clbTouched = (c: Clb) =>
      clbNamed(c, named) || c.defaultBackendServers.some((b) => nodeEcs.has(b.serverId)) || c.vServerGroups.some((g) => g.backendServers.some((b) => nodeEcs.has(b.serverId)));
    const r = found.region;
    const groupTouched = (g: NlbServerGroup) => tagged(g.tags, named) || named.has(g.serverGroupId) || named.has(g.name) || g.servers.some((x) => nodeEcs.has(x.serverId));
    const touchedGroups = new Set((r.nlbServerGroups ?? []).filter(groupTouched).map((g) => g.serverGroupId));
    const nlbTouched = (n: Nlb) =>
      nlbNamed(n, named) || n.listeners.some((l) => l.serverGroupId !== undefined && touchedGroups.has(l.serverGroupId));
    const fullNlbs = new Set((r.nlbs ?? []).filter(nlbTouched).map((n) => n.loadBalancerId));
    // A full CLB drops its backends on other clusters' nodes: a CLB that also serves other clusters' nodes (a
    // console-created CLB several clusters reuse) is counted as theirs too (`sharedIds`), and the slice's results on
    // it and on the other nodes' ECS instances differ from the region's (untrusted).
    const foreignNodes = new Set<string>();
    for (const other of r.clusters)
      if (other.clusterId !== clusterId) for (const n of other.kubernetes?.nodes ?? []) if (n.ecsInstanceId !== undefined) foreignNodes.add(n.ecsInstanceId);
    const trimmed = new Set<string>();
    const ownBackends = <T extends { serverId: string }>(list: readonly T[], id: string): T[] => {
      const kept = list.filter((b) => !foreignNodes.has(b.serverId));
      if (kept.length !== list.length) trimmed.add(id);
      return kept;
    };
    const trim = (c: Clb): Clb => {
      const defaultBackendServers = ownBackends(c.defaultBackendServers, c.loadBalancerId);
      const vServerGroups = c.vServerGroups.map((g) => ({ ...g, backendServers: ownBackends(g.backendServers, c.loadBalancerId) }));
      return trimmed.has(c.loadBalancerId) ? { ...c, defaultBackendServers, vServerGroups } : c;
    };
    const clbSplit = split(r.loadBalancers, clbTouched, (c) => ({ ...c, tags: { ...c.tags }, listeners: [], defaultBackendServers: [], vServerGroups: [] }));
    if (clbSplit) clbSplit.full = clbSplit.full.map(trim);
    // One copy of the slice, frozen: every review shares it and copies only what its step writes.
    const own = structuredClone({
      cluster: found.cluster,
      clbs: clbSplit,
      nlbs: split(r.nlbs, nlbTouched, (n) => ({ ...n, listeners: [] })),
      groups: split(r.nlbServerGroups, (g) => touchedGroups.has(g.serverGroupId) || g.relatedLoadBalancerIds.some((id) => fullNlbs.has(id)), (g) => ({ ...g, servers: [] })),
      ecs: r.ecsInstances?.filter((e) => nodeEcs.has(e.instanceId)),
      vSwitches: r.vSwitches,
      quotas: r.quotas,
    });
    this.clbs = own.clbs;
    this.nlbs = own.nlbs;
    this.groups = own.groups;
    // Nodes and ECS instances stay writable: the analysis sets each node's ECS id to the listing's own string (the
    // same value), which a frozen node would refuse.
    const { nodes, ...k8sRest } = own.cluster.kubernetes ?? { nodes: [] };
    deepFreeze([k8sRest, own.clbs, own.nlbs, own.groups, own.vSwitches, own.quotas]);
    for (const n of nodes) deepFreeze(Object.values(n).filter((v) => typeof v === 'object'));
    // The list itself is frozen: the what-if step memoises the CCM model's answer per frozen Service and node list.
    Object.freeze(nodes);
    this.cluster = own.cluster;
    this.region = { ...r, clusters: [], ...(own.ecs ? { ecsInstances: own.ecs } : {}), ...(own.vSwitches ? { vSwitches: own.vSwitches } : {}), ...(own.quotas ? { quotas: own.quotas } : {}) };
    this.account = { ...found.account, regions: [] };
    for (const svc of this.cluster.kubernetes?.services ?? []) {
      const set = namedBy(svc);
      const at = (this.clbs?.full ?? []).flatMap((c, i) => (clbNamed(c, set) ? [i] : []));
      if (at.length > 0) this.clbsOfService.set(`${svc.namespace}/${svc.name}`, at);
    }
    // Load balancers other clusters of the region name too.
    const foreign = new Set<string>();
    for (const other of r.clusters) {
      if (other.clusterId === clusterId) continue;
      foreign.add(other.clusterId);
      for (const svc of other.kubernetes?.services ?? []) for (const v of namedBy(svc)) foreign.add(v);
    }
    const sharedIds = new Set<string>(trimmed);
    for (const c of this.clbs?.full ?? []) if (clbNamed(c, foreign)) sharedIds.add(c.loadBalancerId);
    for (const n of this.nlbs?.full ?? []) if (tagged(n.tags, foreign) || foreign.has(n.loadBalancerId)) sharedIds.add(n.loadBalancerId);
    this.sharedIds = sharedIds;
    const stubIds = new Set<string>();
    for (const o of this.clbs?.order ?? []) if ('stub' in o) stubIds.add(o.stub.loadBalancerId);
    for (const o of this.nlbs?.order ?? []) if ('stub' in o) stubIds.add(o.stub.loadBalancerId);
    for (const o of this.groups?.order ?? []) if ('stub' in o) stubIds.add(o.stub.serverGroupId);
    this.stubIds = stubIds;

    // The region checks: those whose results on the slice's own resources change when the stubs are added.
    const isStub = (res: CheckResult['resource']) => stubIds.has(res.id);
    const bare = this.copy(false);
    const without = auditChanged(bare.slice, options);
    const withAll = auditChanged(this.withStubs(bare), options);
    const bareTexts = resultTexts(without.results);
    const regionChecks = new Set<string>();
    for (const res of withAll.results) {
      if (regionChecks.has(res.checkId) || isStub(res.resource)) continue;
      if (bareTexts.get(sampleKeyOf(res.checkId, res.resource)) !== resultText(res)) regionChecks.add(res.checkId);
    }
    this.regionChecks = regionChecks;
    const checks = options.settings?.checks ?? {};
    const only = (enabled: (id: string) => boolean): PartialAuditSettings => ({
      ...options.settings,
      checks: Object.fromEntries([...CHECK_IDS].map((id) => [id, { ...checks[id], enabled: checks[id]?.enabled !== false && enabled(id) }])),
    });
    this.sliceSettings = only((id) => !regionChecks.has(id));
    this.regionSettings = only((id) => regionChecks.has(id));
    // The stub CLBs without their tags for the region checks (the index reads every CLB's tags for its owner) where
    // that leaves each region check's results on the slice's resources as they are with the tags.
    const untagged = this.clbs && { ...this.clbs, order: this.clbs.order.map((o) => ('stub' in o ? { stub: deepFreeze({ ...o.stub, tags: {} }) } : o)) };
    this.wideClbs = this.clbs;
    if (untagged && regionChecks.size > 0) {
      const texts = (out: AuditOutput) => new Map(out.results.filter((x) => regionChecks.has(x.checkId) && !isStub(x.resource)).map((x) => [sampleKeyOf(x.checkId, x.resource), resultText(x)]));
      const tagged = texts(withAll);
      const light = texts(auditChanged(this.withStubs(bare, untagged), { now: options.now, settings: this.regionSettings }));
      if (light.size === tagged.size && [...light].every(([k, v]) => tagged.get(k) === v)) this.wideClbs = untagged;
    }
    this.regionMemo = regionChecks.size > 0 && [...regionChecks].every((id) => SIGNED_REGION_CHECKS.has(id)) ? new Map() : undefined;
    const inRegion = (x: { checkId: string }) => regionChecks.has(x.checkId);
    this.baseline = {
      results: [...without.results.filter((x) => !inRegion(x)), ...withAll.results.filter(inRegion)],
      findings: [...without.findings.filter((x) => !inRegion(x)), ...withAll.findings.filter(inRegion)],
    };
    this.baselineSamples = sampleMap(quotaUsageOf(this.baseline.results, QUOTA_USAGE_CHECK_IDS));
    const untrusted = new Set<string>();
    const sliceKeys = new Set<string>();
    for (const res of this.baseline.results) {
      const key = sampleKeyOf(res.checkId, res.resource);
      sliceKeys.add(key);
      if (baseline.results.get(key) !== resultText(res)) untrusted.add(key);
    }
    this.untrusted = untrusted;
    this.sliceKeys = sliceKeys;
    this.regionResults = baseline.results;

    // The Service checks (see `serviceChecks`): each Service of the cluster alone (`ownOf`) against the slice, result
    // by result. A Service on a load balancer another Service names too is not a witness (alone, it lacks the other).
    for (const svc of this.cluster.kubernetes?.services ?? []) for (const id of this.ownOf(bare, serviceKey(svc)).lbIds) (this.lbUsers.get(id) ?? this.lbUsers.set(id, []).get(id)!).push(serviceKey(svc));
    const sliceTexts = new Map<string, string>();
    for (const res of without.results) if (!regionChecks.has(res.checkId)) sliceTexts.set(sampleKeyOf(res.checkId, res.resource), resultText(res));
    const alone = new Map<string, boolean>();
    let witnesses = 0;
    // The counting checks (see COUNTING_CHECKS): the counts of `attachedEcs` against each ECS instance's baseline result.
    const enabled = (id: string) => !regionChecks.has(id) && checks[id]?.enabled !== false;
    let counting = enabled('ECS_LB_ATTACHMENT_QUOTA');
    const counts = new Map<string, number>();
    for (const clb of this.clbs?.full ?? []) for (const id of attachedEcs(clb)) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const res of without.results) {
      if (res.checkId !== 'ECS_LB_ATTACHMENT_QUOTA') continue;
      const used = res.figures?.used;
      if (res.resource.kind !== 'EcsInstance' || res.status === 'skipped' || used !== (counts.get(res.resource.id) ?? 0) || typeof res.figures?.limit !== 'number') counting = false;
      this.ecsResults.set(res.resource.id, res);
    }
    for (const id of counts.keys()) if (!this.ecsResults.has(id)) counting = false;
    for (const svc of this.cluster.kubernetes?.services ?? []) this.namesOf.set(serviceKey(svc), namedBy(svc));
    for (const svc of this.cluster.kubernetes?.services ?? []) {
      if (svc.type !== 'LoadBalancer' || witnesses >= MAX_WITNESSES) continue;
      const key = serviceKey(svc);
      const own = this.ownOf(bare, key);
      if ([...own.lbIds].some((id) => this.lbUsers.get(id)!.length > 1)) continue;
      witnesses++;
      const owns = this.owns(key, own.lbIds);
      const seen = new Set<string>();
      for (const res of auditChanged(own.slice, { now: options.now, settings: this.sliceSettings }).results) {
        const k = sampleKeyOf(res.checkId, res.resource);
        seen.add(k);
        if (!owns(res.resource) || sliceTexts.get(k) !== resultText(res)) alone.set(res.checkId, false);
        else if (!alone.has(res.checkId)) alone.set(res.checkId, true);
      }
      for (const res of without.results) if (!regionChecks.has(res.checkId) && owns(res.resource) && !seen.has(sampleKeyOf(res.checkId, res.resource))) alone.set(res.checkId, false);
    }
    const serviceChecks = new Set([...alone].filter(([, ok]) => ok).map(([id]) => id));
    this.serviceChecks = serviceChecks;
    this.clusterSettings = only((id) => !regionChecks.has(id) && !serviceChecks.has(id));
    this.serviceSettings = only((id) => serviceChecks.has(id));
    const ofService = (x: { checkId: string }) => serviceChecks.has(x.checkId);
    this.serviceBaseline = { results: this.baseline.results.filter(ofService), findings: this.baseline.findings.filter(ofService) };
    const countingChecks = new Set(counting && !serviceChecks.has('ECS_LB_ATTACHMENT_QUOTA') ? [...COUNTING_CHECKS].filter((id) => enabled(id) && !serviceChecks.has(id)) : []);
    this.countingChecks = countingChecks;
    this.clusterSettingsUncounted = only((id) => !regionChecks.has(id) && !serviceChecks.has(id) && id !== 'ECS_LB_ATTACHMENT_QUOTA');
    const ofCounting = (x: { checkId: string }) => countingChecks.has(x.checkId);
    this.countingBaseline = { results: this.baseline.results.filter(ofCounting), findings: this.baseline.findings.filter(ofCounting) };
    const uncounted = [...CHECK_IDS].filter((id) => checks[id]?.enabled !== false && !regionChecks.has(id) && !serviceChecks.has(id) && id !== 'ECS_LB_ATTACHMENT_QUOTA');
    if (countingChecks.has('CLUSTER_MODE_BLOWUP') && this.clbs && uncounted.every((id) => id === 'CLUSTER_MODE_BLOWUP' || !BACKEND_READERS.has(id))) {
      for (const clb of this.clbs.full) {
        this.twins.set(clb, backendTwin(clb));
        this.twinAttached.set(clb, [...attachedEcs(clb)]);
      }
      for (const [id, n] of counts) this.twinCounts.set(id, n);
      // The witness: the first CLB Service of the cluster, judged with and without the twins of the CLBs it does not name.
      const witness = this.cluster.kubernetes?.services.find((svc) => needClb(svc));
      const agree = (key: string): boolean => {
        const settings = { now: options.now, settings: this.clusterSettingsUncounted, serviceFilter: this.blowupFilter(key) };
        const whole = resultTexts(auditFiltered(bare.slice, settings).results);
        const blind = resultTexts(this.blindAudit(bare, this.ownOf(bare, key).lbIds, settings).results);
        return whole.size === blind.size && [...whole].every(([k, v]) => blind.get(k) === v);
      };
      if (!witness || !agree(serviceKey(witness))) {
        this.twins.clear();
        this.twinAttached.clear();
        this.twinCounts.clear();
      }
    }
    this.quotaRatios = resolveAuditSettings(options.settings, CHECK_IDS).quota;
    for (const [k, sample] of this.baselineSamples) this.sampleItems.set(k, { sample, item: this.itemOf(sample.checkId, sample.resource) });
    for (const finding of this.baseline.findings) this.findingItems.set(finding.fingerprint, { finding, item: this.itemOf(finding.checkId, finding.resource) });
    const ecsKeyed = [...this.ecsResults].map(([id, r]) => ({ id, sample: sampleKeyOf(r.checkId, r.resource), resourceKey: resourceKeyOf(r.resource) }));
    ecsKeyed.sort((a, b) => (a.resourceKey < b.resourceKey ? -1 : a.resourceKey > b.resourceKey ? 1 : 0));
    ecsKeyed.forEach((e, order) => this.ecsKeys.set(e.id, { sample: e.sample, order, resourceKey: e.resourceKey, untrusted: untrusted.has(e.sample) }));
    this.size = {
      results: this.baseline.results.length,
      untrusted: untrusted.size,
      fullClbs: this.clbs?.full.length ?? 0,
      stubClbs: (this.clbs?.order.length ?? 0) - (this.clbs?.full.length ?? 0),
      regionChecks: regionChecks.size,
      serviceChecks: serviceChecks.size,
      countingChecks: countingChecks.size,
      twinClbs: this.twins.size,
    };
  }

  /**
   * The review's slice with one Service alone in the cluster (`key`, `namespace/name`; none when the cluster has no
   * such Service) and, of the region's load balancers and server groups, only those it names (`lbIds`); the nodes,
   * pods, ECS instances, vSwitches and quotas as they are.
   */
  private ownOf(c: ReviewCopy, key: string): { slice: FleetSnapshot; lbIds: Set<string> } {
    const cluster = c.region.clusters[0]!;
    const k8s = cluster.kubernetes;
    const svc = k8s?.services.find((x) => serviceKey(x) === key);
    const set = svc ? namedBy(svc) : new Set<string>();
    const lbIds = new Set<string>();
    const region: RegionSnapshot = { ...c.region, clusters: [k8s ? { ...cluster, kubernetes: { ...k8s, services: svc ? [svc] : [] } } : cluster] };
    if (c.region.loadBalancers) region.loadBalancers = c.region.loadBalancers.filter((x) => clbNamed(x, set) && lbIds.add(x.loadBalancerId));
    const nlbIds = new Set<string>();
    if (c.region.nlbs) region.nlbs = c.region.nlbs.filter((x) => nlbNamed(x, set) && nlbIds.add(x.loadBalancerId));
    if (c.region.nlbServerGroups) region.nlbServerGroups = c.region.nlbServerGroups.filter((g) => groupNamed(g, set, nlbIds) && lbIds.add(g.serverGroupId));
    for (const id of nlbIds) lbIds.add(id);
    return { slice: { ...c.slice, accounts: [{ ...this.account, regions: [region] }] }, lbIds };
  }


  /**
   * Whether a review's step changed only the Service `key` (a CLB Service before and after: `needClb`) and the CLBs it
   * names: every other Service of the cluster, and its endpoint slices, the same objects as the model's; the pods,
   * every other field of the cluster, its Kubernetes objects and its region as the model's; the NLB and server group
   * lists as they started; each CLB the step added, removed or changed one that `key` names and no other Service does.
   */
  private onlyServiceChanged(c: ReviewCopy, key: string): boolean {
    const cluster = c.region.clusters[0];
    const own = this.cluster;
    if (c.region.clusters.length !== 1 || !cluster?.kubernetes || !own.kubernetes) return false;
    if (!sameFields(c.region, this.region, REGION_LISTS) || !sameFields(cluster, own, CLUSTER_LISTS)) return false;
    if (!sameEntries(c.region.nlbs, this.nlbs ? c.started.nlbs : undefined) || !sameEntries(c.region.nlbServerGroups, this.groups ? c.started.groups : undefined)) return false;
    const k8s = cluster.kubernetes;
    const ownK8s = own.kubernetes;
    if (!sameFields(k8s, ownK8s, KUBERNETES_LISTS) || !sameEntries(k8s.pods, ownK8s.pods)) return false;
    const isKey = (x: K8sService) => serviceKey(x) === key;
    if (!sameEntriesExcept(k8s.services, ownK8s.services, isKey)) return false;
    for (const list of [k8s.services, ownK8s.services]) for (const x of list) if (isKey(x) && !needClb(x)) return false;
    const ofKey = (x: K8sEndpointSlice) => x.serviceName !== undefined && `${x.namespace}/${x.serviceName}` === key;
    if (!sameEntriesExcept(k8s.endpointSlices, ownK8s.endpointSlices, ofKey)) return false;
    // The CLBs: those of `key` may change; one the step added must be named by no other Service.
    const started = new Set(c.started.clbs);
    const mine = new Set((this.clbsOfService.get(key) ?? []).map((i) => this.clbs!.full[i]!.loadBalancerId));
    for (const id of mine) if ((this.lbUsers.get(id) ?? []).some((u) => u !== key)) return false;
    const now = new Set(c.region.loadBalancers ?? []);
    for (const x of c.started.clbs) if (!now.has(x) && !mine.has(x.loadBalancerId)) return false;
    for (const x of now) {
      if (started.has(x) && (Object.isFrozen(x) || mine.has(x.loadBalancerId))) continue;
      if (started.has(x)) return false;
      for (const [other, names] of this.namesOf) if (other !== key && clbNamed(x, names)) return false;
    }
    return true;
  }

  /**
   * The counting checks' part of a review (see COUNTING_CHECKS): each ECS instance's baseline result, or for one whose
   * count the step moved its new use (a quota sample: the result passes before and after), and every other Service's
   * baseline CLUSTER_MODE_BLOWUP result, with the filter that has the review's audit of the slice judge the reviewed
   * Service alone. Undefined (the review runs both on every Service of the whole slice) when the step changed more than
   * the Service and the CLBs only it names (`onlyServiceChanged`), or when a moved count is of an instance without a
   * passing result or reaches a quota ratio.
   */
  private countingPart(c: ReviewCopy, key: string): CountingPart | undefined {
    if (this.countingChecks.size === 0 || !this.onlyServiceChanged(c, key)) return undefined;
    // The CLBs the step may have changed: those of `key` as they were (less) and as they are (more).
    const delta = new Map<string, number>();
    const count = (clb: Clb, d: number) => {
      for (const id of attachedEcs(clb)) delta.set(id, (delta.get(id) ?? 0) + d);
    };
    for (const i of this.clbsOfService.get(key) ?? []) count(this.clbs!.full[i]!, -1);
    // The model's own CLBs are frozen; the step's (new, or the copies of those of `key`) are not.
    for (const x of c.region.loadBalancers ?? []) if (!Object.isFrozen(x)) count(x, 1);
    // A use at or over the lower quota ratio gets a severity (libs/checks result.util.ts `quotaSeverity`): a finding.
    const under = Math.min(this.quotaRatios.warningRatio, this.quotaRatios.criticalRatio);
    const samples: QuotaUsageSample[] = [];
    const moved = new Set<string>();
    for (const [id, d] of delta) {
      if (d === 0) continue;
      const r = this.ecsResults.get(id);
      const limit = r?.figures?.limit;
      if (!r || r.status !== 'pass' || typeof limit !== 'number' || !(limit > 0)) return undefined;
      const used = (r.figures!.used as number) + d;
      if (used < 0 || used / limit >= under) return undefined;
      moved.add(id);
      samples.push({ checkId: r.checkId, resource: r.resource, used, limit, ratio: used / limit });
    }
    if (!this.countingChecks.has('CLUSTER_MODE_BLOWUP')) return { moved, samples };
    return { moved, samples, filter: this.blowupFilter(key) };
  }

  /** The one-Service filter that has an audit of the slice judge CLUSTER_MODE_BLOWUP on the Service `key` alone. */
  private blowupFilter(key: string): ServiceFilter {
    const clusterId = this.clusterId;
    return { checkIds: BLOWUP, accepts: (se) => se.cluster.cluster.clusterId === clusterId && serviceKey(se.service) === key };
  }

  /** The options of a review's audit with `settings` (one of the model's), resolved once for every review. */
  private audit(settings: PartialAuditSettings): { now: Date; settings: PartialAuditSettings; resolvedSettings: AuditSettings } {
    let resolvedSettings = this.resolved.get(settings);
    if (!resolvedSettings) this.resolved.set(settings, (resolvedSettings = resolveAuditSettings(settings, CHECK_IDS)));
    return { now: this.options.now, settings, resolvedSettings };
  }

  /**
   * The audit of a review answered from the counts (`auditFiltered` with `options`): of the review's slice, each frozen
   * CLB but those of `ids` (the load balancers the reviewed Service names, before and after the step) as its twin
   * (`twins`), the twinned CLBs' attachments handed to the audit's index as counts (`twinCounts`); the slice itself
   * when the model keeps no twins.
   */
  private blindAudit(c: ReviewCopy, ids: ReadonlySet<string>, options: Pick<RunAuditOptions, 'now' | 'settings' | 'resolvedSettings' | 'serviceFilter'>): AuditOutput {
    if (this.twins.size === 0 || !c.region.loadBalancers) return auditFiltered(c.slice, options);
    const twinned = new Set<Clb>();
    const loadBalancers = c.region.loadBalancers.map((x) => {
      const twin = ids.has(x.loadBalancerId) ? undefined : this.twins.get(x);
      if (!twin) return x;
      twinned.add(x);
      return twin;
    });
    // Every CLB of the model twinned (a new Service): the model's counts as they are; else less the CLBs kept whole.
    let outside: ReadonlyMap<string, number> = this.twinCounts;
    if (twinned.size !== this.twins.size) {
      const less = new Map(this.twinCounts);
      for (const [clb, attached] of this.twinAttached) if (!twinned.has(clb)) for (const id of attached) less.set(id, less.get(id)! - 1);
      outside = less;
    }
    const region: RegionSnapshot = { ...c.region, loadBalancers };
    const snapshot: FleetSnapshot = { ...c.slice, accounts: [{ ...this.account, regions: [region] }] };
    return runAudit(snapshot, { ...options, index: FleetIndex.build(snapshot, { attachmentsOutside: new Map([[region, outside]]) }) });
  }

  /**
   * Whether a review keeps a baseline result or finding as it is (`keeps`), as `countingPart` and `servicePart` decide
   * it: a Service check's on anything but the reviewed Service `key` and the load balancers `ids`; with the counting
   * checks, each ECS instance's result (those whose count moved are diffed apart, `ecsChanges`) and every other
   * Service's CLUSTER_MODE_BLOWUP result (not one of a whole cluster). Only for a review that ran the Service checks on
   * the Service alone; every other result the review computes again.
   */
  private keeps(x: BaselineItem, key: string, ids: ReadonlySet<string>, counted: boolean): boolean {
    if (this.serviceChecks.has(x.checkId)) return !ids.has(x.id) && x.service !== key;
    if (!counted || !this.countingChecks.has(x.checkId)) return false;
    return x.checkId === 'ECS_LB_ATTACHMENT_QUOTA' || (x.kind === 'Service' && x.service !== key);
  }

  /** A baseline result's or finding's `BaselineItem`: the Service key only of a Service of the model's cluster. */
  private itemOf(checkId: string, ref: CheckResult['resource']): BaselineItem {
    const service = this.isServiceRef(ref) ? serviceKey({ namespace: ref.namespace!, name: ref.name! }) : undefined;
    return { checkId, kind: ref.kind, id: ref.id, service };
  }

  /** Whether a resource is a Service of the model's cluster (with a namespace and a name). */
  private isServiceRef(ref: CheckResult['resource']): boolean {
    return ref.kind === 'Service' && ref.clusterId === this.clusterId && ref.namespace !== undefined && ref.name !== undefined;
  }

  /**
   * A review's diff of everything but the ECS instances whose count moved (`diffAudits` of the baseline and the
   * review's results, as `plan` diffs them). The results a review keeps from the baseline (`keeps`: the same objects,
   * hence the same quota use and findings on both sides) cancel out of that diff, so the diff reads only the baseline
   * results the review computed again (found from the keys kept per baseline result, `sampleItems` and `findingItems`,
   * without keying the baseline again) against the review's fresh ones. The whole diff is taken instead where that
   * could differ: a fresh result or finding with the key of a kept one (the later one of a key counts in the whole diff),
   * or a NodePort overflow (it rewrites samples on the whole list).
   */
  private restDiff(key: string, local: AuditPart, part: ServicePart | undefined, counted: CountingPart | undefined, wide: AuditPart | undefined, overflow: ReadonlyMap<string, number>): StepDiff {
    const fresh: AuditPart = { results: [...local.results, ...(part?.own.results ?? []), ...(wide?.results ?? [])], findings: [...local.findings, ...(part?.own.findings ?? []), ...(wide?.findings ?? [])] };
    if (part && overflow.size === 0) {
      const keeps = (x: BaselineItem | undefined) => x !== undefined && this.keeps(x, key, part.ids, counted !== undefined);
      const nextSamples = sampleMap(quotaUsageOf(fresh.results, QUOTA_USAGE_CHECK_IDS));
      let clash = false;
      for (const k of nextSamples.keys()) if (keeps(this.sampleItems.get(k)?.item)) clash = true;
      for (const f of fresh.findings) if (keeps(this.findingItems.get(f.fingerprint)?.item)) clash = true;
      if (!clash) {
        const prevSamples = new Map<string, QuotaUsageSample>();
        for (const [k, b] of this.sampleItems) if (!keeps(b.item)) prevSamples.set(k, b.sample);
        const prevFindings: Finding[] = [];
        for (const b of this.findingItems.values()) if (!keeps(b.item)) prevFindings.push(b.finding);
        return diffAudits({ findings: prevFindings }, prevSamples, fresh, nextSamples);
      }
    }
    // The whole diff: the review's results in the order of its audits, kept ones with them.
    const kept = (r: { checkId: string; resource: CheckResult['resource'] }) =>
      part !== undefined && this.keeps(this.itemOf(r.checkId, r.resource), key, part.ids, counted !== undefined) && !(r.checkId === 'ECS_LB_ATTACHMENT_QUOTA' && counted?.moved.has(r.resource.id));
    const results = [...local.results, ...this.countingBaseline.results.filter(kept), ...this.serviceBaseline.results.filter(kept), ...(part?.own.results ?? []), ...(wide?.results ?? [])];
    const findings = [...local.findings, ...this.countingBaseline.findings.filter(kept), ...this.serviceBaseline.findings.filter(kept), ...(part?.own.findings ?? []), ...(wide?.findings ?? [])];
    let prevSamples = this.baselineSamples;
    if (counted && counted.moved.size > 0) {
      const without = new Map(this.baselineSamples);
      for (const id of counted.moved) without.delete(this.ecsKeys.get(id)!.sample);
      prevSamples = without;
    }
    const nextSamples = sampleMap(withOverflow(quotaUsageOf(results, QUOTA_USAGE_CHECK_IDS), overflow));
    return diffAudits(this.baseline, prevSamples, { findings }, nextSamples);
  }

  /**
   * The quota changes of the ECS instances whose count a review's step moved (`countingPart`'s samples), as
   * `diffAudits` words them (before: the baseline's sample, after: the moved one), in the diff's order (by resource
   * key), each with its place and whether its result is untrusted.
   */
  private ecsChanges(moved: readonly QuotaUsageSample[]): Map<QuotaChange, { order: number; resourceKey: string; untrusted: boolean }> {
    const keyed = moved.map((a) => ({ a, k: this.ecsKeys.get(a.resource.id)! }));
    keyed.sort((x, y) => x.k.order - y.k.order);
    const out = new Map<QuotaChange, { order: number; resourceKey: string; untrusted: boolean }>();
    for (const { a, k } of keyed) {
      const b = this.baselineSamples.get(k.sample)!;
      out.set({ checkId: a.checkId, resource: a.resource, before: { used: b.used, limit: b.limit, ratio: b.ratio }, after: { used: a.used, limit: a.limit, ratio: a.ratio } }, k);
    }
    return out;
  }

  /** The diff's other quota changes and the ECS instances' (`ecsChanges`) in one list, in `diffAudits`'s order (check id, then resource key). */
  private mergeQuotas(rest: readonly QuotaChange[], ecs: ReadonlyMap<QuotaChange, { resourceKey: string }>): QuotaChange[] {
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const out: QuotaChange[] = [];
    const moved = [...ecs];
    let j = 0;
    for (const q of rest) {
      const key = resourceKeyOf(q.resource);
      while (j < moved.length && (cmp(moved[j]![0].checkId, q.checkId) || cmp(moved[j]![1].resourceKey, key)) < 0) out.push(moved[j++]![0]);
      out.push(q);
    }
    while (j < moved.length) out.push(moved[j++]![0]);
    return out;
  }

  /** Whether a result is about the Service `key` of the cluster or one of the load balancers and server groups `lbIds`. */
  private owns(key: string, lbIds: ReadonlySet<string>): (ref: CheckResult['resource']) => boolean {
    return (ref) => lbIds.has(ref.id) || (ref.kind === 'Service' && ref.clusterId === this.clusterId && ref.namespace !== undefined && ref.name !== undefined && serviceKey({ namespace: ref.namespace, name: ref.name }) === key);
  }

  /**
   * The Service checks' results and findings after a review's step (see `serviceChecks`): their baseline results on
   * everything but the reviewed Service and its load balancers (before and after the step), and the Service's own
   * from the slice with it alone. Undefined where the Service alone cannot give them (the step changed another
   * Service, a load balancer it names is named by another Service too, or a Service check said something of another
   * resource): the review then runs every check on the whole slice.
   */
  private servicePart(c: ReviewCopy, key: string, changes: readonly ServiceChange[]): ServicePart | undefined {
    if (this.serviceChecks.size === 0 || changes.some((ch) => ch.service !== key)) return undefined;
    const own = this.ownOf(c, key);
    const ids = new Set(own.lbIds);
    for (const i of this.clbsOfService.get(key) ?? []) ids.add(this.clbs!.full[i]!.loadBalancerId);
    for (const [id, users] of this.lbUsers) if (users.includes(key)) ids.add(id);
    for (const id of ids) if ((this.lbUsers.get(id) ?? []).some((u) => u !== key)) return undefined;
    const owns = this.owns(key, ids);
    const out = auditChanged(own.slice, this.audit(this.serviceSettings));
    if (!out.results.every((r) => owns(r.resource))) return undefined;
    return { own: { results: out.results, findings: out.findings }, ids };
  }

  /**
   * The slice for one review, without the stubs. `deep`: everything copied (writable); else only the cluster's lists
   * and the CLBs of `updating` (the Service a review updates) are new, the rest the frozen shared objects.
   */
  private copy(deep: boolean, updating?: string): ReviewCopy {
    const full = <T>(s: SplitList<T> | undefined): T[] => (s ? s.full.slice() : []);
    let cluster: ClusterSnapshot;
    let started: ReviewCopy['started'];
    if (deep) {
      const c = structuredClone({ cluster: this.cluster, clbs: full(this.clbs), nlbs: full(this.nlbs), groups: full(this.groups) });
      cluster = c.cluster;
      started = { clbs: c.clbs, nlbs: c.nlbs, groups: c.groups };
    } else {
      const k8s = this.cluster.kubernetes;
      cluster = { ...this.cluster, ...(k8s ? { kubernetes: { ...k8s, services: k8s.services.slice(), endpointSlices: k8s.endpointSlices.slice(), pods: k8s.pods.slice() } } : {}) };
      started = { clbs: full(this.clbs), nlbs: full(this.nlbs), groups: full(this.groups) };
      for (const i of (updating !== undefined ? this.clbsOfService.get(updating) : undefined) ?? []) started.clbs[i] = structuredClone(started.clbs[i]!);
    }
    const region: RegionSnapshot = { ...this.region, clusters: [cluster] };
    if (this.clbs) region.loadBalancers = started.clbs.slice();
    if (this.nlbs) region.nlbs = started.nlbs.slice();
    if (this.groups) region.nlbServerGroups = started.groups.slice();
    return { slice: { name: 'review', accounts: [{ ...this.account, regions: [region] }], coverage: this.coverage }, region, started };
  }

  /**
   * What the SIGNED_REGION_CHECKS read of a review's slice beyond what the model shares between reviews: each CLB
   * of the slice in order (the position it started at, or new; its id and vSwitch), and every Service that names a
   * vSwitch (all of it). Undefined when the review's cluster no longer holds the model's own nodes (a deep copy).
   */
  private regionSignature(c: ReviewCopy): string | undefined {
    const cluster = c.region.clusters[0];
    if (c.region.clusters.length !== 1 || cluster?.kubernetes?.nodes !== this.cluster.kubernetes?.nodes) return undefined;
    const startedAt = new Map(c.started.clbs.map((x, i) => [x, i]));
    const parts: string[] = [];
    for (const x of c.region.loadBalancers ?? []) parts.push(`${startedAt.get(x) ?? -1}\u0001${x.loadBalancerId}\u0001${x.vSwitchId ?? ''}`);
    parts.push('');
    for (const svc of cluster?.kubernetes?.services ?? []) if (getLbAnnotation(svc.annotations, LB_ANNOTATION.vswitchId) !== undefined) parts.push(JSON.stringify(svc));
    return parts.join('\u0000');
  }

  /** The region checks' results of a review (`regionChecks`, on the slice with the stubs), from `regionMemo` when it has them. */
  private regionPart(c: ReviewCopy): Pick<AuditOutput, 'results' | 'findings'> {
    const signature = this.regionMemo ? this.regionSignature(c) : undefined;
    const known = signature !== undefined ? this.regionMemo!.get(signature) : undefined;
    if (known) {
      this.answered.regionRemembered++;
      return known;
    }
    const out = auditChanged(this.withStubs(c, this.wideClbs), this.audit(this.regionSettings));
    const part = { results: out.results, findings: out.findings };
    if (signature !== undefined) {
      if (this.regionMemo!.size >= MAX_REGION_MEMO) this.regionMemo!.clear();
      this.regionMemo!.set(signature, part);
    }
    return part;
  }

  /** The review's slice with the stubs back in the region's lists (for the region checks). */
  private withStubs(c: ReviewCopy, clbs: SplitList<Clb> | undefined = this.clbs): FleetSnapshot {
    const region: RegionSnapshot = { ...c.region };
    if (clbs) region.loadBalancers = withStubs(clbs, c.started.clbs, c.region.loadBalancers ?? []);
    if (this.nlbs) region.nlbs = withStubs(this.nlbs, c.started.nlbs, c.region.nlbs ?? []);
    if (this.groups) region.nlbServerGroups = withStubs(this.groups, c.started.groups, c.region.nlbServerGroups ?? []);
    return { ...c.slice, accounts: [{ ...this.account, regions: [region] }] };
  }

  /**
   * Plans one Service on the cluster as `planManifests` plans a manifest holding only it (no workload: a new
   * Service has no pods, an update keeps the cluster's), or says why the slice cannot answer (`fallback`).
   * @throws ScenarioError as `preparePlan` and the what-if throw it (a Service the step refuses)
   */
  review(manifest: K8sServiceWire): ReviewAnswer {
    for (const v of Object.values(manifest.metadata.annotations ?? {}))
      for (const part of String(v).split(',')) {
        if (this.stubIds.has(part.trim())) return { fallback: 'names-stub', detail: part.trim() };
        if (this.sharedIds.has(part.trim())) return { fallback: 'shared-lb', detail: part.trim() };
      }
    const key = `${manifest.metadata.namespace}/${manifest.metadata.name}`;
    const onShared = (this.clbsOfService.get(key) ?? []).map((i) => this.clbs!.full[i]!.loadBalancerId).find((id) => this.sharedIds.has(id));
    if (onShared !== undefined) return { fallback: 'shared-lb', detail: onShared };
    try {
      return this.run(this.copy(false, key), manifest);
    } catch (e) {
      if (!isFrozenWrite(e)) throw e;
    }
    try {
      return this.run(this.copy(true), manifest);
    } catch (e) {
      if (isFrozenWrite(e)) return { fallback: 'shared-object', detail: (e as Error).message };
      throw e;
    }
  }

  private run(c: ReviewCopy, manifest: K8sServiceWire): ReviewAnswer {
    const prepared = preparePlan(c.slice, { services: [{ manifest, source: 'admission request' }], workloads: [], ignored: {} }, { cluster: this.clusterId });
    const applier = new ScenarioApplier(c.slice, { expectedMemo: this.expectedMemo });
    const changes: ServiceChange[] = [];
    for (const step of prepared.scenario.steps) for (const ch of applier.apply(step).services) changes.push({ ...ch, cluster: this.clusterId });
    const key = serviceKey(manifest.metadata as { namespace: string; name: string });
    const part = this.servicePart(c, key, changes);
    const counted = part ? this.countingPart(c, key) : undefined;
    const local =
      part && counted
        ? this.blindAudit(c, part.ids, { ...this.audit(this.clusterSettingsUncounted), ...(counted.filter ? { serviceFilter: counted.filter } : {}) })
        : auditChanged(c.slice, this.audit(part ? this.clusterSettings : this.sliceSettings));
    const wide = this.regionChecks.size > 0 ? this.regionPart(c) : undefined;
    // The ECS instances whose count the step moved are diffed apart (`ecsChanges`): the rest as `plan` diffs it.
    const ecsMoved = counted?.samples ?? [];
    const rest = this.restDiff(key, local, part, counted, wide, applier.nodePortOverflow);
    const ecs = this.ecsChanges(ecsMoved);
    const quotas = ecs.size > 0 ? this.mergeQuotas(rest.quotas, ecs) : rest.quotas;
    const diff = { quotas, firstBreach: ecs.size > 0 ? (quotas.find((q) => q.after.used > q.after.limit) ?? null) : rest.firstBreach, findings: rest.findings };
    const moved = [...diff.quotas, ...diff.findings.appeared, ...diff.findings.resolved, ...diff.findings.severityChanged];
    const hit = moved.find((x) => {
      const known = ecs.get(x as QuotaChange);
      if (known !== undefined) return known.untrusted;
      const key = sampleKeyOf(x.checkId, x.resource);
      return this.untrusted.has(key) || (!this.sliceKeys.has(key) && this.regionResults.has(key));
    });
    if (hit !== undefined) return { fallback: 'untrusted-result', detail: `${hit.checkId} on ${hit.resource.kind} ${hit.resource.id}` };
    if (part) this.answered.serviceAlone++;
    else this.answered.wholeSlice++;
    if (counted) this.answered.counted++;
    const result: WhatIfResult = { scenario: 'plan', steps: [{ name: 'plan', ...diff, headroom: [] }], convergence: estimateConvergence(changes, this.options.convergence) };
    return { plan: planResultOf(prepared, result) };
  }
}
