/**
 * The in-memory model of the sample fleet and the builders the scenarios use: accounts, regions, vSwitches,
 * ECS instances, CLBs and vServer groups, clusters with nodes, Deployments' pods, Services, events, quotas.
 *
 * CCM behaviour modelled here (backend selection per traffic policy, ownership tags, the finalizer and the
 * labels of CCM v2) follows kubernetes/cloud-provider-alibaba-cloud (pkg/controller/service/clbv1/vgroups.go,
 * clbv1/listeners.go, reconcile/backend/backend.go, annotation/annotations.go) as summarised in the
 * project's research notes (ccm-behaviour.md sections 1, 2, 9). The rules themselves (names, tag and
 * annotation keys, which CCM version has which behaviour) are the domain's (`@app/domain`), the same the
 * checks judge the fleet with.
 */
import {
  ANNOTATION_BACKEND_TYPE,
  DEFAULT_SERVER_WEIGHT,
  LABEL_SERVICE_LOADBALANCER_ID,
  LB_ANNOTATION,
  TAG_CCM_OWNER,
  TAG_CLUSTER_ID,
  ccmHasFeature,
  defaultLoadBalancerName,
  lbAnnotationKey,
  listenerDescription,
  nlbListenerDescription,
  nlbServerGroupName,
  parseCcmVersion,
  vServerGroupName,
} from '@app/domain';
import { ALNUM, HEX, KHASH, REGIONS, SampleRandom, type RegionId } from './random';
import type {
  Tag,
  Account,
  Region,
  VSwitch,
  Eni,
  EcsInstance,
  EcsOptions,
  Backend,
  Clb,
  ClbOptions,
  VServerGroup,
  Quota,
  QuotaApplication,
  ClusterOptions,
  Cluster,
  NodeOptions,
  Node,
  DeployOptions,
  Pod,
  ServicePort,
  ServiceOptions,
  Service,
  ServiceEvent,
  Nlb,
  NlbServer,
} from './types';
import { ecsTime, iso, plus } from './time';

/** Full keys of the CCM Service annotations the sample sets (`service.beta.kubernetes.io/...`). */
export const A = {
  addressType: lbAnnotationKey(LB_ANNOTATION.addressType),
  spec: lbAnnotationKey(LB_ANNOTATION.spec),
  id: lbAnnotationKey(LB_ANNOTATION.id),
  force: lbAnnotationKey(LB_ANNOTATION.forceOverrideListeners),
  drain: lbAnnotationKey(LB_ANNOTATION.connectionDrain),
  drainTimeout: lbAnnotationKey(LB_ANNOTATION.connectionDrainTimeout),
  protocolPort: lbAnnotationKey(LB_ANNOTATION.protocolPort),
  certId: lbAnnotationKey(LB_ANNOTATION.certId),
  resourceGroup: lbAnnotationKey(LB_ANNOTATION.resourceGroupId),
  backendType: ANNOTATION_BACKEND_TYPE,
} as const;

/** Account ids of the sample: acme-prod and acme-data. */
export const ACCOUNT_A = '1234567890123456';
export const ACCOUNT_B = '1987654321098765';

/** vCPUs and memory (MiB) of the ECS instance types the sample uses (ECS instance family docs). */
const ECS_TYPES: Record<string, readonly [cpu: number, memoryMiB: number]> = {
  'ecs.g6.xlarge': [4, 16384],
  'ecs.g6.2xlarge': [8, 32768],
  'ecs.g7.xlarge': [4, 16384],
  'ecs.g7.2xlarge': [8, 32768],
  'ecs.c7.xlarge': [4, 8192],
  'ecs.g6.large': [2, 8192],
};

/**
 * The CCM major version of a cluster (`1` for the v1.9.3 builds, `2` for v2.x), parsed by the domain's
 * `parseCcmVersion`. Drives the cosmetic "era" of a cluster's other add-ons and container runtime.
 *
 * @throws Error when the cluster's CCM version does not parse
 */
