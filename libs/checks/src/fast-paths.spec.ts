/**
 * The fast paths of the analysis at fleet scale against the plain computations they replace: the
 * row memo of the backend-list passes, the ecs scope with one lookup per instance, the NLB distinct-server count,
 * the ordering of results and findings by key strings sorted natively. Each is exact: the same values, in the same order, on random inputs that break the shortcuts now and then.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type {
  BackendServer,
  CheckResult,
  Finding,
  Clb,
  EcsInstance,
  FleetSnapshot,
  Nlb,
  NlbServer,
  NlbServerGroup,
  RegionSnapshot,
  ResourceRef,
} from '@app/domain';
import { findingOrder, KeyOrderScan, keyOrder, mergeSortedFindings, resultOrder, sortFindings } from './audit.engine';
import { compareResourceKeys } from './fingerprint.util';
import { FleetIndex, sampleLoadBalancerIdsOf, type EcsScopeEntry } from './fleet-index';
import { groupsOfNlb, regionNlbView, serverKey } from './nlb-index';
import { ListRowCache, PositionalCache } from './positional-cache';
import { distinctServers, distinctServersOfNlb } from './rules/nlb-backend-quota.rule';

/** A uniform draw in [0, 1) from fast-check's generator: the random inputs below shrink and replay on failure. */
type Draw = () => number;
// Integers scaled down: fc.double is uniform over the bit patterns of doubles, so most draws would be near 0.
const UNIT = fc.noBias(fc.integer({ min: 0, max: 999_999 })).map((n) => n / 1_000_000);
/** Draws from fast-check's generator, unbiased (biased draws pile up on 0 and make every list the same shape). */
const drawOf =
  (g: fc.GeneratorValue): Draw =>
  () =>
    g(() => UNIT);

/**
 * Random backend lists that repeat each other the way a region's do (the same sorted node list in the groups of
 * one cluster), with what breaks the repetition: a list of another cluster, a changed, missing or extra entry, an
 * entry listed twice, an ENI entry, an id as `eni` in one list and `ecs` in another. Ids are rebuilt strings
 * (`'i-' + n`), not shared objects, as lists parsed from JSON are.
 */
function randomLists(r: Draw, count: number): { serverId: string; type: 'ecs' | 'eni' }[][] {
  const templates = [0, 1, 2].map((c) =>
    Array.from({ length: 3 + Math.floor(r() * 6) }, (_, i) => `${c}${i}`),
  );
  const lists: { serverId: string; type: 'ecs' | 'eni' }[][] = [];
  for (let n = 0; n < count; n++) {
    const t = templates[Math.floor(r() * templates.length)]!.slice();
    const roll = r();
    if (roll < 0.1) t.splice(Math.floor(r() * t.length), 1);
    else if (roll < 0.2) t.splice(Math.floor(r() * t.length), 0, `x${Math.floor(r() * 4)}`);
    else if (roll < 0.25) t.push(t[0]!);
    else if (roll < 0.3) t.length = 0;
    lists.push(
      t.map((id) =>
        r() < 0.08
          ? { serverId: `eni-${id}`, type: 'eni' as const }
          : { serverId: `i-${id}`, type: r() < 0.03 ? ('eni' as const) : ('ecs' as const) },
      ),
    );
  }
  return lists;
}

/** One region holding `clbs` and `nlbServerGroups`, in a snapshot `FleetIndex.build` takes. */
function snapshotOf(region: Partial<RegionSnapshot>): { snapshot: FleetSnapshot; region: RegionSnapshot } {
  const full = { regionId: 'cn-hangzhou', clusters: [], ...region } as unknown as RegionSnapshot;
  const snapshot = {
    accounts: [{ accountId: '1', regions: [full] }],
    coverage: [],
  } as unknown as FleetSnapshot;
  return { snapshot, region: full };
}

