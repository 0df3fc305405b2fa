/**
 * Which servers CCM puts in the server groups of an NLB Service (research/nlb.md 4; CCM
 * pkg/controller/service/nlbv2/server_groups.go `BuildLocalModel`, `setServerGroupServers`, `buildClusterBackends`,
 * `buildLocalBackends`, `buildENIBackends`, `setWeightBackends`, `removeDuplicatedECS`, `updateENIBackends`).
 *
 * Shared with the CLB model (backends.model.ts): node selection (`eligibleBackendNodes`), ready endpoints
 * (`readyEndpoints`), the backend mode (`serviceTrafficPolicy`), the weight algorithms (`applyCcmWeights`) and the
 * Local-mode deduplication by CCM version (`localEniHandling`, `dedupeByServer`). What differs: one server group
 * per listener (Service port and protocol), named with dots; the server-group type (`Instance`: `Ecs` / `Eni`
 * servers, `Ip`: node or pod IPs); the `weight` annotation only on a reused NLB with `vgroup-port`, and its own
 * error texts; in Local mode non-ECS weights keep the floor of 1.
 */
import type { K8sService } from '../snapshot.types';
import { DEFAULT_SERVER_WEIGHT, LB_ANNOTATION } from './ccm.constants';
import { getLbAnnotation } from './annotations.model';
import {
  applyCcmWeights,
  backendNodeExclusion,
  ccmHasFeature,
  ccmPortServers,
  dedupeByServer,
  isVirtualKubelet,
  localEniHandling,
  type CcmPortServer,
  type CcmServerShape,
  type EligibleNodes,
  type ExpectedBackendsInput,
} from './backends.model';
import { reusedLoadBalancerId } from './service.model';
import { nlbServerGroupName, parseNlbNamedKey } from './nlb-naming.model';
import { NLB_ANNOTATION, expectedNlbListeners, type ExpectedNlbListener } from './nlb-service.model';

/** NLB server group type: `Instance` (default; ECS and ENI servers) or `Ip` (node and pod IPs). */
export type NlbServerGroupType = 'Instance' | 'Ip';

/**
 * The server-group type a Service asks for (`server-group-type`, case-insensitive; default `Instance`), as
 * `setServerGroupAttributeFromAnno` reads it. Another value fails the sync with "unsupport server ServerGroupType
 * []" (CCM prints the field before it is set).
 */
export function nlbServerGroupType(svc: Pick<K8sService, 'annotations'>): { type: NlbServerGroupType } | { error: string } {
  const v = getLbAnnotation(svc.annotations, NLB_ANNOTATION.serverGroupType) ?? '';
  if (v === '' || v.toLowerCase() === 'instance') return { type: 'Instance' };
  if (v.toLowerCase() === 'ip') return { type: 'Ip' };
  return { error: 'unsupport server ServerGroupType []' };
}

/** NLB weight settings of a Service, as CCM reads them for its server groups. */
export interface NlbWeightSettings {
  /** `weight` (reused NLB with `vgroup-port` only), spread over the servers (`podPercentAlgorithm`). */
  weight?: number;
  /** `default-weight` (CCM v2.14.0, `CCM_FEATURES.defaultWeight`), else 100. */
  defaultWeight: number;
}

/**
 * Reads `default-weight` (`setServerGroupAttributeFromAnno`; server_groups_test.go
 * TestSetServerGroupAttributeFromAnno_*: "abc" -> "default weight parse error", "200" / "-5" -> "default weight must
 * be integer in range [0,100]") and, on a reused NLB with `vgroup-port`, `weight` (`nlbVGroupWeight`).
 * @param ccmVersion the cluster's CCM version; `default-weight` is read from v2.14.0; unknown = the current CCM
 * @returns the settings, or `{ error }` with CCM's message when the sync fails
 */
export function nlbWeightSettings(svc: Pick<K8sService, 'annotations'>, ccmVersion?: string): NlbWeightSettings | { error: string } {
  const out = nlbDefaultWeight(svc, ccmVersion);
  if ('error' in out) return out;
  const w = nlbVGroupWeight(svc);
  if (w !== undefined && typeof w !== 'number') return w;
  return w === undefined ? out : { ...out, weight: w };
}

/**
 * `default-weight` as `setServerGroupAttributeFromAnno` reads it (from CCM v2.14.0, `CCM_FEATURES.defaultWeight`),
 * else 100 (`DefaultServerWeight`).
 * @returns the settings without `weight`, or `{ error }` with CCM's message
 */
