import {
  ANNOTATION_BACKEND_TYPE,
  SLB_QUOTA_BACKEND_ATTACHED,
  SLB_QUOTA_BACKEND_SERVERS,
  backendNodeExclusion,
  backendSyncError,
  readyEndpointsByNode,
  serviceTrafficPolicy,
  NLB_QUOTA_SERVER_ADDED,
  NLB_QUOTA_SERVER_GROUP_SERVERS,
  type CheckResult,
  type EligibleNodes,
  type NodeSelectionOptions,
  type ResourceRef,
  type TrafficPolicy,
} from '@app/domain';
import { combinedCheck, nlbServicePart, scopedCheck } from '../check-scope';
import type { ResultSink } from '../check.types';
import { nlbNotReadReason, regionNlbView, serverKey, type RegionNlbView } from '../nlb-index';
import { DOC_URL, SEED } from '../doc-links.constants';
import { maxCountOutside, type FleetIndex, type NodeRanking, type ServiceEntry } from '../fleet-index';
import { ccmSyncFails, count, pct, serviceRef, type ResultFactory } from '../result.util';

/**
 * A CLB Service in Cluster mode attaches every eligible node on each NodePort (seed 004: "Cluster mode
 * ... CCM attaches all nodes to the SLB backend"), where Local mode would attach only the nodes running
 * its ready endpoints. Measures attached = eligible nodes x ports vs Local = nodes with ready endpoints x
 * ports, the blowup factor attached / Local, and the quota it burns. Fails when the factor >=
 * `clusterModeBlowup.minFactor` and the extra entries >= the floor, or, whatever the factor and floor, when
 * the blowup helps push a quota to warning: the Service has extra entries and its CLB's backend entries, or
 * the attachments of a node it attaches only because of Cluster mode, are at or above `quota.warningRatio`.
 * Critical when that burn (CLB ratio, or the busiest eligible node's attachment ratio) is at or above
 * `quota.criticalRatio`. Services in Local or ENI mode pass (they attach only where the pods are).
 *
 * The floor scales with the quota in play: `clusterModeBlowup.minExtraBackends` x the
 * smallest of 1, CLB backend-server quota / its default 200 and ECS attachment quota / its default 50
 * (`SLB_QUOTA_BACKEND_SERVERS`, `SLB_QUOTA_BACKEND_ATTACHED`: seed 004 quota limits), rounded up, at least 1.
 * At the default quotas the floor is the configured one; on a small cluster whose attachment quota was
 * lowered to 5 it is 1, so the burnt attachments are named.
 *
 * Node eligibility and modes: CCM backend.go / vgroups.go via `@app/domain` (`eligibleBackendNodes`,
 * `serviceTrafficPolicy`).
 */
