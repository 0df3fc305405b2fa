import type { K8sEndpointSlice, K8sNode, K8sService, K8sServicePort } from '../snapshot.types';
import {
  DEFAULT_SERVER_WEIGHT,
  HYBRID_PROVIDER_ID_PREFIX,
  LABEL_NODE_ROLE_MASTER,
  LABEL_NODE_TYPE,
  LB_ANNOTATION,
  NODE_EXCLUDE_LABEL_KEYS,
  NODE_TYPE_VIRTUAL_KUBELET,
  TAINT_TO_BE_DELETED,
} from './ccm.constants';
import { getLbAnnotation } from './annotations.model';
import { reusedLoadBalancerId, type TrafficPolicy } from './service.model';
import { vServerGroupName } from './naming.model';
import { ccmVersionAtLeast, type CcmVersionAtLeast } from './version.model';
import { CCM_FEATURES, type CcmFeatureKey } from './features.constants';

/**
 * Which nodes and pods CCM attaches to a CLB Service's vServer groups.
 *
 * Node selection: `GetNodes` + `needExcludeFromLB` (pkg/controller/service/reconcile/backend/backend.go)
 * and `IsNodeExcludeFromLoadBalancer` (pkg/controller/helper/node_utils.go). Backends per mode:
 * `buildClusterBackends`, `buildLocalBackends`, `buildENIBackends`, `setWeightBackends`
 * (pkg/controller/service/clbv1/vgroups.go). Seed 004 "Load balancing update policies": Cluster mode
 * attaches all nodes, Local mode only nodes with the Service's pods, masters never, cordoned nodes kept
 * unless `remove-unscheduled-backend: "on"`. Research: CCM notes 2.2 (docs/sources.md#ccm-2)-2.4.
 */

/** A parsed `backend-label` annotation (`k1=v1,k2=v2`, all must match). */
export type BackendLabelSelector = readonly (readonly [string, string])[];

/**
 * Parses the `backend-label` annotation like CCM's `filterOutByLabel`: comma-separated `k=v`; an element
 * without `=` is an error ("parse backend label: %s, [k1=v1,k2=v2]"). The value is the text after the
 * first `=` up to the next `=` (CCM splits on `=` and uses parts 0 and 1).
 *
 * @returns the pairs, or `{ error }` for an unparsable value; an empty string gives `[]` (no filter)
 */
export function parseBackendLabel(text: string): { selector: BackendLabelSelector } | { error: string } {
  if (text === '') return { selector: [] };
  const pairs: (readonly [string, string])[] = [];
  for (const element of text.split(',')) {
    const parts = element.split('=');
    if (parts.length < 2) return { error: `parse backend label: ${element}, [k1=v1,k2=v2]` };
    pairs.push([parts[0] ?? '', parts[1] ?? '']);
  }
  return { selector: pairs };
}

/** Per-Service node selection options CCM reads from annotations. */
export interface NodeSelectionOptions {
  /** Parsed `backend-label`; empty = every node. */
  backendLabel: BackendLabelSelector;
  /** `remove-unscheduled-backend` is exactly `"on"`: cordoned nodes are dropped. */
  removeUnscheduled: boolean;
  /**
   * The cluster's CCM version, when known: node rules that arrived in a later CCM (`CCM_FEATURES`
   * `dropToBeDeletedNodes`, `excludeFromExternalLbLabel`, `excludeHybridNodes`) apply only from their
   * version. Absent or unparsable = the current CCM.
   */
  ccmVersion?: string;
}

/**
 * Whether the CCM version has a behaviour of `CCM_FEATURES`; an unknown version counts as the current CCM.
 * @param atLeast how the version is compared with the feature's: `ccmVersionAtLeast`, or a memo of it
 */
export function ccmHasFeature(ccmVersion: string | undefined, feature: CcmFeatureKey, atLeast: CcmVersionAtLeast = ccmVersionAtLeast): boolean {
  return atLeast(ccmVersion, CCM_FEATURES[feature].sinceVersion) !== false;
}

/**
 * Whether CCM leaves the weights of a Service's backends alone: `ignore-weight-update: "on"` (case-insensitive), read
 * by both controllers from commit d4e59f2c8 (first tag v2.11.2; `CCM_FEATURES.ignoreWeightUpdate`): clbv1/vgroups.go
 * and nlbv2/server_groups.go `diff` then skip the weight. Older CCM compares weights whatever the annotation says.
 * @param ccmVersion the cluster's CCM version; unknown = the current CCM
 */
export function ignoresWeightUpdate(svc: Pick<K8sService, 'annotations'>, ccmVersion: string | undefined): boolean {
  return (
    (getLbAnnotation(svc.annotations, LB_ANNOTATION.ignoreWeightUpdate) ?? '').toLowerCase() === 'on' &&
    ccmHasFeature(ccmVersion, 'ignoreWeightUpdate')
  );
}

