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
  type BuiltServerGroup,
  type GraphEcsInstance,
  type GraphLoadBalancer,
  type GraphNlb,
  type BuiltNlbServerGroup,
  type NlbServer,
  type NlbServerGroup,
  type GraphService,
  type GraphServiceLbMatch,
  type RegionSnapshot,
} from '@app/domain';
import { FleetIndex, type ClbEntry, type ServiceEntry } from './fleet-index';
import { idPathRoot, sortedIds, stepIdPath, type IdPath } from './id-path';
import { groupsOfNlb, nlbOfService, regionNlbView, serverKey } from './nlb-index';

/**
 * Sort `list` in place by `key` (byte order of UTF-16 code units, stable: equal keys keep their order), each key
 * computed once (a comparator building its keys builds two strings per comparison); a list already in key order is
 * left as it is after one pass.
 */
function sortByKey<T>(list: T[], key: (t: T) => string): void {
  const keys = list.map(key);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! <= keys[i]!;
  if (sorted) return;
  const order = keys.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
  const rows = order.map((i) => list[i]!);
  for (let i = 0; i < rows.length; i++) list[i] = rows[i]!;
}

/**
 * A memo of the records resolved at each position of the last list starting with the same key (the idea of
 * `ListRowCache`: a region's backend lists repeat each other, so most entries are answered by one string comparison
 * instead of a lookup in a region-wide Map). A position holds a key and its record, or `null` (an entry the caller
 * does not resolve); an answer is only given for the key stored there, and the caller stores there only what its Map
 * holds for that key (set once), so it is the Map's answer.
 */
class RecordRows<V> {
  private readonly rows = new Map<string, { keys: (string | null)[]; values: (V | undefined)[] }>();