export function nlbDefaultWeight(svc: Pick<K8sService, 'annotations'>, ccmVersion?: string): NlbWeightSettings | { error: string } {
  const out: NlbWeightSettings = { defaultWeight: DEFAULT_SERVER_WEIGHT };
  if (ccmHasFeature(ccmVersion, 'defaultWeight')) {
    const text = getLbAnnotation(svc.annotations, LB_ANNOTATION.defaultWeight) ?? '';
    if (text !== '') {
      if (!/^[+-]?\d+$/.test(text)) return { error: `default weight parse error: [strconv.Atoi: parsing "${text}": invalid syntax]` };
      const w = Number(text);
      if (w < 0 || w > 100) return { error: `default weight must be integer in range [0,100] , got [${text}]` };
      out.defaultWeight = w;
    }
  }
  return out;
}

/**
 * The `weight` annotation of a reused NLB with `vgroup-port` (`setServerGroupServers`, read after the server group
 * is bound: "weight must be integer in range [0, 100], got [x]"); `undefined` when it does not apply or is empty.
 */
export function nlbVGroupWeight(svc: Pick<K8sService, 'annotations'>): number | { error: string } | undefined {
  if (!reusedLoadBalancerId(svc) || !getLbAnnotation(svc.annotations, LB_ANNOTATION.vgroupPort)) return undefined;
  const text = getLbAnnotation(svc.annotations, LB_ANNOTATION.weight) ?? '';
  if (text === '') return undefined;
  const w = /^[+-]?\d+$/.test(text) ? Number(text) : NaN;
  if (!(w >= 0 && w <= 100)) return { error: `weight must be integer in range [0, 100], got [${text}]` };
  return w;
}

/** What `nlbVGroupPortBinding` needs to know of a server group named by `vgroup-port`: its name. */
export interface NlbServerGroupLookup {
  (serverGroupId: string): { name: string } | undefined;
}

/**
 * The user server group `vgroup-port` binds a Service port to on a reused NLB (`setServerGroupServers`, listeners.go
 * `serverGroup`): the annotation's `sgp-id:port` items are read in order until the one naming the port; an item
 * without a colon before it fails the sync ("server group id parse error: server group id and protocol format must
 * be like 'sg-xxx:443' with colon separated. got=[...]"). With `lookup` (the region's server groups by id), a
 * group that does not exist fails the sync ("cannot find server group id X for nlb Y"), and so does a group whose
 * name is a CCM name (`LoadNLBSGNamedKey` parses it: "cannot reuse a ccm created server group X for nlb Y").
 *
 * @returns `{ id }` (absent: CCM builds its own `k8s.…` group for the port), or `{ error }`
 */
export function nlbVGroupPortBinding(
  svc: Pick<K8sService, 'annotations'>,
  servicePort: number,
  lookup?: NlbServerGroupLookup,
): { id?: string } | { error: string } {
  const lbId = reusedLoadBalancerId(svc);
  const text = getLbAnnotation(svc.annotations, LB_ANNOTATION.vgroupPort) ?? '';
  if (!lbId || text === '') return {};
  let id: string | undefined;
  for (const item of text.split(',')) {
    const pp = item.split(':');
    if (pp.length < 2)
      return {
        error: `server group id parse error: server group id and protocol format must be like 'sg-xxx:443' with colon separated. got=[[${pp.join(' ')}]]`,
      };
    if (pp[1] === String(servicePort)) {
      id = pp[0]!;
      break;
    }
  }
  if (id === undefined || id === '') return {};
  if (lookup) {
    const group = lookup(id);
    if (!group) return { error: `cannot find server group id ${id} for nlb ${lbId}` };
    if (parseNlbNamedKey(group.name)) return { error: `cannot reuse a ccm created server group ${id} for nlb ${lbId}` };
  }
  return { id };
}

/** A server CCM would put in an NLB server group. */
export interface ExpectedNlbServer {
  /** ECS id (`Ecs`), the pod IP for an `Eni` server (CCM resolves it to the ENI id), or the IP (`Ip`). */
  serverId: string;
  /** The pod IP (`Eni`) or the IP (`Ip`); absent for `Ecs`. */
  serverIp?: string;
  type: 'Ecs' | 'Eni' | 'Ip';
  /** NodePort (`Ecs`, and `Ip` of a node), targetPort (pods), 0 on an any-port group. */
  port: number;
  weight: number;
  nodeName?: string;
}

/** The server group CCM builds for one listener. */
export interface ExpectedNlbServerGroup {
  /** `k8s.{port}.{proto}.{svc}.{ns}.{clusterId}`: the group's name, and the description of its servers. */
  name: string;
  /**
   * The user server group `vgroup-port` binds the port to on a reused NLB (`nlbVGroupPortBinding`): CCM keeps its
   * servers in sync and creates no `k8s.…` group for the port. Absent: CCM's own group, found by `name`.
   */
  userGroupId?: string;
  type: NlbServerGroupType;
  listener: ExpectedNlbListener;
  servers: ExpectedNlbServer[];
}