/**
 * The node selection options of a Service (`backend-label`, `remove-unscheduled-backend`), or `{ error }`
 * when `backend-label` does not parse (CCM then fails the sync).
 * @param ccmVersion the cluster's CCM version when known: CCM before v1.9.3.164-g2105d2e-aliyun dropped
 *   cordoned nodes by default (`CCM_FEATURES.keepUnschedulableNodes`); unknown = the current behaviour
 * @param atLeast how the version is compared with that minimum: `ccmVersionAtLeast`, or a memo of it (an audit asks
 *   once per Service of a fleet running a handful of versions)
 */
export function nodeSelectionOptionsOf(
  svc: Pick<K8sService, 'annotations'>,
  ccmVersion?: string,
  atLeast: CcmVersionAtLeast = ccmVersionAtLeast,
): { options: NodeSelectionOptions } | { error: string } {
  const parsed = parseBackendLabel(getLbAnnotation(svc.annotations, LB_ANNOTATION.backendLabel) ?? '');
  if ('error' in parsed) return parsed;
  const removeOn = getLbAnnotation(svc.annotations, LB_ANNOTATION.removeUnscheduledBackend) === 'on';
  const oldDefault = atLeast(ccmVersion, CCM_FEATURES.keepUnschedulableNodes.sinceVersion) === false;
  return {
    options: {
      backendLabel: parsed.selector,
      removeUnscheduled: removeOn || oldDefault,
      ...(ccmVersion !== undefined ? { ccmVersion } : {}),
    },
  };
}

/** A stable cache key of node selection options (same key => same eligible node set in one cluster). */
export function nodeSelectionKey(options: NodeSelectionOptions): string {
  return `${options.removeUnscheduled ? 'u' : '-'}|${options.ccmVersion ?? ''}|${options.backendLabel.map(([k, v]) => `${k}=${v}`).join(',')}`;
}

/** Why a node is not an ECS backend of a Service. */
export type NodeExclusionReason =
  | 'backend-label'
  | 'master'
  | 'to-be-deleted'
  | 'unschedulable'
  | 'not-ready'
  | 'exclude-label'
  | 'hybrid'
  | 'virtual-kubelet'
  | 'no-ecs-id';

/**
 * Whether a node is schedulable-ready in CCM's sense (`needExcludeFromLB`, reconcile/backend/backend.go): a
 * node with no conditions at all is dropped ("If we have no info, don't accept"); otherwise only a condition
 * of type `Ready` whose status is not `True` drops it, so a node whose conditions include none of type
 * `Ready` is kept.
 */
export function nodeReadyForCcm(node: Pick<K8sNode, 'ready' | 'readyConditionMissing'>): boolean {
  if (node.ready === true) return true;
  if (node.ready === false) return false;
  return node.readyConditionMissing === true;
}

/** Whether a node is a virtual-kubelet (ECI) node (label `type: virtual-kubelet`): its pods join as ENI backends. */
export function isVirtualKubelet(node: K8sNode): boolean {
  return node.labels[LABEL_NODE_TYPE] === NODE_TYPE_VIRTUAL_KUBELET;
}

/**
 * Whether CCM's node list (`GetNodes`) keeps a node, in CCM's order: `backend-label`; master label
 * `node-role.kubernetes.io/master` (only that key); taint `ToBeDeletedByClusterAutoscaler`;
 * `spec.unschedulable` only with `remove-unscheduled-backend: "on"`; virtual-kubelet nodes kept
 * regardless of conditions; else NodeReady must be True.
 *
 * @returns `undefined` when kept, else the reason it is dropped
 */
export function candidateNodeExclusion(
  node: K8sNode,
  options: NodeSelectionOptions,
): NodeExclusionReason | undefined {
  for (const [k, v] of options.backendLabel) {
    if (node.labels[k] !== v) return 'backend-label';
  }
  if (Object.prototype.hasOwnProperty.call(node.labels, LABEL_NODE_ROLE_MASTER)) return 'master';
  if (
    node.taints.some((t) => t.key === TAINT_TO_BE_DELETED) &&
    ccmHasFeature(options.ccmVersion, 'dropToBeDeletedNodes')
  )
    return 'to-be-deleted';
  if (node.unschedulable && options.removeUnscheduled) return 'unschedulable';
  if (isVirtualKubelet(node)) return undefined;
  if (!nodeReadyForCcm(node)) return 'not-ready';
  return undefined;
}

/**
 * Whether CCM drops a candidate node when building backends (`IsNodeExcludeFromLoadBalancer`): any of
 * the exclude label keys (any value), or a hybrid node (`providerID` starting `ack-hybrid://`, ACK v2.12.1).
 *
 * @returns `undefined` when the node may be a backend
 */
export function backendNodeExclusion(
  node: K8sNode,
  options: Pick<NodeSelectionOptions, 'ccmVersion'> = {},
): 'exclude-label' | 'hybrid' | undefined {
  for (const key of NODE_EXCLUDE_LABEL_KEYS) {
    if (!Object.prototype.hasOwnProperty.call(node.labels, key)) continue;
    if (key === LABEL_EXCLUDE_FROM_EXTERNAL_LB && !ccmHasFeature(options.ccmVersion, 'excludeFromExternalLbLabel'))
      continue;
    return 'exclude-label';
  }
  if (
    node.providerId?.startsWith(HYBRID_PROVIDER_ID_PREFIX) &&
    ccmHasFeature(options.ccmVersion, 'excludeHybridNodes')
  )
    return 'hybrid';
  return undefined;
}

