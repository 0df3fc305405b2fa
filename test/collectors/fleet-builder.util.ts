/**
 * Writes small synthetic fleet directories (`../shared/fleet-format.md`) for the live collector
 * tests: deterministic ids, configurable sizes, so paging edge cases (> 100 ECS instances, > 100
 * CLBs, > 500 nodes) and absent files can be exercised against the simulator.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KIND_DATA, NLB_DATA, type CoverageDataset } from '@app/domain';
import { nlbRegionOf, type NlbRegionSpec } from '../sim/nlb-fleet.util';

/** Sizes and optional files of one region. */
export interface RegionSpec {
  regionId: string;
  ecsInstances: number;
  loadBalancers: number;
  /** vServer groups per CLB. */
  groupsPerLb: number;
  quotas: number;
  /** vSwitches (default 3). */
  vSwitches?: number;
  clusters: ClusterSpec[];
  /** Leave these files out (to exercise coverage gaps: `failed`, or `absent` for quotas). */
  omit?: ('load-balancers' | 'ecs-instances' | 'quotas' | 'vswitches' | CoverageDataset)[];
  /** NLBs of the region, as CCM builds them (`../sim/nlb-fleet.util.ts`); default none (four empty `nlb/` files). */
  nlb?: Omit<NlbRegionSpec, 'idPrefix' | 'regionId'>;
  /** Quota Center `ProductCode=nlb` entries appended to `quotas.json` after the SLB ones (default 0). */
  nlbQuotas?: number;
}

/** Sizes and optional files of one cluster. */
export interface ClusterSpec {
  nodes: number;
  services: number;
  podsPerNode: number;
  events: number;
  /** `control_plane_config.node_port_range`. */
  nodePortRange?: string;
  omit?: ('addons' | 'resources' | 'kubernetes')[];
  /** Write `node-sysctls.json` (Cloud Assistant data) for the nodes on Running instances (default true). */
  sysctls?: boolean;
}

/** One account. */
export interface AccountSpec {
  accountId: string;
  name: string;
  roles: number;
  regions: RegionSpec[];
  /** Leave out the `ram/` folder. */
  omitRam?: boolean;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const write = (file: string, data: unknown) => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, typeof data === 'string' ? data : `${JSON.stringify(data, null, 2)}\n`);
};

/** Cluster id number `n` of account index `a`: `c` + 32 hex characters. */
export const clusterIdOf = (a: number, r: number, n: number) => `c${hex(a, 8)}${hex(r, 8)}${hex(n, 16)}`;

