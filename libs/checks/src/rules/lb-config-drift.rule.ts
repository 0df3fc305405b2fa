import {
  ANNOTATION_BACKEND_TYPE,
  CCM_FEATURES,
  LB_ANNOTATION,
  TAG_CCM_OWNER,
  TAG_CLUSTER_ID,
  ccmManagesListeners,
  ccmHasFeature,
  ccmVersionAtLeast,
  diagnoseServiceEvents,
  diffVServerGroupBackends,
  expectedListeners,
  expectedVServerGroups,
  getLbAnnotation,
  needClb,
  nodeSelectionOptionsOf,
  parseCcmNamedKey,
  parseVGroupPort,
  reusedLoadBalancerId,
  serviceTrafficPolicy,
  type EligibleNodes,
  type Severity,
  type VServerGroup,
  type VServerGroupOwner,
} from '@app/domain';
import { scopedCheck } from '../check-scope';
import { DOC_URL, SEED } from '../doc-links.constants';
import { ccmSyncFails, count, listSome, notReadReason, serviceRef } from '../result.util';

const SEVERITY: Severity = 'warning';
const ID = 'LB_CONFIG_DRIFT';

const ECS_INDEX = new WeakMap<EligibleNodes, Map<string, number>>();

/**
 * ECS id -> position of the eligible nodes: in Cluster mode `expectedVServerGroups` lists them first and in
 * this order, so the index serves every Cluster-mode Service sharing the node set (memoised per set).
 */
