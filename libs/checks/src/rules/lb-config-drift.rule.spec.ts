/**
 * LB_CONFIG_DRIFT's CLB part: the vServer groups, backends, listeners, name and spec of a Service's CLB against what CCM
 * would set, compared the way CCM's clbv1 reconciles (pkg/controller/service/clbv1/vgroups.go `diff`,
 * `isBackendManagedByMyService`; listeners.go; loadbalancer.go Update), and the reasons it makes no claim. Seeds 000/001/003
 * "Why was the configuration of my SLB instance modified?": CCM overwrites console edits at the next reconcile. Each case
 * runs with the Cluster-mode fast path (`clusterModeMatch`) and without it: the results must be the same, and the test
 * says whether the fast path proved the match. Starts from the fixture `pass.cluster-mode-in-sync`: Cluster-mode Service
 * `default/web` (CCM v2.12.3) on nodes i-bp1node0000..0002, its CLB lb-bp1web000000000000 (pay-by-spec slb.s1.small)
 * with CCM's vServer group rsp-bp1web0080 holding the three nodes on NodePort 30080 at weight 100 and CCM's TCP
 * listener on 80.
 */
import { describe, expect, it } from 'vitest';
import type { BackendServer, CheckResult, FleetSnapshot, K8sEvent } from '@app/domain';
import { judgeWithAndWithoutFastPaths, nlbFixture } from '../../test/nlb-fixture.util';
import { FROZEN_NOW, P } from '../../test/factories';
import { runAudit } from '../audit.engine';
import { CHECKS } from '../check.registry';

const ID = 'LB_CONFIG_DRIFT';
const CLB = 'lb-bp1web000000000000';
const CLUSTER = 'c0123456789abcdef0123456789abcdef';
const GROUP = `k8s/30080/web/default/${CLUSTER}`;
const onlyDrift = Object.fromEntries(CHECKS.filter((c) => c.id !== ID).map((c) => [c.id, { enabled: false }]));

/** The fixture `file` (default `pass.cluster-mode-in-sync`) with the Service's LB annotations (suffix -> value) added. */
function fixture(annotations: Record<string, string> = {}, file = 'pass.cluster-mode-in-sync') {
  const f = nlbFixture(ID, file);
  const service = f.kubernetes.services[0]!;
  for (const [k, v] of Object.entries(annotations)) service.annotations[`${P}${k}`] = v;
  const clb = f.region.loadBalancers?.[0];
  return { ...f, service, clb: clb!, group: clb?.vServerGroups[0] };
}

/**
 * The check's results for `default/web` with the fast paths on and off: they must be equal; returns the one result and
 * whether the fast path was taken.
 */
function judge(snapshot: FleetSnapshot): { result: CheckResult | undefined; fast: boolean } {
  return judgeWithAndWithoutFastPaths(ID, 'default/web', snapshot);
}

/** The one result for `default/web`, with the fast path on and off alike. */
function result(snapshot: FleetSnapshot): CheckResult {
  const { result: r } = judge(snapshot);
  expect(r).toBeDefined();
  return r!;
}

/** A backend as CCM writes it in the Service's group: `ecs` on the NodePort, weight 100, the group name as description. */
function backend(serverId: string, over: Partial<BackendServer> = {}): BackendServer {
  return { serverId, port: 30080, weight: 100, type: 'ecs', description: GROUP, ...over };
}

const MATCH = { loadBalancerId: CLB, mode: 'cluster', vServerGroups: 1, backendsCompared: 3, backendsToAdd: 0, backendsToRemove: 0, backendsToRewrite: 0 };
const OVERWRITES = '; CCM overwrites this at the next reconcile';