/** The per-region CLB statistics as computed before the row memo (one map lookup per entry): the reference. */
function referenceStats(region: RegionSnapshot) {
  const attachments = new Map<
    string,
    { loadBalancers: number; groups: number; sampleLoadBalancerIds: string[]; loadBalancerIds: string[] }
  >();
  const clbs = new Map<string, { entries: number; distinctServers: number; vServerGroups: number }>();
  const seen = new Map<
    string,
    {
      lb: number;
      group: number;
      attachment?: { loadBalancers: number; groups: number; sampleLoadBalancerIds: string[]; loadBalancerIds: string[] };
    }
  >();
  let group = 0;
  let lbIndex = 0;
  for (const clb of region.loadBalancers ?? []) {
    lbIndex++;
    let entries = 0;
    let distinct = 0;
    for (let gi = -1; gi < clb.vServerGroups.length; gi++) {
      const servers = gi < 0 ? clb.defaultBackendServers : clb.vServerGroups[gi]!.backendServers;
      group++;
      entries += servers.length;
      for (const s of servers) {
        let st = seen.get(s.serverId);
        if (!st) seen.set(s.serverId, (st = { lb: 0, group: 0 }));
        if (st.group === group) continue;
        st.group = group;
        const firstOnLb = st.lb !== lbIndex;
        if (firstOnLb) {
          st.lb = lbIndex;
          distinct++;
        }
        if (s.type !== 'ecs') continue;
        let a = st.attachment;
        if (!a)
          attachments.set(
            s.serverId,
            (a = st.attachment = { loadBalancers: 0, groups: 0, sampleLoadBalancerIds: [], loadBalancerIds: [] }),
          );
        a.groups++;
        if (firstOnLb) {
          a.loadBalancers++;
          if (a.sampleLoadBalancerIds.length < 5) a.sampleLoadBalancerIds.push(clb.loadBalancerId);
          a.loadBalancerIds.push(clb.loadBalancerId);
        }
      }
    }
    clbs.set(clb.loadBalancerId, {
      entries,
      distinctServers: distinct,
      vServerGroups: clb.vServerGroups.length,
    });
  }
  return { attachments, clbs };
}

describe('PositionalCache', () => {
  it('answers only for the key last set at a position', () => {
    const c = new PositionalCache<number>();
    expect(c.get(0, 'i-1')).toBeUndefined();
    c.set(0, 'i-1', 1);
    c.set(1, 'i-2', 2);
    expect(c.get(0, 'i-1')).toBe(1);
    expect(c.get(1, 'i-1')).toBeUndefined();
    expect(c.get(2, 'i-2')).toBeUndefined();
    c.set(0, 'i-3', 3);
    expect(c.get(0, 'i-1')).toBeUndefined();
    expect(c.get(0, 'i-3')).toBe(3);
  });

  it('matches equal strings that are different objects (ids parsed from JSON)', () => {
    const c = new PositionalCache<string>();
    c.set(0, ['i', 'bp1', 'x'].join('-'), 'v');
    expect(c.get(0, JSON.parse('"i-bp1-x"') as string)).toBe('v');
  });

  it('refuses to leave a hole', () => {
    expect(() => new PositionalCache<number>().set(1, 'i-1', 1)).toThrow(RangeError);
  });
});

describe('ListRowCache', () => {
  it('keeps one row per first key', () => {
    const rows = new ListRowCache<number>();
    rows.row('i-1').set(0, 'i-1', 1);
    expect(rows.row('i-1').get(0, 'i-1')).toBe(1);
    expect(rows.row('i-2').get(0, 'i-1')).toBeUndefined();
    expect(rows.row('i-1')).toBe(rows.row('i-1'));
  });
});

describe('FleetIndex CLB backend statistics with the row memo', () => {
  it('equal the one-lookup-per-entry reference, in content and order', () => {
    let exercised = 0;
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const lists = randomLists(drawOf(g), 60);
        const clbs: Clb[] = [];
        for (let i = 0; i < lists.length;) {
          const groups = lists.slice(i + 1, i + 1 + (i % 3));
          const backend = (b: { serverId: string; type: 'ecs' | 'eni' }): BackendServer => ({
            ...b,
            port: 30080,
            weight: 100,
          });
          clbs.push({
            loadBalancerId: `lb-${String(i).padStart(3, '0')}`,
            defaultBackendServers: lists[i]!.map(backend),
            vServerGroups: groups.map((g, gi) => ({
              vServerGroupId: `rsp-${i}-${gi}`,
              name: `g${gi}`,
              backendServers: g.map(backend),
            })),
          } as unknown as Clb);
          i += 1 + groups.length;
        }
        const { snapshot, region } = snapshotOf({ loadBalancers: clbs });
        const index = FleetIndex.build(snapshot);
        const want = referenceStats(region);
        expect([...index.clbBackendStats(region)]).toEqual([...want.clbs]);
        // Every CLB id of an attachment, from its path (`IdPath`, in CLB order), beside the counts and the sample
        // its messages name (`sampleLoadBalancerIdsOf`).
        const withIds = [...index.ecsAttachments(region)].map(([id, a]) => {
          const ids: string[] = [];
          for (let x = a.loadBalancerPath; x?.parent !== undefined; x = x.parent) ids.unshift(x.id);
          return [id, { loadBalancers: a.loadBalancers, groups: a.groups, sampleLoadBalancerIds: sampleLoadBalancerIdsOf(a), loadBalancerIds: ids }];
        });
        expect(withIds).toEqual([...want.attachments]);
        if (want.attachments.size > 3) exercised++;
      }),
    );
    // Most runs had lists that repeat: the test exercises the memo, not only the fallback.
    expect(exercised).toBeGreaterThan(30);
  });
});

