/**
 * The rule engine's scopes: a check declares the kind of resource it judges (`scope`) and the datasets it
 * needs (`needs`); `scopedCheck` turns that into the check's `evaluate`, which iterates the scope over the
 * index, emits the standard `skipped` result (one wording per dataset, `notReadReason`) wherever a needed
 * dataset was not read, and calls the check once per resource. The check's own code starts with its logic.
 *
 * Model: kube-score `score/checks/checks.go` (the engine iterates, a check sees one resource) and Popeye
 * `internal/lint/svc.go` (a loop plus small `checkX` helpers).
 *
 * Scopes and what the check is called with:
 * - `service`: every LoadBalancer-type Service of a cluster whose Kubernetes objects were read (`ServiceEntry`);
 *   clusters whose Kubernetes objects were not read get one `skipped` result each (the Services are unknown).
 *   Needing `slb` skips each Service `applies` accepts whose region's CLBs were not read (its CLB is unknown).
 * - `reusedClb`: every Service as above that `applies` accepts and that reuses a CLB (`loadbalancer-id`), with
 *   that CLB (`ReusedClbEntry`, found by `FleetIndex.reusedClb`: the Service's account and region, as CCM looks);
 *   the Service is skipped, with the `loadBalancerId` figure, when its region's CLBs were not read or the CLB is
 *   not there. The loop head of the `LB_REUSE_*` checks; `reuseLookup: 'fleet'` finds the CLB by id anywhere in
 *   the fleet instead (`FleetIndex.reusedClb`).
 * - `cluster`: every cluster (`ClusterEntry`).
 * - `region`: every (account, region) (`RegionEntry`).
 * - `account`: every account (`AccountSnapshot`); needing `ram` skips an account whose RAM data was not read.
 * - `clb`: every CLB of a region whose CLBs were read (`ClbEntry`); a region whose CLBs were not read gets one
 *   `skipped` result (the CLBs are unknown).
 * - `sharedClb`: every CLB two or more CLB Services use (`SharedClbEntry`, `FleetIndex.servicesByClb`) that
 *   `applies` accepts; a CLB id reused by Services of a region whose CLBs were not read gets one `skipped` result
 *   when `applies` accepts its reusers (the CLB is unknown, the Services are not).
 * - `ecs`: every ECS instance of a region whose CLBs were read (`EcsScopeEntry`, `FleetIndex.forEachEcs`: listed
 *   instances and ECS ids among CLB backends); a region whose CLBs were not read gets one `skipped` result.
 *
 * A run's one-Service filter (`CheckContext.serviceFilter`) narrows the `service` and `reusedClb` loops of the checks
 * it names to the Services it accepts (a caller that keeps the other Services' results of an earlier run).
 */
import { type AccountSnapshot, type CheckResult, type CoverageDataset, type ResourceRef } from '@app/domain';
import type { CheckContext, CheckDefinition, PassTally, ResultSink } from './check.types';
import type {
  ClbEntry,
  ClusterEntry,
  EcsScopeEntry,
  FleetIndex,
  RegionEntry,
  ServiceEntry,
} from './fleet-index';
import {
  clusterRef,
  notReadReason,
  regionRef,
  resultsFor,
  serviceRef,
  type ResultFactory,
} from './result.util';

/** What a check judges, one resource at a time. */
export type CheckScope =
  'service' | 'reusedClb' | 'cluster' | 'region' | 'account' | 'clb' | 'sharedClb' | 'ecs';

/** A Service that reuses a CLB, with that CLB (`reusedClb` scope). */
export interface ReusedClbEntry {
  service: ServiceEntry;
  clb: ClbEntry;
}

/** A CLB with the CLB Services that use it, two or more (`sharedClb` scope). */
export interface SharedClbEntry {
  lbId: string;
  clb: ClbEntry;
  services: ServiceEntry[];
}

/** The entry a check of each scope is called with. */
export interface ScopeEntries {
  service: ServiceEntry;
  reusedClb: ReusedClbEntry;
  cluster: ClusterEntry;
  region: RegionEntry;
  account: AccountSnapshot;
  clb: ClbEntry;
  sharedClb: SharedClbEntry;
  ecs: EcsScopeEntry;
}