const LABEL_EXCLUDE_FROM_EXTERNAL_LB = 'node.kubernetes.io/exclude-from-external-load-balancers';

/**
 * Whether a node is attached as an ECS backend in Cluster mode: a candidate, not virtual-kubelet (its
 * pods join as ENI backends instead), not excluded, and with an ECS instance id from its providerID.
 *
 * @returns `undefined` when the node is an ECS backend, else the reason it is not
 */
export function ecsBackendNodeExclusion(
  node: K8sNode,
  options: NodeSelectionOptions,
): NodeExclusionReason | undefined {
  const candidate = candidateNodeExclusion(node, options);
  if (candidate) return candidate;
  if (isVirtualKubelet(node)) return 'virtual-kubelet';
  const excluded = backendNodeExclusion(node, options);
  if (excluded) return excluded;
  if (!node.ecsInstanceId) return 'no-ecs-id';
  return undefined;
}

/**
 * Whether a new pod placed on the node makes it an ECS backend: the node the forecasts put new pods on (what-if
 * placement), copy for new nodes and count for new Local-mode Services (headroom). The scheduler places no new
 * pod on a cordoned node (`spec.unschedulable`), and the node must be one CCM attaches as an ECS backend
 * (`ecsBackendNodeExclusion` with no `backend-label`: not master, not tainted ToBeDeletedByClusterAutoscaler,
 * ready in CCM's sense, not virtual-kubelet, no exclude label, not hybrid, an ECS id), the same eligibility the
 * audit's checks use.
 * @param ccmVersion the cluster's CCM version (version-dependent node rules, `CCM_FEATURES`); absent = current
 */
export function schedulableBackendNode(node: K8sNode, ccmVersion?: string): boolean {
  const options: NodeSelectionOptions = { backendLabel: [], removeUnscheduled: true, ...(ccmVersion !== undefined ? { ccmVersion } : {}) };
  return ecsBackendNodeExclusion(node, options) === undefined;
}

/** The nodes of a cluster that Cluster mode attaches, with counts of the others by reason. */
export interface EligibleNodes {
  /** Nodes attached as ECS backends (one backend per Service port each). */
  nodes: K8sNode[];
  /** Candidate nodes by name (CCM's node list, incl. virtual-kubelet nodes), for Local-mode lookups. */
  candidatesByName: Map<string, K8sNode>;
  /** Excluded node counts by reason. */
  excluded: Partial<Record<NodeExclusionReason, number>>;
  /**
   * Candidate, not excluded nodes whose providerID names no ECS instance (`no-ecs-id`): CCM's Cluster mode
   * cannot parse them and fails the sync of every Cluster-mode Service of the cluster
   * (`buildClusterBackends`, "normal parse providerid: ... expected: ${regionid}.${nodeid}").
   */
  unparsableProviderIds: K8sNode[];
  /**
   * Whether a candidate is a virtual-kubelet node (its pods would be ENI backends in Cluster mode, so the Cluster-mode
   * groups are not the uniform one-server-per-node shape, `uniformClusterVServerGroups`). Read off the same pass.
   */
  hasVirtualKubeletCandidate: boolean;
}

/**
 * Selects the ECS backend nodes for one set of node selection options; linear in the node count.
 */
export function eligibleBackendNodes(
  nodes: readonly K8sNode[],
  options: NodeSelectionOptions,
): EligibleNodes {
  const out: EligibleNodes = { nodes: [], candidatesByName: new Map(), excluded: {}, unparsableProviderIds: [], hasVirtualKubeletCandidate: false };
  for (const node of nodes) {
    const candidate = candidateNodeExclusion(node, options);
    if (candidate === undefined) {
      out.candidatesByName.set(node.name, node);
      if (isVirtualKubelet(node)) out.hasVirtualKubeletCandidate = true;
    }
    const reason = candidate ?? ecsBackendNodeExclusion(node, options);
    if (reason === undefined) out.nodes.push(node);
    else out.excluded[reason] = (out.excluded[reason] ?? 0) + 1;
    if (reason === 'no-ecs-id') out.unparsableProviderIds.push(node);
  }
  return out;
}

/** One ready endpoint address of a Service (deduplicated by IP, terminating ones dropped). */
export interface ReadyEndpoint {
  address: string;
  nodeName?: string;
  /** Backend port resolved for the Service port asked for, when one was given. */
  port?: number;
}

/**
 * The Service's ready, non-terminating endpoint addresses, deduplicated by IP, as CCM's
 * `setBackendsFromEndpointSlices` reads them (not-ready pods behind CCM's readiness gate are not modelled).
 * With `servicePort`, the backend port is resolved: an int `targetPort` as is (defaulting to `port`), a
 * named one from the first slice port whose name equals the Service port's name; slices without it are
 * skipped. An absent name counts as `""` on both sides: the EndpointSlice controller writes `name: ""` for
 * an unnamed Service port, and CCM compares `*p.Name == ServicePort.Name` (clbv1/vgroups.go), so an
 * unnamed single-port Service with a named targetPort still resolves.
 */
