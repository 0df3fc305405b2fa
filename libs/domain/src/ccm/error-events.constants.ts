/**
 * The Service error table of the ACK docs, as data: each row is an error message CCM records on a Service
 * (Warning event `SyncLoadBalancerFailed`, ...), its cause and its solution.
 *
 * Source: seed 002 (`ACK "Troubleshoot LoadBalancer services" (docs/sources.md#ack-troubleshooting)`, "Troubleshoot LoadBalancer services", section
 * "Service error events and solutions"); the older wordings of seed 001 (`ACK "Service FAQ" (docs/sources.md#ack-service-faq)`,
 * "Error messages reported for Services and solutions") and seed 003 (`ACK "Service FAQ" (docs/sources.md#ack-service-faq)`,
 * "Service error messages and solutions", which adds "The specified VSwitch does not exist"). Cause and
 * solution texts are the seed's, lightly condensed. CCM wraps messages as
 * `Error syncing load balancer [<lbId>]: Message: <text>` (CCM notes 6 (docs/sources.md#ccm-6)), so patterns match
 * anywhere in the message.
 */
import type { Severity } from '../finding.types';

/** One row of the error table. */
export interface CcmErrorRow {
  /** Stable id of the row (kebab-case); reports and tests use it. */
  id: string;
  /** The error message as the seed prints it (seed 002 unless `seed` says otherwise). */
  message: string;
  /** Older / other wordings of the same error in seeds 001 and 003. */
  otherWordings: readonly string[];
  /** Case-insensitive patterns; a message matches the row when any pattern matches. */
  patterns: readonly RegExp[];
  /** The seed's "Cause" column. */
  cause: string;
  /** The seed's "Solution" column. */
  solution: string;
  /** How bad it is for the Service (checks.md "Severity"). */
  severity: Severity;
  /** Which seed file(s) and row. */
  source: string;
  /** The check that measures the condition before the event happens, when there is one. */
  relatedCheck?: string;
}

const S002 = 'ACK "Troubleshoot LoadBalancer services" (docs/sources.md#ack-troubleshooting) "Service error events and solutions"';
const S001 = 'ACK "Service FAQ" (docs/sources.md#ack-service-faq) "Error messages reported for Services and solutions"';
const S003 = 'ACK "Service FAQ" (docs/sources.md#ack-service-faq) "Service error messages and solutions"';
/** NLB rows: the ACK NLB annotation page and CCM's nlb-controller messages (research/nlb.md 8). */
const SNLB = 'ACK "Configure an NLB instance by using annotations" (docs/sources.md#ack-nlb-annotations)';

/**
 * Every row of seed 002's error table (in its order), plus seed 003's "The specified VSwitch does not
 * exist". The first matching row wins, so more specific rows come before broader ones where they overlap
 * (none of the patterns below overlap on the seed texts; the table test proves it).
 */