/**
 * What `applies` is asked about: the entry, except for `reusedClb` (the Service, before its CLB is looked up)
 * and `sharedClb` (the CLB id and its Services, also asked of CLBs that were not read).
 */
export interface ScopeSubjects extends Omit<ScopeEntries, 'reusedClb' | 'sharedClb'> {
  reusedClb: ServiceEntry;
  sharedClb: Pick<SharedClbEntry, 'lbId' | 'services'>;
}

/**
 * Datasets a scoped check can need, each with where it lives and the standard skip wording:
 * `kubernetes` (a cluster's Kubernetes objects), `sysctls` (its nodes' ip_local_port_range), `slb` (a
 * region's CLB instances), `ram` (an account's RAM roles and policies).
 */
export type ScopeDataset = 'kubernetes' | 'sysctls' | 'slb' | 'ram';

/** Datasets read per cluster (the others per region or account). */
const CLUSTER_DATASETS: ReadonlySet<ScopeDataset> = new Set(['kubernetes', 'sysctls']);

/** Which datasets each scope may declare: the ones of its resource or of an enclosing place. */
type NeedsOf<S extends CheckScope> = S extends 'region' | 'clb' | 'sharedClb' | 'ecs'
  ? readonly 'slb'[]
  : S extends 'account'
    ? readonly 'ram'[]
    : readonly Exclude<ScopeDataset, 'ram'>[];

/** A check that judges one resource of its scope at a time (see the file comment). */
export interface ScopedCheckDefinition<S extends CheckScope> extends Omit<CheckDefinition, 'evaluate'> {
  scope: S;
  /** Datasets without which the check makes no claim: each unread one gives the standard `skipped` result. */
  needs: NeedsOf<S>;
  /** Which resources of the scope the check is about (default: all). */
  applies?(subject: ScopeSubjects[S], ctx: CheckContext): boolean;
  /**
   * Judge one resource: push its results (usually one) to `out`.
   * @param r the check's result factory (its id and default severity)
   */
  check(entry: ScopeEntries[S], out: ResultSink, r: ResultFactory, ctx: CheckContext): void;
}

/** Whether a cluster dataset was read. */
function clusterRead(ce: ClusterEntry, d: ScopeDataset): boolean {
  return d === 'kubernetes'
    ? ce.cluster.kubernetes !== undefined
    : ce.cluster.nodeLocalPortRanges !== undefined;
}

/** The standard reason of a cluster dataset not read. */
function clusterNotRead(index: FleetIndex, ce: ClusterEntry, d: ScopeDataset): string {
  const c = ce.cluster;
  const what =
    d === 'kubernetes'
      ? `Kubernetes objects of cluster ${c.clusterId}`
      : `node ip_local_port_range of cluster ${c.clusterId}`;
  return notReadReason(
    index,
    what,
    d as CoverageDataset,
    c.accountId,
    c.regionId,
    c.clusterId,
    d === 'sysctls' ? 'was' : 'were',
  );
}

/** The ResourceRef of a CLB known only by its id (a reused CLB of a region whose CLBs were not read). */
function unreadClbRef(lbId: string, se: ServiceEntry): ResourceRef {
  const { account, region } = se.cluster;
  return { kind: 'LoadBalancer', id: lbId, accountId: account.accountId, regionId: region.regionId };
}

/**
 * A check's result sink and the list it fills: the list itself without a tally; with one, a sink that counts each
 * pass in `tally` and puts every other result in the list (`CheckContext.passTally`), first handing each pass and
 * fail to the tally's `sample` when it has one, and dropping every result about a resource the tally's `about`
 * refuses. Marks the tally `routed`.
 */
