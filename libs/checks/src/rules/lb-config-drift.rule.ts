import {
  ANNOTATION_BACKEND_TYPE,
  CCM_FEATURES,
  LB_ANNOTATION,
  TAG_CCM_OWNER,
  TAG_CLUSTER_ID,
  ccmManagesListeners,
  diagnoseServiceEvents,
  diffVServerGroupBackends,
  expectedListeners,
  expectedVServerGroups,
  getLbAnnotation,
  isCcmNameOfOwner,
  parseCcmNamedKey,
  parseVGroupPort,
  serviceTrafficPolicy,
  type CheckResult,
  type Clb,
  type EligibleNodes,
  type ExpectedBackendsInput,
  type ExpectedVServerGroup,
  type K8sService,
  type RegionSnapshot,
  type ResourceRef,
  type TrafficPolicy,
  type VServerGroup,
  type VServerGroupOwner,
  uniformClusterVServerGroups,
  diffNlbServerGroupServers,
  expectedNlbServerGroups,
  ignoresWeightUpdate,
  uniformNlbClusterServerGroups,
  type NlbServerUpdate,
} from '@app/domain';
import { combinedCheck, nlbServicePart, scopedCheck } from '../check-scope';
import { nlbOfServiceOrSkip } from './nlb-quota.util';
import type { RegionNlbView } from '../nlb-index';
import { sameServerIds } from '../positional-cache';
import type { CheckContext } from '../check.types';
import { DOC_URL, SEED } from '../doc-links.constants';
import type { ServiceEntry } from '../fleet-index';
import { ccmSyncFails, count, listSome, type PassText, type ResultFactory, serviceRef } from '../result.util';

/** The message of a CLB that matches what CCM would set (built when read; `ref` is the Service's). */
const clbMatchText: PassText<{ loadBalancerId: string; vServerGroups: number; backendsCompared: number; note?: string }> = (
  ref,
  { loadBalancerId, vServerGroups, backendsCompared, note },
) =>
  `CLB ${loadBalancerId} of ${ref.id} matches what CCM would set (${count(vServerGroups, 'vServer group')}, ` +
  `${count(backendsCompared, 'backend')})${note ? `; ${note}` : ''}`;

/** The message of an NLB whose server groups hold what CCM builds (built when read; `ref` is the Service's). */
const nlbMatchText: PassText<{ loadBalancerId: string }> = (ref, { loadBalancerId }) =>
  `The server groups of NLB ${loadBalancerId} hold what CCM builds for ${ref.id}`;

/** What CCM would set for a Service on its CLB (`ccmModel`), with what the comparison needs. */
interface CcmModel {
  groups: ExpectedVServerGroup[];
  policy: TrafficPolicy;
  eligible: EligibleNodes;
  /** vServer group id per Service port from `vgroup-port` (reused CLBs only). */
  userGroupByPort?: ReadonlyMap<string, string>;
  /** Weights are not compared: CCM before v1.9.3.276 weighted differently, or `ignore-weight-update: on`. */
  ignoreWeightUpdate: boolean;
  /** CCM before v1.9.3.276: its weights are not the model's (figure `weightsCompared: false`). */
  oldWeights: boolean;
}

/** Drift of the vServer groups: the differences, samples, and the group id bound per Service port. */
interface GroupDrift {
  drift: string[];
  samples: string[];
  compared: number;
  add: number;
  remove: number;
  update: number;
  groupIdByPort: Map<number, string>;
}

/**
 * The input of the CCM backend builders (`expectedVServerGroups`, `expectedNlbServerGroups` and their uniform
 * Cluster-mode shapes) for a Service: its cluster id and CCM version, the traffic policy, the eligible nodes and the
 * Service's EndpointSlices.
 */
function backendsInput(se: ServiceEntry, policy: TrafficPolicy, eligible: EligibleNodes, ctx: CheckContext): ExpectedBackendsInput {
  const { service } = se;
  const { cluster } = se.cluster;
  return {
    service,
    clusterId: cluster.clusterId,
    policy,
    eligible,
    endpointSlices: ctx.index.slicesOf(se),
    ...(cluster.ccmVersion !== undefined ? { ccmVersion: cluster.ccmVersion } : {}),
    atLeast: ctx.index.ccmAtLeast,
  };
}

