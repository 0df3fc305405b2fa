/**
 * What CCM's NLB controller changes in one server group at its next sync: the same comparison as CCM's `diff`,
 * `isServerEqual` and `isServerManagedByMyService` (pkg/controller/service/nlbv2/server_groups.go, tag v2.14.0):
 * - a server is identified by its type and id, not its port: `Ecs` by ECS id, `Eni` by ENI id and IP (the snapshot
 *   has the ENI's IP and the model the pod IP, so `Eni` servers are matched by IP), `Ip` by the IP;
 * - existence, not counts: an expected server is to add when no remote server equals it, a remote one to remove when
 *   no expected server equals it (two expected entries of one server need one remote entry);
 * - a remote server whose `Description` does not parse to this Service's server-group name (`LoadNLBSGNamedKey`:
 *   `k8s.{port}.{proto}.{svc}.{ns}.{clusterId}` with this Service, namespace and cluster) is user-managed: CCM never
 *   removes it;
 * - update: every pair of equal servers whose port, weight (unless weights are ignored: `ignore-weight-update: on`
 *   from CCM v2.11.2, `ignoresWeightUpdate`) or description differs (CCM's `diff` appends the expected server once
 *   per equal remote server).
 * Seed "Considerations for configuring a LoadBalancer Service" / NLB: CCM is declarative and overwrites console
 * edits of the server groups it manages.
 */
import type { NlbServer } from '../snapshot.types';
import type { ExpectedNlbServer } from './nlb-backends.model';
import { parseNlbNamedKey } from './nlb-naming.model';
import type { VServerGroupOwner } from './vgroup-diff.model';

/** A pair of equal servers (`isServerEqual`) whose attributes CCM rewrites, and what differs. */
export interface NlbServerUpdate {
  expected: ExpectedNlbServer;
  actual: NlbServer;
  fields: ('port' | 'weight' | 'description')[];
}

/** The differences between the servers CCM builds for a group and the remote ones (samples capped at `maxSamples`). */
export interface NlbServerGroupDiff {
  /** Expected servers no remote server equals (count, one per expected entry), and samples. */
  add: number;
  addSamples: ExpectedNlbServer[];
  /** CCM-managed remote servers no expected server equals (count), and samples. */
  remove: number;
  removeSamples: NlbServer[];
  /** Pairs of equal servers whose port, weight or description CCM rewrites (count), and samples. */
  update: number;
  updateSamples: NlbServerUpdate[];
  /** Remote servers CCM leaves alone: their description is not this Service's server-group name (count). */
  userManaged: number;
}

/**
 * Whether a remote server's description names this Service's server groups (`isServerManagedByMyService`): it
 * parses as an NLB named key whose Service, namespace and cluster are the owner's.
 */
export function isNlbServerOfOwner(description: string | undefined, owner: VServerGroupOwner): boolean {
  const k = parseNlbNamedKey(description);
  return k !== undefined && k.serviceName === owner.serviceName && k.namespace === owner.namespace && k.clusterId === owner.clusterId;
}

/**
 * Compares the servers CCM builds for one server group with the remote group's servers, as CCM's `diff` does.
 * Linear in the number of servers (a map by identity instead of CCM's nested loops; the same answer).
 *
 * @param expected the group from `expectedNlbServerGroups` (its servers' description is the group's `name`)
 * @param remote the remote group's servers (the group CCM binds: by `vgroup-port` id, else by name)
 * @param owner the Service the group belongs to
 * @param options `ignoreWeightUpdate`: weights are not compared (`ignoresWeightUpdate`); `maxSamples` (default 5)
 */
export function diffNlbServerGroupServers(
  expected: { name: string; servers: readonly ExpectedNlbServer[] },
  remote: readonly NlbServer[],
  owner: VServerGroupOwner,
  options: { ignoreWeightUpdate?: boolean; maxSamples?: number } = {},
): NlbServerGroupDiff {
  const max = options.maxSamples ?? 5;
  const out: NlbServerGroupDiff = { add: 0, addSamples: [], remove: 0, removeSamples: [], update: 0, updateSamples: [], userManaged: 0 };
  // Remote positions by the id CCM compares (`matchId`), chained through `next` where ids repeat: no key string or
  // list per server (a type is compared where the chain is walked).
  const first = new Map<string, number>();
  const next = new Int32Array(remote.length).fill(-1);
  for (let i = remote.length - 1; i >= 0; i--) {
    const id = matchId(remote[i]!);
    const j = first.get(id);
    if (j !== undefined) next[i] = j;
    first.set(id, i);
  }
  const found = new Uint8Array(remote.length);
  const ignoreWeight = options.ignoreWeightUpdate === true;
  for (const l of expected.servers) {
    let any = false;
    for (let i = first.get(matchId(l)) ?? -1; i >= 0; i = next[i]!) {
      const r = remote[i]!;
      if (r.type !== l.type) continue;
      any = true;
      found[i] = 1;
      const portDiffers = (l.port ?? 0) !== (r.port ?? 0);
      const weightDiffers = !ignoreWeight && l.weight !== (r.weight ?? 0);
      const descriptionDiffers = r.description !== expected.name;
      if (!portDiffers && !weightDiffers && !descriptionDiffers) continue;
      out.update++;
      if (out.updateSamples.length < max) {
        const fields: NlbServerUpdate['fields'] = [];
        if (portDiffers) fields.push('port');
        if (weightDiffers) fields.push('weight');
        if (descriptionDiffers) fields.push('description');
        out.updateSamples.push({ expected: l, actual: r, fields });
      }
    }
    if (!any) {
      out.add++;
      if (out.addSamples.length < max) out.addSamples.push(l);
    }
  }
  for (let i = 0; i < remote.length; i++) {
    const r = remote[i]!;
    // One string comparison for most servers: CCM writes the group's name as the description of its servers.
    if (r.description !== expected.name && !isNlbServerOfOwner(r.description, owner)) {
      out.userManaged++;
      continue;
    }
    if (found[i] === 1) continue;
    out.remove++;
    if (out.removeSamples.length < max) out.removeSamples.push(r);
  }
  return out;
}

/** The id `isServerEqual` compares besides the type: the IP of an `Eni` server, else the server id. */
function matchId(s: { type: string; serverId: string; serverIp?: string | undefined }): string {
  return s.type === 'Eni' ? (s.serverIp ?? s.serverId) : s.serverId;
}
