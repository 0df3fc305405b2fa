import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ForecastBudgetError, ForecastBusyError, ForecastPool, ForecastUnavailableError, latestSnapshot } from '@app/audit';
import { k8sServiceSchema, severityRank, type ClusterSnapshot, type FleetSnapshot } from '@app/domain';
import { ClusterReviewModel, planResultOf, preparePlan, regionBaseline, ScenarioError, type PlanResult, type RegionBaseline, type ReviewAnswer } from '@app/forecast';
import { LRUCache } from 'lru-cache';
import { Store, type Principal, type StoredSnapshot } from '@app/store';
import { ApiError } from '../common/api.exception';
import { FORECAST_POOL } from '../forecasts/forecasts.service';
import { clustersInScope, seesWholeFleet, whatIfInScope } from '../forecasts/forecast-scope';
import { ReviewRefusedError, ReviewThreads, reviewThreadEntry } from './review-threads';
import { admissionPlanOf } from './admission-plan';
import { ADMISSION_API_VERSION, admissionReviewSchema, type AdmissionRequest, type AdmissionResponse, type AdmissionReviewAnswer } from './admission.schemas';

/** The Service label that opts one Service into denial (`"true"`): a breach or a critical finding is then refused. */
export const ENFORCE_LABEL = 'fleet-audit.io/enforce';

/**
 * Longest warning, in runes (Unicode code points): kubectl prints each as one line `Warning: <text>`, and the API
 * asks for at most about 120 characters per warning (kubernetes/api `admission/v1/types.go`
 * `AdmissionResponse.Warnings`: "Limit warnings to 120 characters if possible"); the apiserver itself cuts them to
 * 256 runes only past 4,096 in total (apiserver `pkg/endpoints/filters/warning.go`). A longer text ends with `…`.
 */
export const MAX_WARNING_RUNES = 120;

/** Most warnings of one answer, the last of them saying how many more there were: 10 x 120 runes stay under 4,096. */
export const MAX_WARNINGS = 10;

/** Longest denial message, in runes (a `metav1.Status.message` the user reads after the webhook's name). */
const MAX_DENIAL_RUNES = 1024;

/** Wait for a verdict when the apiserver names no `timeout` (its default `timeoutSeconds`: 10 s). */
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * How long the latest stored snapshot serves reviews before the webhook looks for a newer scan (one small query; the
 * snapshot, a gzip of the whole fleet, is read again only for a new scan). Scans are hourly, so a new scan reaches
 * the webhook within this delay.
 */
export const SNAPSHOT_REUSE_MS = 10_000;

/** Cluster models kept warm (LRU): one per target cluster of the latest scan, 2 MB each on the 1M-backend bench fleet (120 MB in all). */
export const MAX_CLUSTER_MODELS = 64;

/**
 * Region baselines kept (LRU): one per region of the latest scan that holds a modelled cluster, needed only to build
 * the models of more of its clusters (a digest per result: 8 MB for a 50-cluster region of the 1M-backend bench fleet).
 */
export const MAX_REGION_BASELINES = 4;

/**
 * Answers kept (LRU) per (scan, cluster, Service object): an apiserver retry, a dry run, a GitOps controller
 * re-applying the same manifest ask the same question again.
 */
export const MAX_REMEMBERED_ANSWERS = 1_000;

/**
 * Most models built ahead of their first review when a new scan is first seen (review threads only): those of the
 * clusters whose models answered reviews of the previous scan, so that the next review of each finds its model warm
 * instead of waiting (or answering "not judged") while it is built.
 */
export const MAX_PREBUILT_MODELS = 32;

/** Kept of the apiserver's timeout for the answer to travel back (a verdict after the timeout is wasted). */
const TIMEOUT_MARGIN_MS = 1_000;

/**
 * One warning as the apiserver forwards it: control characters (which make apimachinery's `NewWarningHeader` drop
 * the whole warning, so kubectl would print nothing) and runs of white space as one space, at most
 * MAX_WARNING_RUNES runes (a longer one is cut at a word where it can and ends with `…`).
 */
export function warningText(text: string): string {
  return clip(text.replace(/[\p{Cc}\s]+/gu, ' ').trim(), MAX_WARNING_RUNES);
}

/**
 * The one warning of an answer that was not judged: `fleet-audit: not judged (<why>); the change is allowed`, the
 * reason cut so that the whole line stays within MAX_WARNING_RUNES and still ends with what happened to the change.
 */