const clbPart = scopedCheck({
  id: 'CLUSTER_MODE_BLOWUP',
  title: 'Cluster-mode Service attaches every node where Local mode would attach a few',
  category: 'quota',
  resourceKind: 'Service',
  defaultSeverity: 'warning',
  description:
    'For each CLB Service with ECS backends in Cluster mode (externalTrafficPolicy: Cluster on Flannel, or ' +
    'backend-type ecs), compares the backends CCM attaches (every eligible node, per port) with what Local mode ' +
    'would attach (the nodes running its ready pods). The difference burns the per-CLB backend quota and the ' +
    'per-ECS attachment quota for nothing.',
  remediation:
    "Set externalTrafficPolicy: Local (CCM then adds only the nodes where the Service's pods run, reducing quota " +
    'consumption and keeping the client source IP), or keep Cluster mode and restrict the nodes with the ' +
    'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-backend-label annotation. On Terway, ENI mode ' +
    `(service.beta.kubernetes.io/backend-type: eni) attaches pods directly. ${DOC_URL.lbConsiderations}`,
  source:
    `${SEED.lbConsiderations} "Load balancing update policies" (Cluster mode attaches all nodes; Local mode only ` +
    `nodes with pods); ${SEED.troubleshooting} first error row (Local mode / backend-label to reduce backend ` +
    'consumption); CCM pkg/controller/service/clbv1/vgroups.go buildClusterBackends / buildLocalBackends, ' +
    'pkg/controller/service/reconcile/backend/backend.go',
  settings: [
    'clusterModeBlowup.minFactor',
    'clusterModeBlowup.minExtraBackends',
    'quota.warningRatio',
    'quota.criticalRatio',
  ],
  scope: 'service',
  needs: ['kubernetes'],
  applies: (se) => se.needClb,
  check(se, out, r, ctx) {
    const { service, cluster: ce } = se;
    const { cluster } = ce;
    const { minFactor, minExtraBackends } = ctx.settings.clusterModeBlowup;
    const { warningRatio, criticalRatio } = ctx.settings.quota;
    const backendLimit = ctx.index.quota(ce.region, SLB_QUOTA_BACKEND_SERVERS).limit;
    const attachLimit = ctx.index.quota(ce.region, SLB_QUOTA_BACKEND_ATTACHED).limit;
    const ref = serviceRef(se);
    const sel = clusterModeSelection(se, ref, out, r, ctx.index, (policy) =>
      r.pass(ref, `${ref.id} uses ${policy === 'eni' ? 'ENI' : 'Local'} mode: only pods or nodes with pods are attached`, { mode: policy }),
    );
    if (!sel) return;
    const { ports } = sel;
    if (ports === 0) {
      out.push(
        r.pass(ref, `${ref.id} has no NodePorts: no ECS backends are attached`, {
          mode: 'cluster',
          ports: 0,
        }),
      );
      return;
    }
    const eligible = ctx.index.eligibleNodesOf(se)!;
    const slices = ctx.index.slicesOf(se);
    // CCM fails the sync before attaching anything (invalid weight annotations, a node whose providerID does
    // not parse, an endpoint without nodeName): no blowup is predicted (CCM vgroups.go buildVGroupForServicePort).
    const syncError = backendSyncError({
      service,
      policy: 'cluster',
      eligible,
      endpointSlices: slices,
      ...(cluster.ccmVersion !== undefined ? { ccmVersion: cluster.ccmVersion } : {}),
      atLeast: ctx.index.ccmAtLeast,
    });
    if (syncError) {
      out.push(r.skipped(ref, ccmSyncFails(ref.id, syncError)));
      return;
    }
    const eligibleNodes = eligible.nodes.length;
    let localNodes = 0;
    const localNames = new Set<string>();
    for (const nodeName of readyEndpointsByNode(slices).keys()) {
      const node = eligible.candidatesByName.get(nodeName);
      if (
        node &&
        node.labels['type'] !== 'virtual-kubelet' &&
        !backendNodeExclusion(node, sel.options) &&
        node.ecsInstanceId
      ) {
        localNodes++;
        localNames.add(node.name);
      }
    }
    const attached = eligibleNodes * ports;
    const localWould = localNodes * ports;
    const extra = attached - localWould;
    const factor = eligibleNodes / Math.max(localNodes, 1);

    // Quota burn: the Service's CLB (all its entries) and the busiest attached node.
    const clbEntry = ctx.index.attributedClbOf(se);
    const clb = clbEntry?.clb;
    const clbEntries = clbEntry
      ? ctx.index.clbBackendStats(clbEntry.region).get(clbEntry.clb.loadBalancerId)?.entries
      : undefined;
    const clbRatio = (clbEntries ?? attached) / backendLimit;
    const maxAttach = ctx.index.busiestAttachment(ce, eligible);
    const attachRatio = maxAttach / attachLimit;
    const burn = Math.max(clbRatio, attachRatio);
    // Attachments burnt only because of Cluster mode: eligible nodes without ready pods of this Service.
    const maxExtraAttach = extra > 0 ? maxCountOutside(ctx.index.attachmentRanking(ce, eligible), localNames) : 0;
    const extraAttachRatio = maxExtraAttach / attachLimit;
    // The configured floor holds at the default quotas and shrinks with the smaller limit's share of its default.
    const quotaScale = Math.min(
      1,
      backendLimit / SLB_QUOTA_BACKEND_SERVERS.defaultValue,
      attachLimit / SLB_QUOTA_BACKEND_ATTACHED.defaultValue,
    );
    const floor = minExtraBackends === 0 ? 0 : Math.max(1, Math.ceil(minExtraBackends * quotaScale));
    const pushesQuota = extra > 0 && (clbRatio >= warningRatio || extraAttachRatio >= warningRatio);
    const figures = {
      used: attached,
      limit: backendLimit,
      ratio: clbRatio,
      mode: 'cluster',
      ports,
      eligibleNodes,
      localNodes,
      localModeBackends: localWould,
      extraBackends: extra,
      blowupFactor: Math.round(factor * 100) / 100,
      maxNodeAttachmentRatio: attachRatio,
      maxExtraNodeAttachmentRatio: extraAttachRatio,
      minExtraBackends: floor,
      ...(clb ? { loadBalancerId: clb.loadBalancerId } : {}),
    };
    const text =
      `${ref.id} in Cluster mode attaches ${count(attached, 'backend')} (${count(eligibleNodes, 'eligible node')} x ${count(ports, 'port')}) where ` +
      `Local mode would attach ${localWould} (${count(localNodes, 'node')} with ready pods): ${extra} extra, factor ` +
      `${figures.blowupFactor}; ${clb ? `CLB ${clb.loadBalancerId} at ${pct(clbRatio)}` : `${pct(clbRatio)}`} of the backend quota ` +
      `${backendLimit}, busiest node at ${pct(attachRatio)} of the attachment quota ${attachLimit}`;
    if ((factor >= minFactor && extra >= floor) || pushesQuota) {
      const pushed: string[] = [];
      if (pushesQuota && clbRatio >= warningRatio) pushed.push(`the CLB backend quota (${pct(clbRatio)})`);
      if (pushesQuota && extraAttachRatio >= warningRatio)
        pushed.push(
          `the ECS attachment quota of a node attached only by Cluster mode (${maxExtraAttach}/${attachLimit}, ${pct(extraAttachRatio)})`,
        );
      const why = pushed.length > 0 ? `; the extra entries count toward ${pushed.join(' and ')}` : '';
      out.push(
        r.fail(ref, text + why, {
          severity: burn >= criticalRatio ? 'critical' : r.defaultSeverity,
          figures,
        }),
      );
    } else {
      out.push(r.pass(ref, text, figures));
    }
  },
});

