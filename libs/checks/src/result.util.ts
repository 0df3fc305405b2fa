import type {
  CheckResult,
  ClusterSnapshot,
  CoverageDataset,
  Figures,
  RegionSnapshot,
  ResourceRef,
  Severity,
  QuotaDefinition,
} from '@app/domain';
import { flatString } from '@app/domain';
import type { CheckContext, ResultSink } from './check.types';
import type { FleetIndex, RegionEntry, ServiceEntry } from './fleet-index';

/** Helpers that build resource refs and results, so every rule shapes them the same way. */

/**
 * A new ResourceRef of a load balancer of either kind, a CLB (`LoadBalancer`) or an NLB (`NetworkLoadBalancer`): its
 * id, account, region, its owning cluster when `clusterId` is given (clb-owner.ts), and its name when it has one, in
 * the JSON contract's key order (the cluster right after the region, as `withLbOwner` places it). Rules take the
 * shared ref instead (lb-refs.ts `clbRef`, `nlbRef`).
 */
export function lbRef(
  kind: 'LoadBalancer' | 'NetworkLoadBalancer',
  lb: { loadBalancerId: string; accountId: string; regionId: string; name?: string },
  clusterId?: string,
): ResourceRef {
  const { loadBalancerId: id, accountId, regionId, name } = lb;
  if (clusterId !== undefined)
    return name ? { kind, id, accountId, regionId, clusterId, name } : { kind, id, accountId, regionId, clusterId };
  return name ? { kind, id, accountId, regionId, name } : { kind, id, accountId, regionId };
}

/** The ResourceRef of a region (used by region-level `skipped` results). */
export function regionRef(r: RegionEntry): ResourceRef {
  return {
    kind: 'Region',
    id: r.region.regionId,
    accountId: r.account.accountId,
    regionId: r.region.regionId,
  };
}

/** The ResourceRef of a cluster. */
export function clusterRef(cluster: ClusterSnapshot): ResourceRef {
  return {
    kind: 'Cluster',
    id: cluster.clusterId,
    accountId: cluster.accountId,
    regionId: cluster.regionId,
    clusterId: cluster.clusterId,
    name: cluster.name,
  };
}

/**
 * The ResourceRef of a Service (`id` = `namespace/name`). Built once per Service entry, kept in its `ref` slot, and
 * shared by the results of every check of that Service (about 15 per Service), which is what keeps 10M-entry fleets
 * inside their memory bound: a ResourceRef is never mutated once built (findings copy it in `withClusterName`).
 */
export function serviceRef(se: Pick<ServiceEntry, 'service' | 'cluster' | 'ref'>): ResourceRef {
  if (se.ref) return se.ref;
  const c = se.cluster.cluster;
  const ref: ResourceRef = {
    kind: 'Service',
    id: flat(`${se.service.namespace}/${se.service.name}`),
    accountId: c.accountId,
    regionId: c.regionId,
    clusterId: c.clusterId,
    namespace: se.service.namespace,
    name: se.service.name,
  };
  se.ref = ref;
  return ref;
}

/**
 * `s` as a flat (sequential) string, the same value (`flatString`): a result message built by template literals is
 * a tree of V8 cons strings, and results live until the scan is stored (about 165 bytes a result more than the flat
 * string, copied by every young-generation GC: 400 MB on a 10M-entry fleet).
 */
export const flat = flatString;

/**
 * The ResourceRef of an ECS instance. Literals per case rather than spreads of optional fields (500,000 refs on a
 * 10M-entry fleet): key order kind, id, accountId, regionId, clusterId, name, as before.
 */
export function ecsRef(
  instanceId: string,
  accountId: string,
  regionId: string,
  name?: string,
  clusterId?: string,
): ResourceRef {
  const kind = 'EcsInstance';
  if (clusterId)
    return name
      ? { kind, id: instanceId, accountId, regionId, clusterId, name }
      : { kind, id: instanceId, accountId, regionId, clusterId };
  return name ? { kind, id: instanceId, accountId, regionId, name } : { kind, id: instanceId, accountId, regionId };
}