/**
 * Inputs of `expectedNlbServerGroups`: those of the CLB builder `expectedVServerGroups` (the Service, its cluster,
 * traffic policy, eligible nodes, EndpointSlices and CCM version), and optionally the region's server groups by id,
 * so that a `vgroup-port` naming a missing or CCM-created group fails as CCM's sync does (`nlbVGroupPortBinding`).
 */
export type ExpectedNlbInput = ExpectedBackendsInput & { serverGroupById?: NlbServerGroupLookup };

/** The NLB shape of a server group of `type` (`Ip`: node and pod IPs; `Instance`: `Ecs` and `Eni`). */
function nlbServerShape(type: NlbServerGroupType, anyPort: boolean): CcmServerShape {
  return { node: type === 'Ip' ? 'ip' : 'ecs', pod: type === 'Ip' ? 'ip' : 'eni', anyPort, nodeNameNilTrailer: ' ' };
}

const TYPE: Readonly<Record<CcmPortServer['type'], ExpectedNlbServer['type']>> = { ecs: 'Ecs', eni: 'Eni', ip: 'Ip' };

/**
 * The server groups CCM would build for an NLB Service, one per listener, with their servers:
 * - Cluster: every candidate, not excluded, non-virtual-kubelet node (an `Ecs` server on the NodePort, or its
 *   InternalIP as `Ip` in an `Ip` group), plus ready pods on virtual-kubelet nodes (`Eni`, or `Ip`);
 * - Local: the nodes hosting ready endpoints (`Ecs` deduplicated, weight = pods on the node; in an `Ip` group the
 *   node IP once per pod from v2.12.4, which does not deduplicate `Ip` entries), virtual-kubelet pods as `Eni`;
 * - ENI: every ready pod IP on the targetPort (`Eni`, or `Ip` in an `Ip` group); port 0 on an any-port group.
 * Weights per `applyCcmWeights` (NLB: non-ECS Local weights keep the floor of 1).
 *
 * @returns the groups, or `{ error }` with CCM's message when the sync fails (listener build, server-group type,
 *   weights, a node without providerID or InternalIP, an endpoint without nodeName)
 */
export function expectedNlbServerGroups(input: ExpectedNlbInput): { groups: ExpectedNlbServerGroup[] } | { error: string } {
  const { service, clusterId, policy } = input;
  const listeners = expectedNlbListeners(service, clusterId, policy);
  if ('error' in listeners) return listeners;
  const sgType = nlbServerGroupType(service);
  if ('error' in sgType) return sgType;
  const weights = nlbDefaultWeight(service, input.ccmVersion);
  if ('error' in weights) return weights;
  const vgroupWeight = nlbVGroupWeight(service);
  if (typeof vgroupWeight === 'number') weights.weight = vgroupWeight;
  const localEni = localEniHandling(input.ccmVersion, input.atLeast);
  const groups: ExpectedNlbServerGroup[] = [];
  for (const l of listeners.listeners) {
    const sp = l.servicePort;
    const anyPort = l.port === 0;
    const namePort = anyPort ? `${l.startPort}_${l.endPort}` : policy === 'eni' ? (sp.targetPort ?? sp.port) : (sp.nodePort ?? 0);
    const name = nlbServerGroupName(namePort, l.protocol, service.name, service.namespace, clusterId);
    const wrap = (mode: string, e: string) => ({ error: `set ServerGroup for port ${sp.port} error: build ${mode} backends error: ${e}` });
    // setServerGroupServers binds the user's group, then reads `weight`, before it builds any server.
    const binding = nlbVGroupPortBinding(service, sp.port, input.serverGroupById);
    if ('error' in binding) return { error: `set ServerGroup for port ${sp.port} error: ${binding.error}` };
    if (vgroupWeight !== undefined && typeof vgroupWeight !== 'number')
      return { error: `set ServerGroup for port ${sp.port} error: ${vgroupWeight.error}` };
    const built = ccmPortServers(input, sp, nlbServerShape(sgType.type, anyPort));
    if ('error' in built) return wrap(built.mode, built.error);
    let servers = built.servers;
    applyCcmWeights(policy, servers, weights.weight, weights.defaultWeight, localEni, true);
    if (policy === 'local') servers = dedupeByServer(servers, localEni);
    // Each working entry becomes the expected server in place: its keys are already those of `ExpectedNlbServer`, in
    // the same order (serverId, serverIp when set, type, port, weight, nodeName when set); only the type's case
    // changes. The entries are this call's own (`dedupeByServer` keeps the same objects).
    for (const s of servers) (s as unknown as ExpectedNlbServer).type = TYPE[s.type];
    groups.push({
      name,
      ...(binding.id !== undefined ? { userGroupId: binding.id } : {}),
      type: sgType.type,
      listener: l,
      servers: servers as unknown as ExpectedNlbServer[],
    });
  }
  return { groups };
}