/**
 * The NLB part: an NLB Service in Cluster mode puts every eligible node in the server group of each port
 * (research/nlb.md 4 (d), (e)), where Local mode would put the nodes running its ready pods. Same measure and
 * thresholds as the CLB part; the quota it burns is `nlb_quota_server_added_num` (every node in one more server
 * group per port) and the per-group `nlb_quota_servergroup_noeci_servers_num`. Critical / warning when the busiest
 * node it adds only because of Cluster mode is in server groups at the quota ratios. Skipped naming the `nlb` gap
 * where the region's NLBs were not read (the burn is unknown).
 */
const nlbPart = nlbServicePart(clbPart, {
  check(se, out, r, ctx) {
    const { cluster: ce } = se;
    const ref = serviceRef(se);
    const view = regionNlbView(ctx.index, ce.region);
    if (!view) {
      out.push(r.skipped(ref, nlbNotReadReason(ctx.index, ce.account, ce.region)));
      return;
    }
    const sel = clusterModeSelection(se, ref, out, r, ctx.index, (policy) =>
      r.pass(ref, `${ref.id} (NLB) uses ${policy === 'eni' ? 'ENI' : 'Local'} mode: only pods or nodes with pods are servers`, { mode: policy, kind: 'NLB' }),
    );
    if (!sel) return;
    const { ports } = sel;
    const eligible = ctx.index.eligibleNodesOf(se)!;
    const slices = ctx.index.slicesOf(se);
    const localNames = new Set<string>();
    for (const nodeName of readyEndpointsByNode(slices).keys()) {
      const node = eligible.candidatesByName.get(nodeName);
      if (node && node.labels['type'] !== 'virtual-kubelet' && !backendNodeExclusion(node, sel.options) && node.ecsInstanceId) localNames.add(node.name);
    }
    const eligibleNodes = eligible.nodes.length;
    const attached = eligibleNodes * ports;
    const localWould = localNames.size * ports;
    const extra = attached - localWould;
    const factor = eligibleNodes / Math.max(localNames.size, 1);
    const addedLimit = ctx.index.quota(ce.region, NLB_QUOTA_SERVER_ADDED).limit;
    const groupLimit = ctx.index.quota(ce.region, NLB_QUOTA_SERVER_GROUP_SERVERS).limit;
    const maxExtraAdded = maxCountOutside(nlbGroupRanking(ctx.index, view, eligible), localNames);
    const addedRatio = maxExtraAdded / addedLimit;
    const groupRatio = eligibleNodes / groupLimit;
    const { minFactor, minExtraBackends } = ctx.settings.clusterModeBlowup;
    const { warningRatio, criticalRatio } = ctx.settings.quota;
    const quotaScale = Math.min(1, addedLimit / NLB_QUOTA_SERVER_ADDED.defaultValue, groupLimit / NLB_QUOTA_SERVER_GROUP_SERVERS.defaultValue);
    const floor = minExtraBackends === 0 ? 0 : Math.max(1, Math.ceil(minExtraBackends * quotaScale));
    const burn = Math.max(addedRatio, groupRatio);
    const figures = {
      used: maxExtraAdded,
      limit: addedLimit,
      ratio: addedRatio,
      kind: 'NLB',
      mode: 'cluster',
      ports,
      eligibleNodes,
      localNodes: localNames.size,
      localModeBackends: localWould,
      extraBackends: extra,
      blowupFactor: Math.round(factor * 10) / 10,
    };
    const text =
      `${ref.id} (NLB, Cluster mode) puts ${count(eligibleNodes, 'node')} x ${count(ports, 'port')} = ${count(attached, 'server entry', 'server entries')} ` +
      `in its server groups where Local mode would put ${localWould} (${figures.blowupFactor}x); the busiest node it adds only for Cluster mode is in ` +
      `${count(maxExtraAdded, 'server group')}: ${pct(addedRatio)} of nlb_quota_server_added_num ${addedLimit}`;
    const fails = extra > 0 && ((factor >= minFactor && extra >= floor) || burn >= warningRatio);
    if (!fails) out.push(r.pass(ref, text, figures));
    else out.push(r.fail(ref, text, { severity: burn >= criticalRatio ? 'critical' : r.defaultSeverity, figures }));
  },
});

