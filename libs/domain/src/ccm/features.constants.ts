/**
 * The CCM version from which a behaviour the audit relies on exists, with where that is documented.
 * Versions are ACK image versions (CCM notes 3c (docs/sources.md#ccm-3) "Release versions"); compare them with
 * `ccmVersionAtLeast`.
 */

/** One behaviour of the CCM and the first version that has it. */
export interface CcmFeature {
  /** First CCM version with the behaviour. */
  sinceVersion: string;
  /** What the behaviour is, in one line (used in messages). */
  behaviour: string;
  /** What a cluster running an older CCM gets instead. */
  olderBehaviour: string;
  source: string;
  /**
   * First open-source git tag of kubernetes/cloud-provider-alibaba-cloud whose code has the behaviour, when
   * known (ACK image versions are finer than the tags; `sinceVersion` is the one the model compares).
   */
  firstTag?: string;
  /** Model areas the behaviour belongs to (acceptance cases are counted per behaviour key). */
  area: 'nodes' | 'endpoints' | 'weights' | 'naming' | 'sync' | 'events' | 'lifecycle' | 'listeners';
}

/**
 * Behaviours by key. Every row cites the seed or the CCM source; where the seed gives no version, the row
 * says which source the version comes from.
 */
export const CCM_FEATURES = {
  /**
   * Seeds 000/001/003 "Why are events for the service and LoadBalancer synchronization process not visible?":
   * "Versions earlier than v1.9.3.276-g372aa98-aliyun: The CCM component does not display events".
   */
  syncEvents: {
    area: 'events',
    sinceVersion: 'v1.9.3.276-g372aa98-aliyun',
    behaviour: 'records Service events for load balancer synchronisation (SyncLoadBalancerFailed, ...)',
    olderBehaviour: 'no events: sync errors are invisible in kubectl describe svc',
    source:
      'ACK "Service FAQ" (docs/sources.md#ack-service-faq) "Why are events for the service and LoadBalancer synchronization process not visible?"',
  },
  /**
   * Seeds 000/001/003 "Why does reusing an existing SLB instance fail?": "CCM versions earlier than
   * v1.9.3.105-gfd4e547-aliyun do not support reusing SLB instances".
   */
  reuse: {
    area: 'lifecycle',
    sinceVersion: 'v1.9.3.105-gfd4e547-aliyun',
    behaviour: 'reuses an existing CLB named by the loadbalancer-id annotation',
    olderBehaviour: 'the loadbalancer-id annotation is not supported: reuse fails',
    source: 'ACK "Service FAQ" (docs/sources.md#ack-service-faq) "Why does reusing an existing SLB instance fail?"',
  },
  /**
   * Seeds 000/001/003 "How are node weights automatically set in Local mode?": from v1.9.3.276-g372aa98-aliyun
   * the weight of a node is the number of pods on it; between v1.9.3.164 and v1.9.3.276 a percentage of the
   * Service's pods truncated to an integer, floor(100 x podsOnNode / totalPods) (1, 2 and 3 of 6 pods give
   * 16, 33 and 50: seed 001 "How does CCM calculate node weights in Local mode?"), before v1.9.3.164 every
   * node 100.
   */
  podCountWeights: {
    area: 'weights',
    sinceVersion: 'v1.9.3.276-g372aa98-aliyun',
    behaviour: 'weights Local-mode nodes by the number of pods on them (1:2:3)',
    olderBehaviour:
      'Local-mode weights are 100 per node (< v1.9.3.164) or truncated percentages (16/33/50): uneven load on pods',
    source: 'ACK "Service FAQ" (docs/sources.md#ack-service-faq) "How are node weights automatically set in Local mode?"',
  },
  /**
   * Cordoned (unschedulable) nodes stay backends unless `remove-unscheduled-backend: "on"`; CCM notes (docs/sources.md#ccm-notes)
   * 2 step 4 ("DOC: CCM < v1.9.3.164-g2105d2e-aliyun removed them by default"), seed 004 "CCM does not, by default,
   * remove nodes that are drained ... or have scheduling disabled"; the annotation itself exists since
   * v1.9.3.164 (CCM notes 3b (docs/sources.md#ccm-3)).
   */
  keepUnschedulableNodes: {
    area: 'nodes',
    sinceVersion: 'v1.9.3.164-g2105d2e-aliyun',
    behaviour: 'keeps cordoned (unschedulable) nodes as backends unless remove-unscheduled-backend is "on"',
    olderBehaviour: 'removes cordoned (unschedulable) nodes from the backends',
    source: 'CCM notes 2 (docs/sources.md#ccm-2) step 4; ACK "Notes on service load balancing configuration and CCM resource update policies" (docs/sources.md#ack-lb-considerations) "update policies for backend server groups"',
  },
  /**
   * Finalizer `service.k8s.alibaba/resources`: release notes v2.0.1 (CCM notes 3c (docs/sources.md#ccm-3) "v2.0.1
   * (2021-09-02, vgroup-port, weight, drain, finalizer)"; first open-source tag with it v2.1.0). Seed 004
   * "Do not manually delete or modify the service.k8s.alibaba/resources or service.k8s.alibaba/nlb Finalizer".
   */
  finalizer: {
    area: 'lifecycle',
    sinceVersion: 'v2.0.1',
    behaviour:
      'adds the finalizer service.k8s.alibaba/resources and releases the CLB before the Service is deleted',
    olderBehaviour: 'no finalizer: a Service deleted while CCM is down or lagging leaves its CLB behind',
    source:
      'ACK "Notes on service load balancing configuration and CCM resource update policies" (docs/sources.md#ack-lb-considerations) "Notes on CCM-managed load balancers"; CCM notes 3c (docs/sources.md#ccm-3) (v2.0.1 release notes)',
  },
  /**
   * Named (string) targetPort in ENI mode: seeds 001/002/003 "The specified Port must be between 1 and
   * 65535 ... change targetPort to an integer, or upgrade CCM" give no version. The v2 rewrite resolves
   * named ports from the endpoints (pkg/controller/service/clbv1/vgroups.go; clbv1/model_applier_test.go
   * TestSyncVGroups, named targetPort in ENI mode), so the first v2 release, v2.0.1, is taken as the fix.
   */
  namedTargetPortEni: {
    area: 'endpoints',
    sinceVersion: 'v2.0.1',
    behaviour: 'resolves a named (string) targetPort to the pod port in ENI mode',
    olderBehaviour: 'sends port 0 for a string targetPort: "The specified Port must be between 1 and 65535."',
    source:
      'ACK "Troubleshoot LoadBalancer services" (docs/sources.md#ack-troubleshooting) and 003 error table ("The specified Port must be between 1 and 65535."); CCM ' +
      'pkg/controller/service/clbv1/vgroups.go and model_applier_test.go TestSyncVGroups (v2 resolves named ports)',
  },
  /**
   * `instance-charge-type` annotation (ACK annotation doc v2.4.0): from then on CCM changes the spec only
   * of pay-by-spec CLBs (`updateInstanceChargeTypeAndInstanceSpec`, pkg/controller/service/clbv1/loadbalancer.go);
   * before, a `spec` annotation was applied to any CLB, which fails on a PayByCLCU instance.
   */
  payBySpecOnlySpecUpdates: {
    area: 'listeners',
    sinceVersion: 'v2.4.0',
    behaviour: 'applies the spec annotation only to pay-by-spec CLBs',
    olderBehaviour: 'applies the spec annotation to every CLB: fails on pay-by-CLCU instances',
    source:
      'ACK annotation doc (instance-charge-type, v2.4.0; CCM notes 3b (docs/sources.md#ccm-3)); CCM ' +
      'pkg/controller/service/clbv1/loadbalancer.go updateInstanceChargeTypeAndInstanceSpec',
  },
  /**
   * `default-weight` (0-100, default 100) for Cluster- and ENI-mode backends; an invalid value (not an integer,
   * out of range) makes `buildVGroupForServicePort` return an error before any vServer group is built, so the
   * sync fails and no weight changes. First tag with the annotation: v2.14.0 (CCM notes 3a (docs/sources.md#ccm-3));
   * CCM release notes v2.14.0 (3b). Tests: pkg/controller/service/clbv1/vgroups_test.go
   * TestBuildVGroupForServicePort_InvalidDefaultWeight_{NotInteger,TooLarge,Negative},
   * TestSetWeightBackends_NilWeightWithCustomDefault_UsesCustomDefaultWeight,
   * TestPodNumberAlgorithm_{ENIMode,ClusterMode}_AppliesCustomDefaultWeight, TestPodNumberAlgorithm_LocalMode_WeightByPodCount.
   */
  defaultWeight: {
    area: 'weights',
    sinceVersion: 'v2.14.0',
    firstTag: 'v2.14.0',
    behaviour:
      'applies default-weight to Cluster- and ENI-mode backends; an invalid default-weight fails the sync ("default weight must be integer in range [0,100]")',
    olderBehaviour: 'ignores default-weight: Cluster- and ENI-mode backends weigh 100, whatever the annotation says',
    source:
      'CCM pkg/controller/service/clbv1/vgroups_test.go TestBuildVGroupForServicePort_InvalidDefaultWeight_*, ' +
      'TestPodNumberAlgorithm_*_AppliesCustomDefaultWeight (tag v2.14.0); CCM notes 3a (docs/sources.md#ccm-3), 3b',
  },
  /**
   * Nodes tainted `ToBeDeletedByClusterAutoscaler` are dropped from the node list (`needExcludeFromLB`,
   * pkg/controller/service/reconcile/backend/backend.go); CCM notes 2.2 (docs/sources.md#ccm-2) step 3 ("since tag
   * v2.4.0 / ACK v2.4.0"), e2e test/e2e/testcase/service/clbv1/backend.go (ToBeDeleted taint).
   */
  dropToBeDeletedNodes: {
    area: 'nodes',
    sinceVersion: 'v2.4.0',
    firstTag: 'v2.4.0',
    behaviour: 'drops nodes tainted ToBeDeletedByClusterAutoscaler from the backends',
    olderBehaviour: 'keeps nodes the cluster autoscaler is deleting as backends until they are gone',
    source: 'CCM pkg/controller/service/reconcile/backend/backend.go needExcludeFromLB; CCM notes 2.2 (docs/sources.md#ccm-2) step 3',
  },
  /**
   * The well-known label `node.kubernetes.io/exclude-from-external-load-balancers` (any value) excludes a node
   * (`IsNodeExcludeFromLoadBalancer`, pkg/controller/helper/node_utils.go); CCM notes 2.2 (docs/sources.md#ccm-2)
   * ("CLB/NLB since ACK v2.6.0"; first tag with the string v2.6.0, section 3a "Other markers").
   */
  excludeFromExternalLbLabel: {
    area: 'nodes',
    sinceVersion: 'v2.6.0',
    firstTag: 'v2.6.0',
    behaviour: 'excludes nodes labelled node.kubernetes.io/exclude-from-external-load-balancers',
    olderBehaviour: 'ignores node.kubernetes.io/exclude-from-external-load-balancers: such nodes stay backends',
    source:
      'CCM pkg/controller/helper/node_utils.go IsNodeExcludeFromLoadBalancer; CCM notes 2.2 (docs/sources.md#ccm-2), 3a',
  },
  /**
   * Hybrid nodes (`spec.providerID` starting `ack-hybrid://`) are excluded (`IsNodeExcludeFromLoadBalancer`);
   * CCM notes 2.2 (docs/sources.md#ccm-2) ("hybrid nodes, ACK v2.12.1"), first tag with the prefix v2.12.4 (3a).
   */
  excludeHybridNodes: {
    area: 'nodes',
    sinceVersion: 'v2.12.1',
    firstTag: 'v2.12.4',
    behaviour: 'excludes hybrid nodes (providerID ack-hybrid://...) from the backends',
    olderBehaviour:
      'treats hybrid nodes like ECS nodes: the text after the first "." of their providerID is taken as the server id',
    source: 'CCM pkg/controller/helper/node_utils.go IsNodeExcludeFromLoadBalancer; CCM notes 2.2 (docs/sources.md#ccm-2), 3a',
  },
  /**
   * `ignore-weight-update: on` (case-insensitive, `strings.EqualFold`) makes `diff` ignore weight differences
   * (pkg/controller/service/clbv1/vgroups.go buildVGroupForServicePort, diff). ACK annotation doc: v2.11.1
   * (CCM notes 3b (docs/sources.md#ccm-3)); first tag with the string v2.11.2 (3a).
   */
  ignoreWeightUpdate: {
    area: 'weights',
    sinceVersion: 'v2.11.1',
    firstTag: 'v2.11.2',
    behaviour: 'leaves backend weights alone when ignore-weight-update is "on"',
    olderBehaviour: 'ignores ignore-weight-update: weights edited in the console are overwritten',
    source:
      'CCM pkg/controller/service/clbv1/vgroups.go buildVGroupForServicePort, diff; ACK CLB annotation doc (CCM notes 3b (docs/sources.md#ccm-3))',
  },
  /**
   * `weight` is read only on a reused CLB with `vgroup-port` set; 0-100 spread over the backends
   * (`podPercentAlgorithm`); anything else fails the sync with "weight must be integer in range [0,100] , got
   * [...]" (pkg/controller/service/clbv1/vgroups.go buildVGroupForServicePort; vgroups_test.go
   * TestPodPercentAlgorithm). Release notes v2.0.1 (CCM notes 3b (docs/sources.md#ccm-3)); first tag v2.1.0 (3a).
   */
  vgroupPortWeight: {
    area: 'weights',
    sinceVersion: 'v2.0.1',
    firstTag: 'v2.1.0',
    behaviour:
      'spreads the weight annotation over the backends of a reused CLB with vgroup-port; an invalid weight fails the sync',
    olderBehaviour: 'no weight or vgroup-port annotations: backends weigh 100 (Local mode: see podCountWeights)',
    source:
      'CCM pkg/controller/service/clbv1/vgroups.go buildVGroupForServicePort, podPercentAlgorithm; vgroups_test.go TestPodPercentAlgorithm',
  },
  /**
   * Local mode with pods on virtual-kubelet (ECI) nodes, CCM builds whose ENI ids are resolved only after
   * weighing and deduplicating (`buildLocalBackends` -> `setWeightBackends` -> `removeDuplicatedECS`, then
   * `BuildLocalModel` -> `updateVServerGroupENIBackendID` / `updateServerGroupENIBackendID`): every ECI backend has
   * the same empty server id at that point, so only the first ECI pod is kept, with weight = the number of ECI pods.
   * Commit 713e55318 "reduce call for DescribeNetworkInstaces and DescribeVPCAttribute" (2025-05-23), first tag
   * v2.11.2, in pkg/controller/service/clbv1/vgroups.go and pkg/controller/service/nlbv2/server_groups.go. Older
   * code resolved each pod's ENI id first (`updateENIBackends` calling DescribeNetworkInterfaces), so each ECI pod
   * was its own backend with weight 1. Fixed from v2.12.4 (`localEciDedupFixed`): the merge is a window.
   */
  localEniBackendsMerged: {
    area: 'weights',
    sinceVersion: 'v2.11.2',
    firstTag: 'v2.11.2 (commit 713e55318, 2025-05-23; fixed in v2.12.4 by 88ab3ee90)',
    behaviour:
      'Local mode keeps only the first virtual-kubelet (ECI) pod as an ENI backend, weighted by the number of ECI pods (until v2.12.4)',
    olderBehaviour: 'Local mode adds every ECI pod as its own ENI backend with weight 1',
    source:
      'CCM pkg/controller/service/clbv1/vgroups.go and nlbv2/server_groups.go buildLocalBackends, removeDuplicatedECS, ' +
      'BuildLocalModel / updateVServerGroupENIBackendID (deferred ENI ids, commit 713e55318) vs older updateENIBackends ' +
      '(DescribeNetworkInterfaces first)',
  },
  /**
   * CCM commit 88ab3ee90 "fix ecs+eci deduplicate for Local externalTrafficPolicy" (2025-09-12), first tag v2.12.4,
   * in both pkg/controller/service/clbv1/vgroups.go and pkg/controller/service/nlbv2/server_groups.go:
   * `removeDuplicatedECS` deduplicates only `ecs` / `Ecs` backends (every ENI, ECI and, for NLB, `Ip` backend is
   * kept); `podNumberAlgorithm` gives every non-ECS backend weight 1; `podPercentAlgorithm` gives it
   * floor(W / #backends), and for CLB with no floor of 1 (the CLB branch `continue`s past the `< 1` check; the NLB
   * branch keeps the floor).
   */
  localEciDedupFixed: {
    area: 'weights',
    sinceVersion: 'v2.12.4',
    firstTag: 'v2.12.4 (commit 88ab3ee90, 2025-09-12)',
    behaviour:
      'Local mode keeps every ENI / ECI pod (and NLB Ip entry) as its own backend with weight 1; with the weight annotation W/#backends, no floor of 1 on a CLB',
    olderBehaviour:
      'v2.11.2 up to v2.12.4: the ECI pods of a Local-mode Service merge into one backend weighted by their count (localEniBackendsMerged)',
    source:
      'CCM commit 88ab3ee90, pkg/controller/service/clbv1/vgroups.go and nlbv2/server_groups.go removeDuplicatedECS, ' +
      'podNumberAlgorithm, podPercentAlgorithm',
  },
  /**
   * The NLB controller (`nlb-controller`, pkg/controller/service/nlbv2/nlb_controller.go): a Service of
   * `spec.loadBalancerClass: alibabacloud.com/nlb` gets an NLB. ACK "Configure an NLB instance by using
   * annotations": CCM v2.5.0 and Kubernetes 1.24 (research/nlb.md 1); code: commit 260c65575 "support nlb"
   * (2022-09-19, PR #332), first tag v2.5.1. An older CCM has no controller for the class: the Service stays
   * pending (the CLB controller skips any Service with a class, `NeedCLB`).
   */
  nlbController: {
    area: 'lifecycle',
    sinceVersion: 'v2.5.0',
    firstTag: 'v2.5.1 (commit 260c65575, PR #332)',
    behaviour: 'creates and manages an NLB for a Service of loadBalancerClass alibabacloud.com/nlb',
    olderBehaviour: 'no controller takes an NLB-class Service: it stays pending with no ingress',
    source:
      'CCM pkg/controller/service/nlbv2/nlb_controller.go, pkg/controller/helper/service_utils.go NeedNLB / NeedCLB; ' +
      'ACK "Configure an NLB instance by using annotations" (research/nlb.md 1)',
  },
  /**
   * Server groups of a deleted NLB Service: commit 9e18cbf27 ("parallelize model applier", 2025-06-05) returned
   * early once the NLB was deleted and skipped the server-group cleanup; commit cad3a50ec ("fix server groups
   * cleanup when delete nlb", 2025-12-10) fixed it. Both are first in tag v2.12.4; the ACK v2.12.4 release notes
   * list the fix (research/nlb.md 3.3). ACK builds in between (presumably v2.12.1 to v2.12.3) left the groups
   * behind, still tagged `kubernetes.do.not.delete` / `ack.aliyun.com`.
   */
  nlbServerGroupCleanup: {
    area: 'lifecycle',
    sinceVersion: 'v2.12.4',
    firstTag: 'v2.12.4 (commit cad3a50ec, 2025-12-10)',
    behaviour: 'deletes the server groups of a deleted NLB Service together with the NLB',
    olderBehaviour:
      'builds after 2025-06-05 (presumably ACK v2.12.1 to v2.12.3) leave the server groups of a deleted NLB Service behind',
    source:
      'CCM pkg/controller/service/nlbv2/model_applier.go cleanup (commits 9e18cbf27, cad3a50ec); ACK CCM release notes v2.12.4 (research/nlb.md 3.3)',
  },
  /**
   * `zone-maps` entries `zone:vsw:privateIPv4[:eipAllocationId]` (fixed private IPv4 and EIP per zone): ACK
   * "Configure an NLB instance by using annotations" says CCM v2.12.1; code e44deae2e (research/nlb.md 2).
   */
  nlbZoneMapAddresses: {
    area: 'lifecycle',
    sinceVersion: 'v2.12.1',
    firstTag: 'v2.12.4',
    behaviour: 'zone-maps entries may fix a private IPv4 address and an EIP per zone',
    olderBehaviour: 'only zone:vSwitch pairs are applied; the address parts are ignored',
    source: 'CCM pkg/controller/service/nlbv2/loadbalancer.go parseZoneMappings (commit e44deae2e); ACK NLB annotation doc (research/nlb.md 2)',
  },
} as const satisfies Record<string, CcmFeature>;

/** Keys of `CCM_FEATURES`. */
export type CcmFeatureKey = keyof typeof CCM_FEATURES;
