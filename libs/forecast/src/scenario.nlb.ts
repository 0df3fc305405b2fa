/**
 * The NLB side of the what-if: CCM's NLB controller re-run on a changed cluster, writing the NLBs,
 * listeners and server groups it would build into the region snapshot, and what a CLB Service's move to NLB frees on
 * its CLB. Used by `ScenarioApplier` (scenario.apply.ts), which owns the counters for generated ids.
 *
 * CCM behaviour modelled (research/nlb.md 1, 3, 4; research/ccm-behaviour.md §1.7):
 * - an NLB Service (`spec.loadBalancerClass: alibabacloud.com/nlb`, CCM v2.5.0+) finds its NLB as `FindNLB` does
 *   (`findServiceNlb`); a new one gets an NLB tagged `kubernetes.do.not.delete` = default LB name and
 *   `ack.aliyun.com` = cluster id, zone mappings from `zone-maps` (no NLB without them: "ParameterMissing, zone
 *   mappings are required"), and the status hostname = its DNS name (NLB Services never get an IP);
 * - one listener and one server group per Service port (`expectedNlbServerGroups`), the group tagged like the NLB,
 *   servers matched by (type, ServerId, ServerIp) and updated on port or weight;
 * - deleting a CLB Service: a CLB CCM created is deleted (unless `preserve-lb-on-delete`: kept, untagged); on a
 *   reused CLB its CCM-named vServer groups are deleted, and its listeners when `force-override-listeners` is "true".
 */
import {
  ANNOTATION_PREFIX,
  CcmLbLookup,
  FINALIZER_CLB,
  FINALIZER_NLB,
  LABEL_SERVICE_LOADBALANCER_ID,
  NLB_ANNOTATION,
  NLB_LOAD_BALANCER_CLASS,
  TAG_CCM_OWNER,
  TAG_CLUSTER_ID,
  ccmControllerFor,
  defaultLoadBalancerName,
  eligibleBackendNodes,
  expectedNlbServerGroups,
  findServiceNlb,
  getLbAnnotation,
  lbAnnotationKey,
  listenerDescription,
  nlbLoadBalancerBuildError,
  nodeSelectionOptionsOf,
  parseNlbZoneMappings,
  reusedLoadBalancerId,
  serviceTrafficPolicy,
  type Clb,
  type ExpectedNlbServerGroup,
  type K8sEndpointSlice,
  type K8sService,
  type Nlb,
  type NlbServer,
  type NlbServerGroup,
} from '@app/domain';
import type { ServiceChange } from './convergence.model';
import type { ClusterLocation } from './scenario.location';

/** The `preserve-lb-on-delete` annotation suffix (CLB and NLB; research/ccm-behaviour.md §1.7). */
const PRESERVE_ON_DELETE = 'preserve-lb-on-delete';

/** An empty change record of one Service (counts). */
export function emptyChange(service: string, product: 'clb' | 'nlb'): ServiceChange {
  return { service, product, createsLoadBalancer: false, groupsCreated: 0, groupsUpdated: 0, listenersCreated: 0, backendsAdded: [], backendsRemoved: [], backendsUpdated: [] };
}

/** Whether CCM's NLB controller takes the Service on this cluster (class and CCM version, `ccmControllerFor`). */
export function isNlbControlled(loc: ClusterLocation, svc: K8sService): boolean {
  return ccmControllerFor(svc, loc.cluster.ccmVersion).controller === 'nlb';
}

/**
 * The server groups CCM's NLB controller would build for a Service, or `undefined` when its sync fails (the audit
 * reports why: NLB_ZONE_MAPS_MISSING, SERVICE_EVENT_ERROR, ...).
 */
