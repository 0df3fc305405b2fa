/**
 * The NLB data path (`LoadBalancerKindData` of `NLB_KIND`): NLB 2022-04-30 (RPC, product `Nlb`, regional endpoint
 * `nlb.<regionId>.aliyuncs.com`), dataset `nlb`, the four List* lists kept unchanged (wire-nlb.schemas.ts) in the
 * four `regions/<regionId>/nlb/` files (docs/fleet-format.md), mapped by `NlbRegionMapper`.
 *
 * Sources: research/nlb.md section 7 ("Efficient crawl": the read API from the TS-SDK `@alicloud/nlb20220430`
 * models and the NLB API reference: paging, filters and their limits) and section 6 (the RAM actions of a
 * read-only auditor); section 3.2 for `ResourceNotFound.loadBalancer` (the code CCM matches).
 */
import {
  wireNlbListenerSchema,
  wireNlbLoadBalancerSchema,
  wireNlbServerGroupSchema,
  wireNlbServerSchema,
  type WireNlbLoadBalancer,
  type WireNlbServer,
  type WireNlbServerGroup,
} from '../../wire/wire-nlb.schemas';
import {
  KindResourceNotFoundError,
  type KindCrawlApi,
  type KindSimList,
  type KindSimulator,
  type KindWireLists,
  type LoadBalancerKindData,
} from '../kind-data';
import { NlbRegionMapper } from './nlb-region.mapper';

/** At most this many NLB ids per ListListeners call (`LoadBalancerIds`, research/nlb.md section 7). */
export const NLB_IDS_PER_LIST_LISTENERS = 20;

/**
 * The NLBs of a region, the four List* item lists unchanged. Calls (CALL-PLAN.md "Per NLB region", research/nlb.md 7):
 * ListLoadBalancers to the end; ListListeners for every 20 NLB ids to the end; ListServerGroups to the end (groups
 * no NLB uses included: they count against the region's server-group quota); ListServerGroupServers to the end for
 * each group whose `ServerCount` is above 0 (CCM skips the others too). A group deleted between the list and its
 * servers call (`ResourceNotFound.serverGroup`) contributes no servers.
 * Order: NLBs, and server groups, in API order; listeners by batch of NLBs; servers grouped by server group in
 * ListServerGroups order.
 * @throws CollectError on a failed call or malformed response (the `nlb` dataset is then `failed`)
 */
async function crawlNlb(api: KindCrawlApi): Promise<KindWireLists> {
  const listeners = (async () => {
    const lbs = await api.listAll('ListLoadBalancers', 'LoadBalancers');
    const ids = [...new Set(api.ids(lbs, 'LoadBalancerId', 'ListLoadBalancers', 'LoadBalancers'))];
    const batches: string[][] = [];
    for (let i = 0; i < ids.length; i += NLB_IDS_PER_LIST_LISTENERS) batches.push(ids.slice(i, i + NLB_IDS_PER_LIST_LISTENERS));
    const perBatch = await Promise.all(
      batches.map((batch) => api.listAll('ListListeners', 'Listeners', { LoadBalancerIds: batch })),
    );
    return { lbs, listeners: perBatch.flat() };
  })();
  const groups = (async () => {
    const raw = await api.listAll('ListServerGroups', 'ServerGroups');
    const serverGroups = api.validate(wireNlbServerGroupSchema, raw, 'ListServerGroups', 'ServerGroups');
    const perGroup = await Promise.all(
      serverGroups
        .filter((g) => (g.ServerCount ?? 0) > 0)
        .map(async (g) => {
          const gTarget = `${api.target}/${g.ServerGroupId}`;
          try {
            const items = await api.listAll('ListServerGroupServers', 'Servers', { ServerGroupId: g.ServerGroupId }, gTarget);
            return api.validate(wireNlbServerSchema, items, 'ListServerGroupServers', 'Servers', gTarget);
          } catch (e) {
            if (api.isNotFound(e)) return [] as WireNlbServer[]; // deleted while we read
            throw e;
          }
        }),
    );
    return { serverGroups, servers: perGroup.flat() };
  })();
  const [a, b] = await Promise.all([listeners, groups]);
  return {
    loadBalancers: api.validate(wireNlbLoadBalancerSchema, a.lbs, 'ListLoadBalancers', 'LoadBalancers'),
    listeners: api.validate(wireNlbListenerSchema, a.listeners, 'ListListeners', 'Listeners'),
    serverGroups: b.serverGroups,
    servers: b.servers,
  };
}

