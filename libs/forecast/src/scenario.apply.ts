/**
 * Applies scenario steps to a (copied) FleetSnapshot the way the cluster and CCM would: the Kubernetes objects
 * change as the step says, then CCM's model (`expectedVServerGroups`, libs/domain) is re-run for every CLB
 * Service of the cluster and, where its answer changed, the Service's vServer groups and listeners on its CLB
 * are rewritten (new Services get a new CLB as CCM creates one: tags `kubernetes.do.not.delete` = default LB
 * name and `ack.aliyun.com` = cluster id, CCM `GetDefaultTags`; seed 004 "Load balancing update policies").
 * Everything else the checks read follows from that (ECS attachments and backend counts are counted from the
 * CLBs). Deterministic: generated names and ids come from the step number and a counter.
 *
 * Placement of new pods (addServices, scalePods, pods of removed nodes): on the nodes where a pod makes an ECS
 * backend (`schedulableBackendNode`, libs/domain: the audit's node eligibility, and not cordoned), one pod per
 * node first, nodes with the fewest pods of the Service first, then the fewest CLB attachments (the
 * water-filling the headroom model assumes), then by name.
 */
import {
  ANNOTATION_PREFIX,
  CcmLbLookup,
  compileGlob,
  FINALIZER_CLB,
  FINALIZER_NLB,
  mapKubernetes,
  needNlb,
  kindOfService,
  ccmVersionAtLeast,
  CCM_FEATURES,
  TAG_CCM_OWNER,
  TAG_CLUSTER_ID,
  defaultLoadBalancerName,
  eligibleBackendNodes,
  expectedVServerGroups,
  findServiceClb,
  listenerDescription,
  needClb,
  nodeSelectionOptionsOf,
  reusedLoadBalancerId,
  schedulableBackendNode,
  serviceTrafficPolicy,
  type BackendServer,
  type Clb,
  type EcsInstance,
  type FleetSnapshot,
  type K8sEndpointSlice,
  type K8sNode,
  type K8sService,
  type RegionSnapshot,
} from '@app/domain';
import { createHash } from 'node:crypto';
import { ScenarioError, type ScenarioStep } from './scenario.schema';
import type { ServiceChange } from './convergence.model';
import { convertToNlbService, expectedNlbGroupsOf, isNlbControlled, reconcileNlbService, releaseClbOfService, withZoneMaps } from './scenario.nlb';
import { locateCluster, type ClusterLocation } from './scenario.location';

/** What one applied step changed, for the convergence estimate (counts per changed Service). */
export interface AppliedChange {
  /** Services whose CLB changed, with what CCM has to do for each. */
  services: ServiceChange[];
}

function fail(step: ScenarioStep, field: string, message: string): never {
  throw new ScenarioError(`step ${step.index} (${step.kind}) field ${step.kind}.${field}: ${message}`, step.index, `${step.kind}.${field}`);
}

function k8sOf(step: ScenarioStep, loc: ClusterLocation) {
  const k8s = loc.cluster.kubernetes;
  if (!k8s) fail(step, 'cluster', `the Kubernetes objects of cluster ${loc.cluster.clusterId} were not read: nothing to change`);
  return k8s;
}

/** Per ECS id: how many distinct CLBs of the region list it as an `ecs` backend. */
function attachmentsOf(region: RegionSnapshot): Map<string, number> {
  const out = new Map<string, number>();
  for (const clb of region.loadBalancers ?? []) {
    const seen = new Set<string>();
    for (const g of [clb.defaultBackendServers, ...clb.vServerGroups.map((v) => v.backendServers)])
      for (const b of g) if (b.type === 'ecs' && !seen.has(b.serverId)) seen.add(b.serverId);
    for (const id of seen) out.set(id, (out.get(id) ?? 0) + 1);
  }
  return out;
}

/** Per ECS id: how many NLB server groups of the region hold it as an `Ecs` server (`nlb_quota_server_added_num` use). */
function serverGroupsPerEcs(region: RegionSnapshot): Map<string, number> {
  const out = new Map<string, number>();
  for (const g of region.nlbServerGroups ?? []) for (const s of g.servers) if (s.type === 'Ecs') out.set(s.serverId, (out.get(s.serverId) ?? 0) + 1);
  return out;
}

/**
 * A Service glob (`*` = any run of characters, `?` literal) as a predicate over `namespace/name`, matched without a
 * RegExp (libs/domain glob.util.ts): a scenario is user input, and a many-star glob on a backtracking engine would
 * hold a forecast thread for minutes.
 */
function serviceGlob(glob: string): (namespacedName: string) => boolean {
  return compileGlob(glob, { singleCharacterWildcard: false });
}

/** Mutable state of one scenario run: counters for deterministic names. */
/** One vServer group of the CCM model, as the applier compares and writes it. */
interface ExpectedGroup {
  name: string;
  port: number;
  protocol: string;
  backends: { serverId: string; type: BackendServer['type']; port: number; weight: number; serverIp?: string }[];
}

/**
 * Memo of the CCM model's answers for frozen inputs, per Service object (see `ScenarioApplier.expectedWithSignature`);
 * its owner (the admission review model) keeps it as long as the frozen slice it was filled from.
 */
export type ExpectedGroupsMemo = WeakMap<
  K8sService,
  {
    nodes: readonly K8sNode[];
    slices: readonly K8sEndpointSlice[];
    clusterId: string;
    ccmVersion: string | undefined;
    networkPlugin: string | undefined;
    value: { groups: ExpectedGroup[] | undefined; signature: string };
  }
