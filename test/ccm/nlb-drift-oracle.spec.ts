/**
 * End-to-end oracle of the NLB side of the CCM model, through LB_CONFIG_DRIFT and the audit engine, as
 * `ccm-drift-oracle.spec.ts` is for CLB:
 * - every NLB acceptance case CCM syncs (test/ccm/nlb-cases/*.yaml with `groups`) is written as a fleet whose NLB
 *   server groups hold exactly what CCM sets, described as CCM describes them: LB_CONFIG_DRIFT must pass; negative
 *   controls (one server removed, one CCM-described server added, one re-weighted, one described otherwise) must be
 *   found, each as CCM's `diff` counts it (pkg/controller/service/nlbv2/server_groups.go, tag v2.14.0);
 * - every drift case (`remote` server groups, `expect.drift` or `expect.syncError`) gives CCM's answer: the servers it
 *   adds, removes and rewrites, or a `skipped` result with the message CCM fails the sync with.
 */
import { describe, expect, it } from 'vitest';
import { CHECKS, runAudit, type PartialAuditSettings } from '@app/checks';
import { ignoresWeightUpdate, type CheckResult, type FleetSnapshot, type Nlb, type NlbServer, type NlbServerGroup } from '@app/domain';
import { FROZEN_NOW, factory } from '../../libs/checks/test/factories';
import { CASE_CLUSTER_ID, CASE_REGION } from './ccm-cases';
import { CASE_DEFAULT_NAME, loadNlbCases, nlbCaseKubernetes, runNlbModel, type NlbCcmCase } from './nlb-cases';

const cases = loadNlbCases();
const ACCOUNT = '1234567890123456';

/** Whether a case is one CCM's NLB controller syncs with the NLB this oracle writes (no find or class cases). */
function syncsOwnNlb(c: NlbCcmCase): boolean {
  return (c.expect.controller ?? 'nlb') === 'nlb' && c.expect.find === undefined && c.service.class !== '' && c.service.type === 'LoadBalancer';
}

const synced = cases.filter((c) => syncsOwnNlb(c) && c.expect.groups !== undefined && c.expect.syncError === undefined && c.remote === undefined);
const driftCases = cases.filter((c) => c.remote !== undefined);

/** A case server text (`<Type>:<id>:<port>@<weight>[#<description>]`) as a snapshot server. */
function serverOf(text: string, defaultDescription: string): NlbServer {
  const hash = text.indexOf('#');
  const body = hash < 0 ? text : text.slice(0, hash);
  const description = hash < 0 ? defaultDescription : text.slice(hash + 1);
  const [type, id, rest] = body.split(':') as ['Ecs' | 'Eni' | 'Ip', string, string];
  const [port, weight] = rest.split('@').map(Number) as [number, number];
  return {
    serverId: type === 'Eni' ? `eni-${id}` : id,
    ...(type !== 'Ecs' ? { serverIp: id } : {}),
    type,
    port,
    weight,
    status: 'Available',
    ...(description !== '' ? { description } : {}),
  };
}

/** CCM's server group name per Service port of a case (from the model, which nlb-model-cases.spec.ts holds to CCM). */
function ccmNames(c: NlbCcmCase): Map<number, string> {
  const got = runNlbModel({ ...c, expect: {} });
  const names = new Map<number, string>();
  c.service.ports.forEach((p, i) => {
    const g = got.groups?.[i];
    if (g) names.set(p.port, g.name);
  });
  return names;
}

/** The user group `vgroup-port` names for a Service port (reused NLB), as the annotation reads. */
function userGroupId(c: NlbCcmCase, port: number): string | undefined {
  if (!c.service.reused && !c.service.reusedId) return undefined;
  for (const item of (c.service.annotations['vgroup-port'] ?? '').split(',')) {
    const [id, p] = item.split(':');
    if (id && Number(p) === port) return id;
  }
  return undefined;
}

/** The fleet of a case: its cluster, and the NLB CCM syncs with the given server groups behind its listeners. */
function fleetOf(c: NlbCcmCase, groups: NlbServerGroup[]): FleetSnapshot {
  const reusedId = c.service.reusedId ?? (c.service.reused ? 'nlb-reused' : undefined);
  const nlbId = reusedId ?? 'nlb-owned';
  for (const g of groups) g.relatedLoadBalancerIds = [nlbId];
  const nlb: Nlb = {
    loadBalancerId: nlbId,
    accountId: ACCOUNT,
    regionId: CASE_REGION,
    addressType: 'Internet',
    addressIpVersion: 'ipv4',
    dnsName: `${nlbId}.${CASE_REGION}.nlb.aliyuncsslb.com`,
    zoneMappings: [],
    tags: reusedId ? {} : { 'kubernetes.do.not.delete': CASE_DEFAULT_NAME, 'ack.aliyun.com': CASE_CLUSTER_ID },
    listeners: [],
    serverGroupIds: groups.map((g) => g.serverGroupId).sort(),
  };
  return factory.fleet([
    factory.region({
      accountId: ACCOUNT,
      regionId: CASE_REGION,
      loadBalancers: [],
      nlbs: [nlb],
      nlbServerGroups: groups,
      clusters: [
        factory.cluster({
          clusterId: CASE_CLUSTER_ID,
          accountId: ACCOUNT,
          regionId: CASE_REGION,
          ccmVersion: c.ccmVersion ?? 'v2.14.0',
          kubernetes: nlbCaseKubernetes(c),
        }),
      ],
    }),
  ]);
}