/**
 * Why CCM changes nothing on the CLB (it refuses the reuse of a CCM- or ACK-tagged CLB, model_applier.go
 * isLoadBalancerReusable) or the comparison cannot be made (backend mode unknown), or `undefined`.
 */
function notComparable(se: ServiceEntry, clb: Clb, ctx: CheckContext): string | undefined {
  const { service } = se;
  const { cluster } = se.cluster;
  if (
    se.reusedLbId &&
    (clb.tags[TAG_CCM_OWNER] !== undefined || clb.tags[TAG_CLUSTER_ID] !== undefined)
  )
    return `CCM refuses to reuse CLB ${clb.loadBalancerId} and changes nothing on it (see ${
      ctx.index.apiServerClusters.has(clb.loadBalancerId)
        ? 'LB_REUSE_OF_APISERVER'
        : 'LB_REUSE_OF_CCM_CREATED'
    })`;
  if (cluster.addons === undefined && (service.annotations[ANNOTATION_BACKEND_TYPE] ?? '') === '')
    return `add-ons of cluster ${cluster.clusterId} were not read: backend mode unknown`;
  return undefined;
}

/**
 * The vServer groups CCM would set (`expectedVServerGroups`, same node selection, mode and weights as CCM), or
 * the error CCM fails the sync with before it changes any group: backend-label or weights that do not parse, an
 * endpoint without node, `vgroup-port` that does not parse or names no user group of the CLB (clbv1/vgroups.go
 * buildVGroupForServicePort: "can not find vgroupId %s in lb %s", "cannot reuse a ccm created vgroup %s for slb %s").
 */
function ccmModel(se: ServiceEntry, clb: Clb, ctx: CheckContext): CcmModel | { error: string } {
  const { service } = se;
  const { cluster } = se.cluster;
  const sel = ctx.index.selectionOf(se);
  if ('error' in sel) return sel;
  const policy = serviceTrafficPolicy(service, cluster).policy;
  const eligible = ctx.index.eligibleNodesOf(se)!;
  const model = expectedVServerGroups(backendsInput(se, policy, eligible, ctx));
  if ('error' in model) return model;
  const vgp = se.reusedLbId
    ? parseVGroupPort(getLbAnnotation(service.annotations, LB_ANNOTATION.vgroupPort))
    : undefined;
  if (vgp && 'error' in vgp) return { error: `vgroupid parse error: ${vgp.error}` };
  for (const g of vgp ? model.groups : []) {
    const id = vgp!.byPort.get(String(g.servicePort.port));
    if (!id) continue;
    const bound = clb.vServerGroups.find((x) => x.vServerGroupId === id);
    if (!bound) return { error: `can not find vgroupId ${id} in lb ${clb.loadBalancerId}` };
    if (parseCcmNamedKey(bound.name))
      return { error: `cannot reuse a ccm created vgroup ${id} for slb ${clb.loadBalancerId}` };
  }
  // CCM before v1.9.3.276 weighted Local-mode nodes differently (100 each, or 16/33/50 percentages; seeds
  // 000/001): the model's pod-count weights would be false drift there, so weights are not compared;
  // `ignore-weight-update` is read from CCM v2.11.1 on (CCM_FEATURES.ignoreWeightUpdate), case-insensitively.
  const { oldWeights, ignoreWeightUpdate } = weightComparison(service, cluster.ccmVersion, ctx);
  return {
    groups: model.groups,
    policy,
    eligible,
    ...(vgp ? { userGroupByPort: vgp.byPort } : {}),
    ignoreWeightUpdate,
    oldWeights,
  };
}

/** What `clusterModeMatch` proved: the vServer groups of a Cluster-mode Service hold exactly what CCM would set. */
interface ClusterModeMatch {
  groups: number;
  compared: number;
  groupIdByPort: Map<number, string>;
  oldWeights: boolean;
}