/**
 * A passing result's message, built when it is read: `(resource, figures, arg) => text`. Declare it once, at module
 * level (a function that closes over per-result values is an allocation per result, as large as the text it spares),
 * and read only its arguments: the result's own `resource` and `figures` (never mutated once built) and `arg`, a value
 * the result keeps (a string, a number, or a snapshot object the analysis does not change). It must return the text
 * the eager message would have been.
 * @typeParam F the result's figures (`undefined` when it has none)
 * @typeParam A the extra value the text needs (`undefined` when the resource and figures say it all)
 */
export type PassText<F extends Figures | undefined = Figures | undefined, A = undefined> = (
  resource: ResourceRef,
  figures: F,
  arg: A,
) => string;

/** A result factory bound to one check id and its default severity. */
export interface ResultFactory {
  /**
   * The check's `defaultSeverity` (declared once, in its metadata): what a failure is graded unless it says
   * otherwise, for rules whose grading falls back to it (`cond ? 'critical' : r.defaultSeverity`).
   */
  readonly defaultSeverity: Severity;
  /**
   * A passing result. `message` is the text, or a `PassText` that builds it when read (`lazyPassResult`): at 5,000
   * clusters the analysis keeps about 2.3M passing results whose messages no output shows (outputs carry findings,
   * counts, quota figures and skips), so rules with a pass per Service, load balancer or ECS instance give a `PassText`.
   */
  pass(resource: ResourceRef, message: string, figures?: Figures): CheckResult;
  pass<F extends Figures | undefined, A = undefined>(resource: ResourceRef, message: PassText<F, A>, figures: F, arg?: A): CheckResult;
  fail(
    resource: ResourceRef,
    message: string,
    opts?: { severity?: Severity; figures?: Figures },
  ): CheckResult;
  skipped(resource: ResourceRef, reason: string, figures?: Figures): CheckResult;
}

/**
 * What keeps a lazy pass message's recipe on the result itself: private fields, which `Object.keys`, `JSON.stringify`,
 * spread, structured clone and test equality never see. `super(o)` returns `o` (a base-class constructor that returns
 * an object makes it `this`), so the fields are added to the result literal, with no object of their own.
 */
class PassTextBase {
  constructor(o: object) {
    return o;
  }
}

/** The recipe of a lazy pass message (`lazyPassResult`): its `PassText` and argument, as private fields of the result. */
class PassTextRecipe extends PassTextBase {
  #text: PassText<Figures | undefined, unknown>;
  #arg: unknown;

  constructor(o: CheckResult, text: PassText<Figures | undefined, unknown>, arg: unknown) {
    super(o);
    this.#text = text;
    this.#arg = arg;
  }