export function ccmMajor(cl: Pick<Cluster, 'ccm' | 'name'>): number {
  const v = parseCcmVersion(cl.ccm);
  if (!v) throw new Error(`sample fleet: cluster ${cl.name} has an unparseable CCM version ${JSON.stringify(cl.ccm)}`);
  return v.major;
}

/**
 * The API server CLB of a cluster.
 *
 * @throws Error when the scenario has not called `apiServerClb` for it yet
 */
export function apiLbOf(cl: Cluster): Clb {
  if (!cl.apiLb) throw new Error(`sample fleet: cluster ${cl.name} has no API server CLB (apiServerClb not called)`);
  return cl.apiLb;
}

/**
 * The CLB a Service was attached to.
 *
 * @throws Error when CCM has not attached it (`ccmClb` / `attach` not called)
 */
export function lbOf(svc: Service): Clb {
  if (!svc.lb) throw new Error(`sample fleet: Service ${svc.ns}/${svc.name} has no CLB`);
  return svc.lb;
}

/** Flannel per-node pod CIDR (/25 blocks of the container CIDR, ACK node_cidr_mask 25). */
const flannelPodCidr = (base: string, k: number): string => `${base}.${Math.floor(k / 2)}.${(k % 2) * 128}/25`;

/**
 * The sample fleet being built: two accounts, their regions, and builders that keep the cloud and
 * Kubernetes sides consistent. One instance per run (all state, the PRNG included, lives here).
 * Builders are bound arrow functions so scenarios can destructure them.
 */
export class SampleFleet {
  readonly accounts: Record<string, Account>;
  private rv = 48_210_331;

  constructor(readonly random: SampleRandom = new SampleRandom()) {
    const { chars } = random;
    this.accounts = {
      [ACCOUNT_A]: { id: ACCOUNT_A, name: 'acme-prod', rg: `rg-acfm${chars(ALNUM, 11)}`, regions: {} },
      [ACCOUNT_B]: { id: ACCOUNT_B, name: 'acme-data', rg: `rg-acfm${chars(ALNUM, 11)}`, regions: {} },
    };
    for (const a of [ACCOUNT_A, ACCOUNT_B]) for (const r of ['cn-beijing', 'cn-hangzhou'] as const) this.region(a, r);
  }

  /** Next Kubernetes `metadata.resourceVersion` (increasing, random steps). */
  readonly resourceVersion = (): string => String((this.rv += this.random.int(3, 900)));

  /**
   * The region `regionId` of account `accountId` (created empty on first use).
   *
   * @throws Error for an account id that is not one of the sample's
   */
  readonly region = (accountId: string, regionId: RegionId): Region => {
    const acc = this.accounts[accountId];
    if (!acc) throw new Error(`sample fleet: unknown account ${accountId}`);
    acc.regions[regionId] ??= { id: regionId, account: acc, vswitches: [], ecs: [], lbs: [], vgroups: [], nlbs: [], nlbListeners: [], nlbServerGroups: [], nlbServers: [], clusters: [], quotas: undefined };
    return acc.regions[regionId];
  };

  /** A vSwitch of `vpcId` with `free` available IP addresses. */
  readonly vswitch = (reg: Region, vpcId: string, zone: string, cidr: string, name: string, free: number): VSwitch => {
    const v = { VSwitchId: this.random.cloudId('vsw', reg.id), VpcId: vpcId, ZoneId: zone, CidrBlock: cidr, VSwitchName: name, AvailableIpAddressCount: free };
    reg.vswitches.push(v);
    return v;
  };