>;

export class ScenarioApplier {
  private seq = 0;
  /**
   * Per cluster id: NodePorts asked for beyond a full NodePort range (the API server refuses those Services;
   * the what-if adds them to the range's usage so the breach shows).
   */
  readonly nodePortOverflow = new Map<string, number>();

  /**
   * @param snapshot the copy to change in place
   * @param options `expectedMemo`: where to keep the CCM model's answers for frozen inputs between appliers (the
   *   admission review model's); without it every answer is computed
   */
  constructor(
    private readonly snapshot: FleetSnapshot,
    private readonly options: { expectedMemo?: ExpectedGroupsMemo } = {},
  ) {}

  /** The next counter value for which `taken` is false (generated names never collide with existing ones). */
  private next(taken: (n: string) => boolean = () => false): string {
    for (;;) {
      this.seq++;
      const n = this.seq.toString(16).padStart(6, '0');
      if (!taken(n)) return n;
    }
  }

  /**
   * Applies one step and re-runs the CCM model on its cluster.
   * @throws ScenarioError naming the step and field for an unknown or ambiguous cluster (by id or name), an unknown
   *   node, Service or CLB
   */
  apply(step: ScenarioStep): AppliedChange {
    const loc = locateCluster(this.snapshot, step.args.cluster);
    if ('error' in loc) fail(step, 'cluster', loc.error);
    const before = this.modelOf(loc);
    const created = new Set<string>();
    const released: ServiceChange[] = [];
    switch (step.kind) {
      case 'addNodes':
        this.addNodes(step, loc);
        break;
      case 'removeNodes':
        this.removeNodes(step, loc);
        break;
      case 'addServices':
        for (const key of this.addServices(step, loc)) created.add(key);
        break;
      case 'setTrafficPolicy':
        this.setTrafficPolicy(step, loc);
        break;
      case 'upgradeCcm':
        loc.cluster.ccmVersion = step.args.version;
        for (const a of loc.cluster.addons ?? []) if (a.name === 'cloud-controller-manager') a.version = step.args.version;
        break;
      case 'scalePods':
        this.scalePods(step, loc);
        break;
      case 'migrateToNlb':
        for (const c of this.migrateToNlb(step, loc, created)) released.push(c);
        break;
      case 'applyServices':
        for (const c of this.applyServices(step, loc, created)) released.push(c);
        break;
    }
    const changed = this.reconcile(loc, before, created);
    return { services: [...released, ...changed.services] };
  }

  /** The CCM model's vServer groups of every CLB Service of a cluster, as a comparable signature per Service. */
  private modelOf(loc: ClusterLocation): Map<string, string> {
    const out = new Map<string, string>();
    const k8s = loc.cluster.kubernetes;
    if (!k8s) return out;
    const slices = slicesByService(k8s.endpointSlices);
    for (const svc of k8s.services) {
      if (needClb(svc)) out.set(`${svc.namespace}/${svc.name}`, this.expectedWithSignature(loc, svc, slices).signature);
      else if (isNlbControlled(loc, svc)) out.set(`${svc.namespace}/${svc.name}`, `nlb:${JSON.stringify(expectedNlbGroupsOf(loc, svc, slices) ?? null)}`);
    }
    return out;
  }

  private expected(loc: ClusterLocation, svc: K8sService, slices: Map<string, K8sEndpointSlice[]>) {
    return this.expectedWithSignature(loc, svc, slices).groups;
  }

  /**
   * The CCM model's vServer groups of a Service and their JSON (the signature `modelOf` and `reconcile` compare).
   * Memoised per Service object in `options.expectedMemo` where every input is frozen (the admission review model
   * shares one frozen slice between reviews: the same Service, nodes and endpoint slices give the same groups); a
   * what-if gives no memo and its own copy is never frozen: computed each time.
   */
  private expectedWithSignature(loc: ClusterLocation, svc: K8sService, slices: Map<string, K8sEndpointSlice[]>): { groups: ExpectedGroup[] | undefined; signature: string } {
    const nodes = loc.cluster.kubernetes?.nodes ?? [];
    const endpointSlices = slices.get(`${svc.namespace}/${svc.name}`) ?? [];
    const memo = this.options.expectedMemo;
    const frozen = memo !== undefined && Object.isFrozen(svc) && Object.isFrozen(nodes) && endpointSlices.every((x) => Object.isFrozen(x));
    if (frozen) {
      const m = memo.get(svc);
      if (
        m &&
        m.nodes === nodes &&
        m.clusterId === loc.cluster.clusterId &&
        m.ccmVersion === loc.cluster.ccmVersion &&
        m.networkPlugin === loc.cluster.networkPlugin &&
        m.slices.length === endpointSlices.length &&
        m.slices.every((x, i) => x === endpointSlices[i])
      )
        return m.value;
    }
    const groups = this.computeExpected(loc, svc, nodes, endpointSlices);
    // The signature is built when first read: a new Service is reconciled without comparing it (`reconcile`).
    let signature: string | undefined;
    const value = {
      groups,
      get signature(): string {
        return (signature ??= JSON.stringify(groups ?? null));
      },
    };
    if (frozen)
      memo.set(svc, { nodes, slices: endpointSlices, clusterId: loc.cluster.clusterId, ccmVersion: loc.cluster.ccmVersion, networkPlugin: loc.cluster.networkPlugin, value });
    return value;
  }

