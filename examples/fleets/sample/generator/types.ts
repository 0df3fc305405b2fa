/**
 * Types of the sample fleet model (model.ts): what the scenarios build and the emitters write. Cloud bodies
 * (`EcsInstance`, `VServerGroup`, `Eni`, `Backend`) are in the native API shape; the others are the model's
 * own records, turned into native shapes by emit/*.ts.
 */
import type { RegionId } from './random';

/** A tag as `[key, value]`. */
export type Tag = readonly [key: string, value: string];

/** An Alibaba Cloud account of the sample. */
export interface Account {
  id: string;
  name: string;
  /** Resource group id (`rg-acfm...`) every resource of the account is in. */
  rg: string;
  regions: Record<string, Region>;
}

/** One region of one account: what its `regions/<regionId>/` directory holds. */
export interface Region {
  id: RegionId;
  account: Account;
  vswitches: VSwitch[];
  ecs: EcsInstance[];
  lbs: Clb[];
  vgroups: VServerGroup[];
  /** NLBs of the region (`nlb/load-balancers.json`, emitted by `nlbBody`). */
  nlbs: Nlb[];
  /** NLB ListListeners items (`nlb/listeners.json`). */
  nlbListeners: NlbListener[];
  /** NLB ListServerGroups items (`nlb/server-groups.json`), leaked groups included. */
  nlbServerGroups: NlbServerGroup[];
  /** NLB ListServerGroupServers items of every group (`nlb/servers.json`). */
  nlbServers: NlbServer[];
  clusters: Cluster[];
  /** Quota Center `slb` quotas; written as `quotas.json` only when set. */
  quotas?: Quota[];
  /** Quota Center applications already filed for the region's quotas; written as `quota-applications.json` only when set. */
  quotaApplications?: QuotaApplication[];
  /** The console-created CLB the README and tests name (`ids.json` `consoleLoadBalancer`). */
  consoleLb?: Clb;
  /** The shared-services CLB (`ids.json` `sharedServicesLoadBalancer`). */
  sharedLb?: Clb;
}

/** VPC DescribeVSwitches item (before the emitter adds status, creation time and resource group). */
export interface VSwitch {
  VSwitchId: string;
  VpcId: string;
  ZoneId: string;
  CidrBlock: string;
  VSwitchName: string;
  AvailableIpAddressCount: number;
}

/** An ECS network interface as DescribeInstances returns it. */
export interface Eni {
  NetworkInterfaceId: string;
  Type: 'Primary' | 'Secondary';
  MacAddress: string;
  PrimaryIpAddress: string;
  PrivateIpSets: { PrivateIpSet: { PrivateIpAddress: string; Primary: boolean }[] };
}

/** ECS DescribeInstances `Instances.Instance[]` item. */
export interface EcsInstance {
  InstanceId: string;
  InstanceName: string;
  HostName: string;
  Description: string;
  RegionId: string;
  ZoneId: string;
  Status: string;
  InstanceType: string;
  InstanceTypeFamily: string;
  Cpu: number;
  Memory: number;
  OSType: string;
  OSName: string;
  OSNameEn: string;
  ImageId: string;
  InstanceChargeType: string;
  InternetChargeType: string;
  InstanceNetworkType: string;
  IoOptimized: boolean;
  DeletionProtection: boolean;
  CreationTime: string;
  StartTime: string;
  ExpiredTime: string;
  ResourceGroupId: string;
  SecurityGroupIds: { SecurityGroupId: string[] };
  VpcAttributes: { VpcId: string; VSwitchId: string; NatIpAddress: string; PrivateIpAddress: { IpAddress: string[] } };
  NetworkInterfaces: { NetworkInterface: Eni[] };
  PublicIpAddress: { IpAddress: string[] };
  InnerIpAddress: { IpAddress: string[] };
  EipAddress: { AllocationId: string; IpAddress: string; InternetChargeType: string };
  OperationLocks: { LockReason: string[] };
  Tags: { Tag: { TagKey: string; TagValue: string }[] };
}

/** Options of `ecsInstance`. */
export interface EcsOptions {
  id?: string;
  name: string;
  ip: string;
  zone: string;
  /** Instance type; must be one of `ECS_TYPES`. */
  type: string;
  image?: string;
  created: Date;
  sg: string;
  vpc: string;
  vsw: string;
  tags?: Tag[];
  secondaryEnis?: Eni[];
}

/** A backend server of a CLB's default server group or of a vServer group (SLB API shape). */
export interface Backend {
  ServerId: string;
  ServerIp: string;
  Port?: number | string;
  Weight: number;
  /** `ecs` or `eni`. */
  Type: string;
  Description?: string;
}

