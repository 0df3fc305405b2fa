/**
 * The bundled sample fleet (`examples/fleets/sample`) is internally consistent the way a real ACK
 * fleet is: every CLB, vServer group and backend is what CCM would have built for the Kubernetes
 * objects beside it (CCM source: cloud-provider-alibaba-cloud clbv1/vgroups.go, clbv1/listeners.go,
 * reconcile/backend/backend.go, annotation/annotations.go; research notes ccm-behaviour.md 1, 2, 9),
 * except for the deliberate faults the README lists. Also: the malformed fleets used by CLI tests
 * fail validation naming the file and the JSON path.
 *
 * The oracle here is written independently of libs/domain's CCM model on purpose: if the two
 * disagree, either the data or the model is wrong, and this spec says which invariant broke.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FleetValidationError, loadFleetDirectory, readFleetDirectory } from '@app/collectors';
import type {
  Clb,
  ClusterSnapshot,
  FleetSnapshot,
  K8sService,
  RamStatement,
  RegionSnapshot,
} from '@app/domain';

const FLEETS = join(__dirname, '..', '..', 'examples', 'fleets');
const SAMPLE = join(FLEETS, 'sample');

/** `ids.json`: the ids the README talks about, written by the sample generator (examples/fleets/sample/generator) beside the data. */
interface SampleIds {
  [cluster: string]: unknown;
}
interface ClusterIds {
  accountId: string;
  regionId: string;
  clusterId: string;
  apiServerLoadBalancerId: string;
  masterRole?: string;
  orphanLoadBalancerId?: string;
  orphanServiceUid?: string;
}
interface LbIds {
  accountId: string;
  regionId: string;
  loadBalancerId: string;
  vpcId?: string;
}

const SEED_002_REUSE = 'can not be reused, can not reuse loadbalancer created by kubernetes.';
const CCM_VGROUP_NAME = /^k8s\/([^/]+)\/([^/]+)\/([^/]+)\/(c[0-9a-f]{32})$/;

let fleet: FleetSnapshot;
let ids: SampleIds;
const cluster = (name: string): ClusterSnapshot => {
  const c = fleet.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters)).find((x) => x.name === name);
  if (!c) throw new Error(`no cluster ${name}`);
  return c;
};
const regionOf = (c: Pick<ClusterSnapshot, 'accountId' | 'regionId'>): RegionSnapshot => {
  const r = fleet.accounts
    .find((a) => a.accountId === c.accountId)
    ?.regions.find((x) => x.regionId === c.regionId);
  if (!r) throw new Error(`no region ${c.accountId}/${c.regionId}`);
  return r;
};
const lbsOf = (r: RegionSnapshot): Clb[] => r.loadBalancers ?? [];
const lbById = (r: RegionSnapshot, id: string): Clb => {
  const lb = lbsOf(r).find((l) => l.loadBalancerId === id);
  if (!lb) throw new Error(`no CLB ${id} in ${r.accountId}/${r.regionId}`);
  return lb;
};
const k8s = (c: ClusterSnapshot) => {
  if (!c.kubernetes) throw new Error(`cluster ${c.name} has no Kubernetes objects`);
  return c.kubernetes;
};
/** The CLB Services of a cluster (LoadBalancer, no loadBalancerClass); NLB Services are checked on their own. */
const lbServices = (c: ClusterSnapshot): K8sService[] =>
  k8s(c).services.filter((s) => s.type === 'LoadBalancer' && !s.loadBalancerClass);
const defaultLbName = (uid: string) => `a${uid.replace(/-/g, '')}`.slice(0, 32);
const entries = (lb: Clb) =>
  lb.defaultBackendServers.length + lb.vServerGroups.reduce((n, g) => n + g.backendServers.length, 0);
const REUSE_ANNOTATION = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-id';
const ccmMajor = (c: ClusterSnapshot) => Number(/^v?(\d+)/.exec(c.ccmVersion ?? '')?.[1] ?? 0);

/** Terway clusters created after 2020-08-10 default to ENI backends (CLB annotation doc, backend-type). */
const isEni = (c: ClusterSnapshot, s: K8sService) => {
  const a = s.annotations['service.beta.kubernetes.io/backend-type'];
  if (a) return a === 'eni';
  return c.networkPlugin === 'terway' && (c.created ?? '') >= '2020-08-10';
};

