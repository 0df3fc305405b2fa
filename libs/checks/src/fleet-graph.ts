/**
 * The fleet graph of a snapshot: the relational rows the API serves, derived once per
 * scan from the FleetSnapshot and its FleetIndex, stored with the scan's findings (libs/store
 * FleetGraphRepository). Pure: no I/O.
 */
import {
  LABEL_SERVICE_LOADBALANCER_ID,
  TAG_CCM_OWNER,
  TAG_REUSED_BY_USER,
  reusedLoadBalancerId,
  serviceTrafficPolicy,
  type FleetGraph,
  type FleetSnapshot,
  type GraphEcsInstance,
  type GraphLoadBalancer,
  type GraphNlb,
  type GraphNlbServerGroup,
  type NlbServerGroup,
  type GraphServerGroup,
  type GraphService,
  type GraphServiceLbMatch,
  type RegionSnapshot,
} from '@app/domain';
import { FleetIndex, type ClbEntry, type ServiceEntry } from './fleet-index';
import { groupsOfNlb, nlbOfService, regionNlbView, serverKey } from './nlb-index';

function byKey<T>(key: (t: T) => string): (a: T, b: T) => number {
  return (a, b) => {
    const x = key(a);
    const y = key(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };
}

/**
 * The CLB a CLB Service uses as the checks see it (`FleetIndex.attributedClbOf`: id annotation, owner
 * tag), kept only when it is in the Service's own account and region (CCM only looks there), with how it was
 * found.
 */
function clbOf(ix: FleetIndex, se: ServiceEntry): { entry: ClbEntry; match: GraphServiceLbMatch } | undefined {
  const entry = ix.attributedClbOf(se);
  if (!entry) return undefined;
  if (entry.account.accountId !== se.cluster.account.accountId || entry.region.regionId !== se.cluster.region.regionId) return undefined;
  const id = entry.clb.loadBalancerId;
  const match: GraphServiceLbMatch =
    reusedLoadBalancerId(se.service) === id ? 'annotation' : se.service.labels[LABEL_SERVICE_LOADBALANCER_ID] === id ? 'label' : 'tag';
  return { entry, match };
}

/** The graph row of an NLB server group (with its servers), as an NLB's and as a region's unused group. */
function nlbServerGroupRow(g: NlbServerGroup): GraphNlbServerGroup {
  return {
    serverGroupId: g.serverGroupId,
    name: g.name,
    type: g.type,
    protocol: g.protocol ?? null,
    status: g.status ?? null,
    ownerTag: g.tags[TAG_CCM_OWNER] ?? null,
    serverCount: g.servers.length,
    servers: g.servers.map((sv) => ({
      serverId: sv.serverId,
      serverIp: sv.serverIp ?? null,
      type: sv.type,
      port: sv.port ?? null,
      weight: sv.weight ?? null,
      status: sv.status ?? null,
      zoneId: sv.zoneId ?? null,
    })),
  };
}

/**
 * The region's NLB server groups no NLB uses: no `RelatedLoadBalancerIds` and named by no NLB's listeners or
 * server-group list (`Nlb.serverGroupIds`), by id. Empty when the region's NLBs were not read.
 */
function unusedNlbServerGroupsOf(ix: FleetIndex, region: RegionSnapshot): GraphNlbServerGroup[] {
  if (!regionNlbView(ix, region)) return [];
  const used = new Set((region.nlbs ?? []).flatMap((n) => n.serverGroupIds));
  return (region.nlbServerGroups ?? [])
    .filter((g) => g.relatedLoadBalancerIds.length === 0 && !used.has(g.serverGroupId))
    .map(nlbServerGroupRow)
    .sort(byKey((g) => g.serverGroupId));
}

/** The NLB server groups and NLBs listing one ECS instance (ids). */
interface NlbAttachment {
  groups: Set<string>;
  nlbs: Set<string>;
}

/**
 * The NLB server groups of a region listing each ECS instance, by instance id: `Ecs` servers by their id, `Ip`
 * servers by a private IP of an ECS instance of the region (CCM puts node IPs in `Ip` groups: research/nlb.md 4).
 * Groups no NLB uses are included (a leaked group still holds the server); a group's NLBs are those whose listeners
 * or `RelatedLoadBalancerIds` name it, among the region's NLBs. Empty when the region's NLBs were not read.
 */
function nlbAttachmentsOf(ix: FleetIndex, region: RegionSnapshot): Map<string, NlbAttachment> {
  const out = new Map<string, NlbAttachment>();
  const view = regionNlbView(ix, region);
  if (!view) return out;
  const ecsByIp = new Map<string, string>();
  for (const e of region.ecsInstances ?? []) for (const ip of e.privateIps) ecsByIp.set(ip, e.instanceId);
  const nlbsOfGroup = new Map<string, Set<string>>();
  const addNlb = (groupId: string, nlbId: string) => {
    if (!view.nlbById.has(nlbId)) return;
    const set = nlbsOfGroup.get(groupId);
    if (set) set.add(nlbId);
    else nlbsOfGroup.set(groupId, new Set([nlbId]));
  };
  for (const n of region.nlbs ?? []) for (const id of n.serverGroupIds) addNlb(id, n.loadBalancerId);
  for (const g of region.nlbServerGroups ?? []) for (const id of g.relatedLoadBalancerIds) addNlb(g.serverGroupId, id);
  for (const g of region.nlbServerGroups ?? [])
    for (const sv of g.servers) {
      const ecsId = sv.type === 'Ecs' ? sv.serverId : sv.type === 'Ip' ? ecsByIp.get(sv.serverIp ?? sv.serverId) : undefined;
      if (ecsId === undefined) continue;
      let a = out.get(ecsId);
      if (!a) out.set(ecsId, (a = { groups: new Set(), nlbs: new Set() }));
      a.groups.add(g.serverGroupId);
      for (const n of nlbsOfGroup.get(g.serverGroupId) ?? []) a.nlbs.add(n);
    }
  return out;
}

/**
 * Build the fleet graph of a snapshot.
 * @param snapshot the scan's snapshot
 * @param index its index when the caller already built one (the audit's), else built here
 * @returns every list sorted by its key (byte order, as the store's `COLLATE "C"` keys)
 */
export function buildFleetGraph(snapshot: FleetSnapshot, index?: FleetIndex): FleetGraph {
  const ix = index ?? FleetIndex.build(snapshot);
  const graph: FleetGraph = { regions: [], clusters: [], services: [], loadBalancers: [], serverGroups: [], ecsInstances: [], nlbs: [] };
  const servicesByLb = new Map<string, GraphService[]>();
  const servicesByNlb = new Map<string, GraphService[]>();
  /** NLBs a Service names by the id annotation (CCM reuses them: owner `reused` unless CCM's tag is on). */
  const reusedNlbs = new Set<string>();
  for (const { account, region } of ix.regions) {
    graph.regions.push({
      accountId: account.accountId,
      regionId: region.regionId,
      accountName: account.name,
      clusterCount: region.clusters.length,
      loadBalancerCount: region.loadBalancers ? region.loadBalancers.length : null,
      ecsInstanceCount: region.ecsInstances ? region.ecsInstances.length : null,
      nlbServerGroupCount: regionNlbView(ix, region) ? (region.nlbServerGroups ?? []).length : null,
      unusedNlbServerGroups: unusedNlbServerGroupsOf(ix, region),
    });
  }
  for (const { cluster, account, region } of ix.clusters) {
    const k8s = cluster.kubernetes;
    graph.clusters.push({
      clusterId: cluster.clusterId,
      accountId: account.accountId,
      regionId: region.regionId,
      name: cluster.name,
      clusterType: cluster.clusterType,
      clusterSpec: cluster.clusterSpec ?? null,
      state: cluster.state ?? null,
      currentVersion: cluster.currentVersion ?? null,
      ccmVersion: cluster.ccmVersion ?? null,
      networkPlugin: cluster.networkPlugin,
      vpcId: cluster.vpcId ?? null,
      apiServerLoadBalancerId: cluster.apiServerLoadBalancerId ?? null,
      nodeCount: k8s ? k8s.nodes.length : null,
      serviceCount: k8s ? k8s.services.filter((s) => s.type === 'LoadBalancer').length : null,
      // The team the scan resolved (libs/domain owners.ts assignTeams, run before the graph is built).
      team: cluster.team ?? null,
    });
  }
  for (const se of ix.services) {
    const svc = se.service;
    if (svc.type !== 'LoadBalancer') continue;
    const nlb = se.needNlb;
    const clb = !nlb && se.needClb;
    const found = clb ? clbOf(ix, se) : undefined;
    // The NLB as CCM's FindNLB finds it at the next sync (libs/domain nlb-service.model.ts findServiceNlb),
    // among the NLBs of the Service's account and region; none when that region's NLBs were not read.
    const nlbFound = nlb ? nlbOfService(ix, se) : undefined;
    const nlbMatch = nlbFound?.nlb && nlbFound.by !== 'none' ? nlbFound.by : null;
    const row: GraphService = {
      clusterId: se.cluster.cluster.clusterId,
      namespace: svc.namespace,
      name: svc.name,
      accountId: se.cluster.account.accountId,
      regionId: se.cluster.region.regionId,
      uid: svc.uid,
      loadBalancerClass: svc.loadBalancerClass ?? null,
      mode: clb ? serviceTrafficPolicy(svc, se.cluster.cluster).policy : null,
      externalTrafficPolicy: svc.externalTrafficPolicy ?? null,
      ports: svc.ports.map((p) => ({
        name: p.name ?? null,
        protocol: p.protocol,
        port: p.port,
        nodePort: p.nodePort ?? null,
        targetPort: p.targetPort === undefined ? null : String(p.targetPort),
      })),
      ingress: svc.ingress.map((i) => i.ip ?? i.hostname ?? '').filter((s) => s !== ''),
      loadBalancerId: found ? found.entry.clb.loadBalancerId : null,
      loadBalancerMatch: found ? found.match : null,
      loadBalancerKind: nlb ? 'nlb' : clb ? 'clb' : null,
      nlbId: nlbMatch !== null ? nlbFound!.nlb!.loadBalancerId : null,
      nlbMatch,
    };
    graph.services.push(row);
    if (row.nlbId !== null) {
      const list = servicesByNlb.get(row.nlbId);
      if (list) list.push(row);
      else servicesByNlb.set(row.nlbId, [row]);
      if (nlbMatch === 'id') reusedNlbs.add(row.nlbId);
    }
    if (row.loadBalancerId !== null) {
      const list = servicesByLb.get(row.loadBalancerId);
      if (list) list.push(row);
      else servicesByLb.set(row.loadBalancerId, [row]);
    }
  }
  for (const { account, region } of ix.regions) {
    const stats = ix.clbBackendStats(region);
    // ECS id -> its CLBs (distinct, in CLB order) and server groups: one pass over the region's entries.
    const attached = new Map<string, { lbs: string[]; groups: number; lastGroup: number }>();
    let groupNo = 0;
    for (const clb of region.loadBalancers ?? []) {
      const id = clb.loadBalancerId;
      const groups: GraphServerGroup[] = [
        { loadBalancerId: id, vServerGroupId: '', isDefault: true, name: '', accountId: account.accountId, regionId: region.regionId, backends: [] },
        ...clb.vServerGroups.map((g) => ({
          loadBalancerId: id,
          vServerGroupId: g.vServerGroupId,
          isDefault: false,
          name: g.name,
          accountId: account.accountId,
          regionId: region.regionId,
          backends: [],
        })),
      ];
      for (let gi = 0; gi < groups.length; gi++) {
        const servers = gi === 0 ? clb.defaultBackendServers : clb.vServerGroups[gi - 1]!.backendServers;
        groupNo++;
        const out = groups[gi]!.backends;
        for (const s of servers) {
          out.push({ serverId: s.serverId, serverIp: s.serverIp ?? null, port: s.port ?? null, weight: s.weight, type: s.type });
          if (s.type !== 'ecs') continue;
          let a = attached.get(s.serverId);
          if (!a) attached.set(s.serverId, (a = { lbs: [], groups: 0, lastGroup: 0 }));
          if (a.lastGroup !== groupNo) {
            a.lastGroup = groupNo;
            a.groups++;
          }
          if (a.lbs[a.lbs.length - 1] !== id) a.lbs.push(id);
        }
      }
      // The default server group is stored only when it has backends (CCM's Services use vServer groups).
      graph.serverGroups.push(...(groups[0]!.backends.length > 0 ? groups : groups.slice(1)));
      const st = stats.get(id);
      const users = servicesByLb.get(id) ?? [];
      const tags = clb.tags;
      const owner: GraphLoadBalancer['owner'] =
        tags[TAG_CCM_OWNER] !== undefined ? 'ccm' : ix.reusersByLbId.has(id) || tags[TAG_REUSED_BY_USER] !== undefined ? 'reused' : 'console';
      graph.loadBalancers.push({
        loadBalancerId: id,
        accountId: account.accountId,
        regionId: region.regionId,
        name: clb.name,
        addressType: clb.addressType,
        address: clb.address ?? null,
        vpcId: clb.vpcId ?? null,
        spec: clb.spec ?? null,
        status: clb.status ?? null,
        createTime: clb.createTime ?? null,
        owner,
        apiServerClusterId: ix.apiServerClusters.get(id)?.[0]?.cluster.clusterId ?? null,
        listeners: clb.listeners.map((l) => ({
          port: l.port,
          protocol: l.protocol,
          vServerGroupId: l.vServerGroupId ?? null,
          forwardPort: l.forwardPort ?? null,
          description: l.description ?? null,
        })),
        listenerCount: clb.listeners.length,
        vServerGroupCount: clb.vServerGroups.length,
        backendEntries: st?.entries ?? 0,
        distinctBackends: st?.distinctServers ?? 0,
        serviceCount: users.length,
        clusterIds: [...new Set(users.map((u) => u.clusterId))].sort(),
      });
    }
    const onNlbs = nlbAttachmentsOf(ix, region);
    for (const ecs of region.ecsInstances ?? []) {
      const a = attached.get(ecs.instanceId);
      const onNlb = onNlbs.get(ecs.instanceId);
      const node = ix.nodeOfEcs(ecs.instanceId);
      const row: GraphEcsInstance = {
        instanceId: ecs.instanceId,
        accountId: account.accountId,
        regionId: region.regionId,
        name: ecs.name ?? null,
        zoneId: ecs.zoneId ?? null,
        status: ecs.status ?? null,
        instanceType: ecs.instanceType ?? null,
        vpcId: ecs.vpcId ?? null,
        privateIps: ecs.privateIps,
        clusterId: node ? node.cluster.cluster.clusterId : null,
        nodeName: node ? node.node.name : null,
        loadBalancerIds: a ? [...a.lbs].sort() : [],
        serverGroupCount: a ? a.groups : 0,
        nlbServerGroupIds: onNlb ? [...onNlb.groups].sort() : [],
        nlbIds: onNlb ? [...onNlb.nlbs].sort() : [],
      };
      graph.ecsInstances.push(row);
    }
    const view = regionNlbView(ix, region);
    for (const n of view ? (region.nlbs ?? []) : []) {
      const groups = groupsOfNlb(view!, n);
      const distinct = new Set<string>();
      let entries = 0;
      for (const g of groups) {
        entries += g.servers.length;
        for (const sv of g.servers) distinct.add(serverKey(sv));
      }
      const users = servicesByNlb.get(n.loadBalancerId) ?? [];
      const owner: GraphNlb['owner'] =
        n.tags[TAG_CCM_OWNER] !== undefined ? 'ccm' : reusedNlbs.has(n.loadBalancerId) || n.tags[TAG_REUSED_BY_USER] !== undefined ? 'reused' : 'console';
      graph.nlbs.push({
        nlbId: n.loadBalancerId,
        accountId: account.accountId,
        regionId: region.regionId,
        name: n.name ?? null,
        addressType: n.addressType ?? null,
        addressIpVersion: n.addressIpVersion ?? null,
        vpcId: n.vpcId ?? null,
        dnsName: n.dnsName ?? null,
        zoneIds: n.zoneMappings.map((z) => z.zoneId),
        status: n.status ?? null,
        createTime: n.createTime ?? null,
        owner,
        listeners: n.listeners.map((l) => ({
          listenerId: l.listenerId,
          protocol: l.protocol,
          port: l.port,
          startPort: l.startPort ?? null,
          endPort: l.endPort ?? null,
          serverGroupId: l.serverGroupId ?? null,
          description: l.description ?? null,
          status: l.status ?? null,
        })),
        listenerCount: n.listeners.length,
        serverGroups: groups.map(nlbServerGroupRow),
        serverGroupCount: groups.length,
        serverEntries: entries,
        distinctServers: distinct.size,
        serviceCount: users.length,
        clusterIds: [...new Set(users.map((u) => u.clusterId))].sort(),
      });
    }
  }
  graph.regions.sort(byKey((r) => `${r.accountId}\u0000${r.regionId}`));
  graph.clusters.sort(byKey((c) => c.clusterId));
  graph.services.sort(byKey((s) => `${s.clusterId}\u0000${s.namespace}\u0000${s.name}`));
  graph.loadBalancers.sort(byKey((l) => l.loadBalancerId));
  graph.serverGroups.sort(byKey((g) => `${g.loadBalancerId}\u0000${g.vServerGroupId}`));
  graph.ecsInstances.sort(byKey((e) => e.instanceId));
  graph.nlbs.sort(byKey((n) => n.nlbId));
  return graph;
}
