/**
 * NLB lookups over the fleet index, built lazily once per region (linear in the region's NLB resources) and
 * memoised by the region object: NLBs by id, owner tag, default name and DNS name, server groups by id, the
 * entries per NLB, the server groups each server is in, and CCM's lookup of a Service's NLB (`findServiceNlb`).
 * A region whose `nlb` dataset was not read has `nlbs === undefined`: every helper here says so, and every NLB
 * check skips it with `nlbNotReadReason` (never a silent pass).
 */
import {
  TAG_CCM_OWNER,
  findServiceNlb,
  type AccountSnapshot,
  type Nlb,
  type NlbServer,
  type NlbServerGroup,
  type RegionSnapshot,
  type ResourceRef,
  type ServiceNlbMatch,
} from '@app/domain';
import type { FleetIndex, RegionEntry, ServiceEntry } from './fleet-index';
import { ListRowCache, type IdSequence } from './positional-cache';
import { lbRef, notReadReason } from './result.util';

/** The NLB view of one region (only for regions whose `nlb` dataset was read). */
export interface RegionNlbView {
  nlbById: Map<string, Nlb>;
  nlbsByOwnerTag: Map<string, Nlb[]>;
  nlbsByName: Map<string, Nlb[]>;
  nlbByDnsName: Map<string, Nlb>;
  groupById: Map<string, NlbServerGroup>;
  /** Server groups by name (the last listed wins where two share a name), for CCM's by-name matching of a Service's groups. */
  groupByName: Map<string, NlbServerGroup>;
  /**
   * Server key (`serverKey`) -> the server (its first entry) and how many server groups hold it (count: one per group
   * entry). A count, not the list of groups: what the checks read of it is how many (NLB_SERVER_ADDED_QUOTA, the
   * Cluster-mode ranking), and one list per server grown by 2.6M pushes on a 5,000-cluster fleet was 0.1 GB.
   */
  groupsByServer: Map<string, { server: NlbServer; groups: number }>;
  /** Per non-empty server group: its shape (`NlbServerGroupShape`), read off the same pass. */
  groupShapes: Map<NlbServerGroup, NlbServerGroupShape>;
}

/**
 * What the pass of `regionNlbView` learns of one server group's servers, for LB_CONFIG_DRIFT's Cluster-mode fast
 * path: `uniform` when every server is `Ecs` on the first server's `port` with its `weight` (absent counted as 0) and
 * the group's name as its description (what CCM writes; nlbv2/server_groups.go `diff` rewrites any other);
 * `sequence` names its server-key sequence (groups sharing one hold the same servers at the same positions, from
 * the row memo; compared with an id list by `sameServerIds`).
 */
export interface NlbServerGroupShape {
  uniform: boolean;
  port: number;
  weight: number;
  sequence: IdSequence;
}

const views = new WeakMap<RegionSnapshot, RegionNlbView | null>();

/**
 * The key of a server across groups: its type and id (an `Ip` server's id is its IP). An `Ecs` server, most of
 * them, is keyed by its id alone (an ECS instance id, `i-...`, never starts with another type's `Eni:` / `Ip:` /
 * `Eci:` prefix, so keys stay distinct): the key is then a string the snapshot already holds, and a region of
 * millions of servers builds no key strings.
 */
export function serverKey(s: Pick<NlbServer, 'type' | 'serverId'>): string {
  return s.type === 'Ecs' ? s.serverId : `${s.type}:${s.serverId}`;
}

