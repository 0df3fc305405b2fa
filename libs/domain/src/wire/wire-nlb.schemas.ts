/**
 * Zod schemas of the NLB (Network Load Balancer, OpenAPI 2022-04-30, product `Nlb`) wire shapes, as the four
 * files of `regions/<regionId>/nlb/` hold them (docs/fleet-format.md) and as the List* actions answer them
 * (research/nlb.md section 7; TS-SDK `@alicloud/nlb20220430` models, not installable here, read for shapes).
 *
 * This is the contract between the three sources (offline reader, simulator, live collector): each NLB file is
 * a JSON array of the List* response items, unchanged. Schemas are loose like `wire.schemas.ts`: they check the
 * fields the product reads and keep every other field, so the simulator serves a real dump back unchanged.
 */
import { z } from 'zod';
import { numLike, optStr, str } from './wire-scalars.util';

/** NLB List* inline tags: `Tags: [{Key, Value}]` (GetLoadBalancerAttribute uses `{TagKey, TagValue}`; not read here). */
export const wireNlbTagsSchema = z.array(z.looseObject({ Key: str, Value: z.string().optional().default('') })).optional();

/** NLB ListLoadBalancers -> `LoadBalancers[]` item (file `nlb/load-balancers.json`). */
export const wireNlbLoadBalancerSchema = z.looseObject({
  LoadBalancerId: z.string().regex(/^nlb-/, 'an NLB id (nlb-...)'),
  LoadBalancerName: optStr,
  LoadBalancerStatus: optStr,
  LoadBalancerBusinessStatus: optStr,
  AddressType: optStr,
  AddressIpVersion: optStr,
  VpcId: optStr,
  DNSName: optStr,
  ZoneMappings: z
    .array(z.looseObject({ ZoneId: str, VSwitchId: optStr, Status: optStr }))
    .optional(),
  RegionId: optStr,
  CreateTime: optStr,
  Tags: wireNlbTagsSchema,
});
export type WireNlbLoadBalancer = z.infer<typeof wireNlbLoadBalancerSchema>;

/** NLB ListListeners -> `Listeners[]` item (file `nlb/listeners.json`); a port range has `ListenerPort` 0. */
export const wireNlbListenerSchema = z.looseObject({
  ListenerId: str,
  LoadBalancerId: str,
  ListenerProtocol: str,
  ListenerPort: numLike.optional(),
  StartPort: numLike.optional(),
  EndPort: numLike.optional(),
  ServerGroupId: optStr,
  ListenerStatus: optStr,
  ListenerDescription: optStr,
  Tags: wireNlbTagsSchema,
});
export type WireNlbListener = z.infer<typeof wireNlbListenerSchema>;

/** NLB ListServerGroups -> `ServerGroups[]` item (file `nlb/server-groups.json`). */
export const wireNlbServerGroupSchema = z.looseObject({
  ServerGroupId: z.string().regex(/^sgp-/, 'an NLB server group id (sgp-...)'),
  ServerGroupName: optStr,
  ServerGroupType: optStr,
  ServerGroupStatus: optStr,
  Protocol: optStr,
  VpcId: optStr,
  RelatedLoadBalancerIds: z.array(str).optional(),
  ServerCount: numLike.optional(),
  Tags: wireNlbTagsSchema,
});
export type WireNlbServerGroup = z.infer<typeof wireNlbServerGroupSchema>;

/** NLB ListServerGroupServers -> `Servers[]` item (file `nlb/servers.json`, every group's servers, each with its `ServerGroupId`). */
export const wireNlbServerSchema = z.looseObject({
  ServerGroupId: str,
  ServerId: str,
  ServerIp: optStr,
  ServerType: str,
  Port: numLike.optional(),
  Weight: numLike.optional(),
  Status: optStr,
  ZoneId: optStr,
  Description: optStr,
});
export type WireNlbServer = z.infer<typeof wireNlbServerSchema>;

/**
 * The NLB data of one region in wire shapes: the four `nlb/` files. Absent on `WireRegion` when not read (an
 * `nlb` coverage gap); a region with no NLB holds four empty arrays.
 */
export interface WireNlbRegion {
  loadBalancers: WireNlbLoadBalancer[];
  listeners: WireNlbListener[];
  serverGroups: WireNlbServerGroup[];
  servers: WireNlbServer[];
}
