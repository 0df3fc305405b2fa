/**
 * The NLB side of CCM's Service handling (research/nlb.md 1-3, 8): which controller takes a Service, the listeners
 * CCM builds (protocol, port range, overlap), the NLB attributes it checks before any call (`zone-maps`, reuse,
 * immutable fields), and how CCM finds a Service's NLB. Shared with the CLB model: the default LB name, the
 * annotation prefixes, the backend mode (`serviceTrafficPolicy`) and node selection.
 */
import type { K8sService, K8sServicePort, Nlb } from '../snapshot.types';
import { LABEL_SERVICE_LOADBALANCER_ID, LB_ANNOTATION, TAG_CCM_OWNER, TAG_CLUSTER_ID } from './ccm.constants';
import { getLbAnnotation } from './annotations.model';
import { ccmVersionAtLeast } from './version.model';
import { CCM_FEATURES } from './features.constants';
import {
  findServiceLb,
  needClb,
  needNlb,
  reusedLoadBalancerId,
  type CcmClbView,
  type ServiceClbMatch,
  type ServiceLbKeys,
  type TrafficPolicy,
} from './service.model';
import { nlbListenerDescription } from './nlb-naming.model';

/** NLB annotation suffixes the audit reads (after the `alibaba-cloud-loadbalancer-` prefix; research/nlb.md 2). */
export const NLB_ANNOTATION = {
  zoneMaps: 'zone-maps',
  ipVersion: 'ip-version',
  serverGroupType: 'server-group-type',
  listenerPortRange: 'listener-port-range',
  preserveLbOnDelete: 'preserve-lb-on-delete',
} as const;

/** Which CCM controller takes a Service, and why none does. */
export interface CcmControllerDecision {
  /** `clb` (clbv1), `nlb` (nlb-controller), or `none`. */
  controller: 'clb' | 'nlb' | 'none';
  /**
   * Why no controller takes a LoadBalancer Service: `nlb-unsupported` (an NLB-class Service on a CCM before
   * v2.5.0), `foreign-class` (a `loadBalancerClass` that is not CCM's: another controller's), `not-load-balancer`.
   */
  reason?: 'nlb-unsupported' | 'foreign-class' | 'not-load-balancer' | 'clb-excluded';
}

/**
 * Which CCM controller takes the Service (`NeedNLB` / `NeedCLB`, pkg/controller/helper/service_utils.go): the NLB
 * controller takes `spec.loadBalancerClass: alibabacloud.com/nlb` from CCM v2.5.0 (`CCM_FEATURES.nlbController`;
 * an older CCM has no NLB controller, and the CLB controller skips any Service with a class); any other class is
 * never taken (another controller owns it); without a class the CLB controller takes it unless the `class` or
 * tunnel-type annotation excludes it. The `LoadBalancerTypeAnnotation` feature gate (Alpha, off by default) is not
 * modelled.
 * @param ccmVersion the cluster's CCM version; unknown = the current CCM
 */
export function ccmControllerFor(svc: K8sService, ccmVersion?: string): CcmControllerDecision {
  if (svc.type !== 'LoadBalancer') return { controller: 'none', reason: 'not-load-balancer' };
  if (needNlb(svc))
    return ccmVersionAtLeast(ccmVersion, CCM_FEATURES.nlbController.sinceVersion) === false
      ? { controller: 'none', reason: 'nlb-unsupported' }
      : { controller: 'nlb' };
  if (needClb(svc)) return { controller: 'clb' };
  return { controller: 'none', reason: svc.loadBalancerClass ? 'foreign-class' : 'clb-excluded' };
}

/** One NLB zone mapping of the `zone-maps` annotation (`zone:vsw[:privateIPv4[:eipAllocationId]]`). */
export interface NlbZoneMapping {
  zoneId: string;
  vSwitchId: string;
  privateIpv4?: string;
  allocationId?: string;
}

/**
 * Parses `zone-maps` like CCM's `parseZoneMappings` (pkg/controller/service/nlbv2/loadbalancer.go): comma-separated
 * `zone:vsw[:ip[:eip]]`; an entry without a `:` fails with "ZoneMapping format error, expect
 * [zone-a:vsw-id-1,zone-b:vsw-id-2], got <value>".
 * @returns the mappings, or `{ error }` with CCM's message
 */