function writeCluster(
  dir: string,
  accountIdx: number,
  regionIdx: number,
  n: number,
  spec: ClusterSpec,
  regionId: string,
  ecsIds: string[],
): string {
  const clusterId = clusterIdOf(accountIdx, regionIdx, n);
  const cdir = join(dir, 'clusters', clusterId);
  write(join(cdir, 'cluster.json'), {
    cluster_id: clusterId,
    name: `cluster-${accountIdx}-${regionIdx}-${n}`,
    region_id: regionId,
    cluster_type: n % 2 === 0 ? 'ManagedKubernetes' : 'Kubernetes',
    cluster_spec: n % 2 === 0 ? 'ack.pro.small' : undefined,
    state: 'running',
    current_version: '1.30.1-aliyun.1',
    created: '2024-03-01T08:00:00+08:00',
    vpc_id: `vpc-${hex(accountIdx, 4)}${hex(regionIdx, 4)}`,
    external_loadbalancer_id: `lb-api${hex(accountIdx, 4)}${hex(regionIdx, 4)}${hex(n, 4)}`,
    size: spec.nodes,
    ...(spec.nodePortRange ? { control_plane_config: { node_port_range: spec.nodePortRange } } : {}),
  });
  const omit = new Set(spec.omit ?? []);
  if (!omit.has('addons'))
    write(join(cdir, 'addons.json'), {
      addons: [
        { name: 'cloud-controller-manager', version: n % 3 === 0 ? 'v2.9.1' : 'v2.1.0', state: 'active' },
        { name: n % 2 === 0 ? 'terway-eniip' : 'flannel', version: 'v1.8.0', state: 'active' },
        { name: 'coredns', version: 'v1.9.3.10-7dfca203-aliyun', state: 'active' },
      ],
    });
  if (!omit.has('resources'))
    write(join(cdir, 'resources.json'), [
      {
        resource_type: 'ALIYUN::RAM::Role',
        instance_id: `KubernetesMasterRole-${clusterId.slice(1, 9)}`,
        cluster_id: clusterId,
        state: 'CREATE_COMPLETE',
      },
      {
        resource_type: 'ALIYUN::SLB::LoadBalancer',
        instance_id: `lb-api${hex(accountIdx, 4)}${hex(regionIdx, 4)}${hex(n, 4)}`,
        cluster_id: clusterId,
        state: 'CREATE_COMPLETE',
      },
    ]);
  // ecsIds: the instances of this cluster's nodes (disjoint between clusters), missing ones padded below.
  const nodeEcs = ecsIds;
  if (spec.sysctls !== false) {
    const sysctls: Record<string, Record<string, string>> = {};
    // Only Running instances answer Cloud Assistant (every 17th instance is Stopped, see writeRegion).
    nodeEcs.forEach((id, i) => {
      if (parseInt(id.slice(-12), 16) % 17 !== 0)
        sysctls[id] = { 'net.ipv4.ip_local_port_range': i % 5 === 0 ? '1024 65000' : '32768 60999' };
    });
    write(join(cdir, 'node-sysctls.json'), sysctls);
  }
  if (!omit.has('kubernetes')) {
    const items: unknown[] = [];
    for (let i = 0; i < spec.nodes; i++) {
      const ecsId = nodeEcs[i] ?? `i-missing${hex(i, 8)}`;
      items.push({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name: `${regionId}.10.${regionIdx}.${Math.floor(i / 250)}.${i % 250}`,
          uid: `node-uid-${clusterId}-${i}`,
          labels: {
            'kubernetes.io/os': 'linux',
            ...(i % 7 === 0 ? { 'node.kubernetes.io/exclude-from-external-load-balancers': 'true' } : {}),
          },
          creationTimestamp: '2024-03-01T00:10:00Z',
        },
        spec: {
          providerID: `${regionId}.${ecsId}`,
          ...(i % 11 === 0
            ? {
                unschedulable: true,
                taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }],
              }
            : {}),
        },
        status: {
          conditions: [{ type: 'Ready', status: i % 13 === 0 ? 'False' : 'True' }],
          addresses: [{ type: 'InternalIP', address: `10.${regionIdx}.${Math.floor(i / 250)}.${i % 250}` }],
        },
      });
    }
    for (let s = 0; s < spec.services; s++) {
      const lbId = `lb-${hex(accountIdx, 4)}${hex(regionIdx, 4)}${hex(s, 8)}`;
      items.push({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: {
          name: `svc-${s}`,
          namespace: s % 2 === 0 ? 'default' : 'shop',
          uid: `svc-uid-${clusterId}-${s}`,
          labels: { app: `app-${s}` },
          annotations:
            s % 3 === 0 ? { 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id': lbId } : {},
          finalizers: ['service.k8s.alibaba/resources'],
          creationTimestamp: '2024-04-01T12:00:00Z',
        },
        spec: {
          type: s % 4 === 3 ? 'ClusterIP' : 'LoadBalancer',
          externalTrafficPolicy: s % 2 === 0 ? 'Cluster' : 'Local',
          selector: { app: `app-${s}` },
          ports: [
            { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30000 + s },
            { name: 'https', protocol: 'TCP', port: 443, targetPort: 'https', nodePort: 31000 + s },
          ],
        },
        status: { loadBalancer: { ingress: s % 4 === 3 ? [] : [{ ip: `47.1.${regionIdx}.${s % 250}` }] } },
      });
      items.push({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `svc-${s}-abcde`,
          namespace: s % 2 === 0 ? 'default' : 'shop',
          labels: { 'kubernetes.io/service-name': `svc-${s}` },
        },
        addressType: 'IPv4',
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        endpoints: [
          {
            addresses: [`172.16.${s % 250}.1`],
            conditions: { ready: true },
            nodeName: `${regionId}.10.${regionIdx}.0.1`,
            targetRef: { kind: 'Pod', name: `pod-${s}-a` },
          },
          {
            addresses: [`172.16.${s % 250}.2`],
            conditions: { ready: false, terminating: true },
            nodeName: `${regionId}.10.${regionIdx}.0.2`,
          },
        ],
      });
    }
    for (let i = 0; i < spec.nodes * spec.podsPerNode; i++) {
      items.push({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `pod-${i}`,
          namespace: i % 2 === 0 ? 'default' : 'shop',
          labels: { app: `app-${i % Math.max(1, spec.services)}` },
        },
        spec: {
          nodeName: `${regionId}.10.${regionIdx}.${Math.floor((i % spec.nodes) / 250)}.${(i % spec.nodes) % 250}`,
          containers: [{ name: 'app', args: ['--port=8080'] }],
        },
        status: { phase: 'Running', podIP: `172.16.${Math.floor(i / 250) % 250}.${i % 250}` },
      });
    }
    items.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'kube-apiserver-master-1',
        namespace: 'kube-system',
        labels: { component: 'kube-apiserver' },
      },
      spec: {
        nodeName: `${regionId}.10.${regionIdx}.0.0`,
        containers: [
          {
            name: 'kube-apiserver',
            command: ['kube-apiserver', '--service-node-port-range=30000-32767', '--secure-port=6443'],
          },
        ],
      },
      status: { phase: 'Running', podIP: `10.${regionIdx}.0.0` },
    });
    for (let e = 0; e < spec.events; e++) {
      items.push({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: {
          name: `svc-${e % Math.max(1, spec.services)}.17a${hex(e, 6)}`,
          namespace: 'default',
          creationTimestamp: '2024-05-01T10:00:00Z',
        },
        type: e % 2 === 0 ? 'Warning' : 'Normal',
        reason: e % 2 === 0 ? 'SyncLoadBalancerFailed' : 'EnsuredLoadBalancer',
        message: e % 2 === 0 ? 'Error syncing load balancer: quota exceeded' : 'Ensured load balancer',
        count: e + 1,
        involvedObject: {
          kind: 'Service',
          namespace: 'default',
          name: `svc-${e % Math.max(1, spec.services)}`,
          uid: `svc-uid-${clusterId}-${e}`,
        },
        firstTimestamp: '2024-05-01T10:00:00Z',
        lastTimestamp: `2024-05-0${1 + (e % 9)}T11:00:00Z`,
      });
    }
    // One v1 List per kind, each in its own file (docs/fleet-format.md: a kind's completeness rests on its file).
    const fileOfKind = { Node: 'nodes', Service: 'services', Pod: 'pods', EndpointSlice: 'endpointslices', Event: 'events' };
    for (const [kind, file] of Object.entries(fileOfKind))
      write(join(cdir, 'kubernetes', `${file}.yaml`), { apiVersion: 'v1', kind: 'List', items: items.filter((i) => (i as { kind: string }).kind === kind) });
  }
  return clusterId;
}

