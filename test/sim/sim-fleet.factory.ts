/**
 * Test factory: writes a small fleet directory (`shared/fleet-format.md`) into a fresh temp dir:
 * one account (management), one region, two CLBs with vServer groups, ECS instances (enough for
 * several DescribeInstances pages), two vSwitches, quotas, RAM roles/policies and one ACK cluster
 * with node sysctls (first five instances), nodes, services, pods, endpoint slices and events.
 * Sizes are overridable.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { KIND_DATA } from '@app/domain';

/** Ids the factory uses, for assertions. */
export const SIM_FLEET_IDS = {
  accountId: '1111222233334444',
  regionId: 'cn-hangzhou',
  clusterId: 'c0123456789abcdef0123456789abcdef',
  vpcId: 'vpc-bp1simtestvpc0001',
  otherVpcId: 'vpc-bp1simtestvpc0002',
  lbIds: ['lb-bp1simtest00000001', 'lb-bp1simtest00000002'],
  vServerGroupIds: ['rsp-bp1simtest0001', 'rsp-bp1simtest0002', 'rsp-bp1simtest0003'],
  roleName: 'KubernetesMasterRole-sim',
  policyName: 'k8sMasterRolePolicy-Ccm-sim',
} as const;

/** Sizes of the generated fleet. */
export interface SimFleetSizes {
  /** ECS instances in the region (default 25). */
  ecs: number;
  /** Kubernetes nodes (default 7; each backed by one of the first ECS instances). */
  nodes: number;
  /** RAM roles (default 3). */
  roles: number;
  /** Kubernetes events (default 1: a SyncLoadBalancerFailed warning in `default`; more go to `shop`). */
  events: number;
}

const ecsId = (i: number): string => `i-bp1simtest${String(i).padStart(8, '0')}`;

function write(file: string, data: unknown): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, file.endsWith('.json') ? JSON.stringify(data, null, 2) : dump(data));
}

/** Every load-balancer kind's files of a region directory, empty lists (e.g. the four `nlb/` files). */
function writeEmptyKindFiles(regionDir: string): void {
  for (const data of KIND_DATA) for (const f of data.files) write(join(regionDir, data.dataset, f.file), []);
}