  /**
   * An ECS instance as DescribeInstances returns it (Instances.Instance[]).
   *
   * @throws Error for an instance type missing from `ECS_TYPES`
   */
  readonly ecsInstance = (reg: Region, o: EcsOptions): EcsInstance => {
    const { cloudId, mac } = this.random;
    const id = o.id ?? cloudId('i', reg.id);
    const enis: Eni[] = [
      {
        NetworkInterfaceId: cloudId('eni', reg.id),
        Type: 'Primary',
        MacAddress: mac(),
        PrimaryIpAddress: o.ip,
        PrivateIpSets: { PrivateIpSet: [{ PrivateIpAddress: o.ip, Primary: true }] },
      },
      ...(o.secondaryEnis ?? []),
    ];
    const size = ECS_TYPES[o.type];
    if (!size) throw new Error(`sample fleet: ECS instance ${o.name}: unknown instance type ${o.type}`);
    const [cpu, mem] = size;
    const inst: EcsInstance = {
      InstanceId: id,
      InstanceName: o.name,
      HostName: `iZ${id.slice(2)}Z`,
      Description: '',
      RegionId: reg.id,
      ZoneId: o.zone,
      Status: 'Running',
      InstanceType: o.type,
      InstanceTypeFamily: o.type.split('.').slice(0, 2).join('.'),
      Cpu: cpu,
      Memory: mem,
      OSType: 'linux',
      OSName: 'Alibaba Cloud Linux  3.2104 LTS 64位',
      OSNameEn: 'Alibaba Cloud Linux  3.2104 LTS 64 bit',
      ImageId: o.image ?? 'aliyun_3_x64_20G_alibase_20250629.vhd',
      InstanceChargeType: 'PostPaid',
      InternetChargeType: 'PayByTraffic',
      InstanceNetworkType: 'vpc',
      IoOptimized: true,
      DeletionProtection: false,
      CreationTime: ecsTime(o.created),
      StartTime: ecsTime(plus(o.created, 40)),
      ExpiredTime: '2099-12-31T15:59Z',
      ResourceGroupId: reg.account.rg,
      SecurityGroupIds: { SecurityGroupId: [o.sg] },
      VpcAttributes: { VpcId: o.vpc, VSwitchId: o.vsw, NatIpAddress: '', PrivateIpAddress: { IpAddress: [o.ip] } },
      NetworkInterfaces: { NetworkInterface: enis },
      PublicIpAddress: { IpAddress: [] },
      InnerIpAddress: { IpAddress: [] },
      EipAddress: { AllocationId: '', IpAddress: '', InternetChargeType: '' },
      OperationLocks: { LockReason: [] },
      Tags: { Tag: (o.tags ?? []).map(([k, v]) => ({ TagKey: k, TagValue: v })) },
    };
    reg.ecs.push(inst);
    return inst;
  };

  /** A CLB; internet-facing ones get a public address of the region unless one is given. */
  readonly clb = (reg: Region, o: ClbOptions): Clb => {
    const zones = REGIONS[reg.id].zones;
    const lb: Clb = {
      id: o.id ?? this.random.cloudId('lb', reg.id),
      reg,
      name: o.name,
      addressType: o.addressType ?? 'internet',
      address: o.address ?? (o.addressType === 'intranet' ? undefined : this.random.publicIp(reg.id)),
      vpc: o.addressType === 'intranet' ? o.vpc : '',
      vsw: o.addressType === 'intranet' ? o.vsw : '',
      spec: o.spec,
      charge: o.charge ?? 'PayBySpec',
      shared: !!o.shared,
      created: o.created,
      tags: o.tags ?? [],
      listeners: [],
      backends: o.backends ?? [],
      deleteProtection: o.deleteProtection ?? 'on',
      modProtection: o.modProtection ?? ['ConsoleProtection', 'managed.by.ack'],
      zones: o.zones ?? [zones[0], zones[1]],
      extra: o.extra ?? {},
    };
    reg.lbs.push(lb);
    return lb;
  };