/**
 * The server groups CCM leaves behind a synced case: the expected servers, described with the group's name, one
 * group per listener (a Service port of two protocols has two). A port `vgroup-port` binds gets the user's group.
 */
function syncedGroups(c: NlbCcmCase): NlbServerGroup[] {
  const model = runNlbModel({ ...c, expect: {} }).groups ?? [];
  const onePerPort = model.length === c.service.ports.length;
  return model.map((m, i) => {
    const user = onePerPort ? userGroupId(c, c.service.ports[i]!.port) : undefined;
    const id = user ?? `sgp-ccm${i}`;
    return {
      serverGroupId: id,
      name: user ? `user-group-${i}` : m.name,
      type: c.expect.groups![i]?.type ?? 'Instance',
      protocol: 'TCP',
      relatedLoadBalancerIds: [],
      tags: {},
      servers: (c.expect.groups![i]?.servers ?? []).map((t) => serverOf(t, m.name)),
    };
  });
}

/** The `remote` server groups of a drift case. */
function remoteGroups(c: NlbCcmCase): NlbServerGroup[] {
  const names = ccmNames(c);
  return c.remote!.map((g) => {
    const own = names.get(g.port ?? c.service.ports[0]!.port) ?? '';
    return {
      serverGroupId: g.id,
      name: g.name === '<ccm>' ? own : g.name,
      type: g.type,
      protocol: 'TCP',
      relatedLoadBalancerIds: [],
      tags: {},
      servers: g.servers.map((t) => serverOf(t, own)),
    };
  });
}

function drift(snapshot: FleetSnapshot, checkId = 'LB_CONFIG_DRIFT'): CheckResult {
  const checks: NonNullable<PartialAuditSettings['checks']> = {};
  for (const c of CHECKS) if (c.id !== checkId) checks[c.id] = { enabled: false };
  const results = runAudit(snapshot, { now: FROZEN_NOW, settings: { checks } }).results.filter((r) => r.resource.kind === 'Service');
  expect(results).toHaveLength(1);
  return results[0]!;
}

/** The drift figures of a result: what CCM adds, removes and rewrites. */
function counts(r: CheckResult): { add: unknown; remove: unknown; rewrite: unknown } {
  return { add: r.figures?.['serversToAdd'], remove: r.figures?.['serversToRemove'], rewrite: r.figures?.['serversToRewrite'] };
}

describe('NLB: LB_CONFIG_DRIFT finds nothing where the server groups hold exactly what CCM sets', () => {
  it('covers the NLB cases CCM syncs', () => {
    expect(synced.length).toBeGreaterThanOrEqual(30);
  });

  it.each(synced.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const r = drift(fleetOf(c, syncedGroups(c)));
    expect(r.message).toContain('hold what CCM builds');
    expect(r.status).toBe('pass');
  });
});

