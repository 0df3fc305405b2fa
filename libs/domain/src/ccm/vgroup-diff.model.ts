import type { BackendServer } from '../snapshot.types';
import type { ExpectedBackend, ExpectedVServerGroup } from './backends.model';
import { flatString } from '../text.util';
import { parseCcmNamedKey } from './naming.model';

/**
 * What CCM would change in one vServer group at its next reconcile: the same comparison as CCM's `diff`
 * and `isBackendManagedByMyService` (pkg/controller/service/clbv1/vgroups.go):
 * - a remote backend whose description does not parse to this Service (namespace, name, cluster id) is
 *   user-managed: CCM never removes it (and treats the group as user-managed);
 * - remove: CCM-managed remote backends with no expected backend of the same server and port;
 * - add: expected backends with no remote backend of the same server and port (managed or not);
 * - update: matched pairs whose weight (unless `ignore-weight-update: on`) or description differs.
 * ENI backends are matched by IP and port (CCM resolves pod IPs to ENI ids before comparing; the snapshot
 * has the ENI's IP). Seeds 000/003 "Why was the configuration of my SLB instance modified?": CCM is
 * declarative and overwrites console edits.
 */

/** The Service a vServer group belongs to. */
export interface VServerGroupOwner {
  serviceName: string;
  namespace: string;
  clusterId: string;
}

/** A matched backend whose attributes CCM would rewrite. */
export interface BackendUpdate {
  expected: ExpectedBackend;
  actual: BackendServer;
  /** What differs. */
  fields: ('weight' | 'description')[];
}

/** The differences between the backends CCM would set and the remote ones (samples capped at `maxSamples`). */
export interface VServerGroupBackendDiff {
  /** Expected backends missing remotely (count), and samples. */
  add: number;
  addSamples: ExpectedBackend[];
  /** CCM-managed remote backends CCM would remove (count), and samples. */
  remove: number;
  removeSamples: BackendServer[];
  /** Matched backends CCM would rewrite (count), and samples. */
  update: number;
  updateSamples: BackendUpdate[];
  /** Remote backends CCM leaves alone (description not this Service's), count. */
  userManaged: number;
}

/**
 * Whether a CCM name (`k8s/{port}/{svc}/{ns}/{clusterId}`: a vServer group name, a listener description or a
 * backend description, all the same format) names this owner: its Service, namespace and cluster.
 */
export function isCcmNameOfOwner(name: string | undefined, owner: VServerGroupOwner): boolean {
  const k = parseCcmNamedKey(name);
  return (
    k !== undefined &&
    k.serviceName === owner.serviceName &&
    k.namespace === owner.namespace &&
    k.clusterId === owner.clusterId
  );
}

/** Whether a backend description names this owner (CCM `isBackendManagedByMyService`). */
export const isBackendOfOwner = isCcmNameOfOwner;

/**
 * The ECS backends of an expected group (positions in `ExpectedVServerGroup.backends`, as in `ecsIndex`) sorted
 * by server id in code-unit order, the order the mappers sort a remote group's backends in (`sortBy`,
 * wire-mappers.ts): `ids[k]` is at position `positions[k]`, and the position `p` has rank `rankOf[p]` in `ids`.
 * Lets `diffVServerGroupBackends` walk a remote group alongside the expected one instead of a map lookup per
 * backend.
 */
export interface EcsOrder {
  ids: readonly string[];
  positions: Int32Array;
  rankOf: Int32Array;
}

/**
 * `EcsOrder` of a list of ECS ids (position `i` holds `ids[i]`): sorted in code-unit order, ties by position.
 * Linear in memory, `n log n` time.
 */
export function ecsOrderOf(ids: readonly string[]): EcsOrder {
  const n = ids.length;
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : a - b));
  const positions = Int32Array.from(order);
  const rankOf = new Int32Array(n);
  for (let k = 0; k < n; k++) rankOf[positions[k]!] = k;
  return { ids: order.map((i) => ids[i]!), positions, rankOf };
}