export function notJudgedWarning(why: string): string {
  const head = 'fleet-audit: not judged (';
  const tail = '); the change is allowed';
  return warningText(`${head}${clip(why.replace(/[\p{Cc}\s]+/gu, ' ').trim(), MAX_WARNING_RUNES - head.length - tail.length)}${tail}`);
}

/** `text` in at most `runes` runes: a longer one cut at the last space of its last 24 runes when there is one (else mid-word), then `…`. */
function clip(text: string, runes: number): string {
  // No more UTF-16 code units than runes: no more runes either (most warnings), without splitting the text.
  if (text.length <= runes) return text;
  const chars = Array.from(text);
  if (chars.length <= runes) return text;
  const head = chars.slice(0, runes - 1);
  const space = head.lastIndexOf(' ');
  return `${(space >= runes - 1 - 24 ? head.slice(0, space + 1) : head).join('')}…`;
}

/** Why a review was not judged, as the one warning of an allowed answer. */
class NotJudged extends Error {}

/** What the webhook judges of a review: a Service CREATE or UPDATE where the new or the old object is a LoadBalancer. */
interface JudgedService {
  object: Record<string, unknown>;
  /** The Service opts into denial by ENFORCE_LABEL. */
  labelled: boolean;
}

/**
 * A validating admission webhook for LoadBalancer Services (`POST /v1/admission/{cluster}`): the Service of a
 * review is planned as `fleet-audit plan` plans a manifest (libs/forecast manifest-plan.ts: the object as the
 * manifest, an update keeping the cluster's pods, a new Service with none), against the latest stored scan (read at
 * most once per SNAPSHOT_REUSE_MS), and the answer warns of the first breach and of the findings the change adds at
 * warning or above. The plan comes from the cluster's warm model (libs/forecast cluster-review.model.ts: built once
 * per scan and cluster, emptied when the latest scan changes; a review is a few small audits of the cluster's slice,
 * a few milliseconds), kept and computed in the review threads (review-threads.ts: models built there never stall
 * this event loop, and reviews of clusters homed on different threads run on different cores; on this thread, in an
 * LRU of MAX_CLUSTER_MODELS, when the thread entry is not built), or from the answers kept for the same Service
 * object; where the model cannot answer exactly, from the whole what-if in the forecast pool. A review that comes
 * while its cluster's model is being built waits for it up to the apiserver's deadline, then is allowed "not judged
 * (the cluster's model is warming ...)". When a review first meets a new scan, the models of the clusters reviewed
 * under the previous scan (at most MAX_PREBUILT_MODELS) are built in their threads behind it, ahead of their reviews.
 * It never fails closed: whatever keeps it from judging (no stored scan, an unknown cluster or one outside the token's
 * scope, a busy pool, a budget or the apiserver's timeout exceeded, an internal error) allows the change with one
 * warning saying so. It denies only a review that opts in (ENFORCE_LABEL on the Service, or `enforce` from the
 * webhook URL) and whose change breaches a quota or adds a critical finding.
 */
@Injectable()
export class AdmissionService implements OnModuleDestroy {
  private readonly logger = new Logger('Admission');
  /** The threads that keep the models and compute the reviews (review-threads.ts); absent without a built thread entry (then this thread does). */
  private readonly threads: ReviewThreads | undefined;
  /** Clusters whose model answered a review since the latest scan was first seen (a late answer of another is "warming"). */
  private readonly warm = new Set<string>();
  /** The clusters of the latest snapshot by id and by name (names may repeat), for a token that sees the whole fleet. */
  private clusterIndex: { snapshot: FleetSnapshot; byId: Map<string, ClusterSnapshot>; byName: Map<string, ClusterSnapshot[]> } | undefined;
  /** The latest stored snapshot as last read (one read in flight shared by concurrent reviews), and when. */
  private snapshot: { readAt: number; value: Promise<StoredSnapshot> } | undefined;
  /** The scan the caches below are of: a new latest scan empties them. */
  private modelledScan: string | undefined;
  /** Warm cluster models by cluster id, of `modelledScan`. */
  private readonly models = new LRUCache<string, ClusterReviewModel>({ max: MAX_CLUSTER_MODELS });
  /** Region baselines by `account/region`, of `modelledScan`. */
  private readonly baselines = new LRUCache<string, RegionBaseline>({ max: MAX_REGION_BASELINES });
  /** Plans as the webhook keeps them (admission-plan.ts) by cluster id and Service object (JSON), of `modelledScan`. */
  private readonly answers = new LRUCache<string, PlanResult>({ max: MAX_REMEMBERED_ANSWERS });
  /**
   * How reviews were answered since start (the bench and tests read it): by the warm model, from memory, by the whole
   * what-if; the models built for a review, and those built ahead of their first review for a new scan.
   */
  readonly stats = { model: 0, remembered: 0, whatIf: 0, modelsBuilt: 0, modelsPrebuilt: 0 };