/**
 * The preamble of both parts: a Service whose backend mode is unknown (no `backend-type` annotation and the
 * cluster's add-ons, hence its network plugin, not read) is skipped; one in Local or ENI mode passes (`modePass`
 * words the result); one whose node selection annotations CCM rejects is skipped (the sync fails).
 * @returns the node selection options and the Service's NodePort count, or `undefined` when a result was pushed
 */
function clusterModeSelection(
  se: ServiceEntry,
  ref: ResourceRef,
  out: ResultSink,
  r: ResultFactory,
  index: FleetIndex,
  modePass: (policy: Exclude<TrafficPolicy, 'cluster'>) => CheckResult,
): { options: NodeSelectionOptions; ports: number } | undefined {
  const { service } = se;
  const { cluster } = se.cluster;
  if (cluster.addons === undefined && (service.annotations[ANNOTATION_BACKEND_TYPE] ?? '') === '') {
    out.push(r.skipped(ref, `add-ons of cluster ${cluster.clusterId} were not read: network plugin (default backend type) unknown`));
    return undefined;
  }
  const mode = serviceTrafficPolicy(service, cluster);
  if (mode.policy !== 'cluster') {
    out.push(modePass(mode.policy));
    return undefined;
  }
  const sel = index.selectionOf(se);
  if ('error' in sel) {
    out.push(r.skipped(ref, ccmSyncFails(ref.id, sel.error)));
    return undefined;
  }
  return { options: sel.options, ports: service.ports.filter((p) => p.nodePort !== undefined).length };
}

/**
 * The nodes of an eligible set with how many NLB server groups of the region each is in as an `Ecs` server, most
 * first; memoised per node set by the index (`FleetIndex.nlbGroupRanking`: the set belongs to one cluster, hence one
 * region view).
 */
function nlbGroupRanking(index: FleetIndex, view: RegionNlbView, eligible: EligibleNodes): NodeRanking {
  return index.nlbGroupRanking(eligible, (n) => view.groupsByServer.get(serverKey({ type: 'Ecs', serverId: n.ecsInstanceId ?? '' }))?.groups ?? 0);
}

/** A Cluster-mode CLB or NLB Service attaches every node where Local mode would attach a few. */
export const clusterModeBlowupRule = combinedCheck(clbPart, nlbPart);