/** Write the fleet; returns its root directory. */
export function writeSimFleet(sizes: Partial<SimFleetSizes> = {}): string {
  const s: SimFleetSizes = { ecs: 25, nodes: 7, roles: 3, events: 1, ...sizes };
  const ids = SIM_FLEET_IDS;
  const root = mkdtempSync(join(tmpdir(), 'sim-fleet-'));
  write(join(root, 'fleet.yaml'), { name: 'sim-test', description: 'fleet for simulator tests' });
  const acc = join(root, 'accounts', ids.accountId);
  write(join(acc, 'account.yaml'), {
    accountId: ids.accountId,
    name: 'sim-prod',
    regions: [ids.regionId],
    management: true,
  });

  const roles = Array.from({ length: s.roles }, (_, i) => ({
    RoleName: i === 0 ? ids.roleName : `sim-role-${i}`,
    RoleId: `30000000000000${i}`,
    Arn: `acs:ram::${ids.accountId}:role/${i === 0 ? ids.roleName : `sim-role-${i}`}`,
    Description: '',
    CreateDate: '2021-01-01T00:00:00Z',
  }));
  write(join(acc, 'ram', 'roles.json'), roles);
  const doc = JSON.stringify({
    Version: '1',
    Statement: [{ Effect: 'Allow', Action: ['slb:Describe*', 'ecs:DescribeInstances'], Resource: '*' }],
  });
  write(join(acc, 'ram', 'policies.json'), [
    {
      PolicyName: ids.policyName,
      PolicyType: 'Custom',
      DefaultVersion: 'v2',
      Description: 'ccm',
      PolicyDocument: doc,
    },
  ]);
  write(join(acc, 'ram', 'role-policies.json'), {
    [ids.roleName]: [
      {
        PolicyName: ids.policyName,
        PolicyType: 'Custom',
        DefaultVersion: 'v2',
        Description: 'ccm',
        AttachDate: '2021-01-01T00:00:00Z',
      },
    ],
  });

  const reg = join(acc, 'regions', ids.regionId);
  const ecs = Array.from({ length: s.ecs }, (_, i) => ({
    InstanceId: ecsId(i),
    InstanceName: `node-${i}`,
    HostName: `node-${i}`,
    RegionId: ids.regionId,
    ZoneId: i % 2 === 0 ? 'cn-hangzhou-h' : 'cn-hangzhou-i',
    Status: 'Running',
    InstanceType: 'ecs.g6.xlarge',
    Cpu: 4,
    Memory: 16384,
    VpcAttributes: {
      VpcId: i < s.ecs - 3 ? ids.vpcId : ids.otherVpcId,
      VSwitchId: 'vsw-bp1simtest0001',
      NatIpAddress: '',
      PrivateIpAddress: { IpAddress: [`192.168.0.${10 + i}`] },
    },
    NetworkInterfaces: {
      NetworkInterface: [
        { NetworkInterfaceId: `eni-sim${i}`, Type: 'Primary', PrimaryIpAddress: `192.168.0.${10 + i}` },
      ],
    },
    SecurityGroupIds: { SecurityGroupId: ['sg-bp1simtest'] },
    Tags: { Tag: [{ TagKey: 'ack.aliyun.com', TagValue: ids.clusterId }] },
  }));
  write(join(reg, 'ecs-instances.json'), ecs);
  write(join(reg, 'vswitches.json'), [
    {
      VSwitchId: 'vsw-bp1simtest0001',
      VpcId: ids.vpcId,
      ZoneId: 'cn-hangzhou-h',
      CidrBlock: '192.168.0.0/24',
      AvailableIpAddressCount: 200,
    },
    {
      VSwitchId: 'vsw-bp1simtest0002',
      VpcId: ids.otherVpcId,
      ZoneId: 'cn-hangzhou-i',
      CidrBlock: '192.168.1.0/24',
      AvailableIpAddressCount: 3,
    },
  ]);
  type Listener = Record<string, string | number>;
  type TagPair = { TagKey: string; TagValue: string };
  const lb = (
    id: string,
    name: string,
    vsg: string,
    moreListeners: Listener[] = [],
    moreTags: TagPair[] = [],
  ) => ({
    LoadBalancerId: id,
    LoadBalancerName: name,
    RegionId: ids.regionId,
    AddressType: 'internet',
    Address: '47.0.0.1',
    AddressIPVersion: 'ipv4',
    NetworkType: 'vpc',
    VpcId: ids.vpcId,
    VSwitchId: 'vsw-bp1simtest0001',
    LoadBalancerSpec: 'slb.s2.small',
    InstanceChargeType: 'PayBySpec',
    InternetChargeType: 'paybytraffic',
    LoadBalancerStatus: 'active',
    CreateTime: '2021-03-02T06:41:15Z',
    Tags: {
      Tag: [
        { TagKey: 'kubernetes.do.not.delete', TagValue: name },
        { TagKey: 'ack.aliyun.com', TagValue: ids.clusterId },
        ...moreTags,
      ],
    },
    ListenerPorts: { ListenerPort: [80, ...moreListeners.map((l) => Number(l['ListenerPort']))] },
    ListenerPortsAndProtocol: {
      ListenerPortAndProtocol: [
        { ListenerPort: 80, ListenerProtocol: 'tcp', VServerGroupId: vsg },
        ...moreListeners,
      ],
    },
    BackendServers: { BackendServer: [] },
  });
  write(join(reg, 'load-balancers.json'), [
    lb(ids.lbIds[0], 'a0000000000000000000000000000001', ids.vServerGroupIds[0]),
    lb(
      ids.lbIds[1],
      'a0000000000000000000000000000002',
      ids.vServerGroupIds[2],
      [
        {
          ListenerPort: 8080,
          ListenerProtocol: 'http',
          ListenerForward: 'on',
          ForwardPort: 443,
          Description: 'redirect',
        },
        { ListenerPort: 53, ListenerProtocol: 'udp', Description: 'dns' },
      ],
      [{ TagKey: 'team', TagValue: 'shop' }],
    ),
  ]);
  const group = (id: string, lbId: string, port: number, members: number[], tags: TagPair[] = []) => ({
    VServerGroupId: id,
    ...(tags.length > 0 ? { Tags: { Tag: tags } } : {}),
    VServerGroupName: `k8s/${port}/svc/default/${ids.clusterId}`,
    LoadBalancerId: lbId,
    CreateTime: '2021-03-02T06:41:18Z',
    BackendServers: {
      BackendServer: members.map((m) => ({
        ServerId: ecsId(m),
        ServerIp: `192.168.0.${10 + m}`,
        Port: port,
        Weight: 100,
        Type: 'ecs',
      })),
    },
  });
  // Each load-balancer kind's files are required (docs/fleet-format.md, e.g. the four nlb/ files); this region has none.
  writeEmptyKindFiles(reg);
  write(join(reg, 'vserver-groups.json'), [
    group(ids.vServerGroupIds[0], ids.lbIds[0], 30080, [0, 1, 2]),
    group(ids.vServerGroupIds[1], ids.lbIds[0], 30443, [0]),
    group(ids.vServerGroupIds[2], ids.lbIds[1], 31000, [3, 4], [{ TagKey: 'team', TagValue: 'shop' }]),
  ]);
  write(
    join(reg, 'quotas.json'),
    [
      'slb_quota_instances_num',
      'slb_quota_backendservers_num',
      'slb_quota_listeners_num',
      'slb_quota_backendserver_attached_num',
    ].map((code, i) => ({
      ProductCode: 'slb',
      QuotaActionCode: code,
      QuotaName: code,
      TotalQuota: [60, 200, 50, 50][i],
      TotalUsage: [2, 3, 1, 2][i],
      Dimensions: { regionId: ids.regionId },
    })),
  );

  const cl = join(reg, 'clusters', ids.clusterId);
  write(join(cl, 'cluster.json'), {
    cluster_id: ids.clusterId,
    name: 'sim-cluster',
    region_id: ids.regionId,
    cluster_type: 'ManagedKubernetes',
    cluster_spec: 'ack.pro.small',
    state: 'running',
    current_version: '1.30.1-aliyun.1',
    created: '2021-03-01T00:00:00Z',
    vpc_id: ids.vpcId,
    external_loadbalancer_id: 'lb-bp1simapiserver001',
    tags: [{ key: 'team', value: 'sim' }],
    control_plane_config: { node_port_range: '30000-32767' },
  });
  write(
    join(cl, 'node-sysctls.json'),
    Object.fromEntries(
      Array.from({ length: Math.min(5, s.ecs) }, (_, i) => [
        ecsId(i),
        { 'net.ipv4.ip_local_port_range': i === 0 ? '1024 65000' : '32768 60999' },
      ]),
    ),
  );
  write(join(cl, 'resources.json'), [
    {
      cluster_id: ids.clusterId,
      created: '2021-03-01T00:00:00Z',
      instance_id: 'KubernetesMasterRole-sim',
      resource_info: '{}',
      resource_type: 'ALIYUN::RAM::Role',
      state: 'CREATE_COMPLETE',
      auto_create: 1,
    },
    {
      cluster_id: ids.clusterId,
      created: '2021-03-01T00:00:00Z',
      instance_id: 'lb-bp1simapiserver001',
      resource_type: 'ALIYUN::SLB::LoadBalancer',
      state: 'CREATE_COMPLETE',
      auto_create: 1,
    },
  ]);
  write(join(cl, 'addons.json'), {
    addons: [{ name: 'cloud-controller-manager', version: 'v2.10.0', state: 'active' }],
  });
  const nodes = Array.from({ length: s.nodes }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: `cn-hangzhou.192.168.0.${10 + i}`,
      labels: { 'kubernetes.io/os': 'linux', pool: i % 2 === 0 ? 'a' : 'b' },
      creationTimestamp: '2021-03-01T00:00:00Z',
    },
    spec: { providerID: `cn-hangzhou.${ecsId(i)}` },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      addresses: [{ type: 'InternalIP', address: `192.168.0.${10 + i}` }],
      nodeInfo: { kubeletVersion: 'v1.30.1-aliyun.1' },
    },
  }));
  write(join(cl, 'kubernetes', 'nodes.yaml'), { apiVersion: 'v1', kind: 'List', items: nodes });
  const svc = (name: string, ns: string, type: string, nodePort?: number) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: ns, creationTimestamp: '2021-03-02T00:00:00Z' },
    spec: {
      type,
      externalTrafficPolicy: type === 'LoadBalancer' ? 'Cluster' : undefined,
      selector: { app: name },
      clusterIP: '172.21.0.10',
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, ...(nodePort ? { nodePort } : {}) },
      ],
    },
    status: type === 'LoadBalancer' ? { loadBalancer: { ingress: [{ ip: '47.0.0.1' }] } } : {},
  });
  write(join(cl, 'kubernetes', 'services.yaml'), {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      svc('web', 'default', 'LoadBalancer', 30080),
      svc('api', 'shop', 'LoadBalancer', 31000),
      svc('db', 'shop', 'ClusterIP'),
      svc('kube-dns', 'kube-system', 'ClusterIP'),
    ],
  });
  const pod = (name: string, ns: string, node: number) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ns,
      labels: { app: name.split('-')[0] as string },
      creationTimestamp: '2021-03-02T00:00:00Z',
    },
    spec: { nodeName: `cn-hangzhou.192.168.0.${10 + node}`, containers: [{ name: 'main' }] },
    status: { phase: 'Running', podIP: `172.20.0.${node + 2}` },
  });
  write(join(cl, 'kubernetes', 'pods.yaml'), {
    apiVersion: 'v1',
    kind: 'List',
    items: [pod('web-1', 'default', 0), pod('web-2', 'default', 1), pod('api-1', 'shop', 2)],
  });
  write(join(cl, 'kubernetes', 'endpointslices.yaml'), {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: 'web-abc12',
          namespace: 'default',
          labels: { 'kubernetes.io/service-name': 'web' },
        },
        addressType: 'IPv4',
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        endpoints: [
          {
            addresses: ['172.20.0.2'],
            conditions: { ready: true },
            nodeName: 'cn-hangzhou.192.168.0.10',
            targetRef: { kind: 'Pod', name: 'web-1' },
          },
        ],
      },
    ],
  });
  write(join(cl, 'kubernetes', 'events.yaml'), {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'web.17a', namespace: 'default' },
        type: 'Warning',
        reason: 'SyncLoadBalancerFailed',
        message: 'quota exceeded',
        count: 3,
        involvedObject: { kind: 'Service', namespace: 'default', name: 'web' },
        lastTimestamp: '2026-11-20T00:00:00Z',
      },
      ...Array.from({ length: Math.max(0, s.events - 1) }, (_, i) => ({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `api.${String(i).padStart(4, '0')}`, namespace: 'shop' },
        type: 'Normal',
        reason: 'EnsuredLoadBalancer',
        message: 'Ensured load balancer',
        count: 1,
        involvedObject: { kind: 'Service', namespace: 'shop', name: 'api' },
        lastTimestamp: '2026-11-20T00:00:00Z',
      })),
    ],
  });
  return root;
}

