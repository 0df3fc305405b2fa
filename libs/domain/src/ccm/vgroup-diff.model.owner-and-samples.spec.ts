/**
 * CCM's CLB backend comparison, pkg/controller/service/clbv1/vgroups.go (tag v2.14.0): `diff` (deletions skip
 * `IsUserManaged` backends; ECS matched by server id and port, ENI by id, IP and port) and
 * `isBackendManagedByMyService` (the description parses to this Service, namespace and cluster, whatever its port).
 */
import { describe, expect, it } from 'vitest';
import type { BackendServer } from '../snapshot.types';
import type { ExpectedVServerGroup } from './backends.model';
import { diffVServerGroupBackends, ecsOrderOf, isCcmNameOfOwner } from './vgroup-diff.model';

const NAME = 'k8s/30080/nginx/default/c1';
const owner = { serviceName: 'nginx', namespace: 'default', clusterId: 'c1' };

/** The group `NAME` of port 80 with these backends. */
function group(backends: ExpectedVServerGroup['backends']): ExpectedVServerGroup {
  return { name: NAME, servicePort: { protocol: 'TCP', port: 80, nodePort: 30080 }, backends };
}

/** An expected ECS backend on NodePort 30080, weight 100. */
const ecs = (id: string) => ({ serverId: id, type: 'ecs' as const, port: 30080, weight: 100 });

/** A remote ECS backend as CCM writes it for `NAME`. */
const remote = (id: string, over: Partial<BackendServer> = {}): BackendServer => ({ serverId: id, port: 30080, weight: 100, type: 'ecs', description: NAME, ...over });

describe('isCcmNameOfOwner (isBackendManagedByMyService)', () => {
  it.each<[string, boolean]>([
    ['k8s/31000/nginx/default/c1', true],
    ['k8s/30080/web/default/c1', false],
    ['k8s/30080/nginx/prod/c1', false],
    ['k8s/30080/nginx/default/c2', false],
  ])('%s -> %s', (name, mine) => {
    expect(isCcmNameOfOwner(name, owner)).toBe(mine);
  });
});

describe('diffVServerGroupBackends: ownership and samples', () => {
  it("removes a backend described by another group of the same Service (CCM's, not the user's)", () => {
    const d = diffVServerGroupBackends(group([ecs('i-1')]), [remote('i-1'), remote('i-9', { description: 'k8s/31000/nginx/default/c1' })], owner);
    expect(d).toMatchObject({ add: 0, remove: 1, update: 0, userManaged: 0 });
    expect(d.removeSamples.map((b) => b.serverId)).toEqual(['i-9']);
  });

  it('matches an expected ENI backend without IP by its id', () => {
    const exp = group([{ serverId: '10.0.0.5', type: 'eni', port: 8080, weight: 100 }]);
    const d = diffVServerGroupBackends(exp, [remote('eni-1', { type: 'eni', serverIp: '10.0.0.5', port: 8080 })], owner);
    expect(d).toMatchObject({ add: 0, remove: 0, update: 0 });
  });

  it('counts every difference but keeps at most maxSamples samples of each kind', () => {
    const exp = group(['i-1', 'i-2', 'i-3', 'i-4'].map(ecs));
    const rem = [...['i-1', 'i-2', 'i-3'].map((id) => remote(id, { weight: 1 })), remote('x-1'), remote('x-2'), remote('x-3')];
    const d = diffVServerGroupBackends(exp, rem, owner, { maxSamples: 1 });
    expect(d).toMatchObject({ add: 1, remove: 3, update: 3 });
    expect(d.addSamples.map((b) => b.serverId)).toEqual(['i-4']);
    expect(d.removeSamples.map((b) => b.serverId)).toEqual(['x-1']);
    expect(d.updateSamples.map((u) => u.actual.serverId)).toEqual(['i-1']);
    const none = diffVServerGroupBackends(exp, rem, owner, { maxSamples: 0 });
    expect(none).toMatchObject({ add: 1, remove: 3, update: 3, addSamples: [], removeSamples: [], updateSamples: [] });
    const two = diffVServerGroupBackends(group(['i-1', 'i-2', 'i-3'].map(ecs)), [], owner, { maxSamples: 2 });
    expect(two.addSamples.map((b) => b.serverId)).toEqual(['i-1', 'i-2']);
  });
});

describe('ecsOrderOf', () => {
  it('sorts in code-unit order', () => {
    const o = ecsOrderOf(['i-c', 'i-b', 'i-a']);
    expect(o.ids).toEqual(['i-a', 'i-b', 'i-c']);
    expect([...o.positions]).toEqual([2, 1, 0]);
    expect([...o.rankOf]).toEqual([2, 1, 0]);
  });

  it('keeps equal ids in position order', () => {
    const o = ecsOrderOf(['x', 'x', 'x', 'a']);
    expect([...o.positions]).toEqual([3, 0, 1, 2]);
    expect([...o.rankOf]).toEqual([1, 2, 3, 0]);
  });
});
