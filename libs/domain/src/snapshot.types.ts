/**
 * The FleetSnapshot: one normalised, read-only picture of a fleet of Alibaba Cloud accounts and
 * ACK clusters, as every analysis path sees it.
 *
 * The same snapshot comes from three sources (docs/architecture.md, "The one data flow"):
 *  - an offline fleet directory (`../shared/fleet-format.md`), through `loadFleetDirectory`;
 *  - the live Alibaba Cloud and Kubernetes APIs, through the live collectors;
 *  - the simulator (which is read through the live collectors).
 * Both paths map the APIs' native wire shapes (PascalCase for CLB/ECS/RAM/Quota Center, snake_case
 * for CS, Kubernetes JSON) through the same mappers in `wire-mappers.ts`, so a live scan and an
 * offline scan of the same fleet produce deep-equal snapshots.
 *
 * Convention for partial data: an optional section that is `undefined` was NOT read (permission
 * missing, API failed, file absent); the scan's `coverage` says why. Checks must report `skipped`
 * for resources whose data is `undefined`, never `pass`. An empty array means "read, and empty".
 */

/** A whole fleet: every account with its regions and ACK clusters. */
export interface FleetSnapshot {
  /** Fleet name (`fleet.yaml` `name`, or the scan config's name). */
  name: string;
  /** Accounts, sorted by `accountId`. */
  accounts: AccountSnapshot[];
  /** Which targets were read and which failed, sorted by `coverageKey`. */
  coverage: CoverageEntry[];
}

/**
 * Datasets a scan reads per target, as the keys of an interface so that a load-balancer kind's module adds its own
 * (`declare module`, beside its `LoadBalancerKindData.dataset`). Account level: `ram`. Region level: `slb` (CLB
 * instances, listeners, vServer groups), `nlb` (NLB instances, listeners, server groups, servers: the four `nlb/`
 * files), `ecs`, `vpc` (vSwitches), `quotas`, `quota-applications` (Quota Center ListQuotaApplications of the
 * kinds' products), `cs` (cluster list). Cluster level: `cluster` (detail), `addons`, `resources`, `sysctls` (node
 * ephemeral port ranges), `kubernetes` (nodes, Services, Pods, EndpointSlices, Events).
 */
export interface CoverageDatasets {
  ram: true;
  slb: true;
  nlb: true;
  ecs: true;
  vpc: true;
  quotas: true;
  'quota-applications': true;
  cs: true;
  cluster: true;
  addons: true;
  resources: true;
  sysctls: true;
  kubernetes: true;
}

/** One dataset a scan reads (a key of {@link CoverageDatasets}). */
export type CoverageDataset = keyof CoverageDatasets;

/** Outcome of reading one target (one API on one account / region / cluster). */
export type CoverageStatus = 'ok' | 'failed' | 'absent';

/**
 * One line of scan coverage: a target (account, optional region, optional cluster) and the API or
 * file it was read through. `failed` means the read errored (the data is missing and checks that
 * need it are skipped); `absent` means the source reported nothing to read (e.g. an optional file
 * that does not exist, a 404 from the API); `ok` means read in full.
 */
export interface CoverageEntry {
  accountId: string;
  regionId?: string;
  clusterId?: string;
  /** The dataset read (same names offline and live, so coverage compares across sources). */
  api: CoverageDataset;
  status: CoverageStatus;
  /** Error code as the API returned it (`Throttling.User`, `Forbidden.RAM`, `ENOENT`, ...). */
  errorCode?: string;
  /** One-line human explanation; never contains credentials. */
  message?: string;
}

/** One Alibaba Cloud account (a UID, the numeric string). */
export interface AccountSnapshot {
  accountId: string;
  name: string;
  /** Regions configured for this account, sorted. */
  regions: RegionSnapshot[];
  /** RAM roles and policies; `undefined` when not read (no permission or failed). */
  ram?: RamSnapshot;
}

/** RAM data of one account: roles, their attached policies and the policy documents. */
export interface RamSnapshot {
  roles: RamRole[];
  /** Policies by name (custom and system policies that were read). */
  policies: RamPolicy[];
  /** Role name -> attached policies (ListPoliciesForRole). Roles absent from the map were not read. */
  rolePolicies: Record<string, RamPolicyRef[]>;
}

/** A RAM role (ListRoles -> Roles.Role[]). */
export interface RamRole {
  roleName: string;
  roleId?: string;
  arn?: string;
  description?: string;
}

/** A policy attachment (ListPoliciesForRole -> Policies.Policy[]). */
export interface RamPolicyRef {
  policyName: string;
  policyType: 'System' | 'Custom' | string;
}