export function readyEndpoints(
  slices: readonly K8sEndpointSlice[],
  servicePort?: K8sServicePort,
): ReadyEndpoint[] {
  const seen = new Set<string>();
  const out: ReadyEndpoint[] = [];
  for (const slice of slices) {
    let port: number | undefined;
    if (servicePort) {
      const target = servicePort.targetPort ?? servicePort.port;
      if (typeof target === 'number') port = target;
      else {
        const wanted = servicePort.name ?? '';
        port = slice.ports.find((p) => (p.name ?? '') === wanted)?.port;
        if (!port) continue;
      }
    }
    for (const ep of slice.endpoints) {
      // CCM adds an address only when `conditions.ready` is set and true (`Ready != nil && *Ready`); an
      // unset condition counts as not ready there (unless CCM's readiness gate applies, not modelled).
      if (ep.terminating || !ep.ready || ep.readyUnset) continue;
      for (const address of ep.addresses) {
        if (seen.has(address)) continue;
        seen.add(address);
        out.push({
          address,
          ...(ep.nodeName !== undefined ? { nodeName: ep.nodeName } : {}),
          ...(port !== undefined ? { port } : {}),
        });
      }
    }
  }
  return out;
}

/** A backend CCM would attach. */
export interface ExpectedBackend {
  /** ECS instance id (`ecs`) or pod IP (`eni`; CCM resolves it to the ENI id through ECS). */
  serverId: string;
  type: 'ecs' | 'eni';
  /** NodePort (ecs) or target port (eni). */
  port: number;
  /** 0-100 in Cluster/ENI modes; pods on the node in Local mode (no cap). */
  weight: number;
  nodeName?: string;
  /** Pod IP for `eni` backends. */
  serverIp?: string;
}

/** The vServer group CCM builds for one Service port. */
export interface ExpectedVServerGroup {
  /** `k8s/{nodePort|targetPort}/{svc}/{ns}/{clusterId}`. */
  name: string;
  servicePort: K8sServicePort;
  backends: ExpectedBackend[];
}

/** Inputs of `expectedVServerGroups`. */
export interface ExpectedBackendsInput {
  service: K8sService;
  clusterId: string;
  policy: TrafficPolicy;
  /** Result of `eligibleBackendNodes` for the Service's node selection options. */
  eligible: EligibleNodes;
  /** The Service's EndpointSlices. */
  endpointSlices: readonly K8sEndpointSlice[];
  /** The cluster's CCM version (version-dependent behaviours, `CCM_FEATURES`); unknown = the current CCM. */
  ccmVersion?: string;
  /**
   * How `ccmVersion` is compared with a feature's version: `ccmVersionAtLeast` when absent, or a memo of it (an audit
   * builds this input once or more per Service, on a fleet running a handful of versions).
   */
  atLeast?: CcmVersionAtLeast;
}

/**
 * Parses a weight annotation like CCM (`strconv.Atoi`, then 0..100): an optional sign and decimal digits, no
 * spaces. Returns `undefined` for anything else.
 */
export function parseCcmWeight(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 0 && n <= 100 ? n : undefined;
}

/** The weight settings CCM reads from a Service, or the sync error an invalid one causes. */
export interface CcmWeightSettings {
  /** `weight` (reused CLB with `vgroup-port` only), spread over the backends. */
  weight?: number;
  /** `default-weight` (CCM v2.14.0+), else 100. */
  defaultWeight: number;
}

/**
 * Reads `weight` and `default-weight` as CCM's `buildVGroupForServicePort` (pkg/controller/service/clbv1/
 * vgroups.go) does:
 * - `weight` only when the CLB is reused and `vgroup-port` is set (`CCM_FEATURES.vgroupPortWeight`); a
 *   non-empty value that is not an integer in 0..100 fails the sync: "weight must be integer in range
 *   [0,100] , got [<value>]";
 * - `default-weight` only from CCM v2.14.0 (`CCM_FEATURES.defaultWeight`; older CCMs ignore it); a non-empty
 *   invalid value fails the sync: "default weight must be integer in range [0,100] , got [<value>]"
 *   (vgroups_test.go TestBuildVGroupForServicePort_InvalidDefaultWeight_*: "abc", "150", "-1").
 *
 * @param ccmVersion the cluster's CCM version; unknown = the current CCM
 * @param atLeast how the version is compared with `defaultWeight`'s: `ccmVersionAtLeast`, or a memo of it
 * @returns the settings, or `{ error }` with CCM's message when the sync fails
 */