  private computeExpected(loc: ClusterLocation, svc: K8sService, nodes: readonly K8sNode[], endpointSlices: readonly K8sEndpointSlice[]): ExpectedGroup[] | undefined {
    const sel = nodeSelectionOptionsOf(svc, loc.cluster.ccmVersion);
    if ('error' in sel) return undefined;
    const policy = serviceTrafficPolicy(svc, loc.cluster).policy;
    const eligible = eligibleBackendNodes(nodes as K8sNode[], sel.options);
    const r = expectedVServerGroups({
      service: svc,
      clusterId: loc.cluster.clusterId,
      policy,
      eligible,
      endpointSlices: endpointSlices as K8sEndpointSlice[],
      // Version-dependent behaviours (CCM_FEATURES: default-weight, node rules, ECI backends) follow upgradeCcm.
      ...(loc.cluster.ccmVersion !== undefined ? { ccmVersion: loc.cluster.ccmVersion } : {}),
    });
    if ('error' in r) return undefined;
    return r.groups.map((g) => ({
      name: g.name,
      port: g.servicePort.port,
      protocol: g.servicePort.protocol,
      backends: g.backends.map((b) => ({ serverId: b.serverId, type: b.type, port: b.port, weight: b.weight, ...(b.serverIp ? { serverIp: b.serverIp } : {}) })),
    }));
  }

  /** Rewrites the CLB of every Service whose model answer changed (or that is new). */
  private reconcile(loc: ClusterLocation, before: Map<string, string>, created: Set<string>): AppliedChange {
    const k8s = loc.cluster.kubernetes;
    const changes: ServiceChange[] = [];
    if (!k8s) return { services: changes };
    const slices = slicesByService(k8s.endpointSlices);
    const lbs = (loc.region.loadBalancers ??= []);
    // CCM's view: the CLBs of the cluster's account and region (the region snapshot's), found as CCM finds them.
    const view = new CcmLbLookup<Clb>(lbs);
    for (const svc of k8s.services) {
      if (!needClb(svc)) {
        // NLB Services: CCM's NLB controller, where the region's NLB data was read (else nothing to rewrite).
        if (!isNlbControlled(loc, svc) || !loc.region.nlbs || !loc.region.nlbServerGroups) continue;
        const key = `${svc.namespace}/${svc.name}`;
        const groups = expectedNlbGroupsOf(loc, svc, slices);
        const isNew = created.has(key);
        if (!isNew && before.get(key) === `nlb:${JSON.stringify(groups ?? null)}`) continue;
        if (!groups) continue; // CCM would fail this Service's sync: nothing changes on the NLB
        const change = reconcileNlbService(loc, svc, groups, isNew, () => this.next());
        if (change) changes.push(change);
        continue;
      }
      const key = `${svc.namespace}/${svc.name}`;
      const expected = this.expectedWithSignature(loc, svc, slices);
      const groups = expected.groups;
      const isNew = created.has(key);
      if (!isNew && before.get(key) === expected.signature) continue;
      if (!groups) continue; // CCM would fail this Service's sync: nothing changes on the CLB
      const reused = reusedLoadBalancerId(svc);
      let clb = findServiceClb(svc, view).clb;
      const change: ServiceChange = {
        service: key,
        createsLoadBalancer: false,
        groupsCreated: 0,
        groupsUpdated: 0,
        listenersCreated: 0,
        backendsAdded: [],
        backendsRemoved: [],
        backendsUpdated: [],
      };
      if (!clb) {
        // An existing Service without a CLB CCM finds (pending, failing: LB_NOT_FOUND_FOR_SERVICE): the step does
        // not change why; leave it. A new Service's reused CLB was checked by addServices.
        if (!isNew || reused) continue;
        const n = this.next((x) => view.byId(`lb-whatif${x}`) !== undefined);
        clb = {
          loadBalancerId: `lb-whatif${n}`,
          name: defaultLoadBalancerName(svc.uid),
          accountId: loc.cluster.accountId,
          regionId: loc.cluster.regionId,
          addressType: 'internet',
          address: `198.18.${parseInt(n, 16) >> 8 & 255}.${parseInt(n, 16) & 255}`,
          networkType: 'vpc',
          ...(loc.cluster.vpcId ? { vpcId: loc.cluster.vpcId } : {}),
          spec: 'slb.s1.small',
          instanceChargeType: 'PayBySpec',
          status: 'active',
          tags: { [TAG_CCM_OWNER]: defaultLoadBalancerName(svc.uid), [TAG_CLUSTER_ID]: loc.cluster.clusterId },
          listeners: [],
          defaultBackendServers: [],
          vServerGroups: [],
        };
        lbs.push(clb);
        view.add(clb);
        change.createsLoadBalancer = true;
        if (svc.ingress.length === 0 && clb.address) svc.ingress = [{ ip: clb.address }];
      }
      for (const g of groups) {
        const servers: BackendServer[] = g.backends.map((b) => ({
          serverId: b.serverId,
          ...(b.serverIp ? { serverIp: b.serverIp } : {}),
          port: b.port,
          weight: b.weight,
          type: b.type,
          description: g.name,
        }));
        let vg = clb.vServerGroups.find((v) => v.name === g.name);
        if (!vg) {
          vg = { vServerGroupId: `rsp-whatif${this.next()}`, name: g.name, backendServers: [] };
          clb.vServerGroups.push(vg);
          change.groupsCreated++;
        } else change.groupsUpdated++;
        if (vg.backendServers.length === 0) {
          // Nothing to compare with (a new group): every server is added.
          change.backendsAdded.push(servers.length);
          change.backendsRemoved.push(0);
          change.backendsUpdated.push(0);
        } else {
          const old = new Map(vg.backendServers.map((b) => [`${b.serverId}|${b.port ?? ''}`, b]));
          let added = 0;
          let updated = 0;
          for (const s of servers) {
            const o = old.get(`${s.serverId}|${s.port ?? ''}`);
            if (!o) added++;
            else if (o.weight !== s.weight) updated++;
            old.delete(`${s.serverId}|${s.port ?? ''}`);
          }
          change.backendsAdded.push(added);
          change.backendsRemoved.push(old.size);
          change.backendsUpdated.push(updated);
        }
        vg.backendServers = servers;
        const desc = listenerDescription(g.port, svc.name, svc.namespace, loc.cluster.clusterId);
        let listener = clb.listeners.find((l) => l.port === g.port && l.protocol === g.protocol.toLowerCase());
        if (!listener) {
          listener = { port: g.port, protocol: g.protocol.toLowerCase(), description: desc };
          clb.listeners.push(listener);
          change.listenersCreated++;
        }
        listener.vServerGroupId = vg.vServerGroupId;
      }
      clb.vServerGroups.sort((a, b) => (a.vServerGroupId < b.vServerGroupId ? -1 : a.vServerGroupId > b.vServerGroupId ? 1 : 0));
      changes.push(change);
    }
    lbs.sort((a, b) => (a.loadBalancerId < b.loadBalancerId ? -1 : a.loadBalancerId > b.loadBalancerId ? 1 : 0));
    return { services: changes };
  }