/** A RAM policy with its default version's document parsed. */
export interface RamPolicy {
  policyName: string;
  policyType: 'System' | 'Custom' | string;
  defaultVersion?: string;
  /** Parsed statements of the default version (RAM policy grammar: Action/NotAction string or array). */
  statements: RamStatement[];
  /**
   * Why the default version's document could not be parsed (then `statements` is empty and says
   * nothing about what the policy allows or denies). Absent when it parsed.
   */
  documentError?: string;
}

/** One statement of a RAM policy document, with Action/Resource normalised to arrays. */
export interface RamStatement {
  effect: 'Allow' | 'Deny';
  actions: string[];
  notActions: string[];
  resources: string[];
}

/** One region of one account. */
export interface RegionSnapshot {
  accountId: string;
  regionId: string;
  /** CLB instances with listeners and backend servers; `undefined` when not read. */
  loadBalancers?: Clb[];
  /**
   * NLB instances with their listeners, sorted by id; `undefined` when the region's `nlb` dataset was not read
   * (a coverage gap: NLB checks say `skipped`, never `pass`). An empty array: read, and the region has no NLB.
   */
  nlbs?: Nlb[];
  /**
   * Every NLB server group of the region with its servers, sorted by id (ListServerGroups lists groups whether
   * or not an NLB uses them: shared groups, and groups CCM left behind, which still hold a slot of the fixed
   * per-region quota). `undefined` exactly when `nlbs` is.
   */
  nlbServerGroups?: NlbServerGroup[];
  /** ECS instances; `undefined` when not read. */
  ecsInstances?: EcsInstance[];
  /** vSwitches; `undefined` when not read. */
  vSwitches?: VSwitch[];
  /**
   * Quota Center values for ProductCode slb (`slb_quota_*`) and nlb (`nlb_quota_*`); `undefined` when not read
   * (documented defaults apply).
   */
  quotas?: QuotaValue[];
  /**
   * Quota Center applications of this region for ProductCode slb and nlb (ListQuotaApplications, every status), sorted
   * by quota code then apply time; `undefined` when not read (no claim about refusals is made then).
   */
  quotaApplications?: QuotaApplicationRecord[];
  /** ACK clusters of this region, sorted by clusterId. */
  clusters: ClusterSnapshot[];
}

/** Backend server type on a CLB (SLB API `Type`: ecs, eni, eci). */
export type BackendServerType = 'ecs' | 'eni' | 'eci';

/** A backend server entry of a CLB default server group or vServer group. */
export interface BackendServer {
  /** ECS instance id (`i-...`), ENI id (`eni-...`) or ECI id. */
  serverId: string;
  serverIp?: string;
  /** Backend port (vServer groups only). */
  port?: number;
  /** Weight 0-100. */
  weight: number;
  type: BackendServerType;
  /** CCM writes the vServer group name here (`k8s/{port}/{svc}/{ns}/{clusterId}`). */
  description?: string;
}

/** A CLB listener (from DescribeLoadBalancerAttribute ListenerPortsAndProtocol). */
export interface ClbListener {
  port: number;
  protocol: string;
  /** CCM writes `k8s/{servicePort}/{svc}/{ns}/{clusterId}` here. */
  description?: string;
  vServerGroupId?: string;
  forwardPort?: number;
}

/** A CLB vServer group with its backend servers (DescribeVServerGroupAttribute). */
export interface VServerGroup {
  vServerGroupId: string;
  name: string;
  backendServers: BackendServer[];
}

/** A CLB (SLB 2014-05-15) instance: DescribeLoadBalancerAttribute plus its vServer groups. */
export interface Clb {
  loadBalancerId: string;
  name: string;
  accountId: string;
  regionId: string;
  /** `internet` or `intranet`. */
  addressType: string;
  address?: string;
  vpcId?: string;
  vSwitchId?: string;
  networkType?: string;
  /** `slb.s1.small` etc; absent or empty for shared-resource / PayByCLCU instances. */
  spec?: string;
  instanceChargeType?: string;
  /** Resource group (`ResourceGroupId`); CCM cannot change it once created. */
  resourceGroupId?: string;
  status?: string;
  /** Creation time, ISO 8601. */
  createTime?: string;
  /** Tags as a map TagKey -> TagValue. */
  tags: Record<string, string>;
  listeners: ClbListener[];
  /** The default server group (DescribeLoadBalancerAttribute BackendServers). */
  defaultBackendServers: BackendServer[];
  /** vServer groups, sorted by id. */
  vServerGroups: VServerGroup[];
}

