/**
 * CCM's NLB server comparison, pkg/controller/service/nlbv2/server_groups.go (tag v2.14.0): `diff` (additions,
 * deletions, updates), `isServerEqual` (type, then the id; `Eni` and `Ip` also the IP) and
 * `isServerManagedByMyService` / `ListNLBServerGroups` (a server whose description does not parse to this Service
 * is `IsUserManaged`: never deleted).
 */
import { describe, expect, it } from 'vitest';
import type { NlbServer } from '../snapshot.types';
import type { ExpectedNlbServer } from './nlb-backends.model';
import { diffNlbServerGroupServers, isNlbServerOfOwner } from './nlb-server-diff.model';

const NAME = 'k8s.30080.TCP.nginx.default.c1';
const owner = { serviceName: 'nginx', namespace: 'default', clusterId: 'c1' };

/** An expected `Ecs` server on the NodePort 30080 with CCM's default weight 100. */
function ecs(id: string, over: Partial<ExpectedNlbServer> = {}): ExpectedNlbServer {
  return { serverId: id, type: 'Ecs', port: 30080, weight: 100, ...over };
}

/** A remote server as CCM leaves it after a sync of `NAME`: same port and weight, the group's name as description. */
function remote(id: string, over: Partial<NlbServer> = {}): NlbServer {
  return { serverId: id, type: 'Ecs', port: 30080, weight: 100, description: NAME, ...over };
}

/** `diffNlbServerGroupServers` of the group `NAME` of `default/nginx` in cluster `c1`. */
function diff(expected: ExpectedNlbServer[], actual: NlbServer[], options: { ignoreWeightUpdate?: boolean; maxSamples?: number } = {}) {
  return diffNlbServerGroupServers({ name: NAME, servers: expected }, actual, owner, options);
}

describe('isNlbServerOfOwner (isServerManagedByMyService: LoadNLBSGNamedKey of the description)', () => {
  it.each<[string, string | undefined, boolean]>([
    ['the group name', NAME, true],
    ["another group of the Service (port and protocol are not compared)", 'k8s.31000.UDP.nginx.default.c1', true],
    ['another Service', 'k8s.30080.TCP.web.default.c1', false],
    ['another namespace', 'k8s.30080.TCP.nginx.prod.c1', false],
    ['another cluster', 'k8s.30080.TCP.nginx.default.c2', false],
    ['a CLB-style name (slashes)', 'k8s/30080/nginx/default/c1', false],
    ['a console description', 'added by hand', false],
    ['no description', undefined, false],
  ])('%s -> %s', (_what, description, mine) => {
    expect(isNlbServerOfOwner(description, owner)).toBe(mine);
  });
});