describe('FleetIndex attachments counted outside the CLB list (attachmentsOutside)', () => {
  it('give every ECS instance the count of the whole list when some CLBs are listed hollow and counted apart', () => {
    let exercised = 0;
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const r = drawOf(g);
        const lists = randomLists(r, 40);
        const backend = (b: { serverId: string; type: 'ecs' | 'eni' }): BackendServer => ({ ...b, port: 30080, weight: 100 });
        const clbs: Clb[] = [];
        for (let i = 0; i < lists.length;) {
          const groups = lists.slice(i + 1, i + 1 + (i % 3));
          clbs.push({
            loadBalancerId: `lb-${String(i).padStart(3, '0')}`,
            defaultBackendServers: lists[i]!.map(backend),
            vServerGroups: groups.map((x, gi) => ({ vServerGroupId: `rsp-${i}-${gi}`, name: `g${gi}`, backendServers: x.map(backend) })),
          } as unknown as Clb);
          i += 1 + groups.length;
        }
        const whole = snapshotOf({ loadBalancers: clbs });
        const want = new Map([...FleetIndex.build(whole.snapshot).ecsAttachments(whole.region)].map(([id, a]) => [id, a.loadBalancers]));
        // Each CLB listed whole, or hollow (no backends) with its attachments counted apart: a server counts on a CLB
        // where its first entry there (default group first) is an ECS backend.
        const outside = new Map<string, number>();
        const kept = new Set<string>();
        const listed = clbs.map((clb) => {
          if (r() < 0.3) {
            kept.add(clb.loadBalancerId);
            return clb;
          }
          const seen = new Set<string>();
          for (const b of [clb.defaultBackendServers, ...clb.vServerGroups.map((v) => v.backendServers)].flat()) {
            if (seen.has(b.serverId)) continue;
            seen.add(b.serverId);
            if (b.type === 'ecs') outside.set(b.serverId, (outside.get(b.serverId) ?? 0) + 1);
          }
          return { ...clb, defaultBackendServers: [], vServerGroups: clb.vServerGroups.map((v) => ({ ...v, backendServers: [] })) };
        });
        const part = snapshotOf({ loadBalancers: listed });
        const index = FleetIndex.build(part.snapshot, { attachmentsOutside: new Map([[part.region, outside]]) });
        const got = new Map([...index.ecsAttachments(part.region)].map(([id, a]) => [id, a.loadBalancers]));
        expect(new Map([...got].filter(([, n]) => n > 0))).toEqual(new Map([...want].filter(([, n]) => n > 0)));
        // The listed CLBs' own statistics are those of the whole list.
        const wholeStats = FleetIndex.build(whole.snapshot).clbBackendStats(whole.region);
        for (const id of kept) expect(index.clbBackendStats(part.region).get(id)).toEqual(wholeStats.get(id));
        // Another region object of the same ids gets no counts from outside.
        expect([...FleetIndex.build(part.snapshot, { attachmentsOutside: new Map([[whole.region, outside]]) }).ecsAttachments(part.region).values()].reduce((n, a) => n + a.loadBalancers, 0)).toBe(
          [...FleetIndex.build(part.snapshot).ecsAttachments(part.region).values()].reduce((n, a) => n + a.loadBalancers, 0),
        );
        if (outside.size > 3 && kept.size > 0) exercised++;
      }),
    );
    expect(exercised).toBeGreaterThan(30);
  });
});

