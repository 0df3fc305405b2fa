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
  return { port: parts[0]!, serviceName: parts[1]!, namespace: parts[2]!, clusterId: parts[3]! };
}

/**
 * The parts of a name CCM wrote (CLB `k8s/...`, NLB `k8s....`) after its `k8s` prefix: exactly `count` non-empty
 * parts separated by `separator`, else `undefined` (a user-managed name, which CCM never deletes).
 */
export function ccmNameParts(text: string | undefined, separator: string, count: number): string[] | undefined {
  // Other texts are turned away before any split, and the split array itself is returned: names are parsed once per
  // vServer group, listener and backend of every CLB (millions on a 10M-entry fleet).
  if (!text || !text.startsWith(CCM_NAME_PREFIX)) return undefined;
  if (text.length === CCM_NAME_PREFIX.length) return count === 0 ? [] : undefined;
  if (!text.startsWith(separator, CCM_NAME_PREFIX.length)) return undefined;
  const parts = text.split(separator);
  if (parts.length !== count + 1) return undefined;
  for (let i = 1; i < parts.length; i++) if (parts[i] === '') return undefined;
  parts.shift();
  return parts;
}
