/**
 * NLB 2022-04-30 wire lists -> the NLB fields of `RegionSnapshot` (`nlbs`, `nlbServerGroups`): each List* item
 * mapped as it arrives, in any number of runs of each list, and joined at the end (servers to their group by
 * ServerGroupId, listeners to their NLB, an NLB's group ids from the groups' RelatedLoadBalancerIds and its
 * listeners' ServerGroupId), each list sorted by id. Shapes: research/nlb.md section 7; wire-nlb.schemas.ts.
 */
import type { Nlb, NlbListener, NlbServer, NlbServerGroup, NlbServerType, RegionSnapshot } from '../../snapshot.types';
import { sortBy } from '../../wire/sort-by.util';
import type {
  WireNlbListener,
  WireNlbLoadBalancer,
  WireNlbServer,
  WireNlbServerGroup,
} from '../../wire/wire-nlb.schemas';
import type { KindRegionMapper, KindWireLists } from '../kind-data';

type Intern = (s: string) => string;

/** NLB List* inline tags (`[{Key, Value}]`) as a map Key -> Value. */
function nlbTagMap(tags: { Key: string; Value: string }[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tags ?? []) out[t.Key] = t.Value;
  return out;
}

/** An NLB server type as the API spells it (`Ecs`, `Eni`, `Eci`, `Ip`, any case); anything else is an IP address entry (`Ip`). */
function nlbServerType(t: string): NlbServerType {
  const k = t.toLowerCase();
  return k === 'ecs' ? 'Ecs' : k === 'eni' ? 'Eni' : k === 'eci' ? 'Eci' : 'Ip';
}

/** One NLB server (ListServerGroupServers item); its id, IP, status, zone and description interned. */
function mapNlbServer(s: WireNlbServer, intern: Intern): NlbServer {
  return {
    serverId: intern(s.ServerId),
    ...(s.ServerIp ? { serverIp: intern(s.ServerIp) } : {}),
    type: nlbServerType(s.ServerType),
    ...(s.Port !== undefined ? { port: s.Port } : {}),
    ...(s.Weight !== undefined ? { weight: s.Weight } : {}),
    ...(s.Status !== undefined ? { status: intern(s.Status) } : {}),
    ...(s.ZoneId !== undefined ? { zoneId: intern(s.ZoneId) } : {}),
    ...(s.Description !== undefined ? { description: intern(s.Description) } : {}),
  };
}

/** One NLB server group (ListServerGroups item), its `servers` still empty (NlbRegionMapper fills them). */
function mapNlbServerGroup(g: WireNlbServerGroup): NlbServerGroup {
  return {
    serverGroupId: g.ServerGroupId,
    name: g.ServerGroupName ?? '',
    type: g.ServerGroupType ?? 'Instance',
    ...(g.Protocol !== undefined ? { protocol: g.Protocol } : {}),
    ...(g.VpcId !== undefined ? { vpcId: g.VpcId } : {}),
    ...(g.ServerGroupStatus !== undefined ? { status: g.ServerGroupStatus } : {}),
    relatedLoadBalancerIds: [...new Set(g.RelatedLoadBalancerIds ?? [])].sort(),
    ...(g.ServerCount !== undefined ? { serverCount: g.ServerCount } : {}),
    tags: nlbTagMap(g.Tags),
    servers: [],
  };
}

/** One NLB listener (ListListeners item). */
function mapNlbListener(l: WireNlbListener): NlbListener {
  return {
    listenerId: l.ListenerId,
    protocol: l.ListenerProtocol,
    port: l.ListenerPort ?? 0,
    ...(l.StartPort !== undefined && l.EndPort !== undefined && (l.StartPort !== 0 || l.EndPort !== 0)
      ? { startPort: l.StartPort, endPort: l.EndPort }
      : {}),
    ...(l.ListenerDescription !== undefined ? { description: l.ListenerDescription } : {}),
    ...(l.ServerGroupId ? { serverGroupId: l.ServerGroupId } : {}),
    ...(l.ListenerStatus !== undefined ? { status: l.ListenerStatus } : {}),
  };
}