export function parseNlbZoneMappings(text: string): { zones: NlbZoneMapping[] } | { error: string } {
  const zones: NlbZoneMapping[] = [];
  const formatError = { error: `ZoneMapping format error, expect [zone-a:vsw-id-1,zone-b:vsw-id-2], got ${text}` };
  for (const entry of text.split(',')) {
    const items = entry.split(':');
    if (items.length < 2) return formatError;
    zones.push({
      zoneId: items[0] ?? '',
      vSwitchId: items[1] ?? '',
      ...(items.length > 2 ? { privateIpv4: items[2] } : {}),
      ...(items.length > 3 ? { allocationId: items[3] } : {}),
    });
  }
  return zones.length === 0 ? formatError : { zones };
}

/**
 * Why CCM fails to build the NLB of a Service before any API call (`NLBManager.BuildLocalModel`): a Service that
 * asks CCM to create an NLB (no `...-loadbalancer-id`) without `zone-maps` fails "ParameterMissing, zone mappings
 * are required"; a malformed `zone-maps` fails with `parseZoneMappings`'s message.
 * @returns CCM's message, or `undefined`
 */
export function nlbLoadBalancerBuildError(svc: Pick<K8sService, 'annotations'>): string | undefined {
  const zoneMaps = getLbAnnotation(svc.annotations, NLB_ANNOTATION.zoneMaps) ?? '';
  if (zoneMaps !== '') {
    const parsed = parseNlbZoneMappings(zoneMaps);
    return 'error' in parsed ? parsed.error : undefined;
  }
  return reusedLoadBalancerId(svc) ? undefined : 'ParameterMissing, zone mappings are required';
}

/** A listener CCM builds for one Service port. */
export interface ExpectedNlbListener {
  servicePort: K8sServicePort;
  /** `TCP`, `UDP` or `TCPSSL`. */
  protocol: string;
  /** Listener port; 0 for a port range. */
  port: number;
  startPort?: number;
  endPort?: number;
  /** `k8s.{port or start_end}.{proto}.{svc}.{ns}.{clusterId}`. */
  description: string;
}

/**
 * The listener protocol of a Service port (`nlbListenerProtocol`, nlbv2/listeners.go): the `protocol-port`
 * annotation (`TCP|UDP|TCPSSL:port,...`, case-insensitive) for that port, else the port's own protocol upper-cased.
 * @returns the protocol, or `{ error }` with CCM's message for a malformed entry or another protocol
 */
export function nlbListenerProtocol(svc: Pick<K8sService, 'annotations'>, port: K8sServicePort): { protocol: string } | { error: string } {
  const text = getLbAnnotation(svc.annotations, LB_ANNOTATION.protocolPort) ?? '';
  if (text !== '') {
    for (const entry of text.split(',')) {
      const pp = entry.split(':');
      if (pp.length < 2) return { error: `port and protocol format must be like 'https:443' with colon separated. got=[${pp.join(' ')}]` };
      const proto = (pp[0] ?? '').toUpperCase();
      if (proto !== 'TCP' && proto !== 'UDP' && proto !== 'TCPSSL')
        return { error: `port protocol format must be either [TCP|UDP|TCPSSL], protocol not supported with [${pp[0]}]` };
      if (pp[1] === String(port.port)) return { protocol: proto };
    }
  }
  return { protocol: port.protocol.toUpperCase() };
}

/**
 * The port range of a Service port from `listener-port-range` (`start-end:servicePort,...`; `portRange`,
 * nlbv2/listeners.go), or `undefined` when the annotation names none for it.
 */
function listenerPortRange(text: string, port: K8sServicePort): { range?: [number, number] } | { error: string } {
  for (const v of text.split(',')) {
    const pp = v.split(':');
    if (pp.length !== 2) return { error: `listener port range must be like 1000-2000:80 with colon separated. got [${v}]` };
    if (pp[1] !== String(port.port)) continue;
    const bounds = (pp[0] ?? '').split('-');
    if (bounds.length !== 2) return { error: `listener port range must be like 1000-2000:80 with colon separated. got [${v}]` };
    const [start, end] = bounds.map((b) => (/^[+-]?\d+$/.test(b) ? Number(b) : NaN)) as [number, number];
    if (Number.isNaN(start) || Number.isNaN(end)) return { error: `failed to convert port range [${v}] to int` };
    if (start >= end) return { error: `start port should be smaller than end port for port range [${v}]` };
    if (start < 1 || end > 65535) return { error: `port range [${v}] is invalid` };
    return { range: [start, end] };
  }
  return {};
}