/**
 * The common case of a Cluster-mode CLB Service, proven without building its expected backends: every group CCM
 * would set (`uniformClusterVServerGroups`: every eligible node on the NodePort with one weight) exists with exactly
 * those backends, each with CCM's description and, unless weights are not compared, the weight; and no stale
 * CCM-named group of the Service is left. Then `vServerGroupDrift` would find nothing (`diffVServerGroupBackends`: no
 * backend to add, remove or rewrite). The groups are not walked again: the backend pass over the region
 * (`FleetIndex.vServerGroupShape`) recorded whether each group is uniform (type, port, weight, description) and which
 * id sequence it holds, and a sequence is compared with the eligible nodes' sorted ids once
 * (`sameServerIds`, `FleetIndex.sortedEcsIds`). `undefined` whenever the match is not proven (a reused
 * CLB, another mode, a difference, a group sorted otherwise): the caller then compares the full model (`ccmModel`,
 * `vServerGroupDrift`), which gives the same answer on the matching case.
 *
 * @param region the region of the CLB (whose backend pass recorded its groups)
 */
function clusterModeMatch(
  se: ServiceEntry,
  clb: Clb,
  region: RegionSnapshot,
  owner: VServerGroupOwner,
  ctx: CheckContext,
): ClusterModeMatch | undefined {
  const { service } = se;
  const { cluster } = se.cluster;
  if (se.reusedLbId) return undefined;
  const sel = ctx.index.selectionOf(se);
  if ('error' in sel) return undefined;
  const policy = serviceTrafficPolicy(service, cluster).policy;
  if (policy !== 'cluster') return undefined;
  const eligible = ctx.index.eligibleNodesOf(se)!;
  const groups = uniformClusterVServerGroups(backendsInput(se, policy, eligible, ctx));
  const ids = groups ? ctx.index.sortedEcsIds(eligible) : null;
  if (!groups || !ids) return undefined;
  const n = ids.length;
  const { oldWeights, ignoreWeightUpdate } = weightComparison(service, cluster.ccmVersion, ctx);
  const byName = ctx.index.vServerGroupsByName(clb);
  const groupIdByPort = new Map<number, string>();
  const expectedNames = new Set<string>();
  for (const g of groups) {
    const remote = byName.get(g.name);
    if (!remote || remote.backendServers.length !== n) return undefined;
    expectedNames.add(g.name);
    // The group's shape from the backend pass (`FleetIndex.vServerGroupShape`): every backend `ecs` on one port with
    // one weight and the group's name as description, and its id sequence compared once per eligible set.
    if (n > 0) {
      const shape = ctx.index.vServerGroupShape(region, remote);
      if (!shape || !shape.uniform || shape.port !== g.port) return undefined;
      if (!ignoreWeightUpdate && shape.weight !== g.weight) return undefined;
      if (!sameServerIds(shape.sequence, ids)) return undefined;
    }
    groupIdByPort.set(g.servicePort.port, remote.vServerGroupId);
  }
  for (const g of clb.vServerGroups) if (!expectedNames.has(g.name) && isCcmNameOfOwner(g.name, owner)) return undefined;
  return { groups: groups.length, compared: n * groups.length, groupIdByPort, oldWeights };
}

/**
 * Whether weights are compared: not for CCM before v1.9.3.276 (`oldWeights`: other Local-mode weights, seeds
 * 000/001), nor with `ignore-weight-update: on` from CCM v2.11.1 on (`CCM_FEATURES.ignoreWeightUpdate`).
 */
function weightComparison(service: K8sService, ccmVersion: string | undefined, ctx: CheckContext): { oldWeights: boolean; ignoreWeightUpdate: boolean } {
  const oldWeights = ctx.index.ccmAtLeast(ccmVersion, CCM_FEATURES.podCountWeights.sinceVersion) === false;
  return { oldWeights, ignoreWeightUpdate: oldWeights || ignoresWeightUpdate(service, ccmVersion) };
}

/**
 * vServer groups (vgroups.go `diff`, `isBackendManagedByMyService`): missing groups, backends CCM would add,
 * CCM-described backends it would remove, weights and descriptions it would rewrite, and CCM-named groups of the
 * Service that no port needs (CCM deletes them).
 */