export function ccmWeightSettings(
  svc: Pick<K8sService, 'annotations'>,
  ccmVersion?: string,
  atLeast: CcmVersionAtLeast = ccmVersionAtLeast,
): CcmWeightSettings | { error: string } {
  const out: CcmWeightSettings = { defaultWeight: DEFAULT_SERVER_WEIGHT };
  if (reusedLoadBalancerId(svc as K8sService) && getLbAnnotation(svc.annotations, LB_ANNOTATION.vgroupPort)) {
    const text = getLbAnnotation(svc.annotations, LB_ANNOTATION.weight) ?? '';
    if (text !== '') {
      const w = parseCcmWeight(text);
      if (w === undefined) return { error: `weight must be integer in range [0,100] , got [${text}]` };
      out.weight = w;
    }
  }
  if (ccmHasFeature(ccmVersion, 'defaultWeight', atLeast)) {
    const text = getLbAnnotation(svc.annotations, LB_ANNOTATION.defaultWeight) ?? '';
    if (text !== '') {
      const w = parseCcmWeight(text);
      if (w === undefined) return { error: `default weight must be integer in range [0,100] , got [${text}]` };
      out.defaultWeight = w;
    }
  }
  return out;
}

/** CCM's error text for a node whose providerID does not parse (`helper.NodeFromProviderID`). */
function providerIdError(prefix: string, providerId: string | undefined): string {
  const pid = providerId ?? '';
  return (
    `${prefix}parse providerid: ${pid}. expected: \${regionid}.\${nodeid}, alicloud: unable to split instanceid ` +
    `and region from providerID, error unexpected providerID=${pid}`
  );
}

/**
 * How CCM's Local mode treats non-ECS backends (ECI / virtual-kubelet pods as ENI, and for NLB the `Ip` entries),
 * by CCM version:
 * - `resolved` (before v2.11.2): each pod's ENI id is known when CCM weighs and deduplicates, so each ECI pod is its
 *   own backend with weight 1 (its own pod count);
 * - `deferred` (v2.11.2 up to v2.12.4, `CCM_FEATURES.localEniBackendsMerged`): every ENI backend has the same empty
 *   id then, so they merge into the first one, weighted by their count;
 * - `separate` (v2.12.4 on, `CCM_FEATURES.localEciDedupFixed`, commit 88ab3ee90): only ECS backends are
 *   deduplicated; every other backend is kept, with weight 1 (with a `weight` annotation: W / #backends, with no
 *   floor of 1 on a CLB).
 */
export type LocalEniHandling = 'resolved' | 'deferred' | 'separate';

/**
 * The Local-mode ENI handling of a CCM version (see `LocalEniHandling`); an unknown version is the current CCM.
 * @param atLeast how the version is compared with the features': `ccmVersionAtLeast`, or a memo of it
 */
export function localEniHandling(ccmVersion: string | undefined, atLeast: CcmVersionAtLeast = ccmVersionAtLeast): LocalEniHandling {
  if (ccmHasFeature(ccmVersion, 'localEciDedupFixed', atLeast)) return 'separate';
  return ccmHasFeature(ccmVersion, 'localEniBackendsMerged', atLeast) ? 'deferred' : 'resolved';
}

/**
 * Applies CCM's weights (`setWeightBackends`, clbv1/vgroups.go and nlbv2/server_groups.go) in place.
 * No `weight`: Cluster and ENI -> `defaultWeight`; Local -> pods of this Service on the ECS (seeds 000/001:
 * "the weights of the ECS instances are 1, 2, and 3"). With `weight` W (`podPercentAlgorithm`): 0 -> all 0;
 * Cluster/ENI -> max(1, floor(W / #backends)); Local -> max(1, floor(W * podsOnEcs / #pods)).
 *
 * Local mode counts pods per backend server id; how non-ECS backends count follows `localEni` (CCM version):
 * `deferred` counts them all under one empty id, `separate` gives each weight 1 (W / #backends with a weight,
 * floored at 1 only when `nonEcsWeightFloor`, the NLB code; the CLB code since 88ab3ee90 has no floor there).
 *
 * @param backends one entry per pod in Local mode (before ECS deduplication)
 * @param localEni Local-mode handling of non-ECS backends (`localEniHandling(ccmVersion)`); default the current CCM
 * @param nonEcsWeightFloor `separate` Local mode with a weight: floor non-ECS weights at 1 (NLB) or not (CLB)
 */
export function applyCcmWeights(
  policy: TrafficPolicy,
  backends: { serverId: string; type: string; weight: number }[],
  weight: number | undefined,
  defaultWeight: number = DEFAULT_SERVER_WEIGHT,
  localEni: LocalEniHandling = 'separate',
  nonEcsWeightFloor = false,
): void {
  if (backends.length === 0) return;
  const keyOf = localServerKey(localEni);
  const podsByServer = new Map<string, number>();
  if (policy === 'local')
    for (const b of backends) podsByServer.set(keyOf(b), (podsByServer.get(keyOf(b)) ?? 0) + 1);
  for (const b of backends) {
    const separateNonEcs = policy === 'local' && localEni === 'separate' && b.type !== 'ecs';
    if (weight === undefined) {
      b.weight = separateNonEcs ? 1 : policy === 'local' ? (podsByServer.get(keyOf(b)) ?? 1) : defaultWeight;
    } else if (weight === 0) {
      b.weight = 0;
    } else if (separateNonEcs) {
      const w = Math.floor(weight / backends.length);
      b.weight = nonEcsWeightFloor ? Math.max(1, w) : w;
    } else if (policy === 'local') {
      b.weight = Math.max(1, Math.floor((weight * (podsByServer.get(keyOf(b)) ?? 1)) / backends.length));
    } else {
      b.weight = Math.max(1, Math.floor(weight / backends.length));
    }
  }
}

