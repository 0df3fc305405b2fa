/**
 * Constants of the Alibaba Cloud cloud-controller-manager (CCM, kubernetes/cloud-provider-alibaba-cloud)
 * that an audit needs to recognise what CCM owns and how it selects backends.
 *
 * Every value is cited to the CCM source file it comes from (paths relative to the CCM repository)
 * and, where the ACK docs say the same, to the seed (`../shared/seeds/`).
 */

/**
 * Tag CCM writes on every CLB/NLB it creates; the value is the Service's default LB name
 * (`defaultLoadBalancerName`). Source: `helper.TAGKEY`, pkg/controller/helper/service_utils.go;
 * seed 000 "How to enable SLB renaming for older CCM versions" (`kubernetes.do.not.delete`).
 */
export const TAG_CCM_OWNER = 'kubernetes.do.not.delete';

/**
 * Tag CCM writes on a reused LB (`loadbalancer-id` annotation), value `"true"`.
 * Source: `helper.REUSEKEY`, pkg/controller/helper/service_utils.go (first in tag v1.9.3.372).
 */
export const TAG_REUSED_BY_USER = 'kubernetes.reused.by.user';

/**
 * Tag with the cluster id, written by CCM on LBs it creates (from v1.9.3.313-g748f81e-aliyun on new
 * clusters) and carried by the API-server SLB. Source: `util.ClusterTagKey`, pkg/util/constant.go.
 */
export const TAG_CLUSTER_ID = 'ack.aliyun.com';

/** Finalizer CCM puts on Services it manages with a CLB (`helper.ServiceFinalizer`; seed 004). */
export const FINALIZER_CLB = 'service.k8s.alibaba/resources';

/** Finalizer CCM puts on Services it manages with an NLB (`helper.NLBFinalizer`; seed 004). */
export const FINALIZER_NLB = 'service.k8s.alibaba/nlb';

/** Service label CCM writes with the LB id (ACK v2.4.0+). Source: `helper.LabelLoadBalancerId`. */
export const LABEL_SERVICE_LOADBALANCER_ID = 'service.k8s.alibaba/loadbalancer-id';

/**
 * Current annotation prefix; an LB annotation key is `${prefix}-${suffix}`
 * (e.g. `service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id`).
 * Source: `AnnotationPrefix`, pkg/controller/service/reconcile/annotation/annotations.go.
 */
export const ANNOTATION_PREFIX = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer';

/**
 * Legacy annotation prefix, still accepted; the current prefix wins when both are present.
 * Source: `AnnotationLegacyPrefix`, same file; test `TestGet` in annotations_test.go.
 */
export const ANNOTATION_LEGACY_PREFIX = 'service.beta.kubernetes.io/alicloud-loadbalancer';

/** Full key of the backend type annotation (`eni` | `ecs`). Source: `helper.BackendType`. */
export const ANNOTATION_BACKEND_TYPE = 'service.beta.kubernetes.io/backend-type';

/** Non-empty value makes CCM ignore the Service. Source: `helper.LoadBalancerClass`. */
export const ANNOTATION_SERVICE_CLASS = 'service.beta.kubernetes.io/class';

/** Key presence (even empty) makes the CLB controller ignore the Service. Source: `helper.TunnelType`. */
export const ANNOTATION_TUNNEL_TYPE = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-tunnel-type';

/** `spec.loadBalancerClass` of Services the NLB controller takes. Source: `helper.NLBClass`. */
export const NLB_LOAD_BALANCER_CLASS = 'alibabacloud.com/nlb';

/**
 * Suffixes (after `${ANNOTATION_PREFIX}-`) of the annotations the audit reads.
 * Source: pkg/controller/service/reconcile/annotation/annotations.go.
 */