describe('LB_CONFIG_DRIFT, CLB part', () => {
  it('a CLB holding what CCM sets passes on the fast path, counting groups and backends', () => {
    const { result: r, fast } = judge(fixture().snapshot);
    expect(fast).toBe(true);
    expect(r).toMatchObject({ status: 'pass' });
    expect(r!.figures).toEqual(MATCH);
    expect(r!.message).toBe(`CLB ${CLB} of default/web matches what CCM would set (1 vServer group, 3 backends)`);
  });

  it('Local mode with pod-count weights passes on the full comparison; CCM before v1.9.3.276: weights not compared', () => {
    const local = judge(fixture({}, 'pass.local-mode-pod-weights').snapshot);
    expect(local.fast).toBe(false);
    expect(local.result!.figures).toEqual({ ...MATCH, mode: 'local', backendsCompared: 2 });
    expect(local.result!.message).toBe(`CLB ${CLB} of default/web matches what CCM would set (1 vServer group, 2 backends)`);
    const old = result(fixture({}, 'pass.old-ccm-percentage-weights').snapshot);
    expect(old.figures).toEqual({ ...MATCH, mode: 'local', backendsCompared: 2, weightsCompared: false });
  });

  it('a removed node and a console weight: to add and to rewrite, with samples, figures and the differences', () => {
    const r = result(fixture({}, 'fail.console-removed-backend-and-weight').snapshot);
    expect(r).toMatchObject({ status: 'fail', severity: 'warning' });
    expect(r.message).toBe(
      `CLB ${CLB} of default/web differs from what CCM would set: 1 backend to add; 1 backend to rewrite (weight or description) ` +
        `(e.g. +i-bp1node0002:30080, ~i-bp1node0001 weight 30->100)${OVERWRITES}`,
    );
    expect(r.figures).toEqual({
      ...MATCH,
      backendsCompared: 2,
      backendsToAdd: 1,
      backendsToRewrite: 1,
      differences: ['1 backend to add', '1 backend to rewrite (weight or description)'],
      ccmSyncFailing: false,
    });
  });

  it('a console weight is no drift with ignore-weight-update on (CCM v2.11.1 and later), on the fast path', () => {
    const f = fixture({ 'ignore-weight-update': 'on' });
    for (const b of f.group!.backendServers) b.weight = 30;
    const { result: r, fast } = judge(f.snapshot);
    expect([r!.status, fast]).toEqual(['pass', true]);
    // Weights that differ between backends are not one uniform group: the full comparison proves the match.
    f.group!.backendServers[0]!.weight = 100;
    expect(judge(f.snapshot)).toMatchObject({ result: { status: 'pass' }, fast: false });
    delete f.service.annotations[`${P}ignore-weight-update`];
    expect(result(f.snapshot).figures).toMatchObject({ backendsToRewrite: 2 });
  });

  it('CCM-described backends of no node are to remove; a description edited is rewritten; plural counts', () => {
    const f = fixture();
    f.group!.backendServers.push(backend('i-gone1'), backend('i-gone2'));
    f.group!.backendServers[0]!.description = 'console';
    const r = result(f.snapshot);
    expect(r.message).toBe(
      `CLB ${CLB} of default/web differs from what CCM would set: 2 backends to remove; 1 backend to rewrite (weight or description) ` +
        `(e.g. -i-gone1:30080, -i-gone2:30080, ~i-bp1node0000 description)${OVERWRITES}`,
    );
    expect(r.figures).toMatchObject({ backendsCompared: 5, backendsToRemove: 2, backendsToRewrite: 1 });
  });

  it('the samples stop at four', () => {
    const f = fixture();
    f.group!.backendServers = [backend('i-gone1', { port: undefined }), backend('i-gone2'), backend('i-gone3')];
    const r = result(f.snapshot);
    expect(r.message).toBe(
      `CLB ${CLB} of default/web differs from what CCM would set: 3 backends to add; 3 backends to remove ` +
        `(e.g. +i-bp1node0000:30080, +i-bp1node0001:30080, -i-gone1:, -i-gone2:30080)${OVERWRITES}`,
    );
  });

  it('a vServer group renamed in the console is missing; a CCM group of the Service no port needs is to delete', () => {
    const f = fixture();
    f.group!.name = 'my group';
    const r = result(f.snapshot);
    expect(r.message).toBe(`CLB ${CLB} of default/web differs from what CCM would set: 1 vServer group missing (${GROUP})${OVERWRITES}`);
    expect(r.figures).toMatchObject({ backendsCompared: 0, backendsToAdd: 0, differences: [`1 vServer group missing (${GROUP})`] });
    const stale = fixture();
    const names = [`k8s/30081/web/default/${CLUSTER}`, `k8s/30082/web/default/${CLUSTER}`, `k8s/30083/web/default/${CLUSTER}`];
    for (const [i, name] of names.entries()) stale.clb.vServerGroups.push({ vServerGroupId: `rsp-stale${i}`, name, backendServers: [] });
    // A group of another Service is not this Service's to delete.
    stale.clb.vServerGroups.push({ vServerGroupId: 'rsp-other', name: `k8s/30090/api/default/${CLUSTER}`, backendServers: [] });
    const { result: s, fast } = judge(stale.snapshot);
    expect(fast).toBe(false);
    expect(s!.message).toBe(`CLB ${CLB} of default/web differs from what CCM would set: 3 stale vServer groups to delete (${names[0]}, ${names[1]} (+1 more))${OVERWRITES}`);
  });

  it('listeners: one recreated with another protocol, a stale CCM listener of the Service, one missing, one misrouted', () => {
    const changed = result(fixture({}, 'fail.console-listener-change').snapshot);
    expect(changed.message).toBe(
      `CLB ${CLB} of default/web differs from what CCM would set: listener 80 is http, CCM sets tcp; listener tcp/8080 to delete${OVERWRITES}`,
    );
    expect(changed.figures).toMatchObject({ backendsToAdd: 0, differences: ['listener 80 is http, CCM sets tcp', 'listener tcp/8080 to delete'] });
    const missing = fixture();
    missing.clb.listeners = [{ ...missing.clb.listeners[0]!, description: 'user listener', port: 8443 }];
    expect(result(missing.snapshot).message).toBe(`CLB ${CLB} of default/web differs from what CCM would set: listener tcp/80 missing${OVERWRITES}`);
    const misrouted = fixture();
    misrouted.clb.listeners[0]!.vServerGroupId = 'rsp-other';
    const { result: m, fast } = judge(misrouted.snapshot);
    expect(fast).toBe(false);
    expect(m!.message).toBe(
      `CLB ${CLB} of default/web differs from what CCM would set: listener tcp/80 -> rsp-other forwards to another vServer group${OVERWRITES}`,
    );
    // A listener without a vServer group is not misrouted.
    delete misrouted.clb.listeners[0]!.vServerGroupId;
    expect(result(misrouted.snapshot).status).toBe('pass');
  });

  it('listeners are not compared where CCM does not manage them, or say why when protocol-port does not parse', () => {
    const reused = fixture({ id: CLB });
    delete reused.clb.tags['kubernetes.do.not.delete'];
    delete reused.clb.tags['ack.aliyun.com'];
    reused.clb.listeners = [];
    expect(result(reused.snapshot)).toMatchObject({ status: 'pass' });
    expect(result(reused.snapshot).figures).toEqual(MATCH);
    reused.service.annotations[`${P}force-override-listeners`] = 'true';
    expect(result(reused.snapshot).message).toBe(`CLB ${CLB} of default/web differs from what CCM would set: listener tcp/80 missing${OVERWRITES}`);
    const bad = fixture({ 'protocol-port': 'nonsense' });
    const r = result(bad.snapshot);
    expect(r.status).toBe('pass');
    expect(r.figures).toMatchObject({ note: expect.stringMatching(/^listeners not compared: /) });
    expect(r.message).toBe(`CLB ${CLB} of default/web matches what CCM would set (1 vServer group, 3 backends); ${String(r.figures!['note'])}`);
  });

  it('the name annotation, and the spec annotation on a pay-by-spec CLB only', () => {
    expect(result(fixture({ name: 'shop' }).snapshot).message).toBe(
      `CLB ${CLB} of default/web differs from what CCM would set: name "a5e4dbfc9c2ae4642b0335607860aef6" -> "shop"${OVERWRITES}`,
    );
    expect(result(fixture({ name: 'a5e4dbfc9c2ae4642b0335607860aef6' }).snapshot).status).toBe('pass');
    expect(result(fixture({ spec: 'slb.s2.small' }).snapshot).message).toBe(
      `CLB ${CLB} of default/web differs from what CCM would set: spec slb.s1.small -> slb.s2.small${OVERWRITES}`,
    );
    expect(result(fixture({ spec: 'slb.s1.small' }).snapshot).status).toBe('pass');
    const clcu = fixture({ spec: 'slb.s2.small' });
    clcu.clb.instanceChargeType = 'PayByCLCU';
    expect(result(clcu.snapshot).status).toBe('pass');
    const unknownCharge = fixture({ spec: 'slb.s2.small' });
    delete unknownCharge.clb.instanceChargeType;
    expect(result(unknownCharge.snapshot).status).toBe('fail');
    delete unknownCharge.clb.spec;
    expect(result(unknownCharge.snapshot).status).toBe('pass');
    const noSpec = fixture({ spec: 'slb.s2.small' });
    delete noSpec.clb.spec;
    expect(result(noSpec.snapshot).message).toBe(`CLB ${CLB} of default/web differs from what CCM would set: spec none -> slb.s2.small${OVERWRITES}`);
  });

  it("when CCM's syncs of the Service currently fail, the difference may be the failed sync", () => {
    const f = fixture({}, 'fail.console-removed-backend-and-weight');
    const event: K8sEvent = {
      namespace: 'default',
      name: 'web.1',
      type: 'Warning',
      reason: 'SyncLoadBalancerFailed',
      message: 'Error syncing load balancer: failed to ensure load balancer',
      involvedObject: { kind: 'Service', namespace: 'default', name: 'web' },
      count: 3,
      lastTimestamp: '2026-01-15T07:00:00Z',
    };
    f.kubernetes.events = [event];
    const r = result(f.snapshot);
    expect(r.message).toBe(
      `CLB ${CLB} of default/web differs from what CCM would set: 1 backend to add; 1 backend to rewrite (weight or description) ` +
        '(e.g. +i-bp1node0002:30080, ~i-bp1node0001 weight 30->100); ' +
        "CCM's syncs of this Service currently fail (SyncLoadBalancerFailed, see SERVICE_EVENT_ERROR), so this may be the failed sync rather than a console edit",
    );
    expect(r.figures).toMatchObject({ ccmSyncFailing: true });
  });

  it('skips without a CLB, without the add-ons (unless the backend type is annotated), and judges no Service being deleted', () => {
    expect(result(fixture({}, 'skipped.no-clb').snapshot)).toMatchObject({
      status: 'skipped',
      message: 'Not evaluated: default/web has no CLB to compare (see LB_NOT_FOUND_FOR_SERVICE, SERVICE_LB_PENDING)',
    });
    expect(result(fixture({}, 'skipped.addons-not-read').snapshot)).toMatchObject({
      status: 'skipped',
      message: `Not evaluated: add-ons of cluster ${CLUSTER} were not read: backend mode unknown`,
    });
    const typed = fixture({}, 'skipped.addons-not-read');
    typed.service.annotations['service.beta.kubernetes.io/backend-type'] = 'ecs';
    expect(result(typed.snapshot)).toMatchObject({ status: 'pass' });
    typed.service.annotations['service.beta.kubernetes.io/backend-type'] = '';
    expect(result(typed.snapshot)).toMatchObject({ status: 'skipped' });
    const deleting = fixture();
    deleting.service.deletionTimestamp = '2026-01-15T07:00:00Z';
    expect(judge(deleting.snapshot).result).toBeUndefined();
  });

  it("a CLB Service whose region's CLBs, or whose cluster's Kubernetes objects, were not read is skipped, naming the gap", () => {
    const slb = fixture();
    delete slb.region.loadBalancers;
    expect(result(slb.snapshot)).toMatchObject({ status: 'skipped', message: 'Not evaluated: CLB instances of cn-hangzhou were not read' });
    const k8s = fixture();
    delete k8s.cluster.kubernetes;
    const rs = runAudit(k8s.snapshot, { now: FROZEN_NOW, settings: { checks: onlyDrift } }).results;
    expect(rs).toHaveLength(1);
    expect(rs[0]).toMatchObject({ status: 'skipped', resource: { kind: 'Cluster', id: CLUSTER } });
    expect(rs[0]!.message).toMatch(/^Not evaluated: Kubernetes objects of cluster .* were not read/);
  });

  it('an NLB Service whose region NLBs were not read is skipped on the Service, naming the gap', () => {
    const f = nlbFixture(ID, 'skipped.nlb-not-read');
    const r = judge(f.snapshot).result!;
    expect(r.status).toBe('skipped');
    expect(r.message).toBe(
      'Not evaluated: NLB instances and server groups of cn-hangzhou were not read ' +
        '(accounts/1234567890123456/regions/cn-hangzhou/nlb/servers.json: missing, required by the fleet format (ENOENT))',
    );
  });

  it('skips a reused CLB that CCM refuses (tagged by CCM or ACK), naming the check that reports it', () => {
    const f = fixture({ id: CLB });
    expect(result(f.snapshot)).toMatchObject({
      status: 'skipped',
      message: `Not evaluated: CCM refuses to reuse CLB ${CLB} and changes nothing on it (see LB_REUSE_OF_CCM_CREATED)`,
    });
    delete f.clb.tags['kubernetes.do.not.delete'];
    expect(result(f.snapshot).status).toBe('skipped');
    delete f.clb.tags['ack.aliyun.com'];
    expect(result(f.snapshot).status).toBe('pass');
    f.clb.tags['kubernetes.do.not.delete'] = 'a5e4dbfc9c2ae4642b0335607860aef6';
    expect(result(f.snapshot).status).toBe('skipped');
    const apiServer = fixture({ id: CLB });
    apiServer.cluster.apiServerLoadBalancerId = CLB;
    expect(result(apiServer.snapshot).message).toBe(
      `Not evaluated: CCM refuses to reuse CLB ${CLB} and changes nothing on it (see LB_REUSE_OF_APISERVER)`,
    );
  });

  it("skips with CCM's message when it fails the sync before touching the vServer groups", () => {
    expect(result(fixture({ 'backend-label': 'nolabel' }).snapshot)).toMatchObject({
      status: 'skipped',
      message:
        'Not evaluated: CCM fails the sync of default/web before touching its vServer groups ("parse backend label: nolabel, [k1=v1,k2=v2]"): nothing is predicted',
    });
    const f = fixture({ id: CLB, 'vgroup-port': 'nonsense' });
    delete f.clb.tags['kubernetes.do.not.delete'];
    delete f.clb.tags['ack.aliyun.com'];
    expect(result(f.snapshot).message).toMatch(/^Not evaluated: CCM fails the sync of default\/web before touching its vServer groups \("vgroupid parse error: /);
  });

  it('a port vgroup-port binds to a user group on a reused CLB is compared with that group, by id', () => {
    const f = fixture({ id: CLB, 'vgroup-port': 'rsp-user:80' });
    delete f.clb.tags['kubernetes.do.not.delete'];
    delete f.clb.tags['ack.aliyun.com'];
    f.clb.vServerGroups = [{ vServerGroupId: 'rsp-user', name: 'user group', backendServers: f.group!.backendServers.slice(0, 2) }];
    const r = result(f.snapshot);
    expect(r.figures).toMatchObject({ backendsCompared: 2, backendsToAdd: 1 });
    f.clb.vServerGroups = [];
    expect(result(f.snapshot).message).toMatch(/can not find vgroupId rsp-user in lb lb-bp1web000000000000/);
    f.clb.vServerGroups = [{ vServerGroupId: 'rsp-user', name: GROUP, backendServers: [] }];
    expect(result(f.snapshot).message).toMatch(/cannot reuse a ccm created vgroup rsp-user for slb lb-bp1web000000000000/);
  });

  it('the fast path proves only an exact match: another node, port, weight or description goes to the full comparison', () => {
    const edits: [string, (f: ReturnType<typeof fixture>) => void][] = [
      ['another node', (f) => (f.group!.backendServers[2]!.serverId = 'i-bp1node0009')],
      ['another port', (f) => (f.group!.backendServers[1]!.port = 30081)],
      ['another weight', (f) => (f.group!.backendServers[1]!.weight = 50)],
      ['another description', (f) => (f.group!.backendServers[1]!.description = 'console')],
      ['one backend more', (f) => f.group!.backendServers.push(backend('i-extra'))],
      ['an eni backend', (f) => (f.group!.backendServers[0]!.type = 'eni')],
    ];
    for (const [what, edit] of edits) {
      const f = fixture();
      edit(f);
      const { result: r, fast } = judge(f.snapshot);
      expect([what, fast, r!.status]).toEqual([what, false, 'fail']);
    }
  });
});

describe('LB_CONFIG_DRIFT, CLB part: figures and samples', () => {
  it('names at most four samples over adds, removes and rewrites', () => {
    const f = fixture();
    f.group!.backendServers = [backend('i-bp1node0000', { weight: 50 }), backend('i-gone1'), backend('i-gone2')];
    expect(result(f.snapshot).message).toBe(
      `CLB ${CLB} of default/web differs from what CCM would set: 2 backends to add; 2 backends to remove; 1 backend to rewrite (weight or description) ` +
        `(e.g. +i-bp1node0001:30080, +i-bp1node0002:30080, -i-gone1:30080, -i-gone2:30080)${OVERWRITES}`,
    );
  });

  it('a failing result keeps the listener note and, before CCM v1.9.3.276, says weights were not compared', () => {
    const noted = fixture({ 'protocol-port': 'nonsense' });
    noted.group!.backendServers.pop();
    expect(result(noted.snapshot).figures).toMatchObject({ backendsToAdd: 1, note: expect.stringMatching(/^listeners not compared: /) });
    const old = fixture({}, 'pass.old-ccm-percentage-weights');
    old.group!.backendServers.pop();
    expect(result(old.snapshot)).toMatchObject({ status: 'fail', figures: { backendsToAdd: 1, weightsCompared: false } });
  });

  it('two ports in sync: two groups, every node compared once per group, on the fast path', () => {
    const f = fixture();
    f.service.ports.push({ name: 'https', protocol: 'TCP', port: 443, targetPort: 8443, nodePort: 30443 });
    const name = `k8s/30443/web/default/${CLUSTER}`;
    f.clb.vServerGroups.push({
      vServerGroupId: 'rsp-443',
      name,
      backendServers: f.group!.backendServers.map((b) => ({ ...b, port: 30443, description: name })),
    });
    f.clb.listeners.push({ port: 443, protocol: 'tcp', description: `k8s/443/web/default/${CLUSTER}`, vServerGroupId: 'rsp-443' });
    const { result: r, fast } = judge(f.snapshot);
    expect(fast).toBe(true);
    expect(r!.figures).toEqual({ ...MATCH, vServerGroups: 2, backendsCompared: 6 });
  });

  it('Local mode with pods on the second and third nodes only: in sync', () => {
    const f = fixture({}, 'pass.local-mode-pod-weights');
    const eps = f.kubernetes.endpointSlices[0]!.endpoints;
    eps[0]!.nodeName = 'cn-hangzhou.192.168.0.12';
    eps[1]!.nodeName = 'cn-hangzhou.192.168.0.12';
    f.group!.backendServers = [backend('i-bp1node0001', { weight: 1 }), backend('i-bp1node0002', { weight: 2 })];
    expect(result(f.snapshot)).toMatchObject({ status: 'pass', figures: { mode: 'local', backendsCompared: 2 } });
  });

  it('a vgroup-port group is found by id among the CLB groups', () => {
    const f = fixture({ id: CLB, 'vgroup-port': 'rsp-user:80' });
    delete f.clb.tags['kubernetes.do.not.delete'];
    delete f.clb.tags['ack.aliyun.com'];
    const user = { vServerGroupId: 'rsp-user', name: 'user group', backendServers: f.group!.backendServers.slice(0, 1) };
    f.clb.vServerGroups = [{ vServerGroupId: 'rsp-first', name: 'first group', backendServers: [] }, user];
    expect(result(f.snapshot).figures).toMatchObject({ backendsCompared: 1, backendsToAdd: 2 });
  });

  it('the fast path: no eligible node and an empty group match; two nodes of one ECS id, or every backend on another port, do not', () => {
    const empty = fixture();
    empty.kubernetes.nodes = [];
    empty.group!.backendServers = [];
    expect(judge(empty.snapshot)).toMatchObject({ result: { status: 'pass', figures: { ...MATCH, backendsCompared: 0 } }, fast: true });
    const twin = fixture();
    twin.kubernetes.nodes[1]!.ecsInstanceId = twin.kubernetes.nodes[0]!.ecsInstanceId;
    expect(judge(twin.snapshot).fast).toBe(false);
    const moved = fixture();
    for (const b of moved.group!.backendServers) b.port = 30081;
    expect(judge(moved.snapshot)).toMatchObject({ result: { status: 'fail', figures: { backendsToAdd: 3, backendsToRemove: 3 } }, fast: false });
  });
});

describe('LB_CONFIG_DRIFT, NLB part: messages and the fast path', () => {
  const NLB = 'nlb-web0000000000000001';
  const NAME = `k8s.30080.TCP.web.default.${CLUSTER}`;
  /** The NLB fixture with the Service's LB annotations added. */
  const nlb = (annotations: Record<string, string> = {}) => {
    const f = nlbFixture(ID, 'pass.nlb-as-ccm-builds');
    for (const [k, v] of Object.entries(annotations)) f.kubernetes.services[0]!.annotations[`${P}${k}`] = v;
    return { ...f, group: f.region.nlbServerGroups![0]! };
  };
  const prefix = `NLB ${NLB} of default/web differs from what CCM builds (the next sync overwrites it): sgp-web00000000000001 (${NAME}): `;

  it("skips with CCM's message when the backend-label does not parse", () => {
    expect(result(nlb({ 'backend-label': 'nolabel' }).snapshot)).toMatchObject({
      status: 'skipped',
      message:
        'Not evaluated: CCM fails the sync of default/web before touching its vServer groups ("parse backend label: nolabel, [k1=v1,k2=v2]"): nothing is predicted',
    });
  });

  it('names each field to rewrite, an empty description as ""; a server of no node by its id, not its IP', () => {
    const f = nlb();
    f.group.servers[0] = { ...f.group.servers[0]!, port: 30081, weight: 50 };
    delete f.group.servers[1]!.description;
    f.group.servers.push({ serverId: 'i-gone', serverIp: '192.168.9.9', type: 'Ecs', port: 30080, weight: 100, description: NAME });
    expect(result(f.snapshot).message).toBe(
      `${prefix}to remove Ecs:i-gone:30080@100; to rewrite Ecs:i-bp1node000000000001:30081@50 port 30081->30080, weight 50->100, ` +
        'Ecs:i-bp1node000000000002:30080@100 description ""',
    );
  });

  it("a server described with another key of this Service is CCM's to remove; one of another Service is left alone", () => {
    const f = nlb();
    f.group.servers.push(
      { serverId: 'i-mine', type: 'Ecs', port: 30080, weight: 100, description: `k8s.30443.TCP.web.default.${CLUSTER}` },
      { serverId: 'i-theirs', type: 'Ecs', port: 30080, weight: 100, description: `k8s.30080.TCP.api.default.${CLUSTER}` },
    );
    expect(result(f.snapshot).message).toBe(`${prefix}to remove Ecs:i-mine:30080@100`);
  });

  it('the fast path: no node and an empty group match; servers of no node, or every server on another port, do not', () => {
    const empty = nlb();
    empty.kubernetes.nodes = [];
    empty.group.servers = [];
    expect(judge(empty.snapshot)).toMatchObject({ result: { status: 'pass' }, fast: true });
    const left = nlb();
    left.kubernetes.nodes = [];
    expect(judge(left.snapshot)).toMatchObject({ result: { status: 'fail', figures: { serversToRemove: 2 } }, fast: false });
    const moved = nlb();
    for (const s of moved.group.servers) s.port = 30081;
    expect(judge(moved.snapshot)).toMatchObject({ result: { status: 'fail', figures: { serversToRewrite: 2 } }, fast: false });
  });
});