  /** A vServer group of `lb` with these backends. */
  readonly vgroup = (lb: Clb, name: string, backends: Backend[], created: Date): VServerGroup => {
    const g = { VServerGroupId: this.random.cloudId('rsp', lb.reg.id), VServerGroupName: name, LoadBalancerId: lb.id, CreateTime: iso(created), BackendServers: { BackendServer: backends } };
    lb.reg.vgroups.push(g);
    return g;
  };

  /** A cluster in `reg`, without nodes yet. */
  readonly cluster = (reg: Region, o: ClusterOptions): Cluster => {
    const cl: Cluster = { ...o, reg, account: reg.account, nodes: [], services: [], pods: [], events: [] };
    reg.clusters.push(cl);
    return cl;
  };

  /** A node (and its ECS instance, tagged with the cluster id; Terway: with a secondary ENI for pods). */
  readonly addNode = (cl: Cluster, o: NodeOptions): Node => {
    const { cloudId, mac, uuid } = this.random;
    const reg = cl.reg;
    const k = cl.nodes.length;
    const uid = uuid();
    const podEni: Eni | undefined =
      cl.plugin === 'terway'
        ? { NetworkInterfaceId: cloudId('eni', reg.id), Type: 'Secondary', MacAddress: mac(), PrimaryIpAddress: '', PrivateIpSets: { PrivateIpSet: [] } }
        : undefined;
    const tags: Tag[] = [[TAG_CLUSTER_ID, cl.id]];
    if (o.nodepool) tags.push(['ack.alibabacloud.com/nodepool-id', o.nodepool.id], ['acs:autoscaling:scalingGroupId', o.nodepool.asg]);
    const ecs = this.ecsInstance(reg, {
      name: o.master ? `master-0${k + 1}-k8s-for-cs-${cl.id}` : `worker-k8s-for-cs-${cl.id}`,
      ip: o.ip,
      zone: o.vsw.ZoneId,
      type: o.type,
      created: o.created,
      sg: cl.sg,
      vpc: cl.vpc,
      vsw: o.vsw.VSwitchId,
      tags,
      secondaryEnis: podEni ? [podEni] : [],
    });
    const node: Node = {
      k,
      name: `${reg.id}.${o.ip}`,
      ip: o.ip,
      zone: o.vsw.ZoneId,
      vsw: o.vsw,
      master: !!o.master,
      ready: o.ready ?? true,
      cordoned: !!o.cordoned,
      uid,
      created: o.created,
      type: o.type,
      nodepool: o.nodepool,
      podCidr: cl.plugin === 'flannel' ? flannelPodCidr(cl.podBase ?? '', k) : undefined,
      podSeq: 0,
      podEni,
      ecs,
      ecsId: ecs.InstanceId,
    };
    cl.nodes.push(node);
    return node;
  };

  /**
   * Next pod IP on a node: Flannel from the node's pod CIDR, Terway from the pod vSwitch (on the node's
   * secondary ENI).
   */
  private podIp(cl: Cluster, node: Node): string {
    if (cl.plugin === 'flannel') {
      const [a, b, c, d] = (node.podCidr ?? '').split('/')[0].split('.').map(Number);
      node.podSeq += 1;
      return `${a}.${b}.${c}.${d + 1 + node.podSeq}`;
    }
    if (!node.podEni || cl.podNet === undefined || cl.podThird === undefined) throw new Error(`sample fleet: Terway cluster ${cl.name} needs podNet, podThird and node pod ENIs`);
    cl.podIpSeq = (cl.podIpSeq ?? 20) + this.random.int(1, 3);
    const ip = `${cl.podNet}.${cl.podThird + Math.floor(cl.podIpSeq / 250)}.${(cl.podIpSeq % 250) + 2}`;
    const sets = node.podEni.PrivateIpSets.PrivateIpSet;
    sets.push({ PrivateIpAddress: ip, Primary: sets.length === 0 });
    if (sets.length === 1) node.podEni.PrimaryIpAddress = ip;
    return ip;
  }