export function expectedNlbGroupsOf(loc: ClusterLocation, svc: K8sService, slices: ReadonlyMap<string, K8sEndpointSlice[]>): ExpectedNlbServerGroup[] | undefined {
  const sel = nodeSelectionOptionsOf(svc, loc.cluster.ccmVersion);
  if ('error' in sel) return undefined;
  const r = expectedNlbServerGroups({
    service: svc,
    clusterId: loc.cluster.clusterId,
    policy: serviceTrafficPolicy(svc, loc.cluster).policy,
    eligible: eligibleBackendNodes(loc.cluster.kubernetes?.nodes ?? [], sel.options),
    endpointSlices: slices.get(`${svc.namespace}/${svc.name}`) ?? [],
    ...(loc.cluster.ccmVersion !== undefined ? { ccmVersion: loc.cluster.ccmVersion } : {}),
  });
  return 'error' in r ? undefined : r.groups;
}

/**
 * The `zone-maps` value a new NLB Service gets in the what-if: one `zone:vSwitch` per zone of the cluster's nodes'
 * ECS instances (the vSwitches the nodes use, as the sample fleet's NLB Services do), or `undefined` when the ECS
 * data does not say (the Service then fails as CCM would: NLB_ZONE_MAPS_MISSING).
 */
export function zoneMapsOf(loc: ClusterLocation): string | undefined {
  const ecs = new Map((loc.region.ecsInstances ?? []).map((e) => [e.instanceId, e]));
  const vswZone = new Map((loc.region.vSwitches ?? []).map((v) => [v.vSwitchId, v.zoneId]));
  const byZone = new Map<string, string>();
  for (const n of loc.cluster.kubernetes?.nodes ?? []) {
    const e = n.ecsInstanceId ? ecs.get(n.ecsInstanceId) : undefined;
    if (!e?.vSwitchId) continue;
    const zone = e.zoneId ?? vswZone.get(e.vSwitchId);
    if (zone && !byZone.has(zone)) byZone.set(zone, e.vSwitchId);
  }
  if (byZone.size === 0) return undefined;
  return [...byZone.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([z, v]) => `${z}:${v}`).join(',');
}