function vServerGroupDrift(
  clb: Clb,
  model: CcmModel,
  owner: VServerGroupOwner,
  ctx: CheckContext,
): GroupDrift {
  const byName = ctx.index.vServerGroupsByName(clb);
  const out: GroupDrift = {
    drift: [],
    samples: [],
    compared: 0,
    add: 0,
    remove: 0,
    update: 0,
    groupIdByPort: new Map(),
  };
  const missingGroups: string[] = [];
  const expectedNames = new Set<string>();
  for (const g of model.groups) {
    expectedNames.add(g.name);
    const userGroupId = model.userGroupByPort?.get(String(g.servicePort.port));
    const remote: VServerGroup | undefined = userGroupId
      ? clb.vServerGroups.find((x) => x.vServerGroupId === userGroupId)
      : byName.get(g.name);
    if (!remote) {
      missingGroups.push(userGroupId ?? g.name);
      continue;
    }
    out.groupIdByPort.set(g.servicePort.port, remote.vServerGroupId);
    out.compared += remote.backendServers.length;
    const d = diffVServerGroupBackends(g, remote.backendServers, owner, {
      ignoreWeightUpdate: model.ignoreWeightUpdate,
      maxSamples: 2,
      // Cluster mode lists the eligible nodes first, in order: one shared index per node set.
      ...(model.policy === 'cluster'
        ? { ecsIndex: ctx.index.ecsPositions(model.eligible), ecsOrder: ctx.index.ecsOrder(model.eligible) }
        : {}),
    });
    out.add += d.add;
    out.remove += d.remove;
    out.update += d.update;
    if (out.samples.length < 4) {
      for (const b of d.addSamples)
        out.samples.push(`+${b.serverIp && b.type === 'eni' ? b.serverIp : b.serverId}:${b.port}`);
      for (const b of d.removeSamples) out.samples.push(`-${b.serverId}:${b.port ?? ''}`);
      for (const u of d.updateSamples)
        out.samples.push(
          `~${u.actual.serverId} ${u.fields.includes('weight') ? `weight ${u.actual.weight}->${u.expected.weight}` : 'description'}`,
        );
    }
  }
  if (missingGroups.length)
    out.drift.push(`${count(missingGroups.length, 'vServer group')} missing (${listSome(missingGroups, 2)})`);
  if (out.add) out.drift.push(`${count(out.add, 'backend')} to add`);
  if (out.remove) out.drift.push(`${count(out.remove, 'backend')} to remove`);
  if (out.update) out.drift.push(`${count(out.update, 'backend')} to rewrite (weight or description)`);
  const staleGroups = clb.vServerGroups
    .filter((g) => !expectedNames.has(g.name) && isCcmNameOfOwner(g.name, owner))
    .map((g) => g.name);
  if (staleGroups.length)
    out.drift.push(
      `${count(staleGroups.length, 'stale vServer group')} to delete (${listSome(staleGroups, 2)})`,
    );
  return out;
}

/**
 * Listeners, when CCM manages them (not reused, or `force-override-listeners: "true"`; listeners.go): a listener
 * per Service port with the protocol of `protocol-port`, forwarding to the port's vServer group, and the Service's
 * own listeners no port needs. `note` says why listeners were not compared.
 */
function listenerDrift(
  service: K8sService,
  clb: Clb,
  owner: VServerGroupOwner,
  groupIdByPort: ReadonlyMap<number, string>,
): { drift: string[]; note: string } {
  const drift: string[] = [];
  if (!ccmManagesListeners(service)) return { drift, note: '' };
  const exp = expectedListeners(service, owner.clusterId);
  if ('error' in exp) return { drift, note: `listeners not compared: ${exp.error}` };
  const missing: string[] = [];
  const changed: string[] = [];
  const misrouted: string[] = [];
  const wanted = new Set<string>();
  for (const l of exp.listeners) {
    wanted.add(`${l.protocol}/${l.port}`);
    const remote = clb.listeners.find((x) => x.port === l.port && x.protocol === l.protocol);
    if (!remote) {
      const other = clb.listeners.find((x) => x.port === l.port);
      if (other) changed.push(`${l.port} is ${other.protocol}, CCM sets ${l.protocol}`);
      else missing.push(`${l.protocol}/${l.port}`);
      continue;
    }
    const gid = groupIdByPort.get(l.port);
    if (remote.vServerGroupId && gid && remote.vServerGroupId !== gid)
      misrouted.push(`${l.protocol}/${l.port} -> ${remote.vServerGroupId}`);
  }
  const extra = clb.listeners
    .filter((x) => !wanted.has(`${x.protocol}/${x.port}`) && isCcmNameOfOwner(x.description, owner))
    .map((x) => `${x.protocol}/${x.port}`);
  if (missing.length) drift.push(`listener ${listSome(missing, 3)} missing`);
  if (changed.length) drift.push(`listener ${listSome(changed, 3)}`);
  if (misrouted.length) drift.push(`listener ${listSome(misrouted, 2)} forwards to another vServer group`);
  if (extra.length) drift.push(`listener ${listSome(extra, 3)} to delete`);
  return { drift, note: '' };
}

