import { hash } from 'node:crypto';
import { LB_KIND_RESOURCE_KINDS, type ResourceKind, type ResourceRef } from '@app/domain';

/**
 * Kinds whose identity is regional: a CLB, vServer group, ECS instance or vSwitch is named by its
 * id within its account and region (Alibaba Cloud API references: DescribeLoadBalancers,
 * DescribeVServerGroups, DescribeInstances, DescribeVSwitches take RegionId and return ids unique
 * there), and so is every resource kind of another load-balancer kind (`LB_KIND_RESOURCE_KINDS`: NLB
 * ListLoadBalancers, ListServerGroups, ListServerGroupServers). The cluster they serve is a derived attribute that
 * can change (or be unknown when a cluster's Kubernetes objects were not read), so it is not part of their key.
 */
export const REGION_SCOPED_KINDS: ReadonlySet<ResourceKind> = new Set<ResourceKind>(['LoadBalancer', 'VServerGroup', 'EcsInstance', 'VSwitch', ...LB_KIND_RESOURCE_KINDS]);

/**
 * The stable identity key of a resource, `|`-separated: kind, account, region, cluster and id for
 * cluster-scoped kinds (Service, Node, Cluster: their ids are only unique within a cluster);
 * kind, account, region, an empty field and id for region-scoped kinds ({@link REGION_SCOPED_KINDS})
 * and for account / region kinds (which carry no cluster). Two results about the same resource in
 * two scans have the same key, whatever cluster the resource is attributed to.
 */
export function resourceKeyOf(resource: ResourceRef): string {
  const cluster = REGION_SCOPED_KINDS.has(resource.kind) ? '' : (resource.clusterId ?? '');
  return [resource.kind, resource.accountId, resource.regionId, cluster, resource.id].join('|');
}

/** The cluster field of a resource key (see `resourceKeyOf`). */
function clusterField(r: ResourceRef): string {
  return REGION_SCOPED_KINDS.has(r.kind) ? '' : (r.clusterId ?? '');
}

/**
 * One field of two resource keys compared as the joined keys compare at that field (each field is followed by
 * `|`): 0 when equal; NaN when the order depends on what follows (one field is the other plus `|`...).
 */
function compareKeyField(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length !== b.length && (a.length < b.length ? b.startsWith(a) : a.startsWith(b))) {
    // The shorter field's key continues with its `|` where the longer one continues with its next character.
    const next = a.length < b.length ? b.charCodeAt(a.length) : a.charCodeAt(b.length);
    if (next === 124) return NaN;
    return a.length < b.length ? 124 - next : next - 124;
  }
  return a < b ? -1 : 1;
}

/**
 * Orders two resources as their keys (`resourceKeyOf`) order as strings (UTF-16 code units), without building the
 * keys: the audit orders 2.5M results of a 10M-entry fleet by resource key. Falls back to
 * comparing the built keys where a field holds a `|` at the place that decides.
 * @returns negative, 0 or positive, as `resourceKeyOf(a) < resourceKeyOf(b)`, equal, greater
 */
export function compareResourceKeys(a: ResourceRef, b: ResourceRef): number {
  if (a === b) return 0;
  // Most pairs compared are two resources of one kind, account and region: only the cluster and id can differ.
  if (a.kind === b.kind && a.accountId === b.accountId && a.regionId === b.regionId) {
    if (!REGION_SCOPED_KINDS.has(a.kind)) {
      const ca = a.clusterId ?? '';
      const cb = b.clusterId ?? '';
      if (ca !== cb) {
        const c = compareKeyField(ca, cb);
        if (!Number.isNaN(c)) return c;
        const ka = resourceKeyOf(a);
        const kb = resourceKeyOf(b);
        return ka < kb ? -1 : ka > kb ? 1 : 0;
      }
    }
    return a.id === b.id ? 0 : a.id < b.id ? -1 : 1;
  }
  let c = compareKeyField(a.kind, b.kind);
  if (c === 0) c = compareKeyField(a.accountId, b.accountId);
  if (c === 0) c = compareKeyField(a.regionId, b.regionId);
  if (c === 0) c = compareKeyField(clusterField(a), clusterField(b));
  if (c === 0) return a.id === b.id ? 0 : a.id < b.id ? -1 : 1;
  if (Number.isNaN(c)) {
    const ka = resourceKeyOf(a);
    const kb = resourceKeyOf(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  }
  return c;
}

/**
 * Fingerprint of a finding: the first 32 hex characters of sha256(`checkId` + NUL + resource key).
 * Stable across scans, so scans diff into new / resolved / persisting and waivers can name it
 * (docs/architecture.md "Findings carry a fingerprint"). The SQL migration
 * `1796500000001_rekeyed_region_scoped_fingerprints.sql` computes the same value in PostgreSQL.
 */
export function fingerprintOf(checkId: string, resource: ResourceRef): string {
  return sha256Hex(`${checkId}\u0000${resourceKeyOf(resource)}`).slice(0, 32);
}

/**
 * sha256 of a string's UTF-8 bytes, hex, with Node's one-shot `crypto.hash` (every Node the package's `engines`
 * allow has it): about twice as fast as a Hash object per call over the 200,000 findings of a 10M-entry fleet;
 * the same digest as `createHash('sha256').update(text).digest('hex')`.
 */
function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}