function writeRegion(dir: string, accountIdx: number, regionIdx: number, spec: RegionSpec): void {
  const rdir = join(dir, 'regions', spec.regionId);
  mkdirSync(rdir, { recursive: true });
  const omit = new Set(spec.omit ?? []);
  const ecsIds = Array.from(
    { length: spec.ecsInstances },
    (_, i) => `i-${hex(accountIdx, 4)}${hex(regionIdx, 4)}${hex(i, 12)}`,
  );
  // Nodes take the region's instances in cluster order: cluster n owns ecsIds[offsets[n] .. + nodes).
  const offsets: number[] = [];
  const owner: (number | undefined)[] = [];
  spec.clusters.reduce((at, c, n) => {
    offsets.push(at);
    for (let i = at; i < Math.min(at + c.nodes, ecsIds.length); i++) owner[i] = n;
    return at + c.nodes;
  }, 0);
  if (!omit.has('ecs-instances'))
    write(
      join(rdir, 'ecs-instances.json'),
      ecsIds.map((id, i) => ({
        InstanceId: id,
        InstanceName: `node-${i}`,
        HostName: `iz${id.slice(2)}`,
        RegionId: spec.regionId,
        ZoneId: `${spec.regionId}-${i % 2 === 0 ? 'h' : 'i'}`,
        Status: i % 17 === 0 ? 'Stopped' : 'Running',
        InstanceType: 'ecs.g7.xlarge',
        VpcAttributes: {
          VpcId: `vpc-${hex(accountIdx, 4)}${hex(regionIdx, 4)}`,
          VSwitchId: `vsw-${hex(i % 3, 8)}`,
          PrivateIpAddress: { IpAddress: [`10.${regionIdx}.${Math.floor(i / 250)}.${i % 250}`] },
        },
        Tags: {
          Tag:
            owner[i] === undefined
              ? []
              : [{ TagKey: 'ack.aliyun.com', TagValue: clusterIdOf(accountIdx, regionIdx, owner[i]) }],
        },
      })),
    );
  if (!omit.has('load-balancers')) {
    const lbs: unknown[] = [];
    const groups: unknown[] = [];
    for (let l = 0; l < spec.loadBalancers; l++) {
      const lbId = `lb-${hex(accountIdx, 4)}${hex(regionIdx, 4)}${hex(l, 8)}`;
      const lbGroups = Array.from(
        { length: spec.groupsPerLb },
        (_, g) => `rsp-${hex(accountIdx, 4)}${hex(regionIdx, 4)}${hex(l, 8)}${hex(g, 4)}`,
      );
      lbs.push({
        LoadBalancerId: lbId,
        LoadBalancerName: `k8s-lb-${l}`,
        RegionId: spec.regionId,
        AddressType: l % 2 === 0 ? 'internet' : 'intranet',
        Address: `47.2.${regionIdx}.${l % 250}`,
        VpcId: `vpc-${hex(accountIdx, 4)}${hex(regionIdx, 4)}`,
        VSwitchId: l % 2 === 0 ? '' : 'vsw-00000001',
        NetworkType: 'vpc',
        LoadBalancerSpec: l % 5 === 0 ? '' : 'slb.s1.small',
        InstanceChargeType: l % 5 === 0 ? 'PayByCLCU' : 'PayBySpec',
        LoadBalancerStatus: 'active',
        CreateTime: '2024-04-01T12:00:00Z',
        Tags: {
          Tag: [
            { TagKey: 'kubernetes.do.not.delete', TagValue: `svc-${l}` },
            { TagKey: 'ack.aliyun.com', TagValue: clusterIdOf(accountIdx, regionIdx, 0) },
          ],
        },
        ListenerPorts: { ListenerPort: [80, 443] },
        ListenerPortsAndProtocal: {
          ListenerPortAndProtocal: [{ ListenerPort: 80, ListenerProtocal: 'tcp' }],
        },
        ListenerPortsAndProtocol: {
          ListenerPortAndProtocol: [
            {
              ListenerPort: 80,
              ListenerProtocol: 'tcp',
              Description: `k8s/80/svc-${l}/default/${clusterIdOf(accountIdx, regionIdx, 0)}`,
              VServerGroupId: lbGroups[0],
            },
            { ListenerPort: 443, ListenerProtocol: 'tcp', Description: '' },
          ],
        },
        BackendServers: {
          BackendServer:
            l % 3 === 0
              ? [
                  {
                    ServerId: ecsIds[l % Math.max(1, ecsIds.length)] ?? 'i-none',
                    ServerIp: '10.0.0.1',
                    Type: 'ecs',
                    Weight: 100,
                  },
                ]
              : [],
        },
      });
      lbGroups.forEach((g, gi) =>
        groups.push({
          VServerGroupId: g,
          VServerGroupName: `k8s/${80 + gi}/svc-${l}/default/${clusterIdOf(accountIdx, regionIdx, 0)}`,
          LoadBalancerId: lbId,
          BackendServers: {
            BackendServer: Array.from({ length: 3 }, (_, b) => ({
              ServerId: ecsIds[(l + b) % Math.max(1, ecsIds.length)] ?? `eni-${hex(b, 8)}`,
              ServerIp: `10.${regionIdx}.0.${b}`,
              Port: 30000 + gi,
              Weight: b === 2 ? 0 : 100,
              Type: b === 1 ? 'eni' : 'ecs',
              Description: `k8s/${80 + gi}/svc-${l}/default/${clusterIdOf(accountIdx, regionIdx, 0)}`,
            })),
          },
        }),
      );
    }
    write(join(rdir, 'load-balancers.json'), lbs);
    write(join(rdir, 'vserver-groups.json'), groups);
  }
  // The four nlb/ files (required, docs/fleet-format.md): a region without NLBs answers four empty lists.
  if (!omit.has('nlb')) {
    const nlb = spec.nlb
      ? nlbRegionOf({
          clusterId: clusterIdOf(accountIdx, regionIdx, 0),
          ...spec.nlb,
          regionId: spec.regionId,
          idPrefix: `${hex(accountIdx, 2)}${hex(regionIdx, 2)}`,
        })
      : { loadBalancers: [], listeners: [], serverGroups: [], servers: [] };
    write(join(rdir, 'nlb', 'load-balancers.json'), nlb.loadBalancers);
    write(join(rdir, 'nlb', 'listeners.json'), nlb.listeners);
    write(join(rdir, 'nlb', 'server-groups.json'), nlb.serverGroups);
    write(join(rdir, 'nlb', 'servers.json'), nlb.servers);
  }
  // Every other load-balancer kind's files, empty (a region without such load balancers answers empty lists).
  for (const data of KIND_DATA)
    if (data !== NLB_DATA && !omit.has(data.dataset)) for (const f of data.files) write(join(rdir, data.dataset, f.file), []);
  if (!omit.has('quotas'))
    write(
      join(rdir, 'quotas.json'),
      Array.from({ length: spec.quotas }, (_, q) => ({
        ProductCode: 'slb',
        QuotaActionCode:
          [
            'slb_quota_instances_num',
            'slb_quota_backendservers_num',
            'slb_quota_listeners_num',
            'slb_quota_backendserver_attached_num',
          ][q % 4] + (q >= 4 ? `_${q}` : ''),
        QuotaName: `quota ${q}`,
        TotalQuota: 50 + q,
        TotalUsage: q,
        Dimensions: { regionId: spec.regionId },
      })).concat(
        Array.from({ length: spec.nlbQuotas ?? 0 }, (_, q) => ({
          ProductCode: 'nlb',
          QuotaActionCode:
            ['nlb_quota_loadbalancers_num', 'nlb_quota_servergroups_num', 'nlb_quota_server_added_num'][q % 3] +
            (q >= 3 ? `_${q}` : ''),
          QuotaName: `nlb quota ${q}`,
          TotalQuota: 60 + q,
          TotalUsage: q,
          Dimensions: { regionId: spec.regionId },
        })),
      ),
    );
  if (!omit.has('vswitches'))
    write(
      join(rdir, 'vswitches.json'),
      Array.from({ length: spec.vSwitches ?? 3 }, (_, v) => ({
        VSwitchId: `vsw-${hex(v, 8)}`,
        VpcId: `vpc-${hex(accountIdx, 4)}${hex(regionIdx, 4)}`,
        ZoneId: `${spec.regionId}-h`,
        CidrBlock: `10.${regionIdx}.${v}.0/24`,
        AvailableIpAddressCount: 200 - v,
      })),
    );
  spec.clusters.forEach((c, n) =>
    writeCluster(
      rdir,
      accountIdx,
      regionIdx,
      n,
      c,
      spec.regionId,
      ecsIds.slice(offsets[n], offsets[n] + c.nodes),
    ),
  );
}