export function resultSinkOf(tally: PassTally | undefined): { sink: ResultSink; results: CheckResult[] } {
  const results: CheckResult[] = [];
  if (tally === undefined) return { sink: results, results };
  tally.routed = true;
  const sample = tally.sample;
  const about = tally.about;
  const sink: ResultSink = {
    push(result: CheckResult): number {
      if (about !== undefined && !about(result.resource)) return results.length;
      if (sample !== undefined && result.status !== 'skipped') sample(result);
      if (result.status === 'pass') tally.passes++;
      else results.push(result);
      return results.length;
    },
  };
  return { sink, results };
}

/**
 * Turn a scoped check into a `CheckDefinition`: its `evaluate` iterates the scope, emits the standard
 * `skipped` results for unread datasets, and calls `check` for every resource `applies` accepts.
 */
export function scopedCheck<S extends CheckScope>(
  def: ScopedCheckDefinition<S>,
): CheckDefinition & { scope: S; needs: NeedsOf<S> } {
  const { check, applies, ...meta } = def;
  const needs = def.needs as readonly ScopeDataset[];
  return {
    ...meta,
    evaluate(ctx: CheckContext): CheckResult[] {
      const r = resultsFor(def.id, def.defaultSeverity);
      const { sink: out, results } = resultSinkOf(ctx.passTally);
      // The run's one-Service filter (`ServiceFilter`), for the scopes whose subject is a Service.
      const only = (def.scope === 'service' || def.scope === 'reusedClb') && ctx.serviceFilter?.checkIds.has(def.id) ? ctx.serviceFilter : undefined;
      const accepts = (subject: ScopeSubjects[S]) => (!only || only.accepts(subject as ServiceEntry)) && (!applies || applies(subject, ctx));
      const call = (entry: ScopeEntries[S]) => check(entry, out, r, ctx);
      iterate(def.scope, needs, ctx.index, r, out, accepts as never, call as never);
      return results;
    },
  };
}

/** The scope loops (see the file comment): skip what was not read, call `check` on what `accepts`. */
function iterate(
  scope: CheckScope,
  needs: readonly ScopeDataset[],
  index: FleetIndex,
  r: ResultFactory,
  out: ResultSink,
  accepts: (subject: ScopeSubjects[CheckScope]) => boolean,
  call: (entry: ScopeEntries[CheckScope]) => void,
): void {
  switch (scope) {
    case 'service':
    case 'reusedClb': {
      // Services come from the Kubernetes objects: a cluster not read has unknown Services.
      const clusterNeeds = needs.filter((d) => CLUSTER_DATASETS.has(d));
      if (!clusterNeeds.includes('kubernetes')) clusterNeeds.unshift('kubernetes');
      const skippedClusters = new Set<ClusterEntry>();
      for (const ce of index.clusters)
        for (const d of clusterNeeds)
          if (!clusterRead(ce, d)) {
            out.push(r.skipped(clusterRef(ce.cluster), clusterNotRead(index, ce, d)));
            skippedClusters.add(ce);
            break;
          }
      const needsSlb = needs.includes('slb');
      // Indexed loops over the long lists here: `iterate` serves every check with other callbacks, and a `for...of`
      // left unoptimised allocates an iterator result per element (about 25 MB per 1M-entry analysis).
      const services = index.services;
      for (let i = 0; i < services.length; i++) {
        const se = services[i]!;
        if ((skippedClusters.size > 0 && skippedClusters.has(se.cluster)) || !accepts(se)) continue;
        const { account, region } = se.cluster;
        if (scope === 'service') {
          if (needsSlb && !region.loadBalancers)
            out.push(r.skipped(serviceRef(se), index.slbNotReadReason(account, region)));
          else call(se);
          continue;
        }
        const reused = index.reusedClb(se);
        if (!reused) continue;
        if (reused.entry) call({ service: se, clb: reused.entry });
        else out.push(r.skipped(serviceRef(se), reused.skipReason, { loadBalancerId: reused.lbId }));
      }
      return;
    }
    case 'cluster':
      for (const ce of index.clusters) {
        const unread = needs.find((d) => CLUSTER_DATASETS.has(d) && !clusterRead(ce, d));
        if (unread) out.push(r.skipped(clusterRef(ce.cluster), clusterNotRead(index, ce, unread)));
        else if (accepts(ce)) call(ce);
      }
      return;
    case 'account':
      for (const account of index.snapshot.accounts) {
        if (needs.includes('ram') && !account.ram)
          out.push(
            r.skipped(
              { kind: 'Account', id: account.accountId, accountId: account.accountId, regionId: '' },
              notReadReason(
                index,
                `RAM roles and policies of account ${account.accountId}`,
                'ram',
                account.accountId,
              ),
            ),
          );
        else if (accepts(account)) call(account);
      }
      return;
    case 'region':
      for (const re of index.regions) {
        if (needs.includes('slb') && !re.region.loadBalancers)
          out.push(r.skipped(regionRef(re), index.slbNotReadReason(re.account, re.region)));
        else if (accepts(re)) call(re);
      }
      return;
    case 'clb':
    case 'ecs':
      for (const re of index.regions) {
        const lbs = re.region.loadBalancers;
        if (!lbs) {
          out.push(r.skipped(regionRef(re), index.slbNotReadReason(re.account, re.region)));
          continue;
        }
        if (scope === 'ecs') {
          index.forEachEcs(re, (entry) => {
            if (accepts(entry)) call(entry);
          });
          continue;
        }
        const entries = index.clbEntriesOf(re);
        for (let i = 0; i < entries.length; i++) if (accepts(entries[i]!)) call(entries[i]!);
      }
      return;
    case 'sharedClb':
      for (const [lbId, services] of index.servicesByClb()) {
        // Most CLBs have one Service: the count first, the lookup only for the shared ones.
        if (services.length < 2) continue;
        const clb = index.clbById.get(lbId);
        if (!clb || !accepts({ lbId, services })) continue;
        call({ lbId, clb, services });
      }
      // CLB ids reused in a region whose CLBs were not read: the CLB is unknown, its reusers are not.
      for (const [lbId, reusers] of index.reusersByLbId) {
        if (reusers.length < 2 || index.clbById.has(lbId)) continue;
        const { account, region } = reusers[0]!.cluster;
        if (region.loadBalancers || !accepts({ lbId, services: reusers })) continue;
        out.push(r.skipped(unreadClbRef(lbId, reusers[0]!), index.slbNotReadReason(account, region)));
      }
      return;
  }
}