  /** A Deployment's pods on the given nodes (one pod per entry). */
  readonly deploy = (cl: Cluster, o: DeployOptions): Pod[] => {
    const { chars, uuid } = this.random;
    const rsHash = chars(KHASH, 10);
    const rsUid = uuid();
    return o.on.map((node, i) => {
      const created = plus(o.created, 20 + i * 7);
      const pod: Pod = {
        ns: o.ns,
        name: `${o.app}-${rsHash}-${chars(KHASH, 5)}`,
        uid: uuid(),
        labels: { ...(o.labels ?? { app: o.app }), 'pod-template-hash': rsHash },
        node,
        ip: o.hostNetwork ? node.ip : this.podIp(cl, node),
        created,
        image: o.image,
        containerPorts: o.containerPorts,
        rs: { name: `${o.app}-${rsHash}`, uid: rsUid },
        ready: true,
        containerName: o.containerName ?? o.app,
      };
      cl.pods.push(pod);
      return pod;
    });
  };

  /**
   * A Service (LoadBalancer unless said otherwise), without an LB yet: `ccmClb` / `attach` give it one, a
   * Service CCM refuses or cannot finish keeps none. CCM versions with the finalizer (domain
   * `CCM_FEATURES.finalizer`) have put it on the Service.
   */
  readonly service = (cl: Cluster, o: ServiceOptions): Service => {
    const { int, uuid } = this.random;
    const svc: Service = {
      ns: o.ns,
      name: o.name,
      type: o.type ?? 'LoadBalancer',
      uid: o.uid ?? uuid(),
      created: o.created,
      annotations: o.annotations ?? {},
      labels: o.labels ?? {},
      policy: o.policy ?? 'Cluster',
      eni: o.eni ?? false,
      ports: o.ports,
      selector: o.selector ?? { app: o.name },
      pods: o.pods ?? [],
      clusterIp: o.clusterIp ?? `${cl.serviceNet}.${int(0, 15)}.${int(2, 254)}`,
      healthCheckNodePort: o.healthCheckNodePort,
      finalizer: o.finalizer ?? ccmHasFeature(cl.ccm, 'finalizer'),
      lb: undefined,
      ingressIp: undefined,
      loadBalancerClass: o.loadBalancerClass,
      nlb: undefined,
      ingressHostname: undefined,
      header: o.header,
    };
    cl.services.push(svc);
    return svc;
  };

  /**
   * Backends CCM builds for one Service port (clbv1/vgroups.go buildClusterBackends / buildLocalBackends /
   * buildENIBackends). Candidate nodes (backend.go GetNodes + needExcludeFromLB): not master-labelled,
   * Ready, no exclusion labels (none are used in this fleet); cordoned nodes stay
   * (remove-unscheduled-backend unset). Local-mode weights: pods on the node, or before CCM has
   * `CCM_FEATURES.podCountWeights` `floor(100 x pods on the node / pods)`.
   */
  private backendsFor(cl: Cluster, svc: Service, port: ServicePort, name: string): Backend[] {
    if (svc.eni) {
      return svc.pods
        .filter((p) => p.ready)
        .map((p) => {
          if (!p.node.podEni) throw new Error(`sample fleet: ENI Service ${svc.ns}/${svc.name} has a pod on node ${p.node.name} without a pod ENI`);
          return { ServerId: p.node.podEni.NetworkInterfaceId, ServerIp: p.ip, Port: port.targetPort, Weight: DEFAULT_SERVER_WEIGHT, Type: 'eni', Description: name };
        });
    }
    if (svc.policy === 'Local') {
      const percentWeights = !ccmHasFeature(cl.ccm, 'podCountWeights');
      const byNode = new Map<Node, Pod[]>();
      for (const p of svc.pods) if (p.ready) byNode.set(p.node, [...(byNode.get(p.node) ?? []), p]);
      return [...byNode]
        .filter(([node]) => !node.master && node.ready)
        .map(([node, pods]) => ({ ServerId: node.ecsId, ServerIp: node.ip, Port: port.nodePort, Weight: percentWeights ? Math.floor((100 * pods.length) / svc.pods.length) : pods.length, Type: 'ecs', Description: name }));
    }
    return cl.nodes
      .filter((n) => !n.master && n.ready)
      .map((n) => ({ ServerId: n.ecsId, ServerIp: n.ip, Port: port.nodePort, Weight: DEFAULT_SERVER_WEIGHT, Type: 'ecs', Description: name }));
  }