describe('diffNlbServerGroupServers (nlbv2 diff)', () => {
  it('finds nothing when the remote servers are what CCM builds, in any order', () => {
    expect(diff([ecs('i-1'), ecs('i-2')], [remote('i-2'), remote('i-1')])).toEqual({
      add: 0,
      addSamples: [],
      remove: 0,
      removeSamples: [],
      update: 0,
      updateSamples: [],
      userManaged: 0,
    });
  });

  it('adds the expected servers no remote one equals, removes the CCM-described ones no expected one equals', () => {
    const d = diff([ecs('i-1'), ecs('i-2'), ecs('i-3')], [remote('i-1'), remote('i-8'), remote('i-9')]);
    expect(d).toMatchObject({ add: 2, remove: 2, update: 0, userManaged: 0 });
    expect(d.addSamples.map((s) => s.serverId)).toEqual(['i-2', 'i-3']);
    expect(d.removeSamples.map((s) => s.serverId)).toEqual(['i-8', 'i-9']);
  });

  it("never removes a server whose description is not this Service's (IsUserManaged), and counts it", () => {
    const d = diff(
      [ecs('i-1')],
      [remote('i-1'), remote('i-console', { description: undefined }), remote('i-other', { description: 'k8s.30080.TCP.web.default.c1' })],
    );
    expect(d).toMatchObject({ add: 0, remove: 0, update: 0, userManaged: 2 });
  });

  it("removes a server described by another group of the same Service (isServerManagedByMyService ignores the port)", () => {
    const d = diff([ecs('i-1')], [remote('i-1'), remote('i-2', { description: 'k8s.31000.TCP.nginx.default.c1' })]);
    expect(d).toMatchObject({ add: 0, remove: 1, userManaged: 0 });
    expect(d.removeSamples.map((s) => s.serverId)).toEqual(['i-2']);
  });

  it('a user-managed server equal to an expected one satisfies it (no add) and is rewritten for its description', () => {
    const d = diff([ecs('i-1')], [remote('i-1', { description: 'mine' })]);
    expect(d).toMatchObject({ add: 0, remove: 0, update: 1, userManaged: 1 });
    expect(d.updateSamples).toEqual([{ expected: ecs('i-1'), actual: remote('i-1', { description: 'mine' }), fields: ['description'] }]);
  });

  it('matches Ecs servers by id alone: another port is an update of the port, not a remove and an add', () => {
    const d = diff([ecs('i-1')], [remote('i-1', { port: 31111 })]);
    expect(d).toMatchObject({ add: 0, remove: 0, update: 1 });
    expect(d.updateSamples[0]!.fields).toEqual(['port']);
  });

  it('rewrites the weight unless weights are ignored (ignore-weight-update: on)', () => {
    const expected = [ecs('i-1', { weight: 100 })];
    const actual = [remote('i-1', { weight: 30 })];
    const d = diff(expected, actual);
    expect(d.update).toBe(1);
    expect(d.updateSamples[0]).toMatchObject({ expected: { weight: 100 }, actual: { weight: 30 }, fields: ['weight'] });
    expect(diff(expected, actual, { ignoreWeightUpdate: true })).toMatchObject({ add: 0, remove: 0, update: 0 });
    expect(diff(expected, actual, { ignoreWeightUpdate: false }).update).toBe(1);
  });

  it('lists every differing field of a pair, in the order port, weight, description', () => {
    const d = diff([ecs('i-1', { port: 30080, weight: 50 })], [remote('i-1', { port: 1, weight: 100, description: 'k8s.1.TCP.nginx.default.c1' })]);
    expect(d.updateSamples[0]!.fields).toEqual(['port', 'weight', 'description']);
    const portAndWeight = diff([ecs('i-1', { weight: 50 })], [remote('i-1', { port: 1 })]);
    expect(portAndWeight.updateSamples[0]!.fields).toEqual(['port', 'weight']);
  });

  it('reads a remote server without port or weight as 0 (the API omits zero values)', () => {
    expect(diff([ecs('i-1', { port: 0, weight: 0 })], [remote('i-1', { port: undefined, weight: undefined })]).update).toBe(0);
    const d = diff([ecs('i-1', { port: 0, weight: 5 })], [remote('i-1', { port: undefined, weight: undefined })]);
    expect(d.update).toBe(1);
    expect(d.updateSamples[0]!.fields).toEqual(['weight']);
  });

  it('matches an Ecs server by its id alone, even when the API lists its private IP', () => {
    expect(diff([ecs('i-1')], [remote('i-1', { serverIp: '10.0.0.1' })])).toMatchObject({ add: 0, remove: 0, update: 0 });
  });

  it('matches Eni servers by IP (the remote id is the ENI id, the expected one the pod IP)', () => {
    const pod: ExpectedNlbServer = { serverId: '10.0.0.5', serverIp: '10.0.0.5', type: 'Eni', port: 8080, weight: 100 };
    const d = diff([pod], [remote('eni-abc', { type: 'Eni', serverIp: '10.0.0.5', port: 8080 })]);
    expect(d).toMatchObject({ add: 0, remove: 0, update: 0 });
    const moved = diff([pod], [remote('eni-abc', { type: 'Eni', serverIp: '10.0.0.6', port: 8080 })]);
    expect(moved).toMatchObject({ add: 1, remove: 1 });
  });

  it('an Eni server without IP is matched by its id', () => {
    const pod: ExpectedNlbServer = { serverId: 'eni-abc', type: 'Eni', port: 8080, weight: 100 };
    expect(diff([pod], [remote('eni-abc', { type: 'Eni', port: 8080 })])).toMatchObject({ add: 0, remove: 0 });
  });

  it('compares the type first: an Ip server and an Eni server of one IP are different servers', () => {
    const ip: ExpectedNlbServer = { serverId: '10.0.0.5', serverIp: '10.0.0.5', type: 'Ip', port: 8080, weight: 100 };
    const d = diff([ip], [remote('eni-abc', { type: 'Eni', serverIp: '10.0.0.5', port: 8080 })]);
    expect(d).toMatchObject({ add: 1, remove: 1, update: 0 });
    expect(d.addSamples).toEqual([ip]);
  });

  it('finds the server of the right type behind another one with the same match id', () => {
    const ip: ExpectedNlbServer = { serverId: '10.0.0.5', serverIp: '10.0.0.5', type: 'Ip', port: 8080, weight: 100 };
    const d = diff(
      [ip],
      [
        remote('eni-abc', { type: 'Eni', serverIp: '10.0.0.5', port: 8080 }),
        remote('10.0.0.5', { type: 'Ip', serverIp: '10.0.0.5', port: 8080 }),
      ],
    );
    expect(d).toMatchObject({ add: 0, remove: 1, update: 0 });
    expect(d.removeSamples.map((s) => s.type)).toEqual(['Eni']);
  });

  it('compares existence, not counts: two expected entries of one server need one remote entry', () => {
    // Each pair of equal servers is an update candidate: CCM appends the expected server once per equal remote one.
    const d = diff([ecs('i-1'), ecs('i-1')], [remote('i-1', { weight: 1 })]);
    expect(d).toMatchObject({ add: 0, remove: 0, update: 2 });
    const twice = diff([ecs('i-1')], [remote('i-1', { port: 1 }), remote('i-1', { port: 2 }), remote('i-1')]);
    expect(twice).toMatchObject({ add: 0, remove: 0, update: 2 });
    expect(twice.updateSamples.map((u) => u.actual.port)).toEqual([1, 2]);
  });

  it('counts everything but keeps at most maxSamples samples (default 5)', () => {
    const ids = Array.from({ length: 7 }, (_, i) => `i-${i}`);
    const d = diff(
      ids.map((id) => ecs(id)),
      ids.map((id) => remote(`x-${id}`)),
    );
    expect(d).toMatchObject({ add: 7, remove: 7 });
    expect(d.addSamples).toHaveLength(5);
    expect(d.removeSamples).toHaveLength(5);
    const rewrites = diff(ids.map((id) => ecs(id)), ids.map((id) => remote(id, { weight: 1 })));
    expect(rewrites.update).toBe(7);
    expect(rewrites.updateSamples.map((u) => u.actual.serverId)).toEqual(ids.slice(0, 5));
    const capped = diff(ids.map((id) => ecs(id)), ids.map((id) => remote(id, { weight: 1 })), { maxSamples: 2 });
    expect(capped).toMatchObject({ update: 7, updateSamples: [{ actual: { serverId: 'i-0' } }, { actual: { serverId: 'i-1' } }] });
    expect(diff(ids.map((id) => ecs(id)), [], { maxSamples: 0 })).toMatchObject({ add: 7, addSamples: [] });
    expect(diff([], ids.map((id) => remote(id)), { maxSamples: 1 })).toMatchObject({ remove: 7, removeSamples: [{ serverId: 'i-0' }] });
  });
});
