#!/usr/bin/env node
/**
 * Writes the bundled sample fleet (`examples/fleets/sample/accounts/**`, `fleet.yaml`).
 *
 * The committed files are the source of truth: this script is how they were produced, so that the
 * ~100 nodes, ~50 CLBs and their vServer groups stay consistent with the Kubernetes objects (tags =
 * Service UIDs, vServer group names = NodePorts, backends = what CCM would attach). It is
 * deterministic (seeded PRNG, fixed dates): re-running it rewrites byte-identical files.
 *
 *   node examples/fleets/sample/generate.mjs
 *
 * What each resource is for (which check must fire, which control must stay silent) is in
 * README.md next to this file. CCM behaviour modelled here (backend selection per traffic policy,
 * naming of vServer groups / listeners / backend descriptions, ownership tags) follows
 * kubernetes/cloud-provider-alibaba-cloud (pkg/controller/service/clbv1/vgroups.go,
 * clbv1/listeners.go, reconcile/backend/backend.go, annotation/annotations.go) as summarised in
 * the project's research notes (ccm-behaviour.md sections 1, 2, 9).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const ROOT = dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------------------------------------
// Deterministic randomness (mulberry32) and id formats
// ---------------------------------------------------------------------------------------------
let state = 0x20261122;
function rand() {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';
const KHASH = 'bcdfghjklmnpqrstvwxz2456789'; // alphabet of ReplicaSet / Pod name suffixes
const chars = (set, n) => Array.from({ length: n }, () => set[Math.floor(rand() * set.length)]).join('');
const uuid = () => {
  const h = chars(HEX, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[int(0, 3)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
const requestId = () => uuid().toUpperCase();
const mac = () => `00:16:3e:${chars(HEX, 2)}:${chars(HEX, 2)}:${chars(HEX, 2)}`;

const REGIONS = {
  'cn-hangzhou': { p: 'bp1', zones: ['cn-hangzhou-h', 'cn-hangzhou-i', 'cn-hangzhou-j'], pub: ['47.98', '120.55', '121.41'] },
  'cn-beijing': { p: '2ze', zones: ['cn-beijing-g', 'cn-beijing-h', 'cn-beijing-k'], pub: ['39.105', '47.94', '123.57'] },
};
/** Cloud ids: `<kind>-<region prefix><alnum>`, total suffix length as real ids have it. */
const LEN = { lb: 20, i: 20, vpc: 21, vsw: 21, rsp: 13, eni: 20, sg: 20, asg: 20 };
const cloudId = (kind, region) => `${kind}-${REGIONS[region].p}${chars(ALNUM, LEN[kind] - 3)}`;
const clusterId = () => `c${chars(HEX, 32)}`;
const publicIp = (region) => `${REGIONS[region].pub[int(0, 2)]}.${int(1, 254)}.${int(1, 254)}`;