  /**
   * CCM reconciled the Service onto `lb`: one listener + one vServer group per port (domain
   * `vServerGroupName` / `listenerDescription`), ingress = CLB address; CCM v2 also labels the Service.
   */
  readonly attach = (cl: Cluster, svc: Service, lb: Clb, when: Date): void => {
    svc.lb = lb;
    svc.ingressIp = lb.address;
    for (const port of svc.ports) {
      const name = vServerGroupName(svc.eni ? port.targetPort : port.nodePort, svc.name, svc.ns, cl.id);
      this.vgroup(lb, name, this.backendsFor(cl, svc, port, name), when);
      lb.listeners.push({ port: port.port, protocol: (port.lbProtocol ?? port.protocol ?? 'TCP').toLowerCase(), description: listenerDescription(port.port, svc.name, svc.ns, cl.id) });
    }
    if (ccmMajor(cl) >= 2) {
      svc.labels[LABEL_SERVICE_LOADBALANCER_ID] = lb.id;
      svc.labels['service.beta.kubernetes.io/hash'] = this.random.chars(HEX, 56);
    }
  };

  /**
   * An NLB created by CCM for the NLB Service `svc` (pkg/controller/service/nlbv2; research/nlb.md 3-4): the default
   * name, tagged `kubernetes.do.not.delete` / `ack.aliyun.com` (on the NLB and on its server groups), one listener
   * and one server group per port (`k8s.{port}.{proto}.{svc}.{ns}.{cluster}`), servers as CCM builds them for an
   * `Instance` group (Cluster: every candidate node on the NodePort, weight 100; Local: the nodes running ready pods,
   * weight = pods), the DNS name as the Service's status hostname and the `loadbalancer-id` label.
   */
  readonly ccmNlb = (cl: Cluster, svc: Service): Nlb => {
    const { chars } = this.random;
    const owner = defaultLoadBalancerName(svc.uid);
    const tags: Tag[] = [
      [TAG_CCM_OWNER, owner],
      [TAG_CLUSTER_ID, cl.id],
    ];
    const zones = [...new Set(cl.nodeVsw.map((v) => v.ZoneId))];
    const nlb: Nlb = {
      id: `nlb-${chars(ALNUM, 20)}`,
      reg: cl.reg,
      name: owner,
      addressType: 'Internet',
      vpc: cl.vpc,
      zones: cl.nodeVsw.filter((v, i) => zones.indexOf(v.ZoneId) === i).map((v) => [v.ZoneId, v.VSwitchId] as const),
      created: plus(svc.created, 8),
      tags,
    };
    cl.reg.nlbs.push(nlb);
    for (const port of svc.ports) {
      const proto = (port.protocol ?? 'TCP').toUpperCase();
      const name = nlbServerGroupName(port.nodePort, proto, svc.name, svc.ns, cl.id);
      const sgId = `sgp-${chars(ALNUM, 20)}`;
      const servers = this.backendsFor(cl, svc, port, name).map(
        (b): NlbServer => ({ ServerGroupId: sgId, ServerId: b.ServerId, ServerIp: '', ServerType: 'Ecs', Port: Number(b.Port), Weight: b.Weight, Status: 'Available', ZoneId: cl.nodes.find((n) => n.ecsId === b.ServerId)?.zone ?? '', Description: name }),
      );
      cl.reg.nlbServerGroups.push({
        ServerGroupId: sgId,
        ServerGroupName: name,
        ServerGroupType: 'Instance',
        ServerGroupStatus: 'Available',
        Protocol: proto,
        VpcId: cl.vpc,
        AddressIPVersion: 'ipv4',
        Scheduler: 'Wrr',
        RelatedLoadBalancerIds: [nlb.id],
        ServerCount: servers.length,
        ResourceGroupId: cl.reg.account.rg,
        RegionId: cl.reg.id,
        Tags: tags.map(([k, v]) => ({ Key: k, Value: v })),
      });
      cl.reg.nlbServers.push(...servers);
      cl.reg.nlbListeners.push({
        ListenerId: `lsn-${chars(ALNUM, 20)}`,
        LoadBalancerId: nlb.id,
        ListenerProtocol: proto,
        ListenerPort: port.port,
        ListenerDescription: nlbListenerDescription(port.port, proto, svc.name, svc.ns, cl.id),
        ServerGroupId: sgId,
        ListenerStatus: 'Running',
        IdleTimeout: 900,
        RegionId: cl.reg.id,
      });
    }
    svc.nlb = nlb;
    svc.ingressHostname = `${nlb.id}.${cl.reg.id}.nlb.aliyuncsslb.com`;
    svc.labels[LABEL_SERVICE_LOADBALANCER_ID] = nlb.id;
    svc.labels['service.beta.kubernetes.io/hash'] = chars(HEX, 56);
    return nlb;
  };