export const CCM_ERROR_ROWS: readonly CcmErrorRow[] = [
  {
    id: 'backend-quota',
    message: 'The backend server number has reached to the quota limit of this load balancers',
    otherWordings: [
      'The backend server number has reached to the quota limit of this load balancer',
      'InstanceBackendServerNumberOverLimit',
    ],
    patterns: [
      /backend server number has reached to the quota limit/i,
      /InstanceBackendServerNumberOverLimit/,
    ],
    cause: 'The CLB instance has reached the 200-backend-server quota limit.',
    solution:
      'Do one of the following: 1. Request a quota increase on the SLB Quota Management page. 2. Set ' +
      'externalTrafficPolicy: Local to reduce backend server consumption. If you keep Cluster mode, add the ' +
      'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-backend-label annotation to limit which nodes are added ' +
      'as backends. 3. Create a new CLB instance instead of sharing one across multiple services.',
    severity: 'critical',
    source: `${S002} row 1; ${S001} rows 1-2 (vServer quota, cumulative over Services); ${S003} row 1`,
    relatedCheck: 'CLB_BACKEND_QUOTA',
  },
  {
    id: 'eni-on-shared-clb',
    message: 'The loadbalancer does not support backend servers of eni type',
    otherWordings: [],
    patterns: [/does not support backend servers of eni type/i],
    cause: 'Shared CLB instances do not support Elastic Network Interface (ENI) backends.',
    solution:
      'Add the annotation service.beta.kubernetes.io/alibaba-cloud-loadbalancer-spec: "slb.s1.small" to use a ' +
      'high-performance CLB instance. Verify that the annotation is supported by your CCM version.',
    severity: 'critical',
    source: `${S002} row 2; ${S001}; ${S003}`,
    relatedCheck: 'LB_SHARED_SPEC_DISCONTINUED',
  },
  {
    id: 'no-available-nodes',
    message: 'There are no available nodes for LoadBalancer',
    otherWordings: ['There are no available nodes for NetworkLoadBalancer'],
    patterns: [/There are no available nodes for (Network)?LoadBalancer/i],
    cause: 'The CLB instance has no backend servers.',
    solution:
      'Check the pod status: if no pod is associated with the service, add a matching application pod; if the ' +
      'pod is unhealthy, resolve the pod issue first; if the pod is running but not added as a backend, check ' +
      'whether the pod is on a master node and evict it to a worker node.',
    severity: 'critical',
    source: `${S002} row 3; ${S003}; CCM clbv1/vgroups.go (reason UnAvailableLoadBalancer)`,
    relatedCheck: 'LB_NO_BACKENDS',
  },
  {
    id: 'lb-not-found',
    message:
      "alicloud: not able to find loadbalancer named [%s] in openapi, but it's defined in service.loaderbalancer.ingress... " +
      "or alicloud: can not find loadbalancer, but it's defined in service",
    otherWordings: [
      "alicloud: not able to find loadbalancer named [%s] in openapi, but it's defined in service.loaderbalancer.ingress. this may happen when you removed loadbalancerid annotation",
      "alicloud: can not find loadbalancer, but it's defined in service [%v] this may happen when you delete the loadbalancer",
      'alicloud: user specified loadbalancer[%s] does not exist. pls check',
    ],
    patterns: [
      /not able to find loadbalancer named/i,
      /can not find loadbalancer, but it'?s defined in service/i,
      /user specified loadbalancer\s*\[[^\]]*\] does not exist/i,
    ],
    cause: 'The CLB instance referenced by the service cannot be found.',
    solution:
      "Search for the CLB instance in the Server Load Balancer console using the service's EXTERNAL-IP. If the CLB " +
      'instance no longer exists and the service is not needed, delete the service. If the CLB instance exists and ' +
      'was created manually, add the service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id annotation. If the ' +
      'CLB instance was created by CCM, add the kubernetes.do.not.delete tag to it (see "How do I rename an SLB ' +
      'instance if I am using an earlier version of CCM?").',
    severity: 'critical',
    source: `${S002} row 4; ${S001} (v1.9.3 wording); ${S003}; CCM v1.9.3 cloud-controller-manager/loadbalancer.go`,
    relatedCheck: 'LB_NOT_FOUND_FOR_SERVICE',
  },
  {
    id: 'account-arrearage',
    message: 'ORDER.ARREARAGE Message: The account is arrearage.',
    otherWordings: [],
    patterns: [/ORDER\.ARREARAGE/, /account is arrearage/i],
    cause: 'The account has an overdue payment.',
    solution: 'Settle the overdue payment.',
    severity: 'critical',
    source: `${S002} row 5; ${S001}; ${S003}`,
  },
  {
    id: 'insufficient-balance',
    message: 'PAY.INSUFFICIENT_BALANCE Message: Your account does not have enough balance.',
    otherWordings: [],
    patterns: [/PAY\.INSUFFICIENT_BALANCE/, /account does not have enough balance/i],
    cause: 'The account balance is insufficient (seeds 001/003: less than CNY 100).',
    solution: 'Top up the account balance.',
    severity: 'critical',
    source: `${S002} row 6; ${S001} ("less than CNY 100"); ${S003}`,
  },
  {
    id: 'throttling',
    message: 'Status Code: 400 Code: Throttlingxxx',
    otherWordings: ['Throttling.User', 'Throttling.Api'],
    patterns: [/Code:\s*Throttling/i, /\bThrottling(\.[A-Za-z]+)+/],
    cause: 'The CLB OpenAPI is being throttled.',
    solution:
      '1. Check your CLB quota on the SLB Quota Management page. 2. Check for service errors and resolve them: ' +
      'kubectl -n {your-namespace} describe svc {your-svc-name}.',
    severity: 'warning',
    source: `${S002} row 7; ${S001}; ${S003}; CCM pkg/provider/alibaba/util/helper.go IsThrottlingError`,
    relatedCheck: 'CCM_LARGE_SCALE_RISK',
  },
  {
    id: 'rspool-vip-exist',
    message:
      'Status Code: 400 Code: RspoolVipExist Message: there are vips associating with this vServer group.',
    otherWordings: [],
    patterns: [/RspoolVipExist/, /there are vips associating with this vServer group/i],
    cause: 'The listener linked to the vServer group cannot be deleted.',
    solution:
      '1. Check whether the service annotation contains a CLB ID (service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id). ' +
      'If it does, the CLB instance is being reused. 2. In the CLB console, delete the listener that corresponds to ' +
      'the port defined in the service.',
    severity: 'warning',
    source: `${S002} row 8; ${S001}; ${S003}`,
  },
  {
    id: 'network-conflict',
    message: 'Status Code: 400 Code: NetworkConflict',
    otherWordings: [],
    patterns: [/NetworkConflict/],
    cause: 'The internal-facing CLB instance is in a different Virtual Private Cloud (VPC) than the cluster.',
    solution:
      'Move the CLB instance to the same VPC as the cluster, or create a new CLB instance in the correct VPC.',
    severity: 'critical',
    source: `${S002} row 9; ${S001}; ${S003}`,
    relatedCheck: 'LB_REUSE_CROSS_VPC',
  },
  {
    id: 'vswitch-no-ip',
    message:
      'Status Code: 400 Code: VSwitchAvailableIpNotExist Message: The specified VSwitch has no available ip.',
    otherWordings: [],
    patterns: [/VSwitchAvailableIpNotExist/, /VSwitch has no available ip/i],
    cause: 'The vSwitch has no available IP addresses.',
    solution:
      'Add the annotation service.beta.kubernetes.io/alibaba-cloud-loadbalancer-vswitch-id: "${YOUR_VSWITCH_ID}" to ' +
      'specify a different vSwitch in the same VPC.',
    severity: 'critical',
    source: `${S002} row 10; ${S001}; ${S003}`,
    relatedCheck: 'VSWITCH_IP_EXHAUSTION',
  },
  {
    id: 'vswitch-not-exist',
    message: 'Message:The specified VSwitch does not exist.',
    otherWordings: [],
    patterns: [/specified VSwitch does not exist/i, /InvalidVSwitchId\.NotExist/i],
    cause: 'The specified vSwitch does not exist.',
    solution:
      'If the Service has the service.beta.kubernetes.io/alibaba-cloud-loadbalancer-vswitch-id annotation, verify ' +
      "that the vSwitch exists; otherwise verify that the cluster's default vSwitch exists (the Node vSwitch of the " +
      'default node pool). If it does not, use the vswitch-id annotation to specify an existing vSwitch.',
    severity: 'critical',
    source: `${S003} ("Message:The specified VSwitch does not exist."; not in seed 002)`,
    relatedCheck: 'VSWITCH_IP_EXHAUSTION',
  },
  {
    id: 'string-target-port',
    message: 'The specified Port must be between 1 and 65535.',
    otherWordings: [],
    patterns: [/Port must be between 1 and 65535/i],
    cause: 'ENI mode does not support string values for targetPort.',
    solution: 'Change targetPort to an integer in the service YAML, or upgrade CCM.',
    severity: 'critical',
    source: `${S002} row 11; ${S001}; ${S003}`,
    relatedCheck: 'SERVICE_ENI_STRING_TARGETPORT',
  },
  {
    id: 'shared-clb-discontinued',
    message: 'Status Code: 400 Code: ShareSlbHaltSales Message: The share instance has been discontinued.',
    otherWordings: [],
    patterns: [/ShareSlbHaltSales/, /share instance has been discontinued/i],
    cause: 'Older CCM versions create shared CLB instances by default, which are now discontinued.',
    solution: 'Upgrade the CCM component.',
    severity: 'critical',
    source: `${S002} row 12; ${S001}; ${S003}`,
    relatedCheck: 'LB_SHARED_SPEC_DISCONTINUED',
  },
  {
    id: 'resource-group-immutable',
    message: 'can not change ResourceGroupId once created',
    otherWordings: ['alicloud: can not change ResourceGroupId once created'],
    patterns: [/can not change ResourceGroupId once created/i],
    cause: 'The CLB resource group cannot be changed after instance creation.',
    solution:
      'Remove the service.beta.kubernetes.io/alibaba-cloud-loadbalancer-resource-group-id:"rg-xxxx" annotation from the service.',
    severity: 'critical',
    source: `${S002} row 13; ${S003}; CCM clbv1/loadbalancer.go Update`,
    relatedCheck: 'SERVICE_IMMUTABLE_CHANGE',
  },
  {
    id: 'eni-id-not-found',
    message: 'can not find eniid for ip x.x.x.x in vpc vpc-xxxx',
    otherWordings: [],
    patterns: [/can not find eniid for ip/i],
    cause:
      'The ENI IP address cannot be found in the VPC. This occurs when service.beta.kubernetes.io/backend-type: eni ' +
      'is set but the cluster uses the Flannel network plugin, which does not support ENI mode.',
    solution: 'Remove the service.beta.kubernetes.io/backend-type: eni annotation from the service.',
    severity: 'critical',
    source: `${S002} row 14; ${S003}; CCM clbv1/vgroups.go updateVServerGroupENIBackendID`,
    relatedCheck: 'SERVICE_ENI_ON_FLANNEL',
  },
  {
    id: 'pay-by-clcu-spec',
    message:
      'The operation is not allowed because the instanceChargeType of loadbalancer is PayByCLCU. or User does not ' +
      'have permission modify InstanceChargeType to spec.',
    otherWordings: [
      'The operation is not allowed because the instanceChargeType of loadbalancer is PayByCLCU.',
      'User does not have permission modify InstanceChargeType to spec.',
    ],
    patterns: [
      /instanceChargeType of loadbalancer is PayByCLCU/i,
      /permission modify InstanceChargeType to spec/i,
    ],
    cause: 'The CLB billing method cannot change from pay-as-you-go (PayByCLCU) to pay-by-specification.',
    solution:
      'Remove the service.beta.kubernetes.io/alibaba-cloud-loadbalancer-spec annotation, or, if the service has the ' +
      'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-instance-charge-type annotation, set its value to PayByCLCU.',
    severity: 'critical',
    source: `${S002} row 15; ${S003}`,
    relatedCheck: 'SERVICE_IMMUTABLE_CHANGE',
  },
  {
    id: 'reuse-ccm-created',
    message:
      'SyncLoadBalancerFailed the loadbalancer xxx can not be reused, can not reuse loadbalancer created by kubernetes.',
    otherWordings: [
      'alicloud: the loadbalancer lb-xxx can not be reused, can not reuse loadbalancer created by kubernetes.',
    ],
    patterns: [/can not reuse loadbalancer created by kubernetes/i],
    cause:
      'The CLB instance was created by CCM and cannot be reused via the ' +
      'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id annotation.',
    solution:
      'Find the CLB ID in the loadbalancer-id annotation. If the service is pending, replace it with the ID of a CLB ' +
      'instance you created manually in the CLB console. If it is not pending and the CLB IP matches the service ' +
      'EXTERNAL-IP, delete the annotation. If the IP does not match, find the CLB instance matching the EXTERNAL-IP and ' +
      'update the annotation with its ID; if none matches, use the ID of a manually created CLB and recreate the service.',
    severity: 'critical',
    source: `${S002} row 16; ${S003}; CCM clbv1/model_applier.go isLoadBalancerReusable`,
    relatedCheck: 'LB_REUSE_OF_CCM_CREATED',
  },
  {
    id: 'address-type-immutable',
    message: 'alicloud: can not change LoadBalancer AddressType once created. delete and retry',
    otherWordings: [],
    patterns: [/can not change LoadBalancer AddressType once created/i],
    cause: 'The CLB instance type cannot be changed after creation.',
    solution: 'Delete the service and recreate it.',
    severity: 'critical',
    source: `${S002} row 17; ${S003}; CCM clbv1/loadbalancer.go Update`,
    relatedCheck: 'SERVICE_IMMUTABLE_CHANGE',
  },
  {
    id: 'rebind-different-lb',
    message:
      'the loadbalancer lb-xxxxx can not be reused, service has been associated with ip [xxx.xxx.xxx.xxx], cannot be ' +
      'bound to ip [xxx.xxx.xxx.xxx]',
    otherWordings: [],
    patterns: [/service has been associated with ip \[[^\]]*\],\s*cannot be bound to ip/i],
    cause:
      'The service is already bound to a CLB instance and cannot be rebound to a different one by changing the annotation.',
    solution: 'Delete the service and recreate it with the correct CLB instance ID.',
    severity: 'critical',
    source: `${S002} row 18; ${S003}; CCM clbv1/model_applier.go isLoadBalancerReusable`,
    relatedCheck: 'SERVICE_IMMUTABLE_CHANGE',
  },
  // NLB rows: the messages CCM's nlb-controller fails a sync with (pkg/controller/service/nlbv2), with the
  // ACK NLB annotation page's rules. A reused CCM-created NLB matches `reuse-ccm-created` above (same wording).
  {
    id: 'nlb-zone-maps-missing',
    message: 'build nlb attribute error: ParameterMissing, zone mappings are required',
    otherWordings: [],
    patterns: [/zone mappings are required/i],
    cause: 'The NLB Service asks CCM to create an NLB but has no zone-maps annotation; a new NLB needs at least two zones.',
    solution:
      'Add service.beta.kubernetes.io/alibaba-cloud-loadbalancer-zone-maps: "<zone-a>:<vsw-a>,<zone-b>:<vsw-b>" (vSwitches of the cluster VPC), or reuse an existing NLB with the loadbalancer-id annotation.',
    severity: 'critical',
    source: `${SNLB} zone-maps; CCM pkg/controller/service/nlbv2/loadbalancer.go BuildLocalModel`,
    relatedCheck: 'NLB_ZONE_MAPS_MISSING',
  },
  {
    id: 'nlb-zone-maps-format',
    message: 'ZoneMapping format error, expect [zone-a:vsw-id-1,zone-b:vsw-id-2], got <value>',
    otherWordings: [],
    patterns: [/ZoneMapping format error/i],
    cause: 'The zone-maps annotation has an entry that is not zone:vSwitch[:IPv4[:EIP allocation]].',
    solution: 'Write zone-maps as comma-separated zone-id:vsw-id pairs, for example cn-hangzhou-h:vsw-xxx,cn-hangzhou-i:vsw-yyy.',
    severity: 'critical',
    source: `${SNLB} zone-maps; CCM pkg/controller/service/nlbv2/loadbalancer.go parseZoneMappings`,
    relatedCheck: 'NLB_ZONE_MAPS_MISSING',
  },
  {
    id: 'nlb-dnsname-bound',
    message:
      'the loadbalancer nlb-xxx can not be reused, service has been associated with dnsname [nlb-a...], cannot be bound to dnsname [nlb-b...]',
    otherWordings: [],
    patterns: [/service has been associated with dnsname \[[^\]]*\],\s*cannot be bound to dnsname/i],
    cause: 'The NLB Service already has an NLB (its status hostname) and the loadbalancer-id annotation was changed to another NLB.',
    solution: 'Restore the previous loadbalancer-id, or delete the Service and recreate it with the NLB to reuse.',
    severity: 'critical',
    source: `${SNLB} (reuse an existing NLB); CCM pkg/controller/service/nlbv2/model_applier.go isNLBReusable`,
    relatedCheck: 'SERVICE_IMMUTABLE_CHANGE',
  },
  {
    id: 'nlb-ip-version-immutable',
    message: 'AddressIpVersion cannot be changed, service: DualStack, nlb: ipv4',
    otherWordings: ['ResourceGroupId cannot be changed, service: rg-a, nlb: rg-b'],
    patterns: [/AddressIpVersion cannot be changed/i, /ResourceGroupId cannot be changed/i],
    cause: 'The ip-version or resource-group-id annotation asks to change a field an existing NLB cannot change.',
    solution: 'Restore the annotation to the NLB\'s value, or create a new Service (a new NLB) with the wanted IP version or resource group.',
    severity: 'critical',
    source: `${SNLB} ip-version, resource-group-id; CCM pkg/controller/service/nlbv2/loadbalancer.go NLBManager.Update`,
    relatedCheck: 'SERVICE_IMMUTABLE_CHANGE',
  },
  {
    id: 'nlb-port-range-not-eni',
    message: 'listener port range can only be used for eni backend type service',
    otherWordings: [],
    patterns: [/listener port range can only be used for eni backend type service/i],
    cause: 'The listener-port-range annotation is set on an NLB Service whose backends are not ENI (pod IPs).',
    solution: 'Use listener-port-range only with service.beta.kubernetes.io/backend-type: eni (Terway), or remove it.',
    severity: 'critical',
    source: `${SNLB} listener-port-range; CCM pkg/controller/service/nlbv2/listeners.go buildListenerFromServicePort`,
  },
  {
    id: 'nlb-listener-overlap',
    message: 'port of listener [80-443] overlaps with listener [443]',
    otherWordings: [],
    patterns: [/port of listener \[[^\]]*\] overlaps with listener/i],
    cause: 'Two listeners of the NLB Service share a port of one protocol (a port range covering another Service port).',
    solution: 'Change the listener-port-range or the Service ports so that no two listeners of one protocol overlap.',
    severity: 'critical',
    source: `${SNLB} listener-port-range; CCM pkg/controller/service/nlbv2/listeners.go checkListenersPortOverlap`,
  },
  {
    id: 'nlb-wait-jobs',
    message: 'wait jobs error: ... nlb:ListAsynJobs',
    otherWordings: ['job 123 for API EnsuredListenerChanged failed'],
    patterns: [/wait jobs error/i, /for API EnsuredListener\w* failed/i],
    cause:
      'CCM waits for the NLB\'s asynchronous listener jobs with ListAsynJobs (CCM v2.12.1 and later); without the nlb:ListAsynJobs permission, or when a job fails or takes over 30 s, the listener change fails.',
    solution:
      'For an ACK dedicated cluster, add nlb:ListAsynJobs to the master RAM role\'s CCM policy (required from CCM v2.12.1), then let CCM retry; otherwise check the job in the NLB console.',
    severity: 'critical',
    source: `ACK "Service FAQ" (docs/sources.md#ack-service-faq) "How to add required permissions when you upgrade the CCM component ... in an ACK dedicated cluster" (nlb:ListAsynJobs from v2.12.1); ${SNLB}; CCM pkg/provider/alibaba/nlb/loadbalancer.go BatchWaitJobsFinish`,
    relatedCheck: 'CCM_RAM_PERMISSION_GAP',
  },
];

/**
 * Event reasons CCM records on Services for load balancer work (pkg/controller/helper/event.go;
 * CCM notes 6 (docs/sources.md#ccm-6)). `UnAvailableLoadBalancer` is Normal in CCM v2 and Warning in v1.9.3.
 */
export const CCM_SERVICE_EVENT_REASONS: ReadonlySet<string> = new Set([
  'SyncLoadBalancerFailed',
  'UnAvailableLoadBalancer',
  'SkipSyncBackends',
  'CleanLoadBalancerFailed',
  'FailedAddFinalizer',
  'FailedRemoveFinalizer',
  'FailedAddHash',
  'FailedRemoveHash',
  'FailedUpdateStatus',
  'FailedUpdateReadinessGate',
  'FeatureNotSupported',
  'FailedSetEIPAddress',
  'PreservedOnDelete',
  // The upstream service controller (CCM v1.9.3 is built on it) used these reasons.
  'CreatingLoadBalancerFailed',
  'UpdateLoadBalancerFailed',
  'DeletingLoadBalancerFailed',
]);

/** Reason of the Normal event CCM records after a successful sync ("Ensured load balancer [<lbId>]"). */
export const CCM_EVENT_ENSURED = 'EnsuredLoadBalancer';