  /**
   * The message of `o`, built now from its recipe.
   * @throws TypeError when `o` is not a lazy pass result (the accessor was copied onto another object)
   */
  static read(o: CheckResult): string {
    if (!(#text in o)) throw new TypeError('message: this object is not a lazy pass result (its accessor was copied)');
    const r = o as unknown as PassTextRecipe;
    return r.#text(o.resource, o.figures, r.#arg);
  }

  /**
   * A copy of the lazy pass result `o` with `resource` and `severity`, its message still lazy and still built from
   * `o`'s own resource (so it reads as `o`'s would); `undefined` when `o` is not a lazy pass result.
   */
  static copy(o: CheckResult, resource: ResourceRef, severity: Severity): CheckResult | undefined {
    if (!(#text in o)) return undefined;
    const r = o as unknown as PassTextRecipe;
    const c = { checkId: o.checkId, status: o.status, severity, resource } as CheckResult;
    Object.defineProperty(c, 'message', LAZY_MESSAGE);
    if (o.figures) c.figures = o.figures;
    const from: RetargetedText = { text: r.#text, arg: r.#arg, resource: o.resource };
    new PassTextRecipe(c, retargetedText, from);
    return c;
  }
}

/** A lazy pass message moved to a copy of its result: the original text, argument and resource. */
interface RetargetedText {
  text: PassText<Figures | undefined, unknown>;
  arg: unknown;
  resource: ResourceRef;
}

/** The PassText of a copied lazy result (`PassTextRecipe.copy`): the original text on the original resource. */
const retargetedText: PassText<Figures | undefined, unknown> = (_resource, figures, from) => {
  const f = from as RetargetedText;
  return f.text(f.resource, figures, f.arg);
};

/**
 * The `message` property of a lazy pass result: an own, enumerable accessor shared by every such result (one
 * descriptor, so they share one V8 map). Reading builds the text; assigning replaces it with a plain data property,
 * as assigning to the eager result's data property would.
 */
const LAZY_MESSAGE: Readonly<PropertyDescriptor> = {
  get(this: CheckResult): string {
    return PassTextRecipe.read(this);
  },
  set(this: CheckResult, value: string) {
    Object.defineProperty(this, 'message', { value, writable: true, enumerable: true, configurable: true });
  },
  enumerable: true,
  configurable: true,
};

/**
 * A passing result whose `message` is built when read. The same own keys in the same order as the
 * eager result (`checkId, status, severity, resource, message[, figures]`), `message` an enumerable accessor: JSON
 * (the scan's outputs, the bench's digest), spread, `Object.keys`, structured clone and test equality see the text
 * the eager result held. What it spares at 5,000 clusters: building and flattening 2.3M texts nobody reads, and
 * keeping them (about 100 bytes each, copied by every young-generation GC until the scan is stored). The result
 * object is still one literal (V8 allocates it in the old generation once its site is seen to survive).
 */
export function lazyPassResult<F extends Figures | undefined, A>(
  checkId: string,
  severity: Severity,
  resource: ResourceRef,
  text: PassText<F, A>,
  figures: F,
  arg: A,
): CheckResult {
  const o = { checkId, status: 'pass', severity, resource } as CheckResult;
  Object.defineProperty(o, 'message', LAZY_MESSAGE);
  if (figures) o.figures = figures;
  new PassTextRecipe(o, text as PassText<Figures | undefined, unknown>, arg);
  return o;
}

/**
 * `result` with another resource and severity (the audit engine's owning cluster of a load balancer, a settings
 * severity override). A lazy pass result stays lazy: a spread would read its `message` accessor and build and keep
 * the text (about 150,000 texts per 1,000 clusters for the owned load-balancer results alone); its message is still
 * built from the original resource, so it reads as before. Any other result is copied with a spread. Keys keep the
 * eager result's order.
 */
export function withResultResource(result: CheckResult, resource: ResourceRef, severity: Severity = result.severity): CheckResult {
  return PassTextRecipe.copy(result, resource, severity) ?? { ...result, resource, severity };
}

/**
 * Binds result builders to a check. `skipped` repeats the reason as the message. Each builder writes one of two
 * object literals (with and without `figures`, same key order as a spread would give): a literal is allocated with
 * its fields in the object, where a spread of `{ figures }` copied them in a builtin for each of the 2.5M results of
 * a 10M-entry fleet. A `pass` given a `PassText` builds a lazy result (`lazyPassResult`).
 */
export function resultsFor(checkId: string, defaultSeverity: Severity): ResultFactory {
  return {
    defaultSeverity,
    pass: (resource: ResourceRef, message: string | PassText<Figures | undefined, unknown>, figures?: Figures, arg?: unknown) => {
      if (typeof message !== 'string') return lazyPassResult(checkId, defaultSeverity, resource, message, figures, arg);
      return figures
        ? { checkId, status: 'pass', severity: defaultSeverity, resource, message: flat(message), figures }
        : { checkId, status: 'pass', severity: defaultSeverity, resource, message: flat(message) };
    },
    fail: (resource, message, opts) => {
      const severity = opts?.severity ?? defaultSeverity;
      const figures = opts?.figures;
      return figures
        ? { checkId, status: 'fail', severity, resource, message: flat(message), figures }
        : { checkId, status: 'fail', severity, resource, message: flat(message) };
    },
    skipped: (resource, reason, figures) => {
      const message = flat(`Not evaluated: ${reason}`);
      return figures
        ? { checkId, status: 'skipped', severity: defaultSeverity, resource, message, reason, figures }
        : { checkId, status: 'skipped', severity: defaultSeverity, resource, message, reason };
    },
  } as ResultFactory;
}

/** The settings `quotaSeverity` reads: the `settings` of every check that grades a quota use ratio with it. */
export const QUOTA_RATIO_SETTINGS: readonly string[] = ['quota.warningRatio', 'quota.criticalRatio'];

/** Severity of a quota use ratio, or `undefined` below the warning threshold (checks.md "Severity"). */
export function quotaSeverity(
  ratio: number,
  thresholds: { warningRatio: number; criticalRatio: number },
): Severity | undefined {
  if (ratio >= thresholds.criticalRatio) return 'critical';
  if (ratio >= thresholds.warningRatio) return 'warning';
  return undefined;
}

/** What a quota-use result measures: `used` of the `definition` quota of `region`, on the resource `ref`. */
export interface QuotaSubject {
  region: RegionSnapshot;
  definition: QuotaDefinition;
  ref: ResourceRef;
  used: number;
}

/** The figures of a quota-use result: `used` and `limit` (counts), `ratio` (used / limit), `limitSource`, then the check's extras. */
export type QuotaFigures = Figures & { used: number; limit: number; ratio: number; limitSource: 'quota-center' | 'default' };

/** How a quota message names a limit's source: `Quota Center` or `documented default`. */
export function limitSourceText(limitSource: string): string {
  return limitSource === 'quota-center' ? 'Quota Center' : 'documented default';
}

/**
 * Push one quota-use result, the way every quota check grades a use: `used` of the region's effective quota
 * (Quota Center, else the documented default: `FleetIndex.quota`), a `fail` at the severity `quotaSeverity` gives
 * at the settings' ratios, else a `pass`. Figures: used, limit, ratio, limitSource, then `extra`.
 * @param text the message, from the result's ref, figures and `arg`: built now for a failure, when read for a pass
 *   (`PassText`: declare it at module level)
 * @param arg what `text` needs besides the ref and the figures
 */
export function pushQuotaUse<A = undefined>(
  out: ResultSink,
  r: ResultFactory,
  ctx: CheckContext,
  { region, definition, ref, used }: QuotaSubject,
  text: PassText<QuotaFigures, A>,
  extra: Figures = {},
  arg?: A,
): void {
  const { limit, limitSource } = ctx.index.quota(region, definition);
  const ratio = used / limit;
  const figures: QuotaFigures = { used, limit, ratio, limitSource, ...extra };
  const severity = quotaSeverity(ratio, ctx.settings.quota);
  out.push(severity ? r.fail(ref, text(ref, figures, arg as A), { severity, figures }) : r.pass(ref, text, figures, arg as A));
}

/** `0.853` -> `85.3 %`. */
export function pct(ratio: number): string {
  return `${(Math.round(ratio * 1000) / 10).toString()} %`;
}

/**
 * `a, b, c (+2 more)` for long lists in messages.
 * @param total how many items there are when `items` holds only samples of them (count; default `items.length`)
 */
export function listSome(items: readonly string[], max = 5, total = items.length): string {
  if (total <= max && items.length <= max) return items.join(', ');
  const shown = items.slice(0, max);
  return `${shown.join(', ')} (+${total - shown.length} more)`;
}

/** `1 node`, `3 nodes` (appends `s`; pass `plural` for irregular words). */
export function count(n: number, singular: string, plural?: string): string {
  // The plural is built only when needed (a default parameter built it for every call, 2.5M results' messages).
  return `${n} ${n === 1 ? singular : (plural ?? `${singular}s`)}`;
}

/**
 * Why a dataset is missing: `<what> were not read`, with the failed coverage entry's message when the scan
 * recorded one (cluster -> region -> account; `FleetIndex.notReadReason`, which owns the wording).
 */
export function notReadReason(
  index: FleetIndex,
  what: string,
  api: CoverageDataset,
  accountId: string,
  regionId?: string,
  clusterId?: string,
  verb: 'were' | 'was' = 'were',
): string {
  return index.notReadReason(what, api, accountId, regionId, clusterId, verb);
}

/** Seconds between an ISO 8601 time and `now`, or `undefined` when the time does not parse. */
export function ageSeconds(iso: string | undefined, now: Date): number | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : Math.round((now.getTime() - t) / 1000);
}

/** A duration in seconds as `45 s`, `12 min`, `5 h` or `228 d` (rounded down), for messages. */
export function humanDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 120) return `${s} s`;
  if (s < 2 * 3600) return `${Math.floor(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

/**
 * The `skipped` reason for a Service whose sync CCM fails before it changes any vServer group: CCM's own
 * message, and no predicted change (sync-failure semantics; CCM pkg/controller/service/clbv1/
 * vgroups.go buildVGroupForServicePort, reconcile/backend/backend.go).
 */
export function ccmSyncFails(serviceId: string, message: string): string {
  return `CCM fails the sync of ${serviceId} before touching its vServer groups ("${message}"): nothing is predicted`;
}