/** The NLB view of a region, or `undefined` when its `nlb` dataset was not read. */
export function regionNlbView(region: RegionSnapshot): RegionNlbView | undefined {
  let v = views.get(region);
  if (v === undefined) {
    v = null;
    if (region.nlbs && region.nlbServerGroups) {
      const push = <K, T>(m: Map<K, T[]>, k: K, t: T) => {
        const list = m.get(k);
        if (list) list.push(t);
        else m.set(k, [t]);
      };
      const out: RegionNlbView = {
        nlbById: new Map(),
        nlbsByOwnerTag: new Map(),
        nlbsByName: new Map(),
        nlbByDnsName: new Map(),
        groupById: new Map(),
        groupByName: new Map(),
        groupsByServer: new Map(),
        groupShapes: new Map(),
      };
      for (const n of region.nlbs) {
        out.nlbById.set(n.loadBalancerId, n);
        const owner = n.tags[TAG_CCM_OWNER];
        if (owner !== undefined) push(out.nlbsByOwnerTag, owner, n);
        if (n.name) push(out.nlbsByName, n.name, n);
        if (n.dnsName) out.nlbByDnsName.set(n.dnsName, n);
      }
      // The entry at the same position of the last group starting with the same server first: the groups of a
      // cluster's NLB Services list the same nodes (`ListRowCache`).
      const rows = new ListRowCache<{ server: NlbServer; groups: number }>();
      for (const g of region.nlbServerGroups) {
        out.groupById.set(g.serverGroupId, g);
        out.groupByName.set(g.name, g);
        const servers = g.servers;
        if (servers.length === 0) continue;
        const memo = rows.row(serverKey(servers[0]!));
        const port = servers[0]!.port ?? 0;
        const weight = servers[0]!.weight ?? 0;
        let uniform = true;
        let allHit = true;
        for (let i = 0; i < servers.length; i++) {
          const s = servers[i]!;
          if (uniform && (s.type !== 'Ecs' || (s.port ?? 0) !== port || (s.weight ?? 0) !== weight || s.description !== g.name)) uniform = false;
          const k = serverKey(s);
          let e = memo.get(i, k);
          if (e === undefined) {
            allHit = false;
            e = out.groupsByServer.get(k);
            if (!e) {
              e = { server: s, groups: 0 };
              out.groupsByServer.set(k, e);
            }
            memo.set(i, k, e);
          }
          e.groups++;
        }
        out.groupShapes.set(g, { uniform, port, weight, sequence: memo.sequenceOf(servers, allHit) });
      }
      v = out;
    }
    views.set(region, v);
  }
  return v ?? undefined;
}

/** The standard reason of a region's NLB data not read (with the scan's coverage message, if any). */
export function nlbNotReadReason(index: FleetIndex, account: AccountSnapshot, region: RegionSnapshot): string {
  return notReadReason(index, `NLB instances and server groups of ${region.regionId}`, 'nlb', account.accountId, region.regionId);
}

/** The server groups of an NLB (those its listeners use and those naming it), in id order; unknown ids are left out. */
export function groupsOfNlb(view: RegionNlbView, nlb: Nlb): NlbServerGroup[] {
  return nlb.serverGroupIds.flatMap((id) => {
    const g = view.groupById.get(id);
    return g ? [g] : [];
  });
}

/** The ResourceRef of an NLB. */
export function nlbRef(nlb: Nlb): ResourceRef {
  return lbRef('NetworkLoadBalancer', nlb);
}

/** The ResourceRef of an NLB server group. */
export function nlbServerGroupRef(re: RegionEntry, g: NlbServerGroup): ResourceRef {
  return {
    kind: 'NlbServerGroup',
    id: g.serverGroupId,
    accountId: re.account.accountId,
    regionId: re.region.regionId,
    ...(g.name ? { name: g.name } : {}),
  };
}

/** The ResourceRef of a server of NLB server groups: an ECS instance, or the ENI / IP (`NlbServer`). */
export function nlbServerRef(re: RegionEntry, s: NlbServer): ResourceRef {
  return {
    kind: s.type === 'Ecs' ? 'EcsInstance' : 'NlbServer',
    id: s.serverId,
    accountId: re.account.accountId,
    regionId: re.region.regionId,
  };
}

/**
 * The NLB CCM finds for an NLB Service at the next sync (`findServiceNlb`: the id annotation, else the owner tag,
 * else the default name), among the NLBs of the Service's account and region; `undefined` when that region's
 * NLBs were not read. Memoised per Service.
 */
export function nlbOfService(se: ServiceEntry): { nlb?: Nlb; by: ServiceNlbMatch } | undefined {
  let got = se.nlb;
  if (got === undefined) {
    const view = regionNlbView(se.cluster.region);
    got = view
      ? findServiceNlb(se.service, {
          byId: (id) => view.nlbById.get(id),
          byOwnerTag: (name) => view.nlbsByOwnerTag.get(name)?.[0],
          byName: (name) => view.nlbsByName.get(name)?.[0],
        }, se)
      : null;
    se.nlb = got;
  }
  return got ?? undefined;
}

const nlbServicesCache = new WeakMap<FleetIndex, Map<RegionSnapshot, ServiceEntry[]>>();

/** The NLB Services (`needNlb`) of a region, in snapshot order (one pass over the Services, memoised per index). */
export function nlbServicesOf(index: FleetIndex, region: RegionSnapshot): ServiceEntry[] {
  let m = nlbServicesCache.get(index);
  if (!m) {
    m = new Map();
    for (const se of index.services) {
      if (!se.needNlb) continue;
      const list = m.get(se.cluster.region);
      if (list) list.push(se);
      else m.set(se.cluster.region, [se]);
    }
    nlbServicesCache.set(index, m);
  }
  return m.get(region) ?? [];
}