/** The CLB name (`name` annotation) and, on a pay-by-spec CLB, the `spec` annotation (loadbalancer.go Update). */
function attributeDrift(service: K8sService, clb: Clb): string[] {
  const drift: string[] = [];
  const wantedName = getLbAnnotation(service.annotations, LB_ANNOTATION.name);
  if (wantedName && wantedName !== clb.name) drift.push(`name "${clb.name}" -> "${wantedName}"`);
  const wantedSpec = getLbAnnotation(service.annotations, LB_ANNOTATION.spec);
  const payBySpec =
    clb.instanceChargeType === 'PayBySpec' || (clb.instanceChargeType === undefined && !!clb.spec);
  if (wantedSpec && payBySpec && wantedSpec !== clb.spec)
    drift.push(`spec ${clb.spec ?? 'none'} -> ${wantedSpec}`);
  return drift;
}

/** The passing result of the CLB part: the CLB holds what CCM would set (figures as the failing result's, all zero). */
function matchPass(
  r: ResultFactory,
  ref: ResourceRef,
  clb: Clb,
  mode: TrafficPolicy,
  vServerGroups: number,
  compared: number,
  note: string,
  oldWeights: boolean,
): CheckResult {
  const figures = {
    loadBalancerId: clb.loadBalancerId,
    mode,
    vServerGroups,
    backendsCompared: compared,
    backendsToAdd: 0,
    backendsToRemove: 0,
    backendsToRewrite: 0,
    ...(note ? { note } : {}),
    ...(oldWeights ? { weightsCompared: false } : {}),
  };
  return r.pass(ref, clbMatchText, figures);
}

/**
 * A CCM-managed CLB whose listeners, vServer groups or backends differ from what CCM would set for the Service:
 * a console edit (or a reconcile CCM has not done yet) that CCM will overwrite. Seeds 000/001/003 "Why was the
 * configuration of my SLB instance modified?": "CCM uses a declarative API ... Any configurations that you modify
 * in the SLB console are at risk of being overwritten"; seed 004 "Do not manually modify any configuration of an
 * SLB instance created and maintained by ACK".
 *
 * Compared, the way CCM reconciles (pkg/controller/service/clbv1/):
 * - vServer groups (`expectedVServerGroups`; vgroups.go `diff`, `isBackendManagedByMyService`): missing groups,
 *   backends CCM would add, CCM-described backends it would remove, weights (unless `ignore-weight-update: on`)
 *   and descriptions it would rewrite; CCM-named groups of the Service that no port needs (CCM deletes them);
 * - listeners, when CCM manages them (not reused, or `force-override-listeners: "true"`; listeners.go): a listener
 *   per Service port with the protocol of `protocol-port`, and the Service's own listeners no port needs;
 * - the CLB name (`name` annotation) and, on a pay-by-spec CLB, the `spec` annotation (loadbalancer.go Update).
 * Skipped: no CLB found, CCM refuses the reuse, the backend mode is unknown (add-ons not read), CCM cannot build
 * the model (backend-label or vgroup-port does not parse, endpoint without node).
 */
