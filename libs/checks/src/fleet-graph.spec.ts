/**
 * `buildFleetGraph`'s attachment lists, NLB server counts and orders against a plain computation of each from the
 * snapshot (what the graph's documentation says they are), on a generated fleet edited to hold the rare shapes the
 * build's shortcuts must still get right: `Ip` NLB servers naming a node's IP, an instance listed twice in a group,
 * non-ECS backends, a CLB listed twice, a server group listed twice, unsorted server lists.
 */
import { describe, expect, it } from 'vitest';
import { generateFleet, generateSpecSchema } from '@app/collectors';
import { mapWireFleet, type FleetSnapshot, type RegionSnapshot } from '@app/domain';
import { buildFleetGraph, buildFleetGraphAsync } from './fleet-graph';

const spec = generateSpecSchema.parse({
  seed: 11,
  accounts: 2,
  regions: ['cn-hangzhou', 'cn-beijing'],
  clusters: 8,
  nodesPerCluster: 6,
  servicesPerCluster: 6,
  nlbServicesPerCluster: 3,
  trafficPolicy: { cluster: 0.7, local: 0.2, eni: 0.1 },
  ccmVersions: ['v2.12.3', 'v1.9.3.313-g748f81e-aliyun'],
  shares: { orphaned: 0.05, reused: 0.1, misconfigured: 0.1, consoleReused: 0.1, nlbLeakedServerGroups: 0.2 },
});

const sorted = (ids: Iterable<string>): string[] => [...ids].sort();

/** The fleet with the rare shapes added (see the file comment). */
function editedFleet(): FleetSnapshot {
  const snapshot = mapWireFleet(generateFleet(spec, 'gen').fleet);
  for (const account of snapshot.accounts)
    for (const region of account.regions) {
      const ecs = region.ecsInstances ?? [];
      const groups = region.nlbServerGroups ?? [];
      groups.forEach((g, gi) => {
        if (g.servers.length < 2 || ecs.length === 0) return;
        // An `Ip` server naming a node's IP, the same node again as `Ecs`, and an unsorted list.
        const e = ecs[gi % ecs.length]!;
        if (gi % 3 === 0) g.servers.push({ serverId: e.privateIps[0]!, serverIp: e.privateIps[0]!, type: 'Ip', port: 80 });
        if (gi % 4 === 1) g.servers.push({ ...g.servers[0]! });
        if (gi % 5 === 2) g.servers.reverse();
      });
      if (groups.length > 2) groups.push(groups[0]!);
      const clbs = region.loadBalancers ?? [];
      clbs.forEach((clb, ci) => {
        const g = clb.vServerGroups[0];
        if (g && ci % 3 === 0) g.backendServers.push({ serverId: 'eni-x', serverIp: '10.9.9.9', port: 80, weight: 100, type: 'eni' });
        if (ci % 4 === 1 && ecs.length > 0) clb.defaultBackendServers.push({ serverId: ecs[0]!.instanceId, port: 80, weight: 100, type: 'ecs' });
      });
      if (clbs.length > 2) clbs.push(clbs[1]!);
    }
  return snapshot;
}

/** ECS id -> its CLB ids (CLB order, a CLB once in a row), and how many server groups list it, computed plainly. */
function clbAttachments(region: RegionSnapshot): Map<string, { lbs: string[]; groups: number }> {
  const out = new Map<string, { lbs: string[]; groups: number }>();
  for (const clb of region.loadBalancers ?? [])
    for (const servers of [clb.defaultBackendServers, ...clb.vServerGroups.map((g) => g.backendServers)]) {
      const inGroup = new Set<string>();
      for (const s of servers) {
        if (s.type !== 'ecs') continue;
        const a = out.get(s.serverId) ?? { lbs: [], groups: 0 };
        out.set(s.serverId, a);
        if (!inGroup.has(s.serverId)) a.groups++;
        inGroup.add(s.serverId);
        if (a.lbs[a.lbs.length - 1] !== clb.loadBalancerId) a.lbs.push(clb.loadBalancerId);
      }
    }
  return out;
}