/** The calls of `crawlNlb` for a region's NLB lists (CALL-PLAN.md "Per NLB region"); every List* asks at least one page. */
function plannedNlbCalls(wire: KindWireLists, maxResults: number): Record<string, number> {
  const pages = (n: number) => Math.max(1, Math.ceil(n / maxResults));
  const lbs = wire['loadBalancers'] as WireNlbLoadBalancer[];
  const listeners = wire['listeners'] as { LoadBalancerId: string }[];
  const groups = wire['serverGroups'] as WireNlbServerGroup[];
  let listenerCalls = 0;
  for (let i = 0; i < lbs.length; i += NLB_IDS_PER_LIST_LISTENERS) {
    const batch = new Set(lbs.slice(i, i + NLB_IDS_PER_LIST_LISTENERS).map((l) => l.LoadBalancerId));
    listenerCalls += pages(listeners.filter((l) => batch.has(l.LoadBalancerId)).length);
  }
  const serverCalls = groups.reduce((n, g) => n + ((g.ServerCount ?? 0) > 0 ? pages(g.ServerCount ?? 0) : 0), 0);
  return {
    ListLoadBalancers: pages(lbs.length),
    ListListeners: listenerCalls,
    ListServerGroups: pages(groups.length),
    ListServerGroupServers: serverCalls,
  };
}

/** The simulator's look-ups of one region's NLB lists. */
interface NlbSimIndex {
  /** NLB id -> its ListLoadBalancers item. */
  loadBalancerById: Map<string, WireNlbLoadBalancer>;
  /** Server group id -> its servers, in file order. */
  serversByGroup: Map<string, WireNlbServer[]>;
}

type Item = Record<string, unknown>;
const field = (item: Item, name: string): string => {
  const v = item[name];
  return typeof v === 'string' ? v : '';
};

/**
 * The simulated NLB product (research/nlb.md section 7). Filters: ListLoadBalancers `LoadBalancerIds` (<= 20),
 * `LoadBalancerNames` (<= 20), `VpcIds` (<= 10), `Tag.N`, `AddressType`, `AddressIpVersion`, `LoadBalancerStatus`,
 * `LoadBalancerBusinessStatus`, `ZoneId`, `ResourceGroupId`, `DNSName`; ListListeners `LoadBalancerIds` (<= 20),
 * `ListenerIds` (<= 20), `ListenerProtocol`, `Tag.N`; ListServerGroups `ServerGroupIds` (<= 20), `ServerGroupNames`
 * (<= 20), `ServerGroupType`, `VpcId`, `ResourceGroupId`, `Tag.N`; ListServerGroupServers `ServerGroupId`, `ServerIds`
 * (<= 40), `ServerIps` (<= 40); a server group id the region does not hold is 400 `ResourceNotFound.serverGroup`.
 * GetLoadBalancerAttribute answers the list item's fields at the top level with the tags as `Tags[]{TagKey, TagValue}`
 * (the shape differs from the List* `{Key, Value}`); an unknown id is 400 `ResourceNotFound.loadBalancer`.
 */