// ---------------------------------------------------------------------------------------------
// Time formats of the different APIs
// ---------------------------------------------------------------------------------------------
const D = (s) => new Date(s);
const plus = (d, seconds) => new Date(d.getTime() + seconds * 1000);
/** RFC 3339 in UTC without milliseconds (Kubernetes, SLB CreateTime, RAM dates). */
const iso = (d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
/** ECS DescribeInstances times: minutes only (`2017-12-10T04:04Z`). */
const ecsTime = (d) => `${d.toISOString().slice(0, 16)}Z`;
/** CS (ACK) times: local +08:00 offset (`2024-06-03T10:14:22+08:00`). */
const csTime = (d) => `${new Date(d.getTime() + 8 * 3600e3).toISOString().slice(0, 19)}+08:00`;
/** Snapshot time of the sample (events are a few hours to days older). */
const NOW = D('2026-11-21T09:30:00Z');
let rv = 48_210_331;
const resourceVersion = () => String((rv += int(3, 900)));

// ---------------------------------------------------------------------------------------------
// CCM naming (cloud-provider-alibaba-cloud)
// ---------------------------------------------------------------------------------------------
/** `GetDefaultLoadBalancerName`: "a" + UID without dashes, cut to 32 characters. */
const defaultLbName = (uid) => `a${uid.replace(/-/g, '')}`.slice(0, 32);
/** vServer group name / backend description: `k8s/{nodePort|targetPort}/{svc}/{ns}/{clusterId}`. */
const vgroupName = (port, svc, cid) => `k8s/${port}/${svc.name}/${svc.ns}/${cid}`;
/** Listener description: `k8s/{servicePort}/{svc}/{ns}/{clusterId}`. */
const listenerDesc = (port, svc, cid) => `k8s/${port}/${svc.name}/${svc.ns}/${cid}`;

const A = {
  addressType: 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-address-type',
  spec: 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-spec',
  id: 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id',
  force: 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-force-override-listeners',
  drain: 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-connection-drain',
  drainTimeout: 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-connection-drain-timeout',
  chargeType: 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-instance-charge-type',
  healthType: 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-health-check-type',
};
const FINALIZER = 'service.k8s.alibaba/resources';

// ---------------------------------------------------------------------------------------------
// Fleet model
// ---------------------------------------------------------------------------------------------
const ACCOUNT_A = '1234567890123456';
const ACCOUNT_B = '1987654321098765';
const accounts = {
  [ACCOUNT_A]: { id: ACCOUNT_A, name: 'acme-prod', rg: `rg-acfm${chars(ALNUM, 11)}`, regions: {} },
  [ACCOUNT_B]: { id: ACCOUNT_B, name: 'acme-data', rg: `rg-acfm${chars(ALNUM, 11)}`, regions: {} },
};
function region(accountId, regionId) {
  const acc = accounts[accountId];
  acc.regions[regionId] ??= { id: regionId, account: acc, vswitches: [], ecs: [], lbs: [], vgroups: [], clusters: [], quotas: undefined };
  return acc.regions[regionId];
}
for (const a of [ACCOUNT_A, ACCOUNT_B]) for (const r of ['cn-beijing', 'cn-hangzhou']) region(a, r);

function vswitch(reg, vpcId, zone, cidr, name, free) {
  const v = { VSwitchId: cloudId('vsw', reg.id), VpcId: vpcId, ZoneId: zone, CidrBlock: cidr, VSwitchName: name, AvailableIpAddressCount: free };
  reg.vswitches.push(v);
  return v;
}

/** An ECS instance as DescribeInstances returns it (Instances.Instance[]). */
function ecsInstance(reg, o) {
  const id = o.id ?? cloudId('i', reg.id);
  const enis = [
    {
      NetworkInterfaceId: cloudId('eni', reg.id),
      Type: 'Primary',
      MacAddress: mac(),
      PrimaryIpAddress: o.ip,
      PrivateIpSets: { PrivateIpSet: [{ PrivateIpAddress: o.ip, Primary: true }] },
    },
    ...(o.secondaryEnis ?? []),
  ];
  const [cpu, mem] = { 'ecs.g6.xlarge': [4, 16384], 'ecs.g6.2xlarge': [8, 32768], 'ecs.g7.xlarge': [4, 16384], 'ecs.g7.2xlarge': [8, 32768], 'ecs.c7.xlarge': [4, 8192], 'ecs.g6.large': [2, 8192] }[o.type];
  const inst = {
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
}

/** A CLB; emitted as a DescribeLoadBalancerAttribute body. */
function clb(reg, o) {
  const lb = {
    id: o.id ?? cloudId('lb', reg.id),
    reg,
    name: o.name,
    addressType: o.addressType ?? 'internet',
    address: o.address ?? (o.addressType === 'intranet' ? undefined : publicIp(reg.id)),
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
    zones: o.zones ?? [REGIONS[reg.id].zones[0], REGIONS[reg.id].zones[1]],
    extra: o.extra ?? {},
  };
  reg.lbs.push(lb);
  return lb;
}

function clbBody(lb) {
  const body = {
    LoadBalancerId: lb.id,
    LoadBalancerName: lb.name,
    RegionId: lb.reg.id,
    RegionIdAlias: lb.reg.id,
    AddressType: lb.addressType,
    Address: lb.address,
    AddressIPVersion: 'ipv4',
    NetworkType: lb.addressType === 'intranet' ? 'vpc' : 'classic',
    VpcId: lb.vpc,
    VSwitchId: lb.vsw,
    MasterZoneId: lb.zones[0],
    SlaveZoneId: lb.zones[1],
    ...(lb.charge === 'PayBySpec' && !lb.shared ? { LoadBalancerSpec: lb.spec ?? 'slb.s1.small' } : {}),
    InstanceChargeType: lb.charge,
    PayType: 'PayOnDemand',
    InternetChargeType: 'paybytraffic',
    Bandwidth: 5120,
    LoadBalancerStatus: 'active',
    CreateTime: iso(lb.created),
    CreateTimeStamp: lb.created.getTime(),
    EndTime: '2999-09-08T16:00:00Z',
    EndTimeStamp: 32493801600000,
    DeleteProtection: lb.deleteProtection,
    ModificationProtectionStatus: lb.modProtection[0],
    ModificationProtectionReason: lb.modProtection[1],
    ResourceGroupId: lb.reg.account.rg,
    ...lb.extra,
    Tags: { Tag: lb.tags.map(([k, v]) => ({ TagKey: k, TagValue: v })) },
    ListenerPorts: { ListenerPort: lb.listeners.map((l) => l.port) },
    ListenerPortsAndProtocal: { ListenerPortAndProtocal: lb.listeners.map((l) => ({ ListenerPort: l.port, ListenerProtocal: l.protocol })) },
    ListenerPortsAndProtocol: {
      ListenerPortAndProtocol: lb.listeners.map((l) => ({
        ListenerPort: l.port,
        ListenerProtocol: l.protocol,
        ...(l.forward ? { ListenerForward: 'on', ForwardPort: l.forward } : {}),
        ...(l.description !== undefined ? { Description: l.description } : {}),
      })),
    },
    BackendServers: { BackendServer: lb.backends },
  };
  if (body.Address === undefined) throw new Error(`CLB ${lb.id} has no address`);
  return body;
}

function vgroup(lb, name, backends, created) {
  const g = { VServerGroupId: cloudId('rsp', lb.reg.id), VServerGroupName: name, LoadBalancerId: lb.id, CreateTime: iso(created), BackendServers: { BackendServer: backends } };
  lb.reg.vgroups.push(g);
  return g;
}

// ---------------------------------------------------------------------------------------------
// Clusters, nodes, workloads
// ---------------------------------------------------------------------------------------------
function cluster(reg, o) {
  const cl = { ...o, reg, account: reg.account, nodes: [], services: [], pods: [], slices: [], events: [], systemPods: [], podSeq: 0 };
  reg.clusters.push(cl);
  return cl;
}

/** Flannel per-node pod CIDR (/25 blocks of the container CIDR, ACK node_cidr_mask 25). */
const flannelPodCidr = (base, k) => `${base}.${Math.floor(k / 2)}.${(k % 2) * 128}/25`;

function addNode(cl, o) {
  const reg = cl.reg;
  const k = cl.nodes.length;
  const name = `${reg.id}.${o.ip}`;
  const node = {
    k,
    name,
    ip: o.ip,
    zone: o.vsw.ZoneId,
    vsw: o.vsw,
    master: !!o.master,
    ready: o.ready ?? true,
    cordoned: !!o.cordoned,
    uid: uuid(),
    created: o.created,
    type: o.type,
    nodepool: o.nodepool,
    podCidr: cl.plugin === 'flannel' ? flannelPodCidr(cl.podBase, k) : undefined,
    podSeq: 0,
    podEni: undefined,
  };
  if (cl.plugin === 'terway') {
    node.podEni = {
      NetworkInterfaceId: cloudId('eni', reg.id),
      Type: 'Secondary',
      MacAddress: mac(),
      PrimaryIpAddress: '',
      PrivateIpSets: { PrivateIpSet: [] },
    };
  }
  const tags = [['ack.aliyun.com', cl.id]];
  if (o.nodepool) tags.push(['ack.alibabacloud.com/nodepool-id', o.nodepool.id], ['acs:autoscaling:scalingGroupId', o.nodepool.asg]);
  node.ecs = ecsInstance(reg, {
    name: o.master ? `master-0${k + 1}-k8s-for-cs-${cl.id}` : `worker-k8s-for-cs-${cl.id}`,
    ip: o.ip,
    zone: node.zone,
    type: o.type,
    created: o.created,
    sg: cl.sg,
    vpc: cl.vpc,
    vsw: o.vsw.VSwitchId,
    tags,
    secondaryEnis: node.podEni ? [node.podEni] : [],
  });
  node.ecsId = node.ecs.InstanceId;
  cl.nodes.push(node);
  return node;
}

/** Next pod IP on a node: Flannel from the node's pod CIDR, Terway from the pod vSwitch (on the node's secondary ENI). */
function podIp(cl, node) {
  if (cl.plugin === 'flannel') {
    const [a, b, c, d] = node.podCidr.split('/')[0].split('.').map(Number);
    node.podSeq += 1;
    return `${a}.${b}.${c}.${d + 1 + node.podSeq}`;
  }
  cl.podIpSeq = (cl.podIpSeq ?? 20) + int(1, 3);
  const ip = `${cl.podNet}.${cl.podThird + Math.floor(cl.podIpSeq / 250)}.${(cl.podIpSeq % 250) + 2}`;
  const sets = node.podEni.PrivateIpSets.PrivateIpSet;
  sets.push({ PrivateIpAddress: ip, Primary: sets.length === 0 });
  if (sets.length === 1) node.podEni.PrimaryIpAddress = ip;
  return ip;
}

/**
 * A Deployment's pods on the given nodes (one pod per entry), with the EndpointSlice rows they
 * contribute. Returns the pods.
 */
function deploy(cl, o) {
  const rsHash = chars(KHASH, 10);
  const rsUid = uuid();
  return o.on.map((node, i) => {
    const created = plus(o.created, 20 + i * 7);
    const pod = {
      ns: o.ns,
      name: `${o.app}-${rsHash}-${chars(KHASH, 5)}`,
      uid: uuid(),
      labels: { ...(o.labels ?? { app: o.app }), 'pod-template-hash': rsHash },
      node,
      ip: o.hostNetwork ? node.ip : podIp(cl, node),
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
}

/**
 * A LoadBalancer Service; `lbMode` says what CCM did:
 *  - 'create': CCM created (or found by tag) its own CLB -> listeners, vServer groups, backends
 *  - 'reuse-failed': loadbalancer-id points at a CLB CCM refuses or cannot finish -> no ingress
 */
function service(cl, o) {
  const svc = {
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
    finalizer: o.finalizer ?? cl.ccmMajor >= 2,
    lb: undefined,
    ingressIp: undefined,
    extraSpec: o.extraSpec ?? {},
    extraMetadata: o.extraMetadata ?? {},
    header: o.header,
  };
  cl.services.push(svc);
  return svc;
}

/** Ready endpoints of a Service, grouped by node (nodeName -> pods). */
function endpointsByNode(svc) {
  const m = new Map();
  for (const p of svc.pods) if (p.ready) m.set(p.node, [...(m.get(p.node) ?? []), p]);
  return m;
}

/**
 * CCM's candidate nodes (backend.go GetNodes + needExcludeFromLB): not master-labelled, Ready,
 * no exclusion labels (none are used in this fleet); cordoned nodes stay (remove-unscheduled-backend unset).
 */
const eligibleNodes = (cl) => cl.nodes.filter((n) => !n.master && n.ready);

/** Backends CCM builds for one Service port (clbv1/vgroups.go buildClusterBackends / buildLocalBackends / buildENIBackends). */
function backendsFor(cl, svc, port, name) {
  if (svc.eni) {
    return svc.pods
      .filter((p) => p.ready)
      .map((p) => ({ ServerId: p.node.podEni.NetworkInterfaceId, ServerIp: p.ip, Port: port.targetPort, Weight: 100, Type: 'eni', Description: name }));
  }
  if (svc.policy === 'Local') {
    return [...endpointsByNode(svc)]
      .filter(([node]) => !node.master && node.ready)
      .map(([node, pods]) => ({ ServerId: node.ecsId, ServerIp: node.ip, Port: port.nodePort, Weight: svc.percentWeights ? Math.floor((100 * pods.length) / svc.pods.length) : pods.length, Type: 'ecs', Description: name }));
  }
  return eligibleNodes(cl).map((n) => ({ ServerId: n.ecsId, ServerIp: n.ip, Port: port.nodePort, Weight: 100, Type: 'ecs', Description: name }));
}

/** CCM reconciled the Service onto `lb`: one listener + one vServer group per port, ingress = CLB address. */
function attach(cl, svc, lb, when) {
  svc.lb = lb;
  svc.ingressIp = lb.address;
  for (const port of svc.ports) {
    const name = vgroupName(svc.eni ? port.targetPort : port.nodePort, svc, cl.id);
    vgroup(lb, name, backendsFor(cl, svc, port, name), when);
    lb.listeners.push({ port: port.port, protocol: (port.lbProtocol ?? port.protocol ?? 'TCP').toLowerCase(), description: listenerDesc(port.port, svc, cl.id) });
  }
  if (cl.ccmMajor >= 2) {
    svc.labels['service.k8s.alibaba/loadbalancer-id'] = lb.id;
    svc.labels['service.beta.kubernetes.io/hash'] = chars(HEX, 56);
  }
}

/** A CLB created by CCM for `svc`: default name, default tags (ack.aliyun.com since v1.9.3.313 on new clusters). */
function ccmClb(cl, svc, o = {}) {
  const intranet = svc.annotations[A.addressType] === 'intranet';
  const vsw = o.vsw ?? cl.nodeVsw[0];
  const lb = clb(cl.reg, {
    name: defaultLbName(svc.uid),
    addressType: intranet ? 'intranet' : 'internet',
    address: intranet ? `${vsw.CidrBlock.split('.').slice(0, 2).join('.')}.${int(0, 15) + Number(vsw.CidrBlock.split('.')[2])}.${int(20, 250)}` : undefined,
    vpc: cl.vpc,
    vsw: vsw.VSwitchId,
    spec: svc.annotations[A.spec] ?? 'slb.s1.small',
    charge: o.charge ?? 'PayBySpec',
    created: plus(svc.created, 6),
    tags: [
      ['kubernetes.do.not.delete', defaultLbName(svc.uid)],
      ['ack.aliyun.com', cl.id],
    ],
  });
  attach(cl, svc, lb, plus(svc.created, 9));
  return lb;
}

/** The API server CLB of a cluster (`external_loadbalancer_id`), tagged `ack.aliyun.com` only. */
function apiServerClb(cl, backends) {
  const vsw = cl.nodeVsw[0];
  const lb = clb(cl.reg, {
    name: `k8s-api-server-${cl.id}`,
    addressType: 'intranet',
    address: `${vsw.CidrBlock.split('.').slice(0, 3).join('.')}.253`,
    vpc: cl.vpc,
    vsw: vsw.VSwitchId,
    spec: 'slb.s2.small',
    created: plus(cl.createdAt, 180),
    tags: [['ack.aliyun.com', cl.id]],
    backends,
  });
  lb.listeners.push({ port: 6443, protocol: 'tcp', description: '' });
  cl.apiLb = lb;
  return lb;
}

function event(cl, svc, o) {
  cl.events.push({ svc, ...o });
}

// =============================================================================================
// Account A (acme-prod), cn-hangzhou: dedicated Flannel cluster "payments-legacy"
// =============================================================================================
{
  const reg = region(ACCOUNT_A, 'cn-hangzhou');
  const vpc = cloudId('vpc', reg.id);
  const zones = REGIONS[reg.id].zones;
  const nodeVsw = zones.map((z, i) => vswitch(reg, vpc, z, `192.168.${i * 16}.0/20`, `payments-${z.slice(-1)}`, 4000 - i * 37));
  const cl = cluster(reg, {
    id: clusterId(),
    name: 'payments-legacy',
    type: 'Kubernetes',
    createdAt: D('2020-09-14T03:27:41Z'),
    version: '1.22.15-aliyun.1',
    initVersion: '1.18.8-aliyun.1',
    plugin: 'flannel',
    ccm: 'v1.9.3.313-g748f81e-aliyun',
    ccmMajor: 1,
    vpc,
    nodeVsw,
    sg: cloudId('sg', reg.id),
    podBase: '172.20',
    containerCidr: '172.20.0.0/16',
    serviceCidr: '172.21.0.0/20',
    serviceNet: '172.21',
    nodePortFlag: '30000-40000',
    masterRoleUuid: uuid(),
    workerRoleUuid: uuid(),
  });
  cl.masterRole = `KubernetesMasterRole-${cl.masterRoleUuid}`;
  cl.workerRole = `KubernetesWorkerRole-${cl.workerRoleUuid}`;
  const np = { id: `np${chars(HEX, 32)}`, asg: cloudId('asg', reg.id) };
  // 3 masters (one per zone), 85 workers; worker 44 cordoned, worker 70 NotReady.
  for (let i = 0; i < 3; i++) addNode(cl, { ip: `192.168.${i * 16}.${240 + i}`, vsw: nodeVsw[i], master: true, type: 'ecs.g6.xlarge', created: plus(cl.createdAt, 60 + i) });
  const used = new Set();
  for (let w = 0; w < 85; w++) {
    const z = w % 3;
    let host;
    do host = `${int(0, 3) + z * 16}.${int(10, 230)}`;
    while (used.has(host));
    used.add(host);
    addNode(cl, {
      ip: `192.168.${host}`,
      vsw: nodeVsw[z],
      type: 'ecs.g6.2xlarge',
      created: plus(D('2025-01-06T02:00:00Z'), int(0, 640) * 36_000),
      nodepool: np,
      cordoned: w === 44,
      ready: w !== 70,
    });
  }
  const W = (w) => cl.nodes[3 + w];

  // checkout-gateway: Cluster mode, 2 ports -> 2 vServer groups x 84 eligible nodes = 168 backends (84 % of 200).
  const checkoutPods = deploy(cl, { ns: 'payments', app: 'checkout-gateway', on: [W(5), W(31), W(60)], created: D('2026-10-30T07:12:00Z'), image: 'registry-vpc.cn-hangzhou.aliyuncs.com/acme/checkout-gateway:4.18.2', containerPorts: [{ containerPort: 8080, name: 'http' }, { containerPort: 8443, name: 'https' }] });
  const checkout = service(cl, {
    ns: 'payments',
    name: 'checkout-gateway',
    created: D('2021-03-02T06:41:09Z'),
    annotations: { [A.spec]: 'slb.s2.small' },
    ports: [
      { name: 'http', port: 80, targetPort: 8080, nodePort: 30812, protocol: 'TCP' },
      { name: 'https', port: 443, targetPort: 8443, nodePort: 31443, protocol: 'TCP' },
    ],
    pods: checkoutPods,
  });
  ccmClb(cl, checkout);

  // ledger-api: Local mode, intranet, NodePort 36218 inside 32768-60999, drain annotations unsupported by v1.9.3.
  const ledgerPods = deploy(cl, { ns: 'payments', app: 'ledger-api', on: [W(12), W(12), W(47)], created: D('2026-11-03T01:05:00Z'), image: 'registry-vpc.cn-hangzhou.aliyuncs.com/acme/ledger-api:2.7.0', containerPorts: [{ containerPort: 8443, name: 'https' }] });
  const ledger = service(cl, {
    ns: 'payments',
    name: 'ledger-api',
    created: D('2025-07-14T08:20:33Z'),
    annotations: { [A.addressType]: 'intranet', [A.drain]: 'on', [A.drainTimeout]: '30' },
    policy: 'Local',
    healthCheckNodePort: 31207,
    ports: [{ name: 'https', port: 8443, targetPort: 8443, nodePort: 36218, protocol: 'TCP' }],
    pods: ledgerPods,
  });
  ccmClb(cl, ledger, { vsw: nodeVsw[1] });

  // ACK's default ingress Service of old dedicated clusters: Local mode, NodePorts 34512/38790.
  const ingPods = deploy(cl, { ns: 'kube-system', app: 'nginx-ingress-controller', labels: { app: 'ingress-nginx' }, on: [W(2), W(3)], created: D('2026-06-18T03:00:00Z'), image: 'registry-vpc.cn-hangzhou.aliyuncs.com/acs/aliyun-ingress-controller:v1.2.1-aliyun.1', containerPorts: [{ containerPort: 80, name: 'http' }, { containerPort: 443, name: 'https' }] });
  const ing = service(cl, {
    ns: 'kube-system',
    name: 'nginx-ingress-lb',
    created: plus(cl.createdAt, 420),
    labels: { app: 'nginx-ingress-lb' },
    selector: { app: 'ingress-nginx' },
    policy: 'Local',
    healthCheckNodePort: 30291,
    ports: [
      { name: 'http', port: 80, targetPort: 80, nodePort: 34512, protocol: 'TCP' },
      { name: 'https', port: 443, targetPort: 443, nodePort: 38790, protocol: 'TCP' },
    ],
    pods: ingPods,
  });
  ccmClb(cl, ing);

  apiServerClb(
    cl,
    cl.nodes.filter((n) => n.master).map((n) => ({ ServerId: n.ecsId, ServerIp: n.ip, Weight: 100, Type: 'ecs' })),
  );
  event(cl, ledger, { type: 'Normal', reason: 'EnsuredLoadBalancer', message: `Ensured load balancer [${ledger.lb.id}]`, count: 14, first: D('2026-11-03T01:05:40Z'), last: D('2026-11-20T22:41:07Z') });
  event(cl, checkout, { type: 'Normal', reason: 'EnsuredLoadBalancer', message: `Ensured load balancer [${checkout.lb.id}]`, count: 212, first: D('2026-10-30T07:12:31Z'), last: D('2026-11-21T08:57:12Z') });
}

// =============================================================================================
// Account A (acme-prod), cn-beijing: ACK Pro Flannel cluster "storefront" + orphan + console CLB
// =============================================================================================
{
  const reg = region(ACCOUNT_A, 'cn-beijing');
  const vpc = cloudId('vpc', reg.id);
  const zones = REGIONS[reg.id].zones;
  const nodeVsw = [vswitch(reg, vpc, zones[0], '10.10.0.0/19', 'storefront-g', 8011), vswitch(reg, vpc, zones[1], '10.10.32.0/19', 'storefront-h', 8032)];
  const cl = cluster(reg, {
    id: clusterId(),
    name: 'storefront',
    type: 'ManagedKubernetes',
    spec: 'ack.pro.small',
    createdAt: D('2023-04-11T06:02:18Z'),
    version: '1.32.7-aliyun.1',
    initVersion: '1.26.3-aliyun.1',
    plugin: 'flannel',
    ccm: 'v2.10.0',
    ccmMajor: 2,
    vpc,
    nodeVsw,
    sg: cloudId('sg', reg.id),
    podBase: '172.16',
    containerCidr: '172.16.0.0/16',
    serviceCidr: '192.168.0.0/16',
    serviceNet: '192.168',
    nodePortRange: '30000-32767',
  });
  const np = { id: `np${chars(HEX, 32)}`, asg: cloudId('asg', reg.id) };
  for (let w = 0; w < 6; w++) {
    addNode(cl, { ip: `10.10.${(w % 2) * 32 + int(0, 3)}.${int(10, 240)}`, vsw: nodeVsw[w % 2], type: 'ecs.g7.xlarge', created: plus(D('2026-03-09T01:00:00Z'), w * 86400 * 9), nodepool: np });
  }
  // ingress-nginx controller from the upstream cloud manifest: Local mode (control: no blowup).
  const pods = deploy(cl, {
    ns: 'ingress-nginx',
    app: 'ingress-nginx-controller',
    containerName: 'controller',
    labels: { 'app.kubernetes.io/component': 'controller', 'app.kubernetes.io/instance': 'ingress-nginx', 'app.kubernetes.io/name': 'ingress-nginx' },
    on: [cl.nodes[1], cl.nodes[4]],
    created: D('2026-09-02T02:30:00Z'),
    image: 'registry.k8s.io/ingress-nginx/controller:v1.7.0@sha256:7612338342a1e7b8090bef78f2a04fffcadd548ccaabe8a47bf7758ff549a5f7',
    containerPorts: [{ containerPort: 80, name: 'http' }, { containerPort: 443, name: 'https' }, { containerPort: 8443, name: 'webhook' }],
  });
  const upstreamLabels = {
    'app.kubernetes.io/component': 'controller',
    'app.kubernetes.io/instance': 'ingress-nginx',
    'app.kubernetes.io/name': 'ingress-nginx',
    'app.kubernetes.io/part-of': 'ingress-nginx',
    'app.kubernetes.io/version': '1.7.0',
  };
  const ingress = service(cl, {
    ns: 'ingress-nginx',
    name: 'ingress-nginx-controller',
    created: D('2026-09-02T02:29:51Z'),
    labels: { ...upstreamLabels },
    selector: { 'app.kubernetes.io/component': 'controller', 'app.kubernetes.io/instance': 'ingress-nginx', 'app.kubernetes.io/name': 'ingress-nginx' },
    policy: 'Local',
    healthCheckNodePort: 32081,
    ports: [
      { appProtocol: 'http', name: 'http', port: 80, protocol: 'TCP', targetPort: 'http', nodePort: 31725 },
      { appProtocol: 'https', name: 'https', port: 443, protocol: 'TCP', targetPort: 'https', nodePort: 30463 },
    ],
    pods,
    header: [
      'Source: the `ingress-nginx-controller` Service object of kubernetes/ingress-nginx,',
      'deploy/static/provider/cloud/deploy.yaml at commit db200fcbd20a579dda122e984b8e7d2a12c00cb7',
      '(controller v1.7.0), copied unchanged (labels, spec.externalTrafficPolicy, ipFamilies,',
      'ipFamilyPolicy, ports name/port/protocol/targetPort/appProtocol, selector, type).',
      'Added as a running ACK cluster shows it: metadata uid/creationTimestamp/resourceVersion, the',
      'CCM finalizer and labels (service.k8s.alibaba/loadbalancer-id, service.beta.kubernetes.io/hash),',
      'spec clusterIP(s)/nodePort/healthCheckNodePort/allocateLoadBalancerNodePorts/internalTrafficPolicy/',
      'sessionAffinity, and status.loadBalancer.ingress.',
    ],
  });
  ccmClb(cl, ingress);
  event(cl, ingress, { type: 'Normal', reason: 'EnsuredLoadBalancer', message: `Ensured load balancer [${ingress.lb.id}]`, count: 3, first: D('2026-09-02T02:30:14Z'), last: D('2026-11-18T16:20:44Z') });

  // Orphan: CLB created by CCM for storefront/promo-landing (Black Friday 2025); the Service was
  // deleted with its finalizer removed by hand while CCM was being upgraded, so the CLB stayed.
  const goneUid = uuid();
  cl.orphanUid = goneUid;
  const gone = { ns: 'storefront', name: 'promo-landing', uid: goneUid };
  const orphan = clb(reg, {
    name: defaultLbName(goneUid),
    created: D('2025-11-20T03:14:07Z'),
    spec: 'slb.s1.small',
    tags: [
      ['kubernetes.do.not.delete', defaultLbName(goneUid)],
      ['ack.aliyun.com', cl.id],
    ],
  });
  orphan.listeners.push({ port: 80, protocol: 'tcp', description: listenerDesc(80, gone, cl.id) });
  const oname = vgroupName(30917, gone, cl.id);
  vgroup(
    orphan,
    oname,
    cl.nodes.map((n) => ({ ServerId: n.ecsId, ServerIp: n.ip, Port: 30917, Weight: 100, Type: 'ecs', Description: oname })),
    D('2025-11-20T03:14:10Z'),
  );
  cl.orphanLb = orphan;

  // Console-created CLB for a non-Kubernetes app, adapted from the documented responseDemo of
  // SLB DescribeLoadBalancerAttribute (HTTP 80 forwarding to HTTPS 443; default server group).
  const adminVm = [0, 1].map((i) =>
    ecsInstance(reg, { name: `admin-portal-0${i + 1}`, ip: `10.10.${i * 32 + 8}.${31 + i}`, zone: zones[i], type: 'ecs.g6.large', created: D('2022-05-17T07:40:00Z'), sg: cl.sg, vpc, vsw: nodeVsw[i].VSwitchId, tags: [['owner', 'it-ops']] }),
  );
  const admin = clb(reg, {
    name: 'admin-portal-legacy',
    created: D('2022-05-17T08:03:11Z'),
    spec: 'slb.s1.small',
    deleteProtection: 'off',
    modProtection: ['NonProtection', ''],
    tags: [
      ['owner', 'it-ops'],
      ['env', 'prod'],
    ],
    backends: adminVm.map((vm) => ({ ServerId: vm.InstanceId, ServerIp: vm.VpcAttributes.PrivateIpAddress.IpAddress[0], Weight: 90, Type: 'ecs', Description: 'admin portal web server' })),
    extra: { RenewalStatus: 'AutoRenewal', RenewalDuration: 1, RenewalCycUnit: 'Month' },
  });
  admin.listeners.push({ port: 80, protocol: 'http', forward: 443, description: 'redirect to https' }, { port: 443, protocol: 'https', description: 'admin portal' });
  reg.consoleLb = admin;

  apiServerClb(cl, [0, 1].map((i) => ({ ServerId: cloudId('eni', reg.id), ServerIp: `10.10.${i * 32}.${250 + i}`, Weight: 100, Type: 'eni' })));
}

// =============================================================================================
// Account B (acme-data), cn-hangzhou: ACK Pro Terway cluster "data-platform" + shared-services VPC
// =============================================================================================
{
  const reg = region(ACCOUNT_B, 'cn-hangzhou');
  const vpc = cloudId('vpc', reg.id);
  const sharedVpc = cloudId('vpc', reg.id);
  const zones = REGIONS[reg.id].zones;
  const nodeVsw = [vswitch(reg, vpc, zones[0], '10.20.0.0/22', 'data-nodes-h', 981), vswitch(reg, vpc, zones[1], '10.20.4.0/22', 'data-nodes-i', 990)];
  vswitch(reg, vpc, zones[0], '10.20.64.0/19', 'data-pods-h', 8101);
  vswitch(reg, vpc, zones[1], '10.20.96.0/19', 'data-pods-i', 8122);
  const sharedVsw = vswitch(reg, sharedVpc, zones[0], '172.31.0.0/24', 'shared-services-h', 12);
  const cl = cluster(reg, {
    id: clusterId(),
    name: 'data-platform',
    type: 'ManagedKubernetes',
    spec: 'ack.pro.small',
    createdAt: D('2024-06-03T02:14:22Z'),
    version: '1.33.3-aliyun.1',
    initVersion: '1.30.1-aliyun.1',
    plugin: 'terway',
    ccm: 'v2.12.3',
    ccmMajor: 2,
    vpc,
    nodeVsw,
    sg: cloudId('sg', reg.id),
    podNet: '10.20',
    podThird: 64,
    containerCidr: '',
    serviceCidr: '192.168.0.0/16',
    serviceNet: '192.168',
    nodePortRange: '30000-32767',
  });
  const np = { id: `np${chars(HEX, 32)}`, asg: cloudId('asg', reg.id) };
  for (let w = 0; w < 4; w++) addNode(cl, { ip: `10.20.${(w % 2) * 4 + int(0, 3)}.${int(10, 240)}`, vsw: nodeVsw[w % 2], type: 'ecs.g7.2xlarge', created: plus(D('2026-02-16T03:00:00Z'), w * 3600), nodepool: np });

  // superset: ENI backends (Terway created after 2020-08-10 -> CCM default backend type eni). Control: no blowup.
  const sPods = deploy(cl, { ns: 'analytics', app: 'superset', on: [cl.nodes[0], cl.nodes[1], cl.nodes[2]], created: D('2026-11-05T09:00:00Z'), image: 'apache/superset:4.1.2', containerPorts: [{ containerPort: 8088, name: 'http' }] });
  const superset = service(cl, { ns: 'analytics', name: 'superset', created: D('2026-02-16T05:12:40Z'), eni: true, ports: [{ name: 'http', port: 80, targetPort: 8088, nodePort: 30756, protocol: 'TCP' }], pods: sPods });
  ccmClb(cl, superset, { charge: 'PayByCLCU' });
  event(cl, superset, { type: 'Normal', reason: 'EnsuredLoadBalancer', message: `Ensured load balancer [${superset.lb.id}]`, count: 9, first: D('2026-11-05T09:00:31Z'), last: D('2026-11-19T11:02:50Z') });

  // metabase: reuses superset's CCM-created CLB -> CCM refuses (seed 002 message), Service pending.
  const mPods = deploy(cl, { ns: 'reporting', app: 'metabase', on: [cl.nodes[3]], created: D('2026-11-17T02:40:00Z'), image: 'metabase/metabase:v0.51.4', containerPorts: [{ containerPort: 3000, name: 'http' }] });
  const metabase = service(cl, {
    ns: 'reporting',
    name: 'metabase',
    created: D('2026-11-17T02:41:12Z'),
    annotations: { [A.id]: superset.lb.id, [A.force]: 'true' },
    eni: true,
    ports: [{ name: 'http', port: 3000, targetPort: 3000, nodePort: 31922, protocol: 'TCP' }],
    pods: mPods,
  });
  event(cl, metabase, {
    type: 'Warning',
    reason: 'SyncLoadBalancerFailed',
    message: `Error syncing load balancer [${superset.lb.id}]: alicloud: the loadbalancer ${superset.lb.id} can not be reused, can not reuse loadbalancer created by kubernetes.`,
    count: 187,
    first: D('2026-11-17T02:41:13Z'),
    last: D('2026-11-21T09:11:45Z'),
  });

  // Internal CLB of the shared-services VPC (console-created, LDAP for the office), reused by
  // monitoring/thanos-query of data-platform, whose VPC differs -> NetworkConflict.
  const ldapVm = [0, 1].map((i) =>
    ecsInstance(reg, { name: `ldap-0${i + 1}`, ip: `172.31.0.${11 + i}`, zone: zones[0], type: 'ecs.g6.large', created: D('2021-08-09T02:00:00Z'), sg: cloudId('sg', reg.id), vpc: sharedVpc, vsw: sharedVsw.VSwitchId, tags: [['owner', 'platform-identity']] }),
  );
  const shared = clb(reg, {
    name: 'shared-ldap-internal',
    addressType: 'intranet',
    address: '172.31.0.200',
    vpc: sharedVpc,
    vsw: sharedVsw.VSwitchId,
    zones: [zones[0], zones[1]],
    spec: 'slb.s1.small',
    created: D('2021-08-09T02:31:40Z'),
    deleteProtection: 'on',
    modProtection: ['NonProtection', ''],
    tags: [
      ['owner', 'platform-identity'],
      ['kubernetes.reused.by.user', 'true'],
    ],
    backends: ldapVm.map((vm) => ({ ServerId: vm.InstanceId, ServerIp: vm.VpcAttributes.PrivateIpAddress.IpAddress[0], Weight: 100, Type: 'ecs' })),
  });
  shared.listeners.push({ port: 636, protocol: 'tcp', description: 'ldaps' });
  const tPods = deploy(cl, { ns: 'monitoring', app: 'thanos-query', on: [cl.nodes[1], cl.nodes[3]], created: D('2026-11-12T06:00:00Z'), image: 'quay.io/thanos/thanos:v0.37.2', containerPorts: [{ containerPort: 10902, name: 'http' }] });
  const thanos = service(cl, {
    ns: 'monitoring',
    name: 'thanos-query',
    created: D('2026-11-12T06:04:51Z'),
    annotations: { [A.id]: shared.id, [A.addressType]: 'intranet', [A.force]: 'true' },
    eni: true,
    ports: [{ name: 'http', port: 10902, targetPort: 10902, nodePort: 32144, protocol: 'TCP' }],
    pods: tPods,
  });
  // CCM tagged the CLB as reused and created the (empty) vServer group before adding backends failed.
  vgroup(shared, vgroupName(10902, thanos, cl.id), [], D('2026-11-12T06:04:55Z'));
  event(cl, thanos, {
    type: 'Warning',
    reason: 'SyncLoadBalancerFailed',
    message: `Error syncing load balancer [${shared.id}]: Status Code: 400 Code: NetworkConflict Message: The backend servers and the load balancer are not in the same VPC. RequestId: ${requestId()}`,
    count: 96,
    first: D('2026-11-12T06:04:56Z'),
    last: D('2026-11-21T09:02:18Z'),
  });
  reg.sharedLb = shared;

  apiServerClb(cl, [0, 1].map((i) => ({ ServerId: cloudId('eni', reg.id), ServerIp: `10.20.${i * 4}.${250 + i}`, Weight: 100, Type: 'eni' })));
}

// =============================================================================================
// Account B (acme-data), cn-beijing: ACK Basic Flannel cluster "preview-envs" with 42 preview CLBs
// =============================================================================================
{
  const reg = region(ACCOUNT_B, 'cn-beijing');
  const vpc = cloudId('vpc', reg.id);
  const zones = REGIONS[reg.id].zones;
  const nodeVsw = [vswitch(reg, vpc, zones[1], '10.30.0.0/20', 'preview-h', 4051)];
  const cl = cluster(reg, {
    id: clusterId(),
    name: 'preview-envs',
    type: 'ManagedKubernetes',
    spec: 'ack.standard',
    createdAt: D('2025-03-18T08:45:10Z'),
    version: '1.33.3-aliyun.1',
    initVersion: '1.31.1-aliyun.1',
    plugin: 'flannel',
    ccm: 'v2.11.4',
    ccmMajor: 2,
    vpc,
    nodeVsw,
    sg: cloudId('sg', reg.id),
    podBase: '172.22',
    containerCidr: '172.22.0.0/16',
    serviceCidr: '192.168.0.0/16',
    serviceNet: '192.168',
  });
  const np = { id: `np${chars(HEX, 32)}`, asg: cloudId('asg', reg.id) };
  for (let w = 0; w < 3; w++) addNode(cl, { ip: `10.30.${int(0, 3)}.${int(10, 240)}`, vsw: nodeVsw[0], type: 'ecs.c7.xlarge', created: plus(D('2026-07-01T01:00:00Z'), w * 120), nodepool: np });
  const usedPorts = new Set();
  for (let i = 0; i < 42; i++) {
    const pr = 4100 + i * 3 + int(0, 2);
    const ns = `pr-${pr}`;
    let nodePort;
    do nodePort = int(30000, 32767);
    while (usedPorts.has(nodePort));
    usedPorts.add(nodePort);
    const created = plus(D('2026-10-20T02:00:00Z'), i * 26_000 + int(0, 3000));
    const pods = deploy(cl, { ns, app: 'web', on: [cl.nodes[i % 3]], created, image: `registry-vpc.cn-beijing.aliyuncs.com/acme/storefront-web:pr-${pr}`, containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const svc = service(cl, { ns, name: 'web', created, ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort, protocol: 'TCP' }], pods });
    ccmClb(cl, svc);
  }
  apiServerClb(cl, [0, 1].map((i) => ({ ServerId: cloudId('eni', reg.id), ServerIp: `10.30.15.${250 + i}`, Weight: 100, Type: 'eni' })));
  // Quota Center values for this region: the CLB instance quota was raised to 100 for the previews.
  reg.quotas = [
    quota(reg, 'slb_quota_instances_num', 'Maximum number of CLB instances', 50, reg.lbs.length, [30, 500]),
    quota(reg, 'slb_quota_backendservers_num', 'Maximum number of backend servers that can be added to a CLB instance', 200, undefined, [200, 1000]),
    quota(reg, 'slb_quota_backendserver_attached_num', 'Maximum number of CLB instances to which a backend server can be added', 50, undefined, [50, 200]),
    quota(reg, 'slb_quota_listeners_num', 'Maximum number of listeners that can be added to a CLB instance', 50, undefined, [50, 100]),
  ];
}

function quota(reg, code, name, total, usage, range) {
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

// =============================================================================================
// Additions for the whole check catalogue (ack-fleet-audit checks.md). Drawn from their own PRNG
// stream so that every id above stays as it was (only emitter-level values after them shift).
// =============================================================================================
{
  const savedState = state;
  state = 0x20270101;
  const H = (n) => chars(HEX, n);
  const A2 = {
    protocolPort: 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-protocol-port',
    certId: 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-cert-id',
    resourceGroup: 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-resource-group-id',
    backendType: 'service.beta.kubernetes.io/backend-type',
  };

  // ------------------------------------------------------------------------------------------
  // acme-prod / cn-beijing, cluster storefront (ACK Pro, Flannel, CCM v2.10.0): six more Services
  // ------------------------------------------------------------------------------------------
  const bj = region(ACCOUNT_A, 'cn-beijing');
  const sf = bj.clusters.find((c) => c.name === 'storefront');
  const sfNode = (i) => sf.nodes[i % sf.nodes.length];

  // search: backend-type eni on Flannel -> "can not find eniid for ip" (seed 002), never gets a CLB.
  {
    const pods = deploy(sf, { ns: 'storefront', app: 'search', on: [sfNode(0), sfNode(3)], created: D('2026-11-19T08:10:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/search:1.4.0', containerPorts: [{ containerPort: 9200, name: 'http' }] });
    const svc = service(sf, { ns: 'storefront', name: 'search', created: D('2026-11-19T08:11:02Z'), annotations: { [A2.backendType]: 'eni' }, ports: [{ name: 'http', port: 80, targetPort: 9200, nodePort: 31380, protocol: 'TCP' }], pods });
    event(sf, svc, { type: 'Warning', reason: 'SyncLoadBalancerFailed', message: `Error syncing load balancer []: Message: can not find eniid for ip ${pods[0].ip} in vpc ${sf.vpc}`, count: 61, first: D('2026-11-19T08:11:03Z'), last: D('2026-11-21T09:14:40Z') });
  }

  // legacy-api: its CLB was released in the SLB console; the Service still shows the old address.
  {
    const pods = deploy(sf, { ns: 'storefront', app: 'legacy-api', on: [sfNode(1)], created: D('2026-08-01T02:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/legacy-api:0.9.7', containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const svc = service(sf, { ns: 'storefront', name: 'legacy-api', created: D('2024-02-07T03:30:00Z'), ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30641, protocol: 'TCP' }], pods });
    svc.ingressIp = publicIp(bj.id);
    svc.labels['service.k8s.alibaba/loadbalancer-id'] = cloudId('lb', bj.id);
    event(sf, svc, { type: 'Warning', reason: 'SyncLoadBalancerFailed', message: `Error syncing load balancer []: Message: alicloud: can not find loadbalancer, but it's defined in service [${svc.ingressIp}] this may happen when you delete the loadbalancer`, count: 340, first: D('2026-11-02T06:20:11Z'), last: D('2026-11-21T09:20:02Z') });
  }

  // catalog: its own CCM-created CLB was pasted into the loadbalancer-id annotation (seeds 000/003: do not).
  {
    const pods = deploy(sf, { ns: 'storefront', app: 'catalog', on: [sfNode(2), sfNode(5)], created: D('2026-10-01T01:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/catalog:3.2.1', containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const svc = service(sf, { ns: 'storefront', name: 'catalog', created: D('2025-05-20T04:00:00Z'), ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: 31811, protocol: 'TCP' }], pods });
    const lb = ccmClb(sf, svc);
    svc.annotations[A.id] = lb.id;
    event(sf, svc, { type: 'Warning', reason: 'SyncLoadBalancerFailed', message: `Error syncing load balancer [${lb.id}]: Message: alicloud: the loadbalancer ${lb.id} can not be reused, can not reuse loadbalancer created by kubernetes.`, count: 22, first: D('2026-11-20T10:02:00Z'), last: D('2026-11-21T09:12:31Z') });
  }

  // shop-api: HTTPS listener (certificate on the CLB) forwarding to the pods' TLS port 8443 (seed 002).
  {
    const pods = deploy(sf, { ns: 'storefront', app: 'shop-api', on: [sfNode(1), sfNode(4)], created: D('2026-11-10T03:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/shop-api:5.0.3', containerPorts: [{ containerPort: 8080, name: 'http' }, { containerPort: 8443, name: 'https' }] });
    const svc = service(sf, {
      ns: 'storefront',
      name: 'shop-api',
      created: D('2026-11-10T02:58:40Z'),
      annotations: { [A2.protocolPort]: 'https:443', [A2.certId]: `${int(1000000, 9999999)}-cn-beijing` },
      ports: [
        { name: 'http', port: 80, targetPort: 8080, nodePort: 30907, protocol: 'TCP' },
        { name: 'https', port: 443, targetPort: 8443, nodePort: 31943, protocol: 'TCP', lbProtocol: 'https' },
      ],
      pods,
    });
    ccmClb(sf, svc);
  }

  // reviews: resource-group-id changed after CCM created the CLB -> "can not change ResourceGroupId once created".
  {
    const pods = deploy(sf, { ns: 'storefront', app: 'reviews', on: [sfNode(0)], created: D('2026-09-15T02:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/reviews:2.3.0', containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const svc = service(sf, { ns: 'storefront', name: 'reviews', created: D('2025-02-11T06:00:00Z'), ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: 32011, protocol: 'TCP' }], pods });
    const lb = ccmClb(sf, svc);
    svc.annotations[A2.resourceGroup] = `rg-aek${chars(ALNUM, 12)}`;
    event(sf, svc, { type: 'Warning', reason: 'SyncLoadBalancerFailed', message: `Error syncing load balancer [${lb.id}]: Message: alicloud: can not change ResourceGroupId once created`, count: 9, first: D('2026-11-21T07:40:10Z'), last: D('2026-11-21T09:01:55Z') });
  }

  // partner-api: reuses the console CLB partner-gateway (internet) but asks for intranet, without
  // force-override-listeners: CCM tags the CLB as reused, then fails on the address type.
  const partnerLb = clb(bj, {
    name: 'partner-gateway',
    created: D('2023-11-02T09:15:00Z'),
    spec: 'slb.s2.small',
    deleteProtection: 'on',
    modProtection: ['NonProtection', ''],
    tags: [['owner', 'partner-integrations'], ['kubernetes.reused.by.user', 'true']],
  });
  partnerLb.listeners.push({ port: 443, protocol: 'https', description: 'partner portal' });
  {
    const pods = deploy(sf, { ns: 'partners', app: 'partner-api', on: [sfNode(3)], created: D('2026-11-18T05:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/partner-api:1.0.0', containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const svc = service(sf, { ns: 'partners', name: 'partner-api', created: D('2026-11-18T05:02:10Z'), annotations: { [A.id]: partnerLb.id, [A.addressType]: 'intranet' }, ports: [{ name: 'http', port: 8080, targetPort: 8080, nodePort: 30218, protocol: 'TCP' }], pods });
    event(sf, svc, { type: 'Warning', reason: 'SyncLoadBalancerFailed', message: `Error syncing load balancer [${partnerLb.id}]: Message: alicloud: can not change LoadBalancer AddressType once created. delete and retry`, count: 118, first: D('2026-11-18T05:02:11Z'), last: D('2026-11-21T09:18:09Z') });
  }

  // status-edge: the company status CLB (console-created), reused by storefront and by arena below.
  const statusLb = clb(bj, { name: 'status-edge', created: D('2024-06-12T01:00:00Z'), spec: 'slb.s1.small', modProtection: ['NonProtection', ''], tags: [['owner', 'sre'], ['kubernetes.reused.by.user', 'true']] });
  const statusSvc = (cl, name, port, nodePort, nodes) => {
    const pods = deploy(cl, { ns: 'default', app: name, on: nodes, created: D('2026-10-07T02:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/statuspage:2.1.0', containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const svc = service(cl, { ns: 'default', name, created: D('2026-10-07T02:01:00Z'), annotations: { [A.id]: statusLb.id, [A.force]: 'true' }, ports: [{ name: 'http', port, targetPort: 8080, nodePort, protocol: 'TCP' }], pods });
    attach(cl, svc, statusLb, D('2026-10-07T02:01:20Z'));
    return svc;
  };
  statusSvc(sf, 'status-page', 80, 31180, [sfNode(2)]);

  // ------------------------------------------------------------------------------------------
  // acme-prod / cn-beijing, new ACK Pro cluster "arena" (game servers): NodePort range narrowed to
  // 30100-30199 to match a security-group rule; a 41-port matchmaker and a 42-port NodePort Service.
  // ------------------------------------------------------------------------------------------
  {
    const vpc = cloudId('vpc', bj.id);
    const zones = REGIONS[bj.id].zones;
    const nodeVsw = [vswitch(bj, vpc, zones[2], '10.40.0.0/20', 'arena-k', 3921)];
    const cl = cluster(bj, {
      id: clusterId(),
      name: 'arena',
      type: 'ManagedKubernetes',
      spec: 'ack.pro.small',
      createdAt: D('2025-09-08T03:12:00Z'),
      version: '1.33.3-aliyun.1',
      initVersion: '1.33.3-aliyun.1',
      plugin: 'flannel',
      ccm: 'v2.12.3',
      ccmMajor: 2,
      vpc,
      nodeVsw,
      sg: cloudId('sg', bj.id),
      podBase: '172.24',
      containerCidr: '172.24.0.0/16',
      serviceCidr: '192.168.0.0/16',
      serviceNet: '192.168',
      nodePortRange: '30100-30199',
    });
    const np = { id: `np${H(32)}`, asg: cloudId('asg', bj.id) };
    for (let w = 0; w < 2; w++) addNode(cl, { ip: `10.40.${int(0, 3)}.${int(10, 240)}`, vsw: nodeVsw[0], type: 'ecs.c7.xlarge', created: plus(D('2026-09-01T01:00:00Z'), w * 300), nodepool: np });
    const gamePorts = (first, n, nodePort0) => Array.from({ length: n }, (_, i) => ({ name: `game-${first + i}`, port: first + i, targetPort: first + i, nodePort: nodePort0 + i, protocol: 'TCP' }));
    const mmPods = deploy(cl, { ns: 'arena', app: 'matchmaker', on: [cl.nodes[0], cl.nodes[1]], created: D('2026-11-14T06:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/arena/matchmaker:7.3.0', containerPorts: gamePorts(7000, 41, 0).map((p) => ({ containerPort: p.port, name: p.name })) });
    const mm = service(cl, { ns: 'arena', name: 'matchmaker', created: D('2025-09-20T08:00:00Z'), policy: 'Local', healthCheckNodePort: 30199, ports: gamePorts(7000, 41, 30100), pods: mmPods });
    ccmClb(cl, mm);
    const gsPods = deploy(cl, { ns: 'arena', app: 'game-sessions', on: [cl.nodes[0], cl.nodes[1]], created: D('2026-11-14T06:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/arena/session-host:7.3.0', containerPorts: gamePorts(7100, 42, 0).map((p) => ({ containerPort: p.port, name: p.name })) });
    service(cl, { ns: 'arena', name: 'game-sessions', type: 'NodePort', created: D('2025-09-20T08:00:00Z'), ports: gamePorts(7100, 42, 30141), pods: gsPods });
    // The same status-page chart as storefront's (same namespace/name), and a status API on port 80.
    statusSvc(cl, 'status-page', 8080, 30183, [cl.nodes[0]]);
    statusSvc(cl, 'status-api', 80, 30184, [cl.nodes[1]]);
    apiServerClb(cl, [0, 1].map((i) => ({ ServerId: cloudId('eni', bj.id), ServerIp: `10.40.15.${250 + i}`, Weight: 100, Type: 'eni' })));
  }

  // ------------------------------------------------------------------------------------------
  // acme-prod / cn-hangzhou, new cluster "batch-legacy": ACK managed, Terway (created 2018, so ECS
  // backends by default), CCM never upgraded past v1.9.3.220-g24b1885-aliyun.
  // ------------------------------------------------------------------------------------------
  {
    const hz = region(ACCOUNT_A, 'cn-hangzhou');
    const vpc = cloudId('vpc', hz.id);
    const zones = REGIONS[hz.id].zones;
    const nodeVsw = [vswitch(hz, vpc, zones[0], '10.60.0.0/22', 'batch-nodes-h', 970), vswitch(hz, vpc, zones[1], '10.60.4.0/22', 'batch-nodes-i', 981)];
    vswitch(hz, vpc, zones[0], '10.60.64.0/19', 'batch-pods-h', 8150);
    const cl = cluster(hz, {
      id: clusterId(),
      name: 'batch-legacy',
      type: 'ManagedKubernetes',
      createdAt: D('2018-07-20T02:40:00Z'),
      version: '1.20.11-aliyun.1',
      initVersion: '1.10.4',
      plugin: 'terway',
      ccm: 'v1.9.3.220-g24b1885-aliyun',
      ccmMajor: 1,
      vpc,
      nodeVsw,
      sg: cloudId('sg', hz.id),
      podNet: '10.60',
      podThird: 64,
      containerCidr: '',
      serviceCidr: '172.23.0.0/20',
      serviceNet: '172.23',
    });
    const np = { id: `np${H(32)}`, asg: cloudId('asg', hz.id) };
    for (let w = 0; w < 3; w++) addNode(cl, { ip: `10.60.${(w % 2) * 4 + int(0, 3)}.${int(10, 240)}`, vsw: nodeVsw[w % 2], type: 'ecs.g6.xlarge', created: plus(D('2024-03-04T01:00:00Z'), w * 600), nodepool: np });

    // exporter: its CLB dates from CCM v1.9.3.10 (2018): default name, no tag, shared-resource
    // (no specification). Local mode, weights as CCM v1.9.3.220 sets them (100 x pods / total).
    const ePods = deploy(cl, { ns: 'reports', app: 'exporter', on: [cl.nodes[0], cl.nodes[0], cl.nodes[1]], created: D('2026-11-02T01:00:00Z'), image: 'registry-vpc.cn-hangzhou.aliyuncs.com/acme/report-exporter:1.12.0', containerPorts: [{ containerPort: 9100, name: 'http' }] });
    const exporter = service(cl, { ns: 'reports', name: 'exporter', created: D('2018-08-01T03:00:00Z'), policy: 'Local', healthCheckNodePort: 31866, ports: [{ name: 'http', port: 80, targetPort: 9100, nodePort: 31865, protocol: 'TCP' }], pods: ePods });
    exporter.percentWeights = true;
    const old = clb(hz, { name: defaultLbName(exporter.uid), created: D('2018-08-01T03:00:06Z'), shared: true, tags: [] });
    attach(cl, exporter, old, D('2018-08-01T03:00:09Z'));

    // api: created in 2020 by v1.9.3.220: tagged kubernetes.do.not.delete (no ack.aliyun.com on an old cluster).
    const aPods = deploy(cl, { ns: 'reports', app: 'api', on: [cl.nodes[2]], created: D('2026-11-02T01:00:00Z'), image: 'registry-vpc.cn-hangzhou.aliyuncs.com/acme/report-api:3.4.1', containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const api = service(cl, { ns: 'reports', name: 'api', created: D('2020-02-18T05:00:00Z'), ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30488, protocol: 'TCP' }], pods: aPods });
    const apiLb = clb(hz, { name: defaultLbName(api.uid), created: D('2020-02-18T05:00:07Z'), spec: 'slb.s1.small', tags: [['kubernetes.do.not.delete', defaultLbName(api.uid)]] });
    attach(cl, api, apiLb, D('2020-02-18T05:00:10Z'));

    // renderer: ENI mode with a named targetPort on CCM v1.9.3.220: "The specified Port must be between 1
    // and 65535." (seed 002) -- this CCM records no events, so the Service is just Pending.
    const rPods = deploy(cl, { ns: 'reports', app: 'renderer', on: [cl.nodes[1]], created: D('2026-11-16T02:00:00Z'), image: 'registry-vpc.cn-hangzhou.aliyuncs.com/acme/report-renderer:0.8.0', containerPorts: [{ containerPort: 3000, name: 'http' }] });
    service(cl, { ns: 'reports', name: 'renderer', created: D('2026-11-16T02:01:00Z'), annotations: { [A2.backendType]: 'eni' }, ports: [{ name: 'http', port: 80, targetPort: 'http', nodePort: 32190, protocol: 'TCP' }], pods: rPods });

    apiServerClb(cl, [0, 1].map((i) => ({ ServerId: cloudId('eni', hz.id), ServerIp: `10.60.${i * 4}.${250 + i}`, Weight: 100, Type: 'eni' })));
  }

  // grafana (arena): the API server CLB's id was copied from the SLB console into loadbalancer-id.
  // CCM refuses (the CLB carries ack.aliyun.com, research/ccm-behaviour.md 1.6); seed 000: "You cannot
  // reuse the SLB instance for the API Server". Drawn last so the ids above stay as they were.
  {
    const arena = bj.clusters.find((c) => c.name === 'arena');
    const gPods = deploy(arena, { ns: 'ops', app: 'grafana', on: [arena.nodes[0]], created: D('2026-11-20T03:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/arena/grafana:11.3.1', containerPorts: [{ containerPort: 3000, name: 'http' }] });
    const g = service(arena, { ns: 'ops', name: 'grafana', created: D('2026-11-20T03:01:15Z'), annotations: { [A.id]: arena.apiLb.id, [A.force]: 'true' }, ports: [{ name: 'http', port: 80, targetPort: 3000, nodePort: 30185, protocol: 'TCP' }], pods: gPods });
    event(arena, g, { type: 'Warning', reason: 'SyncLoadBalancerFailed', message: `Error syncing load balancer [${arena.apiLb.id}]: Message: alicloud: the loadbalancer ${arena.apiLb.id} can not be reused, can not reuse loadbalancer created by kubernetes.`, count: 57, first: D('2026-11-20T03:01:16Z'), last: D('2026-11-21T09:11:48Z') });
  }

  // Controls drawn last (ids above unchanged). storefront/web: an HTTPS listener done right (443 -> the
  // pods' plain HTTP port 8080), the control of SERVICE_HTTPS_TO_HTTPS_PORT.
  {
    const sfc = bj.clusters.find((c) => c.name === 'storefront');
    const wPods = deploy(sfc, { ns: 'storefront', app: 'web', on: [sfc.nodes[1], sfc.nodes[2]], created: D('2026-11-12T02:00:00Z'), image: 'registry-vpc.cn-beijing.aliyuncs.com/acme/web:9.1.0', containerPorts: [{ containerPort: 8080, name: 'http' }] });
    const web = service(sfc, {
      ns: 'storefront',
      name: 'web',
      created: D('2025-03-03T03:00:00Z'),
      annotations: { [A2.protocolPort]: 'https:443,http:80', [A2.certId]: `${int(1000000, 9999999)}-cn-beijing` },
      ports: [
        { name: 'http', port: 80, targetPort: 8080, nodePort: 30080, protocol: 'TCP', lbProtocol: 'http' },
        { name: 'https', port: 443, targetPort: 8080, nodePort: 30443, protocol: 'TCP', lbProtocol: 'https' },
      ],
      pods: wPods,
    });
    ccmClb(sfc, web);
  }
  // tools-edge: a console CLB reused by storefront tools/wiki (80) and arena tools/dashboard (8080): two
  // clusters, distinct namespace/names and listener ports: the control of LB_REUSE_NAME_COLLISION and
  // LB_LISTENER_PORT_CONFLICT.
  {
    const toolsLb = clb(bj, { name: 'tools-edge', created: D('2025-01-15T01:00:00Z'), spec: 'slb.s1.small', modProtection: ['NonProtection', ''], tags: [['owner', 'platform'], ['kubernetes.reused.by.user', 'true']] });
    const toolSvc = (cl, ns, name, port, nodePort, node) => {
      const pods = deploy(cl, { ns, app: name, on: [node], created: D('2026-10-20T02:00:00Z'), image: `registry-vpc.cn-beijing.aliyuncs.com/acme/${name}:1.0.0`, containerPorts: [{ containerPort: 8080, name: 'http' }] });
      const svc = service(cl, { ns, name, created: D('2025-01-15T01:10:00Z'), annotations: { [A.id]: toolsLb.id, [A.force]: 'true' }, ports: [{ name: 'http', port, targetPort: 8080, nodePort, protocol: 'TCP' }], pods });
      attach(cl, svc, toolsLb, D('2025-01-15T01:10:20Z'));
    };
    const sfc = bj.clusters.find((c) => c.name === 'storefront');
    const arena = bj.clusters.find((c) => c.name === 'arena');
    toolSvc(sfc, 'tools', 'wiki', 80, 31280, sfc.nodes[4]);
    toolSvc(arena, 'tools', 'dashboard', 8080, 30186, arena.nodes[1]);
  }
  state = savedState;
}

// ---------------------------------------------------------------------------------------------
// Emitters: Kubernetes objects
// ---------------------------------------------------------------------------------------------
const yamlOpts = { version: '1.1', sortMapEntries: true, lineWidth: 0 };
const list = (items) => ({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } });

function nodeObj(cl, n) {
  const reg = cl.reg.id;
  const labels = {
    'ack.aliyun.com': cl.id,
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': n.name,
    'kubernetes.io/os': 'linux',
    'node.kubernetes.io/instance-type': n.type,
    'topology.kubernetes.io/region': reg,
    'topology.kubernetes.io/zone': n.zone,
  };
  if (n.nodepool) labels['alibabacloud.com/nodepool-id'] = n.nodepool.id;
  if (n.master) labels['node-role.kubernetes.io/master'] = '';
  const taints = [];
  if (n.master) taints.push({ effect: 'NoSchedule', key: 'node-role.kubernetes.io/master' });
  if (n.cordoned) taints.push({ effect: 'NoSchedule', key: 'node.kubernetes.io/unschedulable', timeAdded: '2026-11-19T14:02:11Z' });
  if (!n.ready) taints.push({ effect: 'NoSchedule', key: 'node.kubernetes.io/unreachable', timeAdded: '2026-11-21T06:48:40Z' }, { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', timeAdded: '2026-11-21T06:48:45Z' });
  const hb = iso(plus(NOW, -int(5, 50)));
  const [cpu, memKi] = { 'ecs.g6.xlarge': [4, 16132256], 'ecs.g6.2xlarge': [8, 32247008], 'ecs.g7.xlarge': [4, 16132256], 'ecs.g7.2xlarge': [8, 32247008], 'ecs.c7.xlarge': [4, 7869228] }[n.type];
  const kubelet = `v${cl.version}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { creationTimestamp: iso(plus(n.created, 95)), labels, name: n.name, resourceVersion: resourceVersion(), uid: n.uid },
    spec: {
      ...(n.podCidr ? { podCIDR: n.podCidr, podCIDRs: [n.podCidr] } : {}),
      providerID: `${reg}.${n.ecsId}`,
      ...(taints.length ? { taints } : {}),
      ...(n.cordoned ? { unschedulable: true } : {}),
    },
    status: {
      addresses: [
        { address: n.ip, type: 'InternalIP' },
        { address: n.name, type: 'Hostname' },
      ],
      allocatable: { cpu: `${cpu * 1000 - 100}m`, memory: `${memKi - 1460000}Ki`, pods: cl.plugin === 'terway' ? '64' : '128' },
      conditions: [
        n.ready
          ? { lastHeartbeatTime: hb, lastTransitionTime: iso(plus(n.created, 120)), message: 'kubelet is posting ready status', reason: 'KubeletReady', status: 'True', type: 'Ready' }
          : { lastHeartbeatTime: '2026-11-21T06:47:58Z', lastTransitionTime: '2026-11-21T06:48:40Z', message: 'Kubelet stopped posting node status.', reason: 'NodeStatusUnknown', status: 'Unknown', type: 'Ready' },
      ],
      nodeInfo: { containerRuntimeVersion: cl.ccmMajor === 1 ? 'containerd://1.5.13' : 'containerd://1.6.38', kubeletVersion: kubelet, osImage: 'Alibaba Cloud Linux 3.2104 U11 (OpenAnolis Edition)' },
    },
  };
}

function podObj(p) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      creationTimestamp: iso(p.created),
      generateName: `${p.rs.name}-`,
      labels: p.labels,
      name: p.name,
      namespace: p.ns,
      ownerReferences: [{ apiVersion: 'apps/v1', blockOwnerDeletion: true, controller: true, kind: 'ReplicaSet', name: p.rs.name, uid: p.rs.uid }],
      resourceVersion: resourceVersion(),
      uid: p.uid,
    },
    spec: {
      containers: [
        {
          image: p.image,
          imagePullPolicy: 'IfNotPresent',
          name: p.containerName,
          ports: p.containerPorts.map((c) => ({ ...c, protocol: 'TCP' })),
        },
      ],
      nodeName: p.node.name,
    },
    status: {
      conditions: [{ lastProbeTime: null, lastTransitionTime: iso(plus(p.created, 25)), status: 'True', type: 'Ready' }],
      hostIP: p.node.ip,
      phase: 'Running',
      podIP: p.ip,
      podIPs: [{ ip: p.ip }],
    },
  };
}

function serviceObj(cl, s) {
  const modern = cl.ccmMajor >= 2;
  const ports = s.ports.map((p) => {
    const { lbProtocol, ...rest } = p;
    return rest;
  });
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      ...(Object.keys(s.annotations).length ? { annotations: s.annotations } : {}),
      creationTimestamp: iso(s.created),
      ...(s.finalizer ? { finalizers: [FINALIZER] } : {}),
      ...(Object.keys(s.labels).length ? { labels: s.labels } : {}),
      name: s.name,
      namespace: s.ns,
      resourceVersion: resourceVersion(),
      uid: s.uid,
    },
    spec: {
      ...(s.type === 'LoadBalancer' ? { allocateLoadBalancerNodePorts: true } : {}),
      clusterIP: s.clusterIp,
      clusterIPs: [s.clusterIp],
      externalTrafficPolicy: s.policy,
      ...(s.healthCheckNodePort ? { healthCheckNodePort: s.healthCheckNodePort } : {}),
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports,
      selector: s.selector,
      sessionAffinity: 'None',
      type: s.type,
    },
    status: { loadBalancer: s.ingressIp ? { ingress: [{ ip: s.ingressIp, ...(modern ? { ipMode: 'VIP' } : {}) }] } : {} },
  };
}

function sliceObj(cl, s) {
  const slicePorts = s.ports.map((p) => {
    const containerPort = typeof p.targetPort === 'number' ? p.targetPort : s.pods[0].containerPorts.find((c) => c.name === p.targetPort).containerPort;
    return { name: p.name, port: containerPort, protocol: p.protocol };
  });
  const name = `${s.name}-${chars(KHASH, 5)}`;
  return {
    addressType: 'IPv4',
    apiVersion: 'discovery.k8s.io/v1',
    endpoints: s.pods.map((p) => ({
      addresses: [p.ip],
      conditions: { ready: p.ready, serving: p.ready, terminating: false },
      nodeName: p.node.name,
      targetRef: { kind: 'Pod', name: p.name, namespace: p.ns, uid: p.uid },
      zone: p.node.zone,
    })),
    kind: 'EndpointSlice',
    metadata: {
      creationTimestamp: iso(plus(s.created, 1)),
      generateName: `${s.name}-`,
      labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', 'kubernetes.io/service-name': s.name },
      name,
      namespace: s.ns,
      resourceVersion: resourceVersion(),
      uid: uuid(),
    },
    ports: slicePorts,
  };
}

function eventObj(e) {
  return {
    apiVersion: 'v1',
    count: e.count,
    eventTime: null,
    firstTimestamp: iso(e.first),
    involvedObject: { apiVersion: 'v1', kind: 'Service', name: e.svc.name, namespace: e.svc.ns, resourceVersion: resourceVersion(), uid: e.svc.uid },
    kind: 'Event',
    lastTimestamp: iso(e.last),
    message: e.message,
    metadata: { creationTimestamp: iso(e.first), name: `${e.svc.name}.${chars(HEX, 16)}`, namespace: e.svc.ns, resourceVersion: resourceVersion(), uid: uuid() },
    reason: e.reason,
    reportingComponent: '',
    reportingInstance: '',
    source: { component: 'service-controller' },
    type: e.type,
  };
}

/** kube-system static Pods of a dedicated cluster's masters: kube-apiserver (NodePort range flag) and CCM. */
function kubeSystemObjs(cl) {
  if (cl.type !== 'Kubernetes') return [];
  const masters = cl.nodes.filter((n) => n.master);
  const etcd = masters.map((m) => `https://${m.ip}:2379`).join(',');
  const out = [];
  for (const m of masters) {
    const created = D('2026-05-12T03:10:00Z');
    out.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.hash': chars(HEX, 32) },
        creationTimestamp: iso(plus(created, m.k * 41)),
        labels: { component: 'kube-apiserver', tier: 'control-plane' },
        name: `kube-apiserver-${m.name}`,
        namespace: 'kube-system',
        ownerReferences: [{ apiVersion: 'v1', controller: true, kind: 'Node', name: m.name, uid: m.uid }],
        resourceVersion: resourceVersion(),
        uid: uuid(),
      },
      spec: {
        containers: [
          {
            command: [
              'kube-apiserver',
              `--advertise-address=${m.ip}`,
              '--allow-privileged=true',
              '--apiserver-count=3',
              '--authorization-mode=Node,RBAC',
              '--client-ca-file=/etc/kubernetes/pki/ca.crt',
              '--enable-admission-plugins=NodeRestriction,PodSecurityPolicy',
              '--enable-aggregator-routing=true',
              `--etcd-servers=${etcd}`,
              '--etcd-cafile=/etc/kubernetes/pki/etcd/ca.pem',
              '--etcd-certfile=/etc/kubernetes/pki/etcd/etcd-client.pem',
              '--etcd-keyfile=/etc/kubernetes/pki/etcd/etcd-client-key.pem',
              '--kubelet-client-certificate=/etc/kubernetes/pki/apiserver-kubelet-client.crt',
              '--kubelet-client-key=/etc/kubernetes/pki/apiserver-kubelet-client.key',
              '--secure-port=6443',
              '--service-account-issuer=https://kubernetes.default.svc',
              '--service-account-key-file=/etc/kubernetes/pki/sa.pub',
              '--service-account-signing-key-file=/etc/kubernetes/pki/sa.key',
              `--service-cluster-ip-range=${cl.serviceCidr}`,
              `--service-node-port-range=${cl.nodePortFlag}`,
              '--tls-cert-file=/etc/kubernetes/pki/apiserver.crt',
              '--tls-private-key-file=/etc/kubernetes/pki/apiserver.key',
            ],
            image: `registry-vpc.${cl.reg.id}.aliyuncs.com/acs/kube-apiserver:v${cl.version}`,
            imagePullPolicy: 'IfNotPresent',
            name: 'kube-apiserver',
            resources: { requests: { cpu: '250m' } },
          },
        ],
        hostNetwork: true,
        nodeName: m.name,
        priorityClassName: 'system-node-critical',
      },
      status: { hostIP: m.ip, phase: 'Running', podIP: m.ip, podIPs: [{ ip: m.ip }], qosClass: 'Burstable', startTime: iso(plus(created, m.k * 41)) },
    });
  }
  const dsUid = uuid();
  for (const m of masters) {
    const created = D('2020-09-14T03:33:05Z');
    out.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        creationTimestamp: iso(plus(created, m.k * 3)),
        generateName: 'cloud-controller-manager-',
        labels: { app: 'cloud-controller-manager', 'controller-revision-hash': `${chars(KHASH, 10)}`, tier: 'control-plane' },
        name: `cloud-controller-manager-${chars(KHASH, 5)}`,
        namespace: 'kube-system',
        ownerReferences: [{ apiVersion: 'apps/v1', blockOwnerDeletion: true, controller: true, kind: 'DaemonSet', name: 'cloud-controller-manager', uid: dsUid }],
        resourceVersion: resourceVersion(),
        uid: uuid(),
      },
      spec: {
        containers: [
          {
            command: [
              '/cloud-controller-manager',
              '--kubeconfig=/etc/kubernetes/cloud-controller-manager.conf',
              '--address=127.0.0.1',
              '--allow-untagged-cloud=true',
              '--leader-elect=true',
              '--cloud-provider=alicloud',
              '--cloud-config=/etc/kubernetes/config/cloud-config.conf',
              '--allocate-node-cidrs=true',
              `--cluster-cidr=${cl.containerCidr}`,
              '--configure-cloud-routes=true',
              '--route-reconciliation-period=3m',
              '--leader-elect-resource-lock=endpoints',
            ],
            image: `registry-vpc.${cl.reg.id}.aliyuncs.com/acs/cloud-controller-manager-amd64:${cl.ccm}`,
            imagePullPolicy: 'IfNotPresent',
            name: 'cloud-controller-manager',
            resources: { requests: { cpu: '200m' } },
          },
        ],
        hostNetwork: true,
        nodeName: m.name,
        priorityClassName: 'system-node-critical',
      },
      status: { hostIP: m.ip, phase: 'Running', podIP: m.ip, podIPs: [{ ip: m.ip }], qosClass: 'Burstable', startTime: iso(plus(created, m.k * 3 + 2)) },
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Emitters: ACK (CS) bodies
// ---------------------------------------------------------------------------------------------
function clusterDetail(cl) {
  const reg = cl.reg.id;
  const pro = cl.spec === 'ack.pro.small';
  return {
    cluster_id: cl.id,
    name: cl.name,
    region_id: reg,
    zone_id: cl.nodeVsw[0].ZoneId,
    cluster_type: cl.type,
    ...(cl.spec ? { cluster_spec: cl.spec } : {}),
    profile: 'Default',
    state: 'running',
    size: cl.nodes.length,
    current_version: cl.version,
    init_version: cl.initVersion,
    next_version: '',
    created: csTime(cl.createdAt),
    updated: csTime(D('2026-10-28T02:11:35Z')),
    vpc_id: cl.vpc,
    vswitch_id: cl.nodeVsw.map((v) => v.VSwitchId).join(','),
    vswitch_ids: cl.nodeVsw.map((v) => v.VSwitchId),
    security_group_id: cl.sg,
    resource_group_id: cl.account.rg,
    container_cidr: cl.containerCidr,
    service_cidr: cl.serviceCidr,
    ...(cl.plugin === 'flannel' ? { node_cidr_mask: '25' } : {}),
    network_mode: cl.plugin === 'flannel' ? 'vpc' : '',
    proxy_mode: 'ipvs',
    ip_stack: 'ipv4',
    external_loadbalancer_id: cl.apiLb.id,
    master_url: JSON.stringify({ api_server_endpoint: '', intranet_api_server_endpoint: `https://${cl.apiLb.address}:6443` }),
    deletion_protection: true,
    docker_version: '',
    private_zone: false,
    timezone: 'Asia/Shanghai',
    cluster_domain: 'cluster.local',
    ...(cl.type === 'Kubernetes' ? { worker_ram_role_name: cl.workerRole } : { worker_ram_role_name: `KubernetesWorkerRole-${uuid()}` }),
    tags: [{ key: 'team', value: { 'payments-legacy': 'payments', storefront: 'web', 'data-platform': 'data', 'preview-envs': 'web', arena: 'games', 'batch-legacy': 'data' }[cl.name] }],
    maintenance_window: { enable: pro, maintenance_time: '2026-01-01T03:00:00+08:00', duration: '3h', weekly_period: 'Thursday', recurrence: '' },
    operation_policy: { cluster_auto_upgrade: { enabled: false, channel: '' } },
    ...(cl.nodePortRange ? { control_plane_config: { node_port_range: cl.nodePortRange } } : {}),
    ...(pro ? { control_plane_endpoints_config: { internal_dns_config: { enabled: false, bind_vpcs: [] }, load_balancers_config: [{ endpoint: `https://${cl.apiLb.address}:6443`, endpoint_type: 'intranet', load_balancer_id: cl.apiLb.id }] } } : {}),
  };
}

function addonsBody(cl) {
  const network =
    cl.plugin === 'flannel'
      ? { name: 'flannel', version: cl.ccmMajor === 1 ? 'v0.11.0.2-g6e46593e-aliyun' : 'v0.15.1.22-20a397e6-aliyun', state: 'active' }
      : { name: 'terway-eniip', version: 'v1.14.3', state: 'active' };
  return {
    addons: [
      { name: 'cloud-controller-manager', version: cl.ccm, state: 'active' },
      network,
      { name: 'coredns', version: cl.ccmMajor === 1 ? 'v1.8.4.1-3a376cc-aliyun' : 'v1.11.3.2-f57ea7ed6-aliyun', state: 'active' },
      { name: 'csi-plugin', version: cl.ccmMajor === 1 ? 'v1.20.7-aafce42-aliyun' : 'v1.33.1-67e8986-aliyun', state: 'active' },
      { name: 'metrics-server', version: cl.ccmMajor === 1 ? 'v0.3.8.5-307cf45-aliyun' : 'v0.3.9.4-ff225cd-aliyun', state: 'active' },
    ],
  };
}

function resourcesBody(cl) {
  const r = (type, id, created, extra = {}) => ({ cluster_id: cl.id, created: csTime(created), instance_id: id, resource_info: '', resource_type: type, state: 'CREATE_COMPLETE', auto_create: 1, ...extra });
  const out = [r('ALIYUN::SLB::LoadBalancer', cl.apiLb.id, cl.apiLb.created), r('ALIYUN::ECS::SecurityGroup', cl.sg, plus(cl.createdAt, 20))];
  if (cl.type === 'Kubernetes') out.push(r('ALIYUN::RAM::Role', cl.masterRole, plus(cl.createdAt, 5)));
  return out;
}

// ---------------------------------------------------------------------------------------------
// RAM of account A (the dedicated cluster's master role lacks the Flannel batch-route actions)
// ---------------------------------------------------------------------------------------------
function ramOf(acc) {
  const dedicated = Object.values(acc.regions).flatMap((r) => r.clusters).find((c) => c.type === 'Kubernetes');
  if (!dedicated) return managedOnlyRamOf(acc);
  const arn = (name) => `acs:ram::${acc.id}:role/${name.toLowerCase()}`;
  const roleId = () => String(300_000_000_000_000_000n + BigInt(int(1, 999_999_999)) * 1_000_000_000n + BigInt(int(1, 999_999_999)));
  const role = (name, description, created) => ({ RoleId: roleId(), RoleName: name, Arn: arn(name), Description: description, CreateDate: iso(created), UpdateDate: iso(created), MaxSessionDuration: 3600 });
  const roles = [
    role('AliyunCSDefaultRole', 'Container Service default role', D('2019-11-04T07:12:44Z')),
    role('AliyunCSKubernetesAuditRole', 'Container Service Kubernetes audit role', D('2020-09-14T03:20:02Z')),
    role('AliyunCSManagedKubernetesRole', 'Role used by ACK managed clusters (CCM, ...) to access ECS, VPC, SLB and ACR', D('2020-09-14T03:20:03Z')),
    role('AliyunCSManagedCsiRole', 'Role used by the CSI plug-ins of ACK managed clusters', D('2023-04-11T05:58:40Z')),
    role(dedicated.masterRole, 'Master RAM role of ACK dedicated cluster payments-legacy', D('2020-09-14T03:27:46Z')),
    role(dedicated.workerRole, 'Worker RAM role of ACK dedicated cluster payments-legacy', D('2020-09-14T03:27:46Z')),
    role('fleet-audit-readonly', 'Assumed by ack-fleet-audit: read-only access to CS, SLB, ECS, VPC, RAM and Quota Center', D('2026-08-03T09:00:00Z')),
  ];
  const suffix = dedicated.masterRoleUuid.replace(/-/g, '').slice(0, 12);
  const ccmPolicy = `k8sMasterRolePolicy-Ccm-${suffix}`;
  const csiPolicy = `k8sMasterRolePolicy-Csi-${suffix}`;
  const workerPolicy = `k8sWorkerRolePolicy-${suffix}`;
  // The CCM policy of a 2020 dedicated cluster: the actions of CCM v1.9.3 (the action list of
  // docs/examples/master.policy in cloud-provider-alibaba-cloud). It has vpc:CreateRouteEntry /
  // vpc:DeleteRouteEntry but not the batch vpc:CreateRouteEntries / vpc:DeleteRouteEntries that
  // CCM >= v2.11.2 uses for Flannel routes, nor nlb:ListAsynJobs (>= v2.12.1) (seed 000/003).
  const ccmDoc = {
    Version: '1',
    Statement: [
      {
        Action: ['ecs:Describe*', 'ecs:CreateRouteEntry', 'ecs:DeleteRouteEntry', 'ecs:CreateNetworkInterface', 'ecs:DeleteNetworkInterface', 'ecs:CreateNetworkInterfacePermission', 'ecs:DeleteNetworkInterfacePermission', 'ecs:ModifyInstanceAttribute', 'ecs:AttachKeyPair', 'ecs:StopInstance', 'ecs:StartInstance', 'ecs:ReplaceSystemDisk'],
        Resource: ['*'],
        Effect: 'Allow',
      },
      {
        Action: [
          'slb:Describe*',
          'slb:CreateLoadBalancer',
          'slb:DeleteLoadBalancer',
          'slb:ModifyLoadBalancerInternetSpec',
          'slb:RemoveBackendServers',
          'slb:AddBackendServers',
          'slb:RemoveTags',
          'slb:AddTags',
          'slb:StopLoadBalancerListener',
          'slb:StartLoadBalancerListener',
          'slb:SetLoadBalancerHTTPListenerAttribute',
          'slb:SetLoadBalancerHTTPSListenerAttribute',
          'slb:SetLoadBalancerTCPListenerAttribute',
          'slb:SetLoadBalancerUDPListenerAttribute',
          'slb:CreateLoadBalancerHTTPSListener',
          'slb:CreateLoadBalancerHTTPListener',
          'slb:CreateLoadBalancerTCPListener',
          'slb:CreateLoadBalancerUDPListener',
          'slb:DeleteLoadBalancerListener',
          'slb:CreateVServerGroup',
          'slb:DescribeVServerGroups',
          'slb:DeleteVServerGroup',
          'slb:SetVServerGroupAttribute',
          'slb:DescribeVServerGroupAttribute',
          'slb:ModifyVServerGroupBackendServers',
          'slb:AddVServerGroupBackendServers',
          'slb:ModifyLoadBalancerInstanceSpec',
          'slb:SetLoadBalancerModificationProtection',
          'slb:SetLoadBalancerDeleteProtection',
          'slb:SetLoadBalancerName',
          'slb:RemoveVServerGroupBackendServers',
        ],
        Resource: ['*'],
        Effect: 'Allow',
      },
      { Action: ['vpc:Describe*', 'vpc:DeleteRouteEntry', 'vpc:CreateRouteEntry'], Resource: ['*'], Effect: 'Allow' },
    ],
  };
  const csiDoc = {
    Version: '1',
    Statement: [
      { Action: ['ecs:AttachDisk', 'ecs:DetachDisk', 'ecs:DescribeDisks', 'ecs:CreateDisk', 'ecs:ResizeDisk', 'ecs:CreateSnapshot', 'ecs:DeleteSnapshot', 'ecs:DeleteDisk', 'ecs:DescribeInstances', 'ecs:AddTags'], Resource: ['*'], Effect: 'Allow' },
      { Action: ['nas:Describe*', 'nas:CreateMountTarget', 'nas:DeleteMountTarget'], Resource: ['*'], Effect: 'Allow' },
    ],
  };
  const workerDoc = {
    Version: '1',
    Statement: [
      { Action: ['ecs:DescribeInstanceAttribute', 'ecs:DescribeInstances'], Resource: ['*'], Effect: 'Allow' },
      { Action: ['log:GetProject', 'log:GetLogStore', 'log:GetConfig', 'log:GetMachineGroup'], Resource: ['*'], Effect: 'Allow' },
      { Action: ['cr:Get*', 'cr:List*', 'cr:PullRepository'], Resource: ['*'], Effect: 'Allow' },
    ],
  };
  const pol = (name, description, doc, created, attachments) => ({
    PolicyName: name,
    PolicyType: 'Custom',
    DefaultVersion: 'v1',
    Description: description,
    PolicyDocument: JSON.stringify(doc, null, 2),
    CreateDate: iso(created),
    UpdateDate: iso(created),
    AttachmentCount: attachments,
  });
  const policies = [
    pol(ccmPolicy, 'CCM permissions of the master RAM role of cluster payments-legacy', ccmDoc, D('2020-09-14T03:27:47Z'), 1),
    pol(csiPolicy, 'CSI permissions of the master RAM role of cluster payments-legacy', csiDoc, D('2020-09-14T03:27:47Z'), 1),
    pol(workerPolicy, 'Worker RAM role policy of cluster payments-legacy', workerDoc, D('2020-09-14T03:27:47Z'), 1),
  ];
  const ref = (name, type, attach, description = '') => ({ PolicyName: name, PolicyType: type, DefaultVersion: type === 'Custom' ? 'v1' : 'v6', Description: description, AttachDate: iso(attach) });
  // Every role's ListPoliciesForRole answer (a live scan asks for each role it lists).
  const rolePolicies = {
    AliyunCSDefaultRole: [ref('AliyunCSDefaultRolePolicy', 'System', D('2019-11-04T07:12:44Z'), 'Policy of the Container Service default role')],
    AliyunCSKubernetesAuditRole: [ref('AliyunCSKubernetesAuditRolePolicy', 'System', D('2020-09-14T03:20:02Z'), 'Policy of the Container Service Kubernetes audit role')],
    AliyunCSManagedCsiRole: [ref('AliyunCSManagedCsiRolePolicy', 'System', D('2023-04-11T05:58:40Z'), 'Policy of the ACK managed clusters CSI role')],
    AliyunCSManagedKubernetesRole: [ref('AliyunCSManagedKubernetesRolePolicy', 'System', D('2020-09-14T03:20:03Z'), 'Policy of the ACK managed clusters service role')],
    [dedicated.masterRole]: [ref(ccmPolicy, 'Custom', D('2020-09-14T03:27:48Z')), ref(csiPolicy, 'Custom', D('2020-09-14T03:27:48Z'))],
    [dedicated.workerRole]: [ref(workerPolicy, 'Custom', D('2020-09-14T03:27:48Z'))],
    'fleet-audit-readonly': ['AliyunCSReadOnlyAccess', 'AliyunSLBReadOnlyAccess', 'AliyunECSReadOnlyAccess', 'AliyunVPCReadOnlyAccess', 'AliyunRAMReadOnlyAccess', 'AliyunQuotasReadOnlyAccess'].map((p) => ref(p, 'System', D('2026-08-03T09:01:00Z'))),
  };
  return { roles, policies, rolePolicies };
}

// RAM of an account with managed clusters only: ACK's service roles with their system policies
// (CCM runs under AliyunCSManagedKubernetesRole there, so there is no master role to audit) and
// the audit role. Role ids are derived from the account id (no random draws: the ids of the
// other account's objects stay as they were).
function managedOnlyRamOf(acc) {
  const arn = (name) => `acs:ram::${acc.id}:role/${name.toLowerCase()}`;
  let n = 0;
  const role = (name, description, created) => ({ RoleId: `3${acc.id.slice(-9)}${String(++n).padStart(9, '0')}`, RoleName: name, Arn: arn(name), Description: description, CreateDate: iso(created), UpdateDate: iso(created), MaxSessionDuration: 3600 });
  const roles = [
    role('AliyunCSDefaultRole', 'Container Service default role', D('2021-03-02T02:10:11Z')),
    role('AliyunCSManagedKubernetesRole', 'Role used by ACK managed clusters (CCM, ...) to access ECS, VPC, SLB and ACR', D('2021-03-02T02:10:12Z')),
    role('fleet-audit-readonly', 'Assumed by ack-fleet-audit: read-only access to CS, SLB, ECS, VPC, RAM and Quota Center', D('2026-08-03T09:00:00Z')),
  ];
  const ref = (name, attach, description = '') => ({ PolicyName: name, PolicyType: 'System', DefaultVersion: 'v6', Description: description, AttachDate: iso(attach) });
  const rolePolicies = {
    AliyunCSDefaultRole: [ref('AliyunCSDefaultRolePolicy', D('2021-03-02T02:10:11Z'), 'Policy of the Container Service default role')],
    AliyunCSManagedKubernetesRole: [ref('AliyunCSManagedKubernetesRolePolicy', D('2021-03-02T02:10:12Z'), 'Policy of the ACK managed clusters service role')],
    'fleet-audit-readonly': ['AliyunCSReadOnlyAccess', 'AliyunSLBReadOnlyAccess', 'AliyunECSReadOnlyAccess', 'AliyunVPCReadOnlyAccess', 'AliyunRAMReadOnlyAccess', 'AliyunQuotasReadOnlyAccess'].map((p) => ref(p, D('2026-08-03T09:01:00Z'))),
  };
  return { roles, policies: [], rolePolicies };
}

// ---------------------------------------------------------------------------------------------
// Write the directory
// ---------------------------------------------------------------------------------------------
const written = [];
function write(rel, text) {
  const file = join(ROOT, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  written.push(rel);
}
const json = (v) => `${JSON.stringify(v, null, 2)}\n`;
const yaml = (header, v) => `${header.map((l) => `# ${l}`.trimEnd()).join('\n')}\n${YAML.stringify(v, yamlOpts)}`;

rmSync(join(ROOT, 'accounts'), { recursive: true, force: true });
write(
  'fleet.yaml',
  yaml(['Bundled sample fleet of ack-fleet-audit: what `fleet-audit demo` serves and scans. See README.md.'], {
    name: 'sample',
    description: 'Two accounts, two regions, six ACK clusters (dedicated Flannel, Pro Flannel x2, Pro Terway, Basic Flannel, managed Terway on CCM v1.9.3): every file in the native API shape, built so that every check of the catalogue fires and its controls stay silent.',
  }),
);

for (const acc of Object.values(accounts)) {
  const base = `accounts/${acc.id}`;
  write(
    `${base}/account.yaml`,
    yaml([`Alibaba Cloud account ${acc.name}.`], {
      accountId: acc.id,
      name: acc.name,
      regions: Object.keys(acc.regions).sort(),
      auditRoleArn: `acs:ram::${acc.id}:role/fleet-audit-readonly`,
    }),
  );
  const ram = ramOf(acc);
  if (ram) {
    write(`${base}/ram/roles.json`, json(ram.roles));
    write(`${base}/ram/policies.json`, json(ram.policies));
    write(`${base}/ram/role-policies.json`, json(ram.rolePolicies));
  }
  for (const reg of Object.values(acc.regions)) {
    const rb = `${base}/regions/${reg.id}`;
    write(`${rb}/load-balancers.json`, json(reg.lbs.map(clbBody)));
    write(`${rb}/vserver-groups.json`, json(reg.vgroups));
    write(`${rb}/ecs-instances.json`, json(reg.ecs));
    write(`${rb}/vswitches.json`, json(reg.vswitches.map((v) => ({ ...v, Status: 'Available', IsDefault: false, CreationTime: '2020-09-14T03:10:52Z', ResourceGroupId: acc.rg }))));
    if (reg.quotas) write(`${rb}/quotas.json`, json(reg.quotas));
    for (const cl of reg.clusters) {
      const cb = `${rb}/clusters/${cl.id}`;
      write(`${cb}/cluster.json`, json(clusterDetail(cl)));
      write(`${cb}/addons.json`, json(addonsBody(cl)));
      write(`${cb}/resources.json`, json(resourcesBody(cl)));
      const sysctls = {};
      for (const n of [...cl.nodes].sort((a, b) => (a.ecsId < b.ecsId ? -1 : 1))) sysctls[n.ecsId] = { 'net.ipv4.ip_local_port_range': '32768\t60999' };
      write(`${cb}/node-sysctls.json`, json(sysctls));
      const kb = `${cb}/kubernetes`;
      const who = `cluster ${cl.name} (${cl.id})`;
      write(`${kb}/nodes.yaml`, yaml([`kubectl get nodes -o yaml, ${who}`], list(cl.nodes.map((n) => nodeObj(cl, n)))));
      // One file per kind (docs/fleet-format.md: each kind's completeness rests on its own file). Services with
      // a provenance header (copied from upstream manifests) come first, with their header kept as a comment;
      // kube-system Pods come before the others. Objects are built in the order that numbers their
      // resourceVersions (plain Services, headed Services, Pods, kube-system Pods).
      const headed = cl.services.filter((x) => x.header);
      const plainObjs = cl.services.filter((s) => !s.header).map((s) => serviceObj(cl, s));
      const headedObjs = headed.map((s) => serviceObj(cl, s));
      const podObjs = cl.pods.map(podObj);
      const sys = kubeSystemObjs(cl);
      write(
        `${kb}/services.yaml`,
        yaml(
          [`kubectl get services -A -o yaml (LoadBalancer Services), ${who}`, ...headed.flatMap((s) => ['', `${s.ns}/${s.name}:`, ...s.header])],
          list([...headedObjs, ...plainObjs]),
        ),
      );
      write(
        `${kb}/pods.yaml`,
        yaml([`kubectl get pods -A -o yaml (${sys.length ? 'control plane static Pods and CCM in kube-system, then ' : ''}the Services' backends), ${who}`], list([...sys, ...podObjs])),
      );
      write(`${kb}/endpointslices.yaml`, yaml([`kubectl get endpointslices -A -o yaml, ${who}`], list(cl.services.map((s) => sliceObj(cl, s)))));
      if (cl.events.length) write(`${kb}/events.yaml`, yaml([`kubectl get events -A --field-selector involvedObject.kind=Service -o yaml, ${who}`], list(cl.events.map(eventObj))));
    }
  }
}

// A machine-readable map of the ids the README and tests talk about.
const ids = {};
for (const acc of Object.values(accounts))
  for (const reg of Object.values(acc.regions)) {
    for (const cl of reg.clusters) {
      ids[cl.name] = {
        accountId: acc.id,
        regionId: reg.id,
        clusterId: cl.id,
        apiServerLoadBalancerId: cl.apiLb.id,
        ...(cl.masterRole ? { masterRole: cl.masterRole } : {}),
        services: Object.fromEntries(cl.services.map((s) => [`${s.ns}/${s.name}`, { uid: s.uid, ...(s.lb ? { loadBalancerId: s.lb.id } : {}), ...(s.annotations[A.id] ? { reusedLoadBalancerId: s.annotations[A.id] } : {}) }])),
        ...(cl.orphanLb ? { orphanLoadBalancerId: cl.orphanLb.id, orphanServiceUid: cl.orphanUid } : {}),
      };
    }
    if (reg.consoleLb) ids.consoleLoadBalancer = { accountId: acc.id, regionId: reg.id, loadBalancerId: reg.consoleLb.id };
    if (reg.sharedLb) ids.sharedServicesLoadBalancer = { accountId: acc.id, regionId: reg.id, loadBalancerId: reg.sharedLb.id, vpcId: reg.sharedLb.vpc };
  }
const preview = ids['preview-envs'];
preview.services = { count: Object.keys(preview.services).length, example: Object.entries(preview.services)[0] };
write('ids.json', json(ids));
process.stdout.write(`wrote ${written.length} files under ${ROOT}\n`);