/** A CLB listener (emitted into `ListenerPortsAndProtocol`). */
export interface Listener {
  port: number;
  /** Lower-case listener protocol (`tcp`, `udp`, `http`, `https`). */
  protocol: string;
  /** HTTP listener forwarding to this HTTPS port. */
  forward?: number;
  description?: string;
}

/** A CLB of the model; emitted as a DescribeLoadBalancerAttribute body by `clbBody`. */
export interface Clb {
  id: string;
  reg: Region;
  name: string;
  addressType: 'internet' | 'intranet';
  address: string | undefined;
  /** VPC and vSwitch of an intranet CLB (empty for internet CLBs). */
  vpc: string | undefined;
  vsw: string | undefined;
  spec: string | undefined;
  charge: string;
  /** A shared-resource CLB (no `LoadBalancerSpec`). */
  shared: boolean;
  created: Date;
  tags: Tag[];
  listeners: Listener[];
  backends: Backend[];
  deleteProtection: string;
  modProtection: readonly [status: string, reason: string];
  zones: readonly [master: string, slave: string];
  /** Extra body fields (renewal settings of the documented responseDemo). */
  extra: Record<string, string | number>;
}

/** Options of `clb`. */
export interface ClbOptions {
  id?: string;
  name: string;
  addressType?: 'internet' | 'intranet';
  address?: string;
  vpc?: string;
  vsw?: string;
  spec?: string;
  charge?: string;
  shared?: boolean;
  created: Date;
  tags?: Tag[];
  backends?: Backend[];
  deleteProtection?: string;
  modProtection?: readonly [string, string];
  zones?: readonly [string, string];
  extra?: Record<string, string | number>;
}

/** SLB DescribeVServerGroupAttribute body. */
export interface VServerGroup {
  VServerGroupId: string;
  VServerGroupName: string;
  LoadBalancerId: string;
  CreateTime: string;
  BackendServers: { BackendServer: Backend[] };
}

/** An NLB of the model; emitted as a ListLoadBalancers item by `nlbBody`. */
export interface Nlb {
  id: string;
  reg: Region;
  name: string;
  addressType: 'Internet' | 'Intranet';
  vpc: string;
  /** `[zoneId, vSwitchId]` per zone (CCM's `zone-maps` annotation). */
  zones: readonly (readonly [zone: string, vsw: string])[];
  created: Date;
  tags: Tag[];
}

/** NLB 2022-04-30 ListListeners `Listeners[]` item. */
export interface NlbListener {
  ListenerId: string;
  LoadBalancerId: string;
  ListenerProtocol: string;
  ListenerPort: number;
  ListenerDescription: string;
  ServerGroupId: string;
  ListenerStatus: string;
  IdleTimeout: number;
  RegionId: string;
}

/** NLB 2022-04-30 ListServerGroups `ServerGroups[]` item. */
export interface NlbServerGroup {
  ServerGroupId: string;
  ServerGroupName: string;
  ServerGroupType: 'Instance' | 'Ip';
  ServerGroupStatus: string;
  Protocol: string;
  VpcId: string;
  AddressIPVersion: string;
  Scheduler: string;
  RelatedLoadBalancerIds: string[];
  ServerCount: number;
  ResourceGroupId: string;
  RegionId: string;
  Tags: { Key: string; Value: string }[];
}

/** NLB 2022-04-30 ListServerGroupServers `Servers[]` item. */
export interface NlbServer {
  ServerGroupId: string;
  ServerId: string;
  ServerIp: string;
  ServerType: 'Ecs' | 'Eni' | 'Ip';
  Port: number;
  Weight: number;
  Status: string;
  ZoneId: string;
  Description: string;
}

/** Quota Center ListProductQuotas item (product `slb`). */
export type Quota = Record<string, unknown>;

/** Quota Center ListQuotaApplications item (research/quota-center.md 4). */
export type QuotaApplication = Record<string, unknown>;

/** A node pool: its id and the scaling group behind it. */
export interface NodePool {
  id: string;
  asg: string;
}

/** What a scenario says about a cluster. */
export interface ClusterOptions {
  id: string;
  name: string;
  /** ACK `cluster_type`: `Kubernetes` (dedicated) or `ManagedKubernetes`. */
  type: 'Kubernetes' | 'ManagedKubernetes';
  /** ACK `cluster_spec` (`ack.pro.small`, `ack.standard`), absent on old managed clusters. */
  spec?: string;
  createdAt: Date;
  version: string;
  initVersion: string;
  plugin: 'flannel' | 'terway';
  /** The `cloud-controller-manager` add-on version. */
  ccm: string;
  vpc: string;
  nodeVsw: VSwitch[];
  sg: string;
  /** Flannel: first two octets of the container CIDR. */
  podBase?: string;
  /** Terway: first two octets of the pod vSwitches, and the third octet of the first one. */
  podNet?: string;
  podThird?: number;
  containerCidr: string;
  serviceCidr: string;
  /** First two octets of the Service CIDR (cluster IPs). */
  serviceNet: string;
  /** `--service-node-port-range` of a dedicated cluster's kube-apiserver Pods. */
  nodePortFlag?: string;
  /** `control_plane_config.node_port_range` of a managed cluster. */
  nodePortRange?: string;
  masterRoleUuid?: string;
  workerRoleUuid?: string;
}