const NLB_SIMULATOR: Readonly<KindSimulator<NlbSimIndex>> = Object.freeze<KindSimulator<NlbSimIndex>>({
  index(wire) {
    const serversByGroup = new Map<string, WireNlbServer[]>();
    for (const s of wire['servers'] as WireNlbServer[]) {
      const list = serversByGroup.get(s.ServerGroupId);
      if (list) list.push(s);
      else serversByGroup.set(s.ServerGroupId, [s]);
    }
    const lbs = wire['loadBalancers'] as WireNlbLoadBalancer[];
    return { loadBalancerById: new Map(lbs.map((lb) => [lb.LoadBalancerId, lb])), serversByGroup };
  },
  lists: [
    {
      action: 'ListLoadBalancers',
      listKey: 'LoadBalancers',
      items: (w) => w['loadBalancers'] as Item[],
      ids: [
        { param: 'LoadBalancerIds', max: 20, of: (lb) => field(lb, 'LoadBalancerId') },
        { param: 'LoadBalancerNames', max: 20, of: (lb) => field(lb, 'LoadBalancerName') },
        { param: 'VpcIds', max: 10, of: (lb) => field(lb, 'VpcId') },
      ],
      equality: ['AddressType', 'AddressIpVersion', 'LoadBalancerStatus', 'LoadBalancerBusinessStatus', 'ResourceGroupId', 'DNSName'],
      tagged: true,
      more: (p) => {
        const zone = p.str('ZoneId');
        return (lb) => zone === undefined || ((lb as WireNlbLoadBalancer).ZoneMappings ?? []).some((z) => z.ZoneId === zone);
      },
    },
    {
      action: 'ListListeners',
      listKey: 'Listeners',
      items: (w) => w['listeners'] as Item[],
      ids: [
        { param: 'LoadBalancerIds', max: 20, of: (l) => field(l, 'LoadBalancerId') },
        { param: 'ListenerIds', max: 20, of: (l) => field(l, 'ListenerId') },
      ],
      equality: ['ListenerProtocol'],
      tagged: true,
    },
    {
      action: 'ListServerGroups',
      listKey: 'ServerGroups',
      items: (w) => w['serverGroups'] as Item[],
      ids: [
        { param: 'ServerGroupIds', max: 20, of: (g) => field(g, 'ServerGroupId') },
        { param: 'ServerGroupNames', max: 20, of: (g) => field(g, 'ServerGroupName') },
      ],
      equality: ['ServerGroupType', 'VpcId', 'ResourceGroupId'],
      tagged: true,
    },
    {
      action: 'ListServerGroupServers',
      listKey: 'Servers',
      // Every server, or those of `ServerGroupId` (400 `ResourceNotFound.serverGroup` when the region has no such group).
      items: (w, index, p) => {
        const groupId = p.str('ServerGroupId');
        if (groupId === undefined) return w['servers'] as Item[];
        const known =
          index.serversByGroup.get(groupId) ??
          ((w['serverGroups'] as WireNlbServerGroup[]).some((g) => g.ServerGroupId === groupId) ? [] : undefined);
        if (known === undefined) throw new KindResourceNotFoundError('ResourceNotFound.serverGroup', `The specified resource ${groupId} is not found.`);
        return known as Item[];
      },
      ids: [
        { param: 'ServerIds', max: 40, of: (s) => field(s, 'ServerId') },
        { param: 'ServerIps', max: 40, of: (s) => field(s, 'ServerIp') },
      ],
    },
  ] satisfies KindSimList<NlbSimIndex>[],
  gets: [
    {
      action: 'GetLoadBalancerAttribute',
      param: 'LoadBalancerId',
      get: (_w, index, id) => {
        const lb = index.loadBalancerById.get(id);
        if (!lb) throw new KindResourceNotFoundError('ResourceNotFound.loadBalancer', `The specified resource ${id} is not found.`);
        const { Tags, ...rest } = lb;
        return { ...rest, Tags: (Tags ?? []).map((t) => ({ TagKey: t.Key, TagValue: t.Value ?? '' })) };
      },
    },
  ],
});

/** The NLB data path (see the file comment). */
export const NLB_DATA: LoadBalancerKindData = Object.freeze({
  dataset: 'nlb',
  product: Object.freeze({
    product: 'Nlb',
    version: '2022-04-30',
    ramService: 'nlb',
    endpoint: (regionId: string) => `nlb.${regionId}.aliyuncs.com`,
    maxResults: Object.freeze({ min: 1, max: 100, default: 20 }),
  }),
  lists: Object.freeze(['loadBalancers', 'listeners', 'serverGroups', 'servers']),
  instanceList: 'loadBalancers',
  // research/nlb.md section 6: what a read-only auditor needs, of those the crawl calls.
  actions: Object.freeze(['ListLoadBalancers', 'ListListeners', 'ListServerGroups', 'ListServerGroupServers']),
  crawl: crawlNlb,
  plannedCalls: plannedNlbCalls,
  files: Object.freeze([
    {
      list: 'loadBalancers',
      file: 'load-balancers.json',
      schema: wireNlbLoadBalancerSchema,
      holds: 'NLB ListLoadBalancers -> LoadBalancers[] (all pages, `Tags` inline)',
      whenAbsent: '`nlb` failed (`ENOENT`): NLB checks skipped, CLB checks unaffected',
    },
    { list: 'listeners', file: 'listeners.json', schema: wireNlbListenerSchema, holds: 'NLB ListListeners -> Listeners[] of those NLBs' },
    {
      list: 'serverGroups',
      file: 'server-groups.json',
      schema: wireNlbServerGroupSchema,
      holds: 'NLB ListServerGroups -> ServerGroups[] (all pages, used by an NLB or not)',
    },
    { list: 'servers', file: 'servers.json', schema: wireNlbServerSchema, holds: 'NLB ListServerGroupServers -> Servers[] of every server group' },
  ]),
  // A server group need not be used by any NLB (ListServerGroups lists every group of the region, leaked ones included).
  references: Object.freeze([
    { list: 'listeners', field: 'LoadBalancerId', to: 'loadBalancers', toField: 'LoadBalancerId', noun: 'an NLB' },
    { list: 'servers', field: 'ServerGroupId', to: 'serverGroups', toField: 'ServerGroupId', noun: 'a server group' },
  ]),
  mapper: (accountId: string, regionId: string, intern: (s: string) => string) => new NlbRegionMapper(accountId, regionId, intern),
  simulator: NLB_SIMULATOR as KindSimulator<unknown>,
});