  /** The row of lists starting with `firstKey`. */
  row(firstKey: string): { keys: (string | null)[]; values: (V | undefined)[] } {
    let r = this.rows.get(firstKey);
    if (r === undefined) {
      r = { keys: [], values: [] };
      this.rows.set(firstKey, r);
    }
    return r;
  }
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

/**
 * The graph row of an NLB server group, as an NLB's and as a region's unused group: its servers are the snapshot's own
 * list (a copy per server lived, promoted, until the store had written the graph; the store writes each server's
 * declared fields, absent ones as null: libs/store `storedNlbServerGroup`).
 */
function nlbServerGroupRow(g: NlbServerGroup): BuiltNlbServerGroup {
  return {
    serverGroupId: g.serverGroupId,
    name: g.name,
    type: g.type,
    protocol: g.protocol ?? null,
    status: g.status ?? null,
    ownerTag: g.tags[TAG_CCM_OWNER] ?? null,
    serverCount: g.servers.length,
    servers: g.servers,
  };
}

/**
 * The region's NLB server groups no NLB uses: no `RelatedLoadBalancerIds` and named by no NLB's listeners or
 * server-group list (`Nlb.serverGroupIds`), by id. Empty when the region's NLBs were not read.
 */
function unusedNlbServerGroupsOf(ix: FleetIndex, region: RegionSnapshot): BuiltNlbServerGroup[] {
  if (!regionNlbView(ix, region)) return [];
  const used = new Set((region.nlbs ?? []).flatMap((n) => n.serverGroupIds));
  const rows = (region.nlbServerGroups ?? [])
    .filter((g) => g.relatedLoadBalancerIds.length === 0 && !used.has(g.serverGroupId))
    .map(nlbServerGroupRow);
  sortByKey(rows, (g) => g.serverGroupId);
  return rows;
}

/**
 * The NLB server groups of a region listing each ECS instance, by instance id, as a path of group ids (`IdPath`, in
 * the region's group order; its distinct sorted ids are the instance's groups, and `nlbsOfPath` its NLBs): `Ecs`
 * servers by their id, `Ip` servers by a private IP of an ECS instance of the region (CCM puts node IPs in `Ip`
 * groups: research/nlb.md 4). Groups no NLB uses are included (a leaked group still holds the server); a group's NLBs
 * are those whose listeners or `RelatedLoadBalancerIds` name it, among the region's NLBs. Empty when the region's NLBs
 * were not read.
 */
function nlbAttachmentsOf(ix: FleetIndex, region: RegionSnapshot): { paths: Map<string, { path: IdPath }>; nlbsOfGroup: Map<string, Set<string>> } {
  const paths = new Map<string, { path: IdPath }>();
  const nlbsOfGroup = new Map<string, Set<string>>();
  const view = regionNlbView(ix, region);
  if (!view) return { paths, nlbsOfGroup };
  let ecsByIp: Map<string, string> | undefined;
  const addNlb = (groupId: string, nlbId: string) => {
    if (!view.nlbById.has(nlbId)) return;
    const set = nlbsOfGroup.get(groupId);
    if (set) set.add(nlbId);
    else nlbsOfGroup.set(groupId, new Set([nlbId]));
  };
  for (const n of region.nlbs ?? []) for (const id of n.serverGroupIds) addNlb(id, n.loadBalancerId);
  for (const g of region.nlbServerGroups ?? []) for (const id of g.relatedLoadBalancerIds) addNlb(g.serverGroupId, id);
  const root = idPathRoot();
  // `Ecs` entries resolved through the memo of their list's row (`RecordRows`); `Ip` entries through the IP map.
  const rows = new RecordRows<{ path: IdPath }>();
  for (const g of region.nlbServerGroups ?? []) {
    const servers = g.servers;
    if (servers.length === 0) continue;
    const gid = g.serverGroupId;
    const row = rows.row(servers[0]!.serverId);
    for (let i = 0; i < servers.length; i++) {
      const sv = servers[i]!;
      let a: { path: IdPath } | undefined;
      if (sv.type === 'Ecs') {
        a = row.keys[i] === sv.serverId ? row.values[i] : undefined;
        if (a === undefined) {
          a = paths.get(sv.serverId);
          if (!a) paths.set(sv.serverId, (a = { path: root }));
          row.keys[i] = sv.serverId;
          row.values[i] = a;
        }
      } else {
        row.keys[i] = null;
        if (sv.type !== 'Ip') continue;
        if (ecsByIp === undefined) {
          ecsByIp = new Map();
          for (const e of region.ecsInstances ?? []) for (const ip of e.privateIps) ecsByIp.set(ip, e.instanceId);
        }
        const ecsId = ecsByIp.get(sv.serverIp ?? sv.serverId);
        if (ecsId === undefined) continue;
        a = paths.get(ecsId);
        if (!a) paths.set(ecsId, (a = { path: root }));
      }
      // A group listing an instance twice (its `Ecs` and `Ip` entries) steps once: the path's last id is the group.
      if (a.path.id !== gid || a.path === root) a.path = stepIdPath(a.path, gid);
    }
  }
  return { paths, nlbsOfGroup };
}

/** The NLBs of the server groups of a path (`nlbAttachmentsOf`), distinct and sorted; built once per path. */
function nlbsOfPath(path: IdPath, nlbsOfGroup: Map<string, Set<string>>): string[] {
  if (path.nlbs !== undefined) return path.nlbs;
  const nlbs = new Set<string>();
  for (let x: IdPath = path; x.parent !== undefined; x = x.parent) for (const n of nlbsOfGroup.get(x.id) ?? []) nlbs.add(n);
  path.nlbs = [...nlbs].sort();
  return path.nlbs;
}

/**
 * Whether a server list's keys (`serverKey`) are all distinct, as far as one pass tells: servers of one type with
 * strictly increasing ids (the mappers sort a group's servers by id). `false` says only "not known".
 */
function allDistinct(servers: readonly NlbServer[]): boolean {
  for (let i = 1; i < servers.length; i++) if (servers[i]!.type !== servers[0]!.type || !(servers[i - 1]!.serverId < servers[i]!.serverId)) return false;
  return true;
}

/** The distinct servers (`serverKey`) of server groups (count). */
function distinctServers(groups: readonly NlbServerGroup[]): number {
  const distinct = new Set<string>();
  for (const g of groups) for (const sv of g.servers) distinct.add(serverKey(sv));
  return distinct.size;
}

/** Rows built between two pauses of `fleetGraphSteps` (a pause checks the clock in `buildFleetGraphAsync`). */
const ROWS_PER_STEP = 2048;

/**
 * Build the fleet graph of a snapshot.
 * @param snapshot the scan's snapshot
 * @param index its index when the caller already built one (the audit's), else built here
 * @returns every list sorted by its key (byte order, as the store's `COLLATE "C"` keys)
 */
export function buildFleetGraph(snapshot: FleetSnapshot, index?: FleetIndex): FleetGraph {
  const steps = fleetGraphSteps(snapshot, index);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * `buildFleetGraph` in slices of at most about `sliceMs` milliseconds, giving the event loop back between them: the
 * store writes a scan's other rows (quota samples, findings: PostgreSQL's work on the other core) while the graph of a
 * large fleet is built (5 to 7 s at 5,000 clusters on this project's 2-core reference machine, docs/benchmarks.md).
 * @param snapshot the scan's snapshot
 * @param index its index when the caller already built one
 * @param sliceMs wall milliseconds of work between two turns of the event loop (default 20)
 * @returns the same graph as `buildFleetGraph`
 */
export async function buildFleetGraphAsync(snapshot: FleetSnapshot, index?: FleetIndex, sliceMs = 20): Promise<FleetGraph> {
  const steps = fleetGraphSteps(snapshot, index);
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}

/**
 * The work of `buildFleetGraph`, pausing (a bare `yield`) every `ROWS_PER_STEP` rows and between the sorts; the
 * graph is the generator's return value.
 */
function* fleetGraphSteps(snapshot: FleetSnapshot, index?: FleetIndex): Generator<void, FleetGraph> {
  let rows = 0;
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
    if (++rows % ROWS_PER_STEP === 0) yield;
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
    // ECS id -> the CLBs listing it (a path of CLB ids, in CLB order) and the server groups listing it: the index's
    // backend pass learnt them (`EcsAttachment`), so the graph walks no backend entry (10M at 5,000 clusters).
    const attached = ix.ecsAttachments(region);
    for (const clb of region.loadBalancers ?? []) {
      const id = clb.loadBalancerId;
      // The snapshot's lists themselves: a copy of them (10M entries at 5,000 clusters) lived, promoted, until the store
      // had written the graph. The store writes an entry's absent IP and port as null (libs/store BackendsJson).
      const groups: BuiltServerGroup[] = [
        { loadBalancerId: id, vServerGroupId: '', isDefault: true, name: '', accountId: account.accountId, regionId: region.regionId, backends: clb.defaultBackendServers },
      ];
      for (const g of clb.vServerGroups)
        groups.push({
          loadBalancerId: id,
          vServerGroupId: g.vServerGroupId,
          isDefault: false,
          name: g.name,
          accountId: account.accountId,
          regionId: region.regionId,
          backends: g.backendServers,
        });
      // The default server group is stored only when it has backends (CCM's Services use vServer groups).
      for (let gi = groups[0]!.backends.length > 0 ? 0 : 1; gi < groups.length; gi++) graph.serverGroups.push(groups[gi]!);
      if (++rows % ROWS_PER_STEP === 0) yield;
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
      const onNlb = onNlbs.paths.get(ecs.instanceId)?.path;
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
        // Shared with the instances of the same lists (`IdPath`).
        loadBalancerIds: a?.loadBalancerPath ? sortedIds(a.loadBalancerPath, false) : [],
        serverGroupCount: a ? a.groups : 0,
        nlbServerGroupIds: onNlb ? sortedIds(onNlb, true) : [],
        nlbIds: onNlb ? nlbsOfPath(onNlb, onNlbs.nlbsOfGroup) : [],
      };
      graph.ecsInstances.push(row);
      if (++rows % ROWS_PER_STEP === 0) yield;
    }
    const view = regionNlbView(ix, region);
    for (const n of view ? (region.nlbs ?? []) : []) {
      if (++rows % ROWS_PER_STEP === 0) yield;
      const groups = groupsOfNlb(view!, n);
      let entries = 0;
      for (const g of groups) entries += g.servers.length;
      const distinct = groups.length === 1 && allDistinct(groups[0]!.servers) ? groups[0]!.servers.length : distinctServers(groups);
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
        distinctServers: distinct,
        serviceCount: users.length,
        clusterIds: [...new Set(users.map((u) => u.clusterId))].sort(),
      });
    }
  }
  sortByKey(graph.regions, (r) => `${r.accountId}\u0000${r.regionId}`);
  sortByKey(graph.clusters, (c) => c.clusterId);
  yield;
  sortByKey(graph.services, (s) => `${s.clusterId}\u0000${s.namespace}\u0000${s.name}`);
  yield;
  sortByKey(graph.loadBalancers, (l) => l.loadBalancerId);
  yield;
  sortByKey(graph.serverGroups, (g) => `${g.loadBalancerId}\u0000${g.vServerGroupId}`);
  yield;
  sortByKey(graph.ecsInstances, (e) => e.instanceId);
  yield;
  sortByKey(graph.nlbs, (n) => n.nlbId);
  return graph;
}
