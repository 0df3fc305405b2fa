/**
 * LB_CONFIG_DRIFT's NLB part: the servers of a Service's server groups against what CCM builds, compared as CCM's
 * pkg/controller/service/nlbv2/server_groups.go `diff` / `isServerEqual` / `isServerManagedByMyService` do (tag
 * v2.14.0), with the weights of `setWeightBackends` (`DefaultServerWeight` 100, `default-weight`) unless
 * `ignore-weight-update` is on (`IgnoreWeightUpdate`). Each case runs with the Cluster-mode fast path
 * (`nlbClusterModeMatch`) and without it: the result must be the same, and the test says whether the fast path
 * proved it. Starts from the fixture `pass.nlb-as-ccm-builds`: Cluster-mode NLB Service `default/web` (CCM v2.12.4) on
 * nodes n1, n2, its group `sgp-web…` holding both on NodePort 30080 at weight 100.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult, FleetSnapshot, NlbServer } from '@app/domain';
import { judgeWithAndWithoutFastPaths, nlbFixture } from '../../test/nlb-fixture.util';

const ID = 'LB_CONFIG_DRIFT';
const NLB = 'nlb-web0000000000000001';
const GROUP = 'sgp-web00000000000001';
const NAME = 'k8s.30080.TCP.web.default.c0123456789abcdef0123456789abcdef';
const P = 'service.beta.kubernetes.io/alibaba-cloud-loadbalancer-';

/** The fixture, with the Service's LB annotations (suffix -> value) added. */
function fixture(annotations: Record<string, string> = {}) {
  const f = nlbFixture(ID, 'pass.nlb-as-ccm-builds');
  const svc = f.kubernetes.services[0]!;
  for (const [k, v] of Object.entries(annotations)) svc.annotations[`${P}${k}`] = v;
  return { ...f, servers: f.region.nlbServerGroups![0]!.servers, service: svc };
}

/**
 * The check's results for `default/web` with the fast paths on and off: they must be equal; returns the one result
 * and whether the fast path was taken.
 */
function judge(snapshot: FleetSnapshot): { result: CheckResult | undefined; fast: boolean } {
  return judgeWithAndWithoutFastPaths(ID, 'default/web', snapshot);
}

/** A server of the group as CCM writes it: `Ecs` on the NodePort, weight 100, the group name as description. */
function server(id: string, over: Partial<NlbServer> = {}): NlbServer {
  return { serverId: id, type: 'Ecs', port: 30080, weight: 100, status: 'Available', description: NAME, ...over };
}

const MATCH = { loadBalancerId: NLB, kind: 'NLB', serversToAdd: 0, serversToRemove: 0, serversToRewrite: 0 };