describe('buildFleetGraph', () => {
  const snapshot = editedFleet();
  const graph = buildFleetGraph(snapshot);

  it('gives each ECS instance the CLBs, NLB server groups and NLBs listing it, as computed plainly', () => {
    let withNlb = 0;
    let withClb = 0;
    for (const account of snapshot.accounts)
      for (const region of account.regions) {
        const clb = clbAttachments(region);
        const nlbIds = new Set((region.nlbs ?? []).map((n) => n.loadBalancerId));
        const ecsOfIp = new Map((region.ecsInstances ?? []).flatMap((e) => e.privateIps.map((ip) => [ip, e.instanceId] as const)));
        for (const e of region.ecsInstances ?? []) {
          const row = graph.ecsInstances.find((r) => r.instanceId === e.instanceId && r.regionId === region.regionId)!;
          const a = clb.get(e.instanceId);
          expect(row.loadBalancerIds).toEqual(a ? sorted(a.lbs) : []);
          expect(row.serverGroupCount).toBe(a?.groups ?? 0);
          const groups = (region.nlbServerGroups ?? []).filter((g) =>
            g.servers.some((s) => (s.type === 'Ecs' ? s.serverId : s.type === 'Ip' ? ecsOfIp.get(s.serverIp ?? s.serverId) : undefined) === e.instanceId),
          );
          expect(row.nlbServerGroupIds).toEqual(sorted(new Set(groups.map((g) => g.serverGroupId))));
          const nlbs = new Set<string>();
          for (const g of groups) {
            for (const n of region.nlbs ?? []) if (n.serverGroupIds.includes(g.serverGroupId)) nlbs.add(n.loadBalancerId);
            for (const id of g.relatedLoadBalancerIds) if (nlbIds.has(id)) nlbs.add(id);
          }
          expect(row.nlbIds).toEqual(sorted(nlbs));
          if (row.nlbIds.length > 0) withNlb++;
          if (row.loadBalancerIds.length > 0) withClb++;
        }
      }
    // The fleet exercises what is compared.
    expect(withNlb).toBeGreaterThan(10);
    expect(withClb).toBeGreaterThan(10);
  });

  it('counts the server entries and distinct servers (type and id) of each NLB, as computed plainly', () => {
    for (const n of graph.nlbs) {
      const region = snapshot.accounts.find((a) => a.accountId === n.accountId)!.regions.find((r) => r.regionId === n.regionId)!;
      const nlb = region.nlbs!.find((x) => x.loadBalancerId === n.nlbId)!;
      const groups = nlb.serverGroupIds.flatMap((id) => region.nlbServerGroups!.filter((g) => g.serverGroupId === id).slice(0, 1));
      const servers = groups.flatMap((g) => g.servers);
      expect(n.serverEntries).toBe(servers.length);
      expect(n.distinctServers).toBe(new Set(servers.map((s) => `${s.type}:${s.serverId}`)).size);
    }
  });

  it('sorts every list by its key (byte order)', () => {
    const inOrder = <T>(list: readonly T[], key: (t: T) => string) => expect(list.map(key)).toEqual(list.map(key).sort());
    inOrder(graph.regions, (r) => `${r.accountId}\u0000${r.regionId}`);
    inOrder(graph.services, (s) => `${s.clusterId}\u0000${s.namespace}\u0000${s.name}`);
    inOrder(graph.serverGroups, (g) => `${g.loadBalancerId}\u0000${g.vServerGroupId}`);
    inOrder(graph.ecsInstances, (e) => e.instanceId);
    inOrder(graph.nlbs, (n) => n.nlbId);
    for (const r of graph.regions) inOrder(r.unusedNlbServerGroups, (g) => g.serverGroupId);
  });

  it('buildFleetGraphAsync gives the event loop back between slices and builds the same graph', async () => {
    let turns = 0;
    let ticking: NodeJS.Immediate | undefined;
    const tick = (): void => {
      turns += 1;
      ticking = setImmediate(tick);
    };
    ticking = setImmediate(tick);
    try {
      // A slice of 0 ms: a turn of the event loop at every pause.
      const sliced = await buildFleetGraphAsync(snapshot, undefined, 0);
      expect(sliced).toEqual(graph);
    } finally {
      clearImmediate(ticking);
    }
    expect(turns).toBeGreaterThan(0);
  });
});