  constructor(
    private readonly store: Store,
    @Inject(FORECAST_POOL) private readonly pool: ForecastPool,
  ) {
    const entry = reviewThreadEntry();
    this.threads = entry ? new ReviewThreads(entry) : undefined;
  }

  async onModuleDestroy(): Promise<void> {
    await this.threads?.close();
  }

  /**
   * Judges one review.
   * @param cluster the target cluster from the URL path, by id or by a name unique within the token's scope
   * @param body the AdmissionReview as posted
   * @param options `enforce` from the URL; `timeout` the apiserver's remaining deadline (`5s`), when it sends one
   * @returns the AdmissionReview answer, `response.uid` = `request.uid`
   * @throws ApiError VALIDATION_FAILED (400) naming the field when the body is not an AdmissionReview v1 (no uid to
   *   answer to: the apiserver then applies the webhook's failurePolicy, `Ignore` in the chart)
   */
  async review(cluster: string, body: unknown, options: { enforce: boolean; timeout?: string | undefined }, principal: Principal): Promise<AdmissionReviewAnswer> {
    const parsed = admissionReviewSchema.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: ['body', ...i.path.map(String)].join('.'), message: i.message }));
      throw new ApiError('VALIDATION_FAILED', `not an AdmissionReview ${ADMISSION_API_VERSION}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
    }
    const request = parsed.data.request;
    const answer = (response: Omit<AdmissionResponse, 'uid'>): AdmissionReviewAnswer => ({ apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response: { uid: request.uid, ...response } });
    const judged = judgedService(request);
    if (!judged) return answer({ allowed: true });
    try {
      const plan = await this.plan(cluster, request, judged.object, deadlineMs(options.timeout), principal);
      return answer(verdict(plan, options.enforce || judged.labelled));
    } catch (e) {
      if (e instanceof NotJudged) return answer({ allowed: true, warnings: [notJudgedWarning(e.message)] });
      const why = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      this.logger.error(`review ${request.uid} of ${request.namespace ?? ''}/${request.name ?? ''} failed: ${why.split('\n')[0]}`);
      return answer({ allowed: true, warnings: [notJudgedWarning('internal error, logged by the fleet-audit API')] });
    }
  }

  /**
   * The latest stored snapshot. Once SNAPSHOT_REUSE_MS have passed since the last look, asks for the latest scan's id
   * (a small query) and reads the snapshot again only when it changed: reading it is a decompression and a parse of
   * the whole fleet (seconds on the 1M-backend bench fleet), which must not recur while the scan is the same. A failed
   * look or read is not kept.
   */
  private latest(): Promise<StoredSnapshot> {
    const now = Date.now();
    if (this.snapshot && now - this.snapshot.readAt < SNAPSHOT_REUSE_MS) return this.snapshot.value;
    const previous = this.snapshot?.value;
    const entry = {
      readAt: now,
      value: (async () => {
        const kept = previous ? await previous.catch(() => undefined) : undefined;
        if (kept && (await this.store.snapshots.latestScanId()) === kept.scanId) return kept;
        return latestSnapshot(this.store);
      })(),
    };
    this.snapshot = entry;
    entry.value.catch(() => {
      if (this.snapshot === entry) this.snapshot = undefined;
    });
    return entry.value;
  }

  /** The plan of the review's Service on the target cluster of the latest stored snapshot, narrowed to the token's scope. */
  private async plan(cluster: string, request: AdmissionRequest, object: Record<string, unknown>, deadline: number, principal: Principal): Promise<PlanResult> {
    const manifest = serviceManifest(request, object);
    let s;
    try {
      s = await this.latest();
    } catch (e) {
      if (e instanceof ForecastUnavailableError) throw new NotJudged('no stored scan: run fleet-audit scan first');
      throw e;
    }
    const inScope = seesWholeFleet(principal) ? undefined : clustersInScope(s.snapshot, principal);
    const target = inScope ? resolveCluster(s.snapshot, cluster, inScope) : this.resolveInFleet(s.snapshot, cluster);
    const narrowed = (plan: PlanResult): PlanResult => {
      if (!inScope) return plan;
      const step = whatIfInScope({ scenario: 'plan', steps: [plan.step], convergence: plan.convergence }, inScope, principal).steps[0]!;
      return { ...plan, step };
    };
    const warm = await this.warmPlan(s, target, manifest, deadline);
    if (warm) return narrowed(warm);
    let prepared;
    try {
      prepared = preparePlan(s.snapshot, { services: [{ manifest, source: 'admission request' }], workloads: [], ignored: {} }, { cluster: target.clusterId });
    } catch (e) {
      if (e instanceof ScenarioError) throw new NotJudged(`cannot plan: ${e.message}`);
      throw e;
    }
    this.stats.whatIf++;
    try {
      const result = await withDeadline(this.pool.whatIf(s.snapshot, prepared.scenario, { now: new Date(s.observedAt) }), deadline, 'no verdict');
      return planResultOf(prepared, inScope ? whatIfInScope(result, inScope, principal) : result);
    } catch (e) {
      if (e instanceof ForecastBusyError) throw new NotJudged('the forecast pool is busy');
      if (e instanceof ForecastBudgetError) throw new NotJudged('over the forecast budget');
      if (e instanceof ScenarioError) throw new NotJudged(`cannot plan: ${e.message}`);
      throw e;
    }
  }

  /**
   * The target cluster among all the snapshot's, by id or by a unique name, from an index built once per snapshot
   * (a review must not walk the fleet's clusters: 500 on the bench fleet).
   * @throws NotJudged as `resolveCluster`
   */
  private resolveInFleet(snapshot: FleetSnapshot, given: string): ClusterSnapshot {
    const index = this.fleetIndex(snapshot);
    const hit = index.byId.get(given);
    if (hit) return hit;
    const named = index.byName.get(given) ?? [];
    if (named.length !== 1) throw new NotJudged(`cluster "${clip(given, 24)}" not in the latest scan in the token's scope`);
    return named[0]!;
  }

  /** The clusters of `snapshot` by id and by name, built once per snapshot. */
  private fleetIndex(snapshot: FleetSnapshot): NonNullable<AdmissionService['clusterIndex']> {
    if (this.clusterIndex?.snapshot !== snapshot) {
      const byId = new Map<string, ClusterSnapshot>();
      const byName = new Map<string, ClusterSnapshot[]>();
      for (const a of snapshot.accounts)
        for (const r of a.regions)
          for (const c of r.clusters) {
            byId.set(c.clusterId, c);
            if (c.name !== undefined) (byName.get(c.name) ?? byName.set(c.name, []).get(c.name)!).push(c);
          }
      this.clusterIndex = { snapshot, byId, byName };
    }
    return this.clusterIndex;
  }

  /**
   * The plan from the cluster's warm model (built on first use for the latest scan: the region's baseline analysis,
   * once per region, then the cluster's slice), or from the answers kept; undefined when the model cannot answer
   * exactly (the caller runs the whole what-if in the forecast pool). The models live in the review threads
   * (review-threads.ts) when the thread entry is built, else on this thread.
   * @throws NotJudged when the step refuses the Service (a ScenarioError), or when no answer comes within `deadline`
   *   ms (saying the model is warming when the cluster's model has not answered yet since the scan)
   */
  private async warmPlan(s: StoredSnapshot, target: ClusterSnapshot, manifest: ReturnType<typeof serviceManifest>, deadline: number): Promise<PlanResult | undefined> {
    const clusterId = target.clusterId;
    let previouslyWarm: string[] = [];
    if (this.modelledScan !== s.scanId) {
      previouslyWarm = [...this.warm].filter((id) => id !== clusterId).slice(0, MAX_PREBUILT_MODELS);
      this.models.clear();
      this.baselines.clear();
      this.answers.clear();
      this.warm.clear();
      this.modelledScan = s.scanId;
    }
    const key = `${clusterId}\u0000${JSON.stringify(manifest)}`;
    const remembered = this.answers.get(key);
    if (remembered) {
      this.stats.remembered++;
      return remembered;
    }
    let answer: ReviewAnswer;
    try {
      if (this.threads) {
        const why = this.warm.has(clusterId) ? 'no verdict' : "the cluster's model is warming (its first review since the scan); no verdict";
        // The review is posted first: the models built ahead for the new scan queue behind it in their threads.
        const pending = this.threads.review(s, clusterId, target.accountId, target.regionId, manifest);
        if (previouslyWarm.length > 0) this.prebuild(s, previouslyWarm);
        const r = await withDeadline(pending, deadline, why);
        if (r.buildMs !== null) this.stats.modelsBuilt++;
        answer = r.answer;
      } else {
        answer = this.modelOnThisThread(s, clusterId).review(manifest);
        if ('plan' in answer) answer = { plan: admissionPlanOf(answer.plan) };
      }
    } catch (e) {
      if (e instanceof ScenarioError || e instanceof ReviewRefusedError) throw new NotJudged(`cannot plan: ${e.message}`);
      throw e;
    }
    if (this.modelledScan !== s.scanId) return 'fallback' in answer ? undefined : answer.plan;
    this.warm.add(clusterId);
    if ('fallback' in answer) return undefined;
    this.stats.model++;
    this.answers.set(key, answer.plan);
    return answer.plan;
  }

  /**
   * Builds the models of `clusterIds` of the scan `s` in their review threads, off the request path (not awaited): the
   * clusters no longer in the snapshot are skipped, a failure is logged.
   */
  private prebuild(s: StoredSnapshot, clusterIds: readonly string[]): void {
    const index = this.fleetIndex(s.snapshot);
    for (const id of clusterIds) {
      const c = index.byId.get(id);
      if (!c || !this.threads) continue;
      this.threads.prebuild(s, id, c.accountId, c.regionId).then(
        (ms) => {
          if (ms !== null && this.modelledScan === s.scanId) this.stats.modelsPrebuilt++;
        },
        (e: unknown) => this.logger.warn(`the model of cluster ${id} was not built ahead: ${e instanceof Error ? e.message : String(e)}`),
      );
    }
  }

  /** The cluster's model on this thread (no review threads), built on first use. */
  private modelOnThisThread(s: StoredSnapshot, clusterId: string): ClusterReviewModel {
    let model = this.models.get(clusterId);
    if (model) return model;
    const options = { now: new Date(s.observedAt) };
    const { accountId, regionId } = clusterRegion(s.snapshot, clusterId);
    let baseline = this.baselines.get(`${accountId}/${regionId}`);
    if (!baseline) this.baselines.set(`${accountId}/${regionId}`, (baseline = regionBaseline(s.snapshot, clusterId, options)));
    model = new ClusterReviewModel(s.snapshot, clusterId, baseline, options);
    this.models.set(clusterId, model);
    this.stats.modelsBuilt++;
    return model;
  }
}