describe('LB_CONFIG_DRIFT, NLB part', () => {
  it('passes on the fast path when the group holds what CCM builds', () => {
    const { result, fast } = judge(fixture().snapshot);
    expect(fast).toBe(true);
    expect(result).toMatchObject({ status: 'pass', figures: MATCH });
    expect(result!.message).toBe(`The server groups of NLB ${NLB} hold what CCM builds for default/web`);
  });

  it('takes the fast path with an explicit server-group-type Instance and a default-weight of exactly 100', () => {
    const { result, fast } = judge(fixture({ 'server-group-type': 'Instance', 'default-weight': '100' }).snapshot);
    expect(fast).toBe(true);
    expect(result).toMatchObject({ status: 'pass', figures: MATCH });
  });

  it('servers out of id order (the mappers sort them) are no drift, proven by the full comparison', () => {
    const f = fixture();
    f.servers.reverse();
    expect(judge(f.snapshot)).toMatchObject({ fast: false, result: { status: 'pass', figures: MATCH } });
  });

  it('default-weight 50 (CCM v2.14.0) against servers at 100: both servers to rewrite, off the fast path', () => {
    const f = fixture({ 'default-weight': '50' });
    f.cluster.ccmVersion = 'v2.14.0';
    const { result, fast } = judge(f.snapshot);
    expect(fast).toBe(false);
    expect(result).toMatchObject({ status: 'fail', severity: 'warning', figures: { ...MATCH, serversToRewrite: 2 } });
    expect(result!.message).toBe(
      `NLB ${NLB} of default/web differs from what CCM builds (the next sync overwrites it): ${GROUP} (${NAME}): ` +
        'to rewrite Ecs:i-bp1node000000000001:30080@100 weight 100->50, Ecs:i-bp1node000000000002:30080@100 weight 100->50',
    );
  });

  it('default-weight before CCM v2.14.0 is not read: the servers at 100 match', () => {
    expect(judge(fixture({ 'default-weight': '50' }).snapshot)).toMatchObject({ fast: true, result: { status: 'pass' } });
  });

  it('a weight edited in the console is drift, unless ignore-weight-update is on (then on the fast path)', () => {
    const f = fixture();
    f.servers[0] = server('i-bp1node000000000001', { weight: 50 });
    const edited = judge(f.snapshot);
    expect(edited.fast).toBe(false);
    expect(edited.result).toMatchObject({ status: 'fail', figures: { serversToRewrite: 1, serversToAdd: 0, serversToRemove: 0 } });
    expect(edited.result!.message).toContain('to rewrite Ecs:i-bp1node000000000001:30080@50 weight 50->100');
    f.service.annotations[`${P}ignore-weight-update`] = 'on';
    expect(judge(f.snapshot)).toMatchObject({ fast: false, result: { status: 'pass', figures: MATCH } });
  });

  it('every server at another weight: drift on the full comparison, a match on the fast path with ignore-weight-update on', () => {
    const f = fixture();
    f.servers.forEach((s) => (s.weight = 50));
    const edited = judge(f.snapshot);
    expect(edited).toMatchObject({ fast: false, result: { status: 'fail', figures: { serversToRewrite: 2 } } });
    f.service.annotations[`${P}ignore-weight-update`] = 'on';
    expect(judge(f.snapshot)).toMatchObject({ fast: true, result: { status: 'pass', figures: MATCH } });
    // Read from CCM v2.11.2 on: an older CCM compares the weights whatever the annotation says.
    f.cluster.ccmVersion = 'v2.10.0';
    expect(judge(f.snapshot)).toMatchObject({ fast: false, result: { status: 'fail' } });
  });

  it('a server removed in the console is to add', () => {
    const f = fixture();
    f.servers.splice(1, 1);
    const { result, fast } = judge(f.snapshot);
    expect(fast).toBe(false);
    expect(result).toMatchObject({ status: 'fail', figures: { ...MATCH, serversToAdd: 1 } });
    expect(result!.message).toContain(`${GROUP} (${NAME}): to add Ecs:i-bp1node000000000002:30080@100`);
  });

  it('a CCM-described server of no node is to remove; a console server is left alone', () => {
    const f = fixture();
    f.servers.push(server('i-gone'), server('i-console', { description: 'added by hand' }));
    const { result, fast } = judge(f.snapshot);
    expect(fast).toBe(false);
    expect(result).toMatchObject({ status: 'fail', figures: { ...MATCH, serversToRemove: 1 } });
    expect(result!.message).toContain(': to remove Ecs:i-gone:30080@100');
    expect(result!.message).not.toContain('i-console');
  });

  it('a port or description edited in the console is rewritten, naming the field', () => {
    const f = fixture();
    f.servers[0] = server('i-bp1node000000000001', { port: 30081 });
    f.servers[1] = server('i-bp1node000000000002', { description: 'k8s.1.TCP.web.default.c0123456789abcdef0123456789abcdef' });
    const { result } = judge(f.snapshot);
    expect(result).toMatchObject({ status: 'fail', figures: { ...MATCH, serversToRewrite: 2 } });
    expect(result!.message).toContain(
      'to rewrite Ecs:i-bp1node000000000001:30081@100 port 30081->30080, ' +
        'Ecs:i-bp1node000000000002:30080@100 description "k8s.1.TCP.web.default.c0123456789abcdef0123456789abcdef"',
    );
  });

  it('lists at most three samples per kind, with the count of the others', () => {
    const f = fixture();
    f.servers.push(...['i-x1', 'i-x2', 'i-x3', 'i-x4', 'i-x5'].map((id) => server(id)));
    const { result } = judge(f.snapshot);
    expect(result!.figures).toMatchObject({ serversToRemove: 5 });
    expect(result!.message).toContain('to remove Ecs:i-x1:30080@100, Ecs:i-x2:30080@100, Ecs:i-x3:30080@100 (+2 more)');
  });

  it('names an Eni server by its IP and a server without port or weight as 0', () => {
    const f = fixture();
    f.servers.push(server('eni-abc', { type: 'Eni', serverIp: '172.16.0.9', port: undefined, weight: undefined }));
    expect(judge(f.snapshot).result!.message).toContain('to remove Eni:172.16.0.9:0@0');
  });

  it('a group CCM would create is drift: all its servers to add', () => {
    const f = fixture();
    f.region.nlbServerGroups![0]!.name = 'renamed-in-console';
    const { result, fast } = judge(f.snapshot);
    expect(fast).toBe(false);
    expect(result).toMatchObject({ status: 'fail', figures: { ...MATCH, serversToAdd: 2 } });
    expect(result!.message).toBe(`NLB ${NLB} of default/web differs from what CCM builds (the next sync overwrites it): server group ${NAME} missing (CCM creates it)`);
  });

  it('off the fast path, a Local-mode Service is compared with the full model', () => {
    const f = fixture();
    f.service.externalTrafficPolicy = 'Local';
    f.kubernetes.endpointSlices = [
      {
        namespace: 'default',
        name: 'web-abcde',
        serviceName: 'web',
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        endpoints: [{ addresses: ['172.16.0.1'], ready: true, terminating: false, nodeName: 'n1' }],
      },
    ];
    const { result, fast } = judge(f.snapshot);
    expect(fast).toBe(false);
    // Local mode: only n1 (one pod, weight 1); n2 is CCM's to remove.
    expect(result).toMatchObject({ status: 'fail', figures: { serversToAdd: 0, serversToRemove: 1, serversToRewrite: 1 } });
    expect(result!.message).toContain('to remove Ecs:i-bp1node000000000002:30080@100; to rewrite Ecs:i-bp1node000000000001:30080@100 weight 100->1');
  });

  it('skips when CCM fails the sync, with its message', () => {
    const f = fixture({ 'server-group-type': 'Eni' });
    const { result } = judge(f.snapshot);
    expect(result).toMatchObject({ status: 'skipped' });
    expect(result!.reason ?? result!.message).toBe(
      'CCM fails the sync of default/web before touching its vServer groups ("unsupport server ServerGroupType []"): nothing is predicted',
    );
  });

  it('skips when the Service has no NLB, and judges no Service being deleted', () => {
    const none = fixture();
    none.region.nlbs = [];
    const { result } = judge(none.snapshot);
    expect(result).toMatchObject({ status: 'skipped' });
    expect(result!.reason ?? result!.message).toBe('default/web has no NLB to compare (see LB_NOT_FOUND_FOR_SERVICE, SERVICE_LB_PENDING)');
    const deleting = fixture();
    deleting.service.deletionTimestamp = '2026-01-15T07:00:00Z';
    expect(judge(deleting.snapshot).result).toBeUndefined();
  });

  it('a port vgroup-port binds to a user group on a reused NLB is compared with that group, by id', () => {
    const f = fixture({ id: NLB, 'vgroup-port': 'sgp-user:80' });
    // A reusable NLB carries no CCM tag.
    f.region.nlbs![0]!.tags = {};
    f.region.nlbServerGroups!.push({
      serverGroupId: 'sgp-user',
      name: 'my-group',
      type: 'Instance',
      relatedLoadBalancerIds: [NLB],
      tags: {},
      servers: [server('i-bp1node000000000001')],
    });
    const { result, fast } = judge(f.snapshot);
    expect(fast).toBe(false);
    expect(result).toMatchObject({ status: 'fail', figures: { serversToAdd: 1, serversToRemove: 0 } });
    expect(result!.message).toContain('sgp-user (my-group): to add Ecs:i-bp1node000000000002:30080@100');
  });
});