/** What CCM attaches for one port: `serverId|port|weight` rows (clbv1/vgroups.go). */
function expectedBackends(
  c: ClusterSnapshot,
  s: K8sService,
  port: { nodePort?: number; targetPort?: number | string },
): string[] {
  const { nodes, endpointSlices } = k8s(c);
  const eps = endpointSlices
    .filter((e) => e.namespace === s.namespace && e.serviceName === s.name)
    .flatMap((e) => e.endpoints.filter((p) => p.ready && !p.terminating));
  const eligible = nodes.filter((n) => n.ready === true && !('node-role.kubernetes.io/master' in n.labels));
  if (isEni(c, s)) {
    const region = regionOf(c);
    const eniOfIp = new Map<string, string>();
    const raw = JSON.parse(
      readFileSync(
        join(SAMPLE, 'accounts', c.accountId, 'regions', c.regionId, 'ecs-instances.json'),
        'utf8',
      ),
    ) as {
      NetworkInterfaces?: {
        NetworkInterface: {
          NetworkInterfaceId: string;
          PrivateIpSets?: { PrivateIpSet: { PrivateIpAddress: string }[] };
        }[];
      };
    }[];
    for (const i of raw)
      for (const eni of i.NetworkInterfaces?.NetworkInterface ?? [])
        for (const ip of eni.PrivateIpSets?.PrivateIpSet ?? [])
          eniOfIp.set(ip.PrivateIpAddress, eni.NetworkInterfaceId);
    expect(region.ecsInstances?.length).toBeGreaterThan(0);
    return eps.map((e) => `${eniOfIp.get(e.addresses[0]) ?? 'no-eni'}|${String(port.targetPort)}|100`).sort();
  }
  if (s.externalTrafficPolicy === 'Local') {
    const perNode = new Map<string, number>();
    for (const e of eps) if (e.nodeName) perNode.set(e.nodeName, (perNode.get(e.nodeName) ?? 0) + 1);
    // CCM v1.9.3.164 up to v1.9.3.276 set Local weights as percentages, floor(100 x pods on node / pods)
    // (seeds 000/001 "16, 33, 50"; ccm-behaviour.md 2); later versions set the pod count.
    const build = /^v1\.9\.3\.(\d+)-/.exec(c.ccmVersion ?? '')?.[1];
    const percent = build !== undefined && Number(build) >= 164 && Number(build) < 276;
    const weight = (n: number) => (percent ? Math.floor((100 * n) / eps.length) : n);
    return eligible
      .filter((n) => perNode.has(n.name))
      .map((n) => `${n.ecsInstanceId}|${port.nodePort}|${weight(perNode.get(n.name) ?? 0)}`)
      .sort();
  }
  return eligible.map((n) => `${n.ecsInstanceId}|${port.nodePort}|100`).sort();
}