/**
 * Compares one expected vServer group with the remote backends of the group of the same name. Linear in
 * the number of backends.
 *
 * @param expected from `expectedVServerGroups`
 * @param remote the remote group's backends
 * @param owner the Service the group belongs to
 * @param options `ignoreWeightUpdate`: the Service's `ignore-weight-update` is `on`; `maxSamples` (default 5);
 *   `ecsIndex`: a prebuilt ECS id -> position in `expected.backends` map for the group's `ecs` backends (e.g.
 *   one per set of eligible nodes, shared by every Cluster-mode Service of a cluster); built here when absent;
 *   `ecsOrder`: the same backends sorted by id (`ecsOrderOf`, only with `ecsIndex`), so that a remote group sorted by
 *   id is matched by walking both lists, with a lookup in `ecsIndex` only where they part. The answer is the same
 *   with or without it: it is used only when no ECS id is expected twice, and then a hit is the position the
 *   index names.
 */
export function diffVServerGroupBackends(
  expected: ExpectedVServerGroup,
  remote: readonly BackendServer[],
  owner: VServerGroupOwner,
  options: {
    ignoreWeightUpdate?: boolean;
    maxSamples?: number;
    ecsIndex?: ReadonlyMap<string, number>;
    ecsOrder?: EcsOrder;
  } = {},
): VServerGroupBackendDiff {
  const max = options.maxSamples ?? 5;
  const out: VServerGroupBackendDiff = {
    add: 0,
    addSamples: [],
    remove: 0,
    removeSamples: [],
    update: 0,
    updateSamples: [],
    userManaged: 0,
  };
  const backends = expected.backends;
  // Flat: the name is compared with the description of every remote backend (a cons string is walked each time).
  const name = flatString(expected.name);
  let ecsById = options.ecsIndex;
  const ownEcs = ecsById === undefined ? new Map<string, number>() : undefined;
  let eniByIp: Map<string, number> | undefined;
  let ecsCount = 0;
  for (let i = 0; i < backends.length; i++) {
    const b = backends[i]!;
    if (b.type === 'eni') (eniByIp ??= new Map()).set(b.serverIp ?? b.serverId, i);
    else {
      ecsCount++;
      if (ownEcs) ownEcs.set(b.serverId, i);
    }
  }
  if (ownEcs) ecsById = ownEcs;
  // The walk in id order: only with the caller's index, and no ECS id expected twice (then the index names the one
  // position holding an id, which is the one the walk finds).
  const order = ownEcs === undefined && ecsById!.size === ecsCount ? options.ecsOrder : undefined;
  let k = 0;
  const ignoreWeight = options.ignoreWeightUpdate === true;
  const matched = new Uint8Array(backends.length);
  for (const r of remote) {
    // One string comparison per backend: CCM writes the group name as the description of its backends.
    const sameName = r.description === name;
    const managed = sameName || isBackendOfOwner(r.description, owner);
    if (!managed) out.userManaged++;
    let idx: number | undefined;
    if (r.type !== 'ecs') idx = eniByIp?.get(r.serverIp ?? '');
    else if (order !== undefined && k < order.ids.length && order.ids[k] === r.serverId) idx = order.positions[k++];
    else {
      idx = ecsById!.get(r.serverId);
      if (order !== undefined && idx !== undefined && idx < order.rankOf.length) k = order.rankOf[idx]! + 1;
    }
    const exp = idx === undefined ? undefined : backends[idx];
    if (idx === undefined || exp === undefined || exp.type !== r.type || exp.port !== r.port) {
      if (managed) {
        out.remove++;
        if (out.removeSamples.length < max) out.removeSamples.push(r);
      }
      continue;
    }
    matched[idx] = 1;
    const weightDiffers = !ignoreWeight && exp.weight !== r.weight;
    if (weightDiffers || !sameName) {
      out.update++;
      if (out.updateSamples.length < max) {
        const fields: BackendUpdate['fields'] = [];
        if (weightDiffers) fields.push('weight');
        if (!sameName) fields.push('description');
        out.updateSamples.push({ expected: exp, actual: r, fields });
      }
    }
  }
  for (let i = 0; i < backends.length; i++) {
    if (matched[i]) continue;
    out.add++;
    if (out.addSamples.length < max) out.addSamples.push(backends[i]!);
  }
  return out;
}