  private addNodes(step: Extract<ScenarioStep, { kind: 'addNodes' }>, loc: ClusterLocation): void {
    const k8s = k8sOf(step, loc);
    const { like, labels, count } = step.args;
    const template = like !== undefined ? k8s.nodes.find((n) => n.name === like) : k8s.nodes.find((n) => schedulableBackendNode(n, loc.cluster.ccmVersion));
    if (!template) {
      if (like !== undefined) fail(step, 'like', `unknown node "${like}" in cluster ${loc.cluster.clusterId}`);
      fail(step, 'like', `cluster ${loc.cluster.clusterId} has no ready worker node to copy: name one with like`);
    }
    const ecsTemplate = loc.region.ecsInstances?.find((e) => e.instanceId === template.ecsInstanceId);
    // Names taken, as a set: checking each candidate against the node list made `count` nodes cost O(count^2)
    // (20,000 nodes took 15.9 s on the API's event loop).
    const taken = new Set(k8s.nodes.map((node) => node.name));
    for (let i = 0; i < count; i++) {
      const n = this.next((x) => taken.has(`${loc.cluster.regionId}.whatif-${x}`));
      taken.add(`${loc.cluster.regionId}.whatif-${n}`);
      const ecsId = `i-whatif${n}`;
      const ip = `198.19.${parseInt(n, 16) >> 8 & 255}.${parseInt(n, 16) & 255}`;
      const name = `${loc.cluster.regionId}.whatif-${n}`;
      k8s.nodes.push({
        name,
        labels: { ...template.labels, ...(labels ?? {}), 'kubernetes.io/hostname': name },
        providerId: `${loc.cluster.regionId}.${ecsId}`,
        ecsInstanceId: ecsId,
        unschedulable: false,
        ready: true,
        taints: template.taints.filter((t) => t.key !== 'ToBeDeletedByClusterAutoscaler'),
        internalIp: ip,
      });
      if (loc.region.ecsInstances) {
        const ecs: EcsInstance = {
          ...(ecsTemplate ?? { regionId: loc.region.regionId, tags: {} }),
          instanceId: ecsId,
          name,
          hostName: name,
          privateIps: [ip],
          status: 'Running',
          tags: { ...(ecsTemplate?.tags ?? {}) },
        };
        loc.region.ecsInstances.push(ecs);
        const vsw = loc.region.vSwitches?.find((v) => v.vSwitchId === ecs.vSwitchId);
        if (vsw && vsw.availableIpAddressCount !== undefined) vsw.availableIpAddressCount -= 1;
      }
      if (loc.cluster.nodeLocalPortRanges && template.ecsInstanceId) {
        const r = loc.cluster.nodeLocalPortRanges[template.ecsInstanceId];
        if (r) loc.cluster.nodeLocalPortRanges[ecsId] = { ...r };
      }
    }
  }

