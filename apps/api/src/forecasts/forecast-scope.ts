/**
 * Headroom and what-if for scoped tokens (accounts, teams): both run on the whole stored snapshot, because a quota
 * several clusters share (an account's region quota, a vSwitch) is split between every cluster drawing from it
 * (libs/forecast computeHeadroom), and answer only about the clusters the token's scope covers:
 * - a cluster is in scope when its account is in the account scope and, for a team-scoped token, its team
 *   (`ClusterSnapshot.team`, stored by the scan, or its team tag) is one of the token's teams;
 * - headroom lists only in-scope clusters (`sharedQuotas` give pool totals and cluster counts, never other
 *   clusters' ids);
 * - a what-if may only change in-scope clusters; a step naming any other cluster, or none, is refused with one
 *   message for both (no existence oracle), before the scenario runs (the runner's own "unknown cluster" message
 *   lists every cluster);
 * - a what-if's quota changes, first breach and findings keep the resources in scope: those of an in-scope
 *   cluster, and those outside any cluster (an account's region quota) of an account in scope, which the
 *   scenario's own growth changes.
 */
import { teamOf, type ClusterSnapshot, type FleetSnapshot, type ResourceRef } from '@app/domain';
import type { HeadroomEntry, Scenario, WhatIfResult } from '@app/forecast';
import { scopeIncludes, teamScopeIncludes, type Scoped } from '@app/store';
import { ApiError } from '../common/api.exception';

/** Whether the principal sees everything (every account, every team): no narrowing. */
export function seesWholeFleet(scoped: Scoped): boolean {
  return scoped.accountScope.all && scoped.teamScope === undefined;
}

/** The clusters of the snapshot within the scope, by id. */
export function clustersInScope(snapshot: FleetSnapshot, scoped: Scoped): Map<string, ClusterSnapshot> {
  const out = new Map<string, ClusterSnapshot>();
  for (const a of snapshot.accounts) {
    if (!scopeIncludes(scoped.accountScope, a.accountId)) continue;
    for (const r of a.regions)
      for (const c of r.clusters) if (teamScopeIncludes(scoped, teamOf(c, undefined))) out.set(c.clusterId, c);
  }
  return out;
}

/** Headroom entries of in-scope clusters only. */
export function headroomInScope(entries: HeadroomEntry[], inScope: ReadonlyMap<string, ClusterSnapshot>): HeadroomEntry[] {
  return entries.filter((e) => inScope.has(e.clusterId));
}

/**
 * The scenario with every step's cluster resolved to an in-scope cluster id (by id, or by a name unique among the
 * in-scope clusters).
 * @throws ApiError FORBIDDEN naming the step and the cluster as given, for a cluster outside the scope or unknown
 */
export function scenarioInScope(scenario: Scenario, inScope: ReadonlyMap<string, ClusterSnapshot>): Scenario {
  const steps = scenario.steps.map((step) => {
    const given = step.args.cluster;
    const byId = inScope.get(given);
    const byName = byId ? [byId] : [...inScope.values()].filter((c) => c.name === given);
    if (byName.length !== 1)
      throw new ApiError('FORBIDDEN', `step ${step.index} (${step.kind}): cluster "${given.slice(0, 80)}" is not a cluster within the token's scope (by id, or by a name unique within it)`);
    return { ...step, args: { ...step.args, cluster: byName[0]!.clusterId } } as typeof step;
  });
  return { ...scenario, steps };
}

/** Whether a what-if's resource is in scope (see the file comment). */
function resourceInScope(r: ResourceRef, inScope: ReadonlyMap<string, ClusterSnapshot>, scoped: Scoped): boolean {
  if (r.clusterId !== undefined && r.clusterId !== '') return inScope.has(r.clusterId);
  return scopeIncludes(scoped.accountScope, r.accountId);
}

/** A what-if result narrowed to the resources in scope (see the file comment). */
export function whatIfInScope(result: WhatIfResult, inScope: ReadonlyMap<string, ClusterSnapshot>, scoped: Scoped): WhatIfResult {
  const keep = (r: ResourceRef) => resourceInScope(r, inScope, scoped);
  return {
    ...result,
    steps: result.steps.map((s) => ({
      ...s,
      quotas: s.quotas.filter((q) => keep(q.resource)),
      firstBreach: s.firstBreach && keep(s.firstBreach.resource) ? s.firstBreach : (s.quotas.find((q) => keep(q.resource) && q.after.used > q.after.limit) ?? null),
      findings: {
        appeared: s.findings.appeared.filter((f) => keep(f.resource)),
        resolved: s.findings.resolved.filter((f) => keep(f.resource)),
        severityChanged: s.findings.severityChanged.filter((f) => keep(f.resource)),
      },
      headroom: headroomInScope(s.headroom, inScope),
    })),
  };
}