/**
 * The error CCM's Cluster mode fails with before building any backend (`buildClusterBackends`): a candidate,
 * not excluded node whose providerID names no ECS instance ("normal parse providerid: ..."), when the Service
 * has a port. `undefined` when there is none or the mode is not Cluster.
 */
function clusterModeSyncError(
  service: Pick<K8sService, 'ports'>,
  policy: TrafficPolicy,
  eligible: EligibleNodes,
): string | undefined {
  if (policy !== 'cluster' || service.ports.length === 0) return undefined;
  const bad = eligible.unparsableProviderIds[0];
  return bad ? providerIdError('normal ', bad.providerId) : undefined;
}

/**
 * Why CCM would fail the sync of a Service's backends, without building them (cheap enough for quota and
 * blowup checks): an invalid `weight` / `default-weight` (`ccmWeightSettings`), in Cluster mode a node whose
 * providerID does not parse, and in Cluster or Local mode a ready endpoint without `nodeName` ("NodeName is
 * nil", `buildClusterBackends` / `buildLocalBackends`). Local-mode providerID errors depend on where the pods
 * run and are reported by `expectedVServerGroups`.
 *
 * @returns CCM's error message, or `undefined` when this part of the sync succeeds
 */
export function backendSyncError(
  input: Omit<ExpectedBackendsInput, 'clusterId'>,
): string | undefined {
  const weights = ccmWeightSettings(input.service, input.ccmVersion, input.atLeast);
  if ('error' in weights) return weights.error;
  const clusterError = clusterModeSyncError(input.service, input.policy, input.eligible);
  if (clusterError) return clusterError;
  if (input.policy === 'eni' || input.service.ports.length === 0) return undefined;
  for (const ep of readyEndpoints(input.endpointSlices)) {
    if (ep.nodeName === undefined) return nodeNameNilError(input.service, ep.address);
  }
  return undefined;
}

function nodeNameNilError(service: Pick<K8sService, 'namespace' | 'name'>, address: string): string {
  return `add ecs backends for service[${service.namespace}/${service.name}] error, NodeName is nil for ip ${address}`;
}

/**
 * How a load-balancer kind writes the servers CCM builds for a Service port (the one place the kinds differ in
 * `buildClusterBackends` / `buildLocalBackends` / `buildENIBackends`, clbv1/vgroups.go and nlbv2/server_groups.go):
 * - `node`: a node is its ECS instance id from `spec.providerID` (`ecs`: every CLB backend, NLB `Instance` groups;
 *   CCM's error "parse providerid: ...") or its InternalIP (`ip`: NLB `Ip` groups, `GetNodeInternalIP`; error "get
 *   node address err: node <name> can not find InternalIP in node addresses");
 * - `pod`: a pod (ENI mode, or a pod on a virtual-kubelet node) is an ENI by pod IP (`eni`) or a plain IP (`ip`);
 * - `anyPort`: an NLB any-port listener's group puts pods on port 0;
 * - `nodeNameNilTrailer`: what follows CCM's "NodeName is nil for ip <ip>" text (nlbv2 ends it with a space).
 */
export interface CcmServerShape {
  node: 'ecs' | 'ip';
  pod: 'eni' | 'ip';
  anyPort?: boolean;
  nodeNameNilTrailer?: string;
}

/** The CLB shape: ECS backends on the NodePort, pods as ENI backends on their target port. */
export const CLB_SERVER_SHAPE: CcmServerShape = Object.freeze({ node: 'ecs', pod: 'eni' });

/** A server CCM builds for one Service port, before weights; `type` lower-case as the weight and dedup helpers read it. */
export interface CcmPortServer {
  /** ECS id (`ecs`), the pod IP (`eni`, resolved to the ENI id by CCM through ECS) or the IP (`ip`). */
  serverId: string;
  /** The pod or node IP (`eni`, `ip`); absent for `ecs`. */
  serverIp?: string;
  type: 'ecs' | 'eni' | 'ip';
  /** NodePort (nodes), target port (pods), 0 on an any-port group. */
  port: number;
  /** 0 until `applyCcmWeights` sets it. */
  weight: number;
  nodeName?: string;
}

/**
 * The servers CCM attaches for one Service port, before weights and Local-mode deduplication, written in the kind's
 * `shape` (CCM's shared design in clbv1/vgroups.go and nlbv2/server_groups.go, `buildClusterBackends`,
 * `buildLocalBackends`, `buildENIBackends`; seed 004 "Load balancing update policies"):
 * - ENI: every ready pod (`readyEndpoints` for the port), on its target port; node exclusions do not apply;
 * - Cluster: every candidate node that is neither virtual-kubelet nor excluded (`backendNodeExclusion`), in node
 *   order, on the NodePort; then the ready pods on virtual-kubelet nodes;
 * - Local: one entry per ready pod on a candidate, not excluded node (deduplicated later by `dedupeByServer`), then
 *   the pods on virtual-kubelet nodes; a pod on a node that is not a candidate is skipped ("can not find correspond
 *   node").
 * Errors, CCM's texts: a ready endpoint without `nodeName` ("NodeName is nil", Cluster and Local), a node CCM cannot
 * identify in the shape (providerID prefixed "normal " in Cluster mode, InternalIP).
 *
 * @returns the servers, or `{ error, mode }` with CCM's message and the mode whose build failed (the NLB sync wraps it)
 */