const clbPart = scopedCheck({
  id: 'LB_CONFIG_DRIFT',
  title: 'CCM-managed CLB or NLB differs from its Service: edits CCM will overwrite',
  category: 'ownership',
  resourceKind: 'Service',
  defaultSeverity: 'warning',
  description:
    'Rebuilds, for every CLB Service, the listeners, vServer groups and backends CCM would set (same node ' +
    'selection, modes, weights and names as CCM) and compares them with the CLB. Differences are edits made in the ' +
    'SLB console (or syncs CCM has not done): CCM overwrites them at the next reconcile.',
  remediation:
    'Do not manually modify the configuration of a CLB instance created and maintained by CCM in the SLB console: ' +
    'configure it with Service annotations (weights: weight / default-weight / ignore-weight-update; backends: ' +
    'backend-label; listeners: protocol-port and the listener annotations) so that CCM applies it. Put listeners ' +
    'or backends you manage yourself on a CLB you reuse without force-override-listeners. ' +
    DOC_URL.serviceFaq,
  source:
    `${SEED.serviceFaq} "Why was the configuration of my SLB instance modified?"; ${SEED.serviceFaqOld} "Why is the ` +
    `configuration of an SLB instance modified?"; ${SEED.lbConsiderations} "Notes on CCM-managed load balancers"; CCM ` +
    'pkg/controller/service/clbv1/vgroups.go (diff), listeners.go, loadbalancer.go',
  scope: 'service',
  needs: ['kubernetes', 'slb'],
  applies: ({ service, needClb: clb }) => clb && !service.deletionTimestamp,
  check(se, out, r, ctx) {
    const { service } = se;
    const ref = serviceRef(se);
    const clbEntry = ctx.index.clbOf(se).entry;
    const clb = clbEntry?.clb;
    if (!clb) {
      out.push(
        r.skipped(ref, `${ref.id} has no CLB to compare (see LB_NOT_FOUND_FOR_SERVICE, SERVICE_LB_PENDING)`),
      );
      return;
    }
    const why = notComparable(se, clb, ctx);
    if (why) {
      out.push(r.skipped(ref, why));
      return;
    }
    const owner: VServerGroupOwner = {
      serviceName: service.name,
      namespace: service.namespace,
      clusterId: se.cluster.cluster.clusterId,
    };
    // Most Cluster-mode Services match: proven without the model's backends, with the same result as below.
    const fast = ctx.fastPaths?.enabled !== false ? clusterModeMatch(se, clb, clbEntry!.region, owner, ctx) : undefined;
    if (fast) {
      const listeners = listenerDrift(service, clb, owner, fast.groupIdByPort);
      if (listeners.drift.length === 0 && attributeDrift(service, clb).length === 0) {
        if (ctx.fastPaths) ctx.fastPaths.taken++;
        out.push(matchPass(r, ref, clb, 'cluster', fast.groups, fast.compared, listeners.note, fast.oldWeights));
        return;
      }
    }
    const model = ccmModel(se, clb, ctx);
    if ('error' in model) {
      out.push(r.skipped(ref, ccmSyncFails(ref.id, model.error)));
      return;
    }
    const groups = vServerGroupDrift(clb, model, owner, ctx);
    const listeners = listenerDrift(service, clb, owner, groups.groupIdByPort);
    const drift = [...groups.drift, ...listeners.drift, ...attributeDrift(service, clb)];
    const figures = {
      loadBalancerId: clb.loadBalancerId,
      mode: model.policy,
      vServerGroups: model.groups.length,
      backendsCompared: groups.compared,
      backendsToAdd: groups.add,
      backendsToRemove: groups.remove,
      backendsToRewrite: groups.update,
      ...(listeners.note ? { note: listeners.note } : {}),
      ...(model.oldWeights ? { weightsCompared: false } : {}),
    };
    if (drift.length === 0) {
      out.push(matchPass(r, ref, clb, model.policy, model.groups.length, groups.compared, listeners.note, model.oldWeights));
      return;
    }
    // When CCM's syncs of this Service currently fail, the difference is more likely the failed sync than a
    // console edit: say so (SERVICE_EVENT_ERROR reports the error itself).
    const failing = diagnoseServiceEvents(
      ctx.index.eventsOf(se),
    ).current;
    out.push(
      r.fail(
        ref,
        `CLB ${clb.loadBalancerId} of ${ref.id} differs from what CCM would set: ${drift.join('; ')}` +
          `${groups.samples.length ? ` (e.g. ${groups.samples.slice(0, 4).join(', ')})` : ''}` +
          (failing.length
            ? `; CCM's syncs of this Service currently fail (${failing[0]!.event.reason}, see SERVICE_EVENT_ERROR), so this may be the failed sync rather than a console edit`
            : '; CCM overwrites this at the next reconcile'),
        { figures: { ...figures, differences: drift, ccmSyncFailing: failing.length > 0 } },
      ),
    );
  },
});

