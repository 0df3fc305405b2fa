import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BackendServer } from '../snapshot.types';
import type { ExpectedVServerGroup } from './backends.model';
import { diffVServerGroupBackends, ecsOrderOf, isBackendOfOwner } from './vgroup-diff.model';

const NAME = 'k8s/30080/nginx/default/c1';
const owner = { serviceName: 'nginx', namespace: 'default', clusterId: 'c1' };

function group(backends: ExpectedVServerGroup['backends']): ExpectedVServerGroup {
  return { name: NAME, servicePort: { protocol: 'TCP', port: 80, nodePort: 30080 }, backends };
}

const ecs = (id: string, weight = 100, port = 30080) => ({
  serverId: id,
  type: 'ecs' as const,
  port,
  weight,
});
const remote = (id: string, over: Partial<BackendServer> = {}): BackendServer => ({
  serverId: id,
  port: 30080,
  weight: 100,
  type: 'ecs',
  description: NAME,
  ...over,
});

describe('diffVServerGroupBackends (CCM clbv1/vgroups.go diff)', () => {
  it('finds nothing when the group is what CCM would set', () => {
    const d = diffVServerGroupBackends(
      group([ecs('i-1'), ecs('i-2')]),
      [remote('i-2'), remote('i-1')],
      owner,
    );
    expect(d).toMatchObject({ add: 0, remove: 0, update: 0, userManaged: 0 });
  });

  it('adds missing backends, removes CCM-described extra ones, leaves user-managed ones', () => {
    const d = diffVServerGroupBackends(
      group([ecs('i-1'), ecs('i-2')]),
      [remote('i-1'), remote('i-9'), remote('i-console', { description: undefined })],
      owner,
    );
    expect(d).toMatchObject({ add: 1, remove: 1, update: 0, userManaged: 1 });
    expect(d.addSamples.map((b) => b.serverId)).toEqual(['i-2']);
    expect(d.removeSamples.map((b) => b.serverId)).toEqual(['i-9']);
  });

  it('rewrites weights unless ignore-weight-update, and descriptions', () => {
    const exp = group([ecs('i-1', 2), ecs('i-2', 1)]);
    const rem = [
      remote('i-1', { weight: 100 }),
      remote('i-2', { weight: 1, description: 'k8s/31000/nginx/default/c1' }),
    ];
    const d = diffVServerGroupBackends(exp, rem, owner);
    expect(d.update).toBe(2);
    expect(d.updateSamples.map((u) => u.fields)).toEqual([['weight'], ['description']]);
    expect(diffVServerGroupBackends(exp, rem, owner, { ignoreWeightUpdate: true }).update).toBe(1);
  });

  it('treats a port change as remove + add (CCM matches server and port)', () => {
    const d = diffVServerGroupBackends(group([ecs('i-1')]), [remote('i-1', { port: 31111 })], owner);
    expect(d).toMatchObject({ add: 1, remove: 1 });
  });

  it('matches ENI backends by IP (remote ids are ENI ids)', () => {
    const exp = group([{ serverId: '10.0.0.5', serverIp: '10.0.0.5', type: 'eni', port: 8080, weight: 100 }]);
    const d = diffVServerGroupBackends(
      exp,
      [remote('eni-abc', { type: 'eni', serverIp: '10.0.0.5', port: 8080 })],
      owner,
    );
    expect(d).toMatchObject({ add: 0, remove: 0, update: 0 });
  });

  it('gives the same answer with a prebuilt ECS index (shared by Cluster-mode groups of one node set)', () => {
    const exp = group([ecs('i-1'), ecs('i-2'), ecs('i-3')]);
    const rem = [remote('i-1'), remote('i-3', { weight: 5 }), remote('i-9')];
    const ecsIndex = new Map([
      ['i-1', 0],
      ['i-2', 1],
      ['i-3', 2],
    ]);
    const a = diffVServerGroupBackends(exp, rem, owner);
    const b = diffVServerGroupBackends(exp, rem, owner, { ecsIndex });
    expect(b).toEqual(a);
    expect(b).toMatchObject({ add: 1, remove: 1, update: 1 });
  });

  it('recognises backends of the owner by parsed description only', () => {
    expect(isBackendOfOwner('k8s/31000/nginx/default/c1', owner)).toBe(true);
    expect(isBackendOfOwner('k8s/31000/nginx/other/c1', owner)).toBe(false);
    expect(isBackendOfOwner('hand-made', owner)).toBe(false);
    expect(isBackendOfOwner(undefined, owner)).toBe(false);
  });
});

describe('ecsOrderOf and the walk in id order', () => {
  it('sorts ids in code-unit order, ties by position, with positions and ranks', () => {
    const o = ecsOrderOf(['i-b', 'i-a', 'i-c', 'i-a']);
    expect(o.ids).toEqual(['i-a', 'i-a', 'i-b', 'i-c']);
    expect([...o.positions]).toEqual([1, 3, 0, 2]);
    expect([...o.rankOf]).toEqual([2, 0, 3, 1]);
  });

  // Unbiased integers scaled to [0, 1): fast-check shrinks and replays a failing input.
  const UNIT = fc.noBias(fc.integer({ min: 0, max: 999_999 })).map((n) => n / 1_000_000);

  it('gives the same diff as the index alone', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const r = () => g(() => UNIT);
        // Cluster mode: the eligible nodes first (a duplicate id now and then), then ENI pods.
        const ids = Array.from(
          { length: 2 + Math.floor(r() * 10) },
          (_, i) => `i-${r() < 0.1 ? 0 : Math.floor(r() * 1000) + i}`,
        );
        const expected = group([
          ...ids.map((id) => ecs(id, r() < 0.1 ? 50 : 100, r() < 0.05 ? 30081 : 30080)),
          ...(r() < 0.3
            ? [{ serverId: '10.0.0.9', serverIp: '10.0.0.9', type: 'eni' as const, port: 8080, weight: 100 }]
            : []),
        ]);
        const ecsIndex = new Map<string, number>();
        ids.forEach((id, i) => ecsIndex.set(id, i));
        // The remote group sorted by id as the mappers do, with drift: missing, extra, doubled, retyped, re-described.
        const remoteIds = ids.filter(() => r() > 0.1);
        if (r() < 0.5) remoteIds.push(`i-${Math.floor(r() * 2000)}`);
        if (r() < 0.2 && remoteIds.length) remoteIds.push(remoteIds[0]!);
        const rem = remoteIds
          .map((id) =>
            remote(
              id,
              r() < 0.1
                ? { description: undefined }
                : r() < 0.05
                  ? { type: 'eni', serverIp: '10.0.0.9' }
                  : {},
            ),
          )
          .sort((a, b) => (a.serverId < b.serverId ? -1 : a.serverId > b.serverId ? 1 : 0));
        if (r() < 0.2) rem.unshift(remote('eni-x', { type: 'eni', serverIp: '10.0.0.9', port: 8080 }));
        const alone = diffVServerGroupBackends(expected, rem, owner, { ecsIndex });
        const walked = diffVServerGroupBackends(expected, rem, owner, {
          ecsIndex,
          ecsOrder: ecsOrderOf(ids),
        });
        expect(walked).toEqual(alone);
      }),
    );
  });
});