/**
 * NLB server type (ListServerGroupServers `ServerType`): `Ecs` (ServerId = ECS instance id), `Eni` (ENI id;
 * CCM also writes ECI / virtual-node pods as `Eni`), `Eci`, `Ip` (ServerId = ServerIp = the IP). CCM writes
 * `Ecs`, `Eni` and `Ip` only (research/nlb.md 4; CCM pkg/model/nlb/nlb.go).
 */
export type NlbServerType = 'Ecs' | 'Eni' | 'Eci' | 'Ip';

/** A server of an NLB server group (NLB 2022-04-30 ListServerGroupServers -> Servers[]). */
export interface NlbServer {
  /** ECS instance id (`i-...`), ENI id (`eni-...`), ECI id, or the IP for `Ip` servers. */
  serverId: string;
  serverIp?: string;
  type: NlbServerType;
  /** Backend port (NodePort, or the targetPort in ENI mode; 0 on an any-port group). */
  port?: number;
  /** Weight 0-100. */
  weight?: number;
  /** `Adding`, `Available`, `Configuring`, `Removing`. */
  status?: string;
  zoneId?: string;
  /** CCM writes the server group name here (`k8s.{port}.{proto}.{svc}.{ns}.{clusterId}`). */
  description?: string;
}

/** An NLB server group with its servers (ListServerGroups -> ServerGroups[] plus ListServerGroupServers). */
export interface NlbServerGroup {
  serverGroupId: string;
  /** CCM names its groups `k8s.{port}.{proto}.{svc}.{ns}.{clusterId}` (research/nlb.md 3.1). */
  name: string;
  /** `Instance` (ECS / ENI / ECI servers) or `Ip`. */
  type: string;
  /** `TCP`, `UDP`, `TCPSSL`. */
  protocol?: string;
  vpcId?: string;
  status?: string;
  /** NLBs whose listeners use the group (`RelatedLoadBalancerIds`), sorted; empty for a group no NLB uses. */
  relatedLoadBalancerIds: string[];
  /** `ServerCount` as the API reports it (CCM reads it as the number of servers). */
  serverCount?: number;
  /** Tags as a map Key -> Value (CCM tags its groups `kubernetes.do.not.delete` and `ack.aliyun.com`). */
  tags: Record<string, string>;
  /** Servers, sorted by type, id, IP and port. */
  servers: NlbServer[];
}

/** An NLB listener (ListListeners -> Listeners[]). */
export interface NlbListener {
  listenerId: string;
  /** `TCP`, `UDP`, `TCPSSL`. */
  protocol: string;
  /** Listener port; 0 for a port range (then `startPort`..`endPort`). */
  port: number;
  startPort?: number;
  endPort?: number;
  /** CCM writes `k8s.{servicePort}.{proto}.{svc}.{ns}.{clusterId}` here. */
  description?: string;
  /** The one server group the listener forwards to. */
  serverGroupId?: string;
  status?: string;
}

/**
 * An NLB (Network Load Balancer, NLB 2022-04-30 ListLoadBalancers -> LoadBalancers[]) with its listeners.
 * Its server groups are the region's (`RegionSnapshot.nlbServerGroups`), named by `serverGroupIds`, so a group
 * shared by several NLBs is held once.
 */
export interface Nlb {
  loadBalancerId: string;
  name?: string;
  accountId: string;
  regionId: string;
  /** `Active`, `Provisioning`, `Inactive`, ... */
  status?: string;
  /** `Internet` or `Intranet` (as the NLB API spells it). */
  addressType?: string;
  /** `ipv4` or `DualStack`. */
  addressIpVersion?: string;
  vpcId?: string;
  /** The DNS name: what CCM writes as the Service's status hostname (NLB Services never get an IP). */
  dnsName?: string;
  zoneMappings: { zoneId: string; vSwitchId?: string }[];
  /** Creation time, ISO 8601. */
  createTime?: string;
  /** Tags as a map Key -> Value. */
  tags: Record<string, string>;
  /** Listeners, sorted by protocol, port and id. */
  listeners: NlbListener[];
  /**
   * The server groups the NLB uses: those its listeners forward to and those naming it in
   * `RelatedLoadBalancerIds`, sorted.
   */
  serverGroupIds: string[];
}

/** An ECS instance (DescribeInstances -> Instances.Instance[]). */
export interface EcsInstance {
  instanceId: string;
  name?: string;
  hostName?: string;
  regionId: string;
  zoneId?: string;
  status?: string;
  instanceType?: string;
  vpcId?: string;
  vSwitchId?: string;
  privateIps: string[];
  tags: Record<string, string>;
}