/** The NLB Service annotations for a new or migrated Service: `zone-maps` added when absent and derivable. */
export function withZoneMaps(loc: ClusterLocation, annotations: Record<string, string>): Record<string, string> {
  if (getLbAnnotation(annotations, NLB_ANNOTATION.zoneMaps) !== undefined) return annotations;
  const z = zoneMapsOf(loc);
  return z ? { ...annotations, [lbAnnotationKey(NLB_ANNOTATION.zoneMaps)]: z } : annotations;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function serverKey(s: Pick<NlbServer, 'type' | 'serverId' | 'serverIp'>): string {
  return `${s.type}|${s.serverId}|${s.serverIp ?? ''}`;
}

/**
 * Writes what CCM's NLB controller builds for one NLB Service into the region: its NLB (created for a new Service),
 * one listener and one server group per port with their servers. The region's `nlbs` / `nlbServerGroups` must have
 * been read (the caller checks).
 * @param next a fresh id suffix (the applier's counter)
 * @returns the change, or `undefined` when CCM would not touch an NLB (no NLB found for an existing Service, or a
 *   new one whose NLB cannot be built: zone mappings missing or malformed, a reused id naming no NLB)
 */
export function reconcileNlbService(
  loc: ClusterLocation,
  svc: K8sService,
  groups: readonly ExpectedNlbServerGroup[],
  isNew: boolean,
  next: () => string,
): ServiceChange | undefined {
  const nlbs = loc.region.nlbs!;
  const sgs = loc.region.nlbServerGroups!;
  const key = `${svc.namespace}/${svc.name}`;
  const found = findServiceNlb(svc, new CcmLbLookup(nlbs));
  const change = emptyChange(key, 'nlb');
  let nlb = found.nlb;
  if (!nlb) {
    if (!isNew || reusedLoadBalancerId(svc) || nlbLoadBalancerBuildError(svc) !== undefined) return undefined;
    const zones = parseNlbZoneMappings(getLbAnnotation(svc.annotations, NLB_ANNOTATION.zoneMaps) ?? '');
    const id = `nlb-whatif${next()}`;
    const owner = defaultLoadBalancerName(svc.uid);
    nlb = {
      loadBalancerId: id,
      name: owner,
      accountId: loc.cluster.accountId,
      regionId: loc.cluster.regionId,
      status: 'Active',
      addressType: 'Internet',
      addressIpVersion: 'ipv4',
      ...(loc.cluster.vpcId ? { vpcId: loc.cluster.vpcId } : {}),
      dnsName: `${id}.${loc.cluster.regionId}.nlb.aliyuncsslb.com`,
      zoneMappings: 'error' in zones ? [] : zones.zones.map((z) => ({ zoneId: z.zoneId, vSwitchId: z.vSwitchId })),
      tags: { [TAG_CCM_OWNER]: owner, [TAG_CLUSTER_ID]: loc.cluster.clusterId },
      listeners: [],
      serverGroupIds: [],
    };
    nlbs.push(nlb);
    nlbs.sort((a, b) => cmp(a.loadBalancerId, b.loadBalancerId));
    change.createsLoadBalancer = true;
    svc.ingress = [{ hostname: nlb.dnsName! }];
    svc.labels = { ...svc.labels, [LABEL_SERVICE_LOADBALANCER_ID]: id };
  }
  const target: Nlb = nlb;
  const groupTags = reusedLoadBalancerId(svc)
    ? { [TAG_CCM_OWNER]: defaultLoadBalancerName(svc.uid), [TAG_CLUSTER_ID]: loc.cluster.clusterId }
    : { ...target.tags };
  const own = new Map(sgs.filter((g) => target.serverGroupIds.includes(g.serverGroupId)).map((g) => [g.name, g]));
  for (const g of groups) {
    let sg: NlbServerGroup | undefined = own.get(g.name);
    if (!sg) {
      sg = {
        serverGroupId: `sgp-whatif${next()}`,
        name: g.name,
        type: g.type,
        protocol: g.listener.protocol,
        ...(loc.cluster.vpcId ? { vpcId: loc.cluster.vpcId } : {}),
        status: 'Available',
        relatedLoadBalancerIds: [target.loadBalancerId],
        serverCount: 0,
        tags: groupTags,
        servers: [],
      };
      sgs.push(sg);
      target.serverGroupIds.push(sg.serverGroupId);
      target.serverGroupIds.sort();
      own.set(g.name, sg);
      change.groupsCreated++;
    } else change.groupsUpdated++;
    const servers: NlbServer[] = g.servers.map((s) => ({
      serverId: s.serverId,
      ...(s.serverIp !== undefined ? { serverIp: s.serverIp } : {}),
      type: s.type,
      port: s.port,
      weight: s.weight,
      status: 'Available',
      description: g.name,
    }));
    const old = new Map(sg.servers.map((s) => [serverKey(s), s]));
    let added = 0;
    let updated = 0;
    for (const s of servers) {
      const o = old.get(serverKey(s));
      if (!o) added++;
      else if (o.port !== s.port || o.weight !== s.weight) updated++;
      old.delete(serverKey(s));
    }
    change.backendsAdded.push(added);
    change.backendsRemoved.push(old.size);
    change.backendsUpdated.push(updated);
    sg.servers = servers.sort((a, b) => cmp(a.type, b.type) || cmp(a.serverId, b.serverId) || cmp(a.serverIp ?? '', b.serverIp ?? '') || (a.port ?? 0) - (b.port ?? 0));
    sg.serverCount = sg.servers.length;
    const l = g.listener;
    let listener = target.listeners.find((x) => x.protocol === l.protocol && x.port === l.port && (x.startPort ?? 0) === (l.startPort ?? 0));
    if (!listener) {
      listener = {
        listenerId: `lsn-whatif${next()}`,
        protocol: l.protocol,
        port: l.port,
        ...(l.startPort !== undefined ? { startPort: l.startPort, endPort: l.endPort! } : {}),
        description: l.description,
        status: 'Running',
      };
      target.listeners.push(listener);
      change.listenersCreated++;
    }
    listener.serverGroupId = sg.serverGroupId;
  }
  target.listeners.sort((a, b) => cmp(a.protocol, b.protocol) || a.port - b.port || cmp(a.listenerId, b.listenerId));
  return change;
}

/**
 * What deleting a CLB Service does on its CLB (research/ccm-behaviour.md §1.7): a CLB CCM created is deleted
 * (`preserve-lb-on-delete`: kept, its default tags removed); on a reused CLB the Service's CCM-named vServer groups
 * are deleted, and its listeners when `force-override-listeners` is "true".
 * @param groupNames the vServer group names CCM's model gives the Service (`expectedVServerGroups`)
 * @returns the change (CLB side), or `undefined` when the Service has no CLB
 */
export function releaseClbOfService(loc: ClusterLocation, svc: K8sService, clb: Clb | undefined, groupNames: readonly string[]): ServiceChange | undefined {
  if (!clb) return undefined;
  const change = emptyChange(`${svc.namespace}/${svc.name}`, 'clb');
  const lbs = loc.region.loadBalancers ?? [];
  if (!reusedLoadBalancerId(svc)) {
    if (getLbAnnotation(svc.annotations, PRESERVE_ON_DELETE)) {
      const tags = { ...clb.tags };
      delete tags[TAG_CCM_OWNER];
      delete tags[TAG_CLUSTER_ID];
      clb.tags = tags;
      return change;
    }
    change.deletesLoadBalancer = true;
    change.backendsRemoved = clb.vServerGroups.map((g) => g.backendServers.length);
    change.listenersDeleted = clb.listeners.length;
    change.groupsDeleted = clb.vServerGroups.length;
    loc.region.loadBalancers = lbs.filter((l) => l !== clb);
    return change;
  }
  const names = new Set(groupNames);
  const gone = clb.vServerGroups.filter((g) => names.has(g.name));
  const goneIds = new Set(gone.map((g) => g.vServerGroupId));
  change.groupsDeleted = gone.length;
  change.backendsRemoved = gone.map((g) => g.backendServers.length);
  clb.vServerGroups = clb.vServerGroups.filter((g) => !goneIds.has(g.vServerGroupId));
  const override = svc.annotations[`${ANNOTATION_PREFIX}-force-override-listeners`] === 'true';
  const before = clb.listeners.length;
  clb.listeners = clb.listeners.filter(
    (l) => !(override && (goneIds.has(l.vServerGroupId ?? '') || svc.ports.some((p) => l.description === listenerDescription(p.port, svc.name, svc.namespace, loc.cluster.clusterId)))),
  );
  change.listenersDeleted = before - clb.listeners.length;
  return change;
}

/**
 * Turns a CLB Service into the NLB Service that replaces it (delete and re-create: `loadBalancerClass` is immutable):
 * class `alibabacloud.com/nlb`, finalizer `service.k8s.alibaba/nlb`, a new uid (so a new default LB name), the CLB
 * reuse annotations dropped (they name a CLB), `zone-maps` added when derivable, status and LB label cleared;
 * ports, NodePorts, mode and the other annotations kept.
 */
export function convertToNlbService(loc: ClusterLocation, svc: K8sService, uid: string): void {
  const annotations = { ...svc.annotations };
  for (const k of [`${ANNOTATION_PREFIX}-id`, `${ANNOTATION_PREFIX}-force-override-listeners`]) delete annotations[k];
  svc.annotations = withZoneMaps(loc, annotations);
  svc.loadBalancerClass = NLB_LOAD_BALANCER_CLASS;
  svc.finalizers = [...svc.finalizers.filter((f) => f !== FINALIZER_CLB), FINALIZER_NLB];
  svc.uid = uid;
  svc.ingress = [];
  const labels = { ...svc.labels };
  delete labels[LABEL_SERVICE_LOADBALANCER_ID];
  svc.labels = labels;
}