/**
 * The NLB part: the servers of each server group of an NLB Service's NLB (found as CCM finds it) against what CCM's
 * nlb-controller builds for the Service (`expectedNlbServerGroups`), compared as CCM's `diff` does
 * (`diffNlbServerGroupServers`, pkg/controller/service/nlbv2/server_groups.go): servers by type and id, existence not
 * counts, servers another owner described left alone, port, weight (unless `ignoresWeightUpdate`) and description
 * rewritten. A port `vgroup-port` binds to a user group on a reused NLB is compared with that group, found by id
 * (`nlbVGroupPortBinding`); a CCM group none holds the name of yet is drift too (CCM creates it). Skipped naming the
 * `nlb` gap where the region's NLBs were not read, with CCM's message when the sync fails before any server group is
 * touched (a `vgroup-port` naming a missing or CCM-created group included), and when there is no NLB to compare.
 */
const nlbPart = nlbServicePart(clbPart, {
  applies: ({ service }) => !service.deletionTimestamp,
  check(se, out, r, ctx) {
    const { service } = se;
    const { cluster } = se.cluster;
    const ref = serviceRef(se);
    const read = nlbOfServiceOrSkip(se, ref, out, r, ctx);
    if (!read) return;
    const { found, view } = read;
    if (!found.nlb) {
      out.push(r.skipped(ref, `${ref.id} has no NLB to compare (see LB_NOT_FOUND_FOR_SERVICE, SERVICE_LB_PENDING)`));
      return;
    }
    const ignoreWeights = ignoresWeightUpdate(service, cluster.ccmVersion);
    // Most Cluster-mode Services match: proven without the model's servers, with the same result as below.
    if (ctx.fastPaths?.enabled !== false && nlbClusterModeMatch(se, ignoreWeights, view, ctx)) {
      if (ctx.fastPaths) ctx.fastPaths.taken++;
      out.push(nlbMatchPass(r, ref, found.nlb.loadBalancerId));
      return;
    }
    const sel = ctx.index.selectionOf(se);
    const model =
      'error' in sel
        ? sel
        : expectedNlbServerGroups({
            ...backendsInput(se, serviceTrafficPolicy(service, cluster).policy, ctx.index.eligibleNodesOf(se)!, ctx),
            serverGroupById: (id) => view.groupById.get(id),
          });
    if ('error' in model) {
      out.push(r.skipped(ref, ccmSyncFails(ref.id, model.error)));
      return;
    }
    const owner: VServerGroupOwner = { serviceName: service.name, namespace: service.namespace, clusterId: cluster.clusterId };
    const diffs: string[] = [];
    let toAdd = 0;
    let toRemove = 0;
    let toUpdate = 0;
    for (const g of model.groups) {
      const actual = g.userGroupId !== undefined ? view.groupById.get(g.userGroupId) : view.groupByName.get(g.name);
      if (!actual) {
        diffs.push(`server group ${g.name} missing (CCM creates it)`);
        toAdd += g.servers.length;
        continue;
      }
      const d = diffNlbServerGroupServers(g, actual.servers, owner, { ignoreWeightUpdate: ignoreWeights, maxSamples: 3 });
      toAdd += d.add;
      toRemove += d.remove;
      toUpdate += d.update;
      const parts: string[] = [];
      if (d.add) parts.push(`to add ${listSome(d.addSamples.map(nlbServerText), 3, d.add)}`);
      if (d.remove) parts.push(`to remove ${listSome(d.removeSamples.map(nlbServerText), 3, d.remove)}`);
      if (d.update)
        parts.push(
          `to rewrite ${listSome(d.updateSamples.map((u) => `${nlbServerText(u.actual)} ${u.fields.map((f) => nlbFieldChange(f, u)).join(', ')}`), 3, d.update)}`,
        );
      if (parts.length) diffs.push(`${actual.serverGroupId} (${actual.name}): ${parts.join('; ')}`);
    }
    const figures = { loadBalancerId: found.nlb.loadBalancerId, kind: 'NLB', serversToAdd: toAdd, serversToRemove: toRemove, serversToRewrite: toUpdate };
    if (diffs.length === 0) out.push(nlbMatchPass(r, ref, found.nlb.loadBalancerId));
    else out.push(r.fail(ref, `NLB ${found.nlb.loadBalancerId} of ${ref.id} differs from what CCM builds (the next sync overwrites it): ${listSome(diffs, 3)}`, { figures }));
  },
});