/** A vSwitch (VPC DescribeVSwitches). */
export interface VSwitch {
  vSwitchId: string;
  vpcId?: string;
  zoneId?: string;
  cidrBlock?: string;
  /** Free IP addresses, count. */
  availableIpAddressCount?: number;
}

/** One Quota Center quota value (ListProductQuotas -> Quotas[]). */
export interface QuotaValue {
  /** e.g. `slb_quota_backendservers_num`. */
  quotaActionCode: string;
  /** Applied quota, count. */
  totalQuota: number;
  /** Usage as Quota Center reports it, count. */
  totalUsage?: number;
  dimensions?: Record<string, string>;
  /**
   * Quota Center's `Adjustable` for this account: whether an application can raise it now (research/quota-center.md
   * 6). Absent when the answer did not carry it; then the documented adjustability (`QuotaDefinition.adjustable`) applies.
   */
  adjustable?: boolean;
  /** Why it cannot be raised now: `limitReached`, `nonactivated` or `applicationProcess` (an application in review). */
  unadjustableDetail?: string;
  /** The values an application may ask for now (`ApplicableRange`; a [min, max] pair when `ApplicableType` is `continuous`). */
  applicableRange?: number[];
}

/**
 * One Quota Center quota application as ListQuotaApplications reports it (Quota Center 2020-05-10
 * ListQuotaApplications -> QuotaApplications[]; research/quota-center.md 4).
 */
export interface QuotaApplicationRecord {
  applicationId: string;
  /** `slb` (CLB) or `nlb`. */
  productCode: string;
  /** e.g. `slb_quota_instances_num`. */
  quotaActionCode: string;
  /** `Process` (in review), `Agree` (approved), `Disagree` (refused) or `Cancel`. */
  status: string;
  /** The value asked for, count. */
  desireValue: number;
  /** The value granted, count; absent while in review or when refused. */
  approveValue?: number;
  /** The reviewer's reason (`AuditReason`), usually given with a refusal. */
  auditReason?: string;
  /** The requester's reason (`Reason`). */
  reason?: string;
  /** When it was filed (`ApplyTime`, ISO 8601 as Quota Center gives it). */
  applyTime?: string;
}

/** Network plugin of an ACK cluster, from its add-ons (`flannel`, `terway-eniip`, ...). */
export type NetworkPlugin = 'flannel' | 'terway' | 'unknown';

/** An ACK add-on instance (ListClusterAddonInstances -> addons[]). */
export interface ClusterAddon {
  name: string;
  version: string;
  state?: string;
}

/** A NodePort range with where it was read from (fleet-format.md rules). */
export interface PortRange {
  /** First port, inclusive. */
  from: number;
  /** Last port, inclusive. */
  to: number;
}

/** An ACK cluster with its cloud metadata and Kubernetes objects. */
export interface ClusterSnapshot {
  clusterId: string;
  name: string;
  accountId: string;
  regionId: string;
  /** `Kubernetes` (dedicated), `ManagedKubernetes`, `ExternalKubernetes`, ... */
  clusterType: string;
  /** `ack.pro.small`, `ack.standard`, ... */
  clusterSpec?: string;
  state?: string;
  /** Kubernetes version, e.g. `1.30.1-aliyun.1`. */
  currentVersion?: string;
  /** Creation time, ISO 8601. */
  created?: string;
  vpcId?: string;
  /** The API server CLB (`external_loadbalancer_id`). */
  apiServerLoadBalancerId?: string;
  /** Add-ons; `undefined` when not read. */
  addons?: ClusterAddon[];
  /** Network plugin derived from add-ons. */
  networkPlugin: NetworkPlugin;
  /** CCM version from the `cloud-controller-manager` add-on, if read. */
  ccmVersion?: string;
  /** The cluster's NodePort range and the rule that gave it. */
  nodePortRange: PortRange & { source: 'control_plane_config' | 'kube-apiserver-flag' | 'default' };
  /** RAM role names named by DescribeClusterResources (`ALIYUN::RAM::Role`); `undefined` when not read. */
  ramRoleNames?: string[];
  /** ECS instance id -> `net.ipv4.ip_local_port_range`; `undefined` when not read. */
  nodeLocalPortRanges?: Record<string, PortRange>;
  /**
   * The cluster's tags as a map key -> value (DescribeClustersV1 / DescribeClusterDetail `tags: [{key, value}]`,
   * research/alibaba-cloud-api.md "DescribeClustersV1"); `undefined` when the body had none. The owning team is
   * read from one of them (`owners.tagKey`, libs/domain owners.ts).
   */
  tags?: Record<string, string>;
  /** The owning team the scan resolved from `tags` and its audit settings (libs/domain owners.ts assignTeams). */
  team?: string;
  /**
   * The pod CIDR of a Flannel cluster and the per-node mask ACK carves from it (DescribeClusterDetail
   * `container_cidr`, `node_cidr_mask`; ACK "Work with Flannel": the pod CIDR block is divided evenly, one block
   * of the node mask per node). `undefined` when either is absent or unparsable (Terway clusters have no
   * `container_cidr`).
   */
  podCidr?: { cidr: string; prefixLength: number; nodeCidrMask: number };
  /** Kubernetes objects; `undefined` when the cluster's API could not be read. */
  kubernetes?: KubernetesSnapshot;
}