describe('regionNlbView groupsByServer with the row memo', () => {
  it('equals one map lookup per server, in content and order', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const groups: NlbServerGroup[] = randomLists(drawOf(g), 50).map((l, i) => ({
          serverGroupId: `sgp-${String(i).padStart(3, '0')}`,
          name: `k8s.${i}`,
          type: 'Instance',
          relatedLoadBalancerIds: [],
          tags: {},
          servers: l.map((s): NlbServer => ({
            serverId: s.serverId,
            type: s.type === 'ecs' ? 'Ecs' : 'Eni',
            port: 30080,
          })),
        })) as unknown as NlbServerGroup[];
        const { snapshot, region } = snapshotOf({ nlbs: [], nlbServerGroups: groups });
        const want = new Map<string, { server: NlbServer; groups: NlbServerGroup[] }>();
        for (const g of groups)
          for (const s of g.servers) {
            const e = want.get(serverKey(s));
            if (e) e.groups.push(g);
            else want.set(serverKey(s), { server: s, groups: [g] });
          }
        const got = regionNlbView(FleetIndex.build(snapshot), region)!.groupsByServer;
        expect([...got.keys()]).toEqual([...want.keys()]);
        for (const [k, e] of want) {
          expect(got.get(k)!.server).toBe(e.server);
          expect(got.get(k)!.groups).toBe(e.groups.length);
        }
      }),
    );
  });
});

describe('FleetIndex.forEachEcs with one lookup per instance', () => {
  /**
   * The scope as computed before: a Set of the ids, then `ecsById`, the last node of the snapshot naming the id (a map
   * by id built from the nodes, as the index held it), and the attachments per id.
   */
  function referenceEcsOf(index: FleetIndex, snapshot: FleetSnapshot, region: RegionSnapshot) {
    const nodeById = new Map<string, { node: string; clusterId: string }>();
    for (const rg of snapshot.accounts[0]!.regions)
      for (const c of rg.clusters)
        for (const n of c.kubernetes?.nodes ?? []) if (n.ecsInstanceId) nodeById.set(n.ecsInstanceId, { node: n.name, clusterId: c.clusterId });
    const ids = new Set<string>();
    for (const e of region.ecsInstances ?? []) ids.add(e.instanceId);
    for (const id of index.ecsAttachments(region).keys()) ids.add(id);
    return [...ids].map((id) => ({
      instanceId: id,
      ecs: index.ecsById.get(id)?.ecs,
      node: nodeById.get(id),
      attachment: index.ecsAttachments(region).get(id),
    }));
  }

  it('lists the same instances, records and attachments as the Set-based scope', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const r = drawOf(g);
        const ecsIds = Array.from({ length: 12 }, (_, i) => `i-${String(i).padStart(2, '0')}`);
        const listing = (id: string, name: string) => ({ instanceId: id, name }) as unknown as EcsInstance;
        // Half the time the regions list disjoint halves of the ids, each once (sound data: the index links each
        // region's nodes as it goes and must still give a node in the first region its listing in the second).
        const disjoint = r() < 0.5;
        const listedIn = (tag: string) => {
          const pool = !disjoint ? ecsIds : tag === 'a' ? ecsIds.slice(0, 6) : ecsIds.slice(6);
          const list = pool.filter(() => r() < 0.7).map((id) => listing(id, `${tag}-${id}`));
          if (!disjoint && r() < 0.5 && list.length) list.splice(1, 0, listing(list[0]!.instanceId, `${tag}-again`));
          // Sorted as the mappers give it, or in another order (a hand-built snapshot).
          if (r() < 0.4) list.reverse();
          return list;
        };
        const backend = (id: string): BackendServer => ({
          serverId: id,
          type: 'ecs',
          port: 30080,
          weight: 100,
        });
        const clbs = Array.from({ length: 4 }, (_, i) => ({
          loadBalancerId: `lb-${i}`,
          defaultBackendServers: [],
          vServerGroups: [
            {
              vServerGroupId: `rsp-${i}`,
              name: 'g',
              backendServers: ecsIds.filter(() => r() < 0.5).map(backend),
            },
          ],
        })) as unknown as Clb[];
        // Nodes naming listed ids, ids listed in the other region, unlisted ids, and ids two nodes name.
        const nodeIds = [...ecsIds, 'i-unlisted-1', 'i-unlisted-2'];
        const cluster = (clusterId: string) => ({
          clusterId,
          kubernetes: {
            nodes: Array.from({ length: 6 }, (_, i) => ({
              name: `${clusterId}-n${i}`,
              ...(r() < 0.9 ? { ecsInstanceId: nodeIds[Math.floor(r() * nodeIds.length)]! } : {}),
            })),
            services: [],
          },
        });
        const a = {
          regionId: 'cn-hangzhou',
          clusters: [cluster('ca1'), cluster('ca2')],
          loadBalancers: clbs,
          ecsInstances: listedIn('a'),
        } as unknown as RegionSnapshot;
        const b = {
          regionId: 'cn-beijing',
          clusters: [cluster('cb1')],
          loadBalancers: [],
          ecsInstances: listedIn('b'),
        } as unknown as RegionSnapshot;
        const snapshot = {
          accounts: [{ accountId: '1', regions: [a, b] }],
          coverage: [],
        } as unknown as FleetSnapshot;
        const index = FleetIndex.build(snapshot);
        for (const region of [a, b]) {
          const visited: EcsScopeEntry[] = [];
          index.forEachEcs({ account: snapshot.accounts[0]!, region }, (e) => visited.push(e));
          const got = visited.map((e) => ({
            instanceId: e.instanceId,
            ecs: e.ecs,
            node: e.node && { node: e.node.node.name, clusterId: e.node.cluster.cluster.clusterId },
            attachment: e.attachment,
          }));
          const expected = referenceEcsOf(index, snapshot, region);
          expect(got).toEqual(expected);
          // The same objects, not equal copies: the check reads the snapshot's records.
          got.forEach((e, i) => expect(e.ecs).toBe(expected[i]!.ecs));
          // Every id's node, as `nodeOfEcs` answers it (the fleet graph's lookup).
          for (const e of expected) {
            const n = index.nodeOfEcs(e.instanceId);
            expect(n && { node: n.node.name, clusterId: n.cluster.cluster.clusterId }).toEqual(e.node);
          }
        }
        // Each node's ECS record, as the vSwitch check reads it: the listing `ecsById` holds.
        for (const rg of [a, b])
          for (const c of rg.clusters) {
            const records = index.nodeEcsOf(c);
            c.kubernetes!.nodes.forEach((n, i) =>
              expect(records[i]).toBe(n.ecsInstanceId ? index.ecsById.get(n.ecsInstanceId)?.ecs : undefined),
            );
          }
      }),
    );
  });
});