function writeAccount(root: string, idx: number, spec: AccountSpec): void {
  const dir = join(root, 'accounts', spec.accountId);
  write(
    join(dir, 'account.yaml'),
    `accountId: "${spec.accountId}"\nname: ${spec.name}\nregions: [${spec.regions.map((r) => r.regionId).join(', ')}]\n`,
  );
  if (!spec.omitRam) {
    const roles = Array.from({ length: spec.roles }, (_, r) => ({
      RoleName: r === 0 ? 'AliyunCSManagedKubernetesRole' : `KubernetesMasterRole-${hex(r, 8)}`,
      RoleId: `3${hex(idx, 4)}${hex(r, 12)}`,
      Arn: `acs:ram::${spec.accountId}:role/${r === 0 ? 'aliyuncsmanagedkubernetesrole' : `kubernetesmasterrole-${hex(r, 8)}`}`,
      Description: `role ${r}`,
    }));
    const rolePolicies: Record<string, unknown[]> = {};
    const policies: unknown[] = [];
    roles.forEach((role, r) => {
      const custom = `k8sMasterRolePolicy-Ccm-${hex(r, 8)}`;
      rolePolicies[role.RoleName] =
        r % 4 === 3
          ? []
          : [
              {
                PolicyName: r === 0 ? 'AliyunCSManagedKubernetesRolePolicy' : 'AliyunECSReadOnlyAccess',
                PolicyType: 'System',
                DefaultVersion: 'v1',
              },
              ...(r === 0 ? [] : [{ PolicyName: custom, PolicyType: 'Custom', DefaultVersion: 'v2' }]),
            ];
      if (r !== 0 && r % 4 !== 3)
        policies.push({
          PolicyName: custom,
          PolicyType: 'Custom',
          DefaultVersion: 'v2',
          PolicyDocument: JSON.stringify({
            Version: '1',
            Statement: [
              {
                Effect: 'Allow',
                Action: r % 2 === 0 ? ['slb:*', 'ecs:Describe*'] : 'slb:Describe*',
                Resource: '*',
              },
              ...(r % 5 === 0
                ? [{ Effect: 'Deny', NotAction: 'slb:Delete*', Resource: ['acs:slb:*:*:*'] }]
                : []),
            ],
          }),
        });
    });
    write(join(dir, 'ram', 'roles.json'), roles);
    write(join(dir, 'ram', 'role-policies.json'), rolePolicies);
    write(join(dir, 'ram', 'policies.json'), policies);
  }
  spec.regions.forEach((r, i) => writeRegion(dir, idx, i, r));
}

/**
 * Write a fleet directory into a new temp dir.
 * @returns the fleet root
 */
export function writeFleet(name: string, accounts: AccountSpec[]): string {
  const root = mkdtempSync(join(tmpdir(), `fleet-${name}-`));
  write(
    join(root, 'fleet.yaml'),
    `name: ${name}\ndescription: synthetic fleet for the live collector tests\n`,
  );
  accounts.forEach((a, i) => writeAccount(root, i, a));
  return root;
}