export function ccmPortServers(
  input: Omit<ExpectedBackendsInput, 'clusterId'>,
  servicePort: K8sServicePort,
  shape: CcmServerShape,
): { servers: CcmPortServer[] } | { error: string; mode: TrafficPolicy } {
  const { service, policy, eligible } = input;
  const endpoints = readyEndpoints(input.endpointSlices, servicePort);
  const nodePort = servicePort.nodePort ?? 0;
  const pod = (address: string, port: number | undefined, nodeName?: string): CcmPortServer => ({
    serverId: address,
    serverIp: address,
    type: shape.pod,
    port: shape.anyPort ? 0 : (port ?? 0),
    weight: 0,
    ...(nodeName !== undefined ? { nodeName } : {}),
  });
  const servers: CcmPortServer[] = [];
  if (policy === 'eni') {
    for (const ep of endpoints) servers.push(pod(ep.address, ep.port));
    return { servers };
  }
  const nodeServer = (node: K8sNode, prefix: string): CcmPortServer | { error: string } => {
    if (shape.node === 'ip') {
      if (!node.internalIp) return { error: `get node address err: node ${node.name} can not find InternalIP in node addresses` };
      return { serverId: node.internalIp, serverIp: node.internalIp, type: 'ip', port: nodePort, weight: 0, nodeName: node.name };
    }
    if (!node.ecsInstanceId) return { error: providerIdError(prefix, node.providerId) };
    return { serverId: node.ecsInstanceId, type: 'ecs', port: nodePort, weight: 0, nodeName: node.name };
  };
  const exclusion = input.ccmVersion !== undefined ? { ccmVersion: input.ccmVersion } : {};
  if (policy === 'cluster') {
    if (shape.node === 'ecs') {
      // `eligible.nodes` are exactly the candidates that are neither virtual-kubelet nor excluded and have an ECS id
      // (`eligibleBackendNodes`); the first such candidate without one is CCM's error.
      const bad = eligible.unparsableProviderIds[0];
      if (bad) return { error: providerIdError('normal ', bad.providerId), mode: 'cluster' };
      for (const node of eligible.nodes) servers.push(nodeServer(node, 'normal ') as CcmPortServer);
    } else {
      for (const node of eligible.candidatesByName.values()) {
        if (isVirtualKubelet(node) || backendNodeExclusion(node, exclusion)) continue;
        const s = nodeServer(node, 'normal ');
        if ('error' in s) return { error: s.error, mode: 'cluster' };
        servers.push(s);
      }
    }
  }
  const vk: CcmPortServer[] = [];
  for (const ep of endpoints) {
    if (ep.nodeName === undefined)
      return { error: `${nodeNameNilError(service, ep.address)}${shape.nodeNameNilTrailer ?? ''}`, mode: policy };
    const node = eligible.candidatesByName.get(ep.nodeName);
    if (!node) continue;
    if (isVirtualKubelet(node)) {
      vk.push(pod(ep.address, ep.port, node.name));
      continue;
    }
    if (policy !== 'local' || backendNodeExclusion(node, exclusion)) continue;
    const s = nodeServer(node, '');
    if ('error' in s) return { error: s.error, mode: 'local' };
    servers.push(s);
  }
  servers.push(...vk);
  return { servers };
}

/**
 * The vServer groups CCM would build for a CLB Service, one per Service port, with their backends
 * (`ccmPortServers` in the CLB shape, then `applyCcmWeights` and, in Local mode, `dedupeByServer`):
 * - Cluster: every eligible ECS node on the NodePort, plus ready pods on virtual-kubelet nodes as ENI;
 * - Local: ECS nodes hosting ready endpoints (deduplicated, weight = pods), VK pods as ENI; endpoints
 *   whose node is not a candidate are skipped; an endpoint without `nodeName` is an error (as in CCM);
 * - ENI: every ready pod IP on the target port (node exclusions do not apply).
 *
 * @returns the groups, or `{ error }` when CCM would fail the sync
 */
export function expectedVServerGroups(
  input: ExpectedBackendsInput,
): { groups: ExpectedVServerGroup[] } | { error: string } {
  const { service, clusterId, policy } = input;
  const weights = ccmWeightSettings(service, input.ccmVersion, input.atLeast);
  if ('error' in weights) return weights;
  const localEni = localEniHandling(input.ccmVersion, input.atLeast);
  const groups: ExpectedVServerGroup[] = [];
  for (const sp of service.ports) {
    const namePort = policy === 'eni' ? (sp.targetPort ?? sp.port) : (sp.nodePort ?? 0);
    const built = ccmPortServers(input, sp, CLB_SERVER_SHAPE);
    if ('error' in built) return { error: built.error };
    // The CLB shape writes only `ecs` and `eni` servers.
    const backends = built.servers as ExpectedBackend[];
    applyCcmWeights(policy, backends, weights.weight, weights.defaultWeight, localEni);
    groups.push({
      name: vServerGroupName(namePort, service.name, service.namespace, clusterId),
      servicePort: sp,
      backends: policy === 'local' ? dedupeByServer(backends, localEni) : backends,
    });
  }
  return { groups };
}