  /**
   * A server group CCM created for an NLB Service that was deleted under a CCM build that skipped the server-group
   * cleanup (v2.12.1 to v2.12.3; fixed in v2.12.4, research/nlb.md 3.3): still tagged for the gone Service's default
   * LB name and the cluster, no NLB uses it, no servers.
   */
  readonly leakedNlbServerGroup = (cl: Cluster, goneUid: string, port: { nodePort: number; protocol: string; svc: string; ns: string }): string => {
    const sgId = `sgp-${this.random.chars(ALNUM, 20)}`;
    cl.reg.nlbServerGroups.push({
      ServerGroupId: sgId,
      ServerGroupName: nlbServerGroupName(port.nodePort, port.protocol, port.svc, port.ns, cl.id),
      ServerGroupType: 'Instance',
      ServerGroupStatus: 'Available',
      Protocol: port.protocol,
      VpcId: cl.vpc,
      AddressIPVersion: 'ipv4',
      Scheduler: 'Wrr',
      RelatedLoadBalancerIds: [],
      ServerCount: 0,
      ResourceGroupId: cl.reg.account.rg,
      RegionId: cl.reg.id,
      Tags: [
        { Key: TAG_CCM_OWNER, Value: defaultLoadBalancerName(goneUid) },
        { Key: TAG_CLUSTER_ID, Value: cl.id },
      ],
    });
    return sgId;
  };

  /**
   * A CLB created by CCM for `svc`: the default name (domain `defaultLoadBalancerName`), tagged
   * `kubernetes.do.not.delete` and `ack.aliyun.com`, then attached.
   */
  readonly ccmClb = (cl: Cluster, svc: Service, o: { vsw?: VSwitch; charge?: string } = {}): Clb => {
    const intranet = svc.annotations[A.addressType] === 'intranet';
    const vsw = o.vsw ?? cl.nodeVsw[0];
    const lb = this.clb(cl.reg, {
      name: defaultLoadBalancerName(svc.uid),
      addressType: intranet ? 'intranet' : 'internet',
      address: intranet ? `${vsw.CidrBlock.split('.').slice(0, 2).join('.')}.${this.random.int(0, 15) + Number(vsw.CidrBlock.split('.')[2])}.${this.random.int(20, 250)}` : undefined,
      vpc: cl.vpc,
      vsw: vsw.VSwitchId,
      spec: svc.annotations[A.spec] ?? 'slb.s1.small',
      charge: o.charge ?? 'PayBySpec',
      created: plus(svc.created, 6),
      tags: [
        [TAG_CCM_OWNER, defaultLoadBalancerName(svc.uid)],
        [TAG_CLUSTER_ID, cl.id],
      ],
    });
    this.attach(cl, svc, lb, plus(svc.created, 9));
    return lb;
  };

