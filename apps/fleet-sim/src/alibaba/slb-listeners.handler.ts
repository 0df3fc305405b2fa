/**
 * SLB (CLB) 2014-05-15 DescribeLoadBalancerListeners, built from the fleet's
 * DescribeLoadBalancerAttribute bodies (`ListenerPortsAndProtocol.ListenerPortAndProtocol[]`;
 * the legacy misspelt `ListenerPortsAndProtocal` when only that one is stored).
 *
 * Source: `research/alibaba-cloud-api.md` section 3, the slb-20140515 models
 * (`research/sdk-model-shapes.txt`) and the metadata sample
 * `fixtures/alibaba-api-samples/slb-DescribeLoadBalancerListeners.json`:
 * - request `RegionId` (required), `LoadBalancerId.N` (at most 10), `ListenerProtocol`,
 *   `ListenerPort`, `Description`, `Tag.N.Key/Value`, `MaxResults` 1-100 (default 20), `NextToken`;
 * - response `{RequestId, NextToken, MaxResults, TotalCount, Listeners: [...]}` with `Listeners` a
 *   BARE array, omitted when nothing matches (per the metadata), and `NextToken` only while more
 *   pages follow.
 * Each listener: `LoadBalancerId, ListenerPort, ListenerProtocol, Status, VServerGroupId (when
 * forwarding to a vServer group), BackendServerPort (otherwise), Scheduler, Bandwidth,
 * Description, AclStatus`, the protocol's `<PROTO>ListenerConfig` (TCP/UDP: health check defaults;
 * HTTP: `ListenerForward`/`ForwardPort` from the attribute), and `Tags` (bare array) when stored.
 * Fields the fleet stores on a `ListenerPortAndProtocol` item (`Status`, `Scheduler`, `Bandwidth`,
 * `AclId`, `AclStatus`, `AclType`, `BackendServerPort`, `Tags`) override the defaults, which are
 * the console defaults of a new listener (`wrr`, -1 = no bandwidth cap, ACL off, running).
 * A region whose `load-balancers.json` is absent answers 403, as DescribeLoadBalancers does.
 */
import type { LoadBalancerEntry, RegionEntry } from '../fleet/fleet-index.repository';
import { AcsError } from './acs-error.exception';
import type { AcsRequest, RpcHandler } from './acs-request';
import { tokenPage } from './paging.util';

/** One listener as the API returns it. */
type Listener = Record<string, unknown>;

/** `MaxResults` bounds and default (SDK doc comment). */
const MAX_RESULTS = { min: 1, max: 100, default: 20 } as const;
/** Most `LoadBalancerId.N` values per call. */
const MAX_LB_IDS = 10;

const PASSTHROUGH = [
  'Status',
  'Scheduler',
  'Bandwidth',
  'AclId',
  'AclIds',
  'AclStatus',
  'AclType',
  'BackendServerPort',
  'Tags',
] as const;

const TCP_DEFAULTS = {
  HealthCheck: 'on',
  HealthCheckType: 'tcp',
  HealthyThreshold: 3,
  UnhealthyThreshold: 3,
  HealthCheckInterval: 2,
  HealthCheckConnectTimeout: 5,
  PersistenceTimeout: 0,
  EstablishedTimeout: 900,
  ConnectionDrain: 'off',
} as const;
const UDP_DEFAULTS = {
  HealthCheck: 'on',
  HealthyThreshold: 3,
  UnhealthyThreshold: 3,
  HealthCheckInterval: 2,
  HealthCheckConnectTimeout: 5,
  ConnectionDrain: 'off',
} as const;
const HTTP_DEFAULTS = {
  HealthCheck: 'off',
  StickySession: 'off',
  Gzip: 'on',
  XForwardedFor: 'on',
  IdleTimeout: 15,
  RequestTimeout: 60,
} as const;

function protocolConfig(
  protocol: string,
  stored: Record<string, unknown>,
): [string, Record<string, unknown>] | undefined {
  switch (protocol.toLowerCase()) {
    case 'tcp':
      return ['TCPListenerConfig', { ...TCP_DEFAULTS }];
    case 'udp':
      return ['UDPListenerConfig', { ...UDP_DEFAULTS }];
    case 'http': {
      const forward = typeof stored['ListenerForward'] === 'string' ? stored['ListenerForward'] : 'off';
      return [
        'HTTPListenerConfig',
        {
          ...HTTP_DEFAULTS,
          ListenerForward: forward,
          ...(stored['ForwardPort'] !== undefined ? { ForwardPort: Number(stored['ForwardPort']) } : {}),
        },
      ];
    }
    case 'https':
      return [
        'HTTPSListenerConfig',
        { ...HTTP_DEFAULTS, EnableHttp2: 'on', TLSCipherPolicy: 'tls_cipher_policy_1_0' },
      ];
    default:
      return undefined;
  }
}