/** A server as the NLB part's messages name it: `<Type>:<id or Eni IP>:<port>@<weight>`. */
function nlbServerText(s: { type: string; serverId: string; serverIp?: string | undefined; port?: number | undefined; weight?: number | undefined }): string {
  return `${s.type}:${s.type === 'Eni' ? (s.serverIp ?? s.serverId) : s.serverId}:${s.port ?? 0}@${s.weight ?? 0}`;
}

/** One field CCM rewrites on a server, as `field actual->expected`. */
function nlbFieldChange(field: NlbServerUpdate['fields'][number], u: NlbServerUpdate): string {
  if (field === 'port') return `port ${u.actual.port ?? 0}->${u.expected.port}`;
  if (field === 'weight') return `weight ${u.actual.weight ?? 0}->${u.expected.weight}`;
  return `description "${u.actual.description ?? ''}"`;
}

/** The passing result of the NLB part: the server groups hold what CCM builds (nothing to add or remove). */
function nlbMatchPass(r: ResultFactory, ref: ResourceRef, loadBalancerId: string): CheckResult {
  const figures = { loadBalancerId, kind: 'NLB', serversToAdd: 0, serversToRemove: 0, serversToRewrite: 0 };
  return r.pass(ref, nlbMatchText, figures);
}

/**
 * The NLB part's common case, proven without building the expected servers: a Cluster-mode Service whose every server
 * group (`uniformNlbClusterServerGroups`) exists and holds exactly the Cluster-mode servers, in id order (as the
 * mappers sort them), each an `Ecs` server on the NodePort with the weight unless weights are ignored, described with
 * the group's name. Then the full comparison (`diffNlbServerGroupServers` on every group) finds nothing either. `false` whenever that is not proven. The groups
 * are not walked again: the region's NLB view recorded each group's shape in its own pass (`RegionNlbView.groupShapes`).
 *
 * @param view the NLB view of the Service's region (`undefined`: not read, nothing is proven)
 */
function nlbClusterModeMatch(
  se: ServiceEntry,
  ignoreWeights: boolean,
  view: RegionNlbView | undefined,
  ctx: CheckContext,
): boolean {
  const { service } = se;
  const { cluster } = se.cluster;
  if (!view) return false;
  const groupsByName = view.groupByName;
  const sel = ctx.index.selectionOf(se);
  if ('error' in sel) return false;
  const policy = serviceTrafficPolicy(service, cluster).policy;
  if (policy !== 'cluster') return false;
  const uniform = uniformNlbClusterServerGroups(backendsInput(se, policy, ctx.index.eligibleNodesOf(se)!, ctx), (e, v) => ctx.index.nlbClusterServerIds(e, v));
  if (!uniform) return false;
  const { ids } = uniform;
  for (const g of uniform.groups) {
    const group = groupsByName.get(g.name);
    if (!group || group.servers.length !== ids.length) return false;
    if (ids.length === 0) continue;
    // The group's shape from the view's pass (`RegionNlbView.groupShapes`), its sequence compared once per id list.
    const shape = view.groupShapes.get(group);
    if (!shape || !shape.uniform || shape.port !== g.port) return false;
    if (!ignoreWeights && shape.weight !== g.weight) return false;
    if (!sameServerIds(shape.sequence, ids)) return false;
  }
  return true;
}

/** A CCM-managed CLB or NLB whose listeners or backends differ from what its Service implies. */
export const lbConfigDriftRule = combinedCheck(clbPart, nlbPart);
