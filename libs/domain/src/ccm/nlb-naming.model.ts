/**
 * Names CCM gives the NLB objects it manages for a Service, and parsing them back (research/nlb.md 3.1).
 *
 * - server group: `k8s.{port}.{proto}.{svc}.{ns}.{clusterId}`, one per listener (Service port and protocol);
 *   port = NodePort, or the targetPort in ENI mode (a named targetPort stays a name), or `{start}_{end}` for a
 *   listener port range. Source: `getServerGroupNamedKey`, `getAnyPortServerGroupNamedKey`
 *   (pkg/controller/service/nlbv2/server_groups.go), `SGNamedKey.Key` (pkg/model/nlb/nlb.go).
 * - listener description: `k8s.{servicePort}.{proto}.{svc}.{ns}.{clusterId}` or `k8s.{start}_{end}.{proto}...`
 *   (`ListenerNamedKey.Key`).
 * - server description: the server group name.
 * Separators are dots (CLB uses `/`). A name that does not split into exactly six parts starting with `k8s` is
 * user-managed: CCM never deletes it ("ServerGroupName Format Error: k8s.${port}.${protocol}.${service}.
 * ${namespace}.${clusterid} format is expected", `LoadNLBSGNamedKey` / `LoadNLBListenerNamedKey`).
 */
import { CCM_NAME_PREFIX, ccmNameParts } from './naming.model';

/** The parts of a CCM NLB server group name or listener description. */
export interface NlbNamedKey {
  /** NodePort, targetPort, Service port or `{start}_{end}`, as written. */
  port: string;
  /** `TCP`, `UDP`, `TCPSSL` as written. */
  protocol: string;
  serviceName: string;
  namespace: string;
  clusterId: string;
}

/**
 * `k8s.{port}.{proto}.{svc}.{ns}.{clusterId}`: an NLB server group name, listener description or server
 * description.
 * @param port NodePort / targetPort / Service port, or `{start}_{end}` for a port range
 * @param protocol listener protocol, upper case (`TCP`, `UDP`, `TCPSSL`)
 */
export function nlbNamedKey(port: number | string, protocol: string, serviceName: string, namespace: string, clusterId: string): string {
  return `${CCM_NAME_PREFIX}.${port}.${protocol}.${serviceName}.${namespace}.${clusterId}`;
}

/** Server group name CCM gives the group of one listener. Same format as `nlbNamedKey`. */
export const nlbServerGroupName = nlbNamedKey;

/** Listener description CCM writes for one Service port and protocol. Same format as `nlbNamedKey`. */
export const nlbListenerDescription = nlbNamedKey;

/**
 * Parses an NLB server group name, listener description or server description written by CCM.
 * @returns the parts, or `undefined` when the text is not exactly six `.`-separated non-empty parts starting with
 *   `k8s` (user-managed: a Service or namespace name with a dot cannot round-trip either, as in CCM)
 */
export function parseNlbNamedKey(text: string | undefined): NlbNamedKey | undefined {
  const parts = ccmNameParts(text, '.', 5);
  if (!parts) return undefined;
  return { port: parts[0]!, protocol: parts[1]!, serviceName: parts[2]!, namespace: parts[3]!, clusterId: parts[4]! };
}
