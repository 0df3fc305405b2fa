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
 * - `cluster`: every cluster (`ClusterEntry`).
 * - `region`: every (account, region) (`RegionEntry`).
 * - `clb`: every CLB of a region whose CLBs were read (`ClbEntry`); a region whose CLBs were not read gets one
 *   `skipped` result (the CLBs are unknown).
 * Checks that judge a set of resources together (e.g. the CLBs several Services share) keep a plain `evaluate`.
 */
import type { CheckResult, CoverageDataset } from '@app/domain';
import type { CheckContext, CheckDefinition } from './check.types';
import type { ClbEntry, ClusterEntry, FleetIndex, RegionEntry, ServiceEntry } from './fleet-index';
import { clusterRef, notReadReason, regionRef, resultsFor, type ResultFactory } from './result.util';

/** What a check judges, one resource at a time. */
export type CheckScope = 'service' | 'cluster' | 'region' | 'clb';

/** The entry a check of each scope is called with. */
export interface ScopeEntries {
  service: ServiceEntry;
  cluster: ClusterEntry;
  region: RegionEntry;
  clb: ClbEntry;
}

/**
 * Datasets a scoped check can need, each with where it lives and the standard skip wording:
 * `kubernetes` (a cluster's Kubernetes objects), `sysctls` (its nodes' ip_local_port_range), `slb` (a
 * region's CLB instances).
 */
export type ScopeDataset = 'kubernetes' | 'sysctls' | 'slb';

/** Datasets read per cluster (the others per region). */
const CLUSTER_DATASETS: ReadonlySet<ScopeDataset> = new Set(['kubernetes', 'sysctls']);

/** Which datasets each scope may declare: the ones of its resource or of an enclosing place. */
type NeedsOf<S extends CheckScope> = S extends 'region' | 'clb' ? readonly 'slb'[] : readonly ScopeDataset[];

/** A check that judges one resource of its scope at a time (see the file comment). */
export interface ScopedCheckDefinition<S extends CheckScope> extends Omit<CheckDefinition, 'evaluate'> {
  scope: S;
  /** Datasets without which the check makes no claim: each unread one gives the standard `skipped` result. */
  needs: NeedsOf<S>;
  /** Which resources of the scope the check is about (default: all). */
  applies?(entry: ScopeEntries[S], ctx: CheckContext): boolean;
  /**
   * Judge one resource: push its results (usually one) to `out`.
   * @param r the check's result factory (its id and default severity)
   */
  check(entry: ScopeEntries[S], out: CheckResult[], r: ResultFactory, ctx: CheckContext): void;
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

/** The standard reason of a region's CLB instances not read. */
function slbNotRead(index: FleetIndex, re: RegionEntry): string {
  return notReadReason(
    index,
    `CLB instances of ${re.region.regionId}`,
    'slb',
    re.account.accountId,
    re.region.regionId,
  );
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
      const out: CheckResult[] = [];
      const { index } = ctx;
      const call = (entry: ScopeEntries[S]) => {
        if (!applies || applies(entry, ctx)) check(entry, out, r, ctx);
      };
      switch (def.scope) {
        case 'service': {
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
          for (const se of index.services) if (!skippedClusters.has(se.cluster)) call(se as ScopeEntries[S]);
          return out;
        }
        case 'cluster':
          for (const ce of index.clusters) {
            const unread = needs.find((d) => CLUSTER_DATASETS.has(d) && !clusterRead(ce, d));
            if (unread) out.push(r.skipped(clusterRef(ce.cluster), clusterNotRead(index, ce, unread)));
            else call(ce as ScopeEntries[S]);
          }
          return out;
        case 'region':
          for (const re of index.regions) {
            if (needs.includes('slb') && !re.region.loadBalancers)
              out.push(r.skipped(regionRef(re), slbNotRead(index, re)));
            else call(re as ScopeEntries[S]);
          }
          return out;
        case 'clb':
          for (const re of index.regions) {
            const lbs = re.region.loadBalancers;
            if (!lbs) {
              out.push(r.skipped(regionRef(re), slbNotRead(index, re)));
              continue;
            }
            for (const clb of lbs) call({ clb, account: re.account, region: re.region } as ScopeEntries[S]);
          }
          return out;
      }
      return out;
    },
  };
}