  private removeNodes(step: Extract<ScenarioStep, { kind: 'removeNodes' }>, loc: ClusterLocation): void {
    const k8s = k8sOf(step, loc);
    const names = new Set(step.args.names);
    step.args.names.forEach((name, i) => {
      if (!k8s.nodes.some((n) => n.name === name)) fail(step, `names.${i}`, `unknown node "${name}" in cluster ${loc.cluster.clusterId}`);
    });
    const removed = k8s.nodes.filter((n) => names.has(n.name));
    k8s.nodes = k8s.nodes.filter((n) => !names.has(n.name));
    const ecsIds = new Set(removed.map((n) => n.ecsInstanceId).filter((x): x is string => !!x));
    // The ECS instances are released with their nodes: they leave every CLB of the region.
    for (const clb of loc.region.loadBalancers ?? []) {
      clb.defaultBackendServers = clb.defaultBackendServers.filter((b) => !ecsIds.has(b.serverId));
      for (const g of clb.vServerGroups) g.backendServers = g.backendServers.filter((b) => !ecsIds.has(b.serverId));
    }
    if (loc.region.ecsInstances) {
      for (const e of loc.region.ecsInstances) {
        if (!ecsIds.has(e.instanceId)) continue;
        const vsw = loc.region.vSwitches?.find((v) => v.vSwitchId === e.vSwitchId);
        if (vsw && vsw.availableIpAddressCount !== undefined) vsw.availableIpAddressCount += 1;
      }
      loc.region.ecsInstances = loc.region.ecsInstances.filter((e) => !ecsIds.has(e.instanceId));
    }
    for (const id of ecsIds) if (loc.cluster.nodeLocalPortRanges) delete loc.cluster.nodeLocalPortRanges[id];
    // Their pods are rescheduled on the remaining nodes.
    const attachments = attachmentsOf(loc.region);
    for (const slice of k8s.endpointSlices) {
      for (const ep of slice.endpoints) {
        if (ep.nodeName === undefined || !names.has(ep.nodeName)) continue;
        const key = `${slice.namespace}/${slice.serviceName ?? ''}`;
        const target = this.placePods(loc, k8s.nodes, k8s.endpointSlices.filter((s) => `${s.namespace}/${s.serviceName ?? ''}` === key), attachments, 1)[0];
        if (target) ep.nodeName = target;
        else ep.ready = false;
      }
    }
    for (const pod of k8s.pods) if (pod.nodeName !== undefined && names.has(pod.nodeName)) delete pod.nodeName;
  }

