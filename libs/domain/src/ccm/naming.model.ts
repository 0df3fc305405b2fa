/**
 * Names CCM gives the CLB objects it manages for a Service, and parsing them back.
 *
 * - vServer group: `k8s/{port}/{svc}/{ns}/{clusterId}`, one per Service port; port = NodePort (ECS
 *   backends) or targetPort (ENI backends; a named targetPort stays a name, e.g.
 *   `k8s/tcp/test/default/clusterid`). Source: `getVGroupNamedKey` (pkg/controller/service/clbv1/
 *   listeners.go), `VGroupNamedKey.Key()` (pkg/model/load_balancer.go); test `TestSyncVGroups`.
 * - listener description: `k8s/{servicePort}/{svc}/{ns}/{clusterId}` (error text "ListenerName Format
 *   Error: k8s/${port}/${service}/${namespace}/${clusterid} format is expected").
 * - backend description: the vServer group name.
 * Names that do not parse are user-managed: CCM never deletes them.
 */

/** The parts of a CCM vServer group name or listener description. */
export interface CcmNamedKey {
  /** NodePort, targetPort or Service port, as written (a named targetPort stays a string). */
  port: string;
  serviceName: string;
  namespace: string;
  clusterId: string;
}

/** Name prefix of CCM-named objects. */
export const CCM_NAME_PREFIX = 'k8s';

/** `k8s/{port}/{svc}/{ns}/{clusterId}`: a vServer group name or listener description. */
export function ccmNamedKey(
  port: number | string,
  serviceName: string,
  namespace: string,
  clusterId: string,
): string {
  return `${CCM_NAME_PREFIX}/${port}/${serviceName}/${namespace}/${clusterId}`;
}

/** vServer group name CCM gives the group of one Service port. Same format as `ccmNamedKey`. */
export const vServerGroupName = ccmNamedKey;

/** Listener description CCM writes for one Service port. Same format as `ccmNamedKey`. */
export const listenerDescription = ccmNamedKey;

/**
 * Parses a vServer group name, listener description or backend description written by CCM.
 *
 * @returns the parts, or `undefined` when the text is not exactly five `/`-separated non-empty parts
 *   starting with `k8s` (a user-managed name)
 */
export function parseCcmNamedKey(text: string | undefined): CcmNamedKey | undefined {
  const parts = ccmNameParts(text, '/', 4);
  if (!parts) return undefined;
  const [port, serviceName, namespace, clusterId] = parts;
  return { port, serviceName, namespace, clusterId };
}

/**
 * The parts of a name CCM wrote (CLB `k8s/...`, NLB `k8s....`) after its `k8s` prefix: exactly `count` non-empty
 * parts separated by `separator`, else `undefined` (a user-managed name, which CCM never deletes).
 */
export function ccmNameParts(text: string | undefined, separator: string, count: number): string[] | undefined {
  if (!text) return undefined;
  const [prefix, ...parts] = text.split(separator);
  if (prefix !== CCM_NAME_PREFIX || parts.length !== count || parts.some((p) => p === '')) return undefined;
  return parts;
}