/** A cluster of the model. */
export interface Cluster extends ClusterOptions {
  reg: Region;
  account: Account;
  nodes: Node[];
  services: Service[];
  pods: Pod[];
  events: ServiceEvent[];
  /** Last Terway pod IP sequence number drawn. */
  podIpSeq?: number;
  /** The API server CLB (`external_loadbalancer_id`), set by `apiServerClb`. */
  apiLb?: Clb;
  masterRole?: string;
  workerRole?: string;
  orphanUid?: string;
  orphanLb?: Clb;
}

/** Options of `addNode`. */
export interface NodeOptions {
  ip: string;
  vsw: VSwitch;
  master?: boolean;
  ready?: boolean;
  cordoned?: boolean;
  created: Date;
  type: string;
  nodepool?: NodePool;
}

/** A Kubernetes node and its ECS instance. */
export interface Node {
  /** Index in the cluster's node list. */
  k: number;
  name: string;
  ip: string;
  zone: string;
  vsw: VSwitch;
  master: boolean;
  ready: boolean;
  cordoned: boolean;
  uid: string;
  created: Date;
  type: string;
  nodepool: NodePool | undefined;
  podCidr: string | undefined;
  podSeq: number;
  /** Terway: the secondary ENI holding the node's pod IPs. */
  podEni: Eni | undefined;
  ecs: EcsInstance;
  ecsId: string;
}

/** A container port of a pod. */
export interface ContainerPort {
  containerPort: number;
  name: string;
}

/** Options of `deploy`. */
export interface DeployOptions {
  ns: string;
  app: string;
  containerName?: string;
  labels?: Record<string, string>;
  /** One pod per entry, on that node. */
  on: Node[];
  created: Date;
  image: string;
  containerPorts: ContainerPort[];
  hostNetwork?: boolean;
}

/** A pod of a Deployment. */
export interface Pod {
  ns: string;
  name: string;
  uid: string;
  labels: Record<string, string>;
  node: Node;
  ip: string;
  created: Date;
  image: string;
  containerPorts: ContainerPort[];
  rs: { name: string; uid: string };
  ready: boolean;
  containerName: string;
}

/** A Service port; `lbProtocol` (the CLB listener protocol) is not part of the Kubernetes object. */
export interface ServicePort {
  appProtocol?: string;
  name: string;
  port: number;
  protocol: string;
  targetPort: number | string;
  nodePort: number;
  lbProtocol?: string;
}

/** Options of `service`. */
export interface ServiceOptions {
  ns: string;
  name: string;
  type?: 'LoadBalancer' | 'NodePort';
  uid?: string;
  created: Date;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  policy?: 'Cluster' | 'Local';
  /** ENI backends (pod IPs on their ENIs). */
  eni?: boolean;
  ports: ServicePort[];
  selector?: Record<string, string>;
  pods?: Pod[];
  clusterIp?: string;
  healthCheckNodePort?: number;
  finalizer?: boolean;
  /** `spec.loadBalancerClass` (`alibabacloud.com/nlb`: an NLB Service, `ccmNlb` gives it its NLB). */
  loadBalancerClass?: string;
  /** Provenance comment lines written above `services.yaml` (objects copied from upstream manifests). */
  header?: string[];
}

/** A Service of the model. */
export interface Service {
  ns: string;
  name: string;
  type: 'LoadBalancer' | 'NodePort';
  uid: string;
  created: Date;
  annotations: Record<string, string>;
  labels: Record<string, string>;
  policy: 'Cluster' | 'Local';
  eni: boolean;
  ports: ServicePort[];
  selector: Record<string, string>;
  pods: Pod[];
  clusterIp: string;
  healthCheckNodePort: number | undefined;
  finalizer: boolean;
  lb: Clb | undefined;
  ingressIp: string | undefined;
  /** `spec.loadBalancerClass`, when set. */
  loadBalancerClass: string | undefined;
  /** The NLB CCM built for an NLB Service (`ccmNlb`). */
  nlb: Nlb | undefined;
  /** Status hostname: the NLB's DNS name (NLB Services never get an IP). */
  ingressHostname: string | undefined;
  header: string[] | undefined;
}

/** A Kubernetes Event about a Service. */
export interface ServiceEvent {
  svc: Service;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  count: number;
  first: Date;
  last: Date;
}