/** The Kubernetes objects of one cluster that the checks use. */
export interface KubernetesSnapshot {
  nodes: K8sNode[];
  services: K8sService[];
  pods: K8sPod[];
  endpointSlices: K8sEndpointSlice[];
  events: K8sEvent[];
}

/** A node taint. */
export interface K8sTaint {
  key: string;
  value?: string;
  effect: string;
}

/** A Kubernetes Node, reduced to what CCM's backend selection reads. */
export interface K8sNode {
  name: string;
  uid?: string;
  labels: Record<string, string>;
  providerId?: string;
  /** ECS instance id: text after the first `.` of providerID (CCM's rule); undefined if unparsable. */
  ecsInstanceId?: string;
  unschedulable: boolean;
  /**
   * NodeReady condition is True (`true`) or not (`false`); undefined when the node has no condition of type
   * `Ready` (no conditions at all, or see `readyConditionMissing`).
   */
  ready?: boolean;
  /**
   * The node has conditions but none of type `Ready`. CCM keeps such a node as a backend (it drops only nodes
   * with no conditions or a Ready condition that is not True: `needExcludeFromLB`,
   * pkg/controller/service/reconcile/backend/backend.go).
   */
  readyConditionMissing?: true;
  taints: K8sTaint[];
  internalIp?: string;
}

/** A Service port. */
export interface K8sServicePort {
  name?: string;
  protocol: string;
  port: number;
  targetPort?: number | string;
  nodePort?: number;
}

/** A Kubernetes Service (all types; the checks filter LoadBalancer). */
export interface K8sService {
  namespace: string;
  name: string;
  uid: string;
  type: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  finalizers: string[];
  externalTrafficPolicy?: string;
  loadBalancerClass?: string;
  selector?: Record<string, string>;
  ports: K8sServicePort[];
  /**
   * `spec.healthCheckNodePort`: allocated from the NodePort range for a LoadBalancer Service with
   * `externalTrafficPolicy: Local` (kube-proxy serves the Local health check on it).
   */
  healthCheckNodePort?: number;
  /** status.loadBalancer.ingress. */
  ingress: { ip?: string; hostname?: string }[];
  creationTimestamp?: string;
  deletionTimestamp?: string;
}

/** A Pod, reduced (node placement and, for kube-system, container args). */
export interface K8sPod {
  namespace: string;
  name: string;
  nodeName?: string;
  podIp?: string;
  phase?: string;
  labels: Record<string, string>;
  /** Container command + args, only kept for `kube-system` Pods (NodePort range flag). */
  containerArgs?: string[];
}

/** One endpoint of an EndpointSlice. */
export interface K8sEndpoint {
  addresses: string[];
  /** `conditions.ready` is not false (the API reads an unset condition as ready). */
  ready: boolean;
  /**
   * `conditions.ready` is unset. CCM adds an address only when the condition is set and true
   * (`setBackendsFromEndpointSlices`, pkg/controller/service/clbv1/vgroups.go).
   */
  readyUnset?: true;
  terminating: boolean;
  nodeName?: string;
  targetRefName?: string;
}

/** A discovery.k8s.io/v1 EndpointSlice. */
export interface K8sEndpointSlice {
  namespace: string;
  name: string;
  /** Label `kubernetes.io/service-name`. */
  serviceName?: string;
  ports: { name?: string; port?: number; protocol?: string }[];
  endpoints: K8sEndpoint[];
}

/** A core/v1 Event. */
export interface K8sEvent {
  namespace: string;
  name: string;
  type: string;
  reason: string;
  message: string;
  involvedObject: { kind: string; namespace?: string; name: string; uid?: string };
  count: number;
  /** ISO 8601 (lastTimestamp, else eventTime, else firstTimestamp). */
  lastTimestamp?: string;
}