/** The text of a listener's port as CCM prints it in the overlap error (`ListenerAttribute.PortString`, pkg/model/nlb/nlb.go). */
function portString(l: Pick<ExpectedNlbListener, 'port' | 'startPort' | 'endPort'>): string {
  return l.port !== 0 ? String(l.port) : `${l.startPort}-${l.endPort}`;
}

/**
 * Whether two listeners overlap (`isListenerPortOverlapped`, nlbv2/listeners.go; listeners_test.go
 * TestIsListenerPortOverlapped): never across protocols; two single ports when equal; ranges when they share a
 * port; a single port inside a range.
 */
export function nlbListenersOverlap(
  a: Pick<ExpectedNlbListener, 'port' | 'startPort' | 'endPort' | 'protocol'>,
  b: Pick<ExpectedNlbListener, 'port' | 'startPort' | 'endPort' | 'protocol'>,
): boolean {
  if (a.protocol !== b.protocol) return false;
  if (a.port !== 0 && b.port !== 0) return a.port === b.port;
  if (a.port === 0 && b.port === 0) {
    const [lo, hi] = (a.startPort ?? 0) <= (b.startPort ?? 0) ? [a, b] : [b, a];
    return (hi.startPort ?? 0) <= (lo.endPort ?? 0);
  }
  const [single, range] = a.port !== 0 ? [a, b] : [b, a];
  return single.port >= (range.startPort ?? 0) && single.port <= (range.endPort ?? 0);
}

/**
 * The listeners CCM builds for an NLB Service, one per Service port (`ListenerManager.BuildLocalModel`,
 * nlbv2/listeners.go): protocol from `protocol-port` or the port; `listener-port-range` only in ENI mode ("listener
 * port range can only be used for eni backend type service"), making the listener port 0 with a start and end;
 * overlapping listeners of one protocol fail "port of listener [a] overlaps with listener [b]".
 * @param policy the Service's backend mode (`serviceTrafficPolicy`)
 * @returns the listeners, or `{ error }` with CCM's message when the sync fails
 */
export function expectedNlbListeners(svc: K8sService, clusterId: string, policy: TrafficPolicy): { listeners: ExpectedNlbListener[] } | { error: string } {
  const rangeText = getLbAnnotation(svc.annotations, NLB_ANNOTATION.listenerPortRange) ?? '';
  const listeners: ExpectedNlbListener[] = [];
  for (const sp of svc.ports) {
    const proto = nlbListenerProtocol(svc, sp);
    if ('error' in proto) return { error: `build listener from servicePort ${sp.port} error: ${proto.error}` };
    let range: [number, number] | undefined;
    if (rangeText !== '') {
      if (policy !== 'eni') return { error: `build listener from servicePort ${sp.port} error: listener port range can only be used for eni backend type service` };
      const r = listenerPortRange(rangeText, sp);
      if ('error' in r) return { error: `build listener from servicePort ${sp.port} error: ${r.error}` };
      range = r.range;
    }
    listeners.push({
      servicePort: sp,
      protocol: proto.protocol,
      port: range ? 0 : sp.port,
      ...(range ? { startPort: range[0], endPort: range[1] } : {}),
      description: nlbListenerDescription(range ? `${range[0]}_${range[1]}` : sp.port, proto.protocol, svc.name, svc.namespace, clusterId),
    });
  }
  for (let i = 0; i < listeners.length; i++)
    for (let j = i + 1; j < listeners.length; j++)
      if (nlbListenersOverlap(listeners[i]!, listeners[j]!))
        return { error: `port of listener [${portString(listeners[i]!)}] overlaps with listener [${portString(listeners[j]!)}]` };
  return { listeners };
}

/**
 * Why CCM refuses to reuse an NLB named by `...-loadbalancer-id` (`isNLBReusable`, nlbv2/model_applier.go): it
 * carries a CCM tag key (`kubernetes.do.not.delete` or `ack.aliyun.com`: CCM created it); or the Service already has
 * an ingress hostname that is not the NLB's DNS name.
 * @returns CCM's message (as the SyncLoadBalancerFailed event carries it), or `undefined` when reusable
 */