  /** Node names for `count` new pods of one Service (see the file comment for the order). */
  private placePods(loc: ClusterLocation, nodes: readonly K8sNode[], slices: readonly K8sEndpointSlice[], attachments: Map<string, number>, count: number): string[] {
    const candidates = nodes.filter((n) => schedulableBackendNode(n, loc.cluster.ccmVersion));
    if (candidates.length === 0) return [];
    const pods = new Map<string, number>();
    for (const s of slices) for (const ep of s.endpoints) if (ep.nodeName) pods.set(ep.nodeName, (pods.get(ep.nodeName) ?? 0) + 1);
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      let best: K8sNode | undefined;
      let bestKey: [number, number, string] | undefined;
      for (const n of candidates) {
        const key: [number, number, string] = [pods.get(n.name) ?? 0, attachments.get(n.ecsInstanceId ?? '') ?? 0, n.name];
        if (!bestKey || key[0] < bestKey[0] || (key[0] === bestKey[0] && (key[1] < bestKey[1] || (key[1] === bestKey[1] && key[2] < bestKey[2])))) {
          best = n;
          bestKey = key;
        }
      }
      out.push(best!.name);
      pods.set(best!.name, (pods.get(best!.name) ?? 0) + 1);
    }
    return out;
  }

  /**
   * The API server's NodePort allocation for new Services of a cluster: the lowest free port of the cluster's range
   * (`used` holds the taken ones and is updated). Past the range the API server refuses the Service: the port is
   * counted in `nodePortOverflow` (NODEPORT_RANGE_EXHAUSTION) and 0 is returned.
   */
  private nodePorts(loc: ClusterLocation, used: Set<number>): { allocate: () => number } {
    const range = loc.cluster.nodePortRange;
    let cursor = range.from;
    return {
      allocate: () => {
        while (used.has(cursor) && cursor <= range.to) cursor++;
        if (cursor > range.to) {
          this.nodePortOverflow.set(loc.cluster.clusterId, (this.nodePortOverflow.get(loc.cluster.clusterId) ?? 0) + 1);
          return 0;
        }
        used.add(cursor);
        return cursor++;
      },
    };
  }

  private addServices(step: Extract<ScenarioStep, { kind: 'addServices' }>, loc: ClusterLocation): string[] {
    const k8s = k8sOf(step, loc);
    const a = step.args;
    const nlb = a.loadBalancerClass !== undefined;
    if (nlb) requireNlbData(step, loc, 'loadBalancerClass');
    if (a.reuseLoadBalancer !== undefined && !(loc.region.loadBalancers ?? []).some((l) => l.loadBalancerId === a.reuseLoadBalancer))
      fail(step, 'reuseLoadBalancer', `unknown CLB "${a.reuseLoadBalancer}" in ${loc.cluster.accountId}/${loc.region.regionId}`);
    const { allocate } = this.nodePorts(loc, usedNodePorts(k8s.services));
    // Placement by free quota: CLB attachments, or for NLB Services the server groups each ECS instance is in.
    const attachments = nlb ? serverGroupsPerEcs(loc.region) : attachmentsOf(loc.region);
    const keys: string[] = [];
    const prefix = a.namePrefix ?? 'whatif';
    const taken = new Set(k8s.services.filter((s) => s.namespace === a.namespace).map((s) => s.name));
    for (let i = 0; i < a.count; i++) {
      const n = this.next((x) => taken.has(`${prefix}-s${step.index}-${x}`));
      taken.add(`${prefix}-s${step.index}-${n}`);
      const name = `${prefix}-s${step.index}-${n}`;
      // A UUID-shaped uid derived from the cluster and name: deterministic and unique per Service.
      const h = createHash('sha256').update(`${loc.cluster.clusterId}/${a.namespace}/${name}`).digest('hex');
      const uid = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
      const svc: K8sService = {
        namespace: a.namespace,
        name,
        uid,
        type: 'LoadBalancer',
        labels: {},
        annotations: a.reuseLoadBalancer
          ? { [`${ANNOTATION_PREFIX}-id`]: a.reuseLoadBalancer, [`${ANNOTATION_PREFIX}-force-override-listeners`]: 'true' }
          : nlb
            ? withZoneMaps(loc, {})
            : {},
        ...(nlb ? { loadBalancerClass: a.loadBalancerClass } : {}),
        finalizers: [nlb ? FINALIZER_NLB : FINALIZER_CLB],
        externalTrafficPolicy: a.externalTrafficPolicy,
        selector: { app: name },
        ports: a.ports.map((port) => {
          const nodePort = allocate();
          return { name: `p${port}`, protocol: 'TCP', port, targetPort: 8080, ...(nodePort ? { nodePort } : {}) };
        }),
        ...(a.externalTrafficPolicy === 'Local' ? ((hc: number) => (hc ? { healthCheckNodePort: hc } : {}))(allocate()) : {}),
        ingress: [],
      };
      k8s.services.push(svc);
      const slice: K8sEndpointSlice = { namespace: a.namespace, name: `${name}-whatif`, serviceName: name, ports: a.ports.map((port) => ({ name: `p${port}`, port: 8080, protocol: 'TCP' })), endpoints: [] };
      const nodes = this.placePods(loc, k8s.nodes, [], attachments, a.podsPerService);
      nodes.forEach((nodeName, j) => {
        const ip = `100.64.${parseInt(n, 16) >> 8 & 255}.${(parseInt(n, 16) & 255) ^ j}`;
        const podName = `${name}-${j}`;
        slice.endpoints.push({ addresses: [ip], ready: true, terminating: false, nodeName, targetRefName: podName });
        k8s.pods.push({ namespace: a.namespace, name: podName, nodeName, podIp: ip, phase: 'Running', labels: { app: name } });
      });
      k8s.endpointSlices.push(slice);
      keys.push(`${a.namespace}/${name}`);
      // The new Service's nodes count for the next placement (Local mode attaches exactly them).
      if (a.externalTrafficPolicy === 'Local' && !a.reuseLoadBalancer)
        for (const nodeName of new Set(nodes)) {
          const ecs = k8s.nodes.find((x) => x.name === nodeName)?.ecsInstanceId;
          if (ecs) attachments.set(ecs, (attachments.get(ecs) ?? 0) + (nlb ? a.ports.length : 1));
        }
    }
    return keys;
  }

  /**
   * Applies Service manifests and deletions (the `applyServices` step, see its schema): deletions first, as CCM
   * handles a deleted Service (its CLB side released: `releaseClbOfService`; an NLB Service's NLB is left to the next
   * scan: the what-if does not model NLB deletion), then each manifest replaces or creates its Service. The
   * resources a manifest needs are checked as the API server and CCM check them: a new NLB Service where the region's
   * NLB data was read.
   * @returns the CLB-side changes of the deletions (for the convergence estimate)
   * @throws ScenarioError naming the field: a deletion of a Service the cluster lacks, a Service twice
   */
  private applyServices(step: Extract<ScenarioStep, { kind: 'applyServices' }>, loc: ClusterLocation, created: Set<string>): ServiceChange[] {
    const k8s = k8sOf(step, loc);
    const a = step.args;
    const out: ServiceChange[] = [];
    const slices = slicesByService(k8s.endpointSlices);
    const view = new CcmLbLookup<Clb>(loc.region.loadBalancers ?? []);
    (a.delete ?? []).forEach((key, i) => {
      const at = k8s.services.findIndex((s) => `${s.namespace}/${s.name}` === key);
      if (at < 0) fail(step, `delete.${i}`, `"${key}" is not a Service of cluster ${loc.cluster.clusterId}`);
      const svc = k8s.services[at]!;
      if (needClb(svc)) {
        const groupNames = (this.expected(loc, svc, slices) ?? []).map((g) => g.name);
        const released = releaseClbOfService(loc, svc, findServiceClb(svc, view).clb, groupNames);
        if (released) out.push(released);
      }
      k8s.services.splice(at, 1);
      k8s.endpointSlices = k8s.endpointSlices.filter((sl) => !(sl.namespace === svc.namespace && sl.serviceName === svc.name));
    });
    const seen = new Set<string>();
    const used = usedNodePorts(k8s.services);
    const { allocate } = this.nodePorts(loc, used);
    // Counted when a Service first places pods (a Service applied without pods places none): the CLBs do not change
    // before the step reconciles them.
    let attachments: Map<string, number> | undefined;
    const attachmentsNow = () => (attachments ??= attachmentsOf(loc.region));
    a.services.forEach((_manifest, i) => {
      const svc = mapKubernetes({ nodes: [], services: [a.services[i]!], pods: [], endpointSlices: [], events: [] }).services[0]!;
      const key = `${svc.namespace}/${svc.name}`;
      if (seen.has(key)) fail(step, `services.${i}`, `Service "${key}" is given twice`);
      seen.add(key);
      const at = k8s.services.findIndex((s) => `${s.namespace}/${s.name}` === key);
      const old = at >= 0 ? k8s.services[at] : undefined;
      if (needNlb(svc) && (!old || !needNlb(old))) requireNlbData(step, loc, `services.${i}`);
      if (old) {
        // An update keeps what the API server keeps: the uid, the allocated NodePorts, the status.
        svc.uid = old.uid;
        svc.ingress = old.ingress;
        svc.finalizers = old.finalizers;
        for (const p of svc.ports) {
          if (p.nodePort) continue;
          const was = old.ports.find((o) => o.port === p.port && o.protocol === p.protocol);
          if (was?.nodePort) p.nodePort = was.nodePort;
        }
        if (svc.healthCheckNodePort === undefined && old.healthCheckNodePort !== undefined && svc.externalTrafficPolicy === 'Local')
          svc.healthCheckNodePort = old.healthCheckNodePort;
        k8s.services[at] = svc;
      } else {
        const h = createHash('sha256').update(`${loc.cluster.clusterId}/${key}/applied/${step.index}`).digest('hex');
        svc.uid ||= `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
        // CCM adds its kind's finalizer when it first reconciles the Service (from v2.0.1, CCM_FEATURES.finalizer).
        const kind = kindOfService(svc);
        if (kind && !svc.finalizers.includes(kind.finalizer) && ccmVersionAtLeast(loc.cluster.ccmVersion, CCM_FEATURES.finalizer.sinceVersion) !== false)
          svc.finalizers = [...svc.finalizers, kind.finalizer];
        k8s.services.push(svc);
        created.add(key);
      }
      if (svc.type === 'LoadBalancer') {
        for (const p of svc.ports) {
          if (p.nodePort) used.add(p.nodePort);
          else {
            const n = allocate();
            if (n) p.nodePort = n;
          }
        }
        if (svc.externalTrafficPolicy === 'Local' && svc.healthCheckNodePort === undefined) {
          const n = allocate();
          if (n) svc.healthCheckNodePort = n;
        }
      }
      const replicas = a.replicas?.[key];
      if (replicas === undefined && old) return;
      // New pods (or a new pod count): the Service's endpoints are replaced by `replicas` ready pods.
      k8s.endpointSlices = k8s.endpointSlices.filter((sl) => !(sl.namespace === svc.namespace && sl.serviceName === svc.name));
      const slice: K8sEndpointSlice = {
        namespace: svc.namespace,
        name: `${svc.name}-applied`,
        serviceName: svc.name,
        ports: svc.ports.map((p) => ({ ...(p.name !== undefined ? { name: p.name } : {}), port: typeof p.targetPort === 'number' ? p.targetPort : p.port, protocol: p.protocol })),
        endpoints: [],
      };
      const nodes = (replicas ?? 0) > 0 ? this.placePods(loc, k8s.nodes, [], attachmentsNow(), replicas ?? 0) : [];
      nodes.forEach((nodeName, j) => {
        // One address per pod from the counter, in 100.66.0.0/15 and up (shared address space, never a real pod's).
        const m = parseInt(this.next(), 16);
        const ip = `100.${66 + ((m >> 16) & 63)}.${(m >> 8) & 255}.${m & 255}`;
        const podName = `${svc.name}-${j}`;
        slice.endpoints.push({ addresses: [ip], ready: true, terminating: false, nodeName, targetRefName: podName });
        k8s.pods.push({ namespace: svc.namespace, name: podName, nodeName, podIp: ip, phase: 'Running', labels: { ...(svc.selector ?? {}) } });
      });
      k8s.endpointSlices.push(slice);
      if (svc.externalTrafficPolicy === 'Local')
        for (const nodeName of new Set(nodes)) {
          const ecs = k8s.nodes.find((x) => x.name === nodeName)?.ecsInstanceId;
          if (ecs) attachmentsNow().set(ecs, (attachmentsNow().get(ecs) ?? 0) + 1);
        }
    });
    return out;
  }

  /**
   * Moves the named CLB Services to NLB: each Service's CLB side is released as CCM does on delete
   * (`releaseClbOfService`), then the Service is re-created as an NLB Service (`convertToNlbService`) and marked
   * new, so `reconcile` builds its NLB.
   * @returns the CLB-side changes (the convergence estimate counts CCM's delete calls)
   */
  private migrateToNlb(step: Extract<ScenarioStep, { kind: 'migrateToNlb' }>, loc: ClusterLocation, created: Set<string>): ServiceChange[] {
    const k8s = k8sOf(step, loc);
    requireNlbData(step, loc, 'services');
    const clbServices = k8s.services.filter((s) => needClb(s));
    const byKey = new Map(clbServices.map((s) => [`${s.namespace}/${s.name}`, s]));
    const seen = new Set<string>();
    const view = new CcmLbLookup<Clb>(loc.region.loadBalancers ?? []);
    const slices = slicesByService(k8s.endpointSlices);
    const out: ServiceChange[] = [];
    step.args.services.forEach((key, i) => {
      if (seen.has(key)) fail(step, `services.${i}`, `"${key}" is listed twice`);
      seen.add(key);
      const svc = byKey.get(key);
      if (!svc) {
        const all = [...byKey.keys()].sort();
        const shown = all.slice(0, 20).join(', ');
        const what = k8s.services.some((s) => `${s.namespace}/${s.name}` === key) ? 'is not a CLB Service (CCM\'s CLB controller does not take it)' : 'is not a Service of the cluster';
        fail(step, `services.${i}`, `"${key}" ${what}; CLB Services of cluster ${loc.cluster.clusterId}: ${all.length === 0 ? 'none' : shown}${all.length > 20 ? `, ... (${all.length - 20} more)` : ''}`);
      }
      const groupNames = (this.expected(loc, svc, slices) ?? []).map((g) => g.name);
      const released = releaseClbOfService(loc, svc, findServiceClb(svc, view).clb, groupNames);
      if (released) out.push(released);
      const h = createHash('sha256').update(`${loc.cluster.clusterId}/${key}/nlb/${step.index}`).digest('hex');
      convertToNlbService(loc, svc, `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`);
      created.add(key);
    });
    return out;
  }

  private setTrafficPolicy(step: Extract<ScenarioStep, { kind: 'setTrafficPolicy' }>, loc: ClusterLocation): void {
    const k8s = k8sOf(step, loc);
    const used = usedNodePorts(k8s.services);
    const range = loc.cluster.nodePortRange;
    step.args.services.forEach((pattern, i) => {
      const matches = serviceGlob(pattern);
      const matched = k8s.services.filter((s) => s.type === 'LoadBalancer' && matches(`${s.namespace}/${s.name}`));
      if (matched.length === 0) fail(step, `services.${i}`, `no LoadBalancer Service matches "${pattern}" in cluster ${loc.cluster.clusterId}`);
      for (const s of matched) {
        s.externalTrafficPolicy = step.args.policy;
        if (step.args.policy === 'Local' && s.healthCheckNodePort === undefined) {
          let p = range.from;
          while (used.has(p)) p++;
          used.add(p);
          s.healthCheckNodePort = p;
        } else if (step.args.policy === 'Cluster' && s.healthCheckNodePort !== undefined) {
          used.delete(s.healthCheckNodePort);
          delete s.healthCheckNodePort;
        }
      }
    });
  }

  private scalePods(step: Extract<ScenarioStep, { kind: 'scalePods' }>, loc: ClusterLocation): void {
    const k8s = k8sOf(step, loc);
    const [ns, name] = step.args.service.includes('/') ? step.args.service.split('/', 2) : ['default', step.args.service];
    const svc = k8s.services.find((s) => s.namespace === ns && s.name === name);
    if (!svc) fail(step, 'service', `unknown Service "${step.args.service}" in cluster ${loc.cluster.clusterId}`);
    let slices = k8s.endpointSlices.filter((s) => s.namespace === ns && s.serviceName === name);
    if (slices.length === 0) {
      const slice: K8sEndpointSlice = {
        namespace: ns!,
        name: `${name}-whatif`,
        serviceName: name,
        ports: svc.ports.map((p) => ({ ...(p.name ? { name: p.name } : {}), port: typeof p.targetPort === 'number' ? p.targetPort : p.port, protocol: p.protocol })),
        endpoints: [],
      };
      k8s.endpointSlices.push(slice);
      slices = [slice];
    }
    const ready = slices.flatMap((s) => s.endpoints.filter((e) => e.ready && !e.terminating).map((e) => ({ s, e })));
    const want = step.args.replicas;
    if (ready.length > want) {
      const drop = new Set(ready.slice(want).map((x) => x.e));
      for (const s of slices) s.endpoints = s.endpoints.filter((e) => !drop.has(e));
    } else if (ready.length < want) {
      const attachments = attachmentsOf(loc.region);
      const nodes = this.placePods(loc, k8s.nodes, slices, attachments, want - ready.length);
      const last = slices[slices.length - 1]!;
      nodes.forEach((nodeName, j) => {
        const n = this.next();
        const ip = `100.65.${parseInt(n, 16) >> 8 & 255}.${(parseInt(n, 16) & 255) ^ j}`;
        last.endpoints.push({ addresses: [ip], ready: true, terminating: false, nodeName, targetRefName: `${name}-whatif-${n}` });
        k8s.pods.push({ namespace: ns!, name: `${name}-whatif-${n}`, nodeName, podIp: ip, phase: 'Running', labels: { ...(svc.selector ?? {}) } });
      });
    }
  }
}

/** Refuses an NLB step on a region whose NLB data was not read: NLB quotas cannot be planned without it. */
function requireNlbData(step: ScenarioStep, loc: ClusterLocation, field: string): void {
  if (!loc.region.nlbs || !loc.region.nlbServerGroups)
    fail(step, field, `the NLB data of ${loc.cluster.accountId}/${loc.region.regionId} was not read (coverage gap nlb): NLB quotas cannot be planned there`);
}

function usedNodePorts(services: readonly K8sService[]): Set<number> {
  const used = new Set<number>();
  for (const s of services) {
    for (const p of s.ports) if (p.nodePort !== undefined) used.add(p.nodePort);
    if (s.healthCheckNodePort !== undefined) used.add(s.healthCheckNodePort);
  }
  return used;
}

function slicesByService(slices: readonly K8sEndpointSlice[]): Map<string, K8sEndpointSlice[]> {
  const m = new Map<string, K8sEndpointSlice[]>();
  for (const s of slices) {
    if (!s.serviceName) continue;
    const k = `${s.namespace}/${s.serviceName}`;
    const list = m.get(k);
    if (list) list.push(s);
    else m.set(k, [s]);
  }
  return m;
}