function ecsIndexOf(eligible: EligibleNodes): Map<string, number> {
  let m = ECS_INDEX.get(eligible);
  if (!m) {
    const index = new Map<string, number>();
    eligible.nodes.forEach((n, i) => index.set(n.ecsInstanceId ?? '', i));
    ECS_INDEX.set(eligible, index);
    m = index;
  }
  return m;
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
export const lbConfigDriftRule = scopedCheck({
  id: ID,
  title: 'CCM-managed CLB differs from its Service: console edits CCM will overwrite',
  category: 'ownership',
  resourceKind: 'Service',
  defaultSeverity: SEVERITY,
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
  needs: ['kubernetes'],
  applies: ({ service }) => needClb(service) && !service.deletionTimestamp,
  check(se, out, r, ctx) {
    const { service } = se;
    const ref = serviceRef(se);
    const { account, region, cluster } = se.cluster;
    if (!region.loadBalancers) {
      out.push(
        r.skipped(
          ref,
          notReadReason(
            ctx.index,
            `CLB instances of ${region.regionId}`,
            'slb',
            account.accountId,
            region.regionId,
          ),
        ),
      );
      return;
    }
    const found = ctx.index.ccmFindClb(se);
    if (!found.entry) {
      out.push(
        r.skipped(ref, `${ref.id} has no CLB to compare (see LB_NOT_FOUND_FOR_SERVICE, SERVICE_LB_PENDING)`),
      );
      return;
    }
    const clb = found.entry.clb;
    const reused = reusedLoadBalancerId(service);
    if (reused && (clb.tags[TAG_CCM_OWNER] !== undefined || clb.tags[TAG_CLUSTER_ID] !== undefined)) {
      out.push(
        r.skipped(
          ref,
          `CCM refuses to reuse CLB ${clb.loadBalancerId} and changes nothing on it (see ${
            ctx.index.apiServerClusters.has(clb.loadBalancerId)
              ? 'LB_REUSE_OF_APISERVER'
              : 'LB_REUSE_OF_CCM_CREATED'
          })`,
        ),
      );
      return;
    }
    if (cluster.addons === undefined && (service.annotations[ANNOTATION_BACKEND_TYPE] ?? '') === '') {
      out.push(r.skipped(ref, `add-ons of cluster ${cluster.clusterId} were not read: backend mode unknown`));
      return;
    }
    const sel = nodeSelectionOptionsOf(service, cluster.ccmVersion);
    if ('error' in sel) {
      out.push(r.skipped(ref, ccmSyncFails(ref.id, sel.error)));
      return;
    }
    const policy = serviceTrafficPolicy(service, cluster).policy;
    const eligible = ctx.index.eligibleNodes(se.cluster, sel.options);
    const model = expectedVServerGroups({
      service,
      clusterId: cluster.clusterId,
      policy,
      eligible,
      endpointSlices: ctx.index.endpointSlicesOf(se.cluster, service.namespace, service.name),
      ...(cluster.ccmVersion !== undefined ? { ccmVersion: cluster.ccmVersion } : {}),
    });
    if ('error' in model) {
      out.push(r.skipped(ref, ccmSyncFails(ref.id, model.error)));
      return;
    }
    const vgp = reused
      ? parseVGroupPort(getLbAnnotation(service.annotations, LB_ANNOTATION.vgroupPort))
      : undefined;
    if (vgp && 'error' in vgp) {
      out.push(r.skipped(ref, ccmSyncFails(ref.id, `vgroupid parse error: ${vgp.error}`)));
      return;
    }
    const owner: VServerGroupOwner = {
      serviceName: service.name,
      namespace: service.namespace,
      clusterId: cluster.clusterId,
    };
    // CCM before v1.9.3.276 weighted Local-mode nodes differently (100 each, or 16/33/50 percentages; seeds
    // 000/001): the model's pod-count weights would be false drift there, so weights are not compared.
    const oldWeights =
      ccmVersionAtLeast(cluster.ccmVersion, CCM_FEATURES.podCountWeights.sinceVersion) === false;
    // `ignore-weight-update` is read from CCM v2.11.1 on (CCM_FEATURES.ignoreWeightUpdate), case-insensitively.
    const ignoreWeightUpdate =
      oldWeights ||
      ((getLbAnnotation(service.annotations, LB_ANNOTATION.ignoreWeightUpdate) ?? '').toLowerCase() ===
        'on' &&
        ccmHasFeature(cluster.ccmVersion, 'ignoreWeightUpdate'));
    const byName = ctx.index.vServerGroupsByName(clb);
    const drift: string[] = [];
    let add = 0;
    let remove = 0;
    let update = 0;
    let compared = 0;
    const samples: string[] = [];
    const missingGroups: string[] = [];
    // vgroup-port must name an existing user vServer group of the CLB; otherwise CCM fails the sync before it
    // changes any group (clbv1/vgroups.go buildVGroupForServicePort: "can not find vgroupId %s in lb %s",
    // "cannot reuse a ccm created vgroup %s for slb %s"; a CCM-named group is not user-managed).
    let vgroupPortError: string | undefined;
    for (const g of vgp ? model.groups : []) {
      const id = vgp!.byPort.get(String(g.servicePort.port));
      if (!id) continue;
      const bound = clb.vServerGroups.find((x) => x.vServerGroupId === id);
      if (!bound) vgroupPortError = `can not find vgroupId ${id} in lb ${clb.loadBalancerId}`;
      else if (parseCcmNamedKey(bound.name))
        vgroupPortError = `cannot reuse a ccm created vgroup ${id} for slb ${clb.loadBalancerId}`;
      if (vgroupPortError) break;
    }
    if (vgroupPortError) {
      out.push(r.skipped(ref, ccmSyncFails(ref.id, vgroupPortError)));
      return;
    }
    const groupIdByPort = new Map<number, string>();
    const expectedNames = new Set<string>();
    for (const g of model.groups) {
      expectedNames.add(g.name);
      const userGroupId = vgp?.byPort.get(String(g.servicePort.port));
      const remote: VServerGroup | undefined = userGroupId
        ? clb.vServerGroups.find((x) => x.vServerGroupId === userGroupId)
        : byName.get(g.name);
      if (!remote) {
        missingGroups.push(userGroupId ?? g.name);
        continue;
      }
      groupIdByPort.set(g.servicePort.port, remote.vServerGroupId);
      compared += remote.backendServers.length;
      const d = diffVServerGroupBackends(g, remote.backendServers, owner, {
        ignoreWeightUpdate,
        maxSamples: 2,
        // Cluster mode lists the eligible nodes first, in order: one shared index per node set.
        ...(policy === 'cluster' ? { ecsIndex: ecsIndexOf(eligible) } : {}),
      });
      add += d.add;
      remove += d.remove;
      update += d.update;
      if (samples.length < 4) {
        for (const b of d.addSamples)
          samples.push(`+${b.serverIp && b.type === 'eni' ? b.serverIp : b.serverId}:${b.port}`);
        for (const b of d.removeSamples) samples.push(`-${b.serverId}:${b.port ?? ''}`);
        for (const u of d.updateSamples)
          samples.push(
            `~${u.actual.serverId} ${u.fields.includes('weight') ? `weight ${u.actual.weight}->${u.expected.weight}` : 'description'}`,
          );
      }
    }
    if (missingGroups.length)
      drift.push(`${count(missingGroups.length, 'vServer group')} missing (${listSome(missingGroups, 2)})`);
    if (add) drift.push(`${count(add, 'backend')} to add`);
    if (remove) drift.push(`${count(remove, 'backend')} to remove`);
    if (update) drift.push(`${count(update, 'backend')} to rewrite (weight or description)`);
    const staleGroups = clb.vServerGroups
      .filter((g) => !expectedNames.has(g.name))
      .filter((g) => {
        const k = parseCcmNamedKey(g.name);
        return (
          k !== undefined &&
          k.serviceName === owner.serviceName &&
          k.namespace === owner.namespace &&
          k.clusterId === owner.clusterId
        );
      })
      .map((g) => g.name);
    if (staleGroups.length)
      drift.push(
        `${count(staleGroups.length, 'stale vServer group')} to delete (${listSome(staleGroups, 2)})`,
      );

    let listenerNote = '';
    if (ccmManagesListeners(service)) {
      const exp = expectedListeners(service, cluster.clusterId);
      if ('error' in exp) listenerNote = `listeners not compared: ${exp.error}`;
      else {
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
          .filter((x) => !wanted.has(`${x.protocol}/${x.port}`))
          .filter((x) => {
            const k = parseCcmNamedKey(x.description);
            return (
              k !== undefined &&
              k.serviceName === owner.serviceName &&
              k.namespace === owner.namespace &&
              k.clusterId === owner.clusterId
            );
          })
          .map((x) => `${x.protocol}/${x.port}`);
        if (missing.length) drift.push(`listener ${listSome(missing, 3)} missing`);
        if (changed.length) drift.push(`listener ${listSome(changed, 3)}`);
        if (misrouted.length)
          drift.push(`listener ${listSome(misrouted, 2)} forwards to another vServer group`);
        if (extra.length) drift.push(`listener ${listSome(extra, 3)} to delete`);
      }
    }
    const wantedName = getLbAnnotation(service.annotations, LB_ANNOTATION.name);
    if (wantedName && wantedName !== clb.name) drift.push(`name "${clb.name}" -> "${wantedName}"`);
    const wantedSpec = getLbAnnotation(service.annotations, LB_ANNOTATION.spec);
    const payBySpec =
      clb.instanceChargeType === 'PayBySpec' || (clb.instanceChargeType === undefined && !!clb.spec);
    if (wantedSpec && payBySpec && wantedSpec !== clb.spec)
      drift.push(`spec ${clb.spec ?? 'none'} -> ${wantedSpec}`);

    const figures = {
      loadBalancerId: clb.loadBalancerId,
      mode: policy,
      vServerGroups: model.groups.length,
      backendsCompared: compared,
      backendsToAdd: add,
      backendsToRemove: remove,
      backendsToRewrite: update,
      ...(listenerNote ? { note: listenerNote } : {}),
      ...(oldWeights ? { weightsCompared: false } : {}),
    };
    if (drift.length === 0) {
      out.push(
        r.pass(
          ref,
          `CLB ${clb.loadBalancerId} of ${ref.id} matches what CCM would set (${count(model.groups.length, 'vServer group')}, ` +
            `${count(compared, 'backend')})${listenerNote ? `; ${listenerNote}` : ''}`,
          figures,
        ),
      );
      return;
    }
    // When CCM's syncs of this Service currently fail, the difference is more likely the failed sync than a
    // console edit: say so (SERVICE_EVENT_ERROR reports the error itself).
    const failing = diagnoseServiceEvents(
      ctx.index.eventsOfService(se.cluster, service.namespace, service.name),
    ).current;
    out.push(
      r.fail(
        ref,
        `CLB ${clb.loadBalancerId} of ${ref.id} differs from what CCM would set: ${drift.join('; ')}` +
          `${samples.length ? ` (e.g. ${samples.slice(0, 4).join(', ')})` : ''}` +
          (failing.length
            ? `; CCM's syncs of this Service currently fail (${failing[0]!.event.reason}, see SERVICE_EVENT_ERROR), so this may be the failed sync rather than a console edit`
            : '; CCM overwrites this at the next reconcile'),
        { figures: { ...figures, differences: drift, ccmSyncFailing: failing.length > 0 } },
      ),
    );
  },
});