describe('distinctServers of an NLB (NLB_BACKEND_QUOTA)', () => {
  const group = (servers: [string, string][]): NlbServerGroup =>
    ({ servers: servers.map(([type, serverId]) => ({ type, serverId })) }) as unknown as NlbServerGroup;
  const bySet = (groups: NlbServerGroup[]) =>
    new Set(groups.flatMap((g) => g.servers.map((s) => serverKey(s)))).size;

  it('counts a sorted group of ECS servers in one pass, repeats once', () => {
    const g = group([
      ['Ecs', 'i-1'],
      ['Ecs', 'i-1'],
      ['Ecs', 'i-2'],
      ['Ecs', 'i-3'],
      ['Ecs', 'i-3'],
    ]);
    expect(distinctServers([g])).toBe(3);
  });

  it('gives the Set count for unsorted groups, other types, several groups and empty groups', () => {
    const cases: NlbServerGroup[][] = [
      [
        group([
          ['Ecs', 'i-2'],
          ['Ecs', 'i-1'],
          ['Ecs', 'i-2'],
        ]),
      ],
      [
        group([
          ['Ecs', 'i-1'],
          ['Eni', 'i-1'],
          ['Ecs', 'i-1'],
        ]),
      ],
      [
        group([
          ['Ip', '10.0.0.1'],
          ['Ip', '10.0.0.1'],
        ]),
      ],
      [
        group([['Ecs', 'i-1']]),
        group([
          ['Ecs', 'i-1'],
          ['Ecs', 'i-2'],
        ]),
      ],
      [group([])],
      [],
    ];
    for (const c of cases) expect(distinctServers(c)).toBe(bySet(c));
  });

  it('equals the Set count on random sorted and unsorted groups', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const r = drawOf(g);
        const servers: [string, string][] = Array.from({ length: Math.floor(r() * 8) }, () => [
          r() < 0.9 ? 'Ecs' : 'Eni',
          `i-${Math.floor(r() * 5)}`,
        ]);
        if (r() < 0.7) servers.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
        expect(distinctServers([group(servers)])).toBe(bySet([group(servers)]));
      }),
    );
  });
});