/**
 * `work`, or NotJudged (`<why> within <s> s`) when it has not settled within `ms` (the work goes on: a model being
 * built is kept for the next review).
 */
async function withDeadline<T>(work: Promise<T>, ms: number, why: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NotJudged(`${why} within ${Math.round(ms / 100) / 10} s`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The Service a review asks to judge, or undefined: anything but a Service CREATE / UPDATE of a LoadBalancer. */
function judgedService(request: AdmissionRequest): JudgedService | undefined {
  if (request.kind.group !== '' || request.kind.kind !== 'Service' || (request.subResource ?? '') !== '') return undefined;
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return undefined;
  const object = request.object;
  if (!object) return undefined;
  const isLoadBalancer = (o: Record<string, unknown> | null | undefined) => (o?.spec as { type?: unknown } | undefined)?.type === 'LoadBalancer';
  if (!isLoadBalancer(object) && !isLoadBalancer(request.oldObject)) return undefined;
  const labels = (object.metadata as { labels?: Record<string, unknown> } | undefined)?.labels;
  return { object, labelled: labels?.[ENFORCE_LABEL] === 'true' };
}

/**
 * The review's object as a plan manifest: the namespace and name of the request where the object leaves them out (a
 * CREATE through `generateName` has no name yet: the prefix stands for it).
 * @throws NotJudged naming the field when the object does not read as a Service
 */
function serviceManifest(request: AdmissionRequest, object: Record<string, unknown>) {
  const meta = (typeof object.metadata === 'object' && object.metadata !== null ? object.metadata : {}) as Record<string, unknown>;
  const generated = typeof meta.generateName === 'string' && meta.generateName !== '' ? `${meta.generateName}generated` : undefined;
  const name = typeof meta.name === 'string' && meta.name !== '' ? meta.name : request.name || generated;
  const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : (request.namespace ?? undefined);
  const parsed = k8sServiceSchema.safeParse({ ...object, metadata: { ...meta, ...(name ? { name } : {}), ...(namespace ? { namespace } : {}) } });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new NotJudged(`not a Service: field ${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

/** The account and region of a cluster of the snapshot (resolved before: always found). */
function clusterRegion(snapshot: FleetSnapshot, clusterId: string): { accountId: string; regionId: string } {
  for (const a of snapshot.accounts) for (const r of a.regions) if (r.clusters.some((c) => c.clusterId === clusterId)) return { accountId: a.accountId, regionId: r.regionId };
  throw new Error(`cluster ${clusterId} is not in the snapshot`);
}

/**
 * The target cluster among those the token sees (all of the snapshot's, or its scope's), by id or by a unique name.
 * @throws NotJudged with one message for an unknown cluster and one outside the scope (no existence oracle)
 */
function resolveCluster(snapshot: FleetSnapshot, given: string, inScope: ReadonlyMap<string, ClusterSnapshot> | undefined): ClusterSnapshot {
  const visible = inScope ? [...inScope.values()] : snapshot.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters));
  const byId = visible.filter((c) => c.clusterId === given);
  const hits = byId.length > 0 ? byId : visible.filter((c) => c.name === given);
  if (hits.length !== 1) throw new NotJudged(`cluster "${clip(given, 24)}" not in the latest scan in the token's scope`);
  return hits[0]!;
}

/** Milliseconds to wait for a verdict: the apiserver's `timeout` query (`5s`, rounded up to whole seconds) less a margin. */
function deadlineMs(timeout: string | undefined): number {
  const m = /^(\d{1,3})s$/.exec(timeout ?? '');
  const total = m ? Number(m[1]) * 1000 : DEFAULT_TIMEOUT_MS;
  return Math.max(500, total - TIMEOUT_MARGIN_MS);
}

/**
 * The answer of a judged Service: warnings for the first breach and the findings the change adds or raises at
 * warning or above (the same reasons as `fleet-audit plan --fail-on warning`, apps/cli plan-output.renderer.ts);
 * denied (403) when enforced and the change breaches a quota it grows or adds a critical finding.
 */
function verdict(plan: PlanResult, enforce: boolean): Omit<AdmissionResponse, 'uid'> {
  const lines: string[] = [];
  const blocking: string[] = [];
  const b = plan.step.firstBreach;
  if (b) {
    const line = `first breach: ${b.checkId} on ${b.resource.id}: ${b.before.used} -> ${b.after.used} of ${b.after.limit} (cluster ${plan.cluster.name})`;
    lines.push(line);
    if (b.after.used > b.before.used) blocking.push(line);
  }
  const warn = severityRank('warning');
  const critical = severityRank('critical');
  for (const f of plan.step.findings.appeared) {
    if (severityRank(f.severity) < warn) continue;
    const line = `${f.severity}: ${f.checkId} ${f.message}`;
    lines.push(line);
    if (severityRank(f.severity) >= critical) blocking.push(line);
  }
  for (const c of plan.step.findings.severityChanged) {
    if (severityRank(c.after) < warn || severityRank(c.after) <= severityRank(c.before)) continue;
    const line = `${c.after}: ${c.checkId} ${c.resource.id} raised from ${c.before}`;
    lines.push(line);
    if (severityRank(c.after) >= critical) blocking.push(line);
  }
  const shown = lines.length > MAX_WARNINGS ? [...lines.slice(0, MAX_WARNINGS - 1), `${lines.length - MAX_WARNINGS + 1} more; run fleet-audit plan on the manifest for the full list`] : lines;
  const warnings = shown.map((l) => warningText(`fleet-audit: ${l}`));
  const out: Omit<AdmissionResponse, 'uid'> = { allowed: !(enforce && blocking.length > 0), ...(warnings.length > 0 ? { warnings } : {}) };
  if (!out.allowed)
    out.status = { code: 403, reason: 'Forbidden', message: clip(`fleet-audit (enforced): ${blocking.map((l) => l.replace(/[\p{Cc}\s]+/gu, ' ')).join('; ')}`, MAX_DENIAL_RUNES) };
  return out;
}
