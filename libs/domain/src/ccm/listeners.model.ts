import type { K8sService, K8sServicePort } from '../snapshot.types';
import { LB_ANNOTATION } from './ccm.constants';
import { getLbAnnotation } from './annotations.model';
import { listenerDescription } from './naming.model';
import { reusedLoadBalancerId } from './service.model';

/**
 * The CLB listeners CCM builds for a Service, as `buildListenerFromServicePort` and `protocol`
 * (pkg/controller/service/clbv1/listeners.go) do: one listener per Service port on `port`, described
 * `k8s/{port}/{svc}/{ns}/{clusterId}`, its protocol from the `protocol-port` annotation
 * (`https:443,http:80`), else the Service port's protocol lower-cased.
 */

/** CLB listener protocols CCM accepts in `protocol-port` (`model.HTTP|HTTPS|TCP|UDP`). */
export type ListenerProtocol = 'tcp' | 'udp' | 'http' | 'https';

const PROTOCOLS: ReadonlySet<string> = new Set(['tcp', 'udp', 'http', 'https']);

/** One `protocol:port` element of the `protocol-port` annotation. */
export interface ProtocolPortEntry {
  protocol: ListenerProtocol;
  /** The listener (Service) port, as written (CCM compares the text with the port number). */
  port: string;
}

/**
 * Parses the `protocol-port` annotation like CCM's `protocol()`: comma-separated `proto:port`; an element
 * without `:` or with another protocol is an error (CCM fails the sync with the same texts).
 *
 * @returns the entries, or `{ error }`; an empty or absent annotation gives `[]`
 */
export function parseProtocolPort(
  text: string | undefined,
): { entries: ProtocolPortEntry[] } | { error: string } {
  if (text === undefined || text === '') return { entries: [] };
  const entries: ProtocolPortEntry[] = [];
  for (const v of text.split(',')) {
    const pp = v.split(':');
    if (pp.length < 2)
      return {
        error: `port and protocol format must be like 'https:443' with colon separated. got=[${pp.join(' ')}]`,
      };
    const protocol = pp[0] ?? '';
    if (!PROTOCOLS.has(protocol))
      return {
        error: `port protocol format must be either [http|https|tcp|udp], protocol not supported wit [${protocol}]`,
      };
    entries.push({ protocol: protocol as ListenerProtocol, port: pp[1] ?? '' });
  }
  return { entries };
}

/**
 * The listener protocol of one Service port: the first `protocol-port` entry whose port text equals the
 * port number, else the Service port's protocol lower-cased (`TCP` -> `tcp`).
 */
export function listenerProtocolOf(entries: readonly ProtocolPortEntry[], port: K8sServicePort): string {
  const text = String(port.port);
  for (const e of entries) if (e.port === text) return e.protocol;
  return port.protocol.toLowerCase();
}

/** The transport a listener protocol occupies on the CLB: `udp`, or `tcp` for tcp/http/https. */
export function listenerTransport(protocol: string): 'tcp' | 'udp' {
  return protocol.toLowerCase() === 'udp' ? 'udp' : 'tcp';
}

/** A listener CCM would create for one Service port. */
export interface ExpectedListener {
  port: number;
  protocol: string;
  /** `k8s/{port}/{svc}/{ns}/{clusterId}`. */
  description: string;
  servicePort: K8sServicePort;
}

/**
 * The listeners CCM builds for a Service in a cluster, one per Service port.
 *
 * @returns the listeners, or `{ error }` when `protocol-port` does not parse (CCM fails the sync)
 */
export function expectedListeners(
  service: K8sService,
  clusterId: string,
): { listeners: ExpectedListener[] } | { error: string } {
  const parsed = parseProtocolPort(getLbAnnotation(service.annotations, LB_ANNOTATION.protocolPort));
  if ('error' in parsed) return parsed;
  return {
    listeners: service.ports.map((sp) => ({
      port: sp.port,
      protocol: listenerProtocolOf(parsed.entries, sp),
      description: listenerDescription(sp.port, service.name, service.namespace, clusterId),
      servicePort: sp,
    })),
  };
}

/**
 * Whether CCM manages the listeners of the Service's CLB: always for a CLB it created; for a reused CLB only
 * with `force-override-listeners` exactly `"true"` (`IsForceOverride`; model_applier.go "listener override is
 * false, skip reconcile listeners"; seeds 000/001/003 "Why is a listener not configured when I reuse an
 * existing SLB instance?").
 */
export function ccmManagesListeners(service: K8sService): boolean {
  if (!reusedLoadBalancerId(service)) return true;
  return getLbAnnotation(service.annotations, LB_ANNOTATION.forceOverrideListeners) === 'true';
}

/**
 * Parses the `vgroup-port` annotation (`rsp-xxx:443,rsp-yyy:80`): Service port text -> user vServer group
 * id, the way CCM reads it (only on a reused CLB): `vgroup()` in clbv1/listeners.go splits on `,` then `:`
 * without trimming, and for a Service port takes the id (part 0) of the FIRST element whose part 1 equals
 * the port number; an empty id means no user group for that port. `getVGroupIDs` (clbv1/vgroups.go) fails
 * the sync when any element has fewer than two `:`-separated parts ("vgroupid and protocol format must be
 * like 'vsp-xxx:443'"). Text around the id is kept as written: `rsp-a:80, rsp-b:443` binds port 443 to
 * `" rsp-b"`, which CCM then cannot find ("can not find vgroupId ... in lb ...").
 *
 * @returns the map (ports with an empty id left out), or `{ error }` for an element without `:`
 */
export function parseVGroupPort(
  text: string | undefined,
): { byPort: Map<string, string> } | { error: string } {
  const first = new Map<string, string>();
  if (text === undefined || text === '') return { byPort: first };
  for (const v of text.split(',')) {
    const parts = v.split(':');
    if (parts.length < 2)
      return {
        error: `vgroupid and protocol format must be like 'vsp-xxx:443' with colon separated. got=[${parts.join(' ')}]`,
      };
    const port = parts[1] ?? '';
    if (!first.has(port)) first.set(port, parts[0] ?? '');
  }
  const byPort = new Map<string, string>();
  for (const [port, id] of first) if (id !== '') byPort.set(port, id);
  return { byPort };
}
