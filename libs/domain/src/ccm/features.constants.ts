/**
 * The CCM version from which a behaviour the audit relies on exists, with where that is documented.
 * Versions are ACK image versions (research/ccm-behaviour.md 3c "Release versions"); compare them with
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
    sinceVersion: 'v1.9.3.276-g372aa98-aliyun',
    behaviour: 'records Service events for load balancer synchronisation (SyncLoadBalancerFailed, ...)',
    olderBehaviour: 'no events: sync errors are invisible in kubectl describe svc',
    source:
      'seeds/000, 001, 003 "Why are events for the service and LoadBalancer synchronization process not visible?"',
  },
  /**
   * Seeds 000/001/003 "Why does reusing an existing SLB instance fail?": "CCM versions earlier than
   * v1.9.3.105-gfd4e547-aliyun do not support reusing SLB instances".
   */
  reuse: {
    sinceVersion: 'v1.9.3.105-gfd4e547-aliyun',
    behaviour: 'reuses an existing CLB named by the loadbalancer-id annotation',
    olderBehaviour: 'the loadbalancer-id annotation is not supported: reuse fails',
    source: 'seeds/000, 001, 003 "Why does reusing an existing SLB instance fail?"',
  },
  /**
   * Seeds 000/001/003 "How are node weights automatically set in Local mode?": from v1.9.3.276-g372aa98-aliyun
   * the weight of a node is the number of pods on it; between v1.9.3.164 and v1.9.3.276 a percentage of the
   * Service's pods truncated to an integer, floor(100 x podsOnNode / totalPods) (1, 2 and 3 of 6 pods give
   * 16, 33 and 50: seed 001 "How does CCM calculate node weights in Local mode?"), before v1.9.3.164 every
   * node 100.
   */
  podCountWeights: {
    sinceVersion: 'v1.9.3.276-g372aa98-aliyun',
    behaviour: 'weights Local-mode nodes by the number of pods on them (1:2:3)',
    olderBehaviour:
      'Local-mode weights are 100 per node (< v1.9.3.164) or truncated percentages (16/33/50): uneven load on pods',
    source: 'seeds/000, 001, 003 "How are node weights automatically set in Local mode?"',
  },
  /**
   * Cordoned (unschedulable) nodes stay backends unless `remove-unscheduled-backend: "on"`; research/ccm-behaviour.md
   * 2 step 4 ("DOC: CCM < v1.9.3.164-g2105d2e-aliyun removed them by default"), seed 004 "CCM does not, by default,
   * remove nodes that are drained ... or have scheduling disabled"; the annotation itself exists since
   * v1.9.3.164 (research/ccm-behaviour.md 3b).
   */
  keepUnschedulableNodes: {
    sinceVersion: 'v1.9.3.164-g2105d2e-aliyun',
    behaviour: 'keeps cordoned (unschedulable) nodes as backends unless remove-unscheduled-backend is "on"',
    olderBehaviour: 'removes cordoned (unschedulable) nodes from the backends',
    source: 'research/ccm-behaviour.md 2 step 4; seeds/004 "update policies for backend server groups"',
  },
  /**
   * Finalizer `service.k8s.alibaba/resources`: release notes v2.0.1 (research/ccm-behaviour.md 3c "v2.0.1
   * (2021-09-02, vgroup-port, weight, drain, finalizer)"; first open-source tag with it v2.1.0). Seed 004
   * "Do not manually delete or modify the service.k8s.alibaba/resources or service.k8s.alibaba/nlb Finalizer".
   */
  finalizer: {
    sinceVersion: 'v2.0.1',
    behaviour:
      'adds the finalizer service.k8s.alibaba/resources and releases the CLB before the Service is deleted',
    olderBehaviour: 'no finalizer: a Service deleted while CCM is down or lagging leaves its CLB behind',
    source:
      'seeds/004 "Notes on CCM-managed load balancers"; research/ccm-behaviour.md 3c (v2.0.1 release notes)',
  },
  /**
   * Named (string) targetPort in ENI mode: seeds 001/002/003 "The specified Port must be between 1 and
   * 65535 ... change targetPort to an integer, or upgrade CCM" give no version. The v2 rewrite resolves
   * named ports from the endpoints (pkg/controller/service/clbv1/vgroups.go; clbv1/model_applier_test.go
   * TestSyncVGroups, named targetPort in ENI mode), so the first v2 release, v2.0.1, is taken as the fix.
   */
  namedTargetPortEni: {
    sinceVersion: 'v2.0.1',
    behaviour: 'resolves a named (string) targetPort to the pod port in ENI mode',
    olderBehaviour: 'sends port 0 for a string targetPort: "The specified Port must be between 1 and 65535."',
    source:
      'seeds/002 and 003 error table ("The specified Port must be between 1 and 65535."); CCM ' +
      'pkg/controller/service/clbv1/vgroups.go and model_applier_test.go TestSyncVGroups (v2 resolves named ports)',
  },
  /**
   * `instance-charge-type` annotation (ACK annotation doc v2.4.0): from then on CCM changes the spec only
   * of pay-by-spec CLBs (`updateInstanceChargeTypeAndInstanceSpec`, pkg/controller/service/clbv1/loadbalancer.go);
   * before, a `spec` annotation was applied to any CLB, which fails on a PayByCLCU instance.
   */
  payBySpecOnlySpecUpdates: {
    sinceVersion: 'v2.4.0',
    behaviour: 'applies the spec annotation only to pay-by-spec CLBs',
    olderBehaviour: 'applies the spec annotation to every CLB: fails on pay-by-CLCU instances',
    source:
      'ACK annotation doc (instance-charge-type, v2.4.0; research/ccm-behaviour.md 3b); CCM ' +
      'pkg/controller/service/clbv1/loadbalancer.go updateInstanceChargeTypeAndInstanceSpec',
  },
} as const satisfies Record<string, CcmFeature>;

/** Keys of `CCM_FEATURES`. */
export type CcmFeatureKey = keyof typeof CCM_FEATURES;