/** Allowed by a set of RAM statements (wildcards `*`, `?`; explicit Deny wins). Independent of libs/domain. */
function allowed(statements: RamStatement[], action: string): boolean {
  const match = (p: string) =>
    new RegExp(
      `^${p
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
      'i',
    ).test(action);
  const covers = (s: RamStatement) =>
    s.actions.length ? s.actions.some(match) : s.notActions.length > 0 && !s.notActions.some(match);
  if (statements.some((s) => s.effect === 'Deny' && covers(s))) return false;
  return statements.some((s) => s.effect === 'Allow' && covers(s));
}

function dirSize(dir: string): number {
  return readdirSync(dir).reduce((n, f) => {
    const p = join(dir, f);
    return n + (statSync(p).isDirectory() ? dirSize(p) : statSync(p).size);
  }, 0);
}

beforeAll(() => {
  fleet = loadFleetDirectory(SAMPLE);
  ids = JSON.parse(readFileSync(join(SAMPLE, 'ids.json'), 'utf8')) as SampleIds;
});

describe('sample fleet: shape', () => {
  it('has two numeric accounts, each with cn-beijing and cn-hangzhou, and six ACK clusters', () => {
    expect(fleet.name).toBe('sample');
    expect(fleet.accounts.map((a) => a.accountId)).toEqual(['1234567890123456', '1987654321098765']);
    for (const a of fleet.accounts)
      expect(a.regions.map((r) => r.regionId)).toEqual(['cn-beijing', 'cn-hangzhou']);
    const clusters = fleet.accounts.flatMap((a) => a.regions.flatMap((r) => r.clusters));
    expect(clusters.map((c) => c.name).sort()).toEqual([
      'arena',
      'batch-legacy',
      'data-platform',
      'payments-legacy',
      'preview-envs',
      'storefront',
    ]);
    for (const c of clusters) {
      expect(c.clusterId).toMatch(/^c[0-9a-f]{32}$/);
      expect(c.vpcId).toMatch(/^vpc-(bp1|2ze)[a-z0-9]{18}$/);
      expect(c.kubernetes).toBeDefined();
      expect(c.addons).toBeDefined();
    }
    expect(fleet.coverage.filter((c) => c.status === 'failed')).toEqual([]);
  });

  it('describes the six clusters as the README says (type, spec, plugin, CCM, NodePort range)', () => {
    const pick = (c: ClusterSnapshot) => ({
      type: c.clusterType,
      spec: c.clusterSpec,
      plugin: c.networkPlugin,
      ccm: c.ccmVersion,
      range: `${c.nodePortRange.from}-${c.nodePortRange.to}`,
      rangeSource: c.nodePortRange.source,
    });
    expect(pick(cluster('payments-legacy'))).toEqual({
      type: 'Kubernetes',
      spec: undefined,
      plugin: 'flannel',
      ccm: 'v1.9.3.313-g748f81e-aliyun',
      range: '30000-40000',
      rangeSource: 'kube-apiserver-flag',
    });
    expect(pick(cluster('storefront'))).toEqual({
      type: 'ManagedKubernetes',
      spec: 'ack.pro.small',
      plugin: 'flannel',
      ccm: 'v2.10.0',
      range: '30000-32767',
      rangeSource: 'control_plane_config',
    });
    expect(pick(cluster('data-platform'))).toEqual({
      type: 'ManagedKubernetes',
      spec: 'ack.pro.small',
      plugin: 'terway',
      ccm: 'v2.12.3',
      range: '30000-32767',
      rangeSource: 'control_plane_config',
    });
    expect(pick(cluster('preview-envs'))).toEqual({
      type: 'ManagedKubernetes',
      spec: 'ack.standard',
      plugin: 'flannel',
      ccm: 'v2.11.4',
      range: '30000-32767',
      rangeSource: 'default',
    });
    expect(pick(cluster('arena'))).toEqual({
      type: 'ManagedKubernetes',
      spec: 'ack.pro.small',
      plugin: 'flannel',
      ccm: 'v2.12.3',
      range: '30100-30199',
      rangeSource: 'control_plane_config',
    });
    expect(pick(cluster('batch-legacy'))).toEqual({
      type: 'ManagedKubernetes',
      spec: undefined,
      plugin: 'terway',
      ccm: 'v1.9.3.220-g24b1885-aliyun',
      range: '30000-32767',
      rangeSource: 'default',
    });
    expect(cluster('data-platform').created! > '2020-08-10').toBe(true);
  });

  it('has the expected counts of nodes, LoadBalancer Services and CLBs', () => {
    const count = (name: string) => ({
      nodes: k8s(cluster(name)).nodes.length,
      lbServices: lbServices(cluster(name)).length,
    });
    expect(count('payments-legacy')).toEqual({ nodes: 88, lbServices: 3 });
    expect(count('storefront')).toEqual({ nodes: 6, lbServices: 10 });
    expect(count('data-platform')).toEqual({ nodes: 4, lbServices: 3 });
    expect(count('preview-envs')).toEqual({ nodes: 3, lbServices: 42 });
    expect(count('arena')).toEqual({ nodes: 2, lbServices: 5 });
    expect(count('batch-legacy')).toEqual({ nodes: 3, lbServices: 3 });
    // arena also has one NodePort Service (game-sessions, 42 ports) in its narrowed NodePort range.
    expect(k8s(cluster('arena')).services.filter((s) => s.type === 'NodePort').map((s) => s.name)).toEqual([
      'game-sessions',
    ]);
    const lbCount = fleet.accounts.flatMap((a) =>
      a.regions.map((r) => `${a.accountId}/${r.regionId}=${lbsOf(r).length}`),
    );
    expect(lbCount).toEqual([
      '1234567890123456/cn-beijing=13',
      '1234567890123456/cn-hangzhou=7',
      '1987654321098765/cn-beijing=43',
      '1987654321098765/cn-hangzhou=3',
    ]);
    const masters = k8s(cluster('payments-legacy')).nodes.filter(
      (n) => 'node-role.kubernetes.io/master' in n.labels,
    );
    expect(masters).toHaveLength(3);
  });

  it('stays small enough to read and scan quickly (well under 5 MB)', () => {
    expect(dirSize(SAMPLE)).toBeLessThan(2.5 * 1024 * 1024);
  });
});

describe('sample fleet: cloud and Kubernetes agree', () => {
  it('every node names (providerID) an ECS instance of its region, in the cluster VPC, with its InternalIP', () => {
    for (const a of fleet.accounts)
      for (const r of a.regions)
        for (const c of r.clusters)
          for (const n of k8s(c).nodes) {
            expect(n.providerId, n.name).toBe(`${c.regionId}.${n.ecsInstanceId}`);
            const ecs = r.ecsInstances?.find((i) => i.instanceId === n.ecsInstanceId);
            expect(ecs, n.name).toBeDefined();
            expect(ecs?.vpcId).toBe(c.vpcId);
            expect(ecs?.privateIps).toEqual([n.internalIp]);
            expect(ecs?.tags['ack.aliyun.com']).toBe(c.clusterId);
            expect(c.nodeLocalPortRanges?.[n.ecsInstanceId ?? '']).toEqual({ from: 32768, to: 60999 });
          }
  });

  it('every ECS backend of every CLB is an ECS instance of the same region', () => {
    for (const a of fleet.accounts)
      for (const r of a.regions) {
        const known = new Set((r.ecsInstances ?? []).map((i) => i.instanceId));
        for (const lb of lbsOf(r))
          for (const b of [...lb.defaultBackendServers, ...lb.vServerGroups.flatMap((g) => g.backendServers)])
            if (b.type === 'ecs')
              expect(known.has(b.serverId), `${lb.loadBalancerId} -> ${b.serverId}`).toBe(true);
            else expect(b.serverId).toMatch(/^eni-(bp1|2ze)[a-z0-9]{17}$/);
      }
  });

  it('CCM ownership tags: kubernetes.do.not.delete = "a" + Service UID (32 chars) and ack.aliyun.com = cluster id (CCM >= v1.9.3.313); only the orphan has no Service', () => {
    const orphans: string[] = [];
    const reusedOwn: string[] = [];
    const untaggedCluster: string[] = [];
    for (const a of fleet.accounts)
      for (const r of a.regions)
        for (const lb of lbsOf(r)) {
          const owner = lb.tags['kubernetes.do.not.delete'];
          if (owner === undefined) continue;
          expect(owner).toMatch(/^a[0-9a-f]{31}$/);
          expect(lb.name).toBe(owner);
          const clusterTag = lb.tags['ack.aliyun.com'];
          // Before v1.9.3.313 CCM tagged only kubernetes.do.not.delete (ccm-behaviour.md 9): find the cluster by UID.
          const c =
            clusterTag !== undefined
              ? r.clusters.find((x) => x.clusterId === clusterTag)
              : r.clusters.find((x) => lbServices(x).some((s) => defaultLbName(s.uid) === owner));
          expect(c, lb.loadBalancerId).toBeDefined();
          if (clusterTag === undefined && c) untaggedCluster.push(`${c.name} ${c.ccmVersion ?? ''}`);
          const svc = c ? lbServices(c).find((s) => defaultLbName(s.uid) === owner) : undefined;
          if (!svc) orphans.push(lb.loadBalancerId);
          else if (svc.annotations[REUSE_ANNOTATION] !== undefined) reusedOwn.push(`${svc.namespace}/${svc.name}`);
        }
    // Deliberate faults: catalog pasted its own CLB into loadbalancer-id (LB_CCM_CREATED_MARKED_REUSED);
    // batch-legacy's reports/api CLB was created by CCM v1.9.3.220, before the ack.aliyun.com tag.
    expect(reusedOwn).toEqual(['storefront/catalog']);
    expect(untaggedCluster).toEqual(['batch-legacy v1.9.3.220-g24b1885-aliyun']);
    const sf = ids.storefront as ClusterIds;
    expect(orphans).toEqual([sf.orphanLoadBalancerId]);
    const orphan = lbById(regionOf(cluster('storefront')), sf.orphanLoadBalancerId ?? '');
    expect(orphan.tags['kubernetes.do.not.delete']).toBe(defaultLbName(sf.orphanServiceUid ?? ''));
    expect(k8s(cluster('storefront')).services.some((s) => s.uid === sf.orphanServiceUid)).toBe(false);
  });

  it('the API server CLB of each cluster is intranet, in the cluster VPC, tagged ack.aliyun.com only, and no Service owns it', () => {
    for (const a of fleet.accounts)
      for (const r of a.regions)
        for (const c of r.clusters) {
          const lb = lbById(r, c.apiServerLoadBalancerId ?? '');
          expect(lb.tags).toEqual({ 'ack.aliyun.com': c.clusterId });
          expect(lb.addressType).toBe('intranet');
          expect(lb.vpcId).toBe(c.vpcId);
          expect(lb.listeners.map((l) => l.port)).toEqual([6443]);
          expect(lb.defaultBackendServers.length).toBeGreaterThan(0);
        }
  });

  it('console-created CLBs carry no CCM tags and no CCM-named listener or vServer group', () => {
    const console = ids.consoleLoadBalancer as LbIds;
    const lb = lbById(regionOf(console), console.loadBalancerId);
    expect(Object.keys(lb.tags).sort()).toEqual(['env', 'owner']);
    expect(lb.vServerGroups).toEqual([]);
    expect(lb.listeners.every((l) => !CCM_VGROUP_NAME.test(l.description ?? ''))).toBe(true);
    expect(lb.defaultBackendServers).toHaveLength(2);
  });

  it('each vServer group, listener and backend description names an existing Service port (except the orphan)', () => {
    const sf = ids.storefront as ClusterIds;
    for (const a of fleet.accounts)
      for (const r of a.regions)
        for (const lb of lbsOf(r)) {
          if (lb.loadBalancerId === sf.orphanLoadBalancerId) continue;
          for (const g of lb.vServerGroups) {
            const m = CCM_VGROUP_NAME.exec(g.name);
            expect(m, g.name).not.toBeNull();
            if (!m) continue;
            const c = r.clusters.find((x) => x.clusterId === m[4]);
            const svc = c ? lbServices(c).find((s) => s.name === m[2] && s.namespace === m[3]) : undefined;
            expect(svc, g.name).toBeDefined();
            if (!c || !svc) continue;
            const eni = isEni(c, svc);
            expect(
              svc.ports.some((p) => String(eni ? p.targetPort : p.nodePort) === m[1]),
              g.name,
            ).toBe(true);
            for (const b of g.backendServers) expect(b.description).toBe(g.name);
          }
          for (const l of lb.listeners) {
            const m = CCM_VGROUP_NAME.exec(l.description ?? '');
            if (!m) continue;
            const c = r.clusters.find((x) => x.clusterId === m[4]);
            const svc = c ? lbServices(c).find((s) => s.name === m[2] && s.namespace === m[3]) : undefined;
            expect(
              svc?.ports.some((p) => p.port === Number(m[1]) && p.port === l.port),
              l.description,
            ).toBe(true);
          }
        }
  });

  it("each attached Service's vServer groups hold exactly the backends CCM builds (Cluster / Local / ENI), and its ingress is the CLB address", () => {
    let checked = 0;
    const ingressWithoutClb: string[] = [];
    for (const a of fleet.accounts)
      for (const r of a.regions)
        for (const c of r.clusters)
          for (const s of lbServices(c)) {
            if (s.ingress.length === 0) continue;
            const lb = lbsOf(r).find((l) => l.address === s.ingress[0].ip);
            if (!lb) {
              ingressWithoutClb.push(`${s.namespace}/${s.name}`);
              continue;
            }
            if (ccmMajor(c) >= 2) {
              expect(s.labels['service.k8s.alibaba/loadbalancer-id']).toBe(lb.loadBalancerId);
              expect(s.finalizers).toContain('service.k8s.alibaba/resources');
            }
            for (const p of s.ports) {
              const name = `k8s/${isEni(c, s) ? String(p.targetPort) : String(p.nodePort)}/${s.name}/${s.namespace}/${c.clusterId}`;
              const g = lb.vServerGroups.find((x) => x.name === name);
              expect(g, name).toBeDefined();
              const actual = (g?.backendServers ?? [])
                .map((b) => `${b.serverId}|${String(b.port)}|${b.weight}`)
                .sort();
              expect(actual, name).toEqual(expectedBackends(c, s, p));
              expect(actual.length).toBeGreaterThan(0);
              checked += 1;
            }
          }
    // payments-legacy 2 + 1 + 2, data-platform 2 + 1, preview-envs 42; storefront catalog 1, shop-api 2,
    // reviews 1, status-page 1, web 2, wiki 1; arena matchmaker 41, status-page 1, status-api 1, dashboard 1;
    // batch-legacy exporter 1, api 1.
    expect(checked).toBe(2 + 1 + 2 + 2 + 1 + 42 + (1 + 2 + 1 + 1 + 2 + 1) + (41 + 1 + 1 + 1) + (1 + 1));
    // Deliberate fault (LB_NOT_FOUND_FOR_SERVICE): its CLB was released in the console.
    expect(ingressWithoutClb).toEqual(['storefront/legacy-api']);
  });

  it('Pods, EndpointSlices and Services agree (selector labels, nodeName, pod IPs)', () => {
    for (const a of fleet.accounts)
      for (const r of a.regions)
        for (const c of r.clusters) {
          const { pods, endpointSlices, nodes } = k8s(c);
          const nodeNames = new Set(nodes.map((n) => n.name));
          for (const s of lbServices(c)) {
            const slice = endpointSlices.find((e) => e.namespace === s.namespace && e.serviceName === s.name);
            expect(slice, `${s.namespace}/${s.name}`).toBeDefined();
            const selected = pods.filter(
              (p) =>
                p.namespace === s.namespace &&
                Object.entries(s.selector ?? {}).every(([k, v]) => p.labels[k] === v),
            );
            expect(selected.map((p) => p.name).sort()).toEqual(
              (slice?.endpoints ?? []).map((e) => e.targetRefName).sort(),
            );
            for (const e of slice?.endpoints ?? []) {
              expect(nodeNames.has(e.nodeName ?? '')).toBe(true);
              expect(selected.find((p) => p.name === e.targetRefName)?.podIp).toBe(e.addresses[0]);
            }
          }
        }
  });
});

describe('sample fleet: the deliberate faults are present', () => {
  it('CLB backend quota: checkout-gateway (Cluster mode, 2 ports, 84 eligible nodes) has 168 backend entries on one CLB', () => {
    const c = cluster('payments-legacy');
    const svc = lbServices(c).find((s) => s.name === 'checkout-gateway');
    expect(svc?.externalTrafficPolicy).toBe('Cluster');
    const lb = lbsOf(regionOf(c)).find((l) => l.address === svc?.ingress[0]?.ip);
    expect(lb && entries(lb)).toBe(168);
    const nodes = k8s(c).nodes;
    expect(nodes.filter((n) => n.unschedulable)).toHaveLength(1); // cordoned: stays a backend
    expect(nodes.filter((n) => n.ready === false)).toHaveLength(1); // NotReady: not a backend
    expect(regionOf(c).quotas).toBeUndefined(); // documented default 200 applies
  });

  it('ECS attachment quota: each preview-envs node is a backend of 42 CLBs; the region quota is 50', () => {
    const c = cluster('preview-envs');
    const r = regionOf(c);
    for (const n of k8s(c).nodes) {
      const attached = lbsOf(r).filter((lb) =>
        lb.vServerGroups.some((g) => g.backendServers.some((b) => b.serverId === n.ecsInstanceId)),
      );
      expect(attached, n.name).toHaveLength(42);
    }
    const q = Object.fromEntries((r.quotas ?? []).map((x) => [x.quotaActionCode, x.totalQuota]));
    expect(q).toEqual({
      slb_quota_backendserver_attached_num: 50,
      slb_quota_backendservers_num: 200,
      slb_quota_instances_num: 50,
      slb_quota_listeners_num: 50,
    });
  });

  it('NodePort vs ephemeral ports: payments-legacy allows 30000-40000 while nodes use 32768-60999, and three NodePorts fall inside', () => {
    const c = cluster('payments-legacy');
    const inside = lbServices(c).flatMap((s) =>
      s.ports.filter((p) => (p.nodePort ?? 0) >= 32768).map((p) => `${s.namespace}/${s.name}:${p.nodePort}`),
    );
    expect(inside.sort()).toEqual([
      'kube-system/nginx-ingress-lb:34512',
      'kube-system/nginx-ingress-lb:38790',
      'payments/ledger-api:36218',
    ]);
    const apiservers = k8s(c).pods.filter(
      (p) => p.namespace === 'kube-system' && p.name.startsWith('kube-apiserver-'),
    );
    expect(apiservers).toHaveLength(3);
    for (const p of apiservers) expect(p.containerArgs).toContain('--service-node-port-range=30000-40000');
    for (const other of ['storefront', 'data-platform', 'preview-envs'])
      for (const s of lbServices(cluster(other)))
        for (const p of s.ports) expect(p.nodePort ?? 0).toBeLessThan(32768);
  });

  it('Cluster-mode blowup: Flannel Cluster-mode Services attach every eligible node while their pods run on few', () => {
    const c = cluster('payments-legacy');
    const svc = lbServices(c).find((s) => s.name === 'checkout-gateway');
    const slice = k8s(c).endpointSlices.find((e) => e.serviceName === 'checkout-gateway');
    expect(svc && new Set(slice?.endpoints.map((e) => e.nodeName)).size).toBe(3);
    const local = ['payments/ledger-api', 'kube-system/nginx-ingress-lb'];
    expect(
      lbServices(c)
        .filter((s) => s.externalTrafficPolicy === 'Local')
        .map((s) => `${s.namespace}/${s.name}`)
        .sort(),
    ).toEqual(local.sort());
    // storefront: only the ingress controller is Local; its other Services are Cluster mode on 6 nodes, where
    // the waste is below the blowup threshold (>= 2x and >= 10 extra backend entries).
    const sf = lbServices(cluster('storefront'));
    expect(sf.filter((s) => s.externalTrafficPolicy === 'Local').map((s) => s.name)).toEqual(['ingress-nginx-controller']);
    expect(k8s(cluster('storefront')).nodes).toHaveLength(6);
  });

  it('reuse of a CCM-created CLB: reporting/metabase points at analytics/superset’s CLB and CCM refused (seed 002 event)', () => {
    const c = cluster('data-platform');
    const metabase = lbServices(c).find((s) => s.name === 'metabase');
    const superset = lbServices(c).find((s) => s.name === 'superset');
    const lb = lbById(regionOf(c), metabase?.annotations[REUSE_ANNOTATION] ?? '');
    expect(lb.tags['kubernetes.do.not.delete']).toBe(defaultLbName(superset?.uid ?? ''));
    expect(metabase?.ingress).toEqual([]);
    const ev = k8s(c).events.find((e) => e.involvedObject.name === 'metabase');
    expect(ev?.type).toBe('Warning');
    expect(ev?.reason).toBe('SyncLoadBalancerFailed');
    expect(ev?.message).toContain(SEED_002_REUSE);
  });

  it('cross-VPC reuse: monitoring/thanos-query reuses an intranet CLB of another VPC (NetworkConflict event)', () => {
    const c = cluster('data-platform');
    const thanos = lbServices(c).find((s) => s.name === 'thanos-query');
    const shared = ids.sharedServicesLoadBalancer as LbIds;
    expect(thanos?.annotations[REUSE_ANNOTATION]).toBe(shared.loadBalancerId);
    const lb = lbById(regionOf(c), shared.loadBalancerId);
    expect(lb.addressType).toBe('intranet');
    expect(lb.vpcId).toBe(shared.vpcId);
    expect(lb.vpcId).not.toBe(c.vpcId);
    expect(lb.tags['kubernetes.reused.by.user']).toBe('true');
    expect(lb.tags['kubernetes.do.not.delete']).toBeUndefined();
    expect(k8s(c).events.find((e) => e.involvedObject.name === 'thanos-query')?.message).toContain(
      'NetworkConflict',
    );
  });

  it('unsupported annotation: payments/ledger-api sets connection-drain on CCM v1.9.3.313 (supported from v2.0.1)', () => {
    const svc = lbServices(cluster('payments-legacy')).find((s) => s.name === 'ledger-api');
    expect(svc?.annotations['service.beta.kubernetes.io/alibaba-cloud-loadbalancer-connection-drain']).toBe(
      'on',
    );
    expect(cluster('payments-legacy').ccmVersion).toBe('v1.9.3.313-g748f81e-aliyun');
  });

  it('RAM gap: the dedicated cluster’s master role policies lack vpc:CreateRouteEntries/DeleteRouteEntries; managed clusters name no master role', () => {
    const c = cluster('payments-legacy');
    const pl = ids['payments-legacy'] as ClusterIds;
    expect(c.ramRoleNames).toEqual([pl.masterRole]);
    const ram = fleet.accounts.find((a) => a.accountId === c.accountId)?.ram;
    expect(ram?.roles.map((x) => x.roleName)).toContain(pl.masterRole);
    // role-policies.json answers ListPoliciesForRole for every listed role, as a live scan reads it.
    expect(Object.keys(ram?.rolePolicies ?? {}).sort()).toEqual(ram?.roles.map((x) => x.roleName).sort());
    const attached = ram?.rolePolicies[pl.masterRole ?? ''] ?? [];
    expect(attached.some((p) => p.policyName.startsWith('k8sMasterRolePolicy-Ccm-'))).toBe(true);
    const statements = attached.flatMap(
      (ref) => ram?.policies.find((p) => p.policyName === ref.policyName)?.statements ?? [],
    );
    expect(statements.length).toBeGreaterThan(0);
    expect(allowed(statements, 'vpc:CreateRouteEntry')).toBe(true);
    expect(allowed(statements, 'slb:DescribeLoadBalancers')).toBe(true);
    for (const action of ['vpc:CreateRouteEntries', 'vpc:DeleteRouteEntries', 'nlb:ListAsynJobs'])
      expect(allowed(statements, action), action).toBe(false);
    for (const name of ['storefront', 'data-platform', 'preview-envs'])
      expect(cluster(name).ramRoleNames).toEqual([]);
    // The managed-only account has ACK's service roles and the audit role, and no master role.
    const ramB = fleet.accounts.find((a) => a.accountId === '1987654321098765')?.ram;
    expect(ramB?.roles.map((r) => r.roleName).sort()).toEqual(['AliyunCSDefaultRole', 'AliyunCSManagedKubernetesRole', 'fleet-audit-readonly']);
    expect(ramB?.roles.some((r) => r.roleName.startsWith('KubernetesMasterRole-'))).toBe(false);
  });

  it('the README names every resource it maps to a finding or a control', () => {
    const readme = readFileSync(join(SAMPLE, 'README.md'), 'utf8');
    const named: string[] = [];
    for (const v of Object.values(ids)) {
      const o = v as Partial<ClusterIds & LbIds>;
      for (const k of [
        'clusterId',
        'apiServerLoadBalancerId',
        'orphanLoadBalancerId',
        'loadBalancerId',
        'masterRole',
      ] as const)
        if (o[k]) named.push(o[k]);
    }
    for (const c of ['payments-legacy', 'data-platform', 'storefront', 'arena', 'batch-legacy'])
      for (const s of lbServices(cluster(c))) {
        const lb = lbsOf(regionOf(cluster(c))).find((l) => l.address === s.ingress[0]?.ip);
        if (lb) named.push(lb.loadBalancerId);
      }
    for (const id of named) expect(readme, id).toContain(id);
  });
});

describe('malformed fleets: validation names the file, the JSON path and the expectation', () => {
  const failure = (name: string): FleetValidationError => {
    try {
      readFleetDirectory(join(FLEETS, name));
    } catch (e) {
      if (e instanceof FleetValidationError) return e;
      throw e;
    }
    throw new Error(`${name} was accepted`);
  };
  const REGION = join('accounts', '1234567890123456', 'regions', 'cn-hangzhou');

  it('bad-json: load-balancers.json is not JSON', () => {
    const e = failure('bad-json');
    expect(e.file).toBe(join(REGION, 'load-balancers.json'));
    expect(e.jsonPath).toBe('$');
    expect(e.expected).toMatch(/^valid JSON/);
    expect(e.message).toContain('load-balancers.json');
  });

  it('missing-id: the second CLB has no LoadBalancerId', () => {
    const e = failure('missing-id');
    expect(e.file).toBe(join(REGION, 'load-balancers.json'));
    expect(e.jsonPath).toBe('$[1].LoadBalancerId');
    expect(e.expected).toBe('expected string, got missing');
  });

  it('wrong-type: an ECS private IP list is a string', () => {
    const e = failure('wrong-type');
    expect(e.file).toBe(join(REGION, 'ecs-instances.json'));
    expect(e.jsonPath).toBe('$[0].VpcAttributes.PrivateIpAddress.IpAddress');
    expect(e.expected).toBe('expected array, got string');
  });

  it('loadFleetDirectory refuses them too (nothing half-loaded)', () => {
    for (const name of ['bad-json', 'missing-id', 'wrong-type'])
      expect(() => loadFleetDirectory(join(FLEETS, name))).toThrow(FleetValidationError);
  });
});