/** The stored listener items of a CLB, normalised to `{ListenerPort, ListenerProtocol, ...}`. */
function storedListeners(lb: LoadBalancerEntry): Record<string, unknown>[] {
  const attr: Record<string, unknown> = lb.attribute;
  const modern = lb.attribute.ListenerPortsAndProtocol?.ListenerPortAndProtocol;
  if (modern !== undefined) return modern;
  const legacy = (attr['ListenerPortsAndProtocal'] as { ListenerPortAndProtocal?: unknown } | undefined)
    ?.ListenerPortAndProtocal;
  if (!Array.isArray(legacy)) return [];
  return legacy
    .filter((l): l is Record<string, unknown> => typeof l === 'object' && l !== null)
    .map((l) => ({ ...l, ListenerProtocol: l['ListenerProtocal'] }));
}

function buildListener(lb: LoadBalancerEntry, stored: Record<string, unknown>): Listener {
  const port = Number(stored['ListenerPort']);
  const protocol = String(stored['ListenerProtocol'] ?? '').toLowerCase();
  const vServerGroupId = stored['VServerGroupId'];
  const out: Listener = {
    LoadBalancerId: lb.attribute.LoadBalancerId,
    ListenerPort: port,
    ListenerProtocol: protocol,
    Status: 'running',
    ...(typeof vServerGroupId === 'string' && vServerGroupId !== ''
      ? { VServerGroupId: vServerGroupId }
      : { BackendServerPort: port }),
    Scheduler: 'wrr',
    Bandwidth: -1,
    Description: typeof stored['Description'] === 'string' ? stored['Description'] : '',
    AclStatus: 'off',
  };
  for (const f of PASSTHROUGH) if (stored[f] !== undefined) out[f] = stored[f];
  const config = protocolConfig(protocol, stored);
  if (config) out[config[0]] = config[1];
  return out;
}

const byLb = new WeakMap<LoadBalancerEntry, Listener[]>();
const byRegion = new WeakMap<LoadBalancerEntry[], Listener[]>();

/** The listeners of one CLB (built once). */
export function listenersOf(lb: LoadBalancerEntry): Listener[] {
  let list = byLb.get(lb);
  if (!list) {
    list = storedListeners(lb).map((s) => buildListener(lb, s));
    byLb.set(lb, list);
  }
  return list;
}

function regionListeners(loadBalancers: LoadBalancerEntry[]): Listener[] {
  let list = byRegion.get(loadBalancers);
  if (!list) {
    list = loadBalancers.flatMap(listenersOf);
    byRegion.set(loadBalancers, list);
  }
  return list;
}

function region(req: AcsRequest, regionId: string): RegionEntry | undefined {
  const r = req.account.regionById.get(regionId);
  if (r && !r.loadBalancers) throw AcsError.forbidden('Slb', `CLBs of ${regionId}`);
  return r;
}

function listenerTags(l: Listener): { TagKey?: unknown; TagValue?: unknown }[] {
  const tags = l['Tags'];
  return Array.isArray(tags) ? (tags as { TagKey?: unknown; TagValue?: unknown }[]) : [];
}

/** DescribeLoadBalancerListeners. */
export const describeLoadBalancerListeners: RpcHandler = (req) => {
  const p = req.params;
  const regionId = p.required('RegionId');
  const maxResults = p.int('MaxResults') ?? MAX_RESULTS.default;
  if (maxResults < MAX_RESULTS.min || maxResults > MAX_RESULTS.max)
    throw AcsError.invalidParameter('MaxResults', 'It must be between 1 and 100.');
  const ids = p.repeated('LoadBalancerId');
  if (ids.length > MAX_LB_IDS)
    throw AcsError.invalidParameter('LoadBalancerId', `At most ${MAX_LB_IDS} load balancer ids are allowed.`);
  const r = region(req, regionId);
  let all: Listener[] = [];
  if (r?.loadBalancers) {
    if (ids.length > 0) {
      const wanted = new Set(ids);
      all = r.loadBalancers.filter((lb) => wanted.has(lb.attribute.LoadBalancerId)).flatMap(listenersOf);
    } else all = regionListeners(r.loadBalancers);
    const preds: ((l: Listener) => boolean)[] = [];
    const protocol = p.str('ListenerProtocol');
    if (protocol !== undefined) preds.push((l) => l['ListenerProtocol'] === protocol.toLowerCase());
    const port = p.int('ListenerPort');
    if (port !== undefined) preds.push((l) => l['ListenerPort'] === port);
    const description = p.str('Description');
    if (description !== undefined) preds.push((l) => l['Description'] === description);
    for (const tag of p.keyValues('Tag'))
      preds.push((l) =>
        listenerTags(l).some(
          (t) => t.TagKey === tag.key && (tag.value === undefined || t.TagValue === tag.value),
        ),
      );
    if (preds.length > 0) all = all.filter((l) => preds.every((f) => f(l)));
  }
  const scope = `slb:DescribeLoadBalancerListeners:${req.account.accountId}:${JSON.stringify([
    regionId,
    ids,
    p.str('ListenerProtocol') ?? '',
    p.str('ListenerPort') ?? '',
    p.str('Description') ?? '',
    p.keyValues('Tag'),
  ])}`;
  const { items, next } = tokenPage(all, maxResults, scope, p.str('NextToken'));
  return {
    ...(next !== undefined ? { NextToken: next } : {}),
    MaxResults: maxResults,
    TotalCount: all.length,
    ...(items.length > 0 ? { Listeners: items } : {}),
  };
};