describe("NLB negative controls: one console edit, counted as CCM's diff counts it", () => {
  const withServers = synced.filter((c) => (c.expect.groups![0]?.servers.length ?? 0) > 0);

  it.each(withServers.map((c) => [c.id, c] as const))('%s: one server removed', (_id, c) => {
    const groups = syncedGroups(c);
    const removed = groups[0]!.servers.shift()!;
    // Existence, not counts: another expected entry of the same server keeps it present.
    const stillThere = groups[0]!.servers.some((s) => s.type === removed.type && s.serverId === removed.serverId);
    const r = drift(fleetOf(c, groups));
    if (stillThere) expect(r.status).toBe('pass');
    else expect(r).toMatchObject({ status: 'fail', figures: { serversToAdd: 1, serversToRemove: 0 } });
  });

  it.each(synced.map((c) => [c.id, c] as const))('%s: one CCM-described server added', (_id, c) => {
    const groups = syncedGroups(c);
    const g = groups[0]!;
    const name = runNlbModel({ ...c, expect: {} }).groups![0]!.name;
    const ip = g.type === 'Ip';
    g.servers.push({ serverId: ip ? '10.9.9.9' : 'i-extra', ...(ip ? { serverIp: '10.9.9.9' } : {}), type: ip ? 'Ip' : 'Ecs', port: 30080, weight: 100, description: name });
    expect(counts(drift(fleetOf(c, groups)))).toEqual({ add: 0, remove: 1, rewrite: 0 });
  });

  it.each(synced.map((c) => [c.id, c] as const))('%s: one server added by its owner (another description) is left alone', (_id, c) => {
    const groups = syncedGroups(c);
    const g = groups[0]!;
    const ip = g.type === 'Ip';
    g.servers.push({ serverId: ip ? '10.9.9.9' : 'i-user', ...(ip ? { serverIp: '10.9.9.9' } : {}), type: ip ? 'Ip' : 'Ecs', port: 30080, weight: 100, description: 'added in the NLB console' });
    expect(drift(fleetOf(c, groups)).status).toBe('pass');
  });

  it.each(withServers.map((c) => [c.id, c] as const))('%s: one server re-weighted', (_id, c) => {
    const groups = syncedGroups(c);
    const s = groups[0]!.servers[0]!;
    const sameServer = groups[0]!.servers.filter((x) => x.type === s.type && x.serverId === s.serverId).length;
    s.weight = (s.weight ?? 0) >= 100 ? 99 : (s.weight ?? 0) + 1;
    const service = nlbCaseKubernetes(c).services[0]!;
    const r = drift(fleetOf(c, groups));
    if (ignoresWeightUpdate(service, c.ccmVersion ?? 'v2.14.0')) expect(r.status).toBe('pass');
    // CCM's diff appends the expected server once per equal remote server: each expected entry of the server counts.
    else expect(counts(r)).toEqual({ add: 0, remove: 0, rewrite: sameServer });
  });

  it.each(withServers.map((c) => [c.id, c] as const))('%s: one server described otherwise', (_id, c) => {
    const groups = syncedGroups(c);
    const s = groups[0]!.servers[0]!;
    const sameServer = groups[0]!.servers.filter((x) => x.type === s.type && x.serverId === s.serverId).length;
    s.description = 'edited in the NLB console';
    const r = drift(fleetOf(c, groups));
    expect(counts(r)).toEqual({ add: 0, remove: 0, rewrite: sameServer });
  });
});

describe("NLB drift cases: CCM's diff of remote server groups", () => {
  it('has drift cases for vgroup-port, user-managed servers, existence, descriptions and version gates', () => {
    expect(driftCases.length).toBeGreaterThanOrEqual(12);
  });

  it.each(driftCases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const r = drift(fleetOf(c, remoteGroups(c)));
    if (c.expect.syncError) {
      expect(r.status).toBe('skipped');
      expect(r.message).toContain('CCM fails the sync');
      expect(r.message).toContain(c.expect.syncError);
      return;
    }
    const want = c.expect.drift!;
    expect(counts(r)).toEqual(want);
    expect(r.status).toBe(want.add + want.remove + want.rewrite === 0 ? 'pass' : 'fail');
  });
});

describe('NLB: SERVICE_IMMUTABLE_CHANGE judges what CCM cannot change on an NLB (research/nlb.md 2)', () => {
  const base = driftCases.find((c) => c.id === 'vgroup-port-binds-user-group')!;
  const withAnnotations = (annotations: Record<string, string>, ipVersion?: string): FleetSnapshot => {
    const c: NlbCcmCase = { ...base, service: { ...base.service, annotations: { ...base.service.annotations, ...annotations } } };
    const fleet = fleetOf(c, remoteGroups(c));
    if (ipVersion) fleet.accounts[0]!.regions[0]!.nlbs![0]!.addressIpVersion = ipVersion;
    return fleet;
  };

  it('ip-version other than the NLB\'s: "AddressIpVersion cannot be changed" (nlbv2/loadbalancer.go Update)', () => {
    const r = drift(withAnnotations({ 'ip-version': 'DualStack' }), 'SERVICE_IMMUTABLE_CHANGE');
    expect(r).toMatchObject({ status: 'fail', figures: { kind: 'NLB', immutableChanges: 1 } });
    expect(r.message).toContain('AddressIpVersion cannot be changed, service: DualStack, nlb: ipv4');
  });

  it('ip-version equal to the NLB\'s, case-insensitively: pass (negative control)', () => {
    expect(drift(withAnnotations({ 'ip-version': 'IPv4' }), 'SERVICE_IMMUTABLE_CHANGE').status).toBe('pass');
  });

  it('server-group-type Ip on a bound Instance group: "ServerGroupType of user managed server group" (nlbv2/model_applier.go)', () => {
    const r = drift(withAnnotations({ 'server-group-type': 'Ip' }), 'SERVICE_IMMUTABLE_CHANGE');
    expect(r.status).toBe('fail');
    expect(r.message).toContain('ServerGroupType of user managed server group sgp-user should be [Ip], but [Instance]');
  });

  it('server-group-type equal to the bound group\'s, or unset: pass (negative controls)', () => {
    expect(drift(withAnnotations({ 'server-group-type': 'instance' }), 'SERVICE_IMMUTABLE_CHANGE').status).toBe('pass');
    expect(drift(withAnnotations({}), 'SERVICE_IMMUTABLE_CHANGE').status).toBe('pass');
  });
});