export function nlbReuseError(svc: Pick<K8sService, 'ingress'>, nlb: Pick<Nlb, 'loadBalancerId' | 'tags' | 'dnsName'>): string | undefined {
  if (Object.prototype.hasOwnProperty.call(nlb.tags, TAG_CCM_OWNER) || Object.prototype.hasOwnProperty.call(nlb.tags, TAG_CLUSTER_ID))
    return `the loadbalancer ${nlb.loadBalancerId} can not be reused, can not reuse loadbalancer created by kubernetes.`;
  if (svc.ingress.length > 0 && !svc.ingress.some((i) => i.hostname === nlb.dnsName))
    return `the loadbalancer ${nlb.loadBalancerId} can not be reused, service has been associated with dnsname [${svc.ingress[0]?.hostname ?? ''}], cannot be bound to dnsname [${nlb.dnsName ?? ''}]`;
  return undefined;
}

/**
 * The immutable NLB fields a Service asks to change (`NLBManager.Update`, nlbv2/loadbalancer.go): `ip-version`
 * (when set) must equal the NLB's `AddressIpVersion`, case-insensitively ("AddressIpVersion cannot be changed,
 * service: <a>, nlb: <b>"). (`ResourceGroupId` is the other immutable field; the snapshot does not keep it.)
 * @returns CCM's messages, empty when nothing immutable changes
 */
export function nlbImmutableChangeErrors(svc: Pick<K8sService, 'annotations'>, nlb: Pick<Nlb, 'addressIpVersion'>): string[] {
  const asked = getLbAnnotation(svc.annotations, NLB_ANNOTATION.ipVersion) ?? '';
  if (asked === '' || nlb.addressIpVersion === undefined) return [];
  const norm = asked.toLowerCase() === 'ipv4' ? 'ipv4' : asked.toLowerCase() === 'dualstack' ? 'DualStack' : asked;
  return norm.toLowerCase() === nlb.addressIpVersion.toLowerCase() ? [] : [`AddressIpVersion cannot be changed, service: ${norm}, nlb: ${nlb.addressIpVersion}`];
}

/** How a Service's NLB was found: the `...-loadbalancer-id` annotation, CCM's owner tag, the default name, or not at all (as for a CLB). */
export type ServiceNlbMatch = ServiceClbMatch;

/** The NLBs CCM can see for one Service: those of its cluster's account and region (the same lookups as for CLBs). */
export type CcmNlbView<T> = CcmClbView<T>;

/**
 * The ONE way to find a Service's NLB, as CCM's `FindNLB` (pkg/provider/alibaba/nlb/loadbalancer.go; research/nlb.md
 * 3.2) does at the next sync: the `...-loadbalancer-id` annotation (no fallback when it names nothing), else
 * ListLoadBalancers by the single tag `kubernetes.do.not.delete` = the default LB name, else by
 * `LoadBalancerNames=[default name]` (the default name, not the `name` annotation).
 * @param keys the Service's keys when the caller has them (`ServiceLbKeys`); computed from `service` otherwise
 * @returns the NLB and how it was found
 */
export function findServiceNlb<T>(
  service: Pick<K8sService, 'annotations' | 'uid'>,
  view: CcmNlbView<T>,
  keys?: ServiceLbKeys,
): { nlb?: T; by: ServiceNlbMatch } {
  const { lb, by } = findServiceLb(service, view, keys);
  return lb ? { nlb: lb, by } : { by };
}

/**
 * What a Service says about its NLB after CCM synced it (research/nlb.md 1): the label
 * `service.k8s.alibaba/loadbalancer-id` (the NLB id) and the status hostname (the NLB's `DNSName`; an NLB Service
 * never gets an IP). CCM does not read them to find the NLB; the audit uses them to say which NLB a Service points
 * at when CCM would find none (LB_NOT_FOUND_FOR_SERVICE).
 */
export function nlbPointers(service: Pick<K8sService, 'labels' | 'ingress'>): { labelId?: string; hostname?: string } {
  const labelId = service.labels[LABEL_SERVICE_LOADBALANCER_ID];
  const hostname = service.ingress.find((i) => i.hostname)?.hostname;
  return { ...(labelId ? { labelId } : {}), ...(hostname ? { hostname } : {}) };
}