/**
 * A Cluster-mode vServer group whose backends are exactly the eligible nodes (`EligibleNodes.nodes`, in that order),
 * each an `ecs` backend on `port` with `weight`: what `expectedVServerGroups` builds for a Cluster-mode Service when
 * no ready endpoint runs on a virtual-kubelet node, without one object per backend.
 */
export interface UniformVServerGroup {
  /** `k8s/{nodePort}/{svc}/{ns}/{clusterId}`, as `ExpectedVServerGroup.name`. */
  name: string;
  servicePort: K8sServicePort;
  /** The NodePort every backend is on (0 when the Service port has none). */
  port: number;
  /** The weight of every backend (`applyCcmWeights` in Cluster mode: `default-weight`, or `weight` W as max(1, floor(W / nodes)), 0 for 0). */
  weight: number;
}

/**
 * The groups `expectedVServerGroups` builds for a Cluster-mode Service, in the uniform shape (`UniformVServerGroup`:
 * every eligible node, one port, one weight per group), when that shape is certain: Cluster mode, the weight
 * annotations parse, no eligible node lacks an ECS id, the cluster has no virtual-kubelet candidate node, and every
 * ready endpoint names its node (CCM vgroups.go buildClusterBackends; the errors are `expectedVServerGroups`'s).
 * Lets a comparison of a Service with thousands of backends skip one object per backend.
 *
 * @returns one group per Service port, in port order, or `undefined` when the shape is not certain (then
 *   `expectedVServerGroups` gives the groups or CCM's error)
 */
export function uniformClusterVServerGroups(input: ExpectedBackendsInput): UniformVServerGroup[] | undefined {
  const { service, clusterId, policy, eligible, endpointSlices } = input;
  if (policy !== 'cluster' || eligible.unparsableProviderIds.length > 0) return undefined;
  const weights = ccmWeightSettings(service, input.ccmVersion, input.atLeast);
  if ('error' in weights || eligible.hasVirtualKubeletCandidate) return undefined;
  for (const slice of endpointSlices)
    for (const ep of slice.endpoints)
      if (ep.nodeName === undefined && !ep.terminating && ep.ready && !ep.readyUnset && ep.addresses.length > 0)
        return undefined;
  const w = weights.weight;
  const n = eligible.nodes.length;
  const weight = w === undefined ? weights.defaultWeight : w === 0 ? 0 : Math.max(1, Math.floor(w / Math.max(n, 1)));
  return service.ports.map((sp) => ({
    name: vServerGroupName(sp.nodePort ?? 0, service.name, service.namespace, clusterId),
    servicePort: sp,
    port: sp.nodePort ?? 0,
    weight,
  }));
}

/**
 * CCM's `removeDuplicatedECS`: the first backend of each server id (see `localServerKey`) is kept; from v2.12.4
 * (`separate`) only ECS backends are deduplicated.
 */
export function dedupeByServer<T extends { serverId: string; type: string }>(backends: T[], localEni: LocalEniHandling): T[] {
  const keyOf = localServerKey(localEni);
  const seen = new Set<string>();
  return backends.filter((b) => {
    if (localEni === 'separate' && b.type !== 'ecs') return true;
    return seen.has(keyOf(b)) ? false : (seen.add(keyOf(b)), true);
  });
}

/**
 * The server id CCM's Local mode sees for a backend (`type` lower-case: `ecs`, `eni`, `ip`): ECI (ENI) backends
 * have none yet when ids are deferred (an NLB `Ip` entry has its IP as id from the start).
 */
function localServerKey(localEni: LocalEniHandling): (b: { serverId: string; type: string }) => string {
  return (b) => (localEni === 'deferred' && b.type === 'eni' ? '' : b.serverId);
}

/**
 * Counts, per node name, the Service's ready endpoints (pods) on it; linear in the endpoints. Used to
 * tell what Local mode would attach without materialising backends.
 */
export function readyEndpointsByNode(slices: readonly K8sEndpointSlice[]): Map<string, number> {
  // The addresses `readyEndpoints` keeps (ready, not terminating, first listing of an IP), counted without building
  // its list (once per Service in the quota and blowup checks).
  const out = new Map<string, number>();
  const seen = new Set<string>();
  for (const slice of slices)
    for (const ep of slice.endpoints) {
      if (ep.terminating || !ep.ready || ep.readyUnset) continue;
      for (const address of ep.addresses) {
        if (seen.has(address)) continue;
        seen.add(address);
        if (ep.nodeName !== undefined) out.set(ep.nodeName, (out.get(ep.nodeName) ?? 0) + 1);
      }
    }
  return out;
}