export const LB_ANNOTATION = {
  id: 'id',
  addressType: 'address-type',
  backendLabel: 'backend-label',
  removeUnscheduledBackend: 'remove-unscheduled-backend',
  forceOverrideListeners: 'force-override-listeners',
  vgroupPort: 'vgroup-port',
  weight: 'weight',
  defaultWeight: 'default-weight',
  spec: 'spec',
  name: 'name',
  protocolPort: 'protocol-port',
  certId: 'cert-id',
  connectionDrain: 'connection-drain',
  connectionDrainTimeout: 'connection-drain-timeout',
  resourceGroupId: 'resource-group-id',
  instanceChargeType: 'instance-charge-type',
  vswitchId: 'vswitch-id',
  hostname: 'hostname',
  externalIpType: 'external-ip-type',
  ignoreWeightUpdate: 'ignore-weight-update',
} as const;

/** Node label: CCM never adds master-labelled nodes (only this key, not `control-plane`). Source: helper/node_utils.go. */
export const LABEL_NODE_ROLE_MASTER = 'node-role.kubernetes.io/master';

/** Node taint key of nodes the cluster autoscaler is about to delete (CCM v2.4.0+). Source: helper/node_utils.go. */
export const TAINT_TO_BE_DELETED = 'ToBeDeletedByClusterAutoscaler';

/**
 * Node label keys (any value) that exclude a node from LB backends.
 * Source: `IsNodeExcludeFromLoadBalancer` / `HasExcludeLabel`, pkg/controller/helper/node_utils.go.
 */
export const NODE_EXCLUDE_LABEL_KEYS: readonly string[] = [
  'node.kubernetes.io/exclude-from-external-load-balancers',
  'alpha.service-controller.kubernetes.io/exclude-balancer',
  'service.beta.kubernetes.io/exclude-node',
  'service.alibabacloud.com/exclude-node',
];

/** providerID prefix of hybrid nodes, never LB backends (ACK v2.12.1). Source: research ccm-behaviour.md 2.2. */
export const HYBRID_PROVIDER_ID_PREFIX = 'ack-hybrid://';

/** Label `type=virtual-kubelet`: a VK (ECI) node, whose pods join as ENI backends. Source: `helper.LabelNodeTypeVK`. */
export const LABEL_NODE_TYPE = 'type';
/** Value of `LABEL_NODE_TYPE` on virtual-kubelet nodes. */
export const NODE_TYPE_VIRTUAL_KUBELET = 'virtual-kubelet';

/**
 * Default backend weight in Cluster and ENI modes (0-100). Source: `DefaultServerWeight`,
 * pkg/controller/service/clbv1/vgroups.go.
 */
export const DEFAULT_SERVER_WEIGHT = 100;

/**
 * Backends CCM adds, removes or updates per batch call (its `--sg-batch-size` flag, default 40;
 * pkg/config/controller_config.go). The audit's CCM scale check and the what-if convergence estimate both count
 * batch calls with it.
 */
export const CCM_BACKEND_BATCH_SIZE = 40;

/** Service syncs per second CCM's workqueue lets through (its global bucket, 10 qps; clbv1/service_controller.go). */
export const CCM_WORKQUEUE_QPS = 10;

/**
 * Terway clusters created on or after this date default to ENI backends (CLB annotation doc:
 * backend-type default is `ecs` for Flannel and for Terway clusters created before 2020-08-10,
 * `eni` for those created after; release v1.9.3.313-g748f81e-aliyun, 2020-08-10). ISO 8601, UTC.
 */
export const TERWAY_ENI_DEFAULT_SINCE = '2020-08-10T00:00:00Z';

/** Role CCM uses in managed clusters (research ccm-behaviour.md 5.3). */
export const MANAGED_CLUSTER_CCM_ROLE = 'AliyunCSManagedKubernetesRole';

/** Name prefix of the master RAM role of a dedicated cluster (fleet-format.md; seed 000). */
export const MASTER_ROLE_PREFIX = 'KubernetesMasterRole-';

/** Name prefix of the master role's custom policy; `k8sMasterRolePolicy-Ccm-` on newer clusters (seed 000). */
export const MASTER_POLICY_PREFIX = 'k8sMasterRolePolicy-';

/** `cluster_type` of an ACK dedicated cluster (CCM runs under the master RAM role). */
export const CLUSTER_TYPE_DEDICATED = 'Kubernetes';
