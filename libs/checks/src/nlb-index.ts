/**
 * NLB lookups over the fleet index, built lazily once per region (linear in the region's NLB resources) and kept by
 * the index (`FleetIndex.nlbView`) for its life: NLBs by id, owner tag, default name and DNS name, server groups by id, the
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
import type { FleetIndex, RegionEntry, RegionNlbView, ServiceEntry } from './fleet-index';
import { ListRowCache } from './positional-cache';
import { notReadReason } from './result.util';

export type { NlbServerGroupShape, RegionNlbView } from './fleet-index';

/**
 * The key of a server across groups: its type and id (an `Ip` server's id is its IP). An `Ecs` server, most of
 * them, is keyed by its id alone (an ECS instance id, `i-...`, never starts with another type's `Eni:` / `Ip:` /
 * `Eci:` prefix, so keys stay distinct): the key is then a string the snapshot already holds, and a region of
 * millions of servers builds no key strings.
 */
export function serverKey(s: Pick<NlbServer, 'type' | 'serverId'>): string {
  return s.type === 'Ecs' ? s.serverId : `${s.type}:${s.serverId}`;
}

/** The NLB view of a region (built once per index, `FleetIndex.nlbView`), or `undefined` when its `nlb` dataset was not read. */
export function regionNlbView(index: FleetIndex, region: RegionSnapshot): RegionNlbView | undefined {
  return index.nlbView(region, buildRegionNlbView) ?? undefined;
}

/** One pass over a region's NLBs and server groups: its `RegionNlbView`, or `null` when its `nlb` dataset was not read. */
function buildRegionNlbView(region: RegionSnapshot): RegionNlbView | null {
  if (!region.nlbs || !region.nlbServerGroups) return null;
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
    // Every description equal to the group's name, compared through the first one: the mapper interns descriptions
    // (one string per region and text, the same object from server to server) but not group names, so a comparison
    // with the name compares characters, once here instead of once per server.
    const description = servers[0]!.description;
    let uniform = description === g.name;
    let allHit = true;
    for (let i = 0; i < servers.length; i++) {
      const s = servers[i]!;
      if (uniform && (s.type !== 'Ecs' || (s.port ?? 0) !== port || (s.weight ?? 0) !== weight || s.description !== description)) uniform = false;
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
  return out;
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
 * NLBs were not read. Memoised per Service (`ServiceEntry.nlb`).
 */
export function nlbOfService(index: FleetIndex, se: ServiceEntry): { nlb?: Nlb; by: ServiceNlbMatch } | undefined {
  let got = se.nlb;
  if (got === undefined) {
    const view = regionNlbView(index, se.cluster.region);
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

/** The NLB Services (`needNlb`) of a region, in snapshot order (`FleetIndex.nlbServicesOf`: one pass, kept by the index). */
export function nlbServicesOf(index: FleetIndex, region: RegionSnapshot): ServiceEntry[] {
  return index.nlbServicesOf(region);
}