describe('distinctServersOfNlb, once per server sequence (NLB_BACKEND_QUOTA)', () => {
  it('equals the Set count of every NLB, with one cache shared by the region', () => {
    let shared = 0;
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const r = drawOf(g);
        const groups: NlbServerGroup[] = randomLists(r, 40).map((l, i) => ({
          serverGroupId: `sgp-${String(i).padStart(3, '0')}`,
          name: `k8s.${i}`,
          type: 'Instance',
          relatedLoadBalancerIds: [],
          tags: {},
          servers: l.map((s): NlbServer => ({ serverId: s.serverId, type: s.type === 'ecs' ? 'Ecs' : 'Eni', port: 30080 })),
        })) as unknown as NlbServerGroup[];
        // NLBs of one to three groups (one per listener), some naming an unknown or an empty group.
        const nlbs = Array.from({ length: 30 }, (_, i) => ({
          loadBalancerId: `nlb-${i}`,
          tags: {},
          serverGroupIds: Array.from({ length: 1 + Math.floor(r() * 3) }, () =>
            r() < 0.05 ? 'sgp-none' : `sgp-${String(Math.floor(r() * groups.length)).padStart(3, '0')}`,
          ),
        })) as unknown as Nlb[];
        const { snapshot, region } = snapshotOf({ nlbs, nlbServerGroups: groups });
        const view = regionNlbView(FleetIndex.build(snapshot), region)!;
        const cache = new Map();
        for (const nlb of nlbs) {
          const gs = groupsOfNlb(view, nlb);
          expect(distinctServersOfNlb(view, gs, cache)).toBe(new Set(gs.flatMap((x) => x.servers.map(serverKey))).size);
        }
        shared += cache.size > 0 ? 1 : 0;
      }),
    );
    // Most runs answered some NLB from a sequence: the test exercises the cache, not only the fallback.
    expect(shared).toBeGreaterThan(30);
  });
});