/** Ids of the accounts {@link addOtherAccounts} writes. */
export const OTHER_ACCOUNT_IDS = {
  /** Second account: RAM roles, a custom audit role, one CLB and one cluster in cn-beijing. */
  dataAccountId: '5555666677778888',
  dataRegionId: 'cn-beijing',
  dataLbId: 'lb-2zesimdata00000001',
  dataClusterId: 'cda7a0000000000000000000000000001',
  dataRoleName: 'app-role',
  dataAuditRoleArn: 'acs:ram::5555666677778888:role/custom-audit',
  /** Third account: only an account.yaml (no RAM data, no region files). */
  bareAccountId: '9999000011112222',
} as const;

/**
 * Add two more accounts to a fleet written by {@link writeSimFleet}: a data account (RAM roles
 * without the audit role, `auditRoleArn` set to a custom role, one CLB and one cluster with two
 * nodes in cn-beijing) and a bare account (account.yaml only, region cn-shanghai).
 */
export function addOtherAccounts(root: string): void {
  const o = OTHER_ACCOUNT_IDS;
  const acc = join(root, 'accounts', o.dataAccountId);
  write(join(acc, 'account.yaml'), {
    accountId: o.dataAccountId,
    name: 'sim-data',
    regions: [o.dataRegionId],
    auditRoleArn: o.dataAuditRoleArn,
  });
  write(join(acc, 'ram', 'roles.json'), [
    {
      RoleName: o.dataRoleName,
      RoleId: '300000000000000999',
      Arn: `acs:ram::${o.dataAccountId}:role/${o.dataRoleName}`,
      MaxSessionDuration: 7200,
    },
  ]);
  // The other RAM files, vServer groups and Kubernetes kinds are required by the format (docs/fleet-format.md):
  // written empty, as the APIs answer for an account / CLB / cluster without any.
  write(join(acc, 'ram', 'policies.json'), []);
  write(join(acc, 'ram', 'role-policies.json'), {});
  const reg = join(acc, 'regions', o.dataRegionId);
  write(join(reg, 'vserver-groups.json'), []);
  writeEmptyKindFiles(reg);
  write(join(reg, 'load-balancers.json'), [
    {
      LoadBalancerId: o.dataLbId,
      LoadBalancerName: 'data-lb',
      RegionId: o.dataRegionId,
      AddressType: 'intranet',
      Address: '10.0.0.5',
      NetworkType: 'vpc',
      VpcId: 'vpc-2zesimdata',
      LoadBalancerStatus: 'active',
      ListenerPortsAndProtocol: { ListenerPortAndProtocol: [{ ListenerPort: 443, ListenerProtocol: 'tcp' }] },
      BackendServers: { BackendServer: [] },
    },
  ]);
  write(join(reg, 'ecs-instances.json'), []);
  const cl = join(reg, 'clusters', o.dataClusterId);
  write(join(cl, 'cluster.json'), {
    cluster_id: o.dataClusterId,
    name: 'data-cluster',
    region_id: o.dataRegionId,
    cluster_type: 'ManagedKubernetes',
    state: 'running',
    current_version: '1.31.1-aliyun.1',
    created: '2022-01-01T00:00:00Z',
  });
  write(join(cl, 'kubernetes', 'nodes.yaml'), {
    apiVersion: 'v1',
    kind: 'List',
    items: [0, 1].map((i) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: `cn-beijing.10.0.0.${i + 10}` },
      spec: { providerID: `cn-beijing.i-2zesimdata${i}` },
    })),
  });
  for (const kind of ['services', 'pods', 'endpointslices']) write(join(cl, 'kubernetes', `${kind}.yaml`), { apiVersion: 'v1', kind: 'List', items: [] });
  write(join(root, 'accounts', o.bareAccountId, 'account.yaml'), {
    accountId: o.bareAccountId,
    name: 'sim-bare',
    regions: ['cn-shanghai'],
  });
}