/** One NLB (ListLoadBalancers item), its `listeners` and `serverGroupIds` still empty (NlbRegionMapper fills them). */
function mapNlb(accountId: string, regionId: string, b: WireNlbLoadBalancer): Nlb {
  return {
    loadBalancerId: b.LoadBalancerId,
    ...(b.LoadBalancerName !== undefined ? { name: b.LoadBalancerName } : {}),
    accountId,
    regionId,
    ...(b.LoadBalancerStatus !== undefined ? { status: b.LoadBalancerStatus } : {}),
    ...(b.AddressType !== undefined ? { addressType: b.AddressType } : {}),
    ...(b.AddressIpVersion !== undefined ? { addressIpVersion: b.AddressIpVersion } : {}),
    ...(b.VpcId !== undefined ? { vpcId: b.VpcId } : {}),
    ...(b.DNSName !== undefined ? { dnsName: b.DNSName } : {}),
    zoneMappings: sortBy(
      (b.ZoneMappings ?? []).map((z) => ({
        zoneId: z.ZoneId,
        ...(z.VSwitchId !== undefined ? { vSwitchId: z.VSwitchId } : {}),
      })),
      (z) => z.zoneId,
    ),
    ...(b.CreateTime !== undefined ? { createTime: b.CreateTime } : {}),
    tags: nlbTagMap(b.Tags),
    listeners: [],
    serverGroupIds: [],
  };
}

/** Append `value` to the list of `key`. */
function push<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The NLB mapper of one region (`LoadBalancerKindData.mapper`). The result is the same whether the lists come whole
 * or in consecutive runs; it holds `nlbs` and `nlbServerGroups` once any run was added (even an empty one).
 */
export class NlbRegionMapper implements KindRegionMapper {
  private nlbs: Nlb[] | undefined;
  private readonly groups: NlbServerGroup[] = [];
  private readonly serversByGroup = new Map<string, NlbServer[]>();
  private readonly listenersByLb = new Map<string, NlbListener[]>();

  /**
   * @param accountId the region's account (set on every NLB)
   * @param regionId the region (every NLB is in it)
   * @param intern one string per distinct id, IP and description of the region
   */
  constructor(
    private readonly accountId: string,
    private readonly regionId: string,
    private readonly intern: Intern,
  ) {}

  /** Map one run of any of the four lists. */
  add(lists: Partial<KindWireLists>): void {
    const nlbs = (this.nlbs ??= []);
    for (const b of (lists['loadBalancers'] ?? []) as WireNlbLoadBalancer[]) nlbs.push(mapNlb(this.accountId, this.regionId, b));
    for (const l of (lists['listeners'] ?? []) as WireNlbListener[]) push(this.listenersByLb, l.LoadBalancerId, mapNlbListener(l));
    for (const g of (lists['serverGroups'] ?? []) as WireNlbServerGroup[]) this.groups.push(mapNlbServerGroup(g));
    for (const s of (lists['servers'] ?? []) as WireNlbServer[]) push(this.serversByGroup, s.ServerGroupId, mapNlbServer(s, this.intern));
  }

  /** `nlbs` and `nlbServerGroups`, joined and sorted; empty when nothing was added. */
  result(): Pick<RegionSnapshot, 'nlbs' | 'nlbServerGroups'> {
    if (!this.nlbs) return {};
    for (const g of this.groups)
      g.servers = sortBy(
        this.serversByGroup.get(g.serverGroupId) ?? [],
        (s) => `${s.type}|${s.serverId}|${s.serverIp ?? ''}|${String(s.port ?? '').padStart(5, '0')}`,
      );
    const serverGroups = sortBy(this.groups, (g) => g.serverGroupId);
    const groupsByLb = new Map<string, Set<string>>();
    const use = (lb: string, g: string): void => {
      const set = groupsByLb.get(lb) ?? new Set<string>();
      set.add(g);
      groupsByLb.set(lb, set);
    };
    for (const g of serverGroups) for (const lb of g.relatedLoadBalancerIds) use(lb, g.serverGroupId);
    for (const [lb, ls] of this.listenersByLb) for (const l of ls) if (l.serverGroupId) use(lb, l.serverGroupId);
    for (const b of this.nlbs) {
      b.listeners = sortBy(
        this.listenersByLb.get(b.loadBalancerId) ?? [],
        (l) => `${l.protocol}|${String(l.port).padStart(5, '0')}|${String(l.startPort ?? 0).padStart(5, '0')}|${l.listenerId}`,
      );
      b.serverGroupIds = [...(groupsByLb.get(b.loadBalancerId) ?? [])].sort();
    }
    return { nlbs: sortBy(this.nlbs, (b) => b.loadBalancerId), nlbServerGroups: serverGroups };
  }
}