describe('runAudit ordering by key strings sorted natively', () => {
  // Ids drawn from a small alphabet with the characters that decide: `|` (the key separator), NUL (the position
  // separator, which falls back to the comparison sort), and prefixes of each other; kinds of both key shapes.
  const ID = fc.array(fc.constantFrom('a', 'b', '|', '\u0000', 'a|b', ''), { maxLength: 3 }).map((p) => p.join(''));
  const REF = fc.record({
    kind: fc.constantFrom('Service' as const, 'EcsInstance' as const, 'Cluster' as const),
    id: ID,
    accountId: fc.constantFrom('1', '1|', '2'),
    regionId: fc.constantFrom('cn-hangzhou', 'cn'),
    clusterId: fc.option(fc.constantFrom('c1', 'c1|x', 'c2'), { nil: undefined }),
  });

  it('orders results as the comparison sort on resource keys, ties in list order', () => {
    fc.assert(
      fc.property(fc.array(REF, { maxLength: 60 }), (refs) => {
        const list = refs.map((resource) => ({ resource }) as unknown as CheckResult);
        const expected = list.map((_, i) => i).sort((a, b) => compareResourceKeys(list[a]!.resource, list[b]!.resource) || a - b);
        expect([...keyOrder(list)]).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('orders results in a few sorted runs (merged) or many (key strings) as the comparison sort, or says they are sorted', () => {
    fc.assert(
      fc.property(fc.array(REF, { maxLength: 120 }), fc.array(fc.nat(), { maxLength: 30 }), (refs, cuts) => {
        // Sorted runs cut at random places: 1 to 31 runs, so both the merge and the key-string sort are taken.
        const bounds = [...new Set([0, ...cuts.map((c) => c % (refs.length + 1)), refs.length])].sort((a, b) => a - b);
        const runs = bounds.slice(1).flatMap((end, r) =>
          refs.slice(bounds[r], end).sort((a, b) => compareResourceKeys(a as ResourceRef, b as ResourceRef)),
        );
        const list = runs.map((resource) => ({ resource }) as unknown as CheckResult);
        const expected = list.map((_, i) => i).sort((a, b) => compareResourceKeys(list[a]!.resource, list[b]!.resource) || a - b);
        const order = resultOrder(list);
        expect(order === undefined ? list.map((_, i) => i) : [...order]).toEqual(expected);
        if (order === undefined) expect(expected).toEqual(list.map((_, i) => i));
      }),
      { numRuns: 400 },
    );
  });

  it('learns whether a list is in key order as resultOrder does, following the Service refs by identity or comparing keys', () => {
    fc.assert(
      fc.property(
        fc.array(REF, { maxLength: 40 }),
        fc.array(fc.nat(2), { maxLength: 40 }),
        fc.constantFrom('none', 'swap', 'foreign', 'copy', 'tail'),
        fc.nat(),
        fc.array(REF, { maxLength: 4 }),
        (drawn, repeats, change, at, tail) => {
          // The index's refs: distinct objects in key order, as `serviceRefsInKeyOrder` gives them.
          const refs = drawn.map((r) => ({ ...r, kind: 'Service' as const }) as ResourceRef).sort(compareResourceKeys);
          // A Service check's results: each ref 0-2 times, in order, some results then changed.
          const resources = refs.flatMap((ref, i) => Array.from({ length: repeats[i] ?? 1 }, () => ref));
          const k = resources.length > 0 ? at % resources.length : 0;
          if (change === 'swap' && k + 1 < resources.length) [resources[k], resources[k + 1]] = [resources[k + 1]!, resources[k]!];
          if (change === 'foreign') resources.splice(k, 0, { ...(refs[0] ?? { kind: 'Service', id: 'x', accountId: '1', regionId: 'r' }) });
          if (change === 'copy' && resources.length > 0) resources[k] = { ...resources[k]! };
          // Other resources after the Services (a combined check's second part), compared by key.
          if (change === 'tail') resources.push(...(tail as ResourceRef[]));
          const list = resources.map((resource) => ({ resource }) as unknown as CheckResult);
          const sorted = resultOrder(list) === undefined;
          for (const given of [refs, undefined]) {
            const scan = new KeyOrderScan(given);
            for (const r of list) scan.push(r.resource);
            expect(scan.sorted).toBe(sorted);
          }
          if (change === 'none') expect(sorted).toBe(true);
        },
      ),
      { numRuns: 600 },
    );
  });

  it('orders a findings group by resource id, then fingerprint, ties in list order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(ID, fc.constantFrom('00', '0f', 'ff')), { maxLength: 60 }), (pairs) => {
        const list = pairs.map(([id, fingerprint]) => ({ resource: { id }, fingerprint }) as unknown as Finding);
        const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
        const expected = list
          .map((_, i) => i)
          .sort((a, b) => cmp(list[a]!.resource.id, list[b]!.resource.id) || cmp(list[a]!.fingerprint, list[b]!.fingerprint) || a - b);
        expect([...findingOrder(list)]).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
  it('merges lists each in sortFindings order into sortFindings of their concatenation, the earlier list first on ties', () => {
    const FINDING = fc.tuple(fc.constantFrom('info', 'warning', 'critical'), fc.constantFrom('A_CHECK', 'B_CHECK'), ID, fc.constantFrom('00', '0f', 'ff'));
    fc.assert(
      fc.property(fc.array(fc.array(FINDING, { maxLength: 30 }), { maxLength: 7 }), (drawn) => {
        // Each finding tagged with its list and position, so that equal keys from different lists are told apart.
        const lists = drawn.map((list, l) =>
          sortFindings(list.map(([severity, checkId, id, fingerprint], i) => ({ severity, checkId, resource: { id }, fingerprint, message: `${l}.${i}` }) as unknown as Finding)),
        );
        const merged = mergeSortedFindings(lists);
        expect(merged.map((f) => f.message)).toEqual(sortFindings(lists.flat()).map((f) => f.message));
        for (const list of lists) expect(merged).not.toBe(list);
      }),
      { numRuns: 300 },
    );
  });
});