/**
 * The NLB part of a check whose CLB part is `clbPart`: the same metadata, judged per Service (scope
 * `service`, needing the cluster's Kubernetes objects) for the Services CCM's NLB controller takes (`needNlb`)
 * that the part's own `applies`, if any, also accepts. Combine the two with `combinedCheck(clbPart, nlbPart)`.
 */
export function nlbServicePart(
  clbPart: CheckDefinition,
  part: Pick<ScopedCheckDefinition<'service'>, 'applies' | 'check'>,
): CheckDefinition & { scope: 'service'; needs: NeedsOf<'service'> } {
  const { applies, check } = part;
  return scopedCheck({
    ...clbPart,
    scope: 'service',
    needs: ['kubernetes'],
    applies: (se, ctx) => se.needNlb && (!applies || applies(se, ctx)),
    check,
  });
}

/**
 * One check evaluated in parts with the same metadata (the CLB part and the NLB part of a check that applies to
 * both kinds): the results of `main`, then of each part; a cluster-level `skipped` result (the cluster's
 * Kubernetes objects not read) that several parts emit is kept once.
 * @returns `main` with an `evaluate` running every part
 */
export function combinedCheck<T extends CheckDefinition>(main: T, ...parts: readonly CheckDefinition[]): T {
  return {
    ...main,
    evaluate(ctx: CheckContext): CheckResult[] {
      const out = main.evaluate(ctx);
      const skippedClusters = new Set(out.filter((x) => x.status === 'skipped' && x.resource.kind === 'Cluster').map((x) => x.resource.id));
      for (const part of parts)
        for (const res of part.evaluate(ctx)) {
          if (res.status === 'skipped' && res.resource.kind === 'Cluster' && skippedClusters.has(res.resource.id)) continue;
          out.push(res);
        }
      return out;
    },
  };
}