  /** The API server CLB of a cluster (`external_loadbalancer_id`): intranet, tcp/6443, tagged `ack.aliyun.com` only. */
  readonly apiServerClb = (cl: Cluster, backends: Backend[]): Clb => {
    const vsw = cl.nodeVsw[0];
    const lb = this.clb(cl.reg, {
      name: `k8s-api-server-${cl.id}`,
      addressType: 'intranet',
      address: `${vsw.CidrBlock.split('.').slice(0, 3).join('.')}.253`,
      vpc: cl.vpc,
      vsw: vsw.VSwitchId,
      spec: 'slb.s2.small',
      created: plus(cl.createdAt, 180),
      tags: [[TAG_CLUSTER_ID, cl.id]],
      backends,
    });
    lb.listeners.push({ port: 6443, protocol: 'tcp', description: '' });
    cl.apiLb = lb;
    return lb;
  };

  /** A Kubernetes Event about `svc`. */
  readonly event = (cl: Cluster, svc: Service, o: Omit<ServiceEvent, 'svc'>): void => {
    cl.events.push({ svc, ...o });
  };

  /** A cluster of the fleet by name. @throws Error when no cluster has that name */
  readonly clusterNamed = (name: string): Cluster => {
    for (const acc of Object.values(this.accounts))
      for (const reg of Object.values(acc.regions))
        for (const cl of reg.clusters) if (cl.name === name) return cl;
    throw new Error(`sample fleet: no cluster named ${name}`);
  };
}

/**
 * A Quota Center application for one of the region's `slb` quotas as ListQuotaApplications lists it
 * (research/quota-center.md 4): `Disagree` with the reviewer's reason, `Agree` with the value granted, or `Process`
 * (in review: no value granted, no reason yet).
 */
export function quotaApplication(
  reg: Region,
  a: { id: string; code: string; name: string; status: 'Agree' | 'Disagree' | 'Process'; desire: number; applyTime: string; reason: string; auditReason: string },
): QuotaApplication {
  return {
    ApplicationId: a.id,
    ApplyTime: a.applyTime,
    ApproveValue: a.status === 'Agree' ? a.desire : 0,
    AuditReason: a.auditReason,
    DesireValue: a.desire,
    Dimension: { regionId: reg.id },
    NoticeType: 3,
    ProductCode: 'slb',
    QuotaActionCode: a.code,
    QuotaArn: `acs:quotas:${reg.id}:${reg.account.id}:quota/slb/${a.code}`,
    QuotaCategory: 'CommonQuota',
    QuotaDescription: a.name,
    QuotaName: a.name,
    QuotaUnit: '',
    Reason: a.reason,
    Status: a.status,
  };
}

/** Quota Center `ListProductQuotas` item of product `slb` in `reg`; `usage` makes it consumable. */
export function quota(reg: Region, code: string, name: string, total: number, usage: number | undefined, range: [number, number]): Quota {
  return {
    ProductCode: 'slb',
    QuotaActionCode: code,
    QuotaName: name,
    QuotaDescription: name,
    QuotaArn: `acs:quotas:${reg.id}:${reg.account.id}:quota/slb/${code}`,
    QuotaCategory: 'CommonQuota',
    QuotaType: 'normal',
    QuotaUnit: '',
    TotalQuota: total,
    ...(usage !== undefined ? { TotalUsage: usage } : {}),
    Adjustable: true,
    ApplicableType: 'continuous',
    ApplicableRange: range,
    Consumable: usage !== undefined,
    GlobalQuota: false,
    Dimensions: { regionId: reg.id },
  };
}