/**
 * The servers CCM's Cluster mode puts in each `Ecs` server group of an NLB Service when their shape is certain: every
 * candidate node that is not virtual-kubelet nor excluded (`backendNodeExclusion`), as an `Ecs` server on the
 * Service port's NodePort, with one weight (`applyCcmWeights`: `default-weight`, or `weight` W as max(1, floor(W /
 * servers)), 0 for 0). `ids` are their ECS ids sorted in code-unit order (the order the mappers sort a group's
 * servers in), shared by every group. What `expectedNlbServerGroups` builds in that case, without one object per
 * server.
 */
export interface UniformNlbServerGroups {
  groups: { name: string; port: number; weight: number }[];
  ids: readonly string[];
}

/**
 * The ECS ids of the Cluster-mode servers of an eligible set at a CCM version (every candidate node not excluded by
 * `backendNodeExclusion`), sorted in code-unit order; `null` when that shape is not certain (a virtual-kubelet
 * candidate may run pods, servers of another shape; a candidate without ECS id fails the sync; an id twice).
 * Linear in the candidates plus a sort: a caller asking per Service memoises it per node set (the fleet index does).
 */
export function nlbClusterServerIds(eligible: EligibleNodes, ccmVersion: string | undefined): readonly string[] | null {
  const exclusion = ccmVersion !== undefined ? { ccmVersion } : {};
  const list: string[] = [];
  let certain = true;
  for (const node of eligible.candidatesByName.values()) {
    if (isVirtualKubelet(node) || !node.ecsInstanceId) certain = false;
    else if (!backendNodeExclusion(node, exclusion)) list.push(node.ecsInstanceId);
  }
  list.sort();
  for (let i = 1; i < list.length && certain; i++) if (list[i] === list[i - 1]) certain = false;
  return certain ? list : null;
}

/**
 * `UniformNlbServerGroups` of a Cluster-mode NLB Service (CCM nlbv2/server_groups.go buildClusterBackends), or
 * `undefined` when the shape is not certain (another mode, an `Ip` server group, a listener, server-group type or
 * weight error, a virtual-kubelet candidate, a candidate without ECS id, an ECS id twice, a ready endpoint without
 * node): `expectedNlbServerGroups` then gives the groups or CCM's error.
 * @param serverIdsOf the Cluster-mode server ids of the eligible set (`nlbClusterServerIds`, the default; a caller
 *   asking for many Services of one node set passes a memoised one)
 */
export function uniformNlbClusterServerGroups(
  input: ExpectedNlbInput,
  serverIdsOf: (eligible: EligibleNodes, ccmVersion: string | undefined) => readonly string[] | null = nlbClusterServerIds,
): UniformNlbServerGroups | undefined {
  const { service, clusterId, policy, eligible, endpointSlices } = input;
  if (policy !== 'cluster') return undefined;
  const listeners = expectedNlbListeners(service, clusterId, policy);
  if ('error' in listeners) return undefined;
  const sgType = nlbServerGroupType(service);
  if ('error' in sgType || sgType.type === 'Ip') return undefined;
  const weights = nlbWeightSettings(service, input.ccmVersion);
  if ('error' in weights) return undefined;
  // A port `vgroup-port` binds to a user group is compared by the group's id, by the full comparison.
  if (reusedLoadBalancerId(service) && getLbAnnotation(service.annotations, LB_ANNOTATION.vgroupPort)) return undefined;
  const ids = serverIdsOf(eligible, input.ccmVersion);
  if (ids === null) return undefined;
  for (const slice of endpointSlices)
    for (const ep of slice.endpoints)
      if (ep.nodeName === undefined && !ep.terminating && ep.ready && !ep.readyUnset && ep.addresses.length > 0)
        return undefined;
  const w = weights.weight;
  const weight = w === undefined ? weights.defaultWeight : w === 0 ? 0 : Math.max(1, Math.floor(w / Math.max(ids.length, 1)));
  return {
    ids,
    groups: listeners.listeners.map((l) => ({
      name: nlbServerGroupName(l.servicePort.nodePort ?? 0, l.protocol, service.name, service.namespace, clusterId),
      port: l.servicePort.nodePort ?? 0,
      weight,
    })),
  };
}
